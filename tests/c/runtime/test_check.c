/* tests/c/runtime/test_check.c: argument checks (c/check.h) name the function and
 * the argument, say what was expected and what came, and answer questions
 * without going through the raised-error slot. */
#include "failing_allocator.h"
#include "test_util.h"

static void test_messages_name_function_argument_expected_and_got(void **state) {
  (void)state;
  int64_t length = 0;
  assert_int_equal(xffi_any_to_int(NULL, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_any_to_int: out is NULL");
  assert_int_equal(xffi_string_new(NULL, "abc", 3), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_string_new: out is NULL");
  xffi_object *obj = NULL;
  assert_int_equal(xffi_string_new(&obj, NULL, 5), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_string_new: data is NULL but size is 5");
  xffi_byte_array name = {NULL, 3};
  assert_int_equal(xffi_function_global_lookup_bytes(&obj, name), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_function_global_lookup_bytes: name.data is NULL but name.size is 3");
  assert_int_equal(xffi_map_length(&length, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_length: map is NULL");
  assert_int_equal(xffi_dict_copy(&obj, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_copy: dict is NULL");
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new(&array, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_map_length(&length, array), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_length: map expected ffi.Map or ffi.Dict, got ffi.Array");
  assert_int_equal(xffi_error_append_frame(array, "frame"), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_error_append_frame: err expected ffi.Error, got ffi.Array");
  xffi_object_dec_ref(array);
  xffi_any v = xffi_any_int(7);
  assert_int_equal(xffi_any_to_object(&obj, &v, XFFI_TYPE_INT), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_any_to_object: type_index 1 is not a registered object type");
  assert_int_equal(xffi_type_register(NULL, "a.B", XFFI_TYPE_OBJECT), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_type_register: out_type_index is NULL");
  DLDataType dtype;
  assert_int_equal(xffi_dtype_parse(&dtype, "int8x0"), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dtype_parse: \"int8x0\": lanes after 'x' must be 1..65535");
}

/* A check that asks whether a type index names an object type must not
 * raise an error and clear it before raising its own: exactly one error is
 * allocated (the one reported). */
static void test_type_index_checks_raise_only_their_own_error(void **state) {
  (void)state;
  xffi_object *obj = NULL;
  xffi_any v = xffi_any_int(7);
  uint64_t before = failing_allocator_attempts();
  assert_int_equal(xffi_any_to_object(&obj, &v, 100000), XFFI_FAIL);
  assert_int_equal(failing_allocator_attempts() - before, 1);
  expect_error(XFFI_KIND_TYPE, "xffi_any_to_object: type_index 100000 is not a registered object type");

  before = failing_allocator_attempts();
  assert_int_equal(xffi_arg_to_object(&obj, &v, 1, 0, 100000, "my_fn"), XFFI_FAIL);
  assert_int_equal(failing_allocator_attempts() - before, 1);
  expect_error(XFFI_KIND_TYPE, "xffi_arg_to_object: type_index 100000 is not a registered object type");
}

/* Takes the raised error and asserts that its message begins with
 * "<function>: <argument> ". */
static void assert_names(const char *function, const char *argument) {
  xffi_object *err = xffi_error_move_raised();
  assert_non_null(err);
  char prefix[128];
  snprintf(prefix, sizeof(prefix), "%s: %s ", function, argument);
  const char *message = xffi_error_cell_of_unchecked(err)->message.data;
  if (strncmp(message, prefix, strlen(prefix)) != 0) {
    char copy[256];
    snprintf(copy, sizeof(copy), "%s", message);
    xffi_object_dec_ref(err);
    fail_msg("expected a message beginning \"%s\", got \"%s\"", prefix, copy);
  }
  xffi_object_dec_ref(err);
}

/* Failed checks of entry points of every module name their own function
 * and the argument. */
static void test_every_module_names_function_and_argument(void **state) {
  (void)state;
  xffi_object *obj = NULL;
  assert_int_equal(xffi_any_copy(NULL, NULL), XFFI_FAIL);
  assert_names("xffi_any_copy", "out");
  assert_int_equal(xffi_array_new(NULL, NULL, 0), XFFI_FAIL);
  assert_names("xffi_array_new", "out");
  assert_int_equal(xffi_list_new(NULL, NULL, 0), XFFI_FAIL);
  assert_names("xffi_list_new", "out");
  assert_int_equal(xffi_map_new(NULL, NULL, NULL, 0), XFFI_FAIL);
  assert_names("xffi_map_new", "out");
  assert_int_equal(xffi_dict_new(NULL, NULL, NULL, 0), XFFI_FAIL);
  assert_names("xffi_dict_new", "out");
  assert_int_equal(xffi_shape_new(NULL, NULL, 0), XFFI_FAIL);
  assert_names("xffi_shape_new", "out");
  assert_int_equal(xffi_error_new(&obj, NULL, "m"), XFFI_FAIL);
  assert_names("xffi_error_new", "kind");
  assert_int_equal(xffi_type_info_get_by_key(NULL, "Object"), XFFI_FAIL);
  assert_names("xffi_type_info_get_by_key", "out");
  assert_int_equal(xffi_function_global_lookup(&obj, NULL), XFFI_FAIL);
  assert_names("xffi_function_global_lookup", "name");
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_messages_name_function_argument_expected_and_got),
      cmocka_unit_test(test_type_index_checks_raise_only_their_own_error),
      cmocka_unit_test(test_every_module_names_function_and_argument),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
