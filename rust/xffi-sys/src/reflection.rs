//! The declarations of `reflection.h`: the records that describe a type's
//! fields, methods and metadata, and type-attribute columns (layouts shared
//! with tvm-ffi 0.1).
//! Also `xffi_repr` (ReprPrint), the reflection of C structs, construction.

use core::ffi::{c_char, c_int, c_void};

use crate::any::xffi_any;
use crate::function::xffi_function_callback;
use crate::object::xffi_object;
use crate::r#type::xffi_byte_array;

/// Field flag: writable through its setter by any language.
pub const XFFI_FIELD_WRITABLE: u32 = 1 << 0;
/// Field flag: `default_value_or_factory` holds a default.
pub const XFFI_FIELD_HAS_DEFAULT: u32 = 1 << 1;
/// Method flag: a static method (no object argument).
pub const XFFI_FIELD_IS_STATIC_METHOD: u32 = 1 << 2;
/// Field flag: left out of structural equality and hashing.
pub const XFFI_FIELD_SEQ_HASH_IGNORE: u32 = 1 << 3;
/// Field flag: a definition region for structural equality (free variables map to each other).
pub const XFFI_FIELD_SEQ_HASH_DEF_PATTERN: u32 = 1 << 4;
/// Field flag: the default is a Function called for each object.
pub const XFFI_FIELD_DEFAULT_FROM_FACTORY: u32 = 1 << 5;
/// Field flag: not printed by repr.
pub const XFFI_FIELD_REPR_OFF: u32 = 1 << 6;
/// Field flag: not compared by recursive comparison.
pub const XFFI_FIELD_COMPARE_OFF: u32 = 1 << 7;
/// Field flag: not hashed by recursive hashing.
pub const XFFI_FIELD_HASH_OFF: u32 = 1 << 8;
/// Field flag: not an argument of the constructor built from the field list.
pub const XFFI_FIELD_INIT_OFF: u32 = 1 << 9;
/// Field flag: a keyword-only argument of the constructor built from the field list.
pub const XFFI_FIELD_KW_ONLY: u32 = 1 << 10;
/// Field flag: `setter` is a Function object rather than a C function.
pub const XFFI_FIELD_SETTER_IS_FUNCTION: u32 = 1 << 11;
/// Field flag: a simple definition region for structural equality.
pub const XFFI_FIELD_SEQ_HASH_DEF_SIMPLE: u32 = 1 << 12;

/// Structural kind: the type cannot be compared or hashed structurally.
pub const XFFI_SEQ_HASH_UNSUPPORTED: u32 = 0;
/// Structural kind: compared by its fields, as a tree.
pub const XFFI_SEQ_HASH_TREE_NODE: u32 = 1;
/// Structural kind: a variable, mapped to its counterpart where it is defined.
pub const XFFI_SEQ_HASH_FREE_VAR: u32 = 2;
/// Structural kind: compared by its fields, sharing included.
pub const XFFI_SEQ_HASH_DAG_NODE: u32 = 3;
/// Structural kind: a tree node that is never a definition.
pub const XFFI_SEQ_HASH_CONST_TREE_NODE: u32 = 4;
/// Structural kind: equal only to itself.
pub const XFFI_SEQ_HASH_UNIQUE_INSTANCE: u32 = 5;

/// Reads the field at `field_addr` into `*result` (a new reference).
pub type xffi_field_getter = Option<unsafe extern "C" fn(field_addr: *mut c_void, result: *mut xffi_any) -> c_int>;
/// Writes `*value` (borrowed) into the field at `field_addr`.
pub type xffi_field_setter = Option<unsafe extern "C" fn(field_addr: *mut c_void, value: *const xffi_any) -> c_int>;
/// Makes a default-initialised object (`*result`: a new reference).
pub type xffi_object_creator = Option<unsafe extern "C" fn(result: *mut *mut c_void) -> c_int>;

/// A reflected field (tvm-ffi's TVMFFIFieldInfo).
#[repr(C)]
pub struct xffi_field_info {
    /// The field's name.
    pub name: xffi_byte_array,
    /// Its documentation (may be empty).
    pub doc: xffi_byte_array,
    /// JSON text.
    pub metadata: xffi_byte_array,
    /// `XFFI_FIELD_*` bits.
    pub flags: i64,
    /// The field's size in bytes.
    pub size: i64,
    /// The field's alignment in bytes.
    pub alignment: i64,
    /// Bytes from the object's start.
    pub offset: i64,
    /// Reads the field into an owned value.
    pub getter: xffi_field_getter,
    /// An `xffi_field_setter`, or a Function object with `XFFI_FIELD_SETTER_IS_FUNCTION`.
    pub setter: *mut c_void,
    /// The default (`XFFI_FIELD_HAS_DEFAULT`), or a Function making it
    /// (`XFFI_FIELD_DEFAULT_FROM_FACTORY`).
    pub default_value_or_factory: xffi_any,
    /// The type the field holds (`XFFI_TYPE_ANY` for any value).
    pub field_static_type_index: i32,
}

/// A reflected method (tvm-ffi's TVMFFIMethodInfo).
#[repr(C)]
pub struct xffi_method_info {
    /// The method's name.
    pub name: xffi_byte_array,
    /// Its documentation (may be empty).
    pub doc: xffi_byte_array,
    /// JSON text.
    pub metadata: xffi_byte_array,
    /// `XFFI_FIELD_IS_STATIC_METHOD` or 0.
    pub flags: i64,
    /// A Function.
    pub method: xffi_any,
}

/// A type's metadata (tvm-ffi's TVMFFITypeMetadata).
#[repr(C)]
pub struct xffi_type_metadata {
    /// The type's documentation (may be empty).
    pub doc: xffi_byte_array,
    /// Makes a default object of the type, or NULL if other runtimes may not create it.
    pub creator: xffi_object_creator,
    /// Bytes of an object, header included.
    pub total_size: i32,
    /// The structural kind (`XFFI_SEQ_HASH_*`).
    pub structural_eq_hash_kind: i32,
}

/// A column of one type attribute (tvm-ffi's TVMFFITypeAttrColumn): the value
/// of type index `t` is `data[t - begin_index]` when in range and not None.
#[repr(C)]
pub struct xffi_type_attr_column {
    /// The values, from `begin_index` on.
    pub data: *const xffi_any,
    /// The number of values.
    pub size: i32,
    /// The type index of `data[0]`.
    pub begin_index: i32,
}

extern "C" {
    /// Appends a copy of `*info` (borrowed: texts copied, default kept as an
    /// owned copy) to `type_index`'s own fields. Errors: ValueError, IndexError,
    /// MemoryError.
    pub fn xffi_type_register_field(type_index: i32, info: *const xffi_field_info) -> c_int;
    /// Appends a copy of `*info` (borrowed) to `type_index`'s own methods.
    pub fn xffi_type_register_method(type_index: i32, info: *const xffi_method_info) -> c_int;
    /// Sets `type_index`'s metadata to a copy of `*metadata` (borrowed), once.
    pub fn xffi_type_register_metadata(type_index: i32, metadata: *const xffi_type_metadata) -> c_int;
    /// Sets attribute `name` (borrowed, copied) of `type_index` to an owned copy of `*value` (borrowed).
    pub fn xffi_type_register_attr(type_index: i32, name: *const c_char, value: *const xffi_any) -> c_int;
    /// `*out` receives the column of attribute `name` (borrowed, immortal), or null when none exists.
    pub fn xffi_type_attr_column_lookup(out: *mut *const xffi_type_attr_column, name: *const c_char) -> c_int;
    /// `*out` receives the getter of a field stored as `static_type_index` implies.
    pub fn xffi_field_getter_for_type(out: *mut xffi_field_getter, static_type_index: i32) -> c_int;
    /// `*out` receives the converting setter of a field stored as `static_type_index` implies.
    pub fn xffi_field_setter_for_type(out: *mut xffi_field_setter, static_type_index: i32) -> c_int;
    /// Writes the borrowed `*value` into the field at `field_addr` stored as `static_type_index` implies.
    pub fn xffi_field_write(field_addr: *mut c_void, static_type_index: i32, value: *const xffi_any) -> c_int;
    /// `*out` receives the record (borrowed, immortal) of the field `name` of the type or an ancestor, or null.
    pub fn xffi_type_find_field(out: *mut *const xffi_field_info, type_index: i32, name: *const c_char) -> c_int;
    /// `*out` receives the record (borrowed, immortal) of the method `name` of the type or an ancestor, or null.
    pub fn xffi_type_find_method(out: *mut *const xffi_method_info, type_index: i32, name: *const c_char) -> c_int;
    /// `*out` receives a new reference to `obj`'s field `name` (both borrowed).
    pub fn xffi_object_get_field(out: *mut xffi_any, obj: *const xffi_object, name: *const c_char) -> c_int;
    /// Sets `obj`'s field `name` to the borrowed `*value`, type-checked, through the field's setter.
    pub fn xffi_object_set_field(obj: *mut xffi_object, name: *const c_char, value: *const xffi_any) -> c_int;
}

/// `xffi_repr_options::max_depth` when 0.
pub const XFFI_REPR_DEFAULT_MAX_DEPTH: i64 = 1 << 20;
/// `xffi_repr_options::max_bytes` when 0.
pub const XFFI_REPR_DEFAULT_MAX_BYTES: i64 = 1 << 26;

/// The bounds of a repr (`xffi_repr_with`); zero fields mean the defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct xffi_repr_options {
    /// Containers and objects open at once; deeper ones print as `<depth limit>`. 0: 2^20.
    pub max_depth: i64,
    /// The most bytes of text; a longer text is cut and ends with `<truncated>`. 0: 64 MiB.
    pub max_bytes: i64,
    /// Non-zero: show object addresses (`@0x...`).
    pub with_address: i32,
}

extern "C" {
    /// `*out` receives a new String reference with the text of `*value`
    /// (borrowed) in tvm-ffi's `ffi.ReprPrint` format (docs/reflection.md);
    /// addresses when `TVM_FFI_REPR_WITH_ADDR=1`. Errors: ValueError,
    /// what a field getter or `__ffi_repr__` raises, TypeError, MemoryError.
    pub fn xffi_repr(out: *mut *mut xffi_object, value: *const xffi_any) -> c_int;
    /// As `xffi_repr` with explicit bounds (`options` borrowed; null for the
    /// defaults); the environment is not read.
    pub fn xffi_repr_with(
        out: *mut *mut xffi_object,
        value: *const xffi_any,
        options: *const xffi_repr_options,
    ) -> c_int;
}

// ---------------------------------------------------------------------------
// Reflecting a C struct, construction, reading the records (reflection.h)
// ---------------------------------------------------------------------------

/// One field of a C struct, as the `XFFI_FIELD_SPEC` macros fill it. Texts
/// are NUL-terminated and borrowed (the registry copies them).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct xffi_reflect_field_spec {
    /// The field's name.
    pub name: *const c_char,
    /// Or null.
    pub doc: *const c_char,
    /// JSON text, or null.
    pub metadata: *const c_char,
    /// Bytes from the object's start (the header included).
    pub offset: i64,
    /// The member's size: must be the storage's size.
    pub size: i64,
    /// The type the member holds, which fixes its storage (`XFFI_TYPE_INT`: an `int64_t`, ...).
    pub static_type_index: i32,
    /// `XFFI_FIELD_WRITABLE`, `XFFI_FIELD_HAS_DEFAULT`, ... (no setter flag).
    pub flags: i64,
    /// Borrowed; kept (as a copy) with `XFFI_FIELD_HAS_DEFAULT`.
    pub default_value: xffi_any,
}

extern "C" {
    /// Registers the `count` fields `specs[0..count)` (borrowed) of `type_index`, all or none.
    pub fn xffi_reflect_fields(type_index: i32, specs: *const xffi_reflect_field_spec, count: i32) -> c_int;
    /// Registers one field with a default value (`default_value` borrowed; the registry keeps a copy).
    pub fn xffi_reflect_field_with_default(
        type_index: i32,
        spec: *const xffi_reflect_field_spec,
        default_value: xffi_any,
    ) -> c_int;
    /// Registers a method made from a C callback (`name` and `doc` borrowed, copied).
    pub fn xffi_reflect_method(
        type_index: i32,
        name: *const c_char,
        callback: Option<xffi_function_callback>,
        resource: *mut c_void,
        flags: i64,
        doc: *const c_char,
    ) -> c_int;
    /// Registers the type's metadata: total size, creator, structural kind, doc (borrowed, copied).
    pub fn xffi_reflect_type(
        type_index: i32,
        total_size: i64,
        creator: xffi_object_creator,
        structural_eq_hash_kind: i32,
        doc: *const c_char,
    ) -> c_int;
    /// The marker that separates positional from keyword arguments of `xffi_object_construct` (immortal).
    pub fn xffi_kwargs_marker() -> xffi_any;
    /// `*out` receives a new reference to an object of `type_index` made from the borrowed `args`.
    pub fn xffi_object_construct(out: *mut xffi_any, type_index: i32, args: *const xffi_any, num_args: i32) -> c_int;
    /// `*out` receives the number of fields of `type_index`, ancestors' included.
    pub fn xffi_type_count_fields(out: *mut i32, type_index: i32) -> c_int;
    /// `*out` receives the record (borrowed, immortal) at `position`, the root ancestor's fields first.
    pub fn xffi_type_field_at(out: *mut *const xffi_field_info, type_index: i32, position: i32) -> c_int;
    /// `*out` receives the number of methods of `type_index`, ancestors' included.
    pub fn xffi_type_count_methods(out: *mut i32, type_index: i32) -> c_int;
    /// `*out` receives the method record (borrowed, immortal) at `position`.
    pub fn xffi_type_method_at(out: *mut *const xffi_method_info, type_index: i32, position: i32) -> c_int;
    /// `*out` receives the type's metadata (borrowed, immortal), or null when it has none.
    pub fn xffi_type_get_metadata(out: *mut *const xffi_type_metadata, type_index: i32) -> c_int;
    /// `*out` receives a new reference to the type's attribute `name` (borrowed), or None.
    pub fn xffi_type_get_attr(out: *mut xffi_any, type_index: i32, name: *const c_char) -> c_int;
}
