//! `xffi/string.h` and `xffi/sys/string.h` (extension tier: the String
//! cell): String and Bytes objects.

use core::ffi::{c_char, c_int, c_void};

use crate::object::{xffi_object, xffi_object_cell};
use crate::r#type::xffi_byte_array;

/// The cell of a String or Bytes object.
pub type xffi_string_cell = xffi_byte_array;

/// Borrowed view of a String's or Bytes' bytes (unchecked).
///
/// # Safety
/// `obj` must be a live String or Bytes object.
#[inline(always)]
pub unsafe fn xffi_string_cell_of_unchecked(obj: *const xffi_object) -> xffi_byte_array {
    *xffi_object_cell::<xffi_string_cell>(obj as *mut xffi_object)
}

/// Whether two byte runs hold the same bytes: 1 or 0 (mirror of the C inline).
///
/// # Safety
/// Each run's `data` must be valid for `size` bytes (or `size` 0).
#[inline]
pub unsafe fn xffi_bytes_equal(a: xffi_byte_array, b: xffi_byte_array) -> c_int {
    (a.size == b.size && (a.size == 0 || xffi_bytes_compare(a, b) == 0)) as c_int
}

extern "C" {
    /// New String from bytes (copied): `*out` receives a new reference.
    /// Errors: ValueError, MemoryError.
    pub fn xffi_string_new(out: *mut *mut xffi_object, data: *const c_char, size: usize) -> c_int;
    /// New String from a NUL-terminated string.
    pub fn xffi_string_from_c_str(out: *mut *mut xffi_object, c_str: *const c_char) -> c_int;
    /// New Bytes from bytes (copied).
    pub fn xffi_bytes_new(out: *mut *mut xffi_object, data: *const c_char, size: usize) -> c_int;
    /// Checked access to a String's/Bytes' bytes (borrowed from obj).
    /// Errors: ValueError, TypeError.
    pub fn xffi_string_cell_of(out: *mut xffi_byte_array, obj: *const xffi_object) -> c_int;
    /// Three-way byte-wise comparison.
    pub fn xffi_bytes_compare(a: xffi_byte_array, b: xffi_byte_array) -> c_int;
    /// 64-bit hash of bytes (stable within a process run only).
    pub fn xffi_bytes_hash(data: *const c_void, size: usize) -> u64;
}
