//! Panics never cross into C: a panic injected inside every exported
//! function (through a test-only hook in `boundary`) comes back as a
//! RuntimeError naming the function, and the out-parameters hold nothing.

use std::cell::Cell;
use std::ptr;

use xffi::sys::{XFFI_FAIL, XFFI_OK, xffi_object, xffi_object_dec_ref};
use xffi::{Error, ErrorKind};

use crate::*;

thread_local! {
    static INJECT: Cell<bool> = const { Cell::new(false) };
}

/// Called by `boundary` inside its `catch_unwind` (tests only).
pub(crate) fn maybe_inject(func: &str) {
    if INJECT.with(|c| c.replace(false)) {
        panic!("injected panic in {func}");
    }
}

fn expect_panic_error(status: i32, func: &str) {
    assert_eq!(status, XFFI_FAIL, "{func} succeeded");
    let err = Error::take_raised();
    assert_eq!(err.kind(), ErrorKind::RuntimeError);
    assert_eq!(err.message(), format!("{func}: Rust panic: injected panic in {func}"));
}

fn armed<R>(call: impl FnOnce() -> R) -> R {
    INJECT.with(|c| c.set(true));
    let r = call();
    assert!(!INJECT.with(|c| c.get()), "the hook did not run");
    r
}

fn point(x: f64, y: f64) -> *mut xffi_object {
    let mut p = ptr::null_mut();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    assert_eq!(unsafe { xcapi_point_new(&mut p, x, y) }, XFFI_OK);
    p
}

#[test]
fn a_panic_in_any_exported_function_is_a_runtime_error_naming_it() {
    let p = point(1.0, 2.0);
    let mut label = ptr::null_mut();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    assert_eq!(unsafe { xcapi_label_new(&mut label, c"l".as_ptr(), p) }, XFFI_OK);

    let mut out: *mut xffi_object = ptr::dangling_mut();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    expect_panic_error(armed(|| unsafe { xcapi_point_new(&mut out, 1.0, 1.0) }), "xcapi_point_new");
    assert!(out.is_null(), "a failed call leaves NULL in *out");

    let (mut x, mut y) = (0.0, 0.0);
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    expect_panic_error(armed(|| unsafe { xcapi_point_coords(&mut x, &mut y, p) }), "xcapi_point_coords");
    let mut index = 0;
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    expect_panic_error(armed(|| unsafe { xcapi_point_type_index(&mut index) }), "xcapi_point_type_index");
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    expect_panic_error(armed(|| unsafe { xcapi_label_type_index(&mut index) }), "xcapi_label_type_index");

    out = ptr::dangling_mut();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    expect_panic_error(armed(|| unsafe { xcapi_label_new(&mut out, c"t".as_ptr(), p) }), "xcapi_label_new");
    assert!(out.is_null());
    let mut text = c"dangling".as_ptr();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    expect_panic_error(armed(|| unsafe { xcapi_label_text(&mut text, label) }), "xcapi_label_text");
    assert!(text.is_null());
    out = ptr::dangling_mut();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    expect_panic_error(armed(|| unsafe { xcapi_label_point(&mut out, label) }), "xcapi_label_point");
    assert!(out.is_null());

    out = ptr::dangling_mut();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    expect_panic_error(armed(|| unsafe { xcapi_function_new(&mut out, c"distance".as_ptr()) }), "xcapi_function_new");
    assert!(out.is_null());
    expect_panic_error(armed(|| xcapi_register_globals(1)), "xcapi_register_globals");
    expect_panic_error(armed(|| xcapi_unregister_globals()), "xcapi_unregister_globals");
    let mut stats = xcapi_stats::default();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    expect_panic_error(armed(|| unsafe { xcapi_stats_get(&mut stats) }), "xcapi_stats_get");

    // SAFETY: the references this test made, each released once.
    unsafe {
        xffi_object_dec_ref(label);
        xffi_object_dec_ref(p);
    }
}

#[test]
fn a_panic_with_a_non_string_payload_is_still_reported() {
    let status = crate::boundary::boundary("xcapi_probe", || std::panic::panic_any(42u8));
    assert_eq!(status, XFFI_FAIL);
    let err = Error::take_raised();
    assert_eq!(err.kind(), ErrorKind::RuntimeError);
    assert_eq!(err.message(), "xcapi_probe: Rust panic: a panic with a non-string payload");
}
