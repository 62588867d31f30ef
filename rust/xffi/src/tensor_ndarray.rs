//! Zero-copy `ndarray` views of tensors and tensors from `ndarray` arrays
//! (feature `ndarray`).
//!
//! A view is O(1) for every element type but `bool` (whose bytes are checked
//! to be 0 or 1): no allocation of the data, no copy, whatever the strides,
//! negative and zero included where ndarray allows them. It borrows the
//! Tensor, so the data outlives it. Reading is safe, as for
//! [`Tensor::as_slice`]; a mutable view of a shared [`Tensor`] is `unsafe`
//! (other holders may read or write the data), and safe through a
//! [`UniqueTensor`], which no one else can reach.

use ndarray::{
    Array, ArrayBase, ArrayViewD, ArrayViewMutD, Axis, Dimension, IxDyn, RawArrayView, RawArrayViewMut, RawData,
    ShapeBuilder, StrideShape,
};

use crate::error::{Error, Result};
use crate::tensor::{Scalar, Tensor};
use crate::tensor_owned::UniqueTensor;

/// Whether the view handed out may be written: then no two indices may reach
/// one element (ndarray's rule for `ArrayViewMut`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
}

/// Where a view's elements are, once checked: ndarray's shape with
/// non-negative strides from the lowest element; the axes whose tensor
/// stride is negative are inverted afterwards ([`invert_negative`]).
struct Checked<T> {
    shape: StrideShape<IxDyn>,
    lowest: *mut T,
}

/// The layout of the tensor's elements after every check a view needs:
/// dtype, CPU device, aligned non-NULL data (Tensor::check_cpu_elements);
/// strides whose reach, in elements and in bytes, fits `isize` (ndarray's
/// requirement); for `Access::Write`, no aliasing; for a type with invalid
/// bit patterns, every element valid.
fn check_layout<T: Scalar>(t: &Tensor, what: &str, access: Access) -> Result<Checked<T>> {
    let first = t.check_cpu_elements::<T>(what)?;
    let shape = t.shape();
    // IxDyn keeps up to 4 dimensions inline: no allocation for those.
    let mut dims = IxDyn::zeros(shape.len());
    for (slot, &d) in dims.slice_mut().iter_mut().zip(shape) {
        *slot = usize::try_from(d)
            .map_err(|_| Error::value_error(&format!("Tensor::{what}: shape {shape:?} does not fit usize")))?;
    }
    if t.numel() == 0 {
        // Nothing to reach: a dangling, aligned pointer and compact strides,
        // as ndarray's own empty arrays have.
        return Ok(Checked { shape: dims.into(), lowest: std::ptr::NonNull::dangling().as_ptr() });
    }
    let strides = t.strides();
    let overflow = || {
        Error::value_error(&format!(
            "Tensor::{what}: strides {strides:?} with shape {shape:?} reach past isize::MAX bytes"
        ))
    };
    // Offsets, in elements from `first`, of the lowest and highest element.
    let (mut low, mut high) = (0i64, 0i64);
    // Each axis's stride as a non-negative count (0 for an axis of length 0
    // or 1, never stepped along, whatever its stride).
    let mut magnitudes = IxDyn::zeros(shape.len());
    for ((slot, &len), &stride) in magnitudes.slice_mut().iter_mut().zip(dims.slice()).zip(strides) {
        if len <= 1 {
            continue;
        }
        let reach = stride.checked_mul(len as i64 - 1).ok_or_else(overflow)?;
        if reach < 0 {
            low = low.checked_add(reach).ok_or_else(overflow)?;
        } else {
            high = high.checked_add(reach).ok_or_else(overflow)?;
        }
        *slot = usize::try_from(stride.unsigned_abs()).map_err(|_| overflow())?;
    }
    let span_elements = high.checked_sub(low).ok_or_else(overflow)?;
    let span_bytes = span_elements.checked_mul(std::mem::size_of::<T>() as i64).ok_or_else(overflow)?;
    if isize::try_from(span_bytes).is_err() || isize::try_from(low).is_err() {
        return Err(overflow());
    }
    if access == Access::Write {
        check_no_aliasing(dims.slice(), magnitudes.slice(), strides, what)?;
    }
    if T::HAS_INVALID_BITS {
        check_valid_strided::<T>(first, &dims, strides, what)?;
    }
    // The lowest element; the tensor's invariant (its data reaches every
    // element) keeps it in the allocation, wrapping_offset avoids assuming more.
    let lowest = first.wrapping_offset(low as isize);
    Ok(Checked { shape: dims.strides(magnitudes), lowest })
}

/// Inverts the axes whose tensor stride is negative: the view then has
/// the tensor's own order (its first element is the tensor's).
fn invert_negative<S: RawData>(view: &mut ArrayBase<S, IxDyn>, t: &Tensor) {
    for (axis, (&len, &stride)) in t.shape().iter().zip(t.strides()).enumerate() {
        if len > 1 && stride < 0 {
            view.invert_axis(Axis(axis));
        }
    }
}

// What makes `RawArrayView(Mut)::from_shape_ptr` sound on a Checked layout
// (quoted by its callers): the pointer is non-NULL and aligned (checked by
// check_cpu_elements, and the lowest element is a whole number of elements
// from the first), or dangling for an empty view; moving along the axes with
// the non-negative strides reaches exactly the tensor's elements, in one
// allocation (the Tensor's invariant), within isize bytes (checked).

/// ValueError if two indices reach one element: sorted by stride, each
/// axis's stride must step past everything the smaller axes reach.
fn check_no_aliasing(dims: &[usize], magnitudes: &[usize], strides: &[i64], what: &str) -> Result<()> {
    // The axes that are stepped along, by stride (an IxDyn: inline up to 4).
    let mut axes = IxDyn::zeros(dims.len());
    let mut n = 0;
    for a in (0..dims.len()).filter(|&a| dims[a] > 1) {
        axes[n] = a;
        n += 1;
    }
    let axes = &mut axes.slice_mut()[..n];
    axes.sort_unstable_by_key(|&a| magnitudes[a]);
    let mut reach: usize = 0; // in elements, checked to fit isize above
    for &a in axes.iter() {
        if magnitudes[a] <= reach {
            return Err(Error::value_error(&format!(
                "Tensor::{what}: strides {strides:?} with shape {dims:?} let two indices reach one element \
                 (a mutable view needs each element once)"
            )));
        }
        reach += magnitudes[a] * (dims[a] - 1);
    }
    Ok(())
}

/// ValueError naming the first element (by index) that is not a valid `T`.
fn check_valid_strided<T: Scalar>(first: *const T, dims: &IxDyn, strides: &[i64], what: &str) -> Result<()> {
    let size = std::mem::size_of::<T>();
    for index in ndarray::indices(dims.clone()) {
        let offset: i64 = index.slice().iter().zip(strides).map(|(&i, &s)| i as i64 * s).sum();
        // SAFETY: offset (fits isize: within the span checked by check_layout)
        // reaches one of the tensor's elements, size bytes of initialized
        // CPU memory; reading them as bytes asks nothing more.
        let bytes = unsafe { std::slice::from_raw_parts(first.wrapping_offset(offset as isize).cast::<u8>(), size) };
        if !T::is_valid_bits(bytes) {
            return Err(Error::value_error(&format!(
                "Tensor::{what}: element {:?} (bytes {bytes:?}) is not a valid {}",
                index.slice(),
                T::DTYPE
            )));
        }
    }
    Ok(())
}

impl Tensor {
    /// A zero-copy, read-only `ndarray` view of the elements, any strides:
    /// checked as [`Tensor::as_slice`] is (TypeError for the wrong dtype,
    /// ValueError for non-CPU memory, misaligned data, strides whose reach
    /// overflows), but not required to be contiguous. O(1) (no allocation of
    /// the data) except for `bool`, whose bytes are checked.
    ///
    /// ```
    /// let t = xffi::Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    /// let v = t.as_array::<f32>().unwrap();
    /// assert_eq!(v[[1, 2]], 6.0);
    /// assert_eq!(v.as_ptr(), t.as_slice::<f32>().unwrap().as_ptr()); // no copy
    /// assert_eq!(t.as_array::<f64>().unwrap_err().kind(), xffi::ErrorKind::TypeError);
    /// ```
    pub fn as_array<T: Scalar>(&self) -> Result<ArrayViewD<'_, T>> {
        let c = check_layout::<T>(self, "as_array", Access::Read)?;
        // SAFETY: a Checked layout (see above invert_negative).
        let mut raw = unsafe { RawArrayView::from_shape_ptr(c.shape, c.lowest.cast_const()) };
        invert_negative(&mut raw, self);
        // SAFETY: check_layout checked the layout and the elements' validity;
        // the view borrows self, which keeps the data alive, and writers are
        // excluded as for as_slice (as_mut_array's contract).
        Ok(unsafe { raw.deref_into_view() })
    }

    /// A zero-copy mutable `ndarray` view, with [`Tensor::as_array`]'s
    /// checks plus a ValueError for a read-only tensor and for strides that
    /// let two indices reach one element (zero strides, overlaps).
    ///
    /// # Safety
    /// No one else (another handle, C code, a DLPack consumer) may read or
    /// write the data while the view lives, as for [`Tensor::as_mut_slice`].
    /// [`UniqueTensor::as_mut_array`] is the safe form.
    ///
    /// ```
    /// let t = xffi::Tensor::new(&[2, 2], xffi::DataType::I64).unwrap();
    /// // SAFETY: t is only ours: no one else reads or writes the data meanwhile.
    /// unsafe { t.as_mut_array::<i64>().unwrap()[[0, 1]] = 5 };
    /// assert_eq!(t.as_slice::<i64>().unwrap(), &[0, 5, 0, 0]);
    /// ```
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn as_mut_array<T: Scalar>(&self) -> Result<ArrayViewMutD<'_, T>> {
        if self.is_read_only() {
            return Err(Error::value_error("Tensor::as_mut_array: the tensor is read-only"));
        }
        let c = check_layout::<T>(self, "as_mut_array", Access::Write)?;
        // SAFETY: a Checked layout (see above invert_negative), whose
        // elements are each reached once (Access::Write).
        let mut raw = unsafe { RawArrayViewMut::from_shape_ptr(c.shape, c.lowest) };
        invert_negative(&mut raw, self);
        // SAFETY: check_layout checked the layout, the elements' validity and
        // that each element is reached once; exclusive access is this
        // function's contract; the view borrows self, which keeps the data alive.
        Ok(unsafe { raw.deref_into_view_mut() })
    }

    /// A tensor over an owned `ndarray` array, with no copy, in the array's
    /// own layout (strides, negative ones included): the array moves into
    /// the Tensor and is dropped when the last reference goes, from Rust or C.
    /// Errors: ValueError if a dimension does not fit i64.
    ///
    /// ```
    /// let mut a = ndarray::Array2::<u16>::from_shape_fn((2, 3), |(i, j)| (10 * i + j) as u16);
    /// a.invert_axis(ndarray::Axis(1));
    /// let p = a.as_ptr();
    /// let t = xffi::Tensor::from_array(a).unwrap();
    /// assert_eq!(t.strides(), &[3, -1]);
    /// let v = t.as_array::<u16>().unwrap();
    /// assert_eq!((v.as_ptr(), v[[1, 0]]), (p, 12));
    /// ```
    pub fn from_array<T: Scalar, D: Dimension + 'static>(array: Array<T, D>) -> Result<Tensor> {
        let shape =
            array.shape().iter().map(|&d| i64::try_from(d)).collect::<std::result::Result<Vec<_>, _>>().map_err(
                |_| Error::value_error(&format!("Tensor::from_array: shape {:?} does not fit i64", array.shape())),
            )?;
        // isize to i64 is lossless on every target Rust supports.
        let strides: Vec<i64> = array.strides().iter().map(|&s| s as i64).collect();
        let mut array = array;
        let first = array.as_mut_ptr();
        // SAFETY: first is the array's first element in its heap buffer,
        // which holds every element the array's shape and strides reach,
        // initialized Ts, and stays put when the array moves; the array is
        // moved in, so no one else can write it.
        unsafe { Tensor::from_owner(array, first.cast(), &shape, Some(&strides), T::DTYPE) }
    }
}

impl UniqueTensor {
    /// A read-only view, as [`Tensor::as_array`].
    ///
    /// ```
    /// let mut u = xffi::UniqueTensor::new(&[2, 2], xffi::DataType::I32).unwrap();
    /// u.as_mut_slice::<i32>().unwrap().copy_from_slice(&[1, 2, 3, 4]);
    /// let v = u.as_array::<i32>().unwrap();
    /// assert_eq!((v.shape(), v[[1, 0]]), (&[2, 2][..], 3));
    /// ```
    pub fn as_array<T: Scalar>(&self) -> Result<ArrayViewD<'_, T>> {
        self.tensor().as_array()
    }

    /// A mutable view, as [`Tensor::as_mut_array`] (the same checks and
    /// errors), and safe: `&mut self` is exclusive access (see [`UniqueTensor`]).
    ///
    /// ```
    /// let mut u = xffi::UniqueTensor::new(&[2, 3], xffi::DataType::F32).unwrap();
    /// u.as_mut_array::<f32>().unwrap().fill(1.5);
    /// assert_eq!(u.as_slice::<f32>().unwrap(), &[1.5; 6]);
    /// ```
    pub fn as_mut_array<T: Scalar>(&mut self) -> Result<ArrayViewMutD<'_, T>> {
        // SAFETY: as_mut_array's contract holds: the view borrows self
        // mutably, and no one else can reach this tensor's data.
        unsafe { self.tensor().as_mut_array() }
    }

    /// A tensor over an owned array with no copy, as [`Tensor::from_array`].
    ///
    /// ```
    /// let mut u = xffi::UniqueTensor::from_array(ndarray::arr1(&[1i32, 2, 3])).unwrap();
    /// u.as_mut_array::<i32>().unwrap()[0] = 7;
    /// assert_eq!(u.as_slice::<i32>().unwrap(), &[7, 2, 3]);
    /// ```
    pub fn from_array<T: Scalar, D: Dimension + 'static>(array: Array<T, D>) -> Result<UniqueTensor> {
        // Fresh: the array moved in, and the Tensor over it is reachable only here.
        Tensor::from_array(array).map(UniqueTensor::from_fresh)
    }
}
