//! Checks the Rust reimplementations of the C static inline hot paths
//! (reference counting, is-instance, Any constructors) against the C ones on
//! the same objects, through a C probe that exports them
//! (probe/layout_probe.c). Sizes, offsets, constants and signatures are
//! proven by the generated systest (rust/xffi-systest); this test checks what
//! a declaration cannot show: that the reimplemented code behaves the same.
extern crate xffi_tests; // links the C probe compiled by build.rs
use std::ffi::{c_int, CStr};
use xffi_sys::*;

extern "C" {
    fn xffi_probe_inc_ref(obj: *mut xffi_object);
    fn xffi_probe_dec_ref(obj: *mut xffi_object);
    fn xffi_probe_is_instance_of(obj: *const xffi_object, type_index: i32) -> c_int;
    fn xffi_probe_is_instance(obj: *const xffi_object, type_index: i32) -> c_int;
    fn xffi_probe_any_int(x: i64) -> xffi_any;
    fn xffi_probe_any_float(x: f64) -> xffi_any;
    fn xffi_probe_any_bool(x: c_int) -> xffi_any;
}

#[test]
fn the_abi_version_of_the_linked_library_is_the_one_declared() {
    // SAFETY: no arguments; a plain read of a constant.
    assert_eq!(unsafe { xffi_abi_version() }, XFFI_ABI_VERSION);
    // SAFETY: xffi_version returns a NUL-terminated string in static storage.
    let v = unsafe { CStr::from_ptr(xffi_version()) };
    assert_eq!(v, XFFI_VERSION_STRING);
    assert_eq!(v.to_str().unwrap(), format!("{XFFI_VERSION_MAJOR}.{XFFI_VERSION_MINOR}.{XFFI_VERSION_PATCH}"));
}

#[test]
fn rust_any_constructors_produce_the_c_bytes() {
    fn bytes(a: &xffi_any) -> [u8; 16] {
        // SAFETY: xffi_any is 16 bytes with no padding (type index, small
        // length, an 8-byte payload every constructor here writes in full).
        unsafe { std::mem::transmute_copy(a) }
    }
    for x in [0i64, -1, 42, i64::MIN, i64::MAX] {
        // SAFETY: the probe builds a value from an int; nothing is borrowed.
        assert_eq!(bytes(&xffi_any::int(x)), bytes(&unsafe { xffi_probe_any_int(x) }));
    }
    for x in [0.0f64, -1.5, f64::INFINITY] {
        // SAFETY: the probe builds a value from a float; nothing is borrowed.
        assert_eq!(bytes(&xffi_any::float(x)), bytes(&unsafe { xffi_probe_any_float(x) }));
    }
    // SAFETY: the probe builds a value from an int; nothing is borrowed.
    assert_eq!(bytes(&xffi_any::bool(true)), bytes(&unsafe { xffi_probe_any_bool(7) }));
    // SAFETY: as above.
    assert_eq!(bytes(&xffi_any::bool(false)), bytes(&unsafe { xffi_probe_any_bool(0) }));
}

#[test]
fn rust_and_c_reference_counting_interleave_on_one_object() {
    // SAFETY: `s` is a live String throughout: every decrement below drops a
    // reference taken above, and the last strong one goes while the weak
    // reference `w` keeps the memory, released last.
    unsafe {
        let mut s: *mut xffi_object = std::ptr::null_mut();
        assert_eq!(xffi_string_new(&mut s, b"refcount".as_ptr().cast(), 8), XFFI_OK);
        xffi_object_inc_ref_inline(s);
        xffi_probe_inc_ref(s);
        xffi_object_inc_ref(s);
        assert_eq!(xffi_object_strong_count(s), 4);
        assert_eq!(xffi_object_weak_count(s), 1);
        xffi_probe_dec_ref(s);
        xffi_object_dec_ref(s);
        xffi_object_dec_ref_inline(s);
        assert_eq!(xffi_object_strong_count(s), 1);
        // A weak reference taken through C outlives the last strong one
        // dropped by the Rust decrement (flag 1, then 2 when the weak goes).
        let mut w: *mut xffi_weak = std::ptr::null_mut();
        assert_eq!(xffi_weak_new(&mut w, s), XFFI_OK);
        assert_eq!(xffi_object_weak_count(s), 2);
        xffi_object_dec_ref_inline(s);
        let mut locked: *mut xffi_object = std::ptr::null_mut();
        assert_eq!(xffi_weak_lock(&mut locked, w), XFFI_OK);
        assert!(locked.is_null());
        xffi_weak_release(w);
    }
}

#[test]
fn rust_is_instance_agrees_with_c_on_a_three_level_hierarchy() {
    // SAFETY: valid out slots and NUL-terminated keys; `header` is a header
    // on the stack, filled by xffi_object_init before each use and never
    // reference counted (its deleter is never called).
    unsafe {
        let (mut a, mut b, mut c) = (0i32, 0i32, 0i32);
        assert_eq!(xffi_type_register(&mut a, c"layout.A".as_ptr(), XFFI_TYPE_OBJECT), XFFI_OK);
        assert_eq!(xffi_type_register(&mut b, c"layout.B".as_ptr(), a), XFFI_OK);
        assert_eq!(xffi_type_register(&mut c, c"layout.C".as_ptr(), b), XFFI_OK);
        let mut header: xffi_object = std::mem::zeroed();
        unsafe extern "C" fn never(_: *mut std::ffi::c_void, _: c_int) {}
        for (own, expect) in
            [(a, [true, true, false, false]), (b, [true, true, true, false]), (c, [true, true, true, true])]
        {
            xffi_object_init(&mut header, own, never);
            for (i, t) in [XFFI_TYPE_OBJECT, a, b, c].into_iter().enumerate() {
                let want = expect[i];
                assert_eq!(xffi_object_is_instance_of(&header, t), want, "type {own} vs {t}");
                assert_eq!(xffi_probe_is_instance_of(&header, t) != 0, want, "C inline, type {own} vs {t}");
                assert_eq!(xffi_probe_is_instance(&header, t) != 0, want, "C record form, type {own} vs {t}");
                let mut out = 0;
                assert_eq!(xffi_object_check_instance(&mut out, &header, t), XFFI_OK);
                assert_eq!(out != 0, want);
            }
        }
        let _ = XFFI_TYPE_STRING;
    }
}
