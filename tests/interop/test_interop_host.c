/* tests/interop/test_interop_host.c: one process, both runtimes (linked to
 * the shared libxffi and the wheel's libtvm_ffi.so), each loading a library
 * written for the other:
 * - xffi loads lib_tvm_exports (tvm-ffi's C API only) with xffi_module_load
 *   and calls it with xffi values: strings, tensors, arrays and functions
 *   cross both ways, tvm-ffi's errors arrive as xffi errors;
 * - tvm-ffi loads lib_xffi_exports (xffi's export macro) through its own
 *   global "ffi.ModuleLoadFromFile" and calls it through TVMFFIFunctionCall;
 *   xffi's errors arrive in tvm-ffi's slot.
 * - with tvm-ffi's runtime in the process, xffi registers its dynamic types
 *   there too (index, fields, methods, attributes) and hands the errors of its
 *   callback functions to tvm-ffi callers (c/runtime/foreign.c).
 * Every object made on one side and dropped by the other is destroyed exactly
 * once (counters in the libraries, and a counted finalizer here); the
 * AddressSanitizer build (scripts/test.sh) proves nothing leaks. */
#include <tvm/ffi/c_api.h>
#include <xffi/reflection.h>

#include "test_util.h"

_Static_assert(sizeof(TVMFFIAny) == sizeof(xffi_any), "Any layouts differ");
_Static_assert(sizeof(TVMFFIObject) == sizeof(xffi_object), "object headers differ");

static xffi_object *tvm_lib; /* Module of lib_tvm_exports, loaded by xffi */

static xffi_object *tvm_fn(const char *name) {
  xffi_object *f = NULL;
  assert_int_equal(xffi_module_lookup_function(&f, tvm_lib, name), XFFI_OK);
  assert_non_null(f);
  return f;
}

static int64_t tvm_deleter_runs(void) {
  xffi_object *f = tvm_fn("deleter_runs");
  xffi_any r;
  assert_int_equal(xffi_function_call(f, NULL, 0, &r), XFFI_OK);
  xffi_object_dec_ref(f);
  assert_int_equal(r.type_index, XFFI_TYPE_INT);
  return r.v_int64;
}

static int setup(void **state) {
  (void)state;
  return xffi_module_load(&tvm_lib, XFFI_INTEROP_TVM_LIB) == XFFI_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  xffi_object_dec_ref(tvm_lib);
  return 0;
}

/* ---- xffi calls tvm-ffi ---- */

static void tvm_library_has_no_xffi_marker_and_loads(void **state) {
  (void)state;
  int32_t version = -1;
  assert_int_equal(xffi_module_abi_version(&version, tvm_lib), XFFI_OK);
  assert_int_equal(version, 0);
}

static void xffi_strings_go_in_and_a_tvm_string_comes_back(void **state) {
  (void)state;
  xffi_object *concat = tvm_fn("concat"), *a, *b;
  assert_int_equal(xffi_string_from_c_str(&a, "a String object longer than seven bytes"), XFFI_OK);
  assert_int_equal(xffi_string_from_c_str(&b, ", and another"), XFFI_OK);
  xffi_any r;
  assert_int_equal(XFFI_CALL(concat, &r, xffi_any_object(a), xffi_any_object(b)), XFFI_OK);
  assert_int_equal(r.type_index, XFFI_TYPE_STRING); /* made by tvm-ffi, read by xffi */
  xffi_byte_array s;
  assert_int_equal(xffi_string_cell_of(&s, r.v_obj), XFFI_OK);
  assert_string_equal(s.data, "a String object longer than seven bytes, and another");
  assert_int_equal(xffi_object_strong_count(a), 1); /* the callee took no reference */
  xffi_any_release(&r);
  /* small inline strings and raw C strings too */
  assert_int_equal(XFFI_CALL(concat, &r, xffi_any_c_str("ab"), xffi_any_c_str("cd")), XFFI_OK);
  xffi_byte_array small;
  assert_int_equal(xffi_any_to_str(&small, &r), XFFI_OK);
  assert_int_equal(small.size, 4);
  assert_memory_equal(small.data, "abcd", 4);
  xffi_any_release(&r);
  xffi_object_dec_ref(a);
  xffi_object_dec_ref(b);
  xffi_object_dec_ref(concat);
}

static void xffi_tensor_is_read_by_tvm_and_tvm_tensor_by_xffi(void **state) {
  (void)state;
  xffi_object *sum = tvm_fn("tensor_sum"), *full = tvm_fn("tensor_full"), *t;
  int64_t shape[2] = {2, 3};
  assert_int_equal(xffi_tensor_new(&t, shape, 2, (DLDataType){kDLFloat, 64, 1}), XFFI_OK);
  DLTensor *dl;
  assert_int_equal(xffi_tensor_cell_of(&dl, t), XFFI_OK);
  for (int i = 0; i < 6; i++) ((double *)dl->data)[i] = i + 0.5;
  xffi_any r;
  assert_int_equal(XFFI_CALL(sum, &r, xffi_any_object(t)), XFFI_OK);
  assert_true(r.type_index == XFFI_TYPE_FLOAT && r.v_float64 == 18.0);

  int64_t before = tvm_deleter_runs();
  assert_int_equal(XFFI_CALL(full, &r, xffi_any_int(4), xffi_any_float(2.5)), XFFI_OK);
  assert_int_equal(r.type_index, XFFI_TYPE_TENSOR);
  int64_t numel;
  assert_int_equal(xffi_tensor_numel(&numel, r.v_obj), XFFI_OK);
  assert_int_equal(numel, 4);
  assert_int_equal(xffi_tensor_cell_of(&dl, r.v_obj), XFFI_OK);
  assert_true(((double *)dl->data)[3] == 2.5);
  xffi_object *held = r.v_obj;
  xffi_object_inc_ref(held); /* a second holder on the xffi side */
  xffi_any_release(&r);
  assert_int_equal(tvm_deleter_runs(), before);
  xffi_object_dec_ref(held); /* the last reference: tvm-ffi's deleter, once */
  assert_int_equal(tvm_deleter_runs(), before + 1);
  xffi_object_dec_ref(t);
  xffi_object_dec_ref(sum);
  xffi_object_dec_ref(full);
}

static void arrays_cross_both_ways(void **state) {
  (void)state;
  xffi_object *sum = tvm_fn("array_sum"), *make = tvm_fn("array_of"), *arr, *s;
  xffi_any items[3] = {xffi_any_int(1), xffi_any_int(20), xffi_any_int(300)};
  assert_int_equal(xffi_array_new(&arr, items, 3), XFFI_OK);
  xffi_any r;
  assert_int_equal(XFFI_CALL(sum, &r, xffi_any_object(arr)), XFFI_OK);
  assert_int_equal(r.v_int64, 321);

  assert_int_equal(xffi_string_from_c_str(&s, "a string kept by a tvm-ffi Array"), XFFI_OK);
  assert_int_equal(XFFI_CALL(make, &r, xffi_any_int(7), xffi_any_object(s), xffi_any_object(arr)), XFFI_OK);
  assert_int_equal(r.type_index, XFFI_TYPE_ARRAY); /* made by tvm-ffi's ffi.Array */
  assert_int_equal(xffi_object_strong_count(s), 2);
  int64_t n;
  assert_int_equal(xffi_array_length(&n, r.v_obj), XFFI_OK);
  assert_int_equal(n, 3);
  xffi_any second;
  assert_int_equal(xffi_array_get(&second, r.v_obj, 1), XFFI_OK);
  assert_ptr_equal(second.v_obj, s);
  xffi_any_release(&second);
  xffi_any_release(&r); /* tvm-ffi's Array dies and releases its elements */
  assert_int_equal(xffi_object_strong_count(s), 1);
  assert_int_equal(xffi_object_strong_count(arr), 1);
  xffi_object_dec_ref(s);
  xffi_object_dec_ref(arr);
  xffi_object_dec_ref(sum);
  xffi_object_dec_ref(make);
}

static int finalized;
static int triple(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  int64_t x;
  if (xffi_arg_check_signature(args, num_args, "i", "triple") != XFFI_OK) return XFFI_FAIL;
  xffi_arg_to_int_inline(&x, args, num_args, 0, "triple");
  *result = xffi_any_int(3 * x);
  return XFFI_OK;
}
static void count_finalize(void *resource) {
  (void)resource;
  finalized++;
}

static void functions_cross_both_ways(void **state) {
  (void)state;
  xffi_object *apply = tvm_fn("apply"), *make_adder = tvm_fn("make_adder"), *f;
  finalized = 0;
  assert_int_equal(xffi_function_new(&f, triple, NULL, count_finalize), XFFI_OK);
  xffi_any r;
  assert_int_equal(XFFI_CALL(apply, &r, xffi_any_object(f), xffi_any_int(14)), XFFI_OK); /* tvm-ffi calls xffi */
  assert_int_equal(r.v_int64, 42);
  /* an xffi function failing under tvm-ffi's call: the error is in xffi's slot */
  assert_int_equal(XFFI_CALL(apply, &r, xffi_any_object(f), xffi_any_c_str("x")), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "triple: argument 0: expected int, got str");
  xffi_object_dec_ref(f);
  assert_int_equal(finalized, 1);

  int64_t before = tvm_deleter_runs();
  assert_int_equal(XFFI_CALL(make_adder, &r, xffi_any_int(40)), XFFI_OK);
  assert_int_equal(r.type_index, XFFI_TYPE_FUNCTION); /* made by tvm-ffi */
  xffi_object *adder = r.v_obj;
  xffi_any sum;
  assert_int_equal(XFFI_CALL(adder, &sum, xffi_any_int(2)), XFFI_OK); /* xffi calls tvm-ffi's */
  assert_int_equal(sum.v_int64, 42);
  xffi_object *list; /* kept in an xffi container, dropped with it */
  assert_int_equal(xffi_list_new(&list, &r, 1), XFFI_OK);
  xffi_any_release(&r);
  assert_int_equal(tvm_deleter_runs(), before);
  xffi_object_dec_ref(list);
  assert_int_equal(tvm_deleter_runs(), before + 1);
  xffi_object_dec_ref(apply);
  xffi_object_dec_ref(make_adder);
}

static void tvm_error_arrives_as_xffi_error(void **state) {
  (void)state;
  xffi_object *fail = tvm_fn("fail");
  xffi_any r;
  /* xffi_function_call finds the error in tvm-ffi's slot by itself */
  assert_int_equal(xffi_function_call(fail, (xffi_any[]){xffi_any_c_str("raised by tvm-ffi: 42")}, 1, &r), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "raised by tvm-ffi: 42");
  assert_int_equal(r.type_index, XFFI_TYPE_NONE);
  assert_int_equal(XFFI_CALL(fail, &r, xffi_any_c_str("again")), XFFI_FAIL);
  xffi_object *err = xffi_error_move_raised();
  assert_non_null(err);
  assert_true(xffi_error_is_kind(err, XFFI_KIND_VALUE));
  assert_string_equal(xffi_error_cell_of_unchecked(err)->message.data, "again");
  /* the error object is tvm-ffi's: xffi can still extend its backtrace */
  assert_int_equal(xffi_error_append_frame(err, "test_interop_host"), XFFI_OK);
  assert_non_null(strstr(xffi_error_cell_of_unchecked(err)->backtrace.data, "test_interop_host"));
  xffi_object_dec_ref(err);
  /* tvm-ffi's slot is empty again */
  void *left = (void *)1;
  TVMFFIErrorMoveFromRaised(&left);
  assert_null(left);
  xffi_object_dec_ref(fail);
}

/* A stale error in xffi's slot (a caller ignored an earlier failure) is
 * neither reported for a tvm-ffi callee nor kept from adopting its error. */
static void tvm_error_is_adopted_over_a_stale_xffi_error(void **state) {
  (void)state;
  xffi_object *fail = tvm_fn("fail"), *silent = tvm_fn("fail_silently");
  xffi_any r;
  xffi_error_raise(XFFI_KIND_KEY, "left over from an earlier failure");
  assert_int_equal(XFFI_CALL(fail, &r, xffi_any_c_str("the callee's own error")), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "the callee's own error");
  xffi_error_raise(XFFI_KIND_KEY, "left over from an earlier failure");
  assert_int_equal(xffi_function_call(fail, (xffi_any[]){xffi_any_c_str("again")}, 1, &r), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "again");
  /* a tvm-ffi callee that raised nowhere: the RuntimeError, not the stale one */
  xffi_error_raise(XFFI_KIND_KEY, "left over from an earlier failure");
  assert_int_equal(xffi_function_call(silent, NULL, 0, &r), XFFI_FAIL);
  expect_error(XFFI_KIND_RUNTIME, "xffi_function_call: the callee returned status -1 without raising an error");
  void *left = (void *)1;
  TVMFFIErrorMoveFromRaised(&left);
  assert_null(left);
  xffi_object_dec_ref(silent);
  xffi_object_dec_ref(fail);
}

/* ---- tvm-ffi calls xffi ---- */

/* Calls a tvm-ffi global function with args; returns its status. */
static int tvm_global_call(const char *name, TVMFFIAny *args, int32_t n, TVMFFIAny *result) {
  TVMFFIByteArray key = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  assert_int_equal(TVMFFIFunctionGetGlobal(&key, &f), 0);
  assert_non_null(f);
  result->type_index = kTVMFFINone;
  result->zero_padding = 0;
  result->v_int64 = 0;
  int status = TVMFFIFunctionCall(f, args, n, result);
  TVMFFIObjectDecRef(f);
  return status;
}

static TVMFFIAny tvm_str(const char *s) {
  TVMFFIAny v = {0};
  v.type_index = kTVMFFIRawStr;
  v.v_c_str = s;
  return v;
}

static void tvm_loads_xffi_library_and_gets_its_errors(void **state) {
  (void)state;
  TVMFFIAny module, fn, r;
  TVMFFIAny path = tvm_str(XFFI_INTEROP_XFFI_LIB);
  assert_int_equal(tvm_global_call("ffi.ModuleLoadFromFile", &path, 1, &module), 0);
  assert_int_equal(module.type_index, kTVMFFIModule);

  TVMFFIAny get_args[3] = {module, tvm_str("add_int"), {.type_index = kTVMFFIBool}};
  assert_int_equal(tvm_global_call("ffi.ModuleGetFunction", get_args, 3, &fn), 0);
  assert_int_equal(fn.type_index, kTVMFFIFunction);
  TVMFFIAny ints[2] = {{.type_index = kTVMFFIInt, .v_int64 = 40}, {.type_index = kTVMFFIInt, .v_int64 = 2}};
  r.type_index = kTVMFFINone;
  assert_int_equal(TVMFFIFunctionCall(fn.v_obj, ints, 2, &r), 0);
  assert_true(r.type_index == kTVMFFIInt && r.v_int64 == 42);
  /* a bad argument: xffi's error lands in tvm-ffi's slot */
  ints[0] = tvm_str("forty");
  assert_int_not_equal(TVMFFIFunctionCall(fn.v_obj, ints, 2, &r), 0);
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  assert_non_null(err);
  const TVMFFIErrorCell *cell = (const TVMFFIErrorCell *)((char *)err + sizeof(TVMFFIObject));
  assert_string_equal(cell->kind.data, "TypeError");
  assert_non_null(strstr(cell->message.data, "add_int: argument 0: expected int, got str"));
  TVMFFIObjectDecRef(err);
  assert_null(xffi_error_peek_raised()); /* nothing left behind in xffi's slot */
  TVMFFIObjectDecRef(fn.v_obj);

  /* an xffi Function returned to tvm-ffi and dropped there: finalized once */
  get_args[1] = tvm_str("make_multiplier");
  assert_int_equal(tvm_global_call("ffi.ModuleGetFunction", get_args, 3, &fn), 0);
  TVMFFIAny k = {.type_index = kTVMFFIInt, .v_int64 = 6};
  TVMFFIAny mul;
  mul.type_index = kTVMFFINone;
  assert_int_equal(TVMFFIFunctionCall(fn.v_obj, &k, 1, &mul), 0);
  TVMFFIObjectDecRef(fn.v_obj);
  TVMFFIAny seven = {.type_index = kTVMFFIInt, .v_int64 = 7};
  r.type_index = kTVMFFINone;
  assert_int_equal(TVMFFIFunctionCall(mul.v_obj, &seven, 1, &r), 0);
  assert_int_equal(r.v_int64, 42);
  get_args[1] = tvm_str("finalizer_runs");
  assert_int_equal(tvm_global_call("ffi.ModuleGetFunction", get_args, 3, &fn), 0);
  TVMFFIAny before, after;
  before.type_index = after.type_index = kTVMFFINone;
  assert_int_equal(TVMFFIFunctionCall(fn.v_obj, NULL, 0, &before), 0);
  TVMFFIObjectDecRef(mul.v_obj);
  assert_int_equal(TVMFFIFunctionCall(fn.v_obj, NULL, 0, &after), 0);
  assert_int_equal(after.v_int64, before.v_int64 + 1);
  TVMFFIObjectDecRef(fn.v_obj);
  TVMFFIObjectDecRef(module.v_obj);
}

/* ---- xffi_error_forward_to_tvm, and xffi taking forwarded errors back ---- */

static TVMFFIObjectHandle tvm_move_raised(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  return err;
}

static const char *tvm_error_message(TVMFFIObjectHandle err) {
  return ((const TVMFFIErrorCell *)((char *)err + sizeof(TVMFFIObject)))->message.data;
}

static void forward_moves_the_raised_error_into_tvm_slot(void **state) {
  (void)state;
  xffi_error_raise(XFFI_KIND_KEY, "forwarded %d", 1);
  xffi_object *raised = xffi_error_peek_raised();
  assert_int_equal(xffi_error_forward_to_tvm(), XFFI_FAIL);
  assert_null(xffi_error_peek_raised());
  TVMFFIObjectHandle err = tvm_move_raised();
  assert_ptr_equal(err, raised); /* the same object, not a copy */
  assert_string_equal(tvm_error_message(err), "forwarded 1");
  assert_int_equal(xffi_object_strong_count(err), 1); /* the slot's reference moved to us */
  TVMFFIObjectDecRef(err);
}

static void forward_with_nothing_raised_keeps_tvm_error_or_raises_one(void **state) {
  (void)state;
  /* tvm-ffi already holds an error (a tvm-ffi callee's, passed on): it stays */
  TVMFFIErrorSetRaisedFromCStr("ValueError", "raised by tvm-ffi itself");
  assert_int_equal(xffi_error_forward_to_tvm(), XFFI_FAIL);
  TVMFFIObjectHandle err = tvm_move_raised();
  assert_non_null(err);
  assert_string_equal(tvm_error_message(err), "raised by tvm-ffi itself");
  TVMFFIObjectDecRef(err);
  /* neither slot holds one: a tvm-ffi caller still gets an error */
  assert_int_equal(xffi_error_forward_to_tvm(), XFFI_FAIL);
  err = tvm_move_raised();
  assert_non_null(err);
  assert_string_equal(tvm_error_message(err), "an xffi function failed without raising an error");
  TVMFFIObjectDecRef(err);
  assert_null(xffi_error_peek_raised());
}

/* ---- xffi's types and callbacks on the process's tvm-ffi runtime ---- */

typedef struct bound_thing {
  xffi_object header;
  int64_t count;
} bound_thing;

static int bound_method(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args;
  *result = xffi_any_int(7);
  return XFFI_OK;
}

static int32_t tvm_index_of(const char *key) {
  TVMFFIByteArray name = {key, strlen(key)};
  int32_t index = -1;
  if (TVMFFITypeKeyToIndex(&name, &index) != 0) {
    TVMFFIObjectDecRef(tvm_move_raised());
    return -1;
  }
  return index;
}

/* A new key: tvm-ffi's runtime gives the index (its objects read as the type
 * there) and is told the fields, methods and attributes xffi registers. */
static void xffi_types_register_in_the_tvm_runtime(void **state) {
  (void)state;
  int32_t index = -1;
  assert_int_equal(xffi_type_register(&index, "interop.BoundThing", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(tvm_index_of("interop.BoundThing"), index);
  assert_int_equal(XFFI_REFLECT_FIELD(index, bound_thing, count, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, "a count"),
                   XFFI_OK);
  assert_int_equal(XFFI_REFLECT_METHOD(index, "seven", bound_method, "returns 7"), XFFI_OK);
  xffi_any doc = xffi_any_int(42);
  assert_int_equal(xffi_type_register_attr(index, "interop.answer", &doc), XFFI_OK);
  const TVMFFITypeInfo *info = TVMFFIGetTypeInfo(index);
  assert_non_null(info);
  assert_int_equal(info->num_fields, 1);
  assert_string_equal(info->fields[0].name.data, "count");
  assert_int_equal(info->fields[0].offset, offsetof(bound_thing, count));
  assert_int_equal(info->num_methods, 1);
  assert_string_equal(info->methods[0].name.data, "seven");
  TVMFFIByteArray attr = {"interop.answer", 14};
  const TVMFFITypeAttrColumn *column = TVMFFIGetTypeAttrColumn(&attr);
  assert_non_null(column);
  assert_true(index < column->size);
  assert_int_equal(column->data[index].v_int64, 42);
}

/* A key tvm-ffi's runtime has already (its own type, or another plugin's):
 * xffi takes its index and keeps its own records to itself. */
static void a_key_the_tvm_runtime_has_keeps_its_index_and_records(void **state) {
  (void)state;
  TVMFFIByteArray key = {"interop.TvmFirst", 16};
  int32_t tvm_index = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, kTVMFFIObject);
  int32_t index = -1;
  assert_int_equal(xffi_type_register(&index, "interop.TvmFirst", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(index, tvm_index);
  assert_int_equal(XFFI_REFLECT_FIELD(index, bound_thing, count, XFFI_TYPE_INT, 0, "xffi's own"), XFFI_OK);
  assert_int_equal(TVMFFIGetTypeInfo(index)->num_fields, 0);
}

static int tvm_field_getter(void *field, TVMFFIAny *result) {
  result->type_index = kTVMFFIInt;
  result->v_int64 = *(const int64_t *)field;
  return 0;
}

/* Registers key in tvm-ffi's runtime with one int field "count" at offset
 * (another plugin's type of that key); returns its index. */
static int32_t tvm_type_with_count_at(const char *key, int64_t offset) {
  TVMFFIByteArray name = {key, strlen(key)};
  int32_t index = TVMFFITypeGetOrAllocIndex(&name, -1, 1, 0, 1, kTVMFFIObject);
  TVMFFIFieldInfo field;
  memset(&field, 0, sizeof field);
  field.name = (TVMFFIByteArray){"count", 5};
  field.size = 8;
  field.alignment = 8;
  field.offset = offset;
  field.getter = tvm_field_getter;
  field.field_static_type_index = kTVMFFIInt;
  assert_int_equal(TVMFFITypeRegisterField(index, &field), 0);
  return index;
}

/* A key tvm-ffi's runtime has with fields (another plugin's type): xffi
 * registering the same key with another layout is refused where it happens,
 * since that runtime reads the objects with its own; the same layout is fine
 * (the same plugin loaded twice, say). */
static void a_key_the_tvm_runtime_has_with_another_layout_is_refused(void **state) {
  (void)state;
  int32_t tvm_index = tvm_type_with_count_at("interop.OtherLayout", (int64_t)offsetof(bound_thing, count) + 8);
  int32_t index = -1;
  assert_int_equal(xffi_type_register(&index, "interop.OtherLayout", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(index, tvm_index);
  assert_int_equal(XFFI_REFLECT_FIELD(index, bound_thing, count, XFFI_TYPE_INT, 0, "at 24 here"), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME,
                "registering 'interop.OtherLayout': the process's tvm-ffi runtime has this type "
                "key with another layout (another plugin's or library's type of the same key): "
                "field 'count' is at offset 32 (8 bytes) there, at offset 24 (8 bytes) here");

  tvm_index = tvm_type_with_count_at("interop.SameLayout", (int64_t)offsetof(bound_thing, count));
  assert_int_equal(xffi_type_register(&index, "interop.SameLayout", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(index, tvm_index);
  assert_int_equal(XFFI_REFLECT_FIELD(index, bound_thing, count, XFFI_TYPE_INT, 0, "at 24 both"), XFFI_OK);
  assert_int_equal(TVMFFIGetTypeInfo(index)->num_fields, 1); /* nothing told twice */
}

/* Types registered in tvm-ffi's runtime only (another plugin's, a C++
 * library's): xffi finds them by key and answers is-instance for their
 * objects from that runtime's records. */
static void types_only_the_tvm_runtime_knows_are_found_and_checked(void **state) {
  (void)state;
  TVMFFIByteArray parent_key = {"interop.TvmOnlyParent", 21}, child_key = {"interop.TvmOnlyChild", 20};
  int32_t parent = TVMFFITypeGetOrAllocIndex(&parent_key, -1, 1, 0, 1, kTVMFFIObject);
  int32_t child = TVMFFITypeGetOrAllocIndex(&child_key, -1, 2, 0, 1, parent);
  const xffi_type_info *info = NULL;
  assert_int_equal(xffi_type_info_get_by_key(&info, "interop.TvmOnlyChild"), XFFI_OK);
  assert_int_equal(info->type_index, child);
  assert_int_equal(info->type_depth, 2);
  assert_int_equal(info->type_ancestors[1]->type_index, parent);
  assert_int_equal(xffi_type_info_get_by_key(&info, "interop.NowhereAtAll"), XFFI_FAIL);
  assert_raised(XFFI_KIND_KEY, "no type is registered with key 'interop.NowhereAtAll'");
  assert_null(tvm_move_raised()); /* the miss there left nothing raised there */

  /* An object of the child type, as that runtime's code would hand it over. */
  bound_thing thing;
  memset(&thing, 0, sizeof thing);
  thing.header.type_index = child;
  int yes = -1;
  assert_int_equal(xffi_object_is_a(&yes, &thing.header, parent), XFFI_OK);
  assert_int_equal(yes, 1);
  assert_int_equal(xffi_object_is_a(&yes, &thing.header, XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(yes, 1);
  assert_int_equal(xffi_object_is_a(&yes, &thing.header, XFFI_TYPE_STRING), XFFI_OK);
  assert_int_equal(yes, 0);
  /* A local object against a type only that runtime knows. */
  xffi_object *text = NULL;
  assert_int_equal(xffi_string_new(&text, "local", 5), XFFI_OK);
  assert_int_equal(xffi_object_is_a(&yes, text, parent), XFFI_OK);
  assert_int_equal(yes, 0);
  xffi_object_dec_ref(text);
}

static int direct_fails(void *self, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)self, (void)args, (void)num_args, (void)result;
  return xffi_error_raise(XFFI_KIND_VALUE, "the direct function's own error");
}

/* A direct Function (its cell is C code) called by tvm-ffi code: its error
 * is in tvm-ffi's slot, as a callback's is; an xffi caller still gets it. */
static void a_direct_function_error_reaches_tvm_callers(void **state) {
  (void)state;
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new_direct(&fn, direct_fails, NULL, NULL), XFFI_OK);
  TVMFFIAny result = {0};
  assert_int_not_equal(TVMFFIFunctionCall(fn, NULL, 0, &result), 0);
  TVMFFIObjectHandle err = tvm_move_raised();
  assert_non_null(err);
  assert_string_equal(tvm_error_message(err), "the direct function's own error");
  TVMFFIObjectDecRef(err);
  assert_null(xffi_error_peek_raised());
  xffi_any r;
  assert_int_equal(xffi_function_call(fn, NULL, 0, &r), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "the direct function's own error");
  xffi_object_dec_ref(fn);
}

/* A tvm-ffi function whose code raises again the Error it was made with
 * (self, borrowed: TVMFFIErrorSetRaised takes its own reference), as a Python
 * callback does with `raise saved`, where saved came from an earlier xffi
 * failure: tvm_ffi raises the very Error object again. */
static int reraise_self(void *self, const TVMFFIAny *args, int32_t num_args, TVMFFIAny *result) {
  (void)args, (void)num_args, (void)result;
  TVMFFIErrorSetRaised(self);
  return -1;
}

/* An error xffi raised before a call, taken by a tvm-ffi caller and raised
 * again by tvm-ffi code during the call, is that call's error: it is not
 * taken for one left over from before the call (the raise clock dates only
 * xffi's own raises; the other runtime's raise of the same object is new). */
static void an_xffi_error_raised_again_by_tvm_code_is_the_calls_error(void **state) {
  (void)state;
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new_direct(&fn, direct_fails, NULL, NULL), XFFI_OK);
  TVMFFIAny result = {0};
  assert_int_not_equal(TVMFFIFunctionCall(fn, NULL, 0, &result), 0);
  TVMFFIObjectHandle saved = tvm_move_raised(); /* the tvm-ffi caller keeps it, as Python's exception does */
  assert_non_null(saved);
  TVMFFIObjectHandle reraiser = NULL;
  assert_int_equal(TVMFFIFunctionCreate(saved, reraise_self, NULL, &reraiser), 0);
  xffi_any r;
  assert_int_equal(xffi_function_call((xffi_object *)reraiser, NULL, 0, &r), XFFI_FAIL);
  xffi_object *err = xffi_error_move_raised();
  assert_ptr_equal(err, saved);
  assert_string_equal(tvm_error_message(err), "the direct function's own error");
  xffi_object_dec_ref(err);
  assert_null(tvm_move_raised());
  TVMFFIObjectDecRef(reraiser);
  TVMFFIObjectDecRef(saved);
  xffi_object_dec_ref(fn);
}

static int twice(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  *result = xffi_any_int(num_args == 1 ? 2 * args[0].v_int64 : 0);
  return XFFI_OK;
}

/* xffi's global functions go to tvm-ffi's registry, and xffi's lookups find
 * tvm-ffi's globals (the process's: its ffi.* functions among them). */
static void global_functions_are_the_tvm_runtimes(void **state) {
  (void)state;
  xffi_object *fn = NULL, *found = NULL;
  assert_int_equal(xffi_function_new(&fn, twice, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_global_register("interop.twice", fn, 0), XFFI_OK);
  TVMFFIByteArray name = {"interop.twice", 13};
  TVMFFIObjectHandle tvm_found = NULL;
  assert_int_equal(TVMFFIFunctionGetGlobal(&name, &tvm_found), 0);
  assert_ptr_equal(tvm_found, fn);
  TVMFFIObjectDecRef(tvm_found);
  assert_int_equal(xffi_function_global_register("interop.twice", fn, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "already registered");
  assert_int_equal(xffi_function_global_erase("interop.twice"), XFFI_OK);
  assert_int_equal(TVMFFIFunctionGetGlobal(&name, &tvm_found), 0);
  assert_null(tvm_found);
  /* Registered in tvm-ffi only: xffi's lookup finds it. */
  TVMFFIByteArray only_tvm = {"interop.tvm_only", 16};
  assert_int_equal(TVMFFIFunctionSetGlobal(&only_tvm, fn, 0), 0);
  assert_int_equal(xffi_function_global_lookup(&found, "interop.tvm_only"), XFFI_OK);
  assert_ptr_equal(found, fn);
  xffi_object_dec_ref(found);
  xffi_object_dec_ref(fn);
}

/* A global registered with a doc and metadata takes both to tvm-ffi's
 * registry, where tvm-ffi's own reflection (ffi.GetGlobalFuncMetadata, which
 * stub generators read) finds them. */
static void a_globals_metadata_reaches_the_tvm_runtime(void **state) {
  (void)state;
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, twice, NULL, NULL), XFFI_OK);
  const char *meta = "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\"}\",\"note\":\"made by xffi\"}";
  xffi_byte_array doc = {"Twice its argument.", 19}, metadata = {meta, strlen(meta)};
  assert_int_equal(xffi_function_global_register_with_info("interop.twice_info", fn, doc, metadata, 0), XFFI_OK);
  TVMFFIAny name = tvm_str("interop.twice_info"), got;
  assert_int_equal(tvm_global_call("ffi.GetGlobalFuncMetadata", &name, 1, &got), 0);
  assert_int_equal(got.type_index, kTVMFFIStr);
  xffi_byte_array text = {NULL, 0};
  assert_int_equal(xffi_string_cell_of(&text, (xffi_object *)got.v_obj), XFFI_OK);
  assert_int_equal(text.size, strlen(meta));
  assert_memory_equal(text.data, meta, text.size);
  TVMFFIObjectDecRef(got.v_obj);
  /* Taken in tvm-ffi's registry: a second registration is refused there first. */
  assert_int_equal(xffi_function_global_register_with_info("interop.twice_info", fn, doc, metadata, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "already registered");
  assert_int_equal(xffi_function_global_erase("interop.twice_info"), XFFI_OK);
  xffi_object_dec_ref(fn);
}

static int callback_fails(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args, (void)result;
  return xffi_error_raise(XFFI_KIND_VALUE, "the callback's own error");
}

/* A callback Function called by tvm-ffi code (straight through its cell):
 * its error is in tvm-ffi's slot; an xffi caller still gets it. */
static void a_callback_error_reaches_tvm_and_xffi_callers(void **state) {
  (void)state;
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, callback_fails, NULL, NULL), XFFI_OK);
  TVMFFIAny result = {0};
  assert_int_not_equal(TVMFFIFunctionCall(fn, NULL, 0, &result), 0);
  TVMFFIObjectHandle err = tvm_move_raised();
  assert_non_null(err);
  assert_string_equal(tvm_error_message(err), "the callback's own error");
  TVMFFIObjectDecRef(err);
  assert_null(xffi_error_peek_raised());
  xffi_any r;
  assert_int_equal(xffi_function_call(fn, NULL, 0, &r), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "the callback's own error");
  assert_null(tvm_move_raised());
  xffi_object_dec_ref(fn);
}

/* An xffi caller of an exported xffi function gets the error back from
 * tvm-ffi's slot, and no slot is left holding anything. */
static void xffi_loading_an_xffi_library_gets_forwarded_errors_back(void **state) {
  (void)state;
  xffi_object *lib = NULL, *fail = NULL;
  assert_int_equal(xffi_module_load(&lib, XFFI_INTEROP_XFFI_LIB), XFFI_OK);
  assert_int_equal(xffi_module_lookup_function(&fail, lib, "fail"), XFFI_OK);
  xffi_any r;
  assert_int_equal(XFFI_CALL(fail, &r, xffi_any_c_str("IndexError"), xffi_any_c_str("out of range: 9")), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "out of range: 9");
  assert_null(tvm_move_raised());
  assert_null(xffi_error_peek_raised());
  xffi_object_dec_ref(fail);
  xffi_object_dec_ref(lib);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(tvm_library_has_no_xffi_marker_and_loads),
      cmocka_unit_test(xffi_strings_go_in_and_a_tvm_string_comes_back),
      cmocka_unit_test(xffi_tensor_is_read_by_tvm_and_tvm_tensor_by_xffi),
      cmocka_unit_test(arrays_cross_both_ways),
      cmocka_unit_test(functions_cross_both_ways),
      cmocka_unit_test(tvm_error_arrives_as_xffi_error),
      cmocka_unit_test(tvm_error_is_adopted_over_a_stale_xffi_error),
      cmocka_unit_test(tvm_loads_xffi_library_and_gets_its_errors),
      cmocka_unit_test(forward_moves_the_raised_error_into_tvm_slot),
      cmocka_unit_test(forward_with_nothing_raised_keeps_tvm_error_or_raises_one),
      cmocka_unit_test(xffi_loading_an_xffi_library_gets_forwarded_errors_back),
      cmocka_unit_test(xffi_types_register_in_the_tvm_runtime),
      cmocka_unit_test(a_key_the_tvm_runtime_has_keeps_its_index_and_records),
      cmocka_unit_test(a_callback_error_reaches_tvm_and_xffi_callers),
      cmocka_unit_test(a_key_the_tvm_runtime_has_with_another_layout_is_refused),
      cmocka_unit_test(a_direct_function_error_reaches_tvm_callers),
      cmocka_unit_test(an_xffi_error_raised_again_by_tvm_code_is_the_calls_error),
      cmocka_unit_test(global_functions_are_the_tvm_runtimes),
      cmocka_unit_test(a_globals_metadata_reaches_the_tvm_runtime),
      cmocka_unit_test(types_only_the_tvm_runtime_knows_are_found_and_checked),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
