/* Python-defined types (c/pyclass.c, c/globals_pyclass.c): ffi.MakeFieldGetter,
 * ffi.MakeFieldSetter and ffi._PyClassRegisterTypeAttrColumns as tvm-ffi's
 * Python package calls them, the objects their __ffi_new__, __ffi_init__
 * and __ffi_shallow_copy__ make (fields released on deletion, memory from
 * the object allocator), and bad input (a clear error, nothing kept). */
#include "test_util.h"

#include <xffi/array.h>
#include <xffi/map.h>
#include <xffi/recursive.h>
#include <xffi/reflection.h>
#include <xffi/tvm_ffi.h>

/* The layout Python computes for: a: int, b: Any (str/Optional), c: object. */
enum { OFFSET_A = 24, OFFSET_B = 32, OFFSET_C = 48, TOTAL_SIZE = 56 };

static xffi_byte_array bytes_of(const char *s) {
  xffi_byte_array b = {s, strlen(s)};
  return b;
}

static int call_global(const char *name, xffi_any *args, int32_t num_args, xffi_any *result) {
  xffi_byte_array n = bytes_of(name);
  void *f = NULL;
  assert_int_equal(TVMFFIFunctionGetGlobal(&n, &f), 0);
  assert_non_null(f);
  int status = TVMFFIFunctionCall(f, args, num_args, result);
  TVMFFIObjectDecRef(f);
  return status;
}

/* The package's converter stands here: ints pass doubled (to see that the
 * converter ran), the string "bad" is refused with a TypeError, the rest
 * passes as is. */
static int converter_calls;
static int test_convert(void *converter, const xffi_any *value, xffi_any *result) {
  /* Called from the setter's code, which may be C++ (the process's
   * runtime's): an error return, never an assertion's jump through it. */
  if (converter != &converter_calls)
    return xffi_error_raise(XFFI_KIND_VALUE, "test converter: called with handle %p, not its own", converter);
  ++converter_calls;
  xffi_byte_array text;
  if (value->type_index == XFFI_TYPE_INT) {
    *result = xffi_any_int(value->v_int64 * 2);
    return 0;
  }
  if (xffi_any_to_str(&text, value) == XFFI_OK && text.size == 3 && memcmp(text.data, "bad", 3) == 0)
    return xffi_error_raise(XFFI_KIND_TYPE, "test converter: 'bad' is refused\nsecond line");
  xffi_object *ignored = xffi_error_move_raised();
  xffi_object_dec_ref(ignored);
  return xffi_any_copy(result, value);
}

static int64_t address_of_convert(void) {
  int (*convert)(void *, const xffi_any *, xffi_any *) = test_convert;
  uintptr_t bits;
  memcpy(&bits, &convert, sizeof(bits));
  return (int64_t)bits;
}

/* A new reference to a setter Function for static type index type_index. */
static xffi_object *make_setter(int32_t type_index) {
  xffi_any args[3] = {xffi_any_int(type_index), xffi_any_int((int64_t)(uintptr_t)&converter_calls),
                      xffi_any_int(address_of_convert())};
  xffi_any result = xffi_any_none();
  assert_int_equal(call_global("ffi.MakeFieldSetter", args, 3, &result), 0);
  assert_int_equal(result.type_index, XFFI_TYPE_FUNCTION);
  return result.v_obj;
}

static xffi_field_getter make_getter(int32_t type_index) {
  xffi_any arg = xffi_any_int(type_index), result = xffi_any_none();
  assert_int_equal(call_global("ffi.MakeFieldGetter", &arg, 1, &result), 0);
  assert_int_equal(result.type_index, XFFI_TYPE_INT);
  uintptr_t bits = (uintptr_t)(uint64_t)result.v_int64;
  xffi_field_getter getter;
  memcpy(&getter, &bits, sizeof(getter));
  return getter;
}

static void test_make_field_getter_gives_the_getter_of_the_storage(void **state) {
  (void)state;
  const int32_t kinds[] = {XFFI_TYPE_INT,    XFFI_TYPE_FLOAT, XFFI_TYPE_BOOL, XFFI_TYPE_OPAQUE_PTR, XFFI_TYPE_DTYPE,
                           XFFI_TYPE_DEVICE, XFFI_TYPE_ANY,   XFFI_TYPE_NONE, XFFI_TYPE_OBJECT,     XFFI_TYPE_STRING};
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i) {
    xffi_field_getter expected;
    assert_int_equal(xffi_field_getter_for_type(&expected, kinds[i]), XFFI_OK);
    assert_true(make_getter(kinds[i]) == expected);
  }
  int64_t storage = 41;
  xffi_any read = xffi_any_none();
  assert_int_equal(make_getter(XFFI_TYPE_INT)(&storage, &read), 0);
  assert_int_equal(read.type_index, XFFI_TYPE_INT);
  assert_int_equal(read.v_int64, 41);
}

static void test_make_field_getter_refuses_bad_input(void **state) {
  (void)state;
  xffi_any result = xffi_any_none();
  xffi_any arg = xffi_any_int(XFFI_TYPE_RAW_STR);
  assert_int_equal(call_global("ffi.MakeFieldGetter", &arg, 1, &result), -1);
  assert_raised(XFFI_KIND_VALUE, "ffi.MakeFieldGetter: field_type_index 8 has no field storage");
  arg = xffi_any_int(INT64_C(1) << 40);
  assert_int_equal(call_global("ffi.MakeFieldGetter", &arg, 1, &result), -1);
  assert_raised(XFFI_KIND_VALUE, "has no field storage");
  arg = xffi_any_float(1.5);
  assert_int_equal(call_global("ffi.MakeFieldGetter", &arg, 1, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "ffi.MakeFieldGetter");
  assert_int_equal(call_global("ffi.MakeFieldGetter", NULL, 0, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "ffi.MakeFieldGetter: expected 1 argument");
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
}

static void test_field_setter_converts_then_writes(void **state) {
  (void)state;
  xffi_object *set_int = make_setter(XFFI_TYPE_INT), *set_any = make_setter(XFFI_TYPE_ANY);
  int64_t slot = 0;
  xffi_any args[2] = {xffi_any_ptr(&slot), xffi_any_int(21)}, result = xffi_any_none();
  converter_calls = 0;
  assert_int_equal(xffi_function_call(set_int, args, 2, &result), XFFI_OK);
  assert_int_equal(slot, 42); /* the converter doubled it */
  assert_int_equal(converter_calls, 1);
  /* An Any field owns what it holds: a String set twice is released once. */
  xffi_any any_slot = xffi_any_none();
  xffi_object *text;
  assert_int_equal(xffi_string_new(&text, "a string longer than seven bytes", 31), XFFI_OK);
  args[0] = xffi_any_ptr(&any_slot);
  args[1] = xffi_any_object(text);
  assert_int_equal(xffi_function_call(set_any, args, 2, &result), XFFI_OK);
  assert_int_equal(xffi_object_strong_count(text), 2);
  args[1] = xffi_any_int(5);
  assert_int_equal(xffi_function_call(set_any, args, 2, &result), XFFI_OK);
  assert_int_equal(xffi_object_strong_count(text), 1);
  assert_int_equal(any_slot.type_index, XFFI_TYPE_INT);
  assert_int_equal(any_slot.v_int64, 10);
  xffi_object_dec_ref(text);
  xffi_object_dec_ref(set_int);
  xffi_object_dec_ref(set_any);
}

static void test_field_setter_refuses_bad_calls_and_keeps_the_field(void **state) {
  (void)state;
  xffi_object *set_int = make_setter(XFFI_TYPE_INT), *set_any = make_setter(XFFI_TYPE_ANY);
  int64_t slot = 7;
  xffi_any result = xffi_any_none();
  xffi_any not_pointer[2] = {xffi_any_int(1234), xffi_any_int(1)};
  assert_int_equal(xffi_function_call(set_int, not_pointer, 2, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "argument 0 (field address) expected an opaque pointer, got int");
  xffi_any null_pointer[2] = {xffi_any_none(), xffi_any_int(1)};
  null_pointer[0].type_index = XFFI_TYPE_OPAQUE_PTR; /* xffi_any_ptr(NULL) would be None */
  assert_int_equal(xffi_function_call(set_int, null_pointer, 2, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "is a NULL pointer");
  xffi_any one[1] = {xffi_any_ptr(&slot)};
  assert_int_equal(xffi_function_call(set_int, one, 1, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "expected 2 arguments, got 1");
  /* The converter's error comes through; the field keeps its value. */
  xffi_any refused[2] = {xffi_any_ptr(&slot), xffi_any_c_str("bad")};
  assert_int_equal(xffi_function_call(set_int, refused, 2, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "test converter: 'bad' is refused");
  /* A converted value the storage cannot take: TypeError, field unchanged. */
  xffi_any wrong[2] = {xffi_any_ptr(&slot), xffi_any_c_str("ok")};
  assert_int_equal(xffi_function_call(set_int, wrong, 2, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "expected int");
  assert_int_equal(slot, 7);
  (void)set_any;
  xffi_object_dec_ref(set_int);
  xffi_object_dec_ref(set_any);
}

static void test_make_field_setter_refuses_bad_input(void **state) {
  (void)state;
  xffi_any result = xffi_any_none();
  xffi_any unsupported[3] = {xffi_any_int(XFFI_TYPE_SMALL_STR), xffi_any_int(1), xffi_any_int(address_of_convert())};
  assert_int_equal(call_global("ffi.MakeFieldSetter", unsupported, 3, &result), -1);
  assert_raised(XFFI_KIND_VALUE, "ffi.MakeFieldSetter: field_type_index 11 has no field storage");
  xffi_any no_convert[3] = {xffi_any_int(XFFI_TYPE_INT), xffi_any_int(1), xffi_any_int(0)};
  assert_int_equal(call_global("ffi.MakeFieldSetter", no_convert, 3, &result), -1);
  assert_raised(XFFI_KIND_VALUE, "ffi.MakeFieldSetter: f_convert is 0");
  xffi_any not_int[3] = {xffi_any_int(XFFI_TYPE_INT), xffi_any_float(1.0), xffi_any_int(address_of_convert())};
  assert_int_equal(call_global("ffi.MakeFieldSetter", not_int, 3, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "ffi.MakeFieldSetter");
  assert_int_equal(call_global("ffi.MakeFieldSetter", not_int, 2, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "ffi.MakeFieldSetter: expected 3 arguments, got 2");
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
}

/* ---- A Python-defined type, registered as the package does. ---- */

static int32_t next_type_number;

/* A new type under parent, without fields. */
static int32_t new_type(int32_t parent) {
  char key[64];
  snprintf(key, sizeof(key), "test.pyclass.Type%d", ++next_type_number);
  xffi_byte_array key_bytes = bytes_of(key);
  const xffi_type_info *parent_info = TVMFFIGetTypeInfo(parent);
  int32_t index = TVMFFITypeGetOrAllocIndex(&key_bytes, -1, parent_info->type_depth + 1, 0, 1, parent);
  assert_true(index >= XFFI_TYPE_DYNAMIC_BEGIN);
  return index;
}

/* Registers a new type under parent with fields a (int, required), b (Any,
 * default "dflt") and c (object, keyword-only, default None), each with the
 * getter and setter the globals give, as _register_fields does. */
static int32_t define_type(int32_t parent) {
  int32_t index = new_type(parent);
  if (parent != XFFI_TYPE_OBJECT) return index; /* a child adds no fields */
  struct {
    const char *name;
    int32_t type_index;
    int64_t offset, size, flags;
    xffi_any default_value;
  } fields[] = {
      {"a", XFFI_TYPE_INT, OFFSET_A, 8, 0, xffi_any_none()},
      {"b", XFFI_TYPE_ANY, OFFSET_B, 16, XFFI_FIELD_HAS_DEFAULT, xffi_any_c_str("dflt")},
      {"c", XFFI_TYPE_OBJECT, OFFSET_C, (int64_t)sizeof(xffi_object *), XFFI_FIELD_HAS_DEFAULT | XFFI_FIELD_KW_ONLY,
       xffi_any_none()},
  };
  for (size_t i = 0; i < 3; ++i) {
    xffi_field_info f;
    memset(&f, 0, sizeof(f));
    f.name = bytes_of(fields[i].name);
    f.flags = fields[i].flags | XFFI_FIELD_WRITABLE | XFFI_FIELD_SETTER_IS_FUNCTION;
    f.size = fields[i].size;
    f.alignment = 8;
    f.offset = fields[i].offset;
    f.getter = make_getter(fields[i].type_index);
    xffi_object *setter = make_setter(fields[i].type_index);
    f.setter = setter;
    f.default_value_or_factory = fields[i].default_value;
    f.field_static_type_index = fields[i].type_index;
    assert_int_equal(TVMFFITypeRegisterField(index, &f), 0);
    xffi_object_dec_ref(setter); /* the record keeps its own reference */
  }
  return index;
}

static void register_columns(int32_t type_index, int64_t total_size) {
  xffi_any args[2] = {xffi_any_int(type_index), xffi_any_int(total_size)}, result = xffi_any_none();
  assert_int_equal(call_global("ffi._PyClassRegisterTypeAttrColumns", args, 2, &result), 0);
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
}

/* The type's attribute name (borrowed), or NULL. */
/* The attribute from this runtime's own column (xffi_type_attr_column_lookup,
 * not TVMFFIGetTypeAttrColumn, which bound to the process's tvm-ffi runtime
 * takes that runtime's values too): the test is of xffi's own globals. */
static xffi_object *attr_of(int32_t type_index, const char *name) {
  const xffi_type_attr_column *column = NULL;
  assert_int_equal(xffi_type_attr_column_lookup(&column, name), XFFI_OK);
  if (!column) return NULL;
  int64_t offset = (int64_t)type_index - column->begin_index;
  if (offset < 0 || offset >= column->size || column->data[offset].type_index != XFFI_TYPE_FUNCTION) return NULL;
  return column->data[offset].v_obj;
}

static int64_t field_int(const xffi_object *obj, int64_t offset) {
  int64_t v;
  memcpy(&v, (const char *)obj + offset, sizeof(v));
  return v;
}

static xffi_object *field_object(const xffi_object *obj, int64_t offset) {
  xffi_object *v;
  memcpy(&v, (const char *)obj + offset, sizeof(v));
  return v;
}

static void test_ffi_new_makes_an_empty_object(void **state) {
  (void)state;
  int32_t type = define_type(XFFI_TYPE_OBJECT);
  register_columns(type, TOTAL_SIZE);
  xffi_any made = xffi_any_none();
  assert_int_equal(xffi_function_call(attr_of(type, "__ffi_new__"), NULL, 0, &made), XFFI_OK);
  assert_int_equal(made.type_index, type);
  assert_int_equal(field_int(made.v_obj, OFFSET_A), 0);
  xffi_any b;
  memcpy(&b, (char *)made.v_obj + OFFSET_B, sizeof(b));
  assert_int_equal(b.type_index, XFFI_TYPE_NONE);
  assert_null(field_object(made.v_obj, OFFSET_C));
  xffi_any_release(&made);
  xffi_any extra = xffi_any_int(1);
  assert_int_equal(xffi_function_call(attr_of(type, "__ffi_new__"), &extra, 1, &made), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "__ffi_new__: expected 0 arguments, got 1");
}

static void test_ffi_init_binds_and_the_deleter_releases_the_fields(void **state) {
  (void)state;
  int32_t type = define_type(XFFI_TYPE_OBJECT);
  register_columns(type, TOTAL_SIZE);
  xffi_object *held, *kwargs;
  assert_int_equal(xffi_string_new(&held, "held by field c of the object", 29), XFFI_OK);
  xffi_any sentinel = xffi_any_none();
  assert_int_equal(call_global("ffi.GetKwargsObject", NULL, 0, &sentinel), 0);
  kwargs = sentinel.v_obj;
  xffi_any args[4] = {xffi_any_int(4), xffi_any_object(kwargs), xffi_any_c_str("c"), xffi_any_object(held)};
  xffi_any made = xffi_any_none();
  converter_calls = 0;
  assert_int_equal(xffi_function_call(attr_of(type, "__ffi_init__"), args, 4, &made), XFFI_OK);
  assert_int_equal(made.type_index, type);
  assert_int_equal(field_int(made.v_obj, OFFSET_A), 8); /* through the converter */
  assert_ptr_equal(field_object(made.v_obj, OFFSET_C), held);
  assert_int_equal(xffi_object_strong_count(held), 2);
  xffi_any b = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&b, made.v_obj, "b"), XFFI_OK); /* the default */
  xffi_byte_array text;
  assert_int_equal(xffi_any_to_str(&text, &b), XFFI_OK);
  assert_int_equal(text.size, 4);
  assert_memory_equal(text.data, "dflt", 4);
  xffi_any_release(&b);
  assert_int_equal(converter_calls, 3);
  xffi_any_release(&made);
  assert_int_equal(xffi_object_strong_count(held), 1); /* released with the object */
  /* A bad argument: the error names the type and field; nothing leaks. */
  xffi_any missing[1] = {xffi_any_object(kwargs)};
  assert_int_equal(xffi_function_call(attr_of(type, "__ffi_init__"), missing, 1, &made), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "__ffi_init__() missing required argument: 'a'");
  xffi_any refused[4] = {xffi_any_int(1), xffi_any_c_str("bad")};
  assert_int_equal(xffi_function_call(attr_of(type, "__ffi_init__"), refused, 2, &made), XFFI_FAIL);
  /* tvm-ffi's nesting: the setter's message on its own lines, indented. */
  assert_raised(XFFI_KIND_TYPE, "__ffi_init__() field 'b':\n  test converter: 'bad' is refused\n  second line");
  xffi_object_dec_ref(held);
  xffi_any_release(&sentinel);
}

static void test_shallow_copy_shares_the_fields(void **state) {
  (void)state;
  int32_t type = define_type(XFFI_TYPE_OBJECT), child = define_type(type);
  register_columns(type, TOTAL_SIZE);
  xffi_object *held, *text;
  assert_int_equal(xffi_string_new(&held, "an object held by the original", 30), XFFI_OK);
  assert_int_equal(xffi_string_new(&text, "a string in an Any field, long", 30), XFFI_OK);
  xffi_any original = xffi_any_none(), copy = xffi_any_none();
  assert_int_equal(xffi_function_call(attr_of(type, "__ffi_new__"), NULL, 0, &original), XFFI_OK);
  xffi_any value = xffi_any_object(held);
  assert_int_equal(xffi_object_set_field(original.v_obj, "c", &value), XFFI_OK);
  value = xffi_any_object(text);
  assert_int_equal(xffi_object_set_field(original.v_obj, "b", &value), XFFI_OK);
  value = xffi_any_int(3);
  assert_int_equal(xffi_object_set_field(original.v_obj, "a", &value), XFFI_OK);
  assert_int_equal(xffi_function_call(attr_of(type, "__ffi_shallow_copy__"), &original, 1, &copy), XFFI_OK);
  assert_int_equal(copy.type_index, type);
  assert_ptr_not_equal(copy.v_obj, original.v_obj);
  assert_int_equal(field_int(copy.v_obj, OFFSET_A), 6);
  assert_ptr_equal(field_object(copy.v_obj, OFFSET_C), held);
  assert_int_equal(xffi_object_strong_count(held), 3);
  assert_int_equal(xffi_object_strong_count(text), 3);
  xffi_any_release(&original);
  xffi_any_release(&copy);
  assert_int_equal(xffi_object_strong_count(held), 1);
  assert_int_equal(xffi_object_strong_count(text), 1);
  /* Only instances of the type are copied. */
  xffi_any other = xffi_any_object(held);
  assert_int_equal(xffi_function_call(attr_of(type, "__ffi_shallow_copy__"), &other, 1, &copy), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "__ffi_shallow_copy__");
  assert_int_equal(xffi_function_call(attr_of(type, "__ffi_shallow_copy__"), NULL, 0, &copy), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "expected 1 argument");
  (void)child;
  xffi_object_dec_ref(held);
  xffi_object_dec_ref(text);
}

/* DeepCopy writes the copies of b (an Array) and c (a Map) straight into
 * the copy's fields: the converter, which accepted the originals, is not
 * run again (in Python it cost about a fifth of a graph's copy); a field
 * whose copy has another type than its original (here none can) would
 * still go through the setter. */
static void test_deep_copy_writes_copied_fields_without_the_converter(void **state) {
  (void)state;
  int32_t type = define_type(XFFI_TYPE_OBJECT);
  register_columns(type, TOTAL_SIZE);
  xffi_object *array = NULL, *map = NULL;
  xffi_any items[2] = {xffi_any_int(1), xffi_any_c_str("two")};
  assert_int_equal(xffi_array_new(&array, items, 2), XFFI_OK);
  xffi_any key = xffi_any_c_str("k");
  assert_int_equal(xffi_map_new(&map, &key, &items[0], 1), XFFI_OK);
  xffi_any original = xffi_any_none(), copy = xffi_any_none(), value;
  assert_int_equal(xffi_function_call(attr_of(type, "__ffi_new__"), NULL, 0, &original), XFFI_OK);
  value = xffi_any_int(3);
  assert_int_equal(xffi_object_set_field(original.v_obj, "a", &value), XFFI_OK);
  value = xffi_any_object(array);
  assert_int_equal(xffi_object_set_field(original.v_obj, "b", &value), XFFI_OK);
  value = xffi_any_object(map);
  assert_int_equal(xffi_object_set_field(original.v_obj, "c", &value), XFFI_OK);
  converter_calls = 0;
  assert_int_equal(xffi_deep_copy(&copy, &original), XFFI_OK);
  assert_int_equal(converter_calls, 0);
  assert_int_equal(copy.type_index, type);
  assert_int_equal(field_int(copy.v_obj, OFFSET_A), 6); /* the original's, converted once when set */
  xffi_any b = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&b, copy.v_obj, "b"), XFFI_OK);
  assert_int_equal(b.type_index, XFFI_TYPE_ARRAY);
  assert_ptr_not_equal(b.v_obj, array); /* a copy, with the same items */
  assert_int_equal(xffi_seq_size_unchecked(b.v_obj), 2);
  assert_int_equal(xffi_seq_items_unchecked(b.v_obj)[0].v_int64, 1);
  xffi_any_release(&b);
  xffi_object *c = field_object(copy.v_obj, OFFSET_C);
  assert_ptr_not_equal(c, map);
  const xffi_any *found = NULL;
  assert_int_equal(xffi_map_lookup(&found, c, &key), XFFI_OK);
  assert_non_null(found);
  assert_int_equal(found->v_int64, 1);
  assert_int_equal(xffi_object_strong_count(array), 2); /* the original's field and ours */
  xffi_any_release(&copy);
  xffi_any_release(&original);
  assert_int_equal(xffi_object_strong_count(array), 1);
  assert_int_equal(xffi_object_strong_count(map), 1);
  xffi_object_dec_ref(array);
  xffi_object_dec_ref(map);
}

static void test_a_long_chain_is_released_with_bounded_stack(void **state) {
  (void)state;
  int32_t type = define_type(XFFI_TYPE_OBJECT);
  register_columns(type, TOTAL_SIZE);
  xffi_object *new_fn = attr_of(type, "__ffi_new__");
  xffi_any head = xffi_any_none();
  for (int i = 0; i < 1000000; ++i) { /* deep enough to overflow a recursive release */
    xffi_any node = xffi_any_none();
    assert_int_equal(xffi_function_call(new_fn, NULL, 0, &node), XFFI_OK);
    if (head.type_index != XFFI_TYPE_NONE) memcpy((char *)node.v_obj + OFFSET_C, &head.v_obj, sizeof(void *));
    head = node; /* the previous head's reference moved into the field */
  }
  xffi_any_release(&head);
}

/* A custom object allocator that counts the bodies of one type. */
static int32_t counted_type;
static int counted_live;
static void counted_delete_space(void *body) {
  if (((xffi_object *)body)->type_index == counted_type) --counted_live;
  free((char *)body - 16);
}
static void *counted_allocate(size_t size, size_t alignment, int32_t type_index, void *context) {
  (void)context;
  assert_true(alignment <= 16);
  char *block = calloc(1, 16 + size);
  if (!block) return NULL;
  void (*delete_space)(void *) = counted_delete_space;
  memcpy(block + 16 - sizeof(delete_space), &delete_space, sizeof(delete_space));
  if (type_index == counted_type) ++counted_live;
  return block + 16;
}

static void test_objects_come_from_the_object_allocator(void **state) {
  (void)state;
  counted_type = define_type(XFFI_TYPE_OBJECT);
  register_columns(counted_type, TOTAL_SIZE);
  static xffi_custom_allocator counting = {counted_allocate, NULL};
  assert_int_equal(TVMFFISetCustomAllocator(&counting), 0);
  xffi_any made = xffi_any_none(), copy = xffi_any_none();
  assert_int_equal(xffi_function_call(attr_of(counted_type, "__ffi_new__"), NULL, 0, &made), XFFI_OK);
  assert_int_equal(xffi_function_call(attr_of(counted_type, "__ffi_shallow_copy__"), &made, 1, &copy), XFFI_OK);
  assert_int_equal(counted_live, 2);
  xffi_any_release(&made);
  xffi_any_release(&copy);
  assert_int_equal(counted_live, 0); /* each freed through its header's delete_space */
  assert_int_equal(TVMFFISetCustomAllocator(NULL), 0);
}

static void test_register_columns_refuses_bad_input_and_keeps_nothing(void **state) {
  (void)state;
  static const char fn[] = "ffi._PyClassRegisterTypeAttrColumns";
  int32_t type = define_type(XFFI_TYPE_OBJECT);
  xffi_any result = xffi_any_none();
  xffi_any unregistered[2] = {xffi_any_int(type + 1000), xffi_any_int(TOTAL_SIZE)};
  assert_int_equal(call_global(fn, unregistered, 2, &result), -1);
  assert_raised(XFFI_KIND_INDEX, "ffi._PyClassRegisterTypeAttrColumns: type_index");
  xffi_any value_type[2] = {xffi_any_int(XFFI_TYPE_INT), xffi_any_int(TOTAL_SIZE)};
  assert_int_equal(call_global(fn, value_type, 2, &result), -1);
  assert_raised(XFFI_KIND_INDEX, "is not a registered object type");
  xffi_any too_small[2] = {xffi_any_int(type), xffi_any_int(16)};
  assert_int_equal(call_global(fn, too_small, 2, &result), -1);
  assert_raised(XFFI_KIND_VALUE, "ffi._PyClassRegisterTypeAttrColumns: total_size 16 is outside");
  xffi_any short_of_fields[2] = {xffi_any_int(type), xffi_any_int(OFFSET_C)};
  assert_int_equal(call_global(fn, short_of_fields, 2, &result), -1);
  assert_raised(XFFI_KIND_VALUE, "does not hold field 'c'");
  xffi_any not_int[2] = {xffi_any_int(type), xffi_any_float(56.0)};
  assert_int_equal(call_global(fn, not_int, 2, &result), -1);
  assert_raised(XFFI_KIND_TYPE, fn);
  assert_int_equal(call_global(fn, not_int, 1, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "expected 2 arguments, got 1");
  assert_null(attr_of(type, "__ffi_init__")); /* nothing was registered */
  assert_null(attr_of(type, "__ffi_new__"));
  assert_null(attr_of(type, "__ffi_shallow_copy__"));
  register_columns(type, TOTAL_SIZE);
  xffi_object *init = attr_of(type, "__ffi_init__");
  xffi_any again[2] = {xffi_any_int(type), xffi_any_int(TOTAL_SIZE)};
  assert_int_equal(call_global(fn, again, 2, &result), -1);
  assert_raised(XFFI_KIND_RUNTIME, "already has attribute __ffi_init__");
  assert_ptr_equal(attr_of(type, "__ffi_init__"), init); /* unchanged */
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
}

/* A C++ parent may declare an ObjectRef field as Any: with pointer size it
 * holds one object pointer, which the deleter releases as such. */
static void test_a_pointer_sized_any_field_is_released_as_an_object(void **state) {
  (void)state;
  xffi_byte_array key = bytes_of("test.pyclass.PointerSizedAny");
  int32_t type = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, XFFI_TYPE_OBJECT);
  xffi_field_info f;
  memset(&f, 0, sizeof(f));
  f.name = bytes_of("ref");
  f.size = sizeof(void *);
  f.alignment = sizeof(void *);
  f.offset = 24;
  f.getter = make_getter(XFFI_TYPE_OBJECT);
  f.field_static_type_index = XFFI_TYPE_ANY;
  assert_int_equal(TVMFFITypeRegisterField(type, &f), 0);
  register_columns(type, 32);
  xffi_object *held;
  assert_int_equal(xffi_string_new(&held, "held through a pointer-sized Any", 32), XFFI_OK);
  xffi_any made = xffi_any_none();
  assert_int_equal(xffi_function_call(attr_of(type, "__ffi_new__"), NULL, 0, &made), XFFI_OK);
  xffi_object_inc_ref(held);
  memcpy((char *)made.v_obj + 24, &held, sizeof(held)); /* the field's reference */
  assert_int_equal(xffi_object_strong_count(held), 2);
  xffi_any_release(&made);
  assert_int_equal(xffi_object_strong_count(held), 1);
  xffi_object_dec_ref(held);
}

/* An enum defined in Python derives from ffi.IntEnum, whose "value" aliases
 * _int_index and is not an __ffi_init__ argument (tvm-ffi's init(false)). */
static void test_an_int_enum_subclass_is_made_from_its_indices(void **state) {
  (void)state;
  xffi_byte_array parent_key = bytes_of("ffi.IntEnum");
  int32_t parent;
  assert_int_equal(TVMFFITypeKeyToIndex(&parent_key, &parent), 0);
  const xffi_field_info *value = NULL;
  assert_int_equal(xffi_type_find_field(&value, parent, "value"), XFFI_OK);
  assert_non_null(value);
  assert_true(value->flags & XFFI_FIELD_INIT_OFF);
  int32_t type = define_type(parent);
  register_columns(type, 48); /* _int_index at 24, _str_index (Any) at 32 */
  xffi_any sentinel = xffi_any_none(), made = xffi_any_none();
  assert_int_equal(call_global("ffi.GetKwargsObject", NULL, 0, &sentinel), 0);
  xffi_any args[5] = {sentinel, xffi_any_c_str("_int_index"), xffi_any_int(3), xffi_any_c_str("_str_index"),
                      xffi_any_c_str("THREE")};
  assert_int_equal(xffi_function_call(attr_of(type, "__ffi_init__"), args, 5, &made), XFFI_OK);
  xffi_any read = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&read, made.v_obj, "value"), XFFI_OK);
  assert_int_equal(read.type_index, XFFI_TYPE_INT);
  assert_int_equal(read.v_int64, 3);
  xffi_any_release(&made);
  xffi_any_release(&sentinel);
}

/* Registers field `name` of type at offset (16 bytes) with setter
 * (borrowed) and metadata (NULL: none), as _register_fields does. */
static void register_schema_field(int32_t type, const char *name, int64_t offset, xffi_object *setter,
                                  const char *metadata) {
  xffi_field_info f;
  memset(&f, 0, sizeof(f));
  f.name = bytes_of(name);
  if (metadata) f.metadata = bytes_of(metadata);
  f.flags = XFFI_FIELD_WRITABLE | XFFI_FIELD_SETTER_IS_FUNCTION;
  f.size = 16;
  f.alignment = 8;
  f.offset = offset;
  f.getter = make_getter(XFFI_TYPE_ANY);
  f.setter = setter;
  f.field_static_type_index = XFFI_TYPE_ANY;
  assert_int_equal(TVMFFITypeRegisterField(type, &f), 0);
  assert_nothing_raised(); /* metadata that is not a schema is no error */
}

/* Sets *slot through setter to value (borrowed); the converter calls it made. */
static int converter_calls_to_set(xffi_object *setter, xffi_any *slot, xffi_any value) {
  xffi_any args[2] = {xffi_any_ptr(slot), value}, result = xffi_any_none();
  converter_calls = 0;
  assert_int_equal(xffi_function_call(setter, args, 2, &result), XFFI_OK);
  return converter_calls;
}

/* The package builds a field's converter and its metadata's type schema
 * from one annotation: for the schemas Any, int, float, bool and str, the
 * values their converter gives back unchanged are written without calling
 * it (the test converter doubles ints, so a call shows in the value). */
static void test_field_setter_skips_the_converter_for_values_the_schema_keeps(void **state) {
  (void)state;
  int32_t type = new_type(XFFI_TYPE_OBJECT);
  enum { NUM_SETTERS = 7 };
  xffi_object *set[NUM_SETTERS];
  for (int i = 0; i < NUM_SETTERS; ++i) set[i] = make_setter(XFFI_TYPE_ANY);
  xffi_object *set_int = set[0], *set_any = set[1], *set_float = set[2], *set_optional = set[3], *set_bare = set[4],
              *set_not_json = set[5], *set_shared = set[6];
  register_schema_field(type, "i", 24, set_int, "{\"type_schema\": {\"type\": \"int\"}}");
  register_schema_field(type, "a", 40, set_any, "{\"type_schema\": {\"type\": \"Any\"}}");
  register_schema_field(type, "f", 56, set_float, "{\"type_schema\":{\"type\":\"float\"}}");
  register_schema_field(type, "o", 72, set_optional,
                        "{\"type_schema\": {\"type\": \"Optional\", \"args\": [{\"type\": \"int\"}]}}");
  register_schema_field(type, "n", 88, set_bare, NULL);
  register_schema_field(type, "t", 104, set_not_json, "{\"type_schema\": ");
  register_schema_field(type, "s1", 120, set_shared, "{\"type_schema\": {\"type\": \"int\"}}");
  register_schema_field(type, "s2", 136, set_shared, "{\"type_schema\": {\"type\": \"float\"}}");

  xffi_any slot = xffi_any_none();
  assert_int_equal(converter_calls_to_set(set_int, &slot, xffi_any_int(21)), 0);
  assert_int_equal(slot.v_int64, 21);
  assert_int_equal(converter_calls_to_set(set_int, &slot, xffi_any_bool(1)), 1); /* int() of a bool: converted */
  assert_int_equal(converter_calls_to_set(set_float, &slot, xffi_any_float(2.5)), 0);
  assert_int_equal(converter_calls_to_set(set_float, &slot, xffi_any_int(2)), 1); /* float() of an int */
  assert_int_equal(converter_calls_to_set(set_any, &slot, xffi_any_int(21)), 0);
  assert_int_equal(slot.v_int64, 21);
  /* A String object is owned as it is; a raw C string is a view the converter makes owned. */
  xffi_object *text;
  assert_int_equal(xffi_string_new(&text, "a string longer than seven bytes", 31), XFFI_OK);
  assert_int_equal(converter_calls_to_set(set_any, &slot, xffi_any_object(text)), 0);
  assert_ptr_equal(slot.v_obj, text);
  assert_int_equal(xffi_object_strong_count(text), 2);
  assert_int_equal(converter_calls_to_set(set_any, &slot, xffi_any_c_str("view")), 1);
  assert_int_equal(xffi_object_strong_count(text), 1);
  xffi_object_dec_ref(text);
  /* Schemas with arguments, no schema, text that is not JSON, and a setter
   * shared by fields of two schemas: the converter runs. */
  xffi_object *converting[] = {set_optional, set_bare, set_not_json, set_shared};
  for (size_t i = 0; i < sizeof(converting) / sizeof(converting[0]); ++i) {
    assert_int_equal(converter_calls_to_set(converting[i], &slot, xffi_any_int(21)), 1);
    assert_int_equal(slot.v_int64, 42);
  }
  assert_int_equal(converter_calls_to_set(set_shared, &slot, xffi_any_float(2.5)), 1); /* neither schema wins */
  xffi_any_release(&slot);
  for (int i = 0; i < NUM_SETTERS; ++i) xffi_object_dec_ref(set[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_make_field_getter_gives_the_getter_of_the_storage),
      cmocka_unit_test(test_make_field_getter_refuses_bad_input),
      cmocka_unit_test(test_field_setter_converts_then_writes),
      cmocka_unit_test(test_field_setter_refuses_bad_calls_and_keeps_the_field),
      cmocka_unit_test(test_field_setter_skips_the_converter_for_values_the_schema_keeps),
      cmocka_unit_test(test_make_field_setter_refuses_bad_input),
      cmocka_unit_test(test_ffi_new_makes_an_empty_object),
      cmocka_unit_test(test_ffi_init_binds_and_the_deleter_releases_the_fields),
      cmocka_unit_test(test_shallow_copy_shares_the_fields),
      cmocka_unit_test(test_deep_copy_writes_copied_fields_without_the_converter),
      cmocka_unit_test(test_a_long_chain_is_released_with_bounded_stack),
      cmocka_unit_test(test_objects_come_from_the_object_allocator),
      cmocka_unit_test(test_register_columns_refuses_bad_input_and_keeps_nothing),
      cmocka_unit_test(test_an_int_enum_subclass_is_made_from_its_indices),
      cmocka_unit_test(test_a_pointer_sized_any_field_is_released_as_an_object),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
