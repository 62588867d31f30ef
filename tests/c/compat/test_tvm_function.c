/* tests/c/compat/test_tvm_function.c: tvm-ffi's C functions for Function objects
 * and the global registry (TVMFFIFunction*), the runtime's built-in ffi.*
 * globals as the registry serves them, and the registry's own globals
 * (ffi.FunctionListGlobalNamesFunctor, ffi.FunctionRemoveGlobal,
 * ffi.GetGlobalFuncMetadata, ffi.FunctionFromExternC); bad input to each. */
#include "test_util.h"

#include <xffi/tvm_ffi.h>
#include "failing_allocator.h"

static xffi_byte_array bytes_of(const char *text) { return (xffi_byte_array){text, strlen(text)}; }

/* ---- Helpers: functions that report what they were called with ---- */

static void *last_handle;
static int deleted;
static void count_delete(void *self) {
  (void)self;
  ++deleted;
}

static int record_handle(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)args, (void)num_args;
  last_handle = handle;
  *result = xffi_any_int(42);
  return 0;
}

static int raise_value_error(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args, (void)result;
  return xffi_error_raise(XFFI_KIND_VALUE, "raised by the callee");
}

static void *make_function(void) {
  void *f = NULL;
  assert_int_equal(TVMFFIFunctionCreate(NULL, record_handle, NULL, &f), 0);
  return f;
}

/* Looks name up through TVMFFIFunctionGetGlobal (new reference or NULL). */
static void *get_global(const char *name) {
  xffi_byte_array b = bytes_of(name);
  void *f = (void *)1;
  assert_int_equal(TVMFFIFunctionGetGlobal(&b, &f), 0);
  assert_nothing_raised();
  return f;
}

/* Calls global name with args; returns the status, result in *result. */
static int call_global(const char *name, xffi_any *args, int32_t num_args, xffi_any *result) {
  void *f = get_global(name);
  assert_non_null(f);
  *result = xffi_any_none();
  int status = TVMFFIFunctionCall(f, args, num_args, result);
  xffi_object_dec_ref(f);
  return status;
}

static xffi_any str_arg(const char *text) {
  xffi_any a;
  assert_int_equal(xffi_any_from_str(&a, text, strlen(text)), XFFI_OK);
  return a;
}

/* Whether the names functor lists name (asks the functor as Python does). */
static int listed(const char *name, int64_t *out_count) {
  xffi_any functor;
  assert_int_equal(call_global("ffi.FunctionListGlobalNamesFunctor", NULL, 0, &functor), 0);
  assert_int_equal(functor.type_index, XFFI_TYPE_FUNCTION);
  xffi_any count;
  assert_int_equal(XFFI_CALL(functor.v_obj, &count, xffi_any_int(-1)), XFFI_OK);
  assert_int_equal(count.type_index, XFFI_TYPE_INT);
  if (out_count) *out_count = count.v_int64;
  int found = 0;
  for (int64_t i = 0; i < count.v_int64; ++i) {
    xffi_any got;
    assert_int_equal(XFFI_CALL(functor.v_obj, &got, xffi_any_int(i)), XFFI_OK);
    xffi_byte_array s;
    assert_int_equal(xffi_any_to_str(&s, &got), XFFI_OK);
    if (s.size == strlen(name) && memcmp(s.data, name, s.size) == 0) ++found;
    xffi_any_release(&got);
  }
  xffi_any_release(&functor);
  assert_true(found <= 1);
  return found;
}

/* ---- TVMFFIFunctionCreate ---- */

static void test_create_without_self_passes_the_function_itself(void **state) {
  (void)state;
  void *f = make_function();
  xffi_any result = xffi_any_none();
  assert_int_equal(TVMFFIFunctionCall(f, NULL, 0, &result), 0);
  assert_ptr_equal(last_handle, f);
  assert_int_equal(result.v_int64, 42);
  xffi_object_dec_ref(f);
}

static void test_create_with_self_passes_self_and_deletes_it_once(void **state) {
  (void)state;
  int self_value = 0;
  void *f = NULL;
  deleted = 0;
  assert_int_equal(TVMFFIFunctionCreate(&self_value, record_handle, count_delete, &f), 0);
  xffi_any result = xffi_any_none();
  assert_int_equal(TVMFFIFunctionCall(f, NULL, 0, &result), 0);
  assert_ptr_equal(last_handle, &self_value);
  xffi_object_inc_ref(f);
  xffi_object_dec_ref(f);
  assert_int_equal(deleted, 0);
  xffi_object_dec_ref(f);
  assert_int_equal(deleted, 1);
  /* A deleter alone (self NULL) still goes through self: handle is NULL. */
  assert_int_equal(TVMFFIFunctionCreate(NULL, record_handle, count_delete, &f), 0);
  assert_int_equal(TVMFFIFunctionCall(f, NULL, 0, &result), 0);
  assert_null(last_handle);
  xffi_object_dec_ref(f);
  assert_int_equal(deleted, 2);
}

static void test_create_bad_input(void **state) {
  (void)state;
  assert_int_equal(TVMFFIFunctionCreate(NULL, record_handle, NULL, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionCreate: out is NULL");
  void *f = (void *)1;
  assert_int_equal(TVMFFIFunctionCreate(NULL, NULL, NULL, &f), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionCreate: safe_call is NULL");
  assert_null(f);
}

/* ---- TVMFFIFunctionCall ---- */

static void test_call_is_bare(void **state) {
  (void)state;
  void *f = NULL;
  assert_int_equal(TVMFFIFunctionCreate(NULL, raise_value_error, NULL, &f), 0);
  xffi_any result = xffi_any_none();
  assert_int_equal(TVMFFIFunctionCall(f, NULL, 0, &result), -1);
  assert_raised(XFFI_KIND_VALUE, "raised by the callee");
  xffi_object_dec_ref(f);
  /* The result is not reset: the callee writes into what the caller set. */
  f = make_function();
  result = xffi_any_int(7);
  assert_int_equal(TVMFFIFunctionCall(f, NULL, 0, &result), 0);
  assert_int_equal(result.v_int64, 42);
  xffi_object_dec_ref(f);
}

static void test_call_bad_input(void **state) {
  (void)state;
  xffi_any result = xffi_any_none();
  assert_int_equal(TVMFFIFunctionCall(NULL, NULL, 0, &result), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionCall: func is NULL");
  xffi_object *s = NULL;
  assert_int_equal(xffi_string_from_c_str(&s, "not a function at all"), XFFI_OK);
  assert_int_equal(TVMFFIFunctionCall(s, NULL, 0, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "TVMFFIFunctionCall: func expected ffi.Function");
  xffi_object_dec_ref(s);
  void *f = make_function();
  assert_int_equal(TVMFFIFunctionCall(f, NULL, 0, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionCall: result is NULL");
  assert_int_equal(TVMFFIFunctionCall(f, NULL, -1, &result), -1);
  assert_raised(XFFI_KIND_VALUE, "num_args is negative (-1)");
  assert_int_equal(TVMFFIFunctionCall(f, NULL, 2, &result), -1);
  assert_raised(XFFI_KIND_VALUE, "args is NULL but num_args is 2");
  /* A negative count is refused with arguments given too (the fast path
   * tests its sign only when it is not 0). */
  xffi_any one = xffi_any_int(1);
  assert_int_equal(TVMFFIFunctionCall(f, &one, -3, &result), -1);
  assert_raised(XFFI_KIND_VALUE, "num_args is negative (-3)");
  assert_int_equal(TVMFFIFunctionCall(f, &one, INT32_MIN, &result), -1);
  assert_raised(XFFI_KIND_VALUE, "num_args is negative (-2147483648)");
  /* The checks come in a fixed order: result, func, num_args, args. */
  assert_int_equal(TVMFFIFunctionCall(NULL, NULL, -1, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionCall: result is NULL");
  xffi_object_dec_ref(f);
}

/* ---- TVMFFIFunctionGetGlobal / SetGlobal ---- */

static void test_set_get_override_and_borrowing(void **state) {
  (void)state;
  void *f = make_function(), *g = make_function();
  xffi_byte_array name = bytes_of("test.tvm.set_get");
  assert_null(get_global("test.tvm.set_get")); /* missing: NULL, not an error */
  assert_int_equal(TVMFFIFunctionSetGlobal(&name, f, 0), 0);
  assert_int_equal(xffi_object_strong_count(f), 2); /* the registry's own reference; ours stays */
  void *got = get_global("test.tvm.set_get");
  assert_ptr_equal(got, f);
  assert_int_equal(xffi_object_strong_count(f), 3); /* a new reference */
  xffi_object_dec_ref(got);
  assert_int_equal(TVMFFIFunctionSetGlobal(&name, g, 0), -1);
  /* tvm-ffi's text, exactly: its Rust crate's static-init test compares it. */
  expect_error(XFFI_KIND_RUNTIME, "Global Function `test.tvm.set_get` is already registered");
  assert_int_equal(TVMFFIFunctionSetGlobal(&name, g, 1), 0);
  got = get_global("test.tvm.set_get");
  assert_ptr_equal(got, g);
  xffi_object_dec_ref(got);
  assert_int_equal(xffi_object_strong_count(f), 1);
  /* Names are byte runs: no NUL needed, a NUL inside is part of the name. */
  xffi_byte_array with_nul = {"test.tvm.n\0ul", 13};
  assert_int_equal(TVMFFIFunctionSetGlobal(&with_nul, f, 0), 0);
  void *found = NULL;
  assert_int_equal(TVMFFIFunctionGetGlobal(&with_nul, &found), 0);
  assert_ptr_equal(found, f);
  xffi_object_dec_ref(found);
  assert_null(get_global("test.tvm.n"));
  assert_int_equal(xffi_function_global_erase("test.tvm.set_get"), XFFI_OK);
  int removed = 0;
  xffi_any args[1] = {xffi_any_none()};
  xffi_any result;
  assert_int_equal(xffi_any_from_str(&args[0], with_nul.data, with_nul.size), XFFI_OK);
  assert_int_equal(call_global("ffi.FunctionRemoveGlobal", args, 1, &result), 0);
  removed = (int)result.v_int64;
  assert_true(removed);
  xffi_any_release(&args[0]);
  xffi_object_dec_ref(f);
  xffi_object_dec_ref(g);
}

static void test_get_set_bad_input(void **state) {
  (void)state;
  void *f = make_function(), *out = (void *)1;
  xffi_byte_array name = bytes_of("test.tvm.bad"), broken = {NULL, 3};
  assert_int_equal(TVMFFIFunctionGetGlobal(NULL, &out), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionGetGlobal: name is NULL");
  assert_null(out);
  assert_int_equal(TVMFFIFunctionGetGlobal(&name, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionGetGlobal: out is NULL");
  assert_int_equal(TVMFFIFunctionGetGlobal(&broken, &out), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionGetGlobal: name data is NULL but size is 3");
  assert_int_equal(TVMFFIFunctionSetGlobal(NULL, f, 0), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionSetGlobal: name is NULL");
  assert_int_equal(TVMFFIFunctionSetGlobal(&broken, f, 0), -1);
  assert_raised(XFFI_KIND_VALUE, "name data is NULL but size is 3");
  assert_int_equal(TVMFFIFunctionSetGlobal(&name, NULL, 0), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionSetGlobal:");
  xffi_object *s = NULL;
  assert_int_equal(xffi_string_from_c_str(&s, "not a function at all"), XFFI_OK);
  assert_int_equal(TVMFFIFunctionSetGlobal(&name, s, 0), -1);
  assert_raised(XFFI_KIND_TYPE, "expected ffi.Function");
  assert_null(get_global("test.tvm.bad"));
  /* An empty name was registered, and then neither xffi_function_global_erase
   * nor any C-string lookup could reach it. Both byte-array ways in refuse
   * it, with a present or a NULL data pointer, overriding or not. */
  xffi_byte_array empty = {"", 0}, null_empty = {NULL, 0};
  assert_int_equal(TVMFFIFunctionSetGlobal(&empty, f, 0), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionSetGlobal: name is empty");
  assert_int_equal(TVMFFIFunctionSetGlobal(&null_empty, f, 1), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionSetGlobal: name is empty");
  xffi_method_info unnamed = {empty, empty, empty, 0, xffi_any_object(f)};
  assert_int_equal(TVMFFIFunctionSetGlobalFromMethodInfo(&unnamed, 1), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionSetGlobalFromMethodInfo: name is empty");
  assert_int_equal(TVMFFIFunctionGetGlobal(&empty, &out), 0);
  assert_null(out);
  assert_int_equal(xffi_object_strong_count(f), 1);
  assert_int_equal(xffi_object_strong_count(s), 1);
  xffi_object_dec_ref(s);
  xffi_object_dec_ref(f);
}

/* ---- TVMFFIFunctionSetGlobalFromMethodInfo ---- */

static void test_set_from_method_info_keeps_doc_and_metadata(void **state) {
  (void)state;
  void *f = make_function();
  xffi_method_info info = {bytes_of("test.tvm.with_info"), bytes_of("Adds nothing."),
                           bytes_of("{\"type_schema\":\"{}\"}"), XFFI_FIELD_IS_STATIC_METHOD, xffi_any_object(f)};
  assert_int_equal(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0), 0);
  assert_int_equal(xffi_object_strong_count(f), 2);
  xffi_any doc, metadata;
  int found = 0;
  assert_int_equal(xffi_function_global_info(&doc, &metadata, &found, info.name), XFFI_OK);
  assert_true(found);
  xffi_byte_array d, m;
  assert_int_equal(xffi_any_to_str(&d, &doc), XFFI_OK);
  assert_int_equal(xffi_any_to_str(&m, &metadata), XFFI_OK);
  assert_string_equal(d.data, "Adds nothing.");
  assert_string_equal(m.data, "{\"type_schema\":\"{}\"}");
  xffi_any_release(&doc);
  xffi_any_release(&metadata);
  /* ffi.GetGlobalFuncMetadata serves the same text. */
  xffi_any args[1] = {str_arg("test.tvm.with_info")}, result;
  assert_int_equal(call_global("ffi.GetGlobalFuncMetadata", args, 1, &result), 0);
  assert_int_equal(xffi_any_to_str(&m, &result), XFFI_OK);
  assert_string_equal(m.data, "{\"type_schema\":\"{}\"}");
  xffi_any_release(&result);
  xffi_any_release(&args[0]);
  /* A duplicate is refused unless overriding. */
  assert_int_equal(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0), -1);
  expect_error(XFFI_KIND_RUNTIME,
               "Global Function `test.tvm.with_info` is already registered, possible causes:\n- Two GlobalDef().def "
               "registrations for the same function \nPlease remove the duplicate registration.");
  info.doc = bytes_of("Replaced.");
  assert_int_equal(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 1), 0);
  assert_int_equal(xffi_function_global_info(&doc, NULL, &found, info.name), XFFI_OK);
  assert_int_equal(xffi_any_to_str(&d, &doc), XFFI_OK);
  assert_string_equal(d.data, "Replaced.");
  xffi_any_release(&doc);
  assert_int_equal(xffi_function_global_erase("test.tvm.with_info"), XFFI_OK);
  assert_int_equal(xffi_function_global_info(&doc, &metadata, &found, info.name), XFFI_OK);
  assert_false(found);
  assert_int_equal(doc.type_index, XFFI_TYPE_NONE);
  assert_int_equal(xffi_object_strong_count(f), 1);
  xffi_object_dec_ref(f);
}

static void test_set_from_method_info_bad_input(void **state) {
  (void)state;
  assert_int_equal(TVMFFIFunctionSetGlobalFromMethodInfo(NULL, 0), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIFunctionSetGlobalFromMethodInfo: method_info is NULL");
  xffi_method_info info = {bytes_of("test.tvm.bad_info"), bytes_of(""), bytes_of(""), 0, xffi_any_int(3)};
  assert_int_equal(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0), -1);
  assert_raised(XFFI_KIND_TYPE, "method_info->method to be an ffi.Function");
  void *f = make_function();
  info.method = xffi_any_object(f);
  info.doc = (xffi_byte_array){NULL, 4};
  assert_int_equal(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0), -1);
  assert_raised(XFFI_KIND_VALUE, "method_info->doc data is NULL but size is 4");
  info.doc = bytes_of("");
  info.name = (xffi_byte_array){NULL, 2};
  assert_int_equal(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0), -1);
  assert_raised(XFFI_KIND_VALUE, "method_info->name data is NULL but size is 2");
  assert_null(get_global("test.tvm.bad_info"));
  assert_int_equal(xffi_object_strong_count(f), 1);
  int found = 1;
  assert_int_equal(xffi_function_global_info(NULL, NULL, NULL, bytes_of("x")), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "out_found is NULL");
  assert_int_equal(xffi_function_global_info(NULL, NULL, &found, (xffi_byte_array){NULL, 1}), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "name.data is NULL but name.size is 1");
  xffi_object_dec_ref(f);
}

/* ---- Built-in globals ---- */

static void test_builtins_are_found_without_registration_or_allocation(void **state) {
  (void)state;
  void *f = get_global("ffi.FunctionListGlobalNamesFunctor");
  assert_non_null(f);
  assert_int_equal(((xffi_object *)f)->type_index, XFFI_TYPE_FUNCTION);
  xffi_object_dec_ref(f);
  uint64_t before = failing_allocator_attempts();
  for (int i = 0; i < 1000; ++i) {
    f = get_global("ffi.GetGlobalFuncMetadata");
    assert_non_null(f);
    xffi_object_dec_ref(f); /* static: dropping references frees nothing */
    assert_null(get_global("ffi.NoSuchBuiltin"));
  }
  assert_int_equal(failing_allocator_attempts(), before);
  /* Their metadata is tvm-ffi's type schema. */
  xffi_any args[1] = {str_arg("ffi.FunctionRemoveGlobal")}, result;
  assert_int_equal(call_global("ffi.GetGlobalFuncMetadata", args, 1, &result), 0);
  xffi_byte_array m;
  assert_int_equal(xffi_any_to_str(&m, &result), XFFI_OK);
  assert_string_equal(m.data,
                      "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":{\\\"return\\\":[{"
                      "\\\"type\\\":\\\"bool\\\"}],\\\"params\\\":[{\\\"type\\\":\\\"ffi.String\\\"}]}}\"}");
  xffi_any_release(&result);
  xffi_any_release(&args[0]);
}

static void test_builtin_override_needs_allow_and_removal_hides(void **state) {
  (void)state;
  const char *name = "ffi.FunctionFromExternC";
  xffi_byte_array b = bytes_of(name);
  void *builtin = get_global(name), *mine = make_function();
  assert_non_null(builtin);
  int64_t count_before = 0;
  assert_int_equal(listed(name, &count_before), 1);
  /* Taken by the built-in: refused without allow_override. */
  assert_int_equal(TVMFFIFunctionSetGlobal(&b, mine, 0), -1);
  assert_raised(XFFI_KIND_RUNTIME, "already registered");
  assert_int_equal(xffi_function_global_register(name, mine, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "already registered");
  assert_int_equal(TVMFFIFunctionSetGlobal(&b, mine, 1), 0);
  void *got = get_global(name);
  assert_ptr_equal(got, mine);
  xffi_object_dec_ref(got);
  int64_t count = 0;
  assert_int_equal(listed(name, &count), 1); /* listed once */
  assert_int_equal(count, count_before);
  /* Removing the override hides the built-in too. */
  xffi_any args[1] = {str_arg(name)}, result;
  assert_int_equal(call_global("ffi.FunctionRemoveGlobal", args, 1, &result), 0);
  assert_int_equal(result.type_index, XFFI_TYPE_BOOL);
  assert_true(result.v_int64);
  assert_null(get_global(name));
  assert_int_equal(listed(name, &count), 0);
  assert_int_equal(count, count_before - 1);
  assert_int_equal(call_global("ffi.FunctionRemoveGlobal", args, 1, &result), 0);
  assert_false(result.v_int64); /* nothing left to remove */
  int found = 1;
  assert_int_equal(xffi_function_global_info(NULL, NULL, &found, b), XFFI_OK);
  assert_false(found);
  assert_int_equal(xffi_function_global_erase(name), XFFI_FAIL);
  assert_raised(XFFI_KIND_KEY, "no global function named");
  /* The name is free again: no override needed; the built-in comes back
   * as an ordinary registration of its object. */
  assert_int_equal(TVMFFIFunctionSetGlobal(&b, builtin, 0), 0);
  got = get_global(name);
  assert_ptr_equal(got, builtin);
  xffi_object_dec_ref(got);
  assert_int_equal(listed(name, &count), 1);
  assert_int_equal(count, count_before);
  xffi_any_release(&args[0]);
  xffi_object_dec_ref(builtin);
  assert_int_equal(xffi_object_strong_count(mine), 1);
  xffi_object_dec_ref(mine);
}

static void test_removing_an_untouched_builtin_hides_it(void **state) {
  (void)state;
  /* A throwaway name: registered, then shadowed names are covered above.
   * Here the built-in itself goes, with no entry before. */
  const char *name = "ffi.GetGlobalFuncMetadata";
  void *builtin = get_global(name);
  assert_non_null(builtin);
  assert_int_equal(xffi_function_global_erase(name), XFFI_OK);
  assert_null(get_global(name));
  assert_int_equal(listed(name, NULL), 0);
  xffi_byte_array b = bytes_of(name);
  assert_int_equal(TVMFFIFunctionSetGlobal(&b, builtin, 0), 0); /* restored for later tests */
  xffi_object_dec_ref(builtin);
  assert_int_equal(listed(name, NULL), 1);
}

/* ---- The registry's globals ---- */

static void test_names_functor_protocol(void **state) {
  (void)state;
  void *f = make_function();
  xffi_byte_array name = bytes_of("test.tvm.listed");
  assert_int_equal(TVMFFIFunctionSetGlobal(&name, f, 0), 0);
  int64_t count = 0;
  assert_int_equal(listed("test.tvm.listed", &count), 1);
  assert_int_equal(listed("ffi.FunctionListGlobalNamesFunctor", NULL), 1);
  int64_t expected = 0;
  assert_int_equal(xffi_function_global_names(NULL, &expected, 0), XFFI_OK);
  assert_int_equal(count, expected);
  /* The functor is a snapshot: later registrations do not change it. */
  xffi_any functor, got;
  assert_int_equal(call_global("ffi.FunctionListGlobalNamesFunctor", NULL, 0, &functor), 0);
  assert_int_equal(xffi_function_global_erase("test.tvm.listed"), XFFI_OK);
  assert_int_equal(XFFI_CALL(functor.v_obj, &got, xffi_any_int(-5)), XFFI_OK);
  assert_int_equal(got.v_int64, count);
  /* Bad input: out of range, wrong kind, wrong arity. */
  assert_int_equal(XFFI_CALL(functor.v_obj, &got, xffi_any_int(count)), XFFI_FAIL);
  assert_raised(XFFI_KIND_INDEX, "out of bounds");
  xffi_any text = str_arg("zero");
  assert_int_equal(XFFI_CALL(functor.v_obj, &got, text), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "argument 0: expected int, got str");
  assert_int_equal(xffi_function_call(functor.v_obj, NULL, 0, &got), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "expected 1 argument, got 0");
  xffi_any_release(&functor);
  assert_int_equal(call_global("ffi.FunctionListGlobalNamesFunctor", &text, 1, &got), -1);
  assert_raised(XFFI_KIND_TYPE, "ffi.FunctionListGlobalNamesFunctor: expected 0 arguments, got 1");
  xffi_any_release(&text);
  xffi_object_dec_ref(f);
}

static void test_remove_and_metadata_bad_input(void **state) {
  (void)state;
  xffi_any result, number = xffi_any_int(1), missing = str_arg("test.tvm.not.there");
  assert_int_equal(call_global("ffi.FunctionRemoveGlobal", &number, 1, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "ffi.FunctionRemoveGlobal: argument 0: expected str, got int");
  assert_int_equal(call_global("ffi.FunctionRemoveGlobal", NULL, 0, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "expected 1 argument, got 0");
  assert_int_equal(call_global("ffi.FunctionRemoveGlobal", &missing, 1, &result), 0);
  assert_int_equal(result.type_index, XFFI_TYPE_BOOL);
  assert_false(result.v_int64);
  assert_int_equal(call_global("ffi.GetGlobalFuncMetadata", &missing, 1, &result), -1);
  assert_raised(XFFI_KIND_RUNTIME, "global function is not found: test.tvm.not.there");
  assert_int_equal(call_global("ffi.GetGlobalFuncMetadata", &number, 1, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "expected str, got int");
  /* A function registered without metadata has "" (Python reads {}). */
  void *f = make_function();
  xffi_byte_array name = bytes_of("test.tvm.no_metadata");
  assert_int_equal(TVMFFIFunctionSetGlobal(&name, f, 0), 0);
  xffi_any which = str_arg("test.tvm.no_metadata");
  assert_int_equal(call_global("ffi.GetGlobalFuncMetadata", &which, 1, &result), 0);
  xffi_byte_array m;
  assert_int_equal(xffi_any_to_str(&m, &result), XFFI_OK);
  assert_int_equal(m.size, 0);
  xffi_any_release(&result);
  xffi_any_release(&which);
  xffi_any_release(&missing);
  assert_int_equal(xffi_function_global_erase("test.tvm.no_metadata"), XFFI_OK);
  xffi_object_dec_ref(f);
}

static int self_value;

static void test_function_from_extern_c(void **state) {
  (void)state;
  xffi_safe_call call = record_handle;
  void (*deleter)(void *) = count_delete;
  void *call_ptr, *deleter_ptr;
  memcpy(&call_ptr, &call, sizeof call_ptr);
  memcpy(&deleter_ptr, &deleter, sizeof deleter_ptr);
  xffi_any args[3] = {xffi_any_ptr(&self_value), xffi_any_ptr(call_ptr), xffi_any_ptr(deleter_ptr)}, made, result;
  deleted = 0;
  assert_int_equal(call_global("ffi.FunctionFromExternC", args, 3, &made), 0);
  assert_int_equal(made.type_index, XFFI_TYPE_FUNCTION);
  result = xffi_any_none();
  assert_int_equal(TVMFFIFunctionCall(made.v_obj, NULL, 0, &result), 0);
  assert_ptr_equal(last_handle, &self_value);
  xffi_any_release(&made);
  assert_int_equal(deleted, 1);
  /* None for self and deleter: the function receives itself. */
  args[0] = xffi_any_none();
  args[2] = xffi_any_none();
  assert_int_equal(call_global("ffi.FunctionFromExternC", args, 3, &made), 0);
  assert_int_equal(TVMFFIFunctionCall(made.v_obj, NULL, 0, &result), 0);
  assert_ptr_equal(last_handle, made.v_obj);
  xffi_any_release(&made);
  /* Bad input. */
  args[1] = xffi_any_none();
  assert_int_equal(call_global("ffi.FunctionFromExternC", args, 3, &made), -1);
  assert_raised(XFFI_KIND_VALUE, "ffi.FunctionFromExternC: argument 1 (safe_call) is NULL");
  args[1] = xffi_any_int(5);
  assert_int_equal(call_global("ffi.FunctionFromExternC", args, 3, &made), -1);
  assert_raised(XFFI_KIND_TYPE, "ffi.FunctionFromExternC: argument 1: expected void*, got int");
  assert_int_equal(call_global("ffi.FunctionFromExternC", args, 2, &made), -1);
  assert_raised(XFFI_KIND_TYPE, "expected 3 arguments, got 2");
  assert_int_equal(deleted, 1);
}

/* Every listed name resolves and appears once, built-ins of every area's
 * table included (two tables giving one name would make one unreachable). */
static void test_every_listed_name_resolves_once(void **state) {
  (void)state;
  int64_t total = 0;
  assert_int_equal(xffi_function_global_names(NULL, &total, 0), XFFI_OK);
  xffi_object **names = calloc((size_t)total + 1, sizeof *names);
  assert_non_null(names);
  int64_t count = 0;
  assert_int_equal(xffi_function_global_names(names, &count, total), XFFI_OK);
  assert_int_equal(count, total);
  for (int64_t i = 0; i < count; ++i) {
    xffi_byte_array a = xffi_string_cell_of_unchecked(names[i]);
    void *f = NULL;
    assert_int_equal(TVMFFIFunctionGetGlobal(&a, &f), 0);
    if (!f) fail_msg("listed but not found: %.*s", (int)a.size, a.data);
    xffi_object_dec_ref(f);
    for (int64_t j = 0; j < i; ++j) {
      xffi_byte_array b = xffi_string_cell_of_unchecked(names[j]);
      if (a.size == b.size && memcmp(a.data, b.data, a.size) == 0) fail_msg("listed twice: %.*s", (int)a.size, a.data);
    }
  }
  for (int64_t i = 0; i < count; ++i) xffi_object_dec_ref(names[i]);
  free(names);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_without_self_passes_the_function_itself),
      cmocka_unit_test(test_create_with_self_passes_self_and_deletes_it_once),
      cmocka_unit_test(test_create_bad_input),
      cmocka_unit_test(test_call_is_bare),
      cmocka_unit_test(test_call_bad_input),
      cmocka_unit_test(test_set_get_override_and_borrowing),
      cmocka_unit_test(test_get_set_bad_input),
      cmocka_unit_test(test_set_from_method_info_keeps_doc_and_metadata),
      cmocka_unit_test(test_set_from_method_info_bad_input),
      cmocka_unit_test(test_builtins_are_found_without_registration_or_allocation),
      cmocka_unit_test(test_builtin_override_needs_allow_and_removal_hides),
      cmocka_unit_test(test_removing_an_untouched_builtin_hides_it),
      cmocka_unit_test(test_names_functor_protocol),
      cmocka_unit_test(test_remove_and_metadata_bad_input),
      cmocka_unit_test(test_function_from_extern_c),
      cmocka_unit_test(test_every_listed_name_resolves_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
