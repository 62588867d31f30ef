/* List storage as tvm-ffi's C++ List expects it: every List made by xffi
 * keeps its elements in a separate buffer with a data_deleter (allocated
 * even at capacity 0), because tvm-ffi's C++ growth of a list moves the
 * elements to a new buffer and calls data_deleter on the old one without a
 * NULL check. The growth is replayed here in C exactly as that inline C++
 * does it; tests/interop/list_grow_cpp.cc does it with tvm-ffi's own code. */
#include "test_util.h"

#include "failing_allocator.h"

/* Whether the cell's data lies inside the object's own allocation (inline). */
static int storage_is_inline(const xffi_object *list) {
  const char *data = xffi_seq_cell_of_unchecked(list)->data;
  const char *obj = (const char *)list;
  return data >= obj && data <= obj + sizeof(xffi_object) + sizeof(xffi_seq_cell);
}

static void assert_separate_storage(xffi_object *list, int64_t capacity) {
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
  assert_int_equal(list->type_index, XFFI_TYPE_LIST);
  assert_non_null(cell->data_deleter);
  assert_false(storage_is_inline(list));
  assert_int_equal(cell->capacity, capacity);
  assert_non_null(cell->data); /* even at capacity 0: nobody offsets a NULL pointer */
}

static void test_every_new_list_has_a_separate_buffer_and_a_deleter(void **state) {
  (void)state;
  xffi_any items[3] = {xffi_any_int(1), xffi_any_int(2), xffi_any_int(3)};
  xffi_object *list = NULL, *array = NULL, *slice = NULL;
  assert_int_equal(xffi_list_new(&list, items, 3), XFFI_OK);
  assert_separate_storage(list, 3);
  assert_int_equal(xffi_list_slice(&slice, list, 1, 3), XFFI_OK);
  assert_separate_storage(slice, 2);
  xffi_object_dec_ref(slice);
  assert_int_equal(xffi_list_slice(&slice, list, 2, 2), XFFI_OK);
  assert_separate_storage(slice, 0);
  xffi_object_dec_ref(slice);
  xffi_object_dec_ref(list);
  assert_int_equal(xffi_list_new(&list, NULL, 0), XFFI_OK);
  assert_separate_storage(list, 0);
  xffi_object_dec_ref(list);
  assert_int_equal(xffi_list_new_with_capacity(&list, 0), XFFI_OK);
  assert_separate_storage(list, 0);
  xffi_any v = xffi_any_int(7); /* growing from no buffer at all */
  assert_int_equal(xffi_list_push(list, &v), XFFI_OK);
  assert_int_equal(xffi_seq_items_unchecked(list)[0].v_int64, 7);
  xffi_object_dec_ref(list);
  assert_int_equal(xffi_list_new_with_capacity(&list, 5), XFFI_OK);
  assert_separate_storage(list, 5);
  xffi_object_dec_ref(list);
  /* A List made from an Array (inline storage) gets its own buffer. */
  assert_int_equal(xffi_array_new(&array, items, 3), XFFI_OK);
  assert_int_equal(xffi_list_slice(&slice, array, 0, 3), XFFI_OK);
  assert_separate_storage(slice, 3);
  xffi_object_dec_ref(slice);
  xffi_object_dec_ref(array);
}

static int foreign_frees;
static void foreign_free(void *data) {
  foreign_frees++;
  free(data);
}

/* What tvm-ffi's ListObj::Reserve does to a list it did not make: a new
 * buffer, the elements moved (bitwise), the old buffer to data_deleter. */
static void grow_like_tvm_ffi(xffi_object *list, int64_t capacity) {
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
  xffi_any *data = malloc((size_t)capacity * sizeof(xffi_any));
  assert_non_null(data);
  if (cell->size) memcpy(data, cell->data, (size_t)cell->size * sizeof(xffi_any));
  assert_non_null(cell->data_deleter); /* tvm-ffi calls it without this check */
  cell->data_deleter(cell->data);
  cell->data = data;
  cell->capacity = capacity;
  cell->data_deleter = foreign_free;
}

static void test_a_list_grown_by_tvm_ffi_code_stays_whole(void **state) {
  (void)state;
  int64_t capacities[] = {0, 2};
  for (int k = 0; k < 2; k++) {
    xffi_object *list = NULL, *s = NULL;
    assert_int_equal(xffi_list_new_with_capacity(&list, capacities[k]), XFFI_OK);
    assert_int_equal(xffi_string_from_c_str(&s, "a heap string, not a small one"), XFFI_OK);
    xffi_any v = xffi_any_object(s);
    for (int64_t i = 0; i < capacities[k]; i++) assert_int_equal(xffi_list_push(list, &v), XFFI_OK);
    foreign_frees = 0;
    grow_like_tvm_ffi(list, 8); /* past its capacity */
    xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
    ((xffi_any *)cell->data)[cell->size++] = xffi_any_int(42); /* a push_back into the new room */
    /* xffi keeps using it: growth hands the foreign buffer back to its deleter. */
    for (int i = 0; i < 20; i++) assert_int_equal(xffi_list_push(list, &v), XFFI_OK);
    assert_int_equal(foreign_frees, 1);
    assert_int_equal(xffi_seq_size_unchecked(list), capacities[k] + 21);
    assert_int_equal(xffi_seq_items_unchecked(list)[capacities[k]].v_int64, 42);
    assert_int_equal(xffi_object_strong_count(s), 1 + capacities[k] + 20);
    xffi_object_dec_ref(list);
    assert_int_equal(xffi_object_strong_count(s), 1);
    xffi_object_dec_ref(s);
  }
}

/* An empty List as tvm-ffi makes it (ListObj::Empty(0)): NULL data. Every
 * read-only operation works on it (UBSan: no offset applied to NULL). */
static void test_an_empty_list_with_null_data_is_readable(void **state) {
  (void)state;
  xffi_object *list = NULL, *slice = NULL;
  assert_int_equal(xffi_list_new_with_capacity(&list, 0), XFFI_OK);
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
  cell->data_deleter(cell->data);
  cell->data = NULL;
  cell->data_deleter = foreign_free;
  int64_t n = -1;
  assert_int_equal(xffi_array_length(&n, list), XFFI_OK);
  assert_int_equal(n, 0);
  assert_int_equal(xffi_list_slice(&slice, list, 0, 0), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(slice), 0);
  xffi_object_dec_ref(slice);
  assert_int_equal(xffi_array_slice(&slice, list, 0, 0), XFFI_OK);
  xffi_object_dec_ref(slice);
  xffi_any v = xffi_any_int(3);
  foreign_frees = 0;
  assert_int_equal(xffi_list_push(list, &v), XFFI_OK); /* NULL handed to its deleter, as tvm-ffi does */
  assert_int_equal(foreign_frees, 1);
  assert_int_equal(xffi_seq_items_unchecked(list)[0].v_int64, 3);
  xffi_object_dec_ref(list);
}

static void test_new_list_out_of_memory_leaves_nothing(void **state) {
  (void)state;
  uint64_t before = failing_allocator_attempts();
  xffi_object *list = NULL;
  assert_int_equal(xffi_list_new_with_capacity(&list, 4), XFFI_OK);
  assert_int_equal(failing_allocator_attempts() - before, 2); /* the object and its buffer */
  xffi_object_dec_ref(list);
  for (int64_t n = 0; n < 2; n++) { /* the object, then the buffer, fails */
    list = (xffi_object *)0x1;
    failing_allocator_fail_after(n);
    assert_int_equal(xffi_list_new_with_capacity(&list, 4), XFFI_FAIL);
    failing_allocator_fail_after(-1);
    assert_null(list);
    assert_raised(XFFI_KIND_MEMORY, "out of memory");
  }
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_new_list_has_a_separate_buffer_and_a_deleter),
      cmocka_unit_test(test_a_list_grown_by_tvm_ffi_code_stays_whole),
      cmocka_unit_test(test_an_empty_list_with_null_data_is_readable),
      cmocka_unit_test(test_new_list_out_of_memory_leaves_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
