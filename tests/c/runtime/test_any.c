/* Any: constructors, owned copies of views, strings, checked accessors. */
#include "failing_allocator.h"

#include "test_util.h"

static void test_constructors_set_kind_and_value(void **state) {
  (void)state;
  xffi_any v = xffi_any_int(-42);
  assert_int_equal(v.type_index, XFFI_TYPE_INT);
  assert_int_equal(v.v_int64, -42);
  assert_int_equal(v.small_len, 0);
  assert_int_equal(xffi_any_bool(7).v_int64, 1);
  assert_true(xffi_any_float(2.5).v_float64 == 2.5);
  assert_int_equal(xffi_any_ptr(NULL).type_index, XFFI_TYPE_NONE);
  assert_int_equal(xffi_any_c_str(NULL).type_index, XFFI_TYPE_NONE);
  assert_int_equal(xffi_any_object(NULL).type_index, XFFI_TYPE_NONE);
  DLDevice dev = {kDLCUDA, 3};
  assert_int_equal(xffi_any_device(dev).v_device.device_id, 3);
  DLDataType dt = {kDLFloat, 32, 1};
  assert_int_equal(xffi_any_dtype(dt).v_dtype.bits, 32);
}

static void test_short_strings_are_inline_and_allocate_nothing(void **state) {
  (void)state;
  uint64_t before = failing_allocator_attempts();
  xffi_any v;
  assert_int_equal(xffi_any_from_str(&v, "hello", 5), XFFI_OK);
  assert_int_equal(failing_allocator_attempts(), before);
  assert_int_equal(v.type_index, XFFI_TYPE_SMALL_STR);
  assert_int_equal(v.small_len, 5);
  assert_string_equal(v.v_small, "hello");
  assert_int_equal(xffi_any_from_str(&v, "1234567", 7), XFFI_OK);
  assert_int_equal(v.type_index, XFFI_TYPE_SMALL_STR);
  assert_int_equal(xffi_any_from_bytes(&v, "\0\1\2", 3), XFFI_OK);
  assert_int_equal(v.type_index, XFFI_TYPE_SMALL_BYTES);
  assert_int_equal(failing_allocator_attempts(), before);
  assert_int_equal(xffi_any_from_str(&v, "", 0), XFFI_OK);
  assert_int_equal(v.small_len, 0);
}

static void test_long_strings_become_objects(void **state) {
  (void)state;
  xffi_any v;
  assert_int_equal(xffi_any_from_str(&v, "12345678", 8), XFFI_OK);
  assert_int_equal(v.type_index, XFFI_TYPE_STRING);
  xffi_byte_array text;
  assert_int_equal(xffi_any_to_str(&text, &v), XFFI_OK);
  assert_int_equal(text.size, 8);
  assert_memory_equal(text.data, "12345678", 8);
  xffi_any_release(&v);
  assert_int_equal(v.type_index, XFFI_TYPE_NONE);
  assert_int_equal(xffi_any_from_bytes(&v, "abcdefghij", 10), XFFI_OK);
  assert_int_equal(v.type_index, XFFI_TYPE_BYTES);
  assert_int_equal(xffi_any_to_str(&text, &v), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_any_to_str: expected str, got ffi.Bytes");
  xffi_any_release(&v);
}

static void test_copy_of_a_view_owns_its_contents(void **state) {
  (void)state;
  char buffer[] = "a borrowed C string";
  xffi_any view = xffi_any_c_str(buffer), owned;
  assert_int_equal(xffi_any_copy(&owned, &view), XFFI_OK);
  assert_int_equal(owned.type_index, XFFI_TYPE_STRING);
  buffer[0] = 'X'; /* the copy does not see later changes */
  xffi_byte_array text;
  assert_int_equal(xffi_any_to_str(&text, &owned), XFFI_OK);
  assert_string_equal(text.data, "a borrowed C string");

  /* Copying an owned object value takes a reference. */
  xffi_any second;
  assert_int_equal(xffi_any_copy(&second, &owned), XFFI_OK);
  assert_ptr_equal(second.v_obj, owned.v_obj);
  assert_int_equal(xffi_object_strong_count(owned.v_obj), 2);
  xffi_any_release(&second);
  assert_int_equal(xffi_object_strong_count(owned.v_obj), 1);

  xffi_any moved = xffi_any_none();
  xffi_any_move(&moved, &owned);
  assert_int_equal(owned.type_index, XFFI_TYPE_NONE);
  assert_int_equal(moved.type_index, XFFI_TYPE_STRING);
  xffi_any_release(&moved);

  xffi_byte_array bytes = {"\0xy", 3};
  view = xffi_any_byte_array(&bytes);
  assert_int_equal(xffi_any_copy(&owned, &view), XFFI_OK);
  assert_int_equal(owned.type_index, XFFI_TYPE_SMALL_BYTES);
  assert_memory_equal(owned.v_small, "\0xy", 3);

  view = xffi_any_int(5);
  assert_int_equal(xffi_any_copy(&owned, &view), XFFI_OK);
  assert_int_equal(owned.v_int64, 5);
}

static void test_conversion_rules(void **state) {
  (void)state;
  int64_t i;
  int b;
  double f;
  void *p = &i;
  xffi_any t = xffi_any_bool(1), n = xffi_any_int(0), x = xffi_any_float(1.5), none = xffi_any_none();
  assert_int_equal(xffi_any_to_int(&i, &t), XFFI_OK); /* bool -> int */
  assert_int_equal(i, 1);
  xffi_any three = xffi_any_int(3);
  assert_int_equal(xffi_any_to_bool(&b, &three), XFFI_OK); /* int -> bool */
  assert_int_equal(b, 1);
  assert_int_equal(xffi_any_to_bool(&b, &n), XFFI_OK);
  assert_int_equal(b, 0);
  assert_int_equal(xffi_any_to_float(&f, &three), XFFI_OK); /* int -> float */
  assert_true(f == 3.0);
  assert_int_equal(xffi_any_to_float(&f, &x), XFFI_OK);
  assert_true(f == 1.5);
  assert_int_equal(xffi_any_to_int(&i, &x), XFFI_FAIL); /* no silent truncation */
  assert_raised(XFFI_KIND_TYPE, "xffi_any_to_int: expected int, got float");
  assert_int_equal(xffi_any_to_ptr(&p, &none), XFFI_OK); /* None -> NULL */
  assert_null(p);
  DLDataType dt;
  assert_int_equal(xffi_any_to_dtype(&dt, &three), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_any_to_dtype: expected dtype, got int");
  DLDevice dev;
  assert_int_equal(xffi_any_to_device(&dev, &none), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_any_to_device: expected device, got None");
  xffi_byte_array text;
  xffi_any cs = xffi_any_c_str("hi");
  assert_int_equal(xffi_any_to_bytes(&text, &cs), XFFI_OK); /* a string is bytes */
  assert_int_equal(text.size, 2);
}

static void test_accessor_reports_expected_and_got(void **state) {
  (void)state;
  xffi_object *s = NULL;
  assert_int_equal(xffi_string_from_c_str(&s, "not a number"), XFFI_OK);
  xffi_any v = xffi_any_object(s);
  int64_t out = 99;
  assert_int_equal(xffi_any_to_int(&out, &v), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_any_to_int: expected int, got ffi.String");
  assert_int_equal(out, 99);
  xffi_object *obj = NULL;
  assert_int_equal(xffi_any_to_object(&obj, &v, XFFI_TYPE_OBJECT), XFFI_OK);
  assert_ptr_equal(obj, s);
  assert_int_equal(xffi_any_to_object(&obj, &v, XFFI_TYPE_ERROR), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_any_to_object: expected ffi.Error, got ffi.String");
  xffi_any i = xffi_any_int(1);
  assert_int_equal(xffi_any_to_object(&obj, &i, XFFI_TYPE_STRING), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "expected ffi.String, got int");
  xffi_any none = xffi_any_none();
  assert_int_equal(xffi_any_to_object(&obj, &none, XFFI_TYPE_STRING), XFFI_OK);
  assert_null(obj);
  assert_int_equal(xffi_any_to_object(&obj, &v, XFFI_TYPE_INT), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "type_index 1 is not a registered object type");
  assert_string_equal(xffi_any_kind_name(&v), "ffi.String");
  assert_string_equal(xffi_any_kind_name(NULL), "NULL");
  xffi_object_dec_ref(s);
}

static void test_null_arguments_are_value_errors(void **state) {
  (void)state;
  xffi_any v = xffi_any_int(1);
  int64_t i;
  int b;
  double f;
  void *p;
  DLDataType dt;
  DLDevice dev;
  xffi_byte_array text;
  xffi_object *obj;
  assert_int_equal(xffi_any_to_int(NULL, &v), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_to_int: out is NULL");
  assert_int_equal(xffi_any_to_int(&i, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_to_int: v is NULL");
  assert_int_equal(xffi_any_to_bool(&b, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_to_bool: v is NULL");
  assert_int_equal(xffi_any_to_float(&f, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_to_float: v is NULL");
  assert_int_equal(xffi_any_to_ptr(&p, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_to_ptr: v is NULL");
  assert_int_equal(xffi_any_to_dtype(&dt, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_to_dtype: v is NULL");
  assert_int_equal(xffi_any_to_device(&dev, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_to_device: v is NULL");
  assert_int_equal(xffi_any_to_str(&text, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_to_str: v is NULL");
  assert_int_equal(xffi_any_to_bytes(NULL, &v), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_to_bytes: out is NULL");
  assert_int_equal(xffi_any_to_object(&obj, NULL, XFFI_TYPE_OBJECT), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_to_object: v is NULL");
  assert_int_equal(xffi_any_copy(NULL, &v), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_copy: out is NULL");
  assert_int_equal(xffi_any_copy(&v, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_copy: view is NULL");
  assert_int_equal(xffi_any_from_str(NULL, "x", 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_from_str: out is NULL");
  assert_int_equal(xffi_any_from_str(&v, NULL, 3), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_from_str: data is NULL but size is 3");
  assert_int_equal(xffi_any_from_bytes(&v, NULL, 30), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_any_from_bytes: data is NULL but size is 30");
  xffi_any rvalue = xffi_any_none();
  rvalue.type_index = XFFI_TYPE_OBJECT_RVALUE;
  assert_int_equal(xffi_any_copy(&v, &rvalue), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "cannot copy an object rvalue reference");
  xffi_any_release(NULL);
}

static void test_out_of_memory_leaves_out_untouched(void **state) {
  (void)state;
  xffi_any v = xffi_any_int(17);
  failing_allocator_fail_after(0);
  assert_int_equal(xffi_any_from_str(&v, "long enough to allocate", 23), XFFI_FAIL);
  failing_allocator_fail_after(-1);
  assert_raised(XFFI_KIND_MEMORY, "out of memory");
  assert_int_equal(v.type_index, XFFI_TYPE_INT);
  assert_int_equal(v.v_int64, 17);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_constructors_set_kind_and_value),
      cmocka_unit_test(test_short_strings_are_inline_and_allocate_nothing),
      cmocka_unit_test(test_long_strings_become_objects),
      cmocka_unit_test(test_copy_of_a_view_owns_its_contents),
      cmocka_unit_test(test_conversion_rules),
      cmocka_unit_test(test_accessor_reports_expected_and_got),
      cmocka_unit_test(test_null_arguments_are_value_errors),
      cmocka_unit_test(test_out_of_memory_leaves_out_untouched),
  };
  return cmocka_run_group_tests_name("any", tests, NULL, NULL);
}
