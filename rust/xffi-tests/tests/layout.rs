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
                assert_eq!(xffi_object_is_a_unchecked(&header, t), want, "type {own} vs {t}");
                assert_eq!(xffi_probe_is_instance_of(&header, t) != 0, want, "C inline, type {own} vs {t}");
                assert_eq!(xffi_probe_is_instance(&header, t) != 0, want, "C record form, type {own} vs {t}");
                let mut out = 0;
                assert_eq!(xffi_object_is_a(&mut out, &header, t), XFFI_OK);
                assert_eq!(out != 0, want);
            }
        }
        let _ = XFFI_TYPE_STRING;
    }
}

extern "C" {
    fn xffi_probe_any_ptr(p: *mut std::ffi::c_void) -> xffi_any;
    fn xffi_probe_any_dtype(dtype: DLDataType) -> xffi_any;
    fn xffi_probe_any_device(device: DLDevice) -> xffi_any;
    fn xffi_probe_any_dltensor(t: *mut DLTensor) -> xffi_any;
    fn xffi_probe_any_c_str(s: *const std::ffi::c_char) -> xffi_any;
    fn xffi_probe_any_byte_array(b: *const xffi_byte_array) -> xffi_any;
    fn xffi_probe_dtype_bytes(dtype: DLDataType) -> usize;
    fn xffi_probe_arg_int(out: *mut i64, args: *const xffi_any, num_args: i32, index: i32) -> c_int;
    fn xffi_probe_arg_float(out: *mut f64, args: *const xffi_any, num_args: i32, index: i32) -> c_int;
}

/// The 16 bytes of a value whose payload is a pointer or a small struct: the
/// tag words and the payload bytes the constructor wrote (a dtype or device
/// payload leaves the rest of the 8 bytes unspecified, so only `width` count).
fn tagged(a: &xffi_any, width: usize) -> (i32, u32, Vec<u8>) {
    // SAFETY: every constructor compared here writes at least `width` payload bytes.
    let payload: [u8; 8] = unsafe { std::mem::transmute_copy(&a.value) };
    (a.type_index, a.small_len, payload[..width].to_vec())
}

#[test]
fn rust_mirrors_of_the_c_inline_value_constructors_produce_the_c_values() {
    let mut x = 5i64;
    let p: *mut std::ffi::c_void = (&mut x as *mut i64).cast();
    let bytes = xffi_byte_array { data: c"ab".as_ptr(), size: 2 };
    let mut t: DLTensor = DLTensor {
        data: p,
        device: xffi_device_make(kDLCPU, 0),
        ndim: 0,
        dtype: xffi_dtype_make(kDLInt, 64, 1),
        shape: std::ptr::null_mut(),
        strides: std::ptr::null_mut(),
        byte_offset: 0,
    };
    let tp: *mut DLTensor = &mut t;
    // SAFETY: the probes only store the pointers they are given (or NULL).
    unsafe {
        for q in [p, std::ptr::null_mut()] {
            assert_eq!(tagged(&xffi_any_ptr(q), 8), tagged(&xffi_probe_any_ptr(q), 8));
        }
        for q in [tp, std::ptr::null_mut()] {
            assert_eq!(tagged(&xffi_any_dltensor(q), 8), tagged(&xffi_probe_any_dltensor(q), 8));
        }
        for q in [c"hi".as_ptr(), std::ptr::null()] {
            assert_eq!(tagged(&xffi_any_c_str(q), 8), tagged(&xffi_probe_any_c_str(q), 8));
        }
        for q in [&bytes as *const xffi_byte_array, std::ptr::null()] {
            assert_eq!(tagged(&xffi_any_byte_array(q), 8), tagged(&xffi_probe_any_byte_array(q), 8));
        }
        for d in [xffi_dtype_make(kDLFloat, 32, 4), xffi_dtype_make(kDLBool, 8, 1)] {
            assert_eq!(tagged(&xffi_any_dtype(d), 4), tagged(&xffi_probe_any_dtype(d), 4));
        }
        for d in [xffi_device_make(kDLCUDA, 3), xffi_device_make(kDLTrn, 0)] {
            assert_eq!(tagged(&xffi_any_device(d), 8), tagged(&xffi_probe_any_device(d), 8));
        }
    }
}

#[test]
fn rust_mirrors_of_the_c_inline_dtype_and_argument_helpers_agree_with_c() {
    for (code, bits, lanes) in [(kDLInt, 1, 1), (kDLInt, 4, 3), (kDLFloat, 16, 1), (kDLFloat, 64, 4), (kDLBool, 8, 7)] {
        let d = xffi_dtype_make(code, bits, lanes);
        // SAFETY: a by-value dtype; nothing is borrowed.
        assert_eq!(xffi_dtype_nbytes(d), unsafe { xffi_probe_dtype_bytes(d) }, "{d:?}");
        assert_eq!(xffi_dtype_equal(d, d), 1);
        assert_eq!(xffi_dtype_equal(d, xffi_dtype_make(code, bits, lanes + 1)), 0);
    }
    let args = [xffi_any::int(7), xffi_any::float(2.5), xffi_any::none()];
    for index in [-1, 0, 1, 2, 3] {
        let (mut rust_i, mut c_i, mut rust_f, mut c_f) = (0i64, 0i64, 0f64, 0f64);
        // SAFETY: valid out slots, three argument views and a NUL-terminated name;
        // a failure raises a TypeError, cleared below.
        let (ri, ci, rf, cf) = unsafe {
            (
                xffi_arg_to_int_inline(&mut rust_i, args.as_ptr(), 3, index, c"probe".as_ptr()),
                xffi_probe_arg_int(&mut c_i, args.as_ptr(), 3, index),
                xffi_arg_to_float_inline(&mut rust_f, args.as_ptr(), 3, index, c"probe".as_ptr()),
                xffi_probe_arg_float(&mut c_f, args.as_ptr(), 3, index),
            )
        };
        // SAFETY: clears whatever the failures raised in this thread.
        unsafe { xffi_error_set_raised(std::ptr::null_mut()) };
        assert_eq!((ri, rust_i), (ci, c_i), "int at {index}");
        assert_eq!((rf, rust_f), (cf, c_f), "float at {index}");
    }
}

#[test]
fn rust_mirrors_of_the_c_inline_container_views_read_the_c_objects() {
    // SAFETY: every object is made here, checked live, and released once at the end.
    unsafe {
        let items = [xffi_any::int(1), xffi_any::int(2), xffi_any::int(3)];
        let mut array: *mut xffi_object = std::ptr::null_mut();
        assert_eq!(xffi_array_new(&mut array, items.as_ptr(), 3), XFFI_OK);
        assert_eq!(xffi_object_is_seq(array), 1);
        assert_eq!(xffi_seq_size_unchecked(array), 3);
        assert_eq!((*xffi_seq_items_unchecked(array).add(2)).value.v_int64, 3);
        let (mut c_items, mut c_size) = (std::ptr::null(), 0i64);
        assert_eq!(xffi_array_items(&mut c_items, &mut c_size, array), XFFI_OK);
        assert_eq!((c_items, c_size), (xffi_seq_items_unchecked(array), xffi_seq_size_unchecked(array)));

        let dims = [2i64, 3, 4];
        let mut shape: *mut xffi_object = std::ptr::null_mut();
        assert_eq!(xffi_shape_new(&mut shape, dims.as_ptr(), 3), XFFI_OK);
        assert_eq!(xffi_object_is_seq(shape), 0);
        let view = *xffi_shape_cell_of_unchecked(shape);
        assert_eq!(xffi_dims_equal(view.data, view.size as i32, dims.as_ptr(), 3), 1);
        assert_eq!(xffi_dims_equal(view.data, view.size as i32, dims.as_ptr(), 2), 0);
        assert_eq!(xffi_dims_equal(view.data, view.size as i32, [2i64, 3, 5].as_ptr(), 3), 0);

        let mut tensor: *mut xffi_object = std::ptr::null_mut();
        assert_eq!(xffi_tensor_new(&mut tensor, dims.as_ptr(), 3, xffi_dtype_make(kDLFloat, 32, 1)), XFFI_OK);
        let mut checked: *mut DLTensor = std::ptr::null_mut();
        assert_eq!(xffi_tensor_cell_of(&mut checked, tensor), XFFI_OK);
        assert_eq!(xffi_tensor_cell_of_unchecked(tensor), checked);

        let a = xffi_byte_array { data: c"same".as_ptr(), size: 4 };
        let b = xffi_byte_array { data: c"same, longer".as_ptr(), size: 4 };
        assert_eq!(xffi_bytes_equal(a, b), 1);
        assert_eq!(xffi_bytes_equal(a, xffi_byte_array { size: 5, ..b }), 0);

        let mut owned = xffi_any_object_new_ref(array);
        assert_eq!(xffi_object_strong_count(array), 2);
        let mut moved = xffi_any::none();
        xffi_any_move(&mut moved, &mut owned);
        assert_eq!(owned.type_index, XFFI_TYPE_NONE);
        assert_eq!(moved.value.v_obj, array);
        xffi_any_release(&mut moved);
        assert_eq!(xffi_object_strong_count(array), 1);

        let mut info: *const xffi_type_info = std::ptr::null();
        assert_eq!(xffi_type_info_get(&mut info, XFFI_TYPE_OBJECT), XFFI_OK);
        assert_eq!(xffi_object_is_a_type_unchecked(array, info), 1);
        assert_eq!(xffi_type_info_get(&mut info, XFFI_TYPE_LIST), XFFI_OK);
        assert_eq!(xffi_object_is_a_type_unchecked(array, info), 0);

        for obj in [array, shape, tensor] {
            xffi_object_dec_ref(obj);
        }
    }
}
