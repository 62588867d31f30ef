//! Loading a shared library that exports functions the tvm-ffi way
//! (`__tvm_ffi_<name>`), from Rust.
use xffi::Module;

const PLUGIN: &str = env!("XFFI_RUST_PLUGIN");

/// The test plugin, built by this crate's build script: a Rust cdylib whose
/// `__tvm_ffi_*` symbols are all xffi functions.
fn load() -> Module {
    // SAFETY: built from this repository's sources for this test.
    unsafe { Module::load(PLUGIN) }.unwrap()
}

#[test]
fn a_loaded_module_gives_callable_functions_that_keep_it_alive() {
    let m = load();
    assert_eq!(m.path().unwrap(), PLUGIN);
    assert_eq!(m.abi_version().unwrap(), xffi::sys::XFFI_ABI_VERSION);
    // SAFETY: the plugin exports add_one as an xffi function.
    let f = unsafe { m.get_function("add_one") }.unwrap().expect("add_one is exported");
    drop(m); // the function keeps the library loaded
    assert_eq!(f.call_typed::<i64, _>((41i64,)).unwrap(), 42);
}

#[test]
fn a_missing_function_is_none_and_a_missing_library_an_error() {
    let m = load();
    // SAFETY: the plugin has no such symbol.
    assert!(unsafe { m.get_function("not_exported") }.unwrap().is_none());
    // SAFETY: no such library, so nothing is loaded.
    let err = unsafe { Module::load("/nonexistent/libnothing.so") }.unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::RuntimeError);
    assert!(
        err.message().starts_with("xffi_module_load: cannot load '/nonexistent/libnothing.so'"),
        "{}",
        err.message()
    );
}
