//! `xffi/error.h` and `xffi/sys/error.h` (extension tier: the Error cell):
//! Error objects and the thread-local raised slot.

use core::ffi::{c_char, c_int, c_void, CStr};

use crate::object::{xffi_object, xffi_object_cell};
use crate::r#type::xffi_byte_array;

/// The built-in error kinds (the `kind` of an Error object).
pub const XFFI_KIND_TYPE: &CStr = c"TypeError";
/// a bad value: NULL handle, empty key, bad number
pub const XFFI_KIND_VALUE: &CStr = c"ValueError";
/// an index out of range
pub const XFFI_KIND_INDEX: &CStr = c"IndexError";
/// a missing key
pub const XFFI_KIND_KEY: &CStr = c"KeyError";
/// no such field, or a read-only one
pub const XFFI_KIND_ATTRIBUTE: &CStr = c"AttributeError";
/// out of memory
pub const XFFI_KIND_MEMORY: &CStr = c"MemoryError";
/// anything else
pub const XFFI_KIND_RUNTIME: &CStr = c"RuntimeError";

/// Backtrace update mode: replace the backtrace.
pub const XFFI_BACKTRACE_REPLACE: i32 = 0;
/// Backtrace update mode: append to the backtrace.
pub const XFFI_BACKTRACE_APPEND: i32 = 1;

/// The cell of an Error object (layout shared with tvm-ffi 0.1).
#[repr(C)]
pub struct xffi_error_cell {
    /// The kind ("ValueError", ...), owned by the error.
    pub kind: xffi_byte_array,
    /// The message, owned by the error.
    pub message: xffi_byte_array,
    /// The backtrace, most recent frame first, owned by the error.
    pub backtrace: xffi_byte_array,
    /// Replaces or appends to the backtrace (`XFFI_BACKTRACE_*`): the error's own function, so any
    /// runtime can update any error.
    pub update_backtrace:
        Option<unsafe extern "C" fn(self_: *mut c_void, backtrace: *const xffi_byte_array, mode: i32)>,
    /// The error that caused this one (an Error object, owned), or NULL.
    pub cause_chain: *mut c_void,
    /// An object with more context (owned), or NULL.
    pub extra_context: *mut c_void,
}

/// An Error object's cell. `err` must be a live Error.
///
/// # Safety
/// `err` must be a live Error object.
#[inline(always)]
pub unsafe fn xffi_error_cell_of_unchecked(err: *mut xffi_object) -> *mut xffi_error_cell {
    xffi_object_cell(err)
}

extern "C" {
    /// New Error object (kind and message copied): `*out` receives a new
    /// reference. Errors: ValueError (NULL), MemoryError.
    pub fn xffi_error_new(out: *mut *mut xffi_object, kind: *const c_char, message: *const c_char) -> c_int;
    /// The same from byte runs.
    pub fn xffi_error_new_bytes(out: *mut *mut xffi_object, kind: xffi_byte_array, message: xffi_byte_array) -> c_int;
    /// Raises `err` (stolen) in the calling thread; NULL clears the slot.
    pub fn xffi_error_set_raised(err: *mut xffi_object);
    /// Moves the raised error out (new reference) or returns NULL.
    pub fn xffi_error_move_raised() -> *mut xffi_object;
    /// The raised error, borrowed, or NULL.
    pub fn xffi_error_peek_raised() -> *mut xffi_object;
    /// Makes and raises an error with a printf-style message; returns XFFI_FAIL.
    pub fn xffi_error_raise(kind: *const c_char, format: *const c_char, ...) -> c_int;
    /// Raises an error with the message as it is; returns XFFI_FAIL.
    pub fn xffi_error_raise_str(kind: *const c_char, message: *const c_char) -> c_int;
    /// Raises the pre-made MemoryError; returns XFFI_FAIL.
    pub fn xffi_error_raise_out_of_memory() -> c_int;
    /// Appends one frame (borrowed, copied) to err's backtrace.
    /// Errors: ValueError, MemoryError.
    pub fn xffi_error_append_frame(err: *mut xffi_object, frame: *const c_char) -> c_int;
    /// Appends a frame to the raised error (if any); returns XFFI_FAIL.
    pub fn xffi_error_pass(frame: *const c_char) -> c_int;
    /// Moves the raised error into tvm-ffi's slot when tvm-ffi is in the
    /// process (leaves it in xffi's otherwise; never leaves a tvm-ffi caller
    /// without an error). Always returns XFFI_FAIL. For the failure path of a
    /// function that tvm-ffi code may call.
    pub fn xffi_error_forward_to_tvm() -> c_int;
    /// Sets err's cause (steals `cause`). Errors: ValueError.
    pub fn xffi_error_set_cause(err: *mut xffi_object, cause: *mut xffi_object) -> c_int;
    /// Whether err's kind is `kind` (both borrowed).
    pub fn xffi_error_is_kind(err: *mut xffi_object, kind: *const c_char) -> c_int;
}
