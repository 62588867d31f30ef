/* xffi/sys/array.h: the sequence cell behind Array and List (extension tier).
 *
 * Unchecked inline access to the elements for hot loops; the checked forms
 * are xffi_array_length, xffi_array_items and xffi_array_get (xffi/array.h). */
#ifndef XFFI_SYS_ARRAY_H
#define XFFI_SYS_ARRAY_H

#include <stdint.h>
#include <xffi/any.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/sys/object.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* The sequence cell (layout shared with tvm-ffi 0.1), directly after the
 * object header of an Array or a List.
 * - data: `capacity` Any slots, the first `size` of them owned elements.
 * - data_deleter: frees `data`; NULL means the elements live inside the
 *   object's own allocation (right after this cell). A List made by xffi
 *   always has one (its buffer is separate, and allocated even at capacity 0),
 *   since tvm-ffi's C++ List calls it unconditionally when it grows a list. */
typedef struct xffi_seq_cell {
  void *data;
  int64_t size;
  int64_t capacity;
  void (*data_deleter)(void *data);
} xffi_seq_cell;

/* ---- Unchecked inline access (no call) ----
 * seq must be a live Array or List (borrowed; not checked). */

/* The cell of an Array or List. */
static inline xffi_seq_cell *xffi_seq_cell_of_unchecked(const xffi_object *seq) {
  return XFFI_OBJECT_CELL(xffi_seq_cell, seq);
}
/* The number of elements. */
static inline int64_t xffi_seq_size_unchecked(const xffi_object *seq) { return xffi_seq_cell_of_unchecked(seq)->size; }
/* The elements (borrowed): valid until the sequence changes or is freed.
 * Iterate with `for (i = 0; i < xffi_seq_size_unchecked(s); ++i) use(&items[i]);`. */
static inline const xffi_any *xffi_seq_items_unchecked(const xffi_object *seq) {
  return (const xffi_any *)xffi_seq_cell_of_unchecked(seq)->data;
}
/* Whether obj (borrowed, not NULL) is an Array or a List: 1 or 0. */
static inline int xffi_object_is_seq(const xffi_object *obj) {
  return obj->type_index == XFFI_TYPE_ARRAY || obj->type_index == XFFI_TYPE_LIST;
}

XFFI_EXTERN_C_END

#endif /* XFFI_SYS_ARRAY_H */
