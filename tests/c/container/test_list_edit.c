/* tests/c/container/test_list_edit.c: the List range edits of c/list_edit.c (erase a
 * range, replace a slice, reverse): results, bad input, and out of memory
 * (replace leaves the List as it was; erase still erases). */
#include "test_util.h"

#include "failing_allocator.h"
#include "lib/container/list_edit.h"

static xffi_object *int_list(int64_t n) {
  xffi_object *list = NULL;
  assert_int_equal(xffi_list_new(&list, NULL, 0), XFFI_OK);
  for (int64_t i = 0; i < n; ++i) {
    xffi_any v = xffi_any_int(i);
    assert_int_equal(xffi_list_push(list, &v), XFFI_OK);
  }
  return list;
}

static int64_t at(const xffi_object *list, int64_t i) { return xffi_seq_items_unchecked(list)[i].v_int64; }

static void test_erase_range(void **state) {
  (void)state;
  xffi_object *list = int_list(100);
  assert_int_equal(xffi_list_erase_range(list, 10, 60), XFFI_OK); /* past the stack buffer */
  assert_int_equal(xffi_seq_size_unchecked(list), 50);
  assert_int_equal(at(list, 9), 9);
  assert_int_equal(at(list, 10), 60);
  assert_int_equal(xffi_list_erase_range(list, 0, 2), XFFI_OK);
  assert_int_equal(at(list, 0), 2);
  assert_int_equal(xffi_list_erase_range(list, 48, 48), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(list), 48);
  xffi_object_dec_ref(list);
}

static void test_erase_range_without_memory_still_erases(void **state) {
  (void)state;
  xffi_object *inner = NULL;
  assert_int_equal(xffi_array_new(&inner, NULL, 0), XFFI_OK);
  xffi_object *list = int_list(0);
  xffi_any v = xffi_any_object(inner);
  for (int i = 0; i < 80; ++i) assert_int_equal(xffi_list_push(list, &v), XFFI_OK);
  failing_allocator_fail_after(0);
  assert_int_equal(xffi_list_erase_range(list, 5, 75), XFFI_OK);
  failing_allocator_fail_after(-1);
  assert_int_equal(xffi_seq_size_unchecked(list), 10);
  assert_int_equal(xffi_object_strong_count(inner), 11);
  xffi_object_dec_ref(list);
  xffi_object_dec_ref(inner);
}

static void test_replace_slice_and_reverse(void **state) {
  (void)state;
  xffi_object *list = int_list(4);
  xffi_any items[3] = {xffi_any_int(7), xffi_any_c_str("a string longer than seven"), xffi_any_int(9)};
  assert_int_equal(xffi_list_replace_slice(list, 1, 3, items, 3), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(list), 5);
  assert_int_equal(at(list, 1), 7);
  assert_int_equal(xffi_seq_items_unchecked(list)[2].type_index, XFFI_TYPE_STRING);
  assert_int_equal(at(list, 4), 3);
  /* items inside the List itself, with growth that moves its buffer. */
  int64_t n = xffi_seq_size_unchecked(list);
  assert_int_equal(xffi_list_replace_slice(list, n, n, xffi_seq_items_unchecked(list), n), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(list), 10);
  assert_int_equal(at(list, 6), 7);
  assert_int_equal(xffi_list_reverse(list), XFFI_OK);
  assert_int_equal(at(list, 0), 3);
  assert_int_equal(at(list, 9), 0);
  assert_int_equal(xffi_list_replace_slice(list, 0, 10, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(list), 0);
  xffi_object_dec_ref(list);
}

static void test_replace_slice_out_of_memory_changes_nothing(void **state) {
  (void)state;
  xffi_object *list = int_list(4);
  xffi_any items[6];
  for (int i = 0; i < 6; ++i) items[i] = xffi_any_c_str("each of these needs a String");
  int64_t live = failing_allocator_live();
  /* The buffer, each String copy, then the List's growth: fail each in turn. */
  for (int64_t n = 0; n < 8; ++n) {
    failing_allocator_fail_after(n);
    assert_int_equal(xffi_list_replace_slice(list, 1, 2, items, 6), XFFI_FAIL);
    failing_allocator_fail_after(-1);
    assert_raised(XFFI_KIND_MEMORY, "out of memory");
    assert_int_equal(xffi_seq_size_unchecked(list), 4);
    for (int64_t i = 0; i < 4; ++i) assert_int_equal(at(list, i), i);
    assert_int_equal(failing_allocator_live(), live);
  }
  assert_int_equal(xffi_list_replace_slice(list, 1, 2, items, 6), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(list), 9);
  xffi_object_dec_ref(list);
}

static void test_bad_input(void **state) {
  (void)state;
  xffi_object *list = int_list(3);
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new(&array, NULL, 0), XFFI_OK);
  xffi_any one = xffi_any_int(1);
  assert_int_equal(xffi_list_erase_range(NULL, 0, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_erase_range: list is NULL");
  assert_int_equal(xffi_list_erase_range(array, 0, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_list_erase_range: list expected ffi.List");
  assert_int_equal(xffi_list_erase_range(list, 2, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_list_erase_range: range [2, 1) out of bounds for a List of size 3");
  assert_int_equal(xffi_list_erase_range(list, 0, 4), XFFI_FAIL);
  assert_raised(XFFI_KIND_INDEX, "range [0, 4)");
  assert_int_equal(xffi_list_replace_slice(list, 0, 1, NULL, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "items is NULL but count is 1");
  assert_int_equal(xffi_list_replace_slice(list, 0, 1, &one, -1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "count is negative");
  assert_int_equal(xffi_list_replace_slice(list, -1, 1, &one, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_INDEX, "range [-1, 1)");
  xffi_any bad = xffi_any_c_str("x");
  bad.v_c_str = NULL;
  assert_int_equal(xffi_list_replace_slice(list, 0, 1, &bad, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "malformed");
  xffi_any rvalue = xffi_any_object(array);
  rvalue.type_index = XFFI_TYPE_OBJECT_RVALUE;
  assert_int_equal(xffi_list_replace_slice(list, 0, 1, &rvalue, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "");
  assert_int_equal(xffi_list_reverse(array), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_list_reverse");
  assert_int_equal(xffi_list_reverse(NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "is NULL");
  assert_int_equal(xffi_seq_size_unchecked(list), 3);
  assert_int_equal(at(list, 0), 0);
  xffi_object_dec_ref(array);
  xffi_object_dec_ref(list);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_erase_range),
      cmocka_unit_test(test_erase_range_without_memory_still_erases),
      cmocka_unit_test(test_replace_slice_and_reverse),
      cmocka_unit_test(test_replace_slice_out_of_memory_changes_nothing),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
