//! `xffi/type.h` and `xffi/sys/type.h` (extension tier): type indices, the
//! type records and registry, and the inline is-instance over the type table.

use core::ffi::{c_char, c_int};
use core::sync::atomic::{AtomicPtr, Ordering};

use crate::object::xffi_object;
// The one reference upward: the type record points at the field,
// method and metadata records, which type.h forward-declares.
use crate::reflection::{xffi_field_info, xffi_method_info, xffi_type_metadata};

/// Any value (in annotations only).
pub const XFFI_TYPE_ANY: i32 = -1;
/// None.
pub const XFFI_TYPE_NONE: i32 = 0;
/// An int (`int64_t`).
pub const XFFI_TYPE_INT: i32 = 1;
/// A bool.
pub const XFFI_TYPE_BOOL: i32 = 2;
/// A float (`double`).
pub const XFFI_TYPE_FLOAT: i32 = 3;
/// An opaque pointer (`void *`).
pub const XFFI_TYPE_OPAQUE_PTR: i32 = 4;
/// A data type (`DLDataType`).
pub const XFFI_TYPE_DTYPE: i32 = 5;
/// A device (`DLDevice`).
pub const XFFI_TYPE_DEVICE: i32 = 6;
/// A borrowed `DLTensor *`.
pub const XFFI_TYPE_DLTENSOR_PTR: i32 = 7;
/// A borrowed NUL-terminated `const char *` (views only).
pub const XFFI_TYPE_RAW_STR: i32 = 8;
/// A borrowed `const xffi_byte_array *` (views only).
pub const XFFI_TYPE_BYTE_ARRAY_PTR: i32 = 9;
/// An object being moved (views only).
pub const XFFI_TYPE_OBJECT_RVALUE: i32 = 10;
/// Up to 7 bytes of string stored inline.
pub const XFFI_TYPE_SMALL_STR: i32 = 11;
/// Up to 7 bytes stored inline.
pub const XFFI_TYPE_SMALL_BYTES: i32 = 12;
/// The "leave as it is" marker (tvm-ffi's kTVMFFIUnchanged).
pub const XFFI_TYPE_UNCHANGED: i32 = 13;
/// The first object index: every index from here on is an object.
pub const XFFI_TYPE_STATIC_OBJECT_BEGIN: i32 = 64;
/// The root of all objects.
pub const XFFI_TYPE_OBJECT: i32 = 64;
/// ffi.String.
pub const XFFI_TYPE_STRING: i32 = 65;
/// ffi.Bytes.
pub const XFFI_TYPE_BYTES: i32 = 66;
/// ffi.Error.
pub const XFFI_TYPE_ERROR: i32 = 67;
/// ffi.Function.
pub const XFFI_TYPE_FUNCTION: i32 = 68;
/// ffi.Shape.
pub const XFFI_TYPE_SHAPE: i32 = 69;
/// ffi.Tensor.
pub const XFFI_TYPE_TENSOR: i32 = 70;
/// ffi.Array.
pub const XFFI_TYPE_ARRAY: i32 = 71;
/// ffi.Map.
pub const XFFI_TYPE_MAP: i32 = 72;
/// ffi.Module.
pub const XFFI_TYPE_MODULE: i32 = 73;
/// An object of another language, held opaquely (tvm-ffi's kTVMFFIOpaquePyObject).
pub const XFFI_TYPE_OPAQUE_FOREIGN: i32 = 74;
/// ffi.List.
pub const XFFI_TYPE_LIST: i32 = 75;
/// ffi.Dict.
pub const XFFI_TYPE_DICT: i32 = 76;
/// ffi.VisitInterrupt (structural visitors).
pub const XFFI_TYPE_VISIT_INTERRUPT: i32 = 77;
/// ffi.BigInt: integers wider than 64 bits.
pub const XFFI_TYPE_BIGINT: i32 = 78;
/// One past the last built-in index.
pub const XFFI_TYPE_BUILTIN_END: i32 = 79;
/// The first index given to types registered at run time.
pub const XFFI_TYPE_DYNAMIC_BEGIN: i32 = 128;
/// The deepest type depth a registered type may have (Object is depth 0).
pub const XFFI_TYPE_MAX_DEPTH: i32 = 1024;
/// The most child slots a type may reserve (`TVMFFITypeGetOrAllocIndex`).
pub const XFFI_TYPE_MAX_CHILD_SLOTS: i32 = 65535;

/// A borrowed run of bytes (not necessarily NUL-terminated).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct xffi_byte_array {
    /// The first byte (may be NULL when `size` is 0).
    pub data: *const c_char,
    /// The number of bytes.
    pub size: usize,
}

/// A type record, tvm-ffi's `TVMFFITypeInfo` (72 bytes on 64-bit targets):
/// immortal, at a fixed address, owned by the registry.
/// `type_ancestors[d]` (d < `type_depth`) is the record of the ancestor at
/// depth d. `fields`, `methods` and `metadata` point at the records of
/// `xffi/reflection.h` (`xffi_field_info`, `xffi_method_info`,
/// `xffi_type_metadata`); the field and method arrays may move when one is
/// added, so read the count first.
#[repr(C)]
#[derive(Debug)]
pub struct xffi_type_info {
    /// The type's index.
    pub type_index: i32,
    /// Its depth in the hierarchy (Object is 0).
    pub type_depth: i32,
    /// Its key ("ffi.Array", "mylib.Point").
    pub type_key: xffi_byte_array,
    /// The records of its ancestors, by depth.
    pub type_ancestors: *const *const xffi_type_info,
    /// A hash of the key.
    pub type_key_hash: u64,
    /// The number of its own reflected fields.
    pub num_fields: i32,
    /// The number of its own reflected methods.
    pub num_methods: i32,
    /// Its own fields (`num_fields`).
    pub fields: *const xffi_field_info,
    /// Its own methods (`num_methods`).
    pub methods: *const xffi_method_info,
    /// Its metadata, or NULL.
    pub metadata: *const xffi_type_metadata,
}

/// How the registry stores a record (`sys/type.h`, private to the inline
/// is-instance: trailing underscore): the public record, then the indices of
/// its ancestors, so is-instance compares an index with no load through the
/// ancestor's record.
#[repr(C)]
#[derive(Debug)]
pub struct xffi_type_record_ {
    /// The public record.
    pub info: xffi_type_info,
    /// The indices of its ancestors, by depth.
    pub ancestor_indices_: *const i32,
}

#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(core::mem::size_of::<xffi_type_info>() == 72);
    assert!(core::mem::offset_of!(xffi_type_info, type_key) == 8);
    assert!(core::mem::offset_of!(xffi_type_info, type_ancestors) == 24);
    assert!(core::mem::offset_of!(xffi_type_info, type_key_hash) == 32);
    assert!(core::mem::offset_of!(xffi_type_info, num_fields) == 40);
    assert!(core::mem::offset_of!(xffi_type_info, num_methods) == 44);
    assert!(core::mem::offset_of!(xffi_type_info, fields) == 48);
    assert!(core::mem::offset_of!(xffi_type_info, methods) == 56);
    assert!(core::mem::offset_of!(xffi_type_info, metadata) == 64);
};

/// The type table with its size (mirror of C's `xffi_type_rows_`; private to
/// the inline is-instance).
#[repr(C)]
pub struct xffi_type_rows_ {
    /// Rows in `rows`; those past the last type are NULL.
    pub size: i64,
    /// The records by type index.
    pub rows: *const *const xffi_type_info,
}

extern "C" {
    /// The lock-free table of type records (private to the inline is-instance).
    pub static mut xffi_type_table_: *const *const xffi_type_info;
    /// The same table with its size, published as one pointer (private to
    /// the inline is-instance).
    pub static mut xffi_type_sized_table_: *const xffi_type_rows_;
    /// The record of a type the table has no row for yet: a type only the
    /// process's other tvm-ffi runtime knows, recorded on first use; NULL when
    /// no runtime has `type_index`. Raises nothing (private to the inline
    /// is-instance).
    pub fn xffi_type_info_find_slow_(type_index: i32) -> *const xffi_type_info;
    /// Registers a type (key borrowed, copied) under a parent object type;
    /// `*out_type_index` receives its index. Same key + same parent returns the
    /// same index. Errors: ValueError (NULL/empty key, key re-registered with
    /// another parent), TypeError (bad parent), MemoryError.
    pub fn xffi_type_register(out_type_index: *mut i32, type_key: *const c_char, parent_type_index: i32) -> c_int;
    /// Looks a type up by key: `*out` receives a borrowed immortal record.
    /// Errors: ValueError (NULL), KeyError (unknown key).
    pub fn xffi_type_info_get_by_key(out: *mut *const xffi_type_info, type_key: *const c_char) -> c_int;
    /// Looks a type up by index: `*out` receives a borrowed immortal record.
    /// Errors: ValueError (NULL out), IndexError (unknown index).
    pub fn xffi_type_info_get(out: *mut *const xffi_type_info, type_index: i32) -> c_int;
    /// The key of a type index (borrowed, immortal; never NULL).
    pub fn xffi_type_key(type_index: i32) -> *const c_char;
    /// One past the largest type index in use.
    pub fn xffi_type_count() -> i32;
    /// 1 when this registry itself registered `type_index`, 0 when no type
    /// has it or only the process's other tvm-ffi runtime does.
    pub fn xffi_type_registered_here(type_index: i32) -> c_int;
    /// libstdc++'s `std::hash` of `size` bytes at `data`: a record's `type_key_hash`.
    pub fn xffi_type_key_hash(data: *const c_char, size: usize) -> u64;
    /// Checked is-instance: `*out` receives 1 or 0.
    /// Errors: ValueError (NULL out/obj), IndexError (unregistered type_index).
    pub fn xffi_object_is_a(out: *mut c_int, obj: *const xffi_object, type_index: i32) -> c_int;
}

/// The record of `type_index`: the table's row, or for a type the table has
/// not met, the out-of-line lookup (mirror of the C inline
/// `xffi_type_record_unchecked_`); NULL when no runtime in the process has it.
///
/// # Safety
/// The library must be linked.
#[inline(always)]
unsafe fn type_record(type_index: i32) -> *const xffi_type_info {
    // SAFETY: the registry replaces the pointer atomically, each block its
    // rows and their size together, immortal (as `type_table`).
    let slot = core::ptr::addr_of_mut!(xffi_type_sized_table_) as *mut *mut xffi_type_rows_;
    let table = &*AtomicPtr::from_ptr(slot).load(Ordering::Acquire);
    let info = if u64::from(type_index as u32) < table.size as u64 {
        *table.rows.add(type_index as usize)
    } else {
        core::ptr::null()
    };
    if info.is_null() {
        xffi_type_info_find_slow_(type_index)
    } else {
        info
    }
}

/// The record of an object's own type, with no lock (mirror of the C inline
/// `xffi_object_type_info_unchecked`); NULL when no runtime in the process
/// has its type.
///
/// # Safety
/// `obj` must be a live object.
#[inline(always)]
pub unsafe fn xffi_object_type_info_unchecked(obj: *const xffi_object) -> *const xffi_type_info {
    type_record((*obj).type_index)
}

/// O(1) is-instance by type index (mirror of the C inline
/// `xffi_object_is_a_unchecked`): equal index, or `type_index` stands at its
/// depth among the object's ancestors; false when no runtime in the process
/// has either type.
///
/// # Safety
/// `obj` must be a live object.
#[inline(always)]
pub unsafe fn xffi_object_is_a_unchecked(obj: *const xffi_object, type_index: i32) -> bool {
    if (*obj).type_index == type_index {
        return true;
    }
    let (info, target) = (type_record((*obj).type_index), type_record(type_index));
    if info.is_null() || target.is_null() {
        return false;
    }
    let depth = (*target).type_depth;
    (*info).type_depth > depth && (**(*info).type_ancestors.add(depth as usize)).type_index == type_index
}

/// O(1) is-instance against a type record (mirror of the C inline
/// `xffi_object_is_a_type_unchecked`): 1 or 0 (0 when no runtime in the
/// process has the object's type).
///
/// # Safety
/// `obj` must be a live object and `type_` a type's record.
#[inline(always)]
pub unsafe fn xffi_object_is_a_type_unchecked(obj: *const xffi_object, type_: *const xffi_type_info) -> c_int {
    let (index, target) = ((*obj).type_index, (*type_).type_index);
    if index == target {
        return 1;
    }
    let info = type_record(index);
    let depth = (*type_).type_depth;
    (!info.is_null()
        && (*info).type_depth > depth
        && (**(*info).type_ancestors.add(depth as usize)).type_index == target) as c_int
}
