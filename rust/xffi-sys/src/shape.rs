//! `xffi/shape.h` and `xffi/sys/shape.h` (extension tier: the Shape cell):
//! Shape objects and dimension lists.

use core::ffi::c_int;

use crate::object::{xffi_object, xffi_object_cell};

/// The cell of a Shape object.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct xffi_shape_cell {
    /// The dimensions.
    pub data: *const i64,
    /// The number of dimensions.
    pub size: usize,
}

extern "C" {
    /// New Shape holding a copy of `dims[0..ndim)`.
    pub fn xffi_shape_new(out: *mut *mut xffi_object, dims: *const i64, ndim: i32) -> c_int;
    /// Checked access to a Shape's cell (xffi/sys/shape.h): \*out borrows the dimensions from shape
    /// (borrowed), valid while it lives. The unchecked inline form is xffi_shape_cell_of_unchecked.
    /// Errors: ValueError for NULL arguments, TypeError if shape is not a Shape.
    pub fn xffi_shape_cell_of(out: *mut xffi_shape_cell, shape: *const xffi_object) -> c_int;
    /// The number of elements of a shape: the product of its dimensions (1 for no dimensions).
    /// shape is borrowed. Errors: ValueError for NULL arguments, a negative dimension or a product
    /// that overflows int64; TypeError if shape is not a Shape.
    pub fn xffi_shape_product(out: *mut i64, shape: *const xffi_object) -> c_int;
    /// The same for a run of dimensions (dims borrowed, NULL only when ndim is 0). Errors: as
    /// above, and ValueError for a negative ndim.
    pub fn xffi_dims_product(out: *mut i64, dims: *const i64, ndim: i32) -> c_int;
    /// Whether two Shapes (borrowed) hold the same dimensions: writes 1 or 0 to \*out. Errors:
    /// ValueError for NULL arguments, TypeError for non-Shapes.
    pub fn xffi_shape_equal(out: *mut c_int, a: *const xffi_object, b: *const xffi_object) -> c_int;
}

/// A Shape's cell, borrowed (unchecked; mirror of the C inline).
///
/// # Safety
/// `shape` must be a live Shape.
#[inline(always)]
pub unsafe fn xffi_shape_cell_of_unchecked(shape: *const xffi_object) -> *const xffi_shape_cell {
    xffi_object_cell(shape as *mut xffi_object)
}

/// Whether two dimension lists are equal: 1 or 0 (mirror of the C inline).
///
/// # Safety
/// `a` and `b` must be valid for `a_size` and `b_size` values.
#[inline]
pub unsafe fn xffi_dims_equal(a: *const i64, a_ndim: i32, b: *const i64, b_ndim: i32) -> c_int {
    if a_ndim != b_ndim {
        return 0;
    }
    (0..a_ndim.max(0) as usize).all(|i| *a.add(i) == *b.add(i)) as c_int
}
