//! The C boundary: every exported function runs its body through
//! [`boundary`], which turns a Rust `Err` into a raised xffi error and runs
//! the body inside xffi's panic boundary (`xffi::ffi_boundary!`: a panic
//! becomes a RuntimeError), and checks its pointer arguments with the helpers
//! below, which name the function and the argument in their messages.

use std::ffi::{CStr, c_char, c_int};

use xffi::sys::{self, xffi_object};
use xffi::{Error, ObjectRef, Result, RustObject};

/// Runs `body` for the exported function `func`: `Ok` is `XFFI_OK`; `Err`
/// is raised in the calling thread and gives `XFFI_FAIL`; a panic is caught
/// by `xffi::ffi_boundary!` (it must never unwind into C) and raised as a
/// RuntimeError `"<func>: Rust panic: <message>"`.
pub(crate) fn boundary(func: &'static str, body: impl FnOnce() -> Result<()>) -> c_int {
    xffi::ffi_boundary!(func, {
        #[cfg(test)]
        crate::panic_tests::maybe_inject(func);
        match body() {
            Ok(()) => sys::XFFI_OK,
            Err(err) => err.raise(),
        }
    })
}

/// A ValueError for a NULL pointer argument.
pub(crate) fn null_error(func: &str, arg: &str, expected: &str) -> Error {
    Error::value_error(&format!("{func}: {arg} is NULL (expected {expected})"))
}

/// Checks an out-parameter: a mutable reference to the slot, or a ValueError
/// `"<func>: <arg> is NULL (expected <expected>)"`.
///
/// # Safety
/// `ptr` must be NULL or valid for writes for the caller's chosen lifetime.
pub(crate) unsafe fn out_slot<'a, T>(func: &str, arg: &str, ptr: *mut T, expected: &str) -> Result<&'a mut T> {
    // SAFETY: the caller's contract.
    unsafe { ptr.as_mut() }.ok_or_else(|| null_error(func, arg, expected))
}

/// Checks a borrowed object argument of the Rust type `T` and takes a new
/// reference to it (released when the result is dropped). NULL is a
/// ValueError, another type a TypeError
/// `"<func>: <arg>: expected <T's key>, got <the object's key>"`.
///
/// # Safety
/// `ptr` must be NULL or a live xffi object.
pub(crate) unsafe fn object_arg<T: RustObject>(func: &str, arg: &str, ptr: *const xffi_object) -> Result<ObjectRef<T>> {
    if ptr.is_null() {
        return Err(null_error(func, arg, &format!("an object of type {}", T::TYPE_KEY)));
    }
    let index = T::try_type_index()?;
    let ptr = ptr.cast_mut();
    // SAFETY: a live object (the caller's contract).
    if unsafe { sys::xffi_object_is_a_unchecked(ptr, index) } {
        // SAFETY: an instance of T's type: T sits at T's payload offset.
        return Ok(unsafe { ObjectRef::<T>::from_borrowed(ptr) }.expect("non-NULL"));
    }
    // SAFETY: a live object; xffi_type_key never returns NULL.
    let got = unsafe { CStr::from_ptr(sys::xffi_type_key((*ptr).type_index)) };
    Err(Error::type_error(&format!("{func}: {arg}: expected {}, got {}", T::TYPE_KEY, got.to_string_lossy())))
}

/// Checks a borrowed NUL-terminated UTF-8 string argument.
///
/// # Safety
/// `ptr` must be NULL or a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn str_arg<'a>(func: &str, arg: &str, ptr: *const c_char) -> Result<&'a str> {
    if ptr.is_null() {
        return Err(null_error(func, arg, "a NUL-terminated UTF-8 string"));
    }
    // SAFETY: the caller's contract.
    let c = unsafe { CStr::from_ptr(ptr) };
    c.to_str().map_err(|e| {
        Error::value_error(&format!("{func}: {arg} is not valid UTF-8 (invalid byte at offset {})", e.valid_up_to()))
    })
}
