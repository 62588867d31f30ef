/* Construction from arguments (c/reflection_construct.c):
 * xffi_object_construct with positional and keyword arguments through the
 * creator and defaults, through a type's own __ffi_init__, and bad input
 * (missing, unknown, repeated or mistyped arguments) leaving nothing
 * behind. */
#include "reflection_sensor.h"

static xffi_any text(const char *s) {
  xffi_any any = xffi_any_none();
  assert_int_equal(xffi_any_from_str(&any, s, strlen(s)), XFFI_OK);
  return any;
}

static void assert_label(const sensor *s, const char *expected) {
  assert_non_null(s->label);
  xffi_any view = xffi_any_object(s->label);
  xffi_byte_array got;
  assert_int_equal(xffi_any_to_str(&got, &view), XFFI_OK);
  assert_int_equal(got.size, strlen(expected));
  assert_memory_equal(got.data, expected, got.size);
}

static void test_positional_arguments_and_defaults(void **state) {
  (void)state;
  register_sensor_types();
  int alive = sensors_alive;
  /* Positional: required fields first (count, ratio), then those with defaults. */
  xffi_any args[3] = {xffi_any_int(5), xffi_any_float(0.25), text("on")}, out = xffi_any_none();
  assert_int_equal(xffi_object_construct(&out, sensor_index, args, 3), XFFI_OK);
  assert_int_equal(out.type_index, sensor_index);
  const sensor *s = (const sensor *)out.v_obj;
  assert_int_equal(s->count, 5);
  assert_true(s->ratio == 0.25); /* read-only, still set by construction */
  assert_label(s, "on");
  xffi_any_release(&out);
  /* Defaults fill what is left out; ancestors' fields come first. */
  assert_int_equal(xffi_object_construct(&out, probe_index, args, 2), XFFI_OK);
  const probe *p = (const probe *)out.v_obj;
  assert_int_equal(p->base.count, 5);
  assert_label(&p->base, "idle");
  assert_int_equal(p->depth, 3);
  xffi_any_release(&out);
  assert_int_equal(sensors_alive, alive);
}

static void test_keyword_arguments(void **state) {
  (void)state;
  register_sensor_types();
  int alive = sensors_alive;
  xffi_any args[] = {xffi_any_int(1), xffi_kwargs_marker(), text("depth"), xffi_any_int(9),
                     text("ratio"),   xffi_any_float(2.0),  text("label"), text("a label long enough for the heap")};
  xffi_any out = xffi_any_none();
  assert_int_equal(xffi_object_construct(&out, probe_index, args, 8), XFFI_OK);
  const probe *p = (const probe *)out.v_obj;
  assert_int_equal(p->base.count, 1);
  assert_true(p->base.ratio == 2.0);
  assert_int_equal(p->depth, 9);
  assert_label(&p->base, "a label long enough for the heap");
  xffi_any_release(&out);
  xffi_any_release(&args[7]);
  assert_int_equal(sensors_alive, alive);
}

static void test_bad_arguments_are_clear_errors_and_leak_nothing(void **state) {
  (void)state;
  register_sensor_types();
  int alive = sensors_alive;
  xffi_any out = xffi_any_int(-1);
  xffi_any one[] = {xffi_any_int(1)};
  assert_int_equal(xffi_object_construct(&out, sensor_index, one, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "test.reflect.Sensor.__ffi_init__() missing required argument: 'ratio'");
  xffi_any unknown[] = {xffi_any_int(1), xffi_any_float(1), xffi_kwargs_marker(), text("colour"), xffi_any_int(2)};
  assert_int_equal(xffi_object_construct(&out, sensor_index, unknown, 5), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "test.reflect.Sensor.__ffi_init__() got an unexpected keyword argument 'colour'");
  xffi_any repeated[] = {xffi_any_int(1), xffi_any_float(1), xffi_kwargs_marker(), text("count"), xffi_any_int(2)};
  assert_int_equal(xffi_object_construct(&out, sensor_index, repeated, 5), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "test.reflect.Sensor.__ffi_init__() got multiple values for argument 'count'");
  xffi_any mistyped[] = {text("five"), xffi_any_float(1)};
  assert_int_equal(xffi_object_construct(&out, sensor_index, mistyped, 2), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "test.reflect.Sensor.__ffi_init__() field 'count':");
  xffi_any too_many[] = {xffi_any_int(1), xffi_any_float(1), text("x"), xffi_any_int(4)};
  assert_int_equal(xffi_object_construct(&out, sensor_index, too_many, 4), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE,
               "test.reflect.Sensor.__ffi_init__() takes at most 3 positional argument(s), but 4 were given");
  xffi_any odd[] = {xffi_any_int(1), xffi_any_float(1), xffi_kwargs_marker(), text("label")};
  assert_int_equal(xffi_object_construct(&out, sensor_index, odd, 4), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "KWARGS requires an even number of key-value arguments");
  /* The arguments of the call itself. */
  assert_int_equal(xffi_object_construct(NULL, sensor_index, one, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_object_construct");
  assert_int_equal(xffi_object_construct(&out, sensor_index, NULL, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_object_construct");
  assert_int_equal(xffi_object_construct(&out, sensor_index, one, -1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_object_construct");
  assert_int_equal(xffi_object_construct(&out, XFFI_TYPE_INT, one, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_object_construct: type_index 1 is not a registered object type");
  assert_int_equal(xffi_object_construct(&out, 999999, one, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_object_construct: type_index 999999 is not a registered object type");
  xffi_any malformed = xffi_any_none();
  malformed.type_index = 9999;
  assert_int_equal(xffi_object_construct(&out, sensor_index, &malformed, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_object_construct");
  /* A type with neither creator nor __ffi_new__ cannot be made. */
  int32_t bare = -1;
  assert_int_equal(xffi_type_register(&bare, "test.reflect.Bare", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(xffi_object_construct(&out, bare, NULL, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_RUNTIME,
               "Type `test.reflect.Bare` does not support reflection creation (no native creator "
               "or __ffi_new__ type attr)");
  assert_int_equal(out.type_index, XFFI_TYPE_INT); /* untouched */
  assert_int_equal(out.v_int64, -1);
  assert_int_equal(sensors_alive, alive); /* every half-made object freed */
}

/* A type's own __ffi_init__: called with the arguments as given. */
static int make_probe_of_depth(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  if (num_args != 1 || args[0].type_index != XFFI_TYPE_INT) return xffi_error_raise(XFFI_KIND_TYPE, "want one int");
  void *made = NULL;
  if (probe_create(&made) != XFFI_OK) return XFFI_FAIL;
  ((probe *)made)->depth = args[0].v_int64;
  *result = xffi_any_object(made);
  return XFFI_OK;
}

/* A wrong __ffi_init__: returns an int. */
static int make_nothing(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args;
  *result = xffi_any_int(0);
  return XFFI_OK;
}

static void test_a_types_own_ffi_init_is_used(void **state) {
  (void)state;
  register_sensor_types();
  int32_t t = -1, u = -1;
  assert_int_equal(xffi_type_register(&t, "test.reflect.CustomInit", probe_index), XFFI_OK);
  xffi_object *init = NULL;
  assert_int_equal(xffi_function_new(&init, make_probe_of_depth, NULL, NULL), XFFI_OK);
  xffi_any init_any = xffi_any_object(init);
  assert_int_equal(xffi_type_register_attr(probe_index, "__ffi_init__", &init_any), XFFI_OK);
  xffi_object_dec_ref(init);
  xffi_any args[] = {xffi_any_int(11)}, out = xffi_any_none();
  assert_int_equal(xffi_object_construct(&out, probe_index, args, 1), XFFI_OK);
  assert_int_equal(((const probe *)out.v_obj)->depth, 11);
  xffi_any_release(&out);
  assert_int_equal(xffi_object_construct(&out, probe_index, NULL, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "want one int");
  /* __ffi_init__ is the type's own: a subtype without one is not made by its parent's. */
  assert_int_equal(xffi_object_construct(&out, t, args, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "test.reflect.CustomInit");
  /* An __ffi_init__ that returns something else: TypeError, nothing kept. */
  assert_int_equal(xffi_type_register(&u, "test.reflect.WrongInit", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(xffi_function_new(&init, make_nothing, NULL, NULL), XFFI_OK);
  init_any = xffi_any_object(init);
  assert_int_equal(xffi_type_register_attr(u, "__ffi_init__", &init_any), XFFI_OK);
  xffi_object_dec_ref(init);
  assert_int_equal(xffi_object_construct(&out, u, NULL, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE,
               "xffi_object_construct: test.reflect.WrongInit.__ffi_init__ returned int, not a "
               "test.reflect.WrongInit");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_positional_arguments_and_defaults),
      cmocka_unit_test(test_keyword_arguments),
      cmocka_unit_test(test_bad_arguments_are_clear_errors_and_leak_nothing),
      cmocka_unit_test(test_a_types_own_ffi_init_is_used),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
