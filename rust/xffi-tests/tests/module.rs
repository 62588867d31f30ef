//! Loading a shared library that exports functions the tvm-ffi way
//! (`__tvm_ffi_<name>`), from Rust.
use xffi::Module;

const PLUGIN: &str = env!("XFFI_RUST_PLUGIN");

#[test]
fn a_loaded_module_gives_callable_functions_that_keep_it_alive() {
    let m = Module::load(PLUGIN).unwrap();
    assert_eq!(m.path().unwrap(), PLUGIN);
    assert_eq!(m.abi_version().unwrap(), xffi::sys::XFFI_ABI_VERSION);
    let f = m.get_function("add_one").unwrap().expect("add_one is exported");
    drop(m); // the function keeps the library loaded
    assert_eq!(f.call_typed::<i64, _>((41i64,)).unwrap(), 42);
}

#[test]
fn a_missing_function_is_none_and_a_missing_library_an_error() {
    let m = Module::load(PLUGIN).unwrap();
    assert!(m.get_function("not_exported").unwrap().is_none());
    let err = Module::load("/nonexistent/libnothing.so").unwrap_err();
    assert_eq!(err.kind(), "RuntimeError");
    assert!(
        err.message().starts_with("xffi_module_load: cannot load '/nonexistent/libnothing.so'"),
        "{}",
        err.message()
    );
}
