/* c/lib/container/seq.h: the sequence storage and argument checks that Array and List
 * share, between their everyday operations (c/lib/container/array.c: make, read, set,
 * push, release; compiled for speed) and the rest (c/lib/container/seq_edit.c: slice,
 * pop, insert, erase, clear, reserve; compiled for size). Private to the library. */
#ifndef XFFI_SEQ_H
#define XFFI_SEQ_H

#include <string.h>

#include "runtime/check.h"
#include "runtime/internal.h"

/* The largest element count whose storage size fits both size_t and int64. */
int64_t xffi_seq_max_capacity(void) XFFI_INTERNAL;

/* A new empty sequence of the given type (a new reference) with room for
 * capacity elements: inline for an Array, in a separate buffer for a List
 * (see the top of array.c). NULL with an error raised on failure
 * (MemoryError, or a custom object allocator's), nothing left allocated. */
xffi_object *xffi_seq_alloc(int32_t type_index, int64_t capacity) XFFI_INTERNAL;

/* The capacity to grow to when `need` elements must fit. */
int64_t xffi_seq_grow_capacity(int64_t capacity, int64_t need) XFFI_INTERNAL;

/* Gives the sequence room for exactly `capacity` elements (> its current
 * capacity). Raises MemoryError on failure, leaving the sequence unchanged. */
int xffi_seq_reserve_exact(xffi_seq_cell *cell, int64_t capacity) XFFI_INTERNAL;

/* Copy-on-write: makes *array (an Array; the caller's reference, replaced
 * by a new one when shared) unique with room for `need` elements. On
 * failure nothing changed. */
int xffi_array_make_unique(xffi_object **array, int64_t need) XFFI_INTERNAL;

/* XFFI_OK when 0 <= index < size (index <= size with allow_end), else an
 * IndexError naming fn. */
int xffi_seq_check_index(const char *fn, int64_t index, int64_t size, int allow_end) XFFI_INTERNAL;

/* xffi_seq_check_arg's error: a NULL or non-sequence obj, for fn. */
int xffi_seq_check_arg_failed(const char *fn, const xffi_object *obj) XFFI_INTERNAL;

/* Checks a sequence argument (an Array or a List) of fn. */
static inline int xffi_seq_check_arg(const char *fn, const xffi_object *obj) {
  if (XFFI_LIKELY(obj && xffi_object_is_seq(obj))) return XFFI_OK;
  return xffi_seq_check_arg_failed(fn, obj);
}

/* Checks a List argument: the exact type inline, the general check (and its
 * message) otherwise. */
static inline int xffi_seq_check_list(const char *fn, const xffi_object *list) {
  if (XFFI_LIKELY(list && list->type_index == XFFI_TYPE_LIST)) return XFFI_OK;
  return xffi_check_object_arg(fn, "list", list, XFFI_TYPE_LIST);
}

/* Checks an Array in/out argument. */
static inline int xffi_seq_check_array_ref(const char *fn, xffi_object **array) {
  if (XFFI_LIKELY(array && *array && (*array)->type_index == XFFI_TYPE_ARRAY)) return XFFI_OK;
  if (!array) return xffi_raise_null_arg(fn, "array");
  if (!*array) return xffi_raise_null_arg(fn, "*array");
  return xffi_check_object_arg(fn, "*array", *array, XFFI_TYPE_ARRAY);
}

/* An owned duplicate of an owned element: a plain copy plus a reference. */
static inline xffi_any xffi_seq_dup(const xffi_any *v) {
  if (xffi_any_is_object(v)) xffi_object_inc_ref_inline(v->v_obj);
  return *v;
}

/* Whether the caller's reference is the only one: strong 1, no weak
 * references (a weak one could be locked concurrently). */
static inline int xffi_seq_is_unique(const xffi_object *obj) {
  return __atomic_load_n(XFFI_REF_COUNTS(obj), __ATOMIC_ACQUIRE) == XFFI_REF_INITIAL;
}

/* Makes room for `need` elements in place, growing geometrically. */
static inline int xffi_seq_reserve(xffi_seq_cell *cell, int64_t need) {
  if (XFFI_LIKELY(need <= cell->capacity)) return XFFI_OK;
  if (need > xffi_seq_max_capacity()) return xffi_error_raise_out_of_memory();
  return xffi_seq_reserve_exact(cell, xffi_seq_grow_capacity(cell->capacity, need));
}

/* Moves *value (owned) into the cell at index, which has room. */
static inline void xffi_seq_insert_at(xffi_seq_cell *cell, int64_t index, xffi_any *value) {
  xffi_any *data = (xffi_any *)cell->data;
  if (index < cell->size) memmove(data + index + 1, data + index, (size_t)(cell->size - index) * sizeof(xffi_any));
  xffi_any_move(&data[index], value);
  cell->size += 1;
}

/* An owned copy of a value view (borrowed) into *owned; an rvalue (a move)
 * or a malformed value (xffi/any.h) cannot be stored. */
static inline int xffi_seq_copy_value(const char *fn, xffi_any *owned, const xffi_any *value) {
  if (!value) return xffi_raise_null_arg(fn, "value");
  if (XFFI_UNLIKELY(!xffi_any_is_well_formed(value))) return xffi_any_raise_malformed(fn, "value", value);
  int32_t t = value->type_index;
  if (XFFI_LIKELY(t != XFFI_TYPE_RAW_STR && t != XFFI_TYPE_BYTE_ARRAY_PTR && t != XFFI_TYPE_OBJECT_RVALUE)) {
    *owned = xffi_seq_dup(value); /* the common case, as xffi_any_copy does it */
    return XFFI_OK;
  }
  if (value->type_index == XFFI_TYPE_OBJECT_RVALUE)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: value is an object rvalue reference (a move), which cannot be stored",
                            fn);
  *owned = xffi_any_none();
  return xffi_any_copy(owned, value);
}

#endif /* XFFI_SEQ_H */
