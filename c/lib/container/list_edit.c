/* c/lib/container/list_edit.c: range edits of a List (c/lib/container/list_edit.h), on the sequence
 * cell (xffi/sys/array.h); growth goes through xffi_list_reserve so the List
 * keeps its own storage rules. */
#include "lib/container/list_edit.h"

#include <string.h>

#include "runtime/check.h"

static int check_range(const char *fn, int64_t begin, int64_t end, int64_t size) {
  if (begin < 0 || end < begin || end > size)
    return xffi_error_raise(XFFI_KIND_INDEX, "%s: range [%lld, %lld) out of bounds for a List of size %lld", fn,
                            (long long)begin, (long long)end, (long long)size);
  return XFFI_OK;
}

/* Moves the elements [from, size) to start at `to`, and sets the size. */
static void shift_tail(xffi_seq_cell *cell, int64_t from, int64_t to) {
  xffi_any *data = (xffi_any *)cell->data;
  int64_t tail = cell->size - from;
  if (tail > 0 && from != to) memmove(data + to, data + from, (size_t)tail * sizeof(xffi_any));
  cell->size = to + tail;
}

/* Ranges up to this many elements are taken out through a stack buffer. */
#define ERASE_STACK_ELEMENTS 32

int xffi_list_erase_range(xffi_object *list, int64_t begin, int64_t end) {
  XFFI_CHECK_ARG_OBJECT(list, XFFI_TYPE_LIST);
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
  if (check_range(__func__, begin, end, cell->size) != XFFI_OK) return XFFI_FAIL;
  int64_t removed = end - begin;
  xffi_any on_stack[ERASE_STACK_ELEMENTS];
  xffi_any *taken = on_stack;
  if (removed > ERASE_STACK_ELEMENTS) taken = xffi_alloc((size_t)removed * sizeof(xffi_any));
  if (!taken) {
    /* No memory for the buffer: erasing must still not fail, so take the
     * elements out one at a time (slower: the tail moves each time). */
    for (; removed > 0; --removed) {
      xffi_any old = ((xffi_any *)cell->data)[begin];
      shift_tail(cell, begin + 1, begin);
      xffi_any_release(&old);
    }
    return XFFI_OK;
  }
  memcpy(taken, (xffi_any *)cell->data + begin, (size_t)removed * sizeof(xffi_any));
  shift_tail(cell, end, begin);
  for (int64_t i = 0; i < removed; ++i) xffi_any_release(&taken[i]);
  if (taken != on_stack) xffi_free(taken);
  return XFFI_OK;
}

int xffi_list_replace_slice(xffi_object *list, int64_t begin, int64_t end, const xffi_any *items, int64_t count) {
  XFFI_CHECK_ARG_OBJECT(list, XFFI_TYPE_LIST);
  XFFI_CHECK_ARG(count, count >= 0, XFFI_KIND_VALUE, "is negative (%lld)", (long long)count);
  XFFI_CHECK_ARG(items, items || count == 0, XFFI_KIND_VALUE, "is NULL but count is %lld", (long long)count);
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
  if (check_range(__func__, begin, end, cell->size) != XFFI_OK) return XFFI_FAIL;
  int64_t removed = end - begin;
  if ((uint64_t)count > (uint64_t)INT64_MAX / 2 || (uint64_t)removed + (uint64_t)count > SIZE_MAX / sizeof(xffi_any))
    return xffi_error_raise_out_of_memory();
  /* One buffer: the new elements' owned copies first (taken before the List
   * changes, so items may alias it), then the removed elements. */
  xffi_any *moved = xffi_alloc((size_t)(count + removed) * sizeof(xffi_any));
  if (!moved) return xffi_error_raise_out_of_memory();
  for (int64_t i = 0; i < count; ++i) {
    moved[i] = xffi_any_none();
    if (xffi_any_check(__func__, "item", &items[i]) != XFFI_OK || xffi_any_copy(&moved[i], &items[i]) != XFFI_OK) {
      for (int64_t j = 0; j < i; ++j) xffi_any_release(&moved[j]);
      xffi_free(moved);
      return XFFI_FAIL;
    }
  }
  int64_t new_size = cell->size - removed + count;
  if (new_size > cell->capacity) {
    int64_t grown = cell->capacity + cell->capacity / 2;
    if (xffi_list_reserve(list, grown > new_size ? grown : new_size) != XFFI_OK) {
      for (int64_t j = 0; j < count; ++j) xffi_any_release(&moved[j]);
      xffi_free(moved);
      return XFFI_FAIL;
    }
  }
  xffi_any *data = (xffi_any *)cell->data;
  if (removed > 0) memcpy(moved + count, data + begin, (size_t)removed * sizeof(xffi_any));
  shift_tail(cell, end, begin + count);
  if (count > 0) memcpy(data + begin, moved, (size_t)count * sizeof(xffi_any));
  for (int64_t j = 0; j < removed; ++j) xffi_any_release(&moved[count + j]);
  xffi_free(moved);
  return XFFI_OK;
}

int xffi_list_reverse(xffi_object *list) {
  XFFI_CHECK_ARG_OBJECT(list, XFFI_TYPE_LIST);
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
  xffi_any *data = (xffi_any *)cell->data;
  for (int64_t i = 0, j = cell->size - 1; i < j; ++i, --j) {
    xffi_any t = data[i];
    data[i] = data[j];
    data[j] = t;
  }
  return XFFI_OK;
}
