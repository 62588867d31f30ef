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
 * loops that release re-read the cell each step. */
#include <stdio.h>
#include <string.h>

#include <xffi/array.h>

#include "lib/container/array_move.h"
#include "runtime/check.h"
#include "runtime/internal.h"
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

/* The largest element count whose storage size fits both size_t and int64. */
static int64_t seq_max_capacity(void) {
  uint64_t by_size = (uint64_t)((XFFI_SEQ_BUFFER_MAX_BYTES - SEQ_HEADER_BYTES) / sizeof(xffi_any));
  uint64_t by_int = (uint64_t)INT64_MAX / sizeof(xffi_any);
  return (int64_t)(by_size < by_int ? by_size : by_int);
}

/* An owned duplicate of an owned element: a plain copy plus a reference. */
static inline xffi_any any_dup(const xffi_any *v) {
  if (xffi_any_is_object(v)) xffi_object_inc_ref_inline(v->v_obj);
  return *v;
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

/* A new empty sequence of the given type (a new reference) with room for
 * capacity elements: inline for an Array, in a separate buffer for a List
 * (see the top of this file). NULL with an error raised on failure
 * (MemoryError, or a custom object allocator's), nothing left allocated. */
static xffi_object *seq_alloc(int32_t type_index, int64_t capacity) {
  if (capacity > seq_max_capacity()) {
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

/* The capacity to grow to when `need` elements must fit. */
static int64_t seq_grow_capacity(int64_t capacity, int64_t need) {
  int64_t max = seq_max_capacity();
  int64_t grown = capacity < 4 ? 4 : (capacity > max / 2 ? max : capacity * 2);
  return grown > need ? grown : need;
}

/* Gives the sequence room for exactly `capacity` elements (> its current
 * capacity). Raises MemoryError on failure, leaving the sequence unchanged. */
static int seq_reserve_exact(xffi_seq_cell *cell, int64_t capacity) {
  if (capacity > seq_max_capacity()) return xffi_error_raise_out_of_memory();
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

/* Makes room for `need` elements in place, growing geometrically. */
static inline int seq_reserve(xffi_seq_cell *cell, int64_t need) {
  if (XFFI_LIKELY(need <= cell->capacity)) return XFFI_OK;
  if (need > seq_max_capacity()) return xffi_error_raise_out_of_memory();
  return seq_reserve_exact(cell, seq_grow_capacity(cell->capacity, need));
}

/* Whether the caller's reference is the only one: strong 1, no weak
 * references (a weak one could be locked concurrently). */
static int seq_is_unique(const xffi_object *obj) {
  return __atomic_load_n(XFFI_REF_COUNTS(obj), __ATOMIC_ACQUIRE) == XFFI_REF_INITIAL;
}

/* ---- Argument checks ---- */

/* The name of the sequence parameter of fn: "list" for xffi_list_*, else "array". */
static const char *seq_arg_name(const char *fn) { return strncmp(fn, "xffi_list", 9) == 0 ? "list" : "array"; }

static inline int check_seq_arg(const char *fn, const xffi_object *obj) {
  if (XFFI_LIKELY(obj && xffi_object_is_seq(obj))) return XFFI_OK;
  const char *arg = seq_arg_name(fn);
  if (!obj) return xffi_raise_null_arg(fn, arg);
  if (xffi_object_is_seq(obj)) return XFFI_OK;
  xffi_any view = xffi_any_object((xffi_object *)obj);
  return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s expected ffi.Array or ffi.List, got %s", fn, arg,
                          xffi_any_kind_name(&view));
}

static int check_index(const char *fn, int64_t index, int64_t size, int allow_end) {
  int64_t limit = allow_end ? size : size - 1;
  if (index >= 0 && index <= limit) return XFFI_OK;
  return xffi_error_raise(XFFI_KIND_INDEX, "%s: index %lld is out of range for length %lld", fn, (long long)index,
                          (long long)size);
}

/* Checks a List argument: the exact type inline, the general check (and its
 * message) otherwise. */
static inline int check_list(const char *fn, const xffi_object *list) {
  if (XFFI_LIKELY(list && list->type_index == XFFI_TYPE_LIST)) return XFFI_OK;
  return xffi_check_object_arg(fn, "list", list, XFFI_TYPE_LIST);
}

/* Checks an Array in/out argument. */
static inline int check_array_ref(const char *fn, xffi_object **array) {
  if (XFFI_LIKELY(array && *array && (*array)->type_index == XFFI_TYPE_ARRAY)) return XFFI_OK;
  if (!array) return xffi_raise_null_arg(fn, "array");
  if (!*array) return xffi_raise_null_arg(fn, "*array");
  return xffi_check_object_arg(fn, "*array", *array, XFFI_TYPE_ARRAY);
}

/* Copy-on-write: makes *array unique with room for `need` elements. On
 * failure nothing changed. */
static int array_make_unique(xffi_object **array, int64_t need) {
  xffi_object *old = *array;
  xffi_seq_cell *old_cell = xffi_seq_cell_of_unchecked(old);
  if (seq_is_unique(old)) return seq_reserve(old_cell, need);
  int64_t size = old_cell->size;
  int64_t capacity = need > size ? seq_grow_capacity(size, need) : size;
  xffi_object *copy = seq_alloc(XFFI_TYPE_ARRAY, capacity);
  if (!copy) return XFFI_FAIL;
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(copy);
  const xffi_any *src = (const xffi_any *)old_cell->data;
  xffi_any *dst = (xffi_any *)cell->data;
  for (int64_t i = 0; i < size; ++i) dst[i] = any_dup(&src[i]);
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
  xffi_object *obj = seq_alloc(type_index, count);
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
  *out = seq_alloc(type_index, capacity);
  return *out ? XFFI_OK : XFFI_FAIL;
}

static int seq_length(const char *fn, int64_t *out, const xffi_object *seq) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  if (check_seq_arg(fn, seq) != XFFI_OK) return XFFI_FAIL;
  *out = xffi_seq_size_unchecked(seq);
  return XFFI_OK;
}

static int seq_get(const char *fn, xffi_any *out, const xffi_object *seq, int64_t index) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  if (check_seq_arg(fn, seq) != XFFI_OK) return XFFI_FAIL;
  if (check_index(fn, index, xffi_seq_size_unchecked(seq), 0) != XFFI_OK) return XFFI_FAIL;
  *out = any_dup(&xffi_seq_items_unchecked(seq)[index]);
  return XFFI_OK;
}

static int seq_items(const char *fn, const xffi_any **out_items, int64_t *out_size, const xffi_object *seq) {
  if (!out_items) return xffi_raise_null_arg(fn, "out_items");
  if (!out_size) return xffi_raise_null_arg(fn, "out_size");
  if (check_seq_arg(fn, seq) != XFFI_OK) return XFFI_FAIL;
  *out_items = xffi_seq_items_unchecked(seq);
  *out_size = xffi_seq_size_unchecked(seq);
  return XFFI_OK;
}

static int seq_slice(const char *fn, int32_t type_index, xffi_object **out, const xffi_object *seq, int64_t begin,
                     int64_t end) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  if (check_seq_arg(fn, seq) != XFFI_OK) return XFFI_FAIL;
  int64_t size = xffi_seq_size_unchecked(seq);
  if (begin < 0 || end < begin || end > size)
    return xffi_error_raise(XFFI_KIND_INDEX, "%s: range [%lld, %lld) is not within [0, %lld]", fn, (long long)begin,
                            (long long)end, (long long)size);
  xffi_object *obj = seq_alloc(type_index, end - begin);
  if (!obj) return XFFI_FAIL;
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(obj);
  /* Indexed, not offset up front: an empty List from tvm-ffi has NULL data. */
  const xffi_any *src = xffi_seq_items_unchecked(seq);
  xffi_any *dst = (xffi_any *)cell->data;
  for (int64_t i = 0; i < end - begin; ++i) dst[i] = any_dup(&src[begin + i]);
  cell->size = end - begin;
  *out = obj;
  return XFFI_OK;
}

/* The in-place operations, on a sequence already known to be unique (Array)
 * or shared-by-design (List), with room already made where needed. */

static void seq_set_at(xffi_seq_cell *cell, int64_t index, xffi_any *value) {
  xffi_any *slot = (xffi_any *)cell->data + index;
  xffi_any old = *slot;
  xffi_any_move(slot, value);
  xffi_any_release(&old);
}

static void seq_insert_at(xffi_seq_cell *cell, int64_t index, xffi_any *value) {
  xffi_any *data = (xffi_any *)cell->data;
  if (index < cell->size) memmove(data + index + 1, data + index, (size_t)(cell->size - index) * sizeof(xffi_any));
  xffi_any_move(&data[index], value);
  cell->size += 1;
}

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

/* An owned copy of a value view; an rvalue (a move) or a malformed value
 * (xffi/any.h) cannot be stored. */
static inline int copy_value(const char *fn, xffi_any *owned, const xffi_any *value) {
  if (!value) return xffi_raise_null_arg(fn, "value");
  if (XFFI_UNLIKELY(!xffi_any_is_well_formed(value))) return xffi_any_raise_malformed(fn, "value", value);
  int32_t t = value->type_index;
  if (XFFI_LIKELY(t != XFFI_TYPE_RAW_STR && t != XFFI_TYPE_BYTE_ARRAY_PTR && t != XFFI_TYPE_OBJECT_RVALUE)) {
    *owned = any_dup(value); /* the common case, as xffi_any_copy does it */
    return XFFI_OK;
  }
  if (value->type_index == XFFI_TYPE_OBJECT_RVALUE)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: value is an object rvalue reference (a move), which cannot be stored",
                            fn);
  *owned = xffi_any_none();
  return xffi_any_copy(owned, value);
}

/* ======================= Array ======================= */

int xffi_array_new(xffi_object **out, const xffi_any *items, int64_t count) {
  return seq_new(__func__, XFFI_TYPE_ARRAY, out, items, count);
}

int xffi_array_new_moved(xffi_object **out, xffi_any *items, int64_t count) {
  *out = seq_alloc(XFFI_TYPE_ARRAY, count);
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

int xffi_array_slice(xffi_object **out, const xffi_object *array, int64_t begin, int64_t end) {
  return seq_slice(__func__, XFFI_TYPE_ARRAY, out, array, begin, end);
}

int xffi_array_set(xffi_object **array, int64_t index, const xffi_any *value) {
  if (check_array_ref(__func__, array) != XFFI_OK) return XFFI_FAIL;
  if (check_index(__func__, index, xffi_seq_size_unchecked(*array), 0) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned;
  if (copy_value(__func__, &owned, value) != XFFI_OK) return XFFI_FAIL;
  if (array_make_unique(array, 0) != XFFI_OK) {
    xffi_any_release(&owned);
    return XFFI_FAIL;
  }
  seq_set_at(xffi_seq_cell_of_unchecked(*array), index, &owned);
  return XFFI_OK;
}

int xffi_array_push(xffi_object **array, const xffi_any *value) {
  if (check_array_ref(__func__, array) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned;
  if (copy_value(__func__, &owned, value) != XFFI_OK) return XFFI_FAIL;
  if (array_make_unique(array, xffi_seq_size_unchecked(*array) + 1) != XFFI_OK) {
    xffi_any_release(&owned);
    return XFFI_FAIL;
  }
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(*array);
  seq_insert_at(cell, cell->size, &owned);
  return XFFI_OK;
}

int xffi_array_pop(xffi_any *out, xffi_object **array) {
  if (check_array_ref(__func__, array) != XFFI_OK) return XFFI_FAIL;
  if (xffi_seq_size_unchecked(*array) == 0)
    return xffi_error_raise(XFFI_KIND_INDEX, "%s: pop from an empty Array", __func__);
  if (array_make_unique(array, 0) != XFFI_OK) return XFFI_FAIL;
  seq_pop_into(xffi_seq_cell_of_unchecked(*array), out);
  return XFFI_OK;
}

int xffi_array_insert(xffi_object **array, int64_t index, const xffi_any *value) {
  if (check_array_ref(__func__, array) != XFFI_OK) return XFFI_FAIL;
  if (check_index(__func__, index, xffi_seq_size_unchecked(*array), 1) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned;
  if (copy_value(__func__, &owned, value) != XFFI_OK) return XFFI_FAIL;
  if (array_make_unique(array, xffi_seq_size_unchecked(*array) + 1) != XFFI_OK) {
    xffi_any_release(&owned);
    return XFFI_FAIL;
  }
  seq_insert_at(xffi_seq_cell_of_unchecked(*array), index, &owned);
  return XFFI_OK;
}

int xffi_array_erase(xffi_object **array, int64_t index) {
  if (check_array_ref(__func__, array) != XFFI_OK) return XFFI_FAIL;
  if (check_index(__func__, index, xffi_seq_size_unchecked(*array), 0) != XFFI_OK) return XFFI_FAIL;
  if (array_make_unique(array, 0) != XFFI_OK) return XFFI_FAIL;
  seq_erase_at(xffi_seq_cell_of_unchecked(*array), index);
  return XFFI_OK;
}

int xffi_array_clear(xffi_object **array) {
  if (check_array_ref(__func__, array) != XFFI_OK) return XFFI_FAIL;
  if (seq_is_unique(*array)) {
    seq_clear(xffi_seq_cell_of_unchecked(*array));
    return XFFI_OK;
  }
  xffi_object *empty = seq_alloc(XFFI_TYPE_ARRAY, 0);
  if (!empty) return XFFI_FAIL;
  xffi_object *old = *array;
  *array = empty;
  xffi_object_dec_ref_inline(old);
  return XFFI_OK;
}

int xffi_array_reserve(xffi_object **array, int64_t capacity) {
  static const char fn[] = "xffi_array_reserve";
  if (check_array_ref(fn, array) != XFFI_OK) return XFFI_FAIL;
  if (capacity < 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: capacity is negative (%lld)", fn, (long long)capacity);
  if (capacity > seq_max_capacity()) return xffi_error_raise_out_of_memory();
  /* Shared: the copy that a later push would make anyway, made now with room. */
  if (!seq_is_unique(*array)) return array_make_unique(array, capacity);
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(*array);
  if (capacity <= cell->capacity) return XFFI_OK;
  return seq_reserve_exact(cell, capacity);
}

/* ======================= List ======================= */

int xffi_list_new(xffi_object **out, const xffi_any *items, int64_t count) {
  return seq_new(__func__, XFFI_TYPE_LIST, out, items, count);
}

int xffi_list_new_with_capacity(xffi_object **out, int64_t capacity) {
  return seq_new_with_capacity(__func__, XFFI_TYPE_LIST, out, capacity);
}

int xffi_list_slice(xffi_object **out, const xffi_object *list, int64_t begin, int64_t end) {
  return seq_slice(__func__, XFFI_TYPE_LIST, out, list, begin, end);
}

int xffi_list_set(xffi_object *list, int64_t index, const xffi_any *value) {
  if (check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  if (check_index(__func__, index, xffi_seq_size_unchecked(list), 0) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned;
  if (copy_value(__func__, &owned, value) != XFFI_OK) return XFFI_FAIL;
  seq_set_at(xffi_seq_cell_of_unchecked(list), index, &owned);
  return XFFI_OK;
}

int xffi_list_push(xffi_object *list, const xffi_any *value) {
  if (check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned;
  if (copy_value(__func__, &owned, value) != XFFI_OK) return XFFI_FAIL;
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
  if (seq_reserve(cell, cell->size + 1) != XFFI_OK) {
    xffi_any_release(&owned);
    return XFFI_FAIL;
  }
  seq_insert_at(cell, cell->size, &owned);
  return XFFI_OK;
}

int xffi_list_pop(xffi_any *out, xffi_object *list) {
  if (check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  if (xffi_seq_size_unchecked(list) == 0)
    return xffi_error_raise(XFFI_KIND_INDEX, "%s: pop from an empty List", __func__);
  seq_pop_into(xffi_seq_cell_of_unchecked(list), out);
  return XFFI_OK;
}

int xffi_list_insert(xffi_object *list, int64_t index, const xffi_any *value) {
  if (check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
  if (check_index(__func__, index, cell->size, 1) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned;
  if (copy_value(__func__, &owned, value) != XFFI_OK) return XFFI_FAIL;
  if (seq_reserve(cell, cell->size + 1) != XFFI_OK) {
    xffi_any_release(&owned);
    return XFFI_FAIL;
  }
  seq_insert_at(cell, index, &owned);
  return XFFI_OK;
}

int xffi_list_erase(xffi_object *list, int64_t index) {
  if (check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  if (check_index(__func__, index, xffi_seq_size_unchecked(list), 0) != XFFI_OK) return XFFI_FAIL;
  seq_erase_at(xffi_seq_cell_of_unchecked(list), index);
  return XFFI_OK;
}

int xffi_list_clear(xffi_object *list) {
  if (check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  seq_clear(xffi_seq_cell_of_unchecked(list));
  return XFFI_OK;
}

int xffi_list_reserve(xffi_object *list, int64_t capacity) {
  if (check_list(__func__, list) != XFFI_OK) return XFFI_FAIL;
  if (capacity < 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: capacity is negative (%lld)", __func__, (long long)capacity);
  xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(list);
  if (capacity <= cell->capacity) return XFFI_OK;
  if (capacity > seq_max_capacity()) return xffi_error_raise_out_of_memory();
  return seq_reserve_exact(cell, capacity);
}
