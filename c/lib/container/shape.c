/* c/lib/container/shape.c: Shape objects (header, cell and dimensions in one allocation,
 * from the runtime's object allocator: c/runtime/internal.h). */
#include <string.h>

#include <xffi/shape.h>

#include "runtime/check.h"
#include "runtime/internal.h"

typedef struct shape_object {
  xffi_object header;
  xffi_shape_cell cell;
  int64_t dims[];
} shape_object;

/* The object goes back through its allocation header (c/runtime/internal.h). */
static void shape_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

int xffi_shape_new(xffi_object **out, const int64_t *dims, int32_t requested_ndim) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  if (requested_ndim < 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: ndim is negative (%d)", __func__, (int)requested_ndim);
  size_t ndim = (size_t)requested_ndim;
  XFFI_CHECK_ARG(dims, dims || ndim == 0, XFFI_KIND_VALUE, "is NULL but ndim is %zu", ndim);
  if (ndim > (SIZE_MAX - sizeof(shape_object)) / sizeof(int64_t))
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: ndim %zu is too large", __func__, ndim);
  shape_object *s =
      xffi_runtime_object_alloc(sizeof(shape_object) + ndim * sizeof(int64_t), _Alignof(shape_object), XFFI_TYPE_SHAPE);
  if (!s) return XFFI_FAIL; /* raised */
  xffi_object_init(&s->header, XFFI_TYPE_SHAPE, shape_deleter);
  if (ndim) memcpy(s->dims, dims, ndim * sizeof(int64_t));
  s->cell.data = s->dims;
  s->cell.size = ndim;
  *out = &s->header;
  return XFFI_OK;
}

int xffi_shape_cell_of(xffi_shape_cell *out, const xffi_object *shape) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_OBJECT(shape, XFFI_TYPE_SHAPE);
  *out = *xffi_shape_cell_of_unchecked(shape);
  return XFFI_OK;
}

/* The product of dims, or a ValueError naming fn. */
static int dims_product(int64_t *out, const int64_t *dims, size_t ndim, const char *fn) {
  int64_t product = 1;
  int overflow = 0;
  for (size_t i = 0; i < ndim; i++) {
    if (dims[i] < 0)
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: dimension %zu is %lld, expected >= 0", fn, i, (long long)dims[i]);
    if (!overflow && __builtin_mul_overflow(product, dims[i], &product)) overflow = 1;
  }
  /* A zero dimension makes the product 0 even if a partial product overflowed. */
  if (overflow) {
    for (size_t i = 0; i < ndim; i++)
      if (dims[i] == 0) {
        *out = 0;
        return XFFI_OK;
      }
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: the product of the %zu dimensions overflows int64", fn, ndim);
  }
  *out = product;
  return XFFI_OK;
}

int xffi_dims_product(int64_t *out, const int64_t *dims, int32_t ndim) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  if (ndim < 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: ndim is negative (%d)", __func__, (int)ndim);
  if (!dims && ndim > 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: dims is NULL but ndim is %d", __func__, (int)ndim);
  return dims_product(out, dims, (size_t)ndim, __func__);
}

int xffi_shape_product(int64_t *out, const xffi_object *shape) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_OBJECT(shape, XFFI_TYPE_SHAPE);
  const xffi_shape_cell *cell = xffi_shape_cell_of_unchecked(shape);
  return dims_product(out, cell->data, cell->size, __func__);
}

int xffi_shape_equal(int *out, const xffi_object *a, const xffi_object *b) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_OBJECT(a, XFFI_TYPE_SHAPE);
  XFFI_CHECK_ARG_OBJECT(b, XFFI_TYPE_SHAPE);
  const xffi_shape_cell *x = xffi_shape_cell_of_unchecked(a);
  const xffi_shape_cell *y = xffi_shape_cell_of_unchecked(b);
  *out = x->size == y->size && (x->size == 0 || memcmp(x->data, y->data, x->size * sizeof(int64_t)) == 0);
  return XFFI_OK;
}
