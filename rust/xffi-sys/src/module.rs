//! `xffi/module.h` and `xffi/sys/module.h` (extension tier: what the export
//! macros expand to): shared libraries loaded as Modules.

use core::ffi::{c_char, c_int, CStr};

use crate::object::xffi_object;

/// The prefix of exported function symbols (`__tvm_ffi_<name>`).
pub const XFFI_EXPORT_PREFIX: &CStr = c"__tvm_ffi_";
/// The name of the ABI marker symbol a library exports.
pub const XFFI_ABI_MARKER_SYMBOL: &CStr = c"xffi_library_abi_version";

extern "C" {
    /// Loads a shared library (path borrowed): `*out` receives a new Module reference.
    /// Errors: ValueError, RuntimeError (cannot load, ABI mismatch), MemoryError.
    pub fn xffi_module_load(out: *mut *mut xffi_object, path: *const c_char) -> c_int;
    /// Gets exported function `name`: `*out` receives a new reference or NULL if absent.
    pub fn xffi_module_lookup_function(
        out: *mut *mut xffi_object,
        module: *mut xffi_object,
        name: *const c_char,
    ) -> c_int;
    /// The path the module was loaded from (borrowed from the module).
    pub fn xffi_module_path(out: *mut *const c_char, module: *mut xffi_object) -> c_int;
    /// The ABI version the library was built with (0: no marker).
    pub fn xffi_module_abi_version(out: *mut i32, module: *mut xffi_object) -> c_int;
}
