//! The tvm-ffi Rust-crate plugin of the plugin matrix (`together` in
//! tests/plugin_matrix/python_client.py), written as a tvm-ffi user writes
//! one:
//! - at load, it registers the global function `matrix.tvmrust.product(a, b)
//!   -> a * b` in the process's registry (`static_init_block!`);
//! - it exports `call_global(name, a, b)` (as `__tvm_ffi_call_global`), which
//!   finds the global function `name` in the process's registry and calls it
//!   with `(a, b)`; a missing name is a KeyError, as in the other plugins.
use tvm_ffi::{tvm_ffi_dll_export_typed_func, Function, Result};

fn product(a: i64, b: i64) -> Result<i64> {
    Ok(a * b)
}

fn call_global(name: tvm_ffi::String, a: i64, b: i64) -> Result<i64> {
    // get_global raises a RuntimeError for a missing name; the matrix's
    // plugins agree on KeyError, so the name is looked up first.
    let found = Function::get_global(name.as_str()).map_err(|_| {
        tvm_ffi::Error::new(tvm_ffi::error::KEY_ERROR, &format!("no global function named {}", name.as_str()), "")
    })?;
    i64::try_from(found.call_tuple((a, b))?)
}

tvm_ffi::static_init_block! {
    Function::register_global_typed("matrix.tvmrust.product", product, "a * b")?;
}

tvm_ffi_dll_export_typed_func!(call_global, call_global);
