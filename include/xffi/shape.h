/* xffi/shape.h: Shape, an immutable tuple of int64 dimensions (type index 69).
 *
 * The cell (layout shared with tvm-ffi 0.1) is { const int64_t *data;
 * size_t size; }; the dimensions are stored inline right after it, in the
 * object's single allocation. A Shape holds any int64 values (a -1 for an
 * unknown dimension is allowed); xffi_shape_product is what checks that the
 * values are sizes. */
#ifndef XFFI_SHAPE_H
#define XFFI_SHAPE_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/sys/shape.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* Whether two dimension runs are equal (same length, same values). */
static inline int xffi_dims_equal(const int64_t *a, int32_t a_ndim, const int64_t *b, int32_t b_ndim) {
  if (a_ndim != b_ndim) return 0;
  for (int32_t i = 0; i < a_ndim; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* Makes a Shape holding a copy of dims[0..ndim) (borrowed). *out receives a
 * new reference. Errors: ValueError for a NULL out, a negative ndim, or NULL
 * dims with ndim > 0; MemoryError (then *out is NULL). */
XFFI_API int xffi_shape_new(xffi_object **out, const int64_t *dims, int32_t ndim);

/* Checked access to a Shape's cell (xffi/sys/shape.h): *out borrows the
 * dimensions from shape (borrowed), valid while it lives. The unchecked
 * inline form is xffi_shape_cell_of_unchecked. Errors: ValueError for NULL arguments,
 * TypeError if shape is not a Shape. */
XFFI_API int xffi_shape_cell_of(xffi_shape_cell *out, const xffi_object *shape);

/* The number of elements of a shape: the product of its dimensions (1 for
 * no dimensions). shape is borrowed. Errors: ValueError for NULL arguments, a
 * negative dimension or a product that overflows int64; TypeError if shape is
 * not a Shape. */
XFFI_API int xffi_shape_product(int64_t *out, const xffi_object *shape);

/* The same for a run of dimensions (dims borrowed, NULL only when ndim is 0).
 * Errors: as above, and ValueError for a negative ndim. */
XFFI_API int xffi_dims_product(int64_t *out, const int64_t *dims, int32_t ndim);

/* Whether two Shapes (borrowed) hold the same dimensions: writes 1 or 0 to
 * *out. Errors: ValueError for NULL arguments, TypeError for non-Shapes. */
XFFI_API int xffi_shape_equal(int *out, const xffi_object *a, const xffi_object *b);

XFFI_EXTERN_C_END

#endif /* XFFI_SHAPE_H */
