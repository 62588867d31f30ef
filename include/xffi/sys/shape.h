/* xffi/sys/shape.h: the Shape cell (extension tier).
 *
 * xffi/shape.h includes it: xffi_shape_cell_of fills the cell struct. */
#ifndef XFFI_SYS_SHAPE_H
#define XFFI_SYS_SHAPE_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/sys/object.h>

XFFI_EXTERN_C_BEGIN

/* The cell of a Shape object. data is never NULL (it points at the inline
 * dimensions even when size is 0). */
typedef struct xffi_shape_cell {
  const int64_t *data;
  size_t size;
} xffi_shape_cell;

/* A Shape's cell (borrowed from shape), with no call and no check: shape
 * must be a live Shape (borrowed). Valid while shape lives. The checked form
 * is xffi_shape_cell_of. */
static inline const xffi_shape_cell *xffi_shape_cell_of_unchecked(const xffi_object *shape) {
  return XFFI_OBJECT_CELL(const xffi_shape_cell, shape);
}

XFFI_EXTERN_C_END

#endif /* XFFI_SYS_SHAPE_H */
