/* xffi/tensor.h: Tensor objects (type index 70) and DLPack 1.x exchange.
 *
 * A Tensor's cell is a DLTensor placed directly after the 24-byte object
 * header (layout shared with tvm-ffi 0.1), so reaching it
 * (xffi_tensor_cell_of_unchecked, xffi/sys/tensor.h) is a pointer addition. Its shape and strides live inside the
 * Tensor's own allocation, and strides are always filled in: when a producer gives NULL strides (compact row-major),
 * xffi computes them. Strides count elements, as in DLPack; byte_offset is kept as the producer gave it.
 *
 * Tensors come from three places:
 * - xffi_tensor_new allocates a zero-filled CPU tensor whose data is 64-byte
 *   aligned (one allocation holds the object and the data);
 * - xffi_tensor_from_dlpack / _legacy adopt a producer's managed tensor with
 *   no copy of the data; the producer's deleter runs exactly once, when the
 *   last strong reference to the Tensor goes (the _unchecked forms do the
 *   same for trusted producers, without the validation below);
 * - a tensor exported with xffi_tensor_to_dlpack and imported back is the
 *   same Tensor again (no allocation, no wrapper around a wrapper).
 *
 * Read-only: a Tensor records whether its data may be written. Importing a
 * versioned tensor with DLPACK_FLAG_BITMASK_READ_ONLY makes it read-only;
 * exporting a read-only Tensor sets the flag. The legacy DLManagedTensor has
 * no flags: a legacy import is writable, and exporting a read-only Tensor to
 * the legacy format is refused (ValueError). xffi never writes a Tensor's
 * data itself; honouring the flag when writing through the DLTensor is the
 * caller's job.
 *
 * Validation (every import but the _unchecked ones, and xffi_tensor_new)
 * raises a ValueError for: a negative ndim, a NULL shape with ndim > 0, a
 * negative dimension, zero bits or zero lanes, a byte size or stride extent
 * that overflows int64, a NULL data pointer for a non-empty tensor, an
 * unknown device type or a negative device id. The message names the
 * function, the field and the value. */
#ifndef XFFI_TENSOR_H
#define XFFI_TENSOR_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/dlpack.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* The alignment of the data of tensors made by xffi_tensor_new. */
#define XFFI_TENSOR_ALIGNMENT 64

/* The DLPack major version xffi reads and writes. */
#define XFFI_DLPACK_MAJOR 1
/* The DLPack minor version xffi writes into exported tensors. */
#define XFFI_DLPACK_MINOR 1

/* Allocates a Tensor on cpu:0 with the given shape (borrowed, copied) and
 * dtype, zero-filled, its data aligned to XFFI_TENSOR_ALIGNMENT bytes and
 * compact row-major strides. One allocation. *out receives a new reference.
 * Errors: ValueError for a NULL out and for the malformed inputs listed at
 * the top; MemoryError (then *out is NULL). */
XFFI_API int xffi_tensor_new(xffi_object **out, const int64_t *shape, int32_t ndim, DLDataType dtype);

/* Adopts a DLPack 1.x managed tensor, with no copy of the data. On success
 * the Tensor owns managed (stolen): it calls managed->deleter (if not NULL)
 * exactly once when its last strong reference goes, and *out receives a new
 * reference. On failure nothing is taken: the caller still owns managed and
 * must call its deleter itself; *out is NULL.
 * Errors: ValueError for NULL arguments, a major version other than
 * XFFI_DLPACK_MAJOR, and the malformed inputs listed at the top; MemoryError. */
XFFI_API int xffi_tensor_from_dlpack(xffi_object **out, DLManagedTensorVersioned *managed);

/* The same for the legacy (pre-1.0) DLManagedTensor, which has no version
 * and no flags: the Tensor is writable. */
XFFI_API int xffi_tensor_from_dlpack_legacy(xffi_object **out, DLManagedTensor *managed);

/* xffi_tensor_from_dlpack for a producer trusted to describe a valid tensor
 * (a framework's own tensors, converted on every call): the descriptor's
 * values are taken as they are, without the checks listed at the top (sizes,
 * overflows, dtype, device, data pointer), the way tvm-ffi imports. A wrong
 * descriptor is undefined behaviour later, not an error. Still checked,
 * because xffi's own memory depends on them: out, managed, the major version,
 * ndim >= 0 and a shape when ndim > 0. The Tensor keeps pointing at the
 * producer's shape and strides arrays (strides computed when NULL), which
 * the producer must leave unchanged until its deleter runs, where the checked
 * import copies them. An export of xffi's own still comes back as the same
 * Tensor, and ownership is as for xffi_tensor_from_dlpack.
 * Errors: ValueError for the checked inputs; MemoryError. */
XFFI_API int xffi_tensor_from_dlpack_unchecked(xffi_object **out, DLManagedTensorVersioned *managed);

/* xffi_tensor_from_dlpack_legacy for a trusted producer, as
 * xffi_tensor_from_dlpack_unchecked is for DLPack 1.x (the same checks, no
 * version to check): tvm-ffi's TVMFFITensorFromDLPack's counterpart.
 * managed is stolen on success only; *out receives a new reference.
 * Errors: ValueError for a NULL out or managed, ndim < 0, or a NULL shape
 * with ndim > 0; MemoryError. */
XFFI_API int xffi_tensor_from_dlpack_legacy_unchecked(xffi_object **out, DLManagedTensor *managed);

/* Exports tensor (borrowed) as a DLPack 1.x managed tensor, with no copy of
 * the data: one allocation, and the managed tensor holds a strong reference
 * to the Tensor until the consumer calls its deleter (exactly once, from any
 * thread). The DLTensor's shape and strides point into the Tensor. version is
 * {XFFI_DLPACK_MAJOR, XFFI_DLPACK_MINOR}; flags has
 * DLPACK_FLAG_BITMASK_READ_ONLY when the Tensor is read-only.
 * Errors: ValueError for NULL arguments, TypeError if tensor is not a
 * Tensor; MemoryError (then *out is NULL). */
XFFI_API int xffi_tensor_to_dlpack(DLManagedTensorVersioned **out, xffi_object *tensor);

/* The same as a legacy DLManagedTensor. Errors: as above, and a ValueError
 * for a read-only Tensor (the legacy format cannot say it is read-only). */
XFFI_API int xffi_tensor_to_dlpack_legacy(DLManagedTensor **out, xffi_object *tensor);

/* Writes 1 to *out if tensor (borrowed) is read-only, else 0.
 * Errors: ValueError for NULL arguments, TypeError if tensor is not a Tensor. */
XFFI_API int xffi_tensor_is_read_only(int *out, const xffi_object *tensor);

/* Makes tensor (borrowed) read-only from now on (there is no way back: other
 * holders may rely on it). Errors: as xffi_tensor_is_read_only. */
XFFI_API int xffi_tensor_set_read_only(xffi_object *tensor);

/* Checked access to a Tensor's cell, its DLTensor: *out borrows it from
 * tensor (borrowed), valid while the Tensor lives. The unchecked inline form
 * is xffi_tensor_cell_of_unchecked (xffi/sys/tensor.h).
 * Errors: ValueError for NULL arguments, TypeError if tensor is not a Tensor. */
XFFI_API int xffi_tensor_cell_of(DLTensor **out, xffi_object *tensor);

/* The number of elements (the product of the shape; 1 for ndim 0).
 * Errors: ValueError for NULL arguments, TypeError if tensor is not a Tensor. */
XFFI_API int xffi_tensor_numel(int64_t *out, const xffi_object *tensor);

/* The number of bytes of the elements if stored compactly
 * (numel * bits * lanes / 8, rounded up). Errors: as xffi_tensor_numel. */
XFFI_API int xffi_tensor_nbytes(uint64_t *out, const xffi_object *tensor);

/* Writes 1 to *out if the elements are compact in row-major order (the
 * strides are what xffi would compute, ignoring dimensions of size 1), else 0.
 * Errors: as xffi_tensor_numel. */
XFFI_API int xffi_tensor_is_contiguous(int *out, const xffi_object *tensor);

/* Makes a Shape object (xffi/shape.h) with a copy of the Tensor's shape.
 * *out receives a new reference.
 * Errors: ValueError for NULL arguments, TypeError if tensor is not a Tensor;
 * MemoryError (then *out is NULL). */
XFFI_API int xffi_tensor_shape(xffi_object **out, const xffi_object *tensor);

XFFI_EXTERN_C_END

#endif /* XFFI_TENSOR_H */
