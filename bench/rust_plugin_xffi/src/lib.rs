//! The xffi plugin of bench/bench_plugin_vs_tvm_rust.py: the same functions
//! as bench/rust_plugin_tvm_ffi, exported with `export_func!`, as
//! `__tvm_ffi_<name>`:
//! - `nop()`: returns None;
//! - `add(a, b) -> a + b`.
xffi::export_abi_marker!();

xffi::export_func!(
    fn nop() -> () {
        Ok(())
    }
);

xffi::export_func!(
    fn add(a: i64, b: i64) -> i64 {
        Ok(a + b)
    }
);
