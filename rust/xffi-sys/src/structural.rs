//! `xffi/structural.h`: structural equality, hashing and the first mismatch.

use core::ffi::c_int;

use crate::any::xffi_any;

/// Free variables may map anywhere (a pattern region).
pub const XFFI_STRUCTURAL_MAP_FREE_VARS: u32 = 1 << 0;
/// Tensors compare by shape and dtype only.
pub const XFFI_STRUCTURAL_SKIP_TENSOR_CONTENT: u32 = 1 << 1;

extern "C" {
    /// `*out` receives 1 if `*lhs` and `*rhs` (borrowed) are structurally equal, else 0.
    pub fn xffi_structural_equal(out: *mut c_int, lhs: *const xffi_any, rhs: *const xffi_any, options: i32) -> c_int;
    /// `*out` receives None when equal, else a new Array `[lhs_path, rhs_path]` of AccessPaths.
    pub fn xffi_structural_first_mismatch(
        out: *mut xffi_any,
        lhs: *const xffi_any,
        rhs: *const xffi_any,
        options: i32,
    ) -> c_int;
    /// `*out` receives tvm-ffi's StructuralHash of `*value` (borrowed).
    pub fn xffi_structural_hash(out: *mut i64, value: *const xffi_any, options: i32) -> c_int;
}
