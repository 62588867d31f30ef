//! The one panic boundary (`ffi_boundary!`), in each kind of function C
//! calls: a closure's entry point and an exported function (a status: a
//! RuntimeError "<function>: Rust panic: <message>"), and a closure's
//! finalizer and an object's deleter (nothing to return: the process
//! aborts, checked in a child process running the same test).
//! xffi-capi's exports are covered by its own `panic_tests`.

use std::ffi::c_int;
use std::process::Command;

use xffi::sys::{self, xffi_any};
use xffi::{Any, AnyView, Error, ErrorKind, Function, ObjectRef, ffi_boundary, object_type};

/// Set in the child process to the test whose aborting half it runs.
const CHILD: &str = "XFFI_PANIC_BOUNDARY_CHILD";

fn expect_panic_error(err: Error, message: &str) {
    assert_eq!(err.kind(), ErrorKind::RuntimeError);
    assert_eq!(err.message(), message);
}

#[test]
fn a_panic_in_a_closure_is_a_runtime_error_and_the_function_still_works() {
    let f = Function::from_closure(|args: &[AnyView]| {
        let n: i64 = args[0].get()?;
        if n < 0 {
            panic!("negative: {n}");
        }
        Ok(Any::from(n * 2))
    })
    .unwrap();
    expect_panic_error(f.call(&[AnyView::int(-3)]).unwrap_err(), "Rust closure: Rust panic: negative: -3");
    // Called from C the same way: a failed status and the error in the slot.
    let mut result = xffi_any::none();
    let args = [xffi_any::int(-4)];
    // SAFETY: a live Function, one valid argument, a writable result.
    let status = unsafe { sys::xffi_function_call(f.as_ptr(), args.as_ptr(), 1, &mut result) };
    assert_eq!(status, sys::XFFI_FAIL);
    expect_panic_error(Error::take_raised(), "Rust closure: Rust panic: negative: -4");
    assert_eq!(f.call_typed::<i64, _>((5i64,)).unwrap(), 10);

    // A payload that is not a string still gives the one wording.
    let g = Function::from_closure(|_: &[AnyView]| -> xffi::Result<Any> { std::panic::panic_any(7u8) }).unwrap();
    expect_panic_error(g.call(&[]).unwrap_err(), "Rust closure: Rust panic: a panic with a non-string payload");
}

xffi::export_func!(
    fn halve(x: i64) -> i64 {
        assert!(x % 2 == 0, "{x} is odd");
        Ok(x / 2)
    }
);

#[test]
fn a_panic_in_an_exported_function_is_a_runtime_error_naming_it() {
    let mut result = xffi_any::none();
    // SAFETY: the safe-call contract: one valid argument, a writable result.
    let status = unsafe { halve(std::ptr::null_mut(), [xffi_any::int(8)].as_ptr(), 1, &mut result) };
    assert_eq!((status, result.type_index), (sys::XFFI_OK, sys::XFFI_TYPE_INT));
    // SAFETY: the int tag was checked.
    assert_eq!(unsafe { result.value.v_int64 }, 4);
    // SAFETY: as above.
    let status = unsafe { halve(std::ptr::null_mut(), [xffi_any::int(7)].as_ptr(), 1, &mut result) };
    assert_eq!(status, sys::XFFI_FAIL);
    expect_panic_error(Error::take_raised(), "halve: Rust panic: 7 is odd");
}

/// A payload whose own destructor panics: dropping it must not unwind into C.
struct PanickyPayload;
impl Drop for PanickyPayload {
    fn drop(&mut self) {
        panic!("the payload's drop");
    }
}

extern "C" fn status_fn(mode: c_int) -> c_int {
    ffi_boundary!("status_fn", {
        match mode {
            0 => sys::XFFI_OK,
            1 => panic!("a &str"),
            2 => panic!("a {}", "String"),
            _ => std::panic::panic_any(PanickyPayload),
        }
    })
}

#[test]
fn the_macro_on_a_status_function_reports_every_payload_kind() {
    assert_eq!(status_fn(0), sys::XFFI_OK);
    assert_eq!(status_fn(1), sys::XFFI_FAIL);
    expect_panic_error(Error::take_raised(), "status_fn: Rust panic: a &str");
    assert_eq!(status_fn(2), sys::XFFI_FAIL);
    expect_panic_error(Error::take_raised(), "status_fn: Rust panic: a String");
    assert_eq!(status_fn(3), sys::XFFI_FAIL);
    expect_panic_error(Error::take_raised(), "status_fn: Rust panic: a panic with a non-string payload");
}

/// Runs the test `name` again in a child process with `CHILD` set, where it
/// takes its aborting branch, and checks that the child aborted (SIGABRT on
/// Unix) after printing `message` and why.
fn expect_child_abort(name: &str, message: &str) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, name)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the child did not abort; stderr:\n{stderr}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(out.status.signal(), Some(6), "not SIGABRT: {:?}; stderr:\n{stderr}", out.status);
    }
    assert!(stderr.contains(message), "stderr lacks {message:?}:\n{stderr}");
    assert!(stderr.contains("returns nothing to C, so the panic cannot be reported: aborting"), "{stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("still running"), "the child went on after the panic");
}

fn in_child(name: &str) -> bool {
    std::env::var(CHILD).is_ok_and(|v| v == name)
}

/// Captured by a closure: panics when the closure is dropped.
struct PanicsOnDrop;
impl Drop for PanicsOnDrop {
    fn drop(&mut self) {
        panic!("closure state drop failed");
    }
}

#[test]
fn a_panic_in_a_closure_finalizer_aborts() {
    const NAME: &str = "a_panic_in_a_closure_finalizer_aborts";
    if in_child(NAME) {
        let state = PanicsOnDrop;
        let f = Function::from_closure(move |_: &[AnyView]| {
            let _ = &state;
            Ok(Any::none())
        })
        .unwrap();
        drop(f); // the last reference: C runs the finalizer, which drops the closure
        println!("still running");
        return;
    }
    expect_child_abort(NAME, "Rust closure finalizer: Rust panic: closure state drop failed");
}

struct Exploding;
object_type!(Exploding, "test.panic_boundary.Exploding");
impl Drop for Exploding {
    fn drop(&mut self) {
        panic!("object drop failed");
    }
}

#[test]
fn a_panic_in_an_object_deleter_aborts() {
    const NAME: &str = "a_panic_in_an_object_deleter_aborts";
    if in_child(NAME) {
        let obj = ObjectRef::new(Exploding).unwrap();
        drop(obj); // the last reference: C runs the deleter, which runs Drop
        println!("still running");
        return;
    }
    expect_child_abort(NAME, "the deleter of panic_boundary::Exploding: Rust panic: object drop failed");
}
