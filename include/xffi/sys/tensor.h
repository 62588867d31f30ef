/* xffi/sys/tensor.h: the Tensor cell (extension tier). */
#ifndef XFFI_SYS_TENSOR_H
#define XFFI_SYS_TENSOR_H

#include <xffi/dlpack.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/sys/object.h>

XFFI_EXTERN_C_BEGIN

/* The Tensor's cell, its DLTensor, with no call and no check: tensor must be
 * a live Tensor (borrowed). The pointer and the shape/strides it points at
 * are valid while the Tensor lives. Do not change the fields; write the data
 * only if the Tensor is not read-only. Takes a const object and returns a
 * writable DLTensor (as strchr does) so that one name serves both uses. The
 * checked form is xffi_tensor_cell_of. */
static inline DLTensor *xffi_tensor_cell_of_unchecked(const xffi_object *tensor) {
  return (DLTensor *)XFFI_OBJECT_CELL(const DLTensor, tensor);
}

XFFI_EXTERN_C_END

#endif /* XFFI_SYS_TENSOR_H */
