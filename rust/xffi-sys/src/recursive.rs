//! `xffi/recursive.h`: deep copy, recursive comparison and hashing.

use core::ffi::c_int;

use crate::any::xffi_any;

extern "C" {
    /// `*out` receives a deep copy of `*value` (borrowed), sharing and cycles preserved.
    pub fn xffi_deep_copy(out: *mut xffi_any, value: *const xffi_any) -> c_int;
    /// `*out` receives whether `*lhs` and `*rhs` (borrowed) are recursively equal.
    pub fn xffi_recursive_equal(out: *mut c_int, lhs: *const xffi_any, rhs: *const xffi_any) -> c_int;
    /// `*out` receives -1, 0 or 1: the recursive order of `*lhs` and `*rhs` (borrowed).
    pub fn xffi_recursive_compare(out: *mut c_int, lhs: *const xffi_any, rhs: *const xffi_any) -> c_int;
    /// `*out` receives tvm-ffi's RecursiveHash of `*value` (borrowed).
    pub fn xffi_recursive_hash(out: *mut i64, value: *const xffi_any) -> c_int;
}
