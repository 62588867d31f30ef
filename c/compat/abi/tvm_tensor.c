/* c/compat/abi/tvm_tensor.c: tvm-ffi's DLPack and view functions (TVMFFITensor*).
 * Imports validate the producer's tensor as xffi_tensor_from_dlpack does
 * (tvm-ffi takes it as it is) and, like tvm-ffi, check the requested
 * alignment and contiguity before taking anything: on any failure the
 * caller still owns `from`. */
#include <xffi/tensor.h>
#include <xffi/tvm_ffi.h>

#include "runtime/check.h"
#include "runtime/internal.h"
#include "lib/tensor/tensor_view.h"

/* Devices whose data pointer is an address the host can align-check
 * (tvm-ffi's list); elsewhere only byte_offset is checked. */
static int direct_address_device(DLDevice device) {
  int32_t t = (int32_t)device.device_type;
  return t <= kDLCUDAHost || t == kDLCUDAManaged || t == kDLROCM || t == kDLROCMHost;
}

/* tvm-ffi's contiguity: compact row-major strides, ignoring dimensions of
 * extent 1; NULL strides and empty tensors are contiguous. */
static int dltensor_is_contiguous(const DLTensor *t) {
  if (!t->strides) return 1;
  for (int32_t i = 0; i < t->ndim; ++i)
    if (t->shape[i] == 0) return 1;
  int64_t expected = 1;
  for (int32_t k = t->ndim - 1; k >= 0; --k) {
    if (t->shape[k] == 1) continue;
    if (t->strides[k] != expected) return 0;
    if (__builtin_mul_overflow(expected, t->shape[k], &expected)) return 0;
  }
  return 1;
}

/* The checks made before ownership is taken. t is the producer's tensor. */
static int check_requirements(const char *function, const DLTensor *t, int32_t require_alignment,
                              int32_t require_contiguous) {
  if (require_alignment < 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: require_alignment is %d, expected >= 0", function,
                            (int)require_alignment);
  if (require_alignment) {
    uint64_t address = (uint64_t)t->byte_offset;
    if (direct_address_device(t->device)) address += (uint64_t)(uintptr_t)t->data;
    if (address % (uint64_t)require_alignment != 0)
      return xffi_error_raise(XFFI_KIND_RUNTIME, "FromDLPack: Data is not aligned to %d bytes.",
                              (int)require_alignment);
  }
  if (require_contiguous) {
    /* The shape is read only when it is there (validation reports the rest). */
    if (t->ndim > 0 && !t->shape)
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: shape is NULL but ndim is %d", function, (int)t->ndim);
    if (!dltensor_is_contiguous(t)) return xffi_error_raise(XFFI_KIND_RUNTIME, "FromDLPack: Tensor is not contiguous.");
  }
  return XFFI_OK;
}

int TVMFFITensorFromDLPack(DLManagedTensor *from, int32_t require_alignment, int32_t require_contiguous, void **out) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_NOT_NULL(from);
  if (check_requirements(__func__, &from->dl_tensor, require_alignment, require_contiguous) != XFFI_OK)
    return XFFI_FAIL;
  xffi_object *tensor = NULL;
  if (xffi_tensor_from_dlpack_legacy(&tensor, from) != XFFI_OK) return XFFI_FAIL;
  *out = tensor;
  return 0;
}

int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned *from, int32_t require_alignment,
                                    int32_t require_contiguous, void **out) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_NOT_NULL(from);
  if (check_requirements(__func__, &from->dl_tensor, require_alignment, require_contiguous) != XFFI_OK)
    return XFFI_FAIL;
  if (from->flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED)
    return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: Subbyte type padded is not yet supported", __func__);
  xffi_object *tensor = NULL;
  if (xffi_tensor_from_dlpack(&tensor, from) != XFFI_OK) return XFFI_FAIL;
  *out = tensor;
  return 0;
}

int TVMFFITensorToDLPack(void *from, DLManagedTensor **out) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  return xffi_tensor_to_dlpack_legacy(out, from);
}

int TVMFFITensorToDLPackVersioned(void *from, DLManagedTensorVersioned **out) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  return xffi_tensor_to_dlpack(out, from);
}

int TVMFFITensorCreateUnsafeView(void *source, const DLTensor *prototype, void **out) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  if (xffi_check_object_arg(__func__, "source", source, XFFI_TYPE_TENSOR) != XFFI_OK) return XFFI_FAIL;
  XFFI_CHECK_ARG_NOT_NULL(prototype);
  /* Unsafe: nothing about the data is checked, but what is copied must exist. */
  if (prototype->ndim < 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: prototype->ndim is %d, expected >= 0", __func__,
                            (int)prototype->ndim);
  if (prototype->ndim > 0 && !prototype->shape)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: prototype->shape is NULL but prototype->ndim is %d", __func__,
                            (int)prototype->ndim);
  xffi_object *view = NULL;
  if (xffi_tensor_view_new(&view, source, prototype) != XFFI_OK) return XFFI_FAIL;
  *out = view;
  return 0;
}
