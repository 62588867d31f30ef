//! Proves that every struct xffi-sys declares has the C size, alignment and
//! field offsets, and that its constants have the C values, by comparing with
//! a C probe compiled against the same headers (probe/layout_probe.c), in the
//! manner of libgit2-sys's systest. Also checks the Rust reimplementations of
//! the C static inline hot paths against the C ones on the same objects.
extern crate xffi_tests; // links the C probe compiled by build.rs
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, CStr};
use std::mem::{align_of, offset_of, size_of};
use xffi_sys::*;

#[repr(C)]
struct ProbeEntry {
    name: *const c_char,
    value: i64,
}

extern "C" {
    fn xffi_probe_entries(count: *mut usize) -> *const ProbeEntry;
    fn xffi_probe_inc_ref(obj: *mut xffi_object);
    fn xffi_probe_dec_ref(obj: *mut xffi_object);
    fn xffi_probe_is_instance_of(obj: *const xffi_object, type_index: i32) -> c_int;
    fn xffi_probe_is_instance(obj: *const xffi_object, type_index: i32) -> c_int;
    fn xffi_probe_any_int(x: i64) -> xffi_any;
    fn xffi_probe_any_float(x: f64) -> xffi_any;
    fn xffi_probe_any_bool(x: c_int) -> xffi_any;
}

fn c_table() -> BTreeMap<String, i64> {
    let mut n = 0usize;
    let p = unsafe { xffi_probe_entries(&mut n) };
    let entries = unsafe { std::slice::from_raw_parts(p, n) };
    entries.iter().map(|e| (unsafe { CStr::from_ptr(e.name) }.to_str().unwrap().to_owned(), e.value)).collect()
}

macro_rules! rust_table {
    ($( S($t:ty) ; )* $( O($ot:ident, $($f:tt).+) ; )* $( C($c:ident) ; )*) => {{
        let mut m = BTreeMap::new();
        $( m.insert(format!("size {}", stringify!($t)), size_of::<$t>() as i64);
           m.insert(format!("align {}", stringify!($t)), align_of::<$t>() as i64); )*
        $( m.insert(format!("offset {}.{}", stringify!($ot), rust_table!(@last $($f).+)), offset_of!($ot, $($f).+) as i64); )*
        $( m.insert(format!("const {}", stringify!($c)), $c as i64); )*
        m
    }};
    (@last $f:tt) => { stringify!($f) };
    (@last $f:tt . $($rest:tt).+) => { rust_table!(@last $($rest).+) };
}

fn rust_view() -> BTreeMap<String, i64> {
    rust_table! {
        S(xffi_object); S(xffi_byte_array); S(xffi_type_info); S(xffi_any); S(xffi_error_cell);
        S(DLPackVersion); S(DLDevice); S(DLDataType); S(DLTensor); S(DLManagedTensor); S(DLManagedTensorVersioned);
        S(xffi_function_cell); S(xffi_function_head); S(xffi_seq_cell); S(xffi_shape_cell);
        O(xffi_object, ref_counts); O(xffi_object, type_index); O(xffi_object, reserved); O(xffi_object, deleter);
        O(xffi_function_cell, safe_call); O(xffi_function_cell, cpp_call);
        O(xffi_function_head, cell); O(xffi_function_head, resource);
        O(xffi_seq_cell, data); O(xffi_seq_cell, size); O(xffi_seq_cell, capacity); O(xffi_seq_cell, data_deleter);
        O(xffi_shape_cell, data); O(xffi_shape_cell, size);
        O(xffi_byte_array, data); O(xffi_byte_array, size);
        O(xffi_type_info, type_index); O(xffi_type_info, type_depth); O(xffi_type_info, type_key);
        O(xffi_type_info, type_ancestors);
        O(xffi_any, type_index); O(xffi_any, small_len); O(xffi_any, value.v_int64); O(xffi_any, value.v_small);
        O(xffi_error_cell, kind); O(xffi_error_cell, message); O(xffi_error_cell, backtrace);
        O(xffi_error_cell, update_backtrace); O(xffi_error_cell, cause_chain); O(xffi_error_cell, extra_context);
        O(DLPackVersion, major); O(DLPackVersion, minor);
        O(DLDevice, device_type); O(DLDevice, device_id);
        O(DLDataType, code); O(DLDataType, bits); O(DLDataType, lanes);
        O(DLTensor, data); O(DLTensor, device); O(DLTensor, ndim); O(DLTensor, dtype); O(DLTensor, shape);
        O(DLTensor, strides); O(DLTensor, byte_offset);
        O(DLManagedTensor, dl_tensor); O(DLManagedTensor, manager_ctx); O(DLManagedTensor, deleter);
        O(DLManagedTensorVersioned, version); O(DLManagedTensorVersioned, manager_ctx);
        O(DLManagedTensorVersioned, deleter); O(DLManagedTensorVersioned, flags); O(DLManagedTensorVersioned, dl_tensor);
        C(XFFI_TENSOR_ALIGNMENT); C(XFFI_DLPACK_MAJOR); C(XFFI_DLPACK_MINOR); C(XFFI_DTYPE_STR_MAX); C(XFFI_DEVICE_STR_MAX);
        C(XFFI_OK); C(XFFI_FAIL); C(XFFI_ABI_VERSION); C(XFFI_SMALL_STR_MAX);
        C(XFFI_DELETE_CONTENTS); C(XFFI_DELETE_MEMORY); C(XFFI_DELETE_BOTH);
        C(XFFI_REF_STRONG_ONE); C(XFFI_REF_WEAK_ONE); C(XFFI_REF_INITIAL);
        C(XFFI_BACKTRACE_REPLACE); C(XFFI_BACKTRACE_APPEND);
        C(XFFI_TYPE_ANY); C(XFFI_TYPE_NONE); C(XFFI_TYPE_INT); C(XFFI_TYPE_BOOL); C(XFFI_TYPE_FLOAT);
        C(XFFI_TYPE_OPAQUE_PTR); C(XFFI_TYPE_DTYPE); C(XFFI_TYPE_DEVICE); C(XFFI_TYPE_DLTENSOR_PTR);
        C(XFFI_TYPE_RAW_STR); C(XFFI_TYPE_BYTE_ARRAY_PTR); C(XFFI_TYPE_OBJECT_RVALUE); C(XFFI_TYPE_SMALL_STR);
        C(XFFI_TYPE_SMALL_BYTES); C(XFFI_TYPE_STATIC_OBJECT_BEGIN); C(XFFI_TYPE_OBJECT); C(XFFI_TYPE_STRING);
        C(XFFI_TYPE_BYTES); C(XFFI_TYPE_ERROR); C(XFFI_TYPE_FUNCTION); C(XFFI_TYPE_SHAPE); C(XFFI_TYPE_TENSOR);
        C(XFFI_TYPE_ARRAY); C(XFFI_TYPE_MAP); C(XFFI_TYPE_MODULE); C(XFFI_TYPE_OPAQUE_FOREIGN); C(XFFI_TYPE_LIST);
        C(XFFI_TYPE_DICT); C(XFFI_TYPE_BUILTIN_END); C(XFFI_TYPE_DYNAMIC_BEGIN);
        C(kDLCPU); C(kDLCUDA); C(kDLInt); C(kDLUInt); C(kDLFloat); C(kDLBfloat); C(kDLBool);
        C(DLPACK_FLAG_BITMASK_READ_ONLY); C(DLPACK_FLAG_BITMASK_IS_COPIED);
    }
}

#[test]
fn every_struct_size_alignment_offset_and_constant_matches_c() {
    let c = c_table();
    let rust = rust_view();
    assert!(c.len() > 100, "the probe reported only {} entries", c.len());
    let mut mismatches = Vec::new();
    for (name, cv) in &c {
        match rust.get(name) {
            Some(rv) if rv == cv => {}
            Some(rv) => mismatches.push(format!("{name}: C says {cv}, Rust says {rv}")),
            None => mismatches.push(format!("{name}: checked by the C probe but not by the Rust table")),
        }
    }
    for name in rust.keys() {
        if !c.contains_key(name) {
            mismatches.push(format!("{name}: in the Rust table but not reported by the C probe"));
        }
    }
    assert!(mismatches.is_empty(), "layout mismatches:\n{}", mismatches.join("\n"));
}

#[test]
fn the_abi_version_of_the_linked_library_is_the_one_declared() {
    assert_eq!(unsafe { xffi_abi_version() }, XFFI_ABI_VERSION);
    let v = unsafe { CStr::from_ptr(xffi_version()) }.to_str().unwrap();
    assert_eq!(v, format!("{XFFI_VERSION_MAJOR}.{XFFI_VERSION_MINOR}.{XFFI_VERSION_PATCH}"));
}

#[test]
fn rust_any_constructors_produce_the_c_bytes() {
    fn bytes(a: &xffi_any) -> [u8; 16] {
        unsafe { std::mem::transmute_copy(a) }
    }
    for x in [0i64, -1, 42, i64::MIN, i64::MAX] {
        assert_eq!(bytes(&xffi_any::int(x)), bytes(&unsafe { xffi_probe_any_int(x) }));
    }
    for x in [0.0f64, -1.5, f64::INFINITY] {
        assert_eq!(bytes(&xffi_any::float(x)), bytes(&unsafe { xffi_probe_any_float(x) }));
    }
    assert_eq!(bytes(&xffi_any::bool(true)), bytes(&unsafe { xffi_probe_any_bool(7) }));
    assert_eq!(bytes(&xffi_any::bool(false)), bytes(&unsafe { xffi_probe_any_bool(0) }));
}

#[test]
fn rust_and_c_reference_counting_interleave_on_one_object() {
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
