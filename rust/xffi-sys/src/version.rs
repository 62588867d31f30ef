//! `xffi/version.h`: the version this crate was written against and the
//! running library's.

use core::ffi::{c_char, CStr};

/// Library version this crate was written against.
pub const XFFI_VERSION_MAJOR: u32 = 0;
/// Library version this crate was written against.
pub const XFFI_VERSION_MINOR: u32 = 1;
/// Library version this crate was written against.
pub const XFFI_VERSION_PATCH: u32 = 0;
/// The same version as text, "MAJOR.MINOR.PATCH".
pub const XFFI_VERSION_STRING: &CStr = c"0.1.0";
/// The ABI version these declarations describe.
pub const XFFI_ABI_VERSION: i32 = 1;

extern "C" {
    /// The running library's version, "MAJOR.MINOR.PATCH" (static storage).
    pub fn xffi_version() -> *const c_char;
    /// The running library's ABI version.
    pub fn xffi_abi_version() -> i32;
}
