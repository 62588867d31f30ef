//! The declarations of `array.h`, `shape.h`, `dtype.h`, `tensor.h` and
//! `map.h`: the containers. Re-exported at the crate root.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use super::*;
use core::ffi::{c_char, c_int, c_void};

// ---------------------------------------------------------------------------
// array.h, sys/array.h (extension tier: the sequence cell, unchecked access)
// ---------------------------------------------------------------------------

/// The sequence cell of an Array or List (layout shared with tvm-ffi 0.1).
#[repr(C)]
#[derive(Debug)]
pub struct xffi_seq_cell {
    pub data: *mut c_void,
    pub size: i64,
    pub capacity: i64,
    pub data_deleter: Option<unsafe extern "C" fn(data: *mut c_void)>,
}

extern "C" {
    /// New Array of owned copies of `items[0..count)` (views, borrowed).
    pub fn xffi_array_new(out: *mut *mut xffi_object, items: *const xffi_any, count: i64) -> c_int;
    pub fn xffi_array_new_with_capacity(out: *mut *mut xffi_object, capacity: i64) -> c_int;
    pub fn xffi_array_length(out: *mut i64, array: *const xffi_object) -> c_int;
    /// `*out` receives an owned copy of element `index`.
    pub fn xffi_array_get(out: *mut xffi_any, array: *const xffi_object, index: i64) -> c_int;
    pub fn xffi_array_items(out_items: *mut *const xffi_any, out_size: *mut i64, array: *const xffi_object) -> c_int;
    pub fn xffi_array_slice(out: *mut *mut xffi_object, array: *const xffi_object, begin: i64, end: i64) -> c_int;
    /// Copy-on-write changes: `*array` may be replaced by a new reference.
    pub fn xffi_array_set(array: *mut *mut xffi_object, index: i64, value: *const xffi_any) -> c_int;
    pub fn xffi_array_push(array: *mut *mut xffi_object, value: *const xffi_any) -> c_int;
    pub fn xffi_array_pop(out: *mut xffi_any, array: *mut *mut xffi_object) -> c_int;
    pub fn xffi_array_insert(array: *mut *mut xffi_object, index: i64, value: *const xffi_any) -> c_int;
    pub fn xffi_array_erase(array: *mut *mut xffi_object, index: i64) -> c_int;
    pub fn xffi_array_clear(array: *mut *mut xffi_object) -> c_int;
    pub fn xffi_array_reserve(array: *mut *mut xffi_object, capacity: i64) -> c_int;
    pub fn xffi_list_new(out: *mut *mut xffi_object, items: *const xffi_any, count: i64) -> c_int;
    pub fn xffi_list_new_with_capacity(out: *mut *mut xffi_object, capacity: i64) -> c_int;
    pub fn xffi_list_slice(out: *mut *mut xffi_object, list: *const xffi_object, begin: i64, end: i64) -> c_int;
    pub fn xffi_list_set(list: *mut xffi_object, index: i64, value: *const xffi_any) -> c_int;
    pub fn xffi_list_push(list: *mut xffi_object, value: *const xffi_any) -> c_int;
    pub fn xffi_list_pop(out: *mut xffi_any, list: *mut xffi_object) -> c_int;
    pub fn xffi_list_insert(list: *mut xffi_object, index: i64, value: *const xffi_any) -> c_int;
    pub fn xffi_list_erase(list: *mut xffi_object, index: i64) -> c_int;
    pub fn xffi_list_clear(list: *mut xffi_object) -> c_int;
    pub fn xffi_list_reserve(list: *mut xffi_object, capacity: i64) -> c_int;
}

/// The cell of an Array or List (unchecked).
///
/// # Safety
/// `seq` must be a live Array or List.
#[inline(always)]
pub unsafe fn xffi_seq_cell_of_unchecked(seq: *const xffi_object) -> *mut xffi_seq_cell {
    xffi_object_cell(seq as *mut xffi_object)
}

/// The element count of an Array or List (unchecked; mirror of the C inline).
///
/// # Safety
/// `seq` must be a live Array or List.
#[inline(always)]
pub unsafe fn xffi_seq_size_unchecked(seq: *const xffi_object) -> i64 {
    (*xffi_seq_cell_of_unchecked(seq)).size
}

/// The elements of an Array or List, borrowed (unchecked; mirror of the C inline).
///
/// # Safety
/// `seq` must be a live Array or List; the pointer is valid until it changes.
#[inline(always)]
pub unsafe fn xffi_seq_items_unchecked(seq: *const xffi_object) -> *const xffi_any {
    (*xffi_seq_cell_of_unchecked(seq)).data as *const xffi_any
}

/// Whether an object is an Array or a List: 1 or 0 (mirror of the C inline).
///
/// # Safety
/// `obj` must be a live object.
#[inline(always)]
pub unsafe fn xffi_object_is_seq(obj: *const xffi_object) -> c_int {
    ((*obj).type_index == XFFI_TYPE_ARRAY || (*obj).type_index == XFFI_TYPE_LIST) as c_int
}

// ---------------------------------------------------------------------------
// shape.h, dtype.h, tensor.h, sys/shape.h and sys/tensor.h (extension tier: the cells)
// ---------------------------------------------------------------------------

/// The cell of a Shape object.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct xffi_shape_cell {
    pub data: *const i64,
    pub size: usize,
}

pub const XFFI_DTYPE_STR_MAX: usize = 32;
pub const XFFI_DEVICE_STR_MAX: usize = 32;

extern "C" {
    /// New Shape holding a copy of `dims[0..ndim)`.
    pub fn xffi_shape_new(out: *mut *mut xffi_object, dims: *const i64, ndim: i32) -> c_int;
    pub fn xffi_shape_cell_of(out: *mut xffi_shape_cell, shape: *const xffi_object) -> c_int;
    pub fn xffi_shape_product(out: *mut i64, shape: *const xffi_object) -> c_int;
    pub fn xffi_dims_product(out: *mut i64, dims: *const i64, ndim: i32) -> c_int;
    pub fn xffi_shape_equal(out: *mut c_int, a: *const xffi_object, b: *const xffi_object) -> c_int;

    pub fn xffi_dtype_parse(out: *mut DLDataType, text: *const c_char) -> c_int;
    pub fn xffi_dtype_to_str(buf: *mut c_char, buf_size: usize, dtype: DLDataType) -> c_int;
    pub fn xffi_device_type_name(device_type: i32) -> *const c_char;
    pub fn xffi_device_parse(out: *mut DLDevice, text: *const c_char) -> c_int;
    pub fn xffi_device_to_str(buf: *mut c_char, buf_size: usize, device: DLDevice) -> c_int;

    /// New zero-filled CPU tensor (shape copied).
    pub fn xffi_tensor_new(out: *mut *mut xffi_object, shape: *const i64, ndim: i32, dtype: DLDataType) -> c_int;
    /// Adopts a DLPack 1.x managed tensor (stolen on success only).
    pub fn xffi_tensor_from_dlpack(out: *mut *mut xffi_object, managed: *mut DLManagedTensorVersioned) -> c_int;
    pub fn xffi_tensor_from_dlpack_legacy(out: *mut *mut xffi_object, managed: *mut DLManagedTensor) -> c_int;
    /// As [`xffi_tensor_from_dlpack`] for a trusted producer: the descriptor's
    /// values are taken as they are (only out, managed, the major version,
    /// ndim and shape are checked).
    pub fn xffi_tensor_from_dlpack_unchecked(
        out: *mut *mut xffi_object,
        managed: *mut DLManagedTensorVersioned,
    ) -> c_int;
    /// As [`xffi_tensor_from_dlpack_unchecked`] for the legacy format.
    pub fn xffi_tensor_from_dlpack_legacy_unchecked(out: *mut *mut xffi_object, managed: *mut DLManagedTensor)
        -> c_int;
    /// Exports as DLPack 1.x (the managed tensor holds a strong reference until its deleter runs).
    pub fn xffi_tensor_to_dlpack(out: *mut *mut DLManagedTensorVersioned, tensor: *mut xffi_object) -> c_int;
    pub fn xffi_tensor_to_dlpack_legacy(out: *mut *mut DLManagedTensor, tensor: *mut xffi_object) -> c_int;
    pub fn xffi_tensor_is_read_only(out: *mut c_int, tensor: *const xffi_object) -> c_int;
    pub fn xffi_tensor_set_read_only(tensor: *mut xffi_object) -> c_int;
    pub fn xffi_tensor_cell_of(out: *mut *mut DLTensor, tensor: *mut xffi_object) -> c_int;
    pub fn xffi_tensor_numel(out: *mut i64, tensor: *const xffi_object) -> c_int;
    pub fn xffi_tensor_nbytes(out: *mut u64, tensor: *const xffi_object) -> c_int;
    pub fn xffi_tensor_is_contiguous(out: *mut c_int, tensor: *const xffi_object) -> c_int;
    pub fn xffi_tensor_shape(out: *mut *mut xffi_object, tensor: *const xffi_object) -> c_int;
}

/// A Tensor's DLTensor (unchecked).
///
/// # Safety
/// `tensor` must be a live Tensor.
#[inline(always)]
pub unsafe fn xffi_tensor_cell_of_unchecked(tensor: *const xffi_object) -> *mut DLTensor {
    xffi_object_cell(tensor as *mut xffi_object)
}

/// A Shape's cell, borrowed (unchecked; mirror of the C inline).
///
/// # Safety
/// `shape` must be a live Shape.
#[inline(always)]
pub unsafe fn xffi_shape_cell_of_unchecked(shape: *const xffi_object) -> *const xffi_shape_cell {
    xffi_object_cell(shape as *mut xffi_object)
}

/// Whether two dimension lists are equal: 1 or 0 (mirror of the C inline).
///
/// # Safety
/// `a` and `b` must be valid for `a_size` and `b_size` values.
#[inline]
pub unsafe fn xffi_dims_equal(a: *const i64, a_ndim: i32, b: *const i64, b_ndim: i32) -> c_int {
    if a_ndim != b_ndim {
        return 0;
    }
    (0..a_ndim.max(0) as usize).all(|i| *a.add(i) == *b.add(i)) as c_int
}

/// A dtype from its parts (mirror of the C inline).
#[inline(always)]
pub const fn xffi_dtype_make(code: u8, bits: u8, lanes: u16) -> DLDataType {
    DLDataType { code, bits, lanes }
}

/// Whether two dtypes are equal: 1 or 0 (mirror of the C inline).
#[inline(always)]
pub const fn xffi_dtype_equal(a: DLDataType, b: DLDataType) -> c_int {
    (a.code == b.code && a.bits == b.bits && a.lanes == b.lanes) as c_int
}

/// Bytes one element of `dtype` takes: bits times lanes, rounded up to whole
/// bytes (mirror of the C inline).
#[inline(always)]
pub const fn xffi_dtype_nbytes(dtype: DLDataType) -> usize {
    (dtype.bits as usize * dtype.lanes as usize).div_ceil(8)
}

/// A device from its parts (mirror of the C inline).
#[inline(always)]
pub const fn xffi_device_make(device_type: i32, device_id: i32) -> DLDevice {
    DLDevice { device_type: device_type as DLDeviceType, device_id }
}

pub const XFFI_TENSOR_ALIGNMENT: usize = 64;
pub const XFFI_DLPACK_MAJOR: u32 = 1;
pub const XFFI_DLPACK_MINOR: u32 = 1;

// ---------------------------------------------------------------------------
// map.h
// ---------------------------------------------------------------------------

/// One entry seen during iteration (both borrowed; `key` NULL at the end).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct xffi_map_item {
    pub key: *const xffi_any,
    pub value: *const xffi_any,
}

extern "C" {
    /// New Map of `count` pairs (views, copied; NULL arrays with count 0
    /// make an empty Map): `*out` receives a new reference.
    pub fn xffi_map_new(
        out: *mut *mut xffi_object,
        keys: *const xffi_any,
        values: *const xffi_any,
        count: i64,
    ) -> c_int;
    pub fn xffi_map_length(out: *mut i64, map: *const xffi_object) -> c_int;
    /// `*out` receives an owned copy of the value (KeyError if absent).
    pub fn xffi_map_get(out: *mut xffi_any, map: *const xffi_object, key: *const xffi_any) -> c_int;
    /// `*out` receives a borrowed pointer to the stored value, or NULL if absent.
    pub fn xffi_map_lookup(out: *mut *const xffi_any, map: *const xffi_object, key: *const xffi_any) -> c_int;
    pub fn xffi_map_contains(out: *mut c_int, map: *const xffi_object, key: *const xffi_any) -> c_int;
    /// Iterates in insertion order (`*cursor` starts at 0).
    pub fn xffi_map_next(out: *mut xffi_map_item, map: *const xffi_object, cursor: *mut i64) -> c_int;
    pub fn xffi_map_copy(out: *mut *mut xffi_object, map: *const xffi_object) -> c_int;
    /// Copy-on-write changes: `*map` may be replaced by a new reference.
    pub fn xffi_map_set(map: *mut *mut xffi_object, key: *const xffi_any, value: *const xffi_any) -> c_int;
    pub fn xffi_map_erase(map: *mut *mut xffi_object, key: *const xffi_any) -> c_int;
    /// `*out` receives the removed value (owned by the caller).
    pub fn xffi_map_pop(out: *mut xffi_any, map: *mut *mut xffi_object, key: *const xffi_any) -> c_int;
    pub fn xffi_map_clear(map: *mut *mut xffi_object) -> c_int;
    /// As [`xffi_map_new`], making a Dict.
    pub fn xffi_dict_new(
        out: *mut *mut xffi_object,
        keys: *const xffi_any,
        values: *const xffi_any,
        count: i64,
    ) -> c_int;
    pub fn xffi_dict_copy(out: *mut *mut xffi_object, dict: *const xffi_object) -> c_int;
    /// In-place changes of a Dict (borrowed).
    pub fn xffi_dict_set(dict: *mut xffi_object, key: *const xffi_any, value: *const xffi_any) -> c_int;
    pub fn xffi_dict_erase(dict: *mut xffi_object, key: *const xffi_any) -> c_int;
    pub fn xffi_dict_pop(out: *mut xffi_any, dict: *mut xffi_object, key: *const xffi_any) -> c_int;
    pub fn xffi_dict_clear(dict: *mut xffi_object) -> c_int;
    pub fn xffi_map_memory_bytes(out: *mut usize, map: *const xffi_object) -> c_int;
}
