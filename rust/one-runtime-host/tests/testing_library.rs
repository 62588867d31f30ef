//! Reflection across runtimes' libraries: the wheel's C++ testing library
//! (built against tvm-ffi's headers, registering its types with
//! TVMFFITypeRegisterField/Method at load) runs on this program's xffi
//! runtime, and Rust reads its objects' fields by name: `testing.TestIntPair`'s
//! `a` and `b`. A test binary of its own: it maps an empty library whose
//! SONAME is libtvm_ffi.so (built by build.rs), which satisfies the testing
//! library's NEEDED entry so that the wheel's runtime is never loaded.
#![cfg(xffi_tvm_ffi)]

use xffi::reflect::TypeRef;
use xffi::{Module, Object, ObjectRef};

const STUB: &str = env!("XFFI_TVM_FFI_SONAME_STUB");
const TESTING: &str = env!("XFFI_WHEEL_TESTING_LIB");
const WHEEL_RUNTIME: &str = env!("XFFI_WHEEL_RUNTIME");

#[test]
fn rust_reads_the_fields_of_a_cpp_type_by_name() {
    // SAFETY: an empty library (no initialisers), then the wheel's testing
    // library, whose initialisers register its types and globals through
    // the TVMFFI* functions this program exports.
    let (_stub, _testing) = unsafe { (Module::load(STUB).unwrap(), Module::load(TESTING).unwrap()) };

    let pair_type = TypeRef::by_key("testing.TestIntPair").expect("the testing library registered its types");
    let names: Vec<_> = pair_type.fields().into_iter().map(|f| (f.type_key(), f.name)).collect();
    assert_eq!(names, [("int", "a".to_owned()), ("int", "b".to_owned())]);

    let pair: ObjectRef<Object> = pair_type.call_static("__ffi_init__", (3i64, 4i64)).unwrap().get().unwrap();
    assert_eq!(pair.type_key(), "testing.TestIntPair");
    assert_eq!(pair.get_field("a").unwrap().get::<i64>().unwrap(), 3);
    assert_eq!(pair.get_field("b").unwrap().get::<i64>().unwrap(), 4);
    let sum = pair.call_method("sum", ()).unwrap().get::<i64>().unwrap();
    assert_eq!(sum, 7);
    let err = pair.get_field("c").unwrap_err();
    assert!(err.message().contains("'c'"), "{}", err.message());

    let wheel = std::fs::canonicalize(WHEEL_RUNTIME).unwrap();
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    assert!(!maps.contains(wheel.to_str().unwrap()), "the wheel's runtime is mapped");
}
