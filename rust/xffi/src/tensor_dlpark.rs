//! A bridge to `dlpark`'s owned DLPack tensors (feature `dlpark`), both
//! ways with no copy of the data: [`Tensor::to_dlpark`] /
//! [`Tensor::to_dlpark_legacy`] export a Tensor as a `dlpark` handle, and
//! `dlpark`'s own conversion trait, `TryFromDlpack`, makes a Tensor of one.
//! Through `dlpark`, a Tensor reaches what it bridges to (ndarray, candle,
//! image, Python capsules).
//!
//! Both crates mirror DLPack's C structs (`#[repr(C)]`, the same fields), so
//! a managed tensor passes between them as a pointer; the sizes are asserted
//! below at compile time.

use std::ptr::NonNull;

use dlpark::TryFromDlpack;
use dlpark::ffi as dl;
use xffi_sys as sys;

use crate::error::{Error, Result};
use crate::tensor::Tensor;

const _: () = {
    assert!(size_of::<dl::DLManagedTensorVersioned>() == size_of::<sys::DLManagedTensorVersioned>());
    assert!(size_of::<dl::DLManagedTensor>() == size_of::<sys::DLManagedTensor>());
    assert!(size_of::<dl::DLTensor>() == size_of::<sys::DLTensor>());
};

impl Tensor {
    /// Exports the tensor as a `dlpark` DLPack 1.x handle, with no copy: the
    /// handle holds a reference to the Tensor until it is dropped (its
    /// DLPack deleter runs then). Errors: as [`Tensor::to_dlpack`].
    ///
    /// ```
    /// let t = xffi::Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
    /// let d = t.to_dlpark().unwrap();
    /// let view = d.validate().unwrap();
    /// assert_eq!((view.shape(), view.data_ptr()), (&[2i64][..], t.dltensor().data.cast_const()));
    /// ```
    pub fn to_dlpark(&self) -> Result<dlpark::versioned::Dlpack> {
        let managed = self.to_dlpack()?;
        // SAFETY: a live export we own (handed over once), in the layout
        // dlpark mirrors (asserted above): its shape and strides live in the
        // Tensor, which it holds, unchanged; its deleter runs once, from any
        // thread, and does not unwind (xffi's C deleter).
        let handle = unsafe { dlpark::versioned::Dlpack::from_raw(managed.as_ptr().cast()) };
        // xffi writes the version dlpark reads (1.x): a refusal would be a bug here.
        handle.map_err(|e| Error::runtime_error(&format!("Tensor::to_dlpark: dlpark refused xffi's export: {e}")))
    }

    /// [`Tensor::to_dlpark`] in the legacy (pre-1.0) DLPack format.
    /// Errors: as [`Tensor::to_dlpack_legacy`] (a read-only tensor is refused).
    ///
    /// ```
    /// let t = xffi::Tensor::from_vec(vec![1u8, 2, 3], &[3]).unwrap();
    /// let d = t.to_dlpark_legacy().unwrap();
    /// assert_eq!(d.validate().unwrap().num_elements(), 3);
    /// ```
    pub fn to_dlpark_legacy(&self) -> Result<dlpark::legacy::Dlpack> {
        let managed = self.to_dlpack_legacy()?;
        // SAFETY: as in to_dlpark, for the legacy struct.
        let handle = unsafe { dlpark::legacy::Dlpack::from_raw(managed.as_ptr().cast()) };
        handle
            .map_err(|e| Error::runtime_error(&format!("Tensor::to_dlpark_legacy: dlpark refused xffi's export: {e}")))
    }
}

/// Adopts a `dlpark` DLPack 1.x handle with no copy, checked as
/// [`Tensor::from_dlpack`] is; the handle's deleter runs once, when the last
/// reference to the Tensor goes, or at once if the tensor is refused
/// (ValueError).
///
/// # Safety
/// As `TryFromDlpack::try_from_dlpack` says: the handle's data must be
/// what its descriptor says, CPU memory readable for every element if it is
/// to be viewed, written by no one else while Rust reads it (xffi's safe
/// views trust the Tensor, as they trust [`Tensor::from_dlpack`]'s caller).
///
/// ```
/// use dlpark::TryFromDlpack;
/// let t = xffi::Tensor::from_vec(vec![4i32, 5], &[2]).unwrap();
/// let d = t.to_dlpark().unwrap();
/// // SAFETY: d is xffi's own export: valid CPU data that Rust alone writes.
/// let back = unsafe { xffi::Tensor::try_from_dlpack(d, ()) }.unwrap();
/// assert!(back.as_object().ptr_eq(t.as_object())); // the same Tensor
/// ```
impl TryFromDlpack<dlpark::versioned::Dlpack> for Tensor {
    type Error = Error;
    unsafe fn try_from_dlpack(dlpack: dlpark::versioned::Dlpack, _context: ()) -> Result<Tensor> {
        let raw = dlpack.into_raw().cast::<sys::DLManagedTensorVersioned>();
        let managed = NonNull::new(raw).expect("a dlpark handle is never NULL");
        // SAFETY: the handle owned this live managed tensor (the same layout,
        // asserted above) and handed it over; the data is as this impl's
        // contract says.
        unsafe { Tensor::from_dlpack(managed) }.inspect_err(|_| {
            // SAFETY: refused, so still ours; released once, here.
            unsafe { release(managed.as_ptr(), managed.as_ref().deleter) }
        })
    }
}

/// Adopts a `dlpark` legacy handle with no copy, as the DLPack 1.x impl does
/// (checked as [`Tensor::from_dlpack_legacy`]; the Tensor is writable).
///
/// # Safety
/// As the DLPack 1.x impl.
impl TryFromDlpack<dlpark::legacy::Dlpack> for Tensor {
    type Error = Error;
    unsafe fn try_from_dlpack(dlpack: dlpark::legacy::Dlpack, _context: ()) -> Result<Tensor> {
        let raw = dlpack.into_raw().cast::<sys::DLManagedTensor>();
        let managed = NonNull::new(raw).expect("a dlpark handle is never NULL");
        // SAFETY: as in the DLPack 1.x impl, for the legacy struct.
        unsafe { Tensor::from_dlpack_legacy(managed) }.inspect_err(|_| {
            // SAFETY: refused, so still ours; released once, here.
            unsafe { release(managed.as_ptr(), managed.as_ref().deleter) }
        })
    }
}

/// Runs a refused managed tensor's deleter, if it has one.
///
/// # Safety
/// `managed` is live, ours, and released only here.
unsafe fn release<M>(managed: *mut M, deleter: Option<unsafe extern "C" fn(*mut M)>) {
    if let Some(deleter) = deleter {
        // SAFETY: this function's contract.
        unsafe { deleter(managed) }
    }
}
