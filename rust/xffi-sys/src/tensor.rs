//! `xffi/tensor.h` and `xffi/sys/tensor.h` (extension tier: the Tensor
//! cell): Tensor objects and their DLPack import and export.

use core::ffi::c_int;

use crate::dlpack::{DLDataType, DLManagedTensor, DLManagedTensorVersioned, DLTensor};
use crate::object::{xffi_object, xffi_object_cell};

/// The alignment of the data of tensors made by xffi_tensor_new.
pub const XFFI_TENSOR_ALIGNMENT: usize = 64;
/// The DLPack major version xffi reads and writes.
pub const XFFI_DLPACK_MAJOR: u32 = 1;
/// The DLPack minor version xffi writes into exported tensors.
pub const XFFI_DLPACK_MINOR: u32 = 1;

extern "C" {
    /// New zero-filled CPU tensor (shape copied).
    pub fn xffi_tensor_new(out: *mut *mut xffi_object, shape: *const i64, ndim: i32, dtype: DLDataType) -> c_int;
    /// Adopts a DLPack 1.x managed tensor (stolen on success only).
    pub fn xffi_tensor_from_dlpack(out: *mut *mut xffi_object, managed: *mut DLManagedTensorVersioned) -> c_int;
    /// The same for the legacy (pre-1.0) DLManagedTensor, which has no version and no flags: the
    /// Tensor is writable.
    pub fn xffi_tensor_from_dlpack_legacy(out: *mut *mut xffi_object, managed: *mut DLManagedTensor) -> c_int;
    /// As [`xffi_tensor_from_dlpack`] for a trusted producer: the descriptor's
    /// values are taken as they are (only out, managed, the major version,
    /// ndim and shape are checked).
    pub fn xffi_tensor_from_dlpack_unchecked(
        out: *mut *mut xffi_object,
        managed: *mut DLManagedTensorVersioned,
    ) -> c_int;
    /// As [`xffi_tensor_from_dlpack_unchecked`] for the legacy format.
    pub fn xffi_tensor_from_dlpack_legacy_unchecked(out: *mut *mut xffi_object, managed: *mut DLManagedTensor)
        -> c_int;
    /// Exports as DLPack 1.x (the managed tensor holds a strong reference until its deleter runs).
    pub fn xffi_tensor_to_dlpack(out: *mut *mut DLManagedTensorVersioned, tensor: *mut xffi_object) -> c_int;
    /// The same as a legacy DLManagedTensor. Errors: as above, and a ValueError for a read-only
    /// Tensor (the legacy format cannot say it is read-only).
    pub fn xffi_tensor_to_dlpack_legacy(out: *mut *mut DLManagedTensor, tensor: *mut xffi_object) -> c_int;
    /// Writes 1 to \*out if tensor (borrowed) is read-only, else 0. Errors: ValueError for NULL
    /// arguments, TypeError if tensor is not a Tensor.
    pub fn xffi_tensor_is_read_only(out: *mut c_int, tensor: *const xffi_object) -> c_int;
    /// Makes tensor (borrowed) read-only from now on (there is no way back: other holders may rely
    /// on it). Errors: as xffi_tensor_is_read_only.
    pub fn xffi_tensor_set_read_only(tensor: *mut xffi_object) -> c_int;
    /// Checked access to a Tensor's cell, its DLTensor: \*out borrows it from tensor (borrowed),
    /// valid while the Tensor lives. The unchecked inline form is xffi_tensor_cell_of_unchecked
    /// (xffi/sys/tensor.h). Errors: ValueError for NULL arguments, TypeError if tensor is not a
    /// Tensor.
    pub fn xffi_tensor_cell_of(out: *mut *mut DLTensor, tensor: *mut xffi_object) -> c_int;
    /// The number of elements (the product of the shape; 1 for ndim 0). Errors: ValueError for NULL
    /// arguments, TypeError if tensor is not a Tensor.
    pub fn xffi_tensor_numel(out: *mut i64, tensor: *const xffi_object) -> c_int;
    /// The number of bytes of the elements if stored compactly (numel \* bits \* lanes / 8, rounded
    /// up). Errors: as xffi_tensor_numel.
    pub fn xffi_tensor_nbytes(out: *mut u64, tensor: *const xffi_object) -> c_int;
    /// Writes 1 to \*out if the elements are compact in row-major order (the strides are what xffi
    /// would compute, ignoring dimensions of size 1), else 0. Errors: as xffi_tensor_numel.
    pub fn xffi_tensor_is_contiguous(out: *mut c_int, tensor: *const xffi_object) -> c_int;
    /// Makes a Shape object (xffi/shape.h) with a copy of the Tensor's shape. \*out receives a new
    /// reference. Errors: ValueError for NULL arguments, TypeError if tensor is not a Tensor;
    /// MemoryError (then \*out is NULL).
    pub fn xffi_tensor_shape(out: *mut *mut xffi_object, tensor: *const xffi_object) -> c_int;
}

/// A Tensor's DLTensor (unchecked).
///
/// # Safety
/// `tensor` must be a live Tensor.
#[inline(always)]
pub unsafe fn xffi_tensor_cell_of_unchecked(tensor: *const xffi_object) -> *mut DLTensor {
    xffi_object_cell(tensor as *mut xffi_object)
}
