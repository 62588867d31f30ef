//! `xffi/array.h` and `xffi/sys/array.h` (extension tier: the sequence
//! cell, unchecked access): Array and List.

use core::ffi::{c_int, c_void};

use crate::any::xffi_any;
use crate::object::{xffi_object, xffi_object_cell};
use crate::r#type::{XFFI_TYPE_ARRAY, XFFI_TYPE_LIST};

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
