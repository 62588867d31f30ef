/* c/lib/container/seq_edit.c: the Array and List operations that programs run
 * less often (slice, pop, insert, erase, clear, reserve), over the storage of
 * c/lib/container/seq.h; compiled for size, where array.c is compiled for speed.
 * The same re-entrancy rule as array.c: each operation finishes updating the
 * cell before it releases anything. */
#include <xffi/array.h>

#include "lib/container/seq.h"

static int seq_slice(const char *fn, int32_t type_index, xffi_object **out, const xffi_object *seq, int64_t begin,
                     int64_t end) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  if (xffi_seq_check_arg(fn, seq) != XFFI_OK) return XFFI_FAIL;
  int64_t size = xffi_seq_size_unchecked(seq);
  if (begin < 0 || end < begin || end > size)
    return xffi_error_raise(XFFI_KIND_INDEX, "%s: range [%lld, %lld) is not within [0, %lld]", fn, (long long)begin,
                            (long long)end, (long long)size);
  xffi_object *obj = xffi_seq_alloc(type_index, end - begin);
  if (!obj) return XFFI_FAIL;
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(obj);
  /* Indexed, not offset up front: an empty List from tvm-ffi has NULL data. */
  const xffi_any *src = xffi_seq_items_unchecked(seq);
  xffi_any *dst = (xffi_any *)cell->data;
  for (int64_t i = 0; i < end - begin; ++i) dst[i] = xffi_seq_dup(&src[begin + i]);
  cell->size = end - begin;
  *out = obj;
  return XFFI_OK;
}

/* The in-place edits, on a sequence already known to be unique (Array) or
 * shared-by-design (List), with room already made where needed. */

static void seq_erase_at(xffi_seq_cell *cell, int64_t index) {
  xffi_any *data = (xffi_any *)cell->data;
  xffi_any old = data[index];
  if (index + 1 < cell->size)
    memmove(data + index, data + index + 1, (size_t)(cell->size - index - 1) * sizeof(xffi_any));
  cell->size -= 1;
  xffi_any_release(&old);
}

static void seq_pop_into(xffi_seq_cell *cell, xffi_any *out) {
  xffi_any v = ((xffi_any *)cell->data)[--cell->size];
  if (out)
    *out = v;
  else
    xffi_any_release(&v);
}

static void seq_clear(xffi_seq_cell *cell) {
  while (cell->size > 0) {
    xffi_any v = ((xffi_any *)cell->data)[--cell->size];
    xffi_any_release(&v);
  }
}

/* ======================= Array ======================= */

int xffi_array_slice(xffi_object **out, const xffi_object *array, int64_t begin, int64_t end) {
  return seq_slice(__func__, XFFI_TYPE_ARRAY, out, array, begin, end);
}

int xffi_array_pop(xffi_any *out, xffi_object **array) {
  if (xffi_seq_check_array_ref(__func__, array) != XFFI_OK) return XFFI_FAIL;
  if (xffi_seq_size_unchecked(*array) == 0)
    return xffi_error_raise(XFFI_KIND_INDEX, "%s: pop from an empty Array", __func__);
  if (xffi_array_make_unique(array, 0) != XFFI_OK) return XFFI_FAIL;
  seq_pop_into(xffi_seq_cell_of_unchecked(*array), out);
  return XFFI_OK;
}

int xffi_array_insert(xffi_object **array, int64_t index, const xffi_any *value) {
  if (xffi_seq_check_array_ref(__func__, array) != XFFI_OK) return XFFI_FAIL;
  if (xffi_seq_check_index(__func__, index, xffi_seq_size_unchecked(*array), 1) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned;
  if (xffi_seq_copy_value(__func__, &owned, value) != XFFI_OK) return XFFI_FAIL;
  if (xffi_array_make_unique(array, xffi_seq_size_unchecked(*array) + 1) != XFFI_OK) {
    xffi_any_release(&owned);
    return XFFI_FAIL;
  }
  xffi_seq_insert_at(xffi_seq_cell_of_unchecked(*array), index, &owned);
  return XFFI_OK;
}

int xffi_array_erase(xffi_object **array, int64_t index) {
  if (xffi_seq_check_array_ref(__func__, array) != XFFI_OK) return XFFI_FAIL;
  if (xffi_seq_check_index(__func__, index, xffi_seq_size_unchecked(*array), 0) != XFFI_OK) return XFFI_FAIL;
  if (xffi_array_make_unique(array, 0) != XFFI_OK) return XFFI_FAIL;
  seq_erase_at(xffi_seq_cell_of_unchecked(*array), index);
  return XFFI_OK;
}

int xffi_array_clear(xffi_object **array) {
  if (xffi_seq_check_array_ref(__func__, array) != XFFI_OK) return XFFI_FAIL;
  if (xffi_seq_is_unique(*array)) {
    seq_clear(xffi_seq_cell_of_unchecked(*array));
    return XFFI_OK;
  }
  xffi_object *empty = xffi_seq_alloc(XFFI_TYPE_ARRAY, 0);
  if (!empty) return XFFI_FAIL;
  xffi_object *old = *array;
  *array = empty;
  xffi_object_dec_ref_inline(old);
  return XFFI_OK;
}

int xffi_array_reserve(xffi_object **array, int64_t capacity) {
  static const char fn[] = "xffi_array_reserve";
  if (xffi_seq_check_array_ref(fn, array) != XFFI_OK) return XFFI_FAIL;
  if (capacity < 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: capacity is negative (%lld)", fn, (long long)capacity);
  if (capacity > xffi_seq_max_capacity()) return xffi_error_raise_out_of_memory();
  /* Shared: the copy that a later push would make anyway, made now with room. */
  if (!xffi_seq_is_unique(*array)) return xffi_array_make_unique(array, capacity);
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(*array);
  if (capacity <= cell->capacity) return XFFI_OK;
  return xffi_seq_reserve_exact(cell, capacity);
}

/* ======================= List ======================= */

int xffi_list_slice(xffi_object **out, const xffi_object *list, int64_t begin, int64_t end) {
  return seq_slice(__func__, XFFI_TYPE_LIST, out, list, begin, end);
}

int xffi_list_pop(xffi_any *out, xffi_object *list) {
  if (xffi_seq_check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  if (xffi_seq_size_unchecked(list) == 0)
    return xffi_error_raise(XFFI_KIND_INDEX, "%s: pop from an empty List", __func__);
  seq_pop_into(xffi_seq_cell_of_unchecked(list), out);
  return XFFI_OK;
}

int xffi_list_insert(xffi_object *list, int64_t index, const xffi_any *value) {
  if (xffi_seq_check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
  if (xffi_seq_check_index(__func__, index, cell->size, 1) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned;
  if (xffi_seq_copy_value(__func__, &owned, value) != XFFI_OK) return XFFI_FAIL;
  if (xffi_seq_reserve(cell, cell->size + 1) != XFFI_OK) {
    xffi_any_release(&owned);
    return XFFI_FAIL;
  }
  xffi_seq_insert_at(cell, index, &owned);
  return XFFI_OK;
}

int xffi_list_erase(xffi_object *list, int64_t index) {
  if (xffi_seq_check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  if (xffi_seq_check_index(__func__, index, xffi_seq_size_unchecked(list), 0) != XFFI_OK) return XFFI_FAIL;
  seq_erase_at(xffi_seq_cell_of_unchecked(list), index);
  return XFFI_OK;
}

int xffi_list_clear(xffi_object *list) {
  if (xffi_seq_check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  seq_clear(xffi_seq_cell_of_unchecked(list));
  return XFFI_OK;
}

int xffi_list_reserve(xffi_object *list, int64_t capacity) {
  if (xffi_seq_check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  if (capacity < 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: capacity is negative (%lld)", __func__, (long long)capacity);
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
  if (capacity <= cell->capacity) return XFFI_OK;
  if (capacity > xffi_seq_max_capacity()) return xffi_error_raise_out_of_memory();
  return xffi_seq_reserve_exact(cell, capacity);
}
