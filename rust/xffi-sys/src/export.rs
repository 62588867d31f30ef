//! `xffi/export.h`: the status every fallible call returns.

use core::ffi::c_int;

/// Status: success.
pub const XFFI_OK: c_int = 0;
/// Status: failure; the error is in the thread-local raised slot.
pub const XFFI_FAIL: c_int = -1;
