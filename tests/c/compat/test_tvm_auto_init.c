/* ffi._RegisterFFIInit and ffi.MakeObjectFromPackedArgs (c/auto_init.c):
 * objects made from a type's reflected fields, as tvm-ffi's C++ libraries
 * and Python package ask for them; positional and KWARGS binding, defaults,
 * factories, required fields, and bad input (an error, never a crash). */
#include "test_util.h"

#include <xffi/reflection.h>
#include <xffi/tvm_ffi.h>

typedef struct point {
  xffi_object header;
  int64_t x;      /* required */
  int64_t y;      /* default 7 */
  int64_t z;      /* keyword-only, default from a factory (42) */
  int64_t hidden; /* init off, no default: stays as created (-1) */
} point;

static int32_t point_index;
static int destroyed;

static void point_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) ++destroyed;
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static int point_creator(void **out) {
  point *p = calloc(1, sizeof(point));
  if (!p) return xffi_error_raise_out_of_memory();
  xffi_object_init(&p->header, point_index, point_deleter);
  p->hidden = -1;
  *out = p;
  return 0;
}

static int get_i64(void *field, xffi_any *result) {
  int64_t v;
  memcpy(&v, field, sizeof(v));
  *result = xffi_any_int(v);
  return 0;
}

static int set_i64(void *field, const xffi_any *value) {
  if (value->type_index != XFFI_TYPE_INT) return xffi_error_raise(XFFI_KIND_TYPE, "expected int");
  memcpy(field, &value->v_int64, sizeof(int64_t));
  return 0;
}

static int factory(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  (void)args;
  (void)num_args;
  *result = xffi_any_int(42);
  return 0;
}

static xffi_byte_array bytes_of(const char *s) {
  xffi_byte_array b = {s, strlen(s)};
  return b;
}

static void add_field(const char *name, int64_t offset, int64_t flags, xffi_any default_value) {
  xffi_field_info f;
  memset(&f, 0, sizeof(f));
  f.name = bytes_of(name);
  f.flags = flags;
  f.size = 8;
  f.alignment = 8;
  f.offset = offset;
  f.getter = get_i64;
  xffi_field_setter setter = set_i64;
  memcpy(&f.setter, &setter, sizeof(setter));
  f.default_value_or_factory = default_value;
  f.field_static_type_index = XFFI_TYPE_INT;
  assert_int_equal(TVMFFITypeRegisterField(point_index, &f), 0);
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

static int setup(void **state) {
  (void)state;
  xffi_byte_array key = bytes_of("test.auto_init.Point");
  point_index = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, XFFI_TYPE_OBJECT);
  assert_true(point_index >= XFFI_TYPE_DYNAMIC_BEGIN);
  xffi_type_metadata meta = {{"", 0}, point_creator, (int32_t)sizeof(point), 0};
  assert_int_equal(TVMFFITypeRegisterMetadata(point_index, &meta), 0);
  xffi_object *make42 = NULL;
  assert_int_equal(xffi_function_new(&make42, factory, NULL, NULL), XFFI_OK);
  add_field("x", 24, 0, xffi_any_none());
  add_field("y", 32, XFFI_FIELD_HAS_DEFAULT, xffi_any_int(7));
  add_field("z", 40, XFFI_FIELD_HAS_DEFAULT | XFFI_FIELD_DEFAULT_FROM_FACTORY | XFFI_FIELD_KW_ONLY,
            xffi_any_object(make42));
  add_field("hidden", 48, XFFI_FIELD_INIT_OFF, xffi_any_none());
  xffi_object_dec_ref(make42);
  xffi_any arg = xffi_any_int(point_index), none = xffi_any_none();
  assert_int_equal(call_global("ffi._RegisterFFIInit", &arg, 1, &none), 0);
  return 0;
}

static xffi_object *init_function(void) {
  xffi_byte_array name = bytes_of("__ffi_init__");
  const xffi_type_attr_column *column = TVMFFIGetTypeAttrColumn(&name);
  assert_non_null(column);
  int32_t offset = point_index - column->begin_index;
  assert_true(offset >= 0 && offset < column->size);
  assert_int_equal(column->data[offset].type_index, XFFI_TYPE_FUNCTION);
  return column->data[offset].v_obj;
}

static xffi_any kwargs_sentinel(void) {
  xffi_any result = xffi_any_none();
  assert_int_equal(call_global("ffi.GetKwargsObject", NULL, 0, &result), 0);
  return result;
}

static point *construct_ok(xffi_any *args, int32_t num_args) {
  xffi_any result = xffi_any_none();
  assert_int_equal(TVMFFIFunctionCall(init_function(), args, num_args, &result), 0);
  assert_int_equal(result.type_index, point_index);
  return (point *)(void *)result.v_obj;
}

static void test_positional_arguments_fill_fields_and_defaults_fill_the_rest(void **state) {
  (void)state;
  xffi_any args[2] = {xffi_any_int(1), xffi_any_int(2)};
  point *p = construct_ok(args, 1);
  assert_int_equal(p->x, 1);
  assert_int_equal(p->y, 7);
  assert_int_equal(p->z, 42); /* from the factory */
  assert_int_equal(p->hidden, -1);
  xffi_object_dec_ref(&p->header);
  p = construct_ok(args, 2);
  assert_int_equal(p->y, 2);
  xffi_object_dec_ref(&p->header);
}

static void test_keyword_arguments_follow_the_kwargs_sentinel(void **state) {
  (void)state;
  xffi_any kw = kwargs_sentinel();
  xffi_any args[6] = {xffi_any_int(5), kw, xffi_any_none(), xffi_any_int(9), xffi_any_none(), xffi_any_int(3)};
  args[2].type_index = XFFI_TYPE_RAW_STR;
  args[2].v_c_str = "z";
  args[4].type_index = XFFI_TYPE_RAW_STR;
  args[4].v_c_str = "y";
  point *p = construct_ok(args, 6);
  assert_int_equal(p->x, 5);
  assert_int_equal(p->y, 3);
  assert_int_equal(p->z, 9);
  xffi_object_dec_ref(&p->header);
  xffi_any_release(&kw);
}

static void test_bad_calls_raise_type_errors_and_free_the_object(void **state) {
  (void)state;
  int before = destroyed;
  xffi_any result = xffi_any_none();
  xffi_object *init = init_function();
  /* No x. */
  assert_int_equal(TVMFFIFunctionCall(init, NULL, 0, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "test.auto_init.Point.__ffi_init__() missing required argument: 'x'");
  /* Too many positional arguments (z is keyword-only). */
  xffi_any three[3] = {xffi_any_int(1), xffi_any_int(2), xffi_any_int(3)};
  assert_int_equal(TVMFFIFunctionCall(init, three, 3, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "takes at most 2 positional argument(s), but 3 were given");
  /* A setter's refusal names the field. */
  xffi_any wrong = xffi_any_float(1.5);
  assert_int_equal(TVMFFIFunctionCall(init, &wrong, 1, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "__ffi_init__() field 'x':\n  expected int");
  /* Unknown, repeated and unpaired keywords; a non-string keyword; init-off fields take no keyword. */
  xffi_any kw = kwargs_sentinel();
  xffi_any args[5] = {xffi_any_int(1), kw, xffi_any_none(), xffi_any_int(2), xffi_any_none()};
  args[2].type_index = XFFI_TYPE_RAW_STR;
  args[2].v_c_str = "hidden";
  assert_int_equal(TVMFFIFunctionCall(init, args, 4, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "got an unexpected keyword argument 'hidden'");
  args[2].v_c_str = "x";
  assert_int_equal(TVMFFIFunctionCall(init, args, 4, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "got multiple values for argument 'x'");
  assert_int_equal(TVMFFIFunctionCall(init, args, 3, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "KWARGS requires an even number of key-value arguments");
  args[2] = xffi_any_int(0);
  assert_int_equal(TVMFFIFunctionCall(init, args, 4, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "argument 2");
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  /* Every object made before a failure was released. */
  assert_int_equal(destroyed - before, 7); /* one per failed call */
  xffi_any_release(&kw);
}

static void test_register_ffi_init_refuses_bad_type_indices(void **state) {
  (void)state;
  xffi_any result = xffi_any_none();
  xffi_any arg = xffi_any_int(1 << 30);
  assert_int_equal(call_global("ffi._RegisterFFIInit", &arg, 1, &result), -1);
  assert_raised(XFFI_KIND_INDEX, "is not a registered object type");
  arg = xffi_any_int(XFFI_TYPE_INT); /* a value type */
  assert_int_equal(call_global("ffi._RegisterFFIInit", &arg, 1, &result), -1);
  assert_raised(XFFI_KIND_INDEX, "is not a registered object type");
  arg = xffi_any_int(-5);
  assert_int_equal(call_global("ffi._RegisterFFIInit", &arg, 1, &result), -1);
  assert_raised(XFFI_KIND_INDEX, "is not a type index");
  arg = xffi_any_float(1.0);
  assert_int_equal(call_global("ffi._RegisterFFIInit", &arg, 1, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "ffi._RegisterFFIInit");
  assert_int_equal(call_global("ffi._RegisterFFIInit", NULL, 0, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "ffi._RegisterFFIInit");
}

static void test_a_type_without_creator_or_ffi_new_cannot_be_made(void **state) {
  (void)state;
  xffi_byte_array key = bytes_of("test.auto_init.NoCreator");
  int32_t index = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, XFFI_TYPE_OBJECT);
  xffi_any arg = xffi_any_int(index), result = xffi_any_none();
  assert_int_equal(call_global("ffi._RegisterFFIInit", &arg, 1, &result), 0);
  xffi_byte_array name = bytes_of("__ffi_init__");
  const xffi_type_attr_column *column = TVMFFIGetTypeAttrColumn(&name);
  assert_int_equal(TVMFFIFunctionCall(column->data[index - column->begin_index].v_obj, NULL, 0, &result), -1);
  assert_raised(XFFI_KIND_RUNTIME, "does not support reflection creation");
}

static xffi_any raw_str(const char *text) {
  xffi_any v = xffi_any_none();
  v.type_index = XFFI_TYPE_RAW_STR;
  v.v_c_str = text;
  return v;
}

static void test_make_object_from_packed_args_sets_fields_by_name(void **state) {
  (void)state;
  xffi_any result = xffi_any_none();
  /* Unlike __ffi_init__, every field without a default is required, init-off or not (as in tvm-ffi). */
  xffi_any args[7] = {xffi_any_int(point_index), raw_str("z"),      xffi_any_int(4), raw_str("x"),
                      xffi_any_int(2),           raw_str("hidden"), xffi_any_int(-3)};
  assert_int_equal(call_global("ffi.MakeObjectFromPackedArgs", args, 7, &result), 0);
  point *p = (point *)(void *)result.v_obj;
  assert_int_equal(p->x, 2);
  assert_int_equal(p->y, 7);
  assert_int_equal(p->z, 4);
  assert_int_equal(p->hidden, -3);
  xffi_any_release(&result);
  /* By key, too. */
  args[0] = raw_str("test.auto_init.Point");
  assert_int_equal(call_global("ffi.MakeObjectFromPackedArgs", args, 7, &result), 0);
  xffi_any_release(&result);
  /* A required field left out; an unknown name; an odd count; a bad type. */
  int before = destroyed;
  assert_int_equal(call_global("ffi.MakeObjectFromPackedArgs", args, 3, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "Required field `x` not set in type `test.auto_init.Point`");
  args[1] = raw_str("nope");
  assert_int_equal(call_global("ffi.MakeObjectFromPackedArgs", args, 7, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "Type `test.auto_init.Point` does not have field `nope`");
  assert_int_equal(destroyed - before, 2);
  assert_int_equal(call_global("ffi.MakeObjectFromPackedArgs", args, 4, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "expected a type then name/value pairs");
  args[0] = xffi_any_int(XFFI_TYPE_FLOAT);
  assert_int_equal(call_global("ffi.MakeObjectFromPackedArgs", args, 1, &result), -1);
  assert_raised(XFFI_KIND_INDEX, "is not a registered object type");
  args[0] = raw_str("no.such.Type");
  assert_int_equal(call_global("ffi.MakeObjectFromPackedArgs", args, 1, &result), -1);
  assert_raised(XFFI_KIND_INDEX, "is not a registered object type");
  args[0] = xffi_any_float(1.0);
  assert_int_equal(call_global("ffi.MakeObjectFromPackedArgs", args, 1, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "ffi.MakeObjectFromPackedArgs");
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_positional_arguments_fill_fields_and_defaults_fill_the_rest),
      cmocka_unit_test(test_keyword_arguments_follow_the_kwargs_sentinel),
      cmocka_unit_test(test_bad_calls_raise_type_errors_and_free_the_object),
      cmocka_unit_test(test_register_ffi_init_refuses_bad_type_indices),
      cmocka_unit_test(test_a_type_without_creator_or_ffi_new_cannot_be_made),
      cmocka_unit_test(test_make_object_from_packed_args_sets_fields_by_name),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
