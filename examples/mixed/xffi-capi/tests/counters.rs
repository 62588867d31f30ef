//! The deleters of the library's objects and functions run exactly once, at
//! the last release, wherever the references went (containers, the global
//! registry, results of Rust functions). One test in its own process, so the
//! library-wide counters move only because of it.

use std::ptr;

use xffi::sys::{XFFI_OK, xffi_object};
use xffi::{Any, AnyView, Array, Function, Map, Object, ObjectRef};
use xffi_capi::*;

fn stats() -> xcapi_stats {
    let mut s = xcapi_stats::default();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    assert_eq!(unsafe { xcapi_stats_get(&mut s) }, XFFI_OK);
    s
}

fn owned(raw: *mut xffi_object) -> ObjectRef<Object> {
    // SAFETY: raw is a new reference the C API call just returned, taken over once.
    unsafe { ObjectRef::from_raw(raw) }.expect("a new reference")
}

fn function(name: &std::ffi::CStr) -> Function {
    let mut f = ptr::null_mut();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    assert_eq!(unsafe { xcapi_function_new(&mut f, name.as_ptr()) }, XFFI_OK);
    Function::from_object(owned(f).downcast().unwrap())
}

#[test]
fn every_object_and_function_deleter_runs_exactly_once_at_the_last_release() {
    assert_eq!(stats(), xcapi_stats::default(), "nothing made yet");
    let mut raw = ptr::null_mut();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    assert_eq!(unsafe { xcapi_point_new(&mut raw, 0.0, 0.0) }, XFFI_OK);
    let a = owned(raw);
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    assert_eq!(unsafe { xcapi_point_new(&mut raw, 3.0, 4.0) }, XFFI_OK);
    let b = owned(raw);
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    assert_eq!(unsafe { xcapi_label_new(&mut raw, c"b".as_ptr(), b.as_ptr()) }, XFFI_OK);
    let label = owned(raw);
    assert_eq!(b.strong_count(), 2, "the label holds the point");

    // Into containers, through Rust functions, into the registry.
    let points: Array<Any> = vec![Any::from(a.clone()), Any::from(b.clone())].into_iter().collect();
    let mut by_name: Map<Any, Any> = Map::new().unwrap();
    by_name.insert(Any::from("label b"), Any::from(label.clone())).unwrap();
    let centroid = function(c"centroid").call(&[AnyView::object(points.as_object())]).unwrap();
    let c: ObjectRef<Object> = centroid.get().unwrap();
    let (mut x, mut y) = (0.0, 0.0);
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    assert_eq!(unsafe { xcapi_point_coords(&mut x, &mut y, c.as_ptr()) }, XFFI_OK);
    assert_eq!((x, y), (1.5, 2.0));
    let length: f64 = function(c"path_length").call_typed((points.clone(),)).unwrap();
    assert_eq!(length, 5.0);
    assert_eq!(xcapi_register_globals(0), XFFI_OK);
    let d: f64 = Function::get_global("xcapi.distance").unwrap().unwrap().call_typed((a.clone(), b.clone())).unwrap();
    assert_eq!(d, 5.0);

    let mut none = ptr::null_mut();
    // SAFETY: each pointer is a writable slot, a live object or a C string, or NULL where allowed.
    assert_ne!(unsafe { xcapi_function_new(&mut none, c"area".as_ptr()) }, XFFI_OK);
    drop(xffi::Error::take_raised());

    let s = stats();
    assert_eq!((s.points_created, s.points_dropped), (3, 0));
    assert_eq!((s.labels_created, s.labels_dropped), (1, 0));
    assert_eq!(s.functions_created, 2 + 6, "two made and dropped, six in the registry, none for an unknown name");
    assert_eq!(s.functions_dropped, 2);

    // Releasing one holder at a time: nothing goes before its last reference.
    drop((a, b, centroid, c));
    assert_eq!(stats().points_dropped, 1, "only the centroid had no other holder");
    drop(points);
    assert_eq!(stats().points_dropped, 2, "a went with the array; b is still in the label");
    drop(label);
    assert_eq!(stats().labels_dropped, 0, "the map still holds the label");
    drop(by_name);
    let s = stats();
    assert_eq!((s.labels_dropped, s.points_dropped), (1, 3), "the label, then its point");
    assert_eq!(xcapi_unregister_globals(), XFFI_OK);
    let s = stats();
    assert_eq!(s.functions_dropped, s.functions_created, "the registry released the six closures");
    assert_eq!(s.points_created, s.points_dropped);
    assert_eq!(s.labels_created, s.labels_dropped);
}
