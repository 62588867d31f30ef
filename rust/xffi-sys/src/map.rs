//! `xffi/map.h`: Map and Dict.

use core::ffi::c_int;

use crate::any::xffi_any;
use crate::object::xffi_object;

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
