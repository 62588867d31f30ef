//! `xffi/map.h`: Map and Dict.

use core::ffi::c_int;

use crate::any::xffi_any;
use crate::object::xffi_object;

/// One entry seen during iteration (both borrowed; `key` NULL at the end).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct xffi_map_item {
    /// The key (owned by the map).
    pub key: *const xffi_any,
    /// The value (owned by the map).
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
    /// out receives the number of entries of a Map or Dict (borrowed).
    pub fn xffi_map_length(out: *mut i64, map: *const xffi_object) -> c_int;
    /// `*out` receives an owned copy of the value (KeyError if absent).
    pub fn xffi_map_get(out: *mut xffi_any, map: *const xffi_object, key: *const xffi_any) -> c_int;
    /// `*out` receives a borrowed pointer to the stored value, or NULL if absent.
    pub fn xffi_map_lookup(out: *mut *const xffi_any, map: *const xffi_object, key: *const xffi_any) -> c_int;
    /// out receives 1 if key is in the Map or Dict, else 0. Errors: ValueError, TypeError.
    pub fn xffi_map_contains(out: *mut c_int, map: *const xffi_object, key: *const xffi_any) -> c_int;
    /// Iterates in insertion order (`*cursor` starts at 0).
    pub fn xffi_map_next(out: *mut xffi_map_item, map: *const xffi_object, cursor: *mut i64) -> c_int;
    /// out receives a new Map with the entries of a Map or Dict (borrowed), in the same order
    /// (values shared, not cloned). Errors: ValueError, TypeError, MemoryError.
    pub fn xffi_map_copy(out: *mut *mut xffi_object, map: *const xffi_object) -> c_int;
    /// Copy-on-write changes: `*map` may be replaced by a new reference.
    pub fn xffi_map_set(map: *mut *mut xffi_object, key: *const xffi_any, value: *const xffi_any) -> c_int;
    /// Removes key and its value (both released). Errors: ValueError, TypeError, KeyError if
    /// absent, MemoryError (shared map copy only).
    pub fn xffi_map_erase(map: *mut *mut xffi_object, key: *const xffi_any) -> c_int;
    /// `*out` receives the removed value (owned by the caller).
    pub fn xffi_map_pop(out: *mut xffi_any, map: *mut *mut xffi_object, key: *const xffi_any) -> c_int;
    /// Removes every entry (released); a unique map keeps its storage. A shared map is replaced by
    /// a new empty one. Errors: ValueError, TypeError, MemoryError (shared map only).
    pub fn xffi_map_clear(map: *mut *mut xffi_object) -> c_int;
    /// As [`xffi_map_new`], making a Dict.
    pub fn xffi_dict_new(
        out: *mut *mut xffi_object,
        keys: *const xffi_any,
        values: *const xffi_any,
        count: i64,
    ) -> c_int;
    /// out receives a new Dict with the entries of a Map or Dict (borrowed): the way to copy a Dict
    /// or to turn a Map into a Dict.
    pub fn xffi_dict_copy(out: *mut *mut xffi_object, dict: *const xffi_object) -> c_int;
    /// In-place changes of a Dict (borrowed).
    pub fn xffi_dict_set(dict: *mut xffi_object, key: *const xffi_any, value: *const xffi_any) -> c_int;
    /// Removes key (KeyError if absent). Never allocates.
    pub fn xffi_dict_erase(dict: *mut xffi_object, key: *const xffi_any) -> c_int;
    /// Removes key and moves its value into \*out (which must hold nothing needing release; the
    /// caller owns the result). KeyError if absent. Never allocates.
    pub fn xffi_dict_pop(out: *mut xffi_any, dict: *mut xffi_object, key: *const xffi_any) -> c_int;
    /// Removes every entry (released), keeping the storage.
    pub fn xffi_dict_clear(dict: *mut xffi_object) -> c_int;
    /// out receives the bytes of heap memory a Map or Dict uses (the object with its inline pairs,
    /// and the pair array or blocks it owns), for measurements. Errors: ValueError, TypeError.
    pub fn xffi_map_memory_bytes(out: *mut usize, map: *const xffi_object) -> c_int;
}
