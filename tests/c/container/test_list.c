/* tests/c/container/test_list.c: List, the mutable shared sequence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include <xffi/array.h>
#include "failing_allocator.h"
#include <xffi/xffi.h>

static xffi_object *int_list(int64_t n) {
  xffi_object *list = NULL;
  assert_int_equal(xffi_list_new_with_capacity(&list, 0), XFFI_OK);
  for (int64_t i = 0; i < n; ++i) {
    xffi_any v = xffi_any_int(i);
    assert_int_equal(xffi_list_push(list, &v), XFFI_OK);
  }
  return list;
}

static int64_t int_at(const xffi_object *list, int64_t i) {
  xffi_any v = xffi_any_none();
  assert_int_equal(xffi_array_get(&v, list, i), XFFI_OK);
  assert_int_equal(v.type_index, XFFI_TYPE_INT);
  return v.v_int64;
}

static void changes_are_seen_by_every_holder(void **state) {
  (void)state;
  xffi_object *list = int_list(3);
  xffi_object *alias = list;
  xffi_object_inc_ref(alias);
  xffi_any v = xffi_any_int(10);
  assert_int_equal(xffi_list_push(list, &v), XFFI_OK);
  assert_int_equal(xffi_list_set(list, 0, &v), XFFI_OK);
  int64_t n = 0;
  assert_int_equal(xffi_array_length(&n, alias), XFFI_OK);
  assert_int_equal(n, 4);
  assert_int_equal(int_at(alias, 0), 10);
  assert_int_equal(int_at(alias, 3), 10);
  xffi_object_dec_ref(alias);
  xffi_object_dec_ref(list);
}

static void push_pop_insert_erase_clear(void **state) {
  (void)state;
  xffi_object *list = NULL;
  xffi_any init[2] = {xffi_any_c_str("a"), xffi_any_float(2.5)};
  assert_int_equal(xffi_list_new(&list, init, 2), XFFI_OK);
  assert_int_equal(list->type_index, XFFI_TYPE_LIST);
  xffi_any v = xffi_any_bool(1);
  assert_int_equal(xffi_list_insert(list, 1, &v), XFFI_OK); /* "a" true 2.5 */
  v = xffi_any_none();
  assert_int_equal(xffi_list_insert(list, 3, &v), XFFI_OK); /* "a" true 2.5 None */
  const xffi_any *items = NULL;
  int64_t n = 0;
  assert_int_equal(xffi_array_items(&items, &n, list), XFFI_OK);
  assert_int_equal(n, 4);
  assert_int_equal(items[0].type_index, XFFI_TYPE_SMALL_STR);
  assert_int_equal(items[1].type_index, XFFI_TYPE_BOOL);
  assert_true(items[2].v_float64 == 2.5);
  assert_int_equal(items[3].type_index, XFFI_TYPE_NONE);
  assert_int_equal(xffi_list_erase(list, 0), XFFI_OK); /* true 2.5 None */
  xffi_any out = xffi_any_none();
  assert_int_equal(xffi_list_pop(&out, list), XFFI_OK);
  assert_int_equal(out.type_index, XFFI_TYPE_NONE);
  assert_int_equal(xffi_list_pop(NULL, list), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(list), 1);
  assert_int_equal(xffi_seq_items_unchecked(list)[0].type_index, XFFI_TYPE_BOOL);
  assert_int_equal(xffi_list_clear(list), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(list), 0);
  xffi_object_dec_ref(list);
}

static void push_is_amortised_and_reserve_avoids_growth(void **state) {
  (void)state;
  xffi_object *list = int_list(0);
  uint64_t before = failing_allocator_attempts();
  for (int i = 0; i < 10000; ++i) {
    xffi_any v = xffi_any_int(i);
    assert_int_equal(xffi_list_push(list, &v), XFFI_OK);
  }
  /* Doubling: about log2(10000) reallocations, not 10000. */
  assert_true(failing_allocator_attempts() - before <= 16);
  for (int i = 0; i < 10000; i += 997) assert_int_equal(int_at(list, i), i);
  xffi_object_dec_ref(list);

  list = int_list(0);
  assert_int_equal(xffi_list_reserve(list, 500), XFFI_OK);
  assert_int_equal(xffi_seq_cell_of_unchecked(list)->capacity, 500);
  assert_int_equal(xffi_list_reserve(list, 10), XFFI_OK); /* never shrinks */
  assert_int_equal(xffi_seq_cell_of_unchecked(list)->capacity, 500);
  before = failing_allocator_attempts();
  for (int i = 0; i < 500; ++i) {
    xffi_any v = xffi_any_int(i);
    assert_int_equal(xffi_list_push(list, &v), XFFI_OK);
  }
  assert_int_equal(failing_allocator_attempts(), before);
  xffi_object_dec_ref(list);
}

static void slice_copies_and_converts(void **state) {
  (void)state;
  xffi_object *list = int_list(5);
  xffi_object *copy = NULL;
  assert_int_equal(xffi_list_slice(&copy, list, 0, 5), XFFI_OK);
  assert_int_equal(copy->type_index, XFFI_TYPE_LIST);
  xffi_any v = xffi_any_int(77);
  assert_int_equal(xffi_list_set(copy, 0, &v), XFFI_OK);
  assert_int_equal(int_at(list, 0), 0); /* the copy is independent */
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_slice(&array, list, 1, 3), XFFI_OK);
  assert_int_equal(array->type_index, XFFI_TYPE_ARRAY);
  assert_int_equal(xffi_seq_size_unchecked(array), 2);
  xffi_object *back = NULL;
  assert_int_equal(xffi_list_slice(&back, array, 0, 2), XFFI_OK);
  assert_int_equal(int_at(back, 1), 2);
  xffi_object_dec_ref(back);
  xffi_object_dec_ref(array);
  xffi_object_dec_ref(copy);
  xffi_object_dec_ref(list);
}

static void elements_are_released_exactly_once(void **state) {
  (void)state;
  counted_destroyed = 0;
  xffi_object *list = int_list(0);
  for (int i = 0; i < 6; ++i) {
    xffi_object *obj = counted_new();
    xffi_any v = xffi_any_object(obj);
    assert_int_equal(xffi_list_push(list, &v), XFFI_OK);
    xffi_object_dec_ref(obj);
  }
  xffi_any n = xffi_any_int(0);
  assert_int_equal(xffi_list_set(list, 0, &n), XFFI_OK); /* releases #0 */
  assert_int_equal(counted_destroyed, 1);
  assert_int_equal(xffi_list_erase(list, 1), XFFI_OK); /* #1 */
  assert_int_equal(counted_destroyed, 2);
  assert_int_equal(xffi_list_pop(NULL, list), XFFI_OK); /* #5 */
  assert_int_equal(counted_destroyed, 3);
  xffi_any kept = xffi_any_none();
  assert_int_equal(xffi_list_pop(&kept, list), XFFI_OK); /* #4 moves out */
  assert_int_equal(counted_destroyed, 3);
  xffi_any_release(&kept);
  assert_int_equal(counted_destroyed, 4);
  assert_int_equal(xffi_list_clear(list), XFFI_OK);
  assert_int_equal(counted_destroyed, 6);
  xffi_object_dec_ref(list);
  assert_int_equal(counted_destroyed, 6);
}

static void a_list_inside_an_array_stays_shared(void **state) {
  (void)state;
  xffi_object *list = int_list(1);
  xffi_any lv = xffi_any_object(list);
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new(&array, &lv, 1), XFFI_OK);
  xffi_any v = xffi_any_int(5);
  assert_int_equal(xffi_list_push(list, &v), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(xffi_seq_items_unchecked(array)[0].v_obj), 2);
  xffi_object_dec_ref(list);
  xffi_object_dec_ref(array);
}

static void out_of_memory_leaves_the_list_unchanged(void **state) {
  (void)state;
  xffi_object *list = int_list(4);
  xffi_any v = xffi_any_int(9);
  failing_allocator_fail_after(0);
  assert_int_equal(xffi_list_push(list, &v), XFFI_FAIL);
  assert_int_equal(xffi_list_insert(list, 0, &v), XFFI_FAIL);
  assert_int_equal(xffi_list_reserve(list, 100), XFFI_FAIL);
  failing_allocator_fail_after(-1);
  expect_error(XFFI_KIND_MEMORY, "out of memory");
  assert_int_equal(xffi_seq_size_unchecked(list), 4);
  for (int i = 0; i < 4; ++i) assert_int_equal(int_at(list, i), i);
  xffi_object *out = (xffi_object *)1;
  failing_allocator_fail_after(0);
  assert_int_equal(xffi_list_new(&out, &v, 1), XFFI_FAIL);
  assert_null(out);
  assert_int_equal(xffi_list_slice(&out, list, 0, 1), XFFI_FAIL);
  assert_null(out);
  assert_int_equal(xffi_list_new_with_capacity(&out, 3), XFFI_FAIL);
  assert_null(out);
  failing_allocator_fail_after(-1);
  expect_error(XFFI_KIND_MEMORY, "out of memory");
  assert_int_equal(xffi_list_reserve(list, INT64_MAX), XFFI_FAIL);
  expect_error(XFFI_KIND_MEMORY, "out of memory");
  xffi_object_dec_ref(list);
}

static void bad_input_is_reported(void **state) {
  (void)state;
  xffi_object *list = int_list(2);
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new(&array, NULL, 0), XFFI_OK);
  xffi_object *out = NULL;
  xffi_any v = xffi_any_int(1), got = xffi_any_none();
  xffi_any rvalue = xffi_any_object(list);
  rvalue.type_index = XFFI_TYPE_OBJECT_RVALUE;
  int64_t n = 0;
  const xffi_any *items = NULL;

  assert_int_equal(xffi_list_new(NULL, &v, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_new: out is NULL");
  assert_int_equal(xffi_list_new(&out, NULL, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_new: items is NULL but count is 1");
  assert_int_equal(xffi_list_new(&out, &v, -2), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_new: count is negative (-2)");
  assert_int_equal(xffi_list_new(&out, &rvalue, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE,
               "xffi_list_new: items[0] is an object rvalue reference (a move), which cannot be stored");
  assert_int_equal(xffi_list_new_with_capacity(NULL, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_new_with_capacity: out is NULL");
  assert_int_equal(xffi_list_new_with_capacity(&out, -1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_new_with_capacity: capacity is negative (-1)");

  assert_int_equal(xffi_array_length(NULL, list), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_length: out is NULL");
  assert_int_equal(xffi_array_length(&n, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_length: array is NULL");
  assert_int_equal(xffi_array_get(&got, list, 7), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_array_get: index 7 is out of range for length 2");
  assert_int_equal(xffi_array_get(NULL, list, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_get: out is NULL");
  assert_int_equal(xffi_array_items(&items, &n, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_items: array is NULL");
  assert_int_equal(xffi_list_slice(&out, list, 0, 9), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_list_slice: range [0, 9) is not within [0, 2]");
  assert_int_equal(xffi_list_slice(NULL, list, 0, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_slice: out is NULL");

  assert_int_equal(xffi_list_set(NULL, 0, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_set: list is NULL");
  assert_int_equal(xffi_list_set(array, 0, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_list_set: list expected ffi.List, got ffi.Array");
  assert_int_equal(xffi_list_set(list, 2, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_list_set: index 2 is out of range for length 2");
  assert_int_equal(xffi_list_set(list, 0, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_set: value is NULL");
  assert_int_equal(xffi_list_set(list, 0, &rvalue), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_list_set: value is an object rvalue reference (a move), which cannot be stored");

  assert_int_equal(xffi_list_push(NULL, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_push: list is NULL");
  assert_int_equal(xffi_list_push(array, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_list_push: list expected ffi.List, got ffi.Array");
  assert_int_equal(xffi_list_push(list, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_push: value is NULL");

  assert_int_equal(xffi_list_pop(&got, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_pop: list is NULL");
  assert_int_equal(xffi_list_pop(&got, array), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_list_pop: list expected ffi.List, got ffi.Array");
  xffi_object *empty = int_list(0);
  assert_int_equal(xffi_list_pop(&got, empty), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_list_pop: pop from an empty List");
  xffi_object_dec_ref(empty);

  assert_int_equal(xffi_list_insert(NULL, 0, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_insert: list is NULL");
  assert_int_equal(xffi_list_insert(list, 3, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_list_insert: index 3 is out of range for length 2");
  assert_int_equal(xffi_list_insert(list, 0, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_insert: value is NULL");

  assert_int_equal(xffi_list_erase(NULL, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_erase: list is NULL");
  assert_int_equal(xffi_list_erase(list, -5), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_list_erase: index -5 is out of range for length 2");
  assert_int_equal(xffi_list_erase(array, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_list_erase: list expected ffi.List, got ffi.Array");

  assert_int_equal(xffi_list_clear(NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_clear: list is NULL");
  assert_int_equal(xffi_list_clear(array), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_list_clear: list expected ffi.List, got ffi.Array");

  assert_int_equal(xffi_list_reserve(NULL, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_reserve: list is NULL");
  assert_int_equal(xffi_list_reserve(list, -1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_list_reserve: capacity is negative (-1)");
  assert_int_equal(xffi_list_reserve(array, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_list_reserve: list expected ffi.List, got ffi.Array");

  assert_int_equal(xffi_seq_size_unchecked(list), 2);
  assert_null(xffi_error_peek_raised());
  xffi_object_dec_ref(array);
  xffi_object_dec_ref(list);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(changes_are_seen_by_every_holder),
      cmocka_unit_test(push_pop_insert_erase_clear),
      cmocka_unit_test(push_is_amortised_and_reserve_avoids_growth),
      cmocka_unit_test(slice_copies_and_converts),
      cmocka_unit_test(elements_are_released_exactly_once),
      cmocka_unit_test(a_list_inside_an_array_stays_shared),
      cmocka_unit_test(out_of_memory_leaves_the_list_unchanged),
      cmocka_unit_test(bad_input_is_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
