//! The tvm-ffi Rust-crate plugin of bench/bench_plugin_vs_tvm_rust.py: the
//! functions of bench/rust_plugin_xffi, exported with tvm-ffi's
//! `tvm_ffi_dll_export_typed_func!` as `__tvm_ffi_<name>`:
//! - `nop()`: returns None;
//! - `add(a, b) -> a + b`.
use tvm_ffi::{tvm_ffi_dll_export_typed_func, Result};

fn nop() -> Result<()> {
    Ok(())
}

fn add(a: i64, b: i64) -> Result<i64> {
    Ok(a + b)
}

tvm_ffi_dll_export_typed_func!(nop, nop);
tvm_ffi_dll_export_typed_func!(add, add);
