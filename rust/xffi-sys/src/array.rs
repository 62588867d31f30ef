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
    /// The elements: `size` owned `xffi_any` values.
    pub data: *mut c_void,
    /// The number of elements.
    pub size: i64,
    /// How many elements `data` has room for.
    pub capacity: i64,
    /// Frees `data` when the sequence no longer needs it (NULL: the elements live inline in the
    /// object).
    pub data_deleter: Option<unsafe extern "C" fn(data: *mut c_void)>,
}

extern "C" {
    /// New Array of owned copies of `items[0..count)` (views, borrowed).
    pub fn xffi_array_new(out: *mut *mut xffi_object, items: *const xffi_any, count: i64) -> c_int;
    /// Makes an empty Array with room for `capacity` elements (one allocation). \*out receives a
    /// new reference. Errors: ValueError for NULL out or a negative capacity; MemoryError.
    pub fn xffi_array_new_with_capacity(out: *mut *mut xffi_object, capacity: i64) -> c_int;
    /// out receives the number of elements of an Array or List (borrowed). Errors: ValueError,
    /// TypeError.
    pub fn xffi_array_length(out: *mut i64, array: *const xffi_object) -> c_int;
    /// `*out` receives an owned copy of element `index`.
    pub fn xffi_array_get(out: *mut xffi_any, array: *const xffi_object, index: i64) -> c_int;
    /// out_items receives the elements (borrowed, valid until the sequence changes) and \*out_size
    /// their number, of an Array or List (borrowed). Errors: ValueError, TypeError.
    pub fn xffi_array_items(out_items: *mut *const xffi_any, out_size: *mut i64, array: *const xffi_object) -> c_int;
    /// out receives a new Array holding copies of elements \[begin, end) of an Array or List
    /// (borrowed). 0 &lt;= begin &lt;= end &lt;= length. The whole range is a shallow copy
    /// (elements shared, not cloned). Errors: ValueError, TypeError, IndexError for a bad range;
    /// MemoryError.
    pub fn xffi_array_slice(out: *mut *mut xffi_object, array: *const xffi_object, begin: i64, end: i64) -> c_int;
    /// Copy-on-write changes: `*array` may be replaced by a new reference.
    pub fn xffi_array_set(array: *mut *mut xffi_object, index: i64, value: *const xffi_any) -> c_int;
    /// Appends a copy of value (borrowed view). Amortised O(1) when unshared. Errors: ValueError,
    /// TypeError, MemoryError.
    pub fn xffi_array_push(array: *mut *mut xffi_object, value: *const xffi_any) -> c_int;
    /// Removes the last element and moves it into \*out (which must hold nothing needing release;
    /// the caller owns the result). out may be NULL to release the element instead. Errors:
    /// ValueError, TypeError, IndexError if empty, MemoryError (only when a shared array must be
    /// copied).
    pub fn xffi_array_pop(out: *mut xffi_any, array: *mut *mut xffi_object) -> c_int;
    /// Inserts a copy of value (borrowed view) before element `index` (0 &lt;= index &lt;= length;
    /// index == length appends). O(length - index). Errors: ValueError, TypeError, IndexError,
    /// MemoryError.
    pub fn xffi_array_insert(array: *mut *mut xffi_object, index: i64, value: *const xffi_any) -> c_int;
    /// Removes element `index` (released) and closes the gap. O(length - index). Errors:
    /// ValueError, TypeError, IndexError, MemoryError (shared array copy).
    pub fn xffi_array_erase(array: *mut *mut xffi_object, index: i64) -> c_int;
    /// Removes every element. A shared array is replaced by a new empty one. Errors: ValueError,
    /// TypeError, MemoryError (shared array only).
    pub fn xffi_array_clear(array: *mut *mut xffi_object) -> c_int;
    /// Makes room for at least `capacity` elements so that pushes up to it do not allocate, as
    /// xffi_list_reserve. A shared array is replaced by an unshared copy with that room (a new
    /// reference in \*array, the old one released); the elements are unchanged either way. Errors:
    /// ValueError (also for a negative capacity), TypeError, MemoryError (then \*array is left as
    /// it was).
    pub fn xffi_array_reserve(array: *mut *mut xffi_object, capacity: i64) -> c_int;
    /// As xffi_array_new and xffi_array_new_with_capacity, making a List.
    pub fn xffi_list_new(out: *mut *mut xffi_object, items: *const xffi_any, count: i64) -> c_int;
    /// As xffi_array_new_with_capacity, making a List. \*out receives a new reference. Errors:
    /// ValueError for NULL out or a negative capacity, MemoryError.
    pub fn xffi_list_new_with_capacity(out: *mut *mut xffi_object, capacity: i64) -> c_int;
    /// out receives a new List holding copies of elements \[begin, end) of an Array or a List
    /// (borrowed): the way to copy a List or turn an Array into a List. Errors: ValueError,
    /// TypeError, IndexError, MemoryError.
    pub fn xffi_list_slice(out: *mut *mut xffi_object, list: *const xffi_object, begin: i64, end: i64) -> c_int;
    /// Changing a List (borrowed; it must be a List). Semantics as the Array functions of the same
    /// name, in place and visible to every holder.
    pub fn xffi_list_set(list: *mut xffi_object, index: i64, value: *const xffi_any) -> c_int;
    /// Appends a copy of value (borrowed view) to a List (borrowed), in place. Errors: ValueError,
    /// TypeError, MemoryError.
    pub fn xffi_list_push(list: *mut xffi_object, value: *const xffi_any) -> c_int;
    /// Removes the last element of a List and moves it into \*out (which must hold nothing needing
    /// release; the caller owns the result; out may be NULL to release it). Errors: ValueError,
    /// TypeError, IndexError when empty.
    pub fn xffi_list_pop(out: *mut xffi_any, list: *mut xffi_object) -> c_int;
    /// Inserts a copy of value (borrowed view) before element `index` of a List, in place (0 &lt;=
    /// index &lt;= length). Errors: ValueError, TypeError, IndexError, MemoryError.
    pub fn xffi_list_insert(list: *mut xffi_object, index: i64, value: *const xffi_any) -> c_int;
    /// Removes element `index` of a List (released), in place. Errors: ValueError, TypeError,
    /// IndexError.
    pub fn xffi_list_erase(list: *mut xffi_object, index: i64) -> c_int;
    /// Removes every element of a List (released), keeping the storage. Never fails on a valid List
    /// (raises only ValueError / TypeError).
    pub fn xffi_list_clear(list: *mut xffi_object) -> c_int;
    /// Makes room for at least `capacity` elements so that pushes up to it do not allocate. Errors:
    /// ValueError (also for a negative capacity), TypeError, MemoryError.
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
