/* tests/c/compat/test_globals_misc.c: ffi.String, ffi.Bytes, ffi.GetInvalidObject
 * and ffi.GetKwargsObject (c/globals_misc.c), called through their static
 * table entries, with good and bad input. */
#include "test_globals_util.h"

static void test_table_lists_the_misc_globals(void **state) {
  (void)state;
  static const char *const names[] = {"ffi.String", "ffi.Bytes", "ffi.GetInvalidObject", "ffi.GetKwargsObject"};
  assert_int_equal(xffi_globals_misc.count, 4);
  for (size_t i = 0; i < 4; ++i) {
    assert_string_equal(xffi_globals_misc.entries[i].name, names[i]);
    assert_int_equal(builtin(names[i])->type_index, XFFI_TYPE_FUNCTION);
  }
}

static void test_string_is_an_identity_conversion(void **state) {
  (void)state;
  xffi_any small = CALL_OK("ffi.String", xffi_any_c_str("abc"));
  assert_int_equal(small.type_index, XFFI_TYPE_SMALL_STR);
  assert_memory_equal(small.v_small, "abc", 3);
  xffi_any again = CALL_OK("ffi.String", small);
  assert_int_equal(again.type_index, XFFI_TYPE_SMALL_STR);
  assert_int_equal(again.small_len, 3);
  xffi_any heap = CALL_OK("ffi.String", xffi_any_c_str("more than seven bytes"));
  assert_int_equal(heap.type_index, XFFI_TYPE_STRING);
  xffi_any same = CALL_OK("ffi.String", heap);
  assert_ptr_equal(same.v_obj, heap.v_obj); /* the same object, a new reference */
  assert_int_equal(xffi_object_strong_count(heap.v_obj), 2);
  xffi_any_release(&same);
  xffi_any_release(&heap);
  xffi_any result = xffi_any_none();
  xffi_byte_array raw = {"ab", 2};
  assert_int_equal(CALL("ffi.String", &result, xffi_any_byte_array(&raw)), XFFI_FAIL);
  assert_raised("TypeError", "ffi.String: argument 0: expected str");
  assert_int_equal(CALL("ffi.String", &result, xffi_any_int(1)), XFFI_FAIL);
  assert_raised("TypeError", "ffi.String");
  assert_int_equal(call_builtin("ffi.String", NULL, 0, &result), XFFI_FAIL);
  expect_error("TypeError", "ffi.String: expected 1 argument, got 0");
}

static void test_bytes_is_an_identity_conversion(void **state) {
  (void)state;
  xffi_byte_array raw = {"a\0b", 3};
  xffi_any small = CALL_OK("ffi.Bytes", xffi_any_byte_array(&raw));
  assert_int_equal(small.type_index, XFFI_TYPE_SMALL_BYTES);
  assert_int_equal(small.small_len, 3);
  assert_memory_equal(small.v_small, "a\0b", 3);
  xffi_any again = CALL_OK("ffi.Bytes", small);
  assert_int_equal(again.type_index, XFFI_TYPE_SMALL_BYTES);
  xffi_byte_array long_raw = {"0123456789", 10};
  xffi_any heap = CALL_OK("ffi.Bytes", xffi_any_byte_array(&long_raw));
  assert_int_equal(heap.type_index, XFFI_TYPE_BYTES);
  xffi_any same = CALL_OK("ffi.Bytes", heap);
  assert_ptr_equal(same.v_obj, heap.v_obj);
  xffi_any_release(&same);
  xffi_any_release(&heap);
  xffi_any result = xffi_any_none();
  /* A string is not bytes (as tvm-ffi's Bytes conversion). */
  assert_int_equal(CALL("ffi.Bytes", &result, xffi_any_c_str("ab")), XFFI_FAIL);
  expect_error("TypeError", "ffi.Bytes: argument 0: expected bytes, got str");
  xffi_byte_array broken = {NULL, 4};
  assert_int_equal(CALL("ffi.Bytes", &result, xffi_any_byte_array(&broken)), XFFI_FAIL);
  assert_raised("ValueError", "malformed");
}

static void test_sentinels_are_static_distinct_objects(void **state) {
  (void)state;
  xffi_any missing = call_builtin_ok("ffi.GetInvalidObject", NULL, 0);
  xffi_any missing_again = call_builtin_ok("ffi.GetInvalidObject", NULL, 0);
  xffi_any kwargs = call_builtin_ok("ffi.GetKwargsObject", NULL, 0);
  assert_int_equal(missing.type_index, XFFI_TYPE_OBJECT);
  assert_int_equal(kwargs.type_index, XFFI_TYPE_OBJECT);
  assert_ptr_equal(missing.v_obj, missing_again.v_obj);
  assert_ptr_not_equal(missing.v_obj, kwargs.v_obj);
  uint64_t counts = missing.v_obj->ref_counts;
  xffi_any_release(&missing_again);
  assert_true(missing.v_obj->ref_counts != counts); /* the reference was real */
  xffi_any_release(&missing);
  xffi_any_release(&kwargs);
  xffi_any result = xffi_any_none();
  assert_int_equal(CALL("ffi.GetKwargsObject", &result, xffi_any_int(1)), XFFI_FAIL);
  expect_error("TypeError", "ffi.GetKwargsObject: expected 0 arguments, got 1");
  xffi_function_head *f = builtin_entry("ffi.GetInvalidObject")->function;
  assert_int_not_equal(f->cell.safe_call(f, NULL, 0, NULL), 0);
  assert_raised("ValueError", "ffi.GetInvalidObject: result is NULL");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_lists_the_misc_globals),
      cmocka_unit_test(test_string_is_an_identity_conversion),
      cmocka_unit_test(test_bytes_is_an_identity_conversion),
      cmocka_unit_test(test_sentinels_are_static_distinct_objects),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
