/* Reading the reflection records from C (c/reflection_records.c): fields
 * and methods with their ancestors' (root first), metadata, attributes by
 * type and name, and bad input. */
#include "reflection_sensor.h"
#include "runtime/internal.h"

static int noop(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args, (void)result;
  return XFFI_OK;
}

static void test_fields_in_order_parents_first(void **state) {
  (void)state;
  register_sensor_types();
  int32_t count = -1;
  assert_int_equal(xffi_type_count_fields(&count, probe_index), XFFI_OK);
  assert_int_equal(count, 4);
  const char *expected[] = {"count", "ratio", "label", "depth"};
  for (int32_t i = 0; i < count; ++i) {
    const xffi_field_info *field = NULL;
    assert_int_equal(xffi_type_field_at(&field, probe_index, i), XFFI_OK);
    assert_string_equal(field->name.data, expected[i]);
  }
  assert_int_equal(xffi_type_count_fields(&count, sensor_index), XFFI_OK);
  assert_int_equal(count, 3);
  assert_int_equal(xffi_type_count_fields(&count, XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(count, 0);
  const xffi_field_info *field = NULL;
  assert_int_equal(xffi_type_field_at(&field, probe_index, 4), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX,
               "xffi_type_field_at: position 4 is out of range for the 4 fields of test.reflect.Probe");
  assert_int_equal(xffi_type_field_at(&field, probe_index, -1), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX,
               "xffi_type_field_at: position -1 is out of range for the 4 fields of test.reflect.Probe");
  assert_int_equal(xffi_type_field_at(NULL, probe_index, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_type_field_at: out is NULL");
  assert_int_equal(xffi_type_count_fields(NULL, probe_index), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_type_count_fields: out is NULL");
  assert_int_equal(xffi_type_count_fields(&count, 999999), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_type_count_fields: type_index 999999 is not a registered type");
  assert_int_equal(xffi_type_field_at(&field, -7, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_type_field_at: type_index -7 is not a registered type");
}

static void test_methods_in_order_parents_first(void **state) {
  (void)state;
  register_sensor_types();
  int32_t t = -1;
  assert_int_equal(xffi_type_register(&t, "test.records.Leaf", probe_index), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_METHOD(sensor_index, "reset", noop, NULL), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_STATIC_METHOD(t, "make", noop, NULL), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_METHOD(t, "grow", noop, NULL), XFFI_OK);
  int32_t count = -1;
  assert_int_equal(xffi_type_count_methods(&count, t), XFFI_OK);
  assert_int_equal(count, 3);
  const char *expected[] = {"reset", "make", "grow"};
  for (int32_t i = 0; i < count; ++i) {
    const xffi_method_info *method = NULL;
    assert_int_equal(xffi_type_method_at(&method, t, i), XFFI_OK);
    assert_string_equal(method->name.data, expected[i]);
  }
  const xffi_method_info *method = NULL;
  assert_int_equal(xffi_type_method_at(&method, t, 3), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX,
               "xffi_type_method_at: position 3 is out of range for the 3 methods of test.records.Leaf");
  assert_int_equal(xffi_type_method_at(NULL, t, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_type_method_at: out is NULL");
  assert_int_equal(xffi_type_count_methods(NULL, t), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_type_count_methods: out is NULL");
  assert_int_equal(xffi_type_count_methods(&count, 999999), XFFI_FAIL);
  assert_raised(XFFI_KIND_INDEX, "type_index 999999 is not a registered type");
}

static void test_metadata_lookup(void **state) {
  (void)state;
  register_sensor_types();
  const xffi_type_metadata *metadata = NULL;
  assert_int_equal(xffi_type_get_metadata(&metadata, sensor_index), XFFI_OK);
  assert_non_null(metadata);
  assert_int_equal(metadata->total_size, sizeof(sensor));
  assert_string_equal(metadata->doc.data, "a sensor");
  int32_t t = -1;
  assert_int_equal(xffi_type_register(&t, "test.records.NoMetadata", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(xffi_type_get_metadata(&metadata, t), XFFI_OK);
  assert_null(metadata);
  assert_int_equal(xffi_type_get_metadata(NULL, t), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_type_get_metadata: out is NULL");
  assert_int_equal(xffi_type_get_metadata(&metadata, 999999), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_type_get_metadata: type_index 999999 is not a registered type");
}

static void test_attribute_lookup_by_type_and_name(void **state) {
  (void)state;
  register_sensor_types();
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, noop, NULL, NULL), XFFI_OK);
  xffi_any value = xffi_any_object(fn);
  assert_int_equal(xffi_type_register_attr(sensor_index, "test_records_hook", &value), XFFI_OK);
  xffi_any got = xffi_any_int(1);
  assert_int_equal(xffi_type_get_attr(&got, sensor_index, "test_records_hook"), XFFI_OK);
  assert_ptr_equal(got.v_obj, fn);
  /* ours, the column's, got's; and the column's of the process's tvm-ffi
   * runtime when this library is bound to one (told of the attribute). */
  assert_int_equal(xffi_object_strong_count(fn), 3 + xffi_foreign_runtime_present());
  xffi_any_release(&got);
  /* Attributes are per type: the subtype has none; an unknown name is None. */
  assert_int_equal(xffi_type_get_attr(&got, probe_index, "test_records_hook"), XFFI_OK);
  assert_int_equal(got.type_index, XFFI_TYPE_NONE);
  got = xffi_any_int(1);
  assert_int_equal(xffi_type_get_attr(&got, sensor_index, "test_records_no_such_column"), XFFI_OK);
  assert_int_equal(got.type_index, XFFI_TYPE_NONE);
  assert_int_equal(xffi_type_get_attr(NULL, sensor_index, "x"), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_type_get_attr: out is NULL");
  assert_int_equal(xffi_type_get_attr(&got, sensor_index, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_type_get_attr: name is NULL");
  assert_int_equal(xffi_type_get_attr(&got, 999999, "x"), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_type_get_attr: type_index 999999 is not a registered type");
  xffi_object_dec_ref(fn);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fields_in_order_parents_first),
      cmocka_unit_test(test_methods_in_order_parents_first),
      cmocka_unit_test(test_metadata_lookup),
      cmocka_unit_test(test_attribute_lookup_by_type_and_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
