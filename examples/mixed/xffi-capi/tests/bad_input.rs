//! Every exported C function fed bad input: NULL pointers, objects of the
//! wrong type, strings that are not UTF-8, values out of range. Each must
//! return XFFI_FAIL with the stated error kind and exact message, leave NULL
//! in its object out-parameter, and leak nothing (valgrind runs this file).

use std::ffi::{CStr, c_char};
use std::ptr;

use xffi::sys::{XFFI_FAIL, XFFI_OK, xffi_object};
use xffi::{Any, AnyView, Error, Function, Object, ObjectRef};
use xffi_capi::*;

/// Asserts a failed call: status, error kind and message.
#[track_caller]
fn fails(status: i32, kind: &str, message: &str) {
    assert_eq!(status, XFFI_FAIL, "the call succeeded; expected {kind}: {message}");
    let err = Error::take_raised();
    assert_eq!((err.kind(), err.message().as_ref()), (xffi::ErrorKind::from(kind), message));
}

/// Takes the new reference a C API call returned.
fn owned(raw: *mut xffi_object) -> ObjectRef<Object> {
    // SAFETY: raw is a new reference the C API call just returned, taken over once.
    unsafe { ObjectRef::from_raw(raw) }.expect("a new reference")
}

fn point(x: f64, y: f64) -> ObjectRef<Object> {
    let mut p = ptr::null_mut();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    assert_eq!(unsafe { xcapi_point_new(&mut p, x, y) }, XFFI_OK);
    owned(p)
}

fn label(text: &CStr, p: &ObjectRef<Object>) -> ObjectRef<Object> {
    let mut l = ptr::null_mut();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    assert_eq!(unsafe { xcapi_label_new(&mut l, text.as_ptr(), p.as_ptr()) }, XFFI_OK);
    owned(l)
}

fn string(s: &str) -> ObjectRef<Object> {
    xffi::String::new(s).unwrap().into_object()
}

/// A pointer that must be overwritten with NULL by a failing call.
fn poisoned() -> *mut xffi_object {
    ptr::dangling_mut()
}

const NOT_UTF8: &[u8] = b"ab\xff\0";

#[test]
fn point_new_rejects_a_null_out_and_non_finite_coordinates() {
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_point_new(ptr::null_mut(), 1.0, 2.0) },
        "ValueError",
        "xcapi_point_new: out is NULL (expected a pointer to an xffi_object * to receive the new Point)",
    );
    let mut out = poisoned();
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_point_new(&mut out, f64::NAN, 2.0) },
        "ValueError",
        "xcapi_point_new: x must be finite, got NaN",
    );
    assert!(out.is_null());
    out = poisoned();
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_point_new(&mut out, 0.0, f64::NEG_INFINITY) },
        "ValueError",
        "xcapi_point_new: y must be finite, got -inf",
    );
    assert!(out.is_null());
}

#[test]
fn point_coords_rejects_null_arguments_and_objects_of_other_types() {
    let p = point(1.0, 2.0);
    let (mut x, mut y) = (0.0, 0.0);
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_point_coords(ptr::null_mut(), &mut y, p.as_ptr()) },
        "ValueError",
        "xcapi_point_coords: out_x is NULL (expected a pointer to a double to receive x)",
    );
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_point_coords(&mut x, ptr::null_mut(), p.as_ptr()) },
        "ValueError",
        "xcapi_point_coords: out_y is NULL (expected a pointer to a double to receive y)",
    );
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_point_coords(&mut x, &mut y, ptr::null()) },
        "ValueError",
        "xcapi_point_coords: point is NULL (expected an object of type xcapi.Point)",
    );
    let s = string("not a point");
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_point_coords(&mut x, &mut y, s.as_ptr()) },
        "TypeError",
        "xcapi_point_coords: point: expected xcapi.Point, got ffi.String",
    );
    let l = label(c"a label", &p);
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_point_coords(&mut x, &mut y, l.as_ptr()) },
        "TypeError",
        "xcapi_point_coords: point: expected xcapi.Point, got xcapi.Label",
    );
    assert_eq!((x, y), (0.0, 0.0), "nothing written on failure");
    assert_eq!(s.strong_count(), 1, "no reference kept");
}

#[test]
fn type_index_functions_reject_a_null_out() {
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_point_type_index(ptr::null_mut()) },
        "ValueError",
        "xcapi_point_type_index: out is NULL (expected a pointer to an int32_t to receive the type index)",
    );
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_label_type_index(ptr::null_mut()) },
        "ValueError",
        "xcapi_label_type_index: out is NULL (expected a pointer to an int32_t to receive the type index)",
    );
}

#[test]
fn label_new_rejects_null_arguments_bad_text_and_a_non_point() {
    let p = point(0.0, 0.0);
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_label_new(ptr::null_mut(), c"t".as_ptr(), p.as_ptr()) },
        "ValueError",
        "xcapi_label_new: out is NULL (expected a pointer to an xffi_object * to receive the new Label)",
    );
    let mut out = poisoned();
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_label_new(&mut out, ptr::null(), p.as_ptr()) },
        "ValueError",
        "xcapi_label_new: text is NULL (expected a NUL-terminated UTF-8 string)",
    );
    assert!(out.is_null());
    out = poisoned();
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_label_new(&mut out, NOT_UTF8.as_ptr().cast::<c_char>(), p.as_ptr()) },
        "ValueError",
        "xcapi_label_new: text is not valid UTF-8 (invalid byte at offset 2)",
    );
    assert!(out.is_null());
    out = poisoned();
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_label_new(&mut out, c"t".as_ptr(), ptr::null_mut()) },
        "ValueError",
        "xcapi_label_new: point is NULL (expected an object of type xcapi.Point)",
    );
    assert!(out.is_null());
    let l = label(c"inner", &p);
    out = poisoned();
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_label_new(&mut out, c"t".as_ptr(), l.as_ptr()) },
        "TypeError",
        "xcapi_label_new: point: expected xcapi.Point, got xcapi.Label",
    );
    assert!(out.is_null());
}

#[test]
fn label_accessors_reject_null_arguments_and_non_labels() {
    let p = point(0.0, 0.0);
    let mut text: *const c_char = c"poison".as_ptr();
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_label_text(ptr::null_mut(), p.as_ptr()) },
        "ValueError",
        "xcapi_label_text: out is NULL (expected a pointer to a const char * to receive the text)",
    );
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_label_text(&mut text, ptr::null()) },
        "ValueError",
        "xcapi_label_text: label is NULL (expected an object of type xcapi.Label)",
    );
    assert!(text.is_null());
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_label_text(&mut text, p.as_ptr()) },
        "TypeError",
        "xcapi_label_text: label: expected xcapi.Label, got xcapi.Point",
    );

    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_label_point(ptr::null_mut(), p.as_ptr()) },
        "ValueError",
        "xcapi_label_point: out is NULL (expected a pointer to an xffi_object * to receive the point)",
    );
    let mut out = poisoned();
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_label_point(&mut out, ptr::null()) },
        "ValueError",
        "xcapi_label_point: label is NULL (expected an object of type xcapi.Label)",
    );
    assert!(out.is_null());
    let s = string("a string long enough to be an object");
    out = poisoned();
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_label_point(&mut out, s.as_ptr()) },
        "TypeError",
        "xcapi_label_point: label: expected xcapi.Label, got ffi.String",
    );
    assert!(out.is_null());
}

#[test]
fn function_new_rejects_null_arguments_bad_names_and_unknown_names() {
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_function_new(ptr::null_mut(), c"distance".as_ptr()) },
        "ValueError",
        "xcapi_function_new: out is NULL (expected a pointer to an xffi_object * to receive the Function)",
    );
    let mut out = poisoned();
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_function_new(&mut out, ptr::null()) },
        "ValueError",
        "xcapi_function_new: name is NULL (expected a NUL-terminated UTF-8 string)",
    );
    assert!(out.is_null());
    out = poisoned();
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_function_new(&mut out, NOT_UTF8.as_ptr().cast::<c_char>()) },
        "ValueError",
        "xcapi_function_new: name is not valid UTF-8 (invalid byte at offset 2)",
    );
    assert!(out.is_null());
    out = poisoned();
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_function_new(&mut out, c"area".as_ptr()) },
        "KeyError",
        "xcapi_function_new: no function named 'area' (known: distance, path_length, centroid, scale, describe, \
         map_points)",
    );
    assert!(out.is_null());
}

#[test]
fn stats_get_rejects_a_null_out() {
    fails(
        // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
        unsafe { xcapi_stats_get(ptr::null_mut()) },
        "ValueError",
        "xcapi_stats_get: out is NULL (expected a pointer to an xcapi_stats to fill)",
    );
}

fn function(name: &CStr) -> Function {
    let mut f = ptr::null_mut();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    assert_eq!(unsafe { xcapi_function_new(&mut f, name.as_ptr()) }, XFFI_OK);
    // SAFETY: f is the new Function reference the call just returned, taken over once.
    Function::from_object(unsafe { ObjectRef::from_raw_checked(f) }.unwrap())
}

#[test]
fn the_rust_functions_check_their_arguments() {
    let p = point(1.0, 1.0);
    let pv = AnyView::object(&p);
    let s = string("a string that is not a point");

    let distance = function(c"distance");
    let err = distance.call(&[pv, AnyView::object(&s)]).unwrap_err();
    assert_eq!(
        (err.kind(), err.message().as_ref()),
        (xffi::ErrorKind::TypeError, "argument 1: expected xcapi.Point, got ffi.String")
    );
    let err = distance.call(&[pv]).unwrap_err();
    assert_eq!((err.kind(), err.message().as_ref()), (xffi::ErrorKind::TypeError, "expected 2 arguments, got 1"));

    let centroid = function(c"centroid");
    let empty: xffi::Array<Any> = xffi::Array::new().unwrap();
    let err = centroid.call(&[AnyView::object(empty.as_object())]).unwrap_err();
    assert_eq!((err.kind(), err.message().as_ref()), (xffi::ErrorKind::ValueError, "centroid: no points"));
    let mixed: xffi::Array<Any> = vec![Any::from(s.clone()), Any::from(1i64)].into_iter().collect();
    let err = centroid.call(&[AnyView::object(mixed.as_object())]).unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::TypeError);
    assert!(err.message().starts_with("argument 0: "), "{}", err.message());

    let scale = function(c"scale");
    let err = scale.call(&[pv, AnyView::float(f64::INFINITY)]).unwrap_err();
    assert_eq!(
        (err.kind(), err.message().as_ref()),
        (xffi::ErrorKind::ValueError, "point coordinates must be finite, got (inf, inf)")
    );

    let describe = function(c"describe");
    let err = describe.call(&[pv]).unwrap_err();
    assert_eq!(
        (err.kind(), err.message().as_ref()),
        (xffi::ErrorKind::TypeError, "argument 0: expected xcapi.Label, got xcapi.Point")
    );

    // map_points passes on the first error its callee raises.
    let map_points = function(c"map_points");
    let failing =
        Function::from_closure(|_| Err(Error::new(xffi::ErrorKind::from("LookupError"), "from the callee"))).unwrap();
    let points: xffi::Array<Any> = vec![Any::from(s.clone())].into_iter().collect();
    let err = map_points.call(&[AnyView::object(failing.as_object()), AnyView::object(points.as_object())]);
    assert_eq!(err.unwrap_err().kind(), xffi::ErrorKind::TypeError, "a non-point element is refused before any call");
    let points: xffi::Array<Any> = vec![Any::from(point(2.0, 3.0))].into_iter().collect();
    let err =
        map_points.call(&[AnyView::object(failing.as_object()), AnyView::object(points.as_object())]).unwrap_err();
    assert_eq!((err.kind(), err.message().as_ref()), (xffi::ErrorKind::from("LookupError"), "from the callee"));
}

#[test]
fn registering_the_globals_twice_without_override_is_a_value_error() {
    // This test owns the xcapi.* names (no other test in this binary uses them).
    assert_eq!(xcapi_register_globals(0), XFFI_OK);
    assert!(Function::get_global("xcapi.distance").unwrap().is_some());
    let status = xcapi_register_globals(0);
    assert_eq!(status, XFFI_FAIL);
    let err = Error::take_raised();
    assert_eq!(err.kind(), xffi::ErrorKind::ValueError);
    assert!(err.message().starts_with("xcapi_register_globals: "), "{}", err.message());
    assert!(err.message().contains("xcapi.distance"), "the message names the taken name: {}", err.message());
    assert_eq!(xcapi_register_globals(1), XFFI_OK, "allowed with override");
    assert_eq!(xcapi_unregister_globals(), XFFI_OK);
    assert!(Function::get_global("xcapi.distance").unwrap().is_none());
    assert_eq!(xcapi_unregister_globals(), XFFI_OK, "missing names are skipped");
}
