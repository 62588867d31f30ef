/* tests/c/container/test_array.c: Array, the immutable copy-on-write sequence. */
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

/* ---- Helpers ---- */

static xffi_object *int_array(int64_t n) {
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new_with_capacity(&array, 0), XFFI_OK);
  for (int64_t i = 0; i < n; ++i) {
    xffi_any v = xffi_any_int(i);
    assert_int_equal(xffi_array_push(&array, &v), XFFI_OK);
  }
  return array;
}

static int64_t int_at(const xffi_object *array, int64_t i) {
  xffi_any v = xffi_any_none();
  assert_int_equal(xffi_array_get(&v, array, i), XFFI_OK);
  assert_int_equal(v.type_index, XFFI_TYPE_INT);
  return v.v_int64;
}

/* ---- Behaviour ---- */

static void new_copies_views_into_owned_elements(void **state) {
  (void)state;
  xffi_object *obj = counted_new();
  xffi_any items[4] = {xffi_any_int(7), xffi_any_c_str("hi"), xffi_any_c_str("a longer string"), xffi_any_object(obj)};
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new(&array, items, 4), XFFI_OK);
  assert_int_equal(array->type_index, XFFI_TYPE_ARRAY);
  assert_int_equal(xffi_object_strong_count(obj), 2);
  int64_t n = 0;
  assert_int_equal(xffi_array_length(&n, array), XFFI_OK);
  assert_int_equal(n, 4);
  const xffi_any *elems = xffi_seq_items_unchecked(array);
  assert_int_equal(elems[0].v_int64, 7);
  assert_int_equal(elems[1].type_index, XFFI_TYPE_SMALL_STR);
  assert_string_equal(elems[1].v_small, "hi");
  assert_int_equal(elems[2].type_index, XFFI_TYPE_STRING);
  assert_string_equal(xffi_string_cell_of_unchecked(elems[2].v_obj).data, "a longer string");
  assert_ptr_equal(elems[3].v_obj, obj);
  /* A single allocation: the elements live inline. */
  assert_null(xffi_seq_cell_of_unchecked(array)->data_deleter);
  assert_ptr_equal(xffi_seq_cell_of_unchecked(array)->data,
                   (char *)array + sizeof(xffi_object) + sizeof(xffi_seq_cell));
  xffi_any got = xffi_any_none();
  assert_int_equal(xffi_array_get(&got, array, 3), XFFI_OK);
  assert_ptr_equal(got.v_obj, obj);
  assert_int_equal(xffi_object_strong_count(obj), 3);
  xffi_any_release(&got);
  counted_destroyed = 0;
  xffi_object_dec_ref(obj);
  xffi_object_dec_ref(array);
  assert_int_equal(counted_destroyed, 1);
}

static void empty_array_from_null_items(void **state) {
  (void)state;
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new(&array, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(array), 0);
  xffi_object_dec_ref(array);
}

static void push_on_unique_array_changes_it_in_place(void **state) {
  (void)state;
  xffi_object *array = int_array(0);
  xffi_object *before = array;
  xffi_any v = xffi_any_int(1);
  assert_int_equal(xffi_array_push(&array, &v), XFFI_OK);
  assert_ptr_equal(array, before);
  /* Grows amortised: 1000 pushes, contents intact. */
  for (int i = 2; i <= 1000; ++i) {
    v = xffi_any_int(i);
    assert_int_equal(xffi_array_push(&array, &v), XFFI_OK);
  }
  assert_int_equal(xffi_seq_size_unchecked(array), 1000);
  assert_true(xffi_seq_cell_of_unchecked(array)->capacity >= 1000);
  assert_true(xffi_seq_cell_of_unchecked(array)->capacity <= 2048);
  for (int i = 0; i < 1000; ++i) assert_int_equal(int_at(array, i), i + 1);
  xffi_object_dec_ref(array);
}

static void push_on_shared_array_copies_and_leaves_other_holders_unchanged(void **state) {
  (void)state;
  xffi_object *array = int_array(3);
  xffi_object *other = array;
  xffi_object_inc_ref(other);
  xffi_any v = xffi_any_int(99);
  assert_int_equal(xffi_array_push(&array, &v), XFFI_OK);
  assert_ptr_not_equal(array, other);
  assert_int_equal(xffi_seq_size_unchecked(array), 4);
  assert_int_equal(xffi_seq_size_unchecked(other), 3);
  assert_int_equal(int_at(array, 3), 99);
  /* The caller's reference to the old array was released. */
  assert_int_equal(xffi_object_strong_count(other), 1);
  assert_int_equal(xffi_object_strong_count(array), 1);
  xffi_object_dec_ref(other);
  xffi_object_dec_ref(array);
}

static void weak_reference_forces_a_copy(void **state) {
  (void)state;
  xffi_object *array = int_array(2);
  xffi_weak *weak = NULL;
  assert_int_equal(xffi_weak_new(&weak, array), XFFI_OK);
  xffi_object *before = array;
  xffi_any v = xffi_any_int(5);
  assert_int_equal(xffi_array_set(&array, 0, &v), XFFI_OK);
  assert_ptr_not_equal(array, before);
  assert_int_equal(int_at(array, 0), 5);
  /* The old array died with the caller's reference. */
  xffi_object *locked = (xffi_object *)1;
  assert_int_equal(xffi_weak_lock(&locked, weak), XFFI_OK);
  assert_null(locked);
  xffi_weak_release(weak);
  xffi_object_dec_ref(array);
}

/* reserve is Array's as well as List's: room for pushes, copy-on-write. */
static void reserve_makes_room_and_copies_a_shared_array(void **state) {
  (void)state;
  xffi_object *array = int_array(3);
  xffi_object *before = array;
  /* Unique: in place, exactly the room asked for, pushes up to it allocate nothing. */
  assert_int_equal(xffi_array_reserve(&array, 100), XFFI_OK);
  assert_ptr_equal(array, before);
  assert_int_equal(xffi_seq_cell_of_unchecked(array)->capacity, 100);
  uint64_t allocations = failing_allocator_attempts();
  for (int64_t i = 3; i < 100; ++i) {
    xffi_any v = xffi_any_int(i);
    assert_int_equal(xffi_array_push(&array, &v), XFFI_OK);
  }
  assert_int_equal(failing_allocator_attempts(), allocations);
  assert_ptr_equal(array, before);
  /* Less than the capacity: nothing to do. */
  assert_int_equal(xffi_array_reserve(&array, 10), XFFI_OK);
  assert_int_equal(xffi_seq_cell_of_unchecked(array)->capacity, 100);
  /* Shared: the caller gets an unshared copy with the room; the other holder
   * keeps the old array, unchanged. */
  xffi_object *other = array;
  xffi_object_inc_ref(other);
  assert_int_equal(xffi_array_reserve(&array, 500), XFFI_OK);
  assert_ptr_not_equal(array, other);
  assert_true(xffi_seq_cell_of_unchecked(array)->capacity >= 500);
  assert_int_equal(xffi_seq_size_unchecked(array), 100);
  assert_int_equal(xffi_seq_cell_of_unchecked(other)->capacity, 100);
  assert_int_equal(xffi_object_strong_count(other), 1);
  for (int64_t i = 0; i < 100; ++i) assert_int_equal(int_at(array, i), i);
  /* Out of memory: the caller's array is left as it was. */
  xffi_object *third = array;
  xffi_object_inc_ref(third);
  failing_allocator_fail_after(0);
  assert_int_equal(xffi_array_reserve(&array, 1000), XFFI_FAIL);
  failing_allocator_fail_after(-1);
  expect_error(XFFI_KIND_MEMORY, "out of memory");
  assert_ptr_equal(array, third);
  assert_int_equal(xffi_object_strong_count(array), 2);
  xffi_object_dec_ref(third);
  /* Bad input. */
  assert_int_equal(xffi_array_reserve(&array, -1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_reserve: capacity is negative (-1)");
  assert_int_equal(xffi_array_reserve(NULL, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_reserve: array is NULL");
  xffi_object *list = NULL;
  assert_int_equal(xffi_list_new(&list, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_array_reserve(&list, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_array_reserve: *array expected ffi.Array, got ffi.List");
  xffi_object_dec_ref(list);
  xffi_object_dec_ref(other);
  xffi_object_dec_ref(array);
}

static void set_insert_erase_pop_clear(void **state) {
  (void)state;
  xffi_object *array = int_array(5); /* 0 1 2 3 4 */
  xffi_any v = xffi_any_int(42);
  assert_int_equal(xffi_array_set(&array, 2, &v), XFFI_OK); /* 0 1 42 3 4 */
  v = xffi_any_int(-1);
  assert_int_equal(xffi_array_insert(&array, 0, &v), XFFI_OK); /* -1 0 1 42 3 4 */
  v = xffi_any_int(100);
  assert_int_equal(xffi_array_insert(&array, 6, &v), XFFI_OK); /* ... 4 100 */
  assert_int_equal(xffi_array_erase(&array, 1), XFFI_OK);      /* -1 1 42 3 4 100 */
  int64_t expect[] = {-1, 1, 42, 3, 4, 100};
  assert_int_equal(xffi_seq_size_unchecked(array), 6);
  for (int i = 0; i < 6; ++i) assert_int_equal(int_at(array, i), expect[i]);
  xffi_any popped = xffi_any_none();
  assert_int_equal(xffi_array_pop(&popped, &array), XFFI_OK);
  assert_int_equal(popped.v_int64, 100);
  assert_int_equal(xffi_array_pop(NULL, &array), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(array), 4);
  xffi_object *before = array;
  assert_int_equal(xffi_array_clear(&array), XFFI_OK);
  assert_ptr_equal(array, before);
  assert_int_equal(xffi_seq_size_unchecked(array), 0);
  xffi_object_dec_ref(array);
}

static void every_change_on_a_shared_array_copies(void **state) {
  (void)state;
  xffi_object *orig = int_array(4);
  xffi_any v = xffi_any_int(9);
  struct {
    int op;
  } ops[] = {{0}, {1}, {2}, {3}, {4}};
  for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); ++k) {
    xffi_object *a = orig;
    xffi_object_inc_ref(a);
    int rc = XFFI_FAIL;
    switch (ops[k].op) {
      case 0: rc = xffi_array_set(&a, 1, &v); break;
      case 1: rc = xffi_array_insert(&a, 1, &v); break;
      case 2: rc = xffi_array_erase(&a, 1); break;
      case 3: rc = xffi_array_pop(NULL, &a); break;
      case 4: rc = xffi_array_clear(&a); break;
    }
    assert_int_equal(rc, XFFI_OK);
    assert_ptr_not_equal(a, orig);
    assert_int_equal(xffi_object_strong_count(orig), 1);
    xffi_object_dec_ref(a);
  }
  assert_int_equal(xffi_seq_size_unchecked(orig), 4);
  for (int i = 0; i < 4; ++i) assert_int_equal(int_at(orig, i), i);
  xffi_object_dec_ref(orig);
}

static void pushing_an_array_into_itself_nests_a_snapshot(void **state) {
  (void)state;
  xffi_object *array = int_array(1);
  xffi_object *before = array;
  xffi_any self = xffi_any_object(array);
  assert_int_equal(xffi_array_push(&array, &self), XFFI_OK);
  /* The element holds the old array, so the push had to copy: no cycle. */
  assert_ptr_not_equal(array, before);
  assert_ptr_equal(xffi_seq_items_unchecked(array)[1].v_obj, before);
  assert_int_equal(xffi_seq_size_unchecked(before), 1);
  xffi_object_dec_ref(array); /* frees both (LeakSanitizer checks) */
}

static void slice_shares_elements(void **state) {
  (void)state;
  xffi_object *array = int_array(6);
  xffi_object *s = NULL;
  assert_int_equal(xffi_array_slice(&s, array, 2, 5), XFFI_OK);
  assert_int_equal(s->type_index, XFFI_TYPE_ARRAY);
  assert_int_equal(xffi_seq_size_unchecked(s), 3);
  for (int i = 0; i < 3; ++i) assert_int_equal(int_at(s, i), i + 2);
  xffi_object_dec_ref(s);
  assert_int_equal(xffi_array_slice(&s, array, 6, 6), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(s), 0);
  xffi_object_dec_ref(s);
  const xffi_any *items = NULL;
  int64_t n = -1;
  assert_int_equal(xffi_array_items(&items, &n, array), XFFI_OK);
  assert_int_equal(n, 6);
  assert_ptr_equal(items, xffi_seq_items_unchecked(array));
  xffi_object_dec_ref(array);
}

static void nested_arrays_free_every_object_exactly_once(void **state) {
  (void)state;
  counted_destroyed = 0;
  xffi_object *outer = int_array(0);
  for (int i = 0; i < 10; ++i) {
    xffi_object *inner = int_array(0);
    for (int j = 0; j < 10; ++j) {
      xffi_object *obj = counted_new();
      xffi_any v = xffi_any_object(obj);
      assert_int_equal(xffi_array_push(&inner, &v), XFFI_OK);
      xffi_object_dec_ref(obj);
    }
    xffi_any v = xffi_any_object(inner);
    assert_int_equal(xffi_array_push(&outer, &v), XFFI_OK);
    xffi_object_dec_ref(inner);
  }
  /* A shared copy and a changed version share the inner arrays. */
  xffi_object *copy = outer;
  xffi_object_inc_ref(copy);
  assert_int_equal(xffi_array_erase(&copy, 0), XFFI_OK);
  assert_int_equal(counted_destroyed, 0);
  xffi_object_dec_ref(outer);
  assert_int_equal(counted_destroyed, 10); /* the inner array only outer held */
  xffi_object_dec_ref(copy);
  assert_int_equal(counted_destroyed, 100);
}

static int foreign_freed;
static void foreign_free(void *data) {
  foreign_freed++;
  free(data);
}

static void foreign_storage_is_returned_to_its_deleter(void **state) {
  (void)state;
  /* An Array whose storage another runtime made (its own data_deleter). */
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new_with_capacity(&array, 0), XFFI_OK);
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(array);
  xffi_any *data = malloc(2 * sizeof(xffi_any));
  assert_non_null(data);
  data[0] = xffi_any_int(1);
  data[1] = xffi_any_int(2);
  cell->data = data;
  cell->size = 2;
  cell->capacity = 2;
  cell->data_deleter = foreign_free;
  foreign_freed = 0;
  xffi_any v = xffi_any_int(3);
  assert_int_equal(xffi_array_push(&array, &v), XFFI_OK);
  assert_int_equal(foreign_freed, 1);
  assert_ptr_not_equal(cell->data, data);
  assert_int_equal(int_at(array, 0), 1);
  assert_int_equal(int_at(array, 1), 2);
  assert_int_equal(int_at(array, 2), 3);
  xffi_object_dec_ref(array);
  assert_int_equal(foreign_freed, 1);
}

/* ---- Out of memory ---- */

static void out_of_memory_leaves_the_array_unchanged(void **state) {
  (void)state;
  xffi_object *array = int_array(4); /* capacity 4: the next push grows */
  assert_int_equal(xffi_seq_cell_of_unchecked(array)->capacity, 4);
  xffi_object *before = array;
  xffi_any v = xffi_any_c_str("a string that needs an allocation");
  failing_allocator_fail_after(0); /* the copy of the string fails */
  assert_int_equal(xffi_array_push(&array, &v), XFFI_FAIL);
  failing_allocator_fail_after(-1);
  expect_error(XFFI_KIND_MEMORY, "out of memory");
  failing_allocator_fail_after(1); /* the string succeeds, the growth fails */
  assert_int_equal(xffi_array_push(&array, &v), XFFI_FAIL);
  failing_allocator_fail_after(-1);
  expect_error(XFFI_KIND_MEMORY, "out of memory");
  assert_ptr_equal(array, before);
  assert_int_equal(xffi_seq_size_unchecked(array), 4);
  /* A shared array whose copy fails stays as it was, still shared. */
  xffi_object *other = array;
  xffi_object_inc_ref(other);
  xffi_any one = xffi_any_int(1);
  for (int op = 0; op < 5; ++op) {
    failing_allocator_fail_after(0);
    int rc = XFFI_OK;
    switch (op) {
      case 0: rc = xffi_array_set(&array, 0, &one); break;
      case 1: rc = xffi_array_erase(&array, 0); break;
      case 2: rc = xffi_array_clear(&array); break;
      case 3: rc = xffi_array_pop(NULL, &array); break;
      case 4: rc = xffi_array_insert(&array, 0, &one); break;
    }
    failing_allocator_fail_after(-1);
    assert_int_equal(rc, XFFI_FAIL);
    expect_error(XFFI_KIND_MEMORY, "out of memory");
    assert_ptr_equal(array, before);
    assert_int_equal(xffi_object_strong_count(array), 2);
  }
  for (int i = 0; i < 4; ++i) assert_int_equal(int_at(array, i), i);
  xffi_object *out = (xffi_object *)1;
  failing_allocator_fail_after(0);
  assert_int_equal(xffi_array_new(&out, &one, 1), XFFI_FAIL);
  assert_null(out);
  assert_int_equal(xffi_array_slice(&out, array, 0, 2), XFFI_FAIL);
  assert_null(out);
  failing_allocator_fail_after(-1);
  expect_error(XFFI_KIND_MEMORY, "out of memory");
  /* A failed copy of the third item frees the first two. */
  xffi_any strs[3] = {xffi_any_c_str("first long string"), xffi_any_c_str("second long string"),
                      xffi_any_c_str("third long string")};
  failing_allocator_fail_after(3);
  assert_int_equal(xffi_array_new(&out, strs, 3), XFFI_FAIL);
  failing_allocator_fail_after(-1);
  expect_error(XFFI_KIND_MEMORY, "out of memory");
  assert_null(out);
  xffi_object_dec_ref(other);
  xffi_object_dec_ref(array);
}

/* ---- Bad input ---- */

static void bad_input_is_reported(void **state) {
  (void)state;
  xffi_object *array = int_array(2);
  xffi_object *list = NULL;
  assert_int_equal(xffi_list_new(&list, NULL, 0), XFFI_OK);
  xffi_object *str = NULL;
  assert_int_equal(xffi_string_from_c_str(&str, "not a sequence"), XFFI_OK);
  xffi_object *out = NULL;
  xffi_any v = xffi_any_int(1), got = xffi_any_none();
  xffi_any rvalue = xffi_any_object(array);
  rvalue.type_index = XFFI_TYPE_OBJECT_RVALUE;
  int64_t n = 0;
  const xffi_any *items = NULL;

  assert_int_equal(xffi_array_new(NULL, &v, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_new: out is NULL");
  assert_int_equal(xffi_array_new(&out, NULL, 2), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_new: items is NULL but count is 2");
  assert_int_equal(xffi_array_new(&out, &v, -1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_new: count is negative (-1)");
  assert_int_equal(xffi_array_new(&out, &rvalue, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE,
               "xffi_array_new: items[0] is an object rvalue reference (a move), which cannot be stored");
  assert_null(out);
  assert_int_equal(xffi_array_new_with_capacity(NULL, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_new_with_capacity: out is NULL");
  assert_int_equal(xffi_array_new_with_capacity(&out, -3), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_new_with_capacity: capacity is negative (-3)");
  assert_int_equal(xffi_array_new_with_capacity(&out, INT64_MAX), XFFI_FAIL);
  expect_error(XFFI_KIND_MEMORY, "out of memory");

  assert_int_equal(xffi_array_length(NULL, array), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_length: out is NULL");
  assert_int_equal(xffi_array_length(&n, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_length: array is NULL");
  assert_int_equal(xffi_array_length(&n, str), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_array_length: array expected ffi.Array or ffi.List, got ffi.String");
  assert_int_equal(xffi_array_length(&n, list), XFFI_OK); /* a List is readable too */

  assert_int_equal(xffi_array_get(NULL, array, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_get: out is NULL");
  assert_int_equal(xffi_array_get(&got, NULL, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_get: array is NULL");
  assert_int_equal(xffi_array_get(&got, str, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_array_get: array expected ffi.Array or ffi.List, got ffi.String");
  assert_int_equal(xffi_array_get(&got, array, 2), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_array_get: index 2 is out of range for length 2");
  assert_int_equal(xffi_array_get(&got, array, -1), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_array_get: index -1 is out of range for length 2");

  assert_int_equal(xffi_array_items(NULL, &n, array), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_items: out_items is NULL");
  assert_int_equal(xffi_array_items(&items, NULL, array), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_items: out_size is NULL");
  assert_int_equal(xffi_array_items(&items, &n, str), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_array_items: array expected ffi.Array or ffi.List, got ffi.String");

  assert_int_equal(xffi_array_slice(NULL, array, 0, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_slice: out is NULL");
  assert_int_equal(xffi_array_slice(&out, NULL, 0, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_slice: array is NULL");
  assert_int_equal(xffi_array_slice(&out, array, 1, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_array_slice: range [1, 0) is not within [0, 2]");
  assert_int_equal(xffi_array_slice(&out, array, -1, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_array_slice: range [-1, 1) is not within [0, 2]");
  assert_int_equal(xffi_array_slice(&out, array, 0, 3), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_array_slice: range [0, 3) is not within [0, 2]");

  /* The changing functions: NULL handle, NULL *handle, wrong type, bad index, bad value. */
  assert_int_equal(xffi_array_set(NULL, 0, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_set: array is NULL");
  xffi_object *null_obj = NULL;
  assert_int_equal(xffi_array_set(&null_obj, 0, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_set: *array is NULL");
  assert_int_equal(xffi_array_set(&list, 0, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_array_set: *array expected ffi.Array, got ffi.List");
  assert_int_equal(xffi_array_set(&array, 5, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_array_set: index 5 is out of range for length 2");
  assert_int_equal(xffi_array_set(&array, 0, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_set: value is NULL");
  assert_int_equal(xffi_array_set(&array, 0, &rvalue), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_array_set: value is an object rvalue reference (a move), which cannot be stored");

  assert_int_equal(xffi_array_push(NULL, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_push: array is NULL");
  assert_int_equal(xffi_array_push(&str, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_array_push: *array expected ffi.Array, got ffi.String");
  assert_int_equal(xffi_array_push(&array, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_push: value is NULL");

  assert_int_equal(xffi_array_pop(&got, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_pop: array is NULL");
  assert_int_equal(xffi_array_pop(&got, &list), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_array_pop: *array expected ffi.Array, got ffi.List");
  xffi_object *empty = int_array(0);
  assert_int_equal(xffi_array_pop(&got, &empty), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_array_pop: pop from an empty Array");
  xffi_object_dec_ref(empty);

  assert_int_equal(xffi_array_insert(NULL, 0, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_insert: array is NULL");
  assert_int_equal(xffi_array_insert(&array, 3, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_array_insert: index 3 is out of range for length 2");
  assert_int_equal(xffi_array_insert(&array, -1, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_array_insert: index -1 is out of range for length 2");
  assert_int_equal(xffi_array_insert(&array, 0, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_insert: value is NULL");

  assert_int_equal(xffi_array_erase(NULL, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_erase: array is NULL");
  assert_int_equal(xffi_array_erase(&list, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_array_erase: *array expected ffi.Array, got ffi.List");
  assert_int_equal(xffi_array_erase(&array, 2), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_array_erase: index 2 is out of range for length 2");

  assert_int_equal(xffi_array_clear(NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_clear: array is NULL");
  assert_int_equal(xffi_array_clear(&null_obj), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_array_clear: *array is NULL");
  assert_int_equal(xffi_array_clear(&list), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_array_clear: *array expected ffi.Array, got ffi.List");

  /* Nothing changed through all of that. */
  assert_int_equal(xffi_seq_size_unchecked(array), 2);
  assert_int_equal(int_at(array, 0), 0);
  assert_int_equal(int_at(array, 1), 1);
  assert_null(xffi_error_peek_raised());
  xffi_object_dec_ref(str);
  xffi_object_dec_ref(list);
  xffi_object_dec_ref(array);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(new_copies_views_into_owned_elements),
      cmocka_unit_test(empty_array_from_null_items),
      cmocka_unit_test(push_on_unique_array_changes_it_in_place),
      cmocka_unit_test(push_on_shared_array_copies_and_leaves_other_holders_unchanged),
      cmocka_unit_test(weak_reference_forces_a_copy),
      cmocka_unit_test(reserve_makes_room_and_copies_a_shared_array),
      cmocka_unit_test(set_insert_erase_pop_clear),
      cmocka_unit_test(every_change_on_a_shared_array_copies),
      cmocka_unit_test(pushing_an_array_into_itself_nests_a_snapshot),
      cmocka_unit_test(slice_shares_elements),
      cmocka_unit_test(nested_arrays_free_every_object_exactly_once),
      cmocka_unit_test(foreign_storage_is_returned_to_its_deleter),
      cmocka_unit_test(out_of_memory_leaves_the_array_unchanged),
      cmocka_unit_test(bad_input_is_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
