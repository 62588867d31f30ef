/* c/lib/container/array.c: Array (immutable, copy-on-write) and List (mutable) over the
 * shared sequence cell.
 *
 * Storage: the object comes from the runtime's object allocator, with
 * tvm-ffi's allocation header in front (c/runtime/internal.h), and is never moved.
 * A new Array keeps its elements inline, right after the cell, in
 * the object's single allocation (data_deleter NULL). A List always keeps
 * them in a separate buffer (c/lib/container/seq_buffer.h: a minimal one at capacity 0, so
 * that data is never NULL) with a data_deleter, as tvm-ffi's own Lists do:
 * tvm-ffi's C++ List grows a list it did not make by moving the elements to
 * a new buffer and calling data_deleter on the old one, with no NULL check.
 * An Array that must grow past its inline room moves to such a buffer too,
 * and later growth moves it to a new one (doubling: amortised O(1) push).
 *
 * Re-entrancy: releasing an element can run arbitrary deleters, so every
 * operation finishes updating the cell before it releases anything, and
 * loops that release re-read the cell each step.
 *
 * This file has the storage and the operations programs run all the time
 * (make, read, set, push, release), compiled for speed; the rest are in
 * c/lib/container/seq_edit.c, compiled for size, over c/lib/container/seq.h. */
#include <stdio.h>
#include <string.h>

#include <xffi/array.h>

#include "lib/container/array_move.h"
#include "runtime/check.h"
#include "runtime/internal.h"
#include "lib/container/seq.h"
#include "lib/container/seq_buffer.h"

#define SEQ_HEADER_BYTES (sizeof(xffi_object) + sizeof(xffi_seq_cell))

/* tvm-ffi 0.1's sequence cell on 64-bit targets. On 32-bit ones the pointers
 * shrink and the int64 fields may pack at 4 bytes (i386), as in tvm-ffi's own
 * header there; test_layout compares both with that header. */
#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(xffi_seq_cell) == 32, "sequence cell is 32 bytes");
_Static_assert(offsetof(xffi_seq_cell, data) == 0, "seq data at 0");
_Static_assert(offsetof(xffi_seq_cell, size) == 8, "seq size at 8");
_Static_assert(offsetof(xffi_seq_cell, capacity) == 16, "seq capacity at 16");
_Static_assert(offsetof(xffi_seq_cell, data_deleter) == 24, "seq data_deleter at 24");
#endif
_Static_assert(sizeof(xffi_any) == 16, "Any is 16 bytes");

int64_t xffi_seq_max_capacity(void) {
  uint64_t by_size = (uint64_t)((XFFI_SEQ_BUFFER_MAX_BYTES - SEQ_HEADER_BYTES) / sizeof(xffi_any));
  uint64_t by_int = (uint64_t)INT64_MAX / sizeof(xffi_any);
  return (int64_t)(by_size < by_int ? by_size : by_int);
}

static void seq_deleter(void *self, int flags) {
  xffi_object *obj = (xffi_object *)self;
  if (flags & XFFI_DELETE_CONTENTS) {
    xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(obj);
    /* A sequence with elements is parked while another release runs, so a
     * deep nesting uses bounded stack; an empty one has nothing to nest. */
    int nests = cell->size > 0;
    if (nests && xffi_release_begin(obj, flags, seq_deleter)) return;
    while (cell->size > 0) {
      xffi_any v = ((xffi_any *)cell->data)[--cell->size];
      xffi_any_release(&v);
    }
    if (cell->data_deleter) cell->data_deleter(cell->data);
    cell->data = NULL;
    cell->data_deleter = NULL;
    cell->capacity = 0;
    if (nests) xffi_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

xffi_object *xffi_seq_alloc(int32_t type_index, int64_t capacity) {
  if (capacity > xffi_seq_max_capacity()) {
    xffi_error_raise_out_of_memory();
    return NULL;
  }
  int separate = type_index == XFFI_TYPE_LIST;
  size_t bytes = (size_t)capacity * sizeof(xffi_any);
  /* The object itself comes from the runtime's object allocator (with the
   * allocation header); a List's element buffer is plain memory. */
  xffi_object *obj =
      xffi_runtime_object_alloc(SEQ_HEADER_BYTES + (separate ? 0 : bytes), _Alignof(xffi_any), type_index);
  if (!obj) return NULL; /* raised */
  void *data = (char *)obj + SEQ_HEADER_BYTES;
  if (separate && !(data = xffi_seq_buffer_new(xffi_seq_cell_of_unchecked(obj), bytes))) {
    xffi_runtime_object_free(obj);
    xffi_error_raise_out_of_memory();
    return NULL;
  }
  xffi_object_init(obj, type_index, seq_deleter);
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(obj);
  cell->data = data;
  cell->size = 0;
  cell->capacity = capacity;
  cell->data_deleter = separate ? xffi_seq_buffer_free : NULL;
  return obj;
}

int64_t xffi_seq_grow_capacity(int64_t capacity, int64_t need) {
  int64_t max = xffi_seq_max_capacity();
  int64_t grown = capacity < 4 ? 4 : (capacity > max / 2 ? max : capacity * 2);
  return grown > need ? grown : need;
}

int xffi_seq_reserve_exact(xffi_seq_cell *cell, int64_t capacity) {
  if (capacity > xffi_seq_max_capacity()) return xffi_error_raise_out_of_memory();
  size_t bytes = (size_t)capacity * sizeof(xffi_any);
  /* Always a new buffer, as tvm-ffi's growth gives (its Rust crate checks
   * the address moves): a realloc would move it only when the block could
   * not grow where it is. The old storage, xffi's or made elsewhere (inline,
   * by C++ code, by another runtime), goes back to its own deleter. */
  void *data = xffi_seq_buffer_new(cell, bytes);
  if (!data) return xffi_error_raise_out_of_memory();
  if (cell->size) memcpy(data, cell->data, (size_t)cell->size * sizeof(xffi_any));
  if (cell->data_deleter) cell->data_deleter(cell->data);
  cell->data = data;
  cell->capacity = capacity;
  cell->data_deleter = xffi_seq_buffer_free;
  return XFFI_OK;
}

/* ---- Argument checks ---- */

/* The name of the sequence parameter of fn: "list" for xffi_list_*, else "array". */
static const char *seq_arg_name(const char *fn) { return strncmp(fn, "xffi_list", 9) == 0 ? "list" : "array"; }

int xffi_seq_check_arg_failed(const char *fn, const xffi_object *obj) {
  const char *arg = seq_arg_name(fn);
  if (!obj) return xffi_raise_null_arg(fn, arg);
  xffi_any view = xffi_any_object((xffi_object *)obj);
  return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s expected ffi.Array or ffi.List, got %s", fn, arg,
                          xffi_any_kind_name(&view));
}

int xffi_seq_check_index(const char *fn, int64_t index, int64_t size, int allow_end) {
  int64_t limit = allow_end ? size : size - 1;
  if (index >= 0 && index <= limit) return XFFI_OK;
  return xffi_error_raise(XFFI_KIND_INDEX, "%s: index %lld is out of range for length %lld", fn, (long long)index,
                          (long long)size);
}

int xffi_array_make_unique(xffi_object **array, int64_t need) {
  xffi_object *old = *array;
  xffi_seq_cell *old_cell = xffi_seq_cell_of_unchecked(old);
  if (xffi_seq_is_unique(old)) return xffi_seq_reserve(old_cell, need);
  int64_t size = old_cell->size;
  int64_t capacity = need > size ? xffi_seq_grow_capacity(size, need) : size;
  xffi_object *copy = xffi_seq_alloc(XFFI_TYPE_ARRAY, capacity);
  if (!copy) return XFFI_FAIL;
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(copy);
  const xffi_any *src = (const xffi_any *)old_cell->data;
  xffi_any *dst = (xffi_any *)cell->data;
  for (int64_t i = 0; i < size; ++i) dst[i] = xffi_seq_dup(&src[i]);
  cell->size = size;
  *array = copy;
  xffi_object_dec_ref_inline(old);
  return XFFI_OK;
}

/* ---- Shared implementations ---- */

static int seq_new(const char *fn, int32_t type_index, xffi_object **out, const xffi_any *items, int64_t count) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  if (count < 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: count is negative (%lld)", fn, (long long)count);
  if (!items && count > 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: items is NULL but count is %lld", fn, (long long)count);
  xffi_object *obj = xffi_seq_alloc(type_index, count);
  if (!obj) return XFFI_FAIL;
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(obj);
  xffi_any *data = (xffi_any *)cell->data;
  for (int64_t i = 0; i < count; ++i) {
    if (items[i].type_index == XFFI_TYPE_OBJECT_RVALUE) {
      xffi_object_dec_ref_inline(obj);
      return xffi_error_raise(XFFI_KIND_TYPE,
                              "%s: items[%lld] is an object rvalue reference (a move), which cannot be stored", fn,
                              (long long)i);
    }
    if (XFFI_UNLIKELY(!xffi_any_is_well_formed(&items[i]))) {
      xffi_object_dec_ref_inline(obj);
      char what[32];
      snprintf(what, sizeof what, "items[%lld]", (long long)i);
      return xffi_any_raise_malformed(fn, what, &items[i]);
    }
    if (xffi_any_copy(&data[i], &items[i]) != XFFI_OK) {
      xffi_object_dec_ref_inline(obj);
      return XFFI_FAIL;
    }
    cell->size = i + 1;
  }
  *out = obj;
  return XFFI_OK;
}

static int seq_new_with_capacity(const char *fn, int32_t type_index, xffi_object **out, int64_t capacity) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  if (capacity < 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: capacity is negative (%lld)", fn, (long long)capacity);
  *out = xffi_seq_alloc(type_index, capacity);
  return *out ? XFFI_OK : XFFI_FAIL;
}

static int seq_length(const char *fn, int64_t *out, const xffi_object *seq) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  if (xffi_seq_check_arg(fn, seq) != XFFI_OK) return XFFI_FAIL;
  *out = xffi_seq_size_unchecked(seq);
  return XFFI_OK;
}

static int seq_get(const char *fn, xffi_any *out, const xffi_object *seq, int64_t index) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  if (xffi_seq_check_arg(fn, seq) != XFFI_OK) return XFFI_FAIL;
  if (xffi_seq_check_index(fn, index, xffi_seq_size_unchecked(seq), 0) != XFFI_OK) return XFFI_FAIL;
  *out = xffi_seq_dup(&xffi_seq_items_unchecked(seq)[index]);
  return XFFI_OK;
}

static int seq_items(const char *fn, const xffi_any **out_items, int64_t *out_size, const xffi_object *seq) {
  if (!out_items) return xffi_raise_null_arg(fn, "out_items");
  if (!out_size) return xffi_raise_null_arg(fn, "out_size");
  if (xffi_seq_check_arg(fn, seq) != XFFI_OK) return XFFI_FAIL;
  *out_items = xffi_seq_items_unchecked(seq);
  *out_size = xffi_seq_size_unchecked(seq);
  return XFFI_OK;
}

/* The in-place set, on a sequence already known to be unique (Array)
 * or shared-by-design (List), with room already made where needed. */

static void seq_set_at(xffi_seq_cell *cell, int64_t index, xffi_any *value) {
  xffi_any *slot = (xffi_any *)cell->data + index;
  xffi_any old = *slot;
  xffi_any_move(slot, value);
  xffi_any_release(&old);
}

/* ======================= Array ======================= */

int xffi_array_new(xffi_object **out, const xffi_any *items, int64_t count) {
  return seq_new(__func__, XFFI_TYPE_ARRAY, out, items, count);
}

int xffi_array_new_moved(xffi_object **out, xffi_any *items, int64_t count) {
  *out = xffi_seq_alloc(XFFI_TYPE_ARRAY, count);
  if (*out == NULL) {
    for (int64_t i = 0; i < count; ++i) xffi_any_release(&items[i]);
    return XFFI_FAIL;
  }
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(*out);
  if (count > 0) memcpy(cell->data, items, (size_t)count * sizeof(xffi_any));
  cell->size = count;
  return XFFI_OK;
}

int xffi_array_new_with_capacity(xffi_object **out, int64_t capacity) {
  return seq_new_with_capacity(__func__, XFFI_TYPE_ARRAY, out, capacity);
}

int xffi_array_length(int64_t *out, const xffi_object *array) { return seq_length(__func__, out, array); }

int xffi_array_get(xffi_any *out, const xffi_object *array, int64_t index) {
  return seq_get(__func__, out, array, index);
}

int xffi_array_items(const xffi_any **out_items, int64_t *out_size, const xffi_object *array) {
  return seq_items(__func__, out_items, out_size, array);
}

int xffi_array_set(xffi_object **array, int64_t index, const xffi_any *value) {
  if (xffi_seq_check_array_ref(__func__, array) != XFFI_OK) return XFFI_FAIL;
  if (xffi_seq_check_index(__func__, index, xffi_seq_size_unchecked(*array), 0) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned;
  if (xffi_seq_copy_value(__func__, &owned, value) != XFFI_OK) return XFFI_FAIL;
  if (xffi_array_make_unique(array, 0) != XFFI_OK) {
    xffi_any_release(&owned);
    return XFFI_FAIL;
  }
  seq_set_at(xffi_seq_cell_of_unchecked(*array), index, &owned);
  return XFFI_OK;
}

int xffi_array_push(xffi_object **array, const xffi_any *value) {
  if (xffi_seq_check_array_ref(__func__, array) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned;
  if (xffi_seq_copy_value(__func__, &owned, value) != XFFI_OK) return XFFI_FAIL;
  if (xffi_array_make_unique(array, xffi_seq_size_unchecked(*array) + 1) != XFFI_OK) {
    xffi_any_release(&owned);
    return XFFI_FAIL;
  }
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(*array);
  xffi_seq_insert_at(cell, cell->size, &owned);
  return XFFI_OK;
}

/* ======================= List ======================= */

int xffi_list_new(xffi_object **out, const xffi_any *items, int64_t count) {
  return seq_new(__func__, XFFI_TYPE_LIST, out, items, count);
}

int xffi_list_new_with_capacity(xffi_object **out, int64_t capacity) {
  return seq_new_with_capacity(__func__, XFFI_TYPE_LIST, out, capacity);
}

int xffi_list_set(xffi_object *list, int64_t index, const xffi_any *value) {
  if (xffi_seq_check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  if (xffi_seq_check_index(__func__, index, xffi_seq_size_unchecked(list), 0) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned;
  if (xffi_seq_copy_value(__func__, &owned, value) != XFFI_OK) return XFFI_FAIL;
  seq_set_at(xffi_seq_cell_of_unchecked(list), index, &owned);
  return XFFI_OK;
}

int xffi_list_push(xffi_object *list, const xffi_any *value) {
  if (xffi_seq_check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned;
  if (xffi_seq_copy_value(__func__, &owned, value) != XFFI_OK) return XFFI_FAIL;
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
  if (xffi_seq_reserve(cell, cell->size + 1) != XFFI_OK) {
    xffi_any_release(&owned);
    return XFFI_FAIL;
  }
  xffi_seq_insert_at(cell, cell->size, &owned);
  return XFFI_OK;
}
