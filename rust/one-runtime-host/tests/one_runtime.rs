//! The Rust host arrangement of docs/tvm-ffi.md: a program on the `xffi`
//! crate (default features: the C runtime linked in statically, its TVMFFI*
//! and xffi_* exported by build.rs) loads a kernel library built against
//! tvm-ffi's headers with tvm-ffi's C++ export macro and linked to no
//! libtvm_ffi.so (tests/one_runtime/kernel_lib.cc), and calls it. One
//! runtime serves both: the kernel's TVMFFI* imports bind to this program, its
//! errors arrive as `Err`, it finds a global registered from Rust, and no
//! tvm-ffi library is mapped. Needs the TVMFFI* functions of issue 15's other
//! areas; until they exist the load fails with the loader's "undefined symbol".
#![cfg(xffi_tvm_ffi)]

use std::os::unix::fs::MetadataExt;

use xffi::{ErrorKind, Function, Module};

const KERNEL: &str = env!("XFFI_ARRANGEMENT_KERNEL");
const WHEEL_RUNTIME: &str = env!("XFFI_WHEEL_RUNTIME");

fn kernel() -> Module {
    // SAFETY: our own test kernel; loading it runs no initialiser of its own
    // beyond the C++ runtime's.
    unsafe { Module::load(KERNEL) }.expect("the kernel loads on xffi's runtime (it needs the TVMFFI* it imports)")
}

fn function(m: &Module, name: &str) -> Function {
    // SAFETY: the kernel exports tvm-ffi safe-call functions under __tvm_ffi_.
    unsafe { m.get_function(name) }.unwrap().unwrap_or_else(|| panic!("{name} is exported"))
}

/// Files mapped into this process, as (device, inode, path).
fn mapped_files() -> Vec<(u64, u64, String)> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines()
        .filter_map(|line| line.find('/').map(|i| line[i..].to_owned()))
        .filter_map(|path| std::fs::metadata(&path).ok().map(|m| (m.dev(), m.ino(), path)))
        .collect()
}

#[test]
fn a_tvm_ffi_kernel_runs_on_the_rust_hosts_runtime() {
    let m = kernel();
    let n: i64 = function(&m, "add_one").call_typed((41i64,)).unwrap();
    assert_eq!(n, 42);
    let s: String = function(&m, "greet").call_typed(("rust",)).unwrap();
    assert_eq!(s, "hello rust, from a kernel built against tvm-ffi's headers");

    let err = function(&m, "refuse").call_typed::<i64, _>((7i64,)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError);
    assert!(err.message().contains("the kernel refuses 7"), "{}", err.message());

    let twice = Function::from_typed(|x: i64| -> xffi::Result<i64> { Ok(2 * x) }).unwrap();
    twice.register_global("arrangements.rust_twice", true).unwrap();
    let n: i64 = function(&m, "call_global").call_typed(("arrangements.rust_twice", 21i64)).unwrap();
    assert_eq!(n, 42);
    Function::remove_global("arrangements.rust_twice").unwrap();

    let wheel = std::fs::metadata(WHEEL_RUNTIME).map(|m| (m.dev(), m.ino())).ok();
    for (dev, ino, path) in mapped_files() {
        assert!(Some((dev, ino)) != wheel, "the wheel's runtime is mapped: {path}");
        assert!(!path.ends_with("/libtvm_ffi.so"), "a tvm-ffi runtime is mapped: {path}");
    }
}
