/* c/lib/tensor/tensor_view.h: Tensors that view another object's memory
 * (private; c/lib/tensor/tensor.c). */
#ifndef XFFI_LIB_TENSOR_TENSOR_VIEW_H
#define XFFI_LIB_TENSOR_TENSOR_VIEW_H

#include "runtime/internal.h"

/* A Tensor describing prototype (borrowed; ndim >= 0 and a shape when
 * ndim > 0, checked by the caller): its data pointer, dtype, device and
 * byte_offset as they are, shape and strides copied (compact strides when
 * NULL). It holds a new reference to source (borrowed) and frees no data.
 * *out receives a new reference, or NULL with MemoryError. */
int xffi_tensor_view_new(xffi_object **out, xffi_object *source, const DLTensor *prototype) XFFI_INTERNAL;

#endif /* XFFI_LIB_TENSOR_TENSOR_VIEW_H */
