//! `xffi/sys/allocator.h` (extension tier): the allocator the C core takes
//! every heap block from.

use core::ffi::{c_int, c_void};

/// The allocator the C core takes every heap block from (`xffi/sys/allocator.h`).
/// Fixed by the library's first allocation or by [`xffi_allocator_install`]
/// (refused afterwards). The functions must be thread-safe and must not call
/// back into xffi; `context` is borrowed for the rest of the process.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct xffi_allocator {
    /// Passed to every function (borrowed; may be null).
    pub context: *mut c_void,
    /// `size` (>= 1) bytes aligned as malloc's, or null when out of memory.
    pub allocate: Option<unsafe extern "C" fn(context: *mut c_void, size: usize) -> *mut c_void>,
    /// Resizes `ptr` (never null) as realloc does; null leaves `ptr` unchanged.
    pub reallocate: Option<unsafe extern "C" fn(context: *mut c_void, ptr: *mut c_void, size: usize) -> *mut c_void>,
    /// Releases `ptr` (never null, from `allocate` or `reallocate`).
    pub deallocate: Option<unsafe extern "C" fn(context: *mut c_void, ptr: *mut c_void)>,
    /// `size` (>= 1) bytes at a multiple of `alignment` (a power of two >= pointer size).
    pub allocate_aligned:
        Option<unsafe extern "C" fn(context: *mut c_void, alignment: usize, size: usize) -> *mut c_void>,
    /// Releases `ptr` (never null, from `allocate_aligned`).
    pub deallocate_aligned: Option<unsafe extern "C" fn(context: *mut c_void, ptr: *mut c_void)>,
}

extern "C" {
    /// Copies `*allocator` and makes it the library's allocator for the rest
    /// of the process. ValueError if `allocator` or one of its functions is
    /// null, or if the allocator is fixed already (the library allocated).
    pub fn xffi_allocator_install(allocator: *const xffi_allocator) -> c_int;
    /// Fills `*out` with the C library's allocator (the default), for wrappers.
    pub fn xffi_allocator_default(out: *mut xffi_allocator) -> c_int;
}
