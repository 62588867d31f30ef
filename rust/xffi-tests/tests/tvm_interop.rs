//! xffi's Rust crate calls a library written for tvm-ffi alone
//! (tests/interop/lib_tvm_exports.c: built against the apache-tvm-ffi
//! wheel's headers, linked to its libtvm_ffi.so, no xffi in it).
//!
//! Strings, tensors, arrays and functions cross both ways with plain xffi
//! values; an error raised into tvm-ffi's slot arrives as an xffi `Err` with
//! its kind and message (xffi_function_call adopts it); objects made by either
//! side and dropped by the other are freed exactly once (tvm-ffi's side
//! counts its deleters, ours counts Drop).
#![cfg(xffi_tvm_ffi)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use xffi::{Any, Array, Function, Module, Tensor};

const LIB: &str = env!("XFFI_TVM_EXPORTS_LIB");

/// The test library, built by this crate's build script against tvm-ffi.
fn load() -> Module {
    // SAFETY: our own test library; its initialisers only register types.
    unsafe { Module::load(LIB) }.unwrap()
}

fn function(m: &Module, name: &str) -> Function {
    // SAFETY: the test library exports only xffi functions under __tvm_ffi_.
    unsafe { m.get_function(name) }.unwrap().unwrap_or_else(|| panic!("{name} is exported"))
}

/// The library counts its freed tensors and adders in one counter: tests that
/// read it hold this lock, or a test running alongside would move it.
static DELETER_COUNT: Mutex<()> = Mutex::new(());

fn deleter_runs(m: &Module) -> i64 {
    function(m, "deleter_runs").call_typed::<i64, _>(()).unwrap()
}

#[test]
fn strings_go_in_as_xffi_values_and_a_tvm_string_comes_back() {
    let m = load();
    let concat = function(&m, "concat");
    let s: std::string::String = concat.call_typed(("short", " and a string longer than seven bytes")).unwrap();
    assert_eq!(s, "short and a string longer than seven bytes");
    let owned = xffi::String::new("an xffi String object").unwrap();
    let s: std::string::String = concat.call_typed((owned, "!")).unwrap();
    assert_eq!(s, "an xffi String object!");
}

#[test]
fn tensors_cross_both_ways_without_copies() {
    let _counting = DELETER_COUNT.lock().unwrap_or_else(|e| e.into_inner());
    let m = load();
    let before = deleter_runs(&m);
    let t = Tensor::from_slice(&[1.5f64, 2.5, 3.0], &[3]).unwrap();
    let sum: f64 = function(&m, "tensor_sum").call_typed((t.clone(),)).unwrap();
    assert_eq!(sum, 7.0);

    let made: Tensor = function(&m, "tensor_full").call_typed((4i64, 0.25f64)).unwrap();
    assert_eq!(made.shape(), &[4]);
    assert_eq!(made.as_slice::<f64>().unwrap(), &[0.25; 4]);
    // The tensor made by tvm-ffi goes back to it as it is.
    let sum: f64 = function(&m, "tensor_sum").call_typed((made.clone(),)).unwrap();
    assert_eq!(sum, 1.0);
    assert!(function(&m, "tensor_sum").call_typed::<f64, _>((Tensor::from_slice(&[1i32], &[1]).unwrap(),)).is_err());
    drop(made);
    assert_eq!(deleter_runs(&m), before + 1, "tvm-ffi's tensor is freed once, when Rust drops it");
}

#[test]
fn arrays_cross_both_ways() {
    let m = load();
    let ours: Array<i64> = (1..=10).collect();
    let sum: i64 = function(&m, "array_sum").call_typed((ours.clone(),)).unwrap();
    assert_eq!(sum, 55);
    let theirs: Array<Any> = function(&m, "array_of").call_typed((7i64, "seven", 7.5f64)).unwrap();
    assert_eq!(theirs.len(), 3);
    assert_eq!(theirs.get(0).unwrap().expect("an element").get::<i64>().unwrap(), 7);
    assert_eq!(theirs.get(1).unwrap().expect("an element").get::<std::string::String>().unwrap(), "seven");
    assert_eq!(theirs.get(2).unwrap().expect("an element").get::<f64>().unwrap(), 7.5);
}

#[test]
fn functions_cross_both_ways_and_each_is_freed_once() {
    let _counting = DELETER_COUNT.lock().unwrap_or_else(|e| e.into_inner());
    let m = load();
    let drops = Arc::new(AtomicUsize::new(0));
    struct CountDrop(Arc<AtomicUsize>);
    impl Drop for CountDrop {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let guard = CountDrop(drops.clone());
    // A Rust closure called by tvm-ffi code.
    let triple = Function::from_typed(move |x: i64| {
        let _keep = &guard;
        Ok(3 * x)
    })
    .unwrap();
    let apply = function(&m, "apply");
    assert_eq!(apply.call_typed::<i64, _>((triple.clone(), 14i64)).unwrap(), 42);
    // Its error, raised into xffi's slot under tvm-ffi's call, comes back.
    let err = apply.call_typed::<i64, _>((triple.clone(), "x")).unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::TypeError);
    assert!(err.message().contains("expected int, got str"), "{}", err.message());
    drop(triple);
    assert_eq!(drops.load(Ordering::SeqCst), 1);

    // A tvm-ffi Function called by Rust.
    let before = deleter_runs(&m);
    let add5: Function = function(&m, "make_adder").call_typed((5i64,)).unwrap();
    assert_eq!(add5.call_typed::<i64, _>((37i64,)).unwrap(), 42);
    let err = add5.call_typed::<i64, _>(("x",)).unwrap_err();
    assert_eq!((err.kind(), err.message().as_ref()), (xffi::ErrorKind::TypeError, "adder: expected an int"));
    drop(add5);
    assert_eq!(deleter_runs(&m), before + 1, "tvm-ffi's function is freed once");
}

#[test]
fn a_tvm_ffi_error_arrives_as_err_with_kind_and_message() {
    let m = load();
    let fail = function(&m, "fail");
    let err = fail.call_typed::<(), _>(("raised by tvm-ffi: 42",)).unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::ValueError);
    assert_eq!(err.message(), "raised by tvm-ffi: 42");
    // Nothing is left behind in either slot: the next call succeeds cleanly.
    assert_eq!(function(&m, "array_sum").call_typed::<i64, _>((Array::<i64>::from_iter([2, 3]),)).unwrap(), 5);
    let err = fail.call_typed::<(), _>(("twice",)).unwrap_err();
    assert_eq!(err.message(), "twice");
}
