//! The short list of header items that xffi-sys does not mirror one to one,
//! each with the reason. Read by build.rs; everything else the headers
//! declare must exist in xffi-sys with the C value, layout or signature.
//! An entry the headers no longer declare is reported as a build warning.

/// Items not checked at all: (item, or `record.field`; why).
pub const UNCHECKED: &[(&str, &str)] = &[
    ("XFFI_OWN_DLPACK", "tells C code that xffi's dlpack.h (not another copy) was included; nothing to bind"),
    ("DLDataTypeCode", "the codes live in DLDataType::code (u8), so xffi-sys types them u8 and has no enum type"),
    ("xffi_ref_counts_word", "private to the C inline atomics; Rust uses AtomicU64 on ref_counts"),
    ("xffi_raise_clock", "C's _Atomic uint64_t, seen by bindgen as u64; xffi-sys has AtomicU64 (same layout)"),
    ("xffi_export_failed_", "private to the C XFFI_EXPORT_FUNCTION macro; Rust exports call xffi_error_forward_to_tvm"),
    ("xffi_error_raise_v", "takes a va_list, which Rust cannot make; xffi_error_raise_str serves Rust"),
    ("va_list", "<stdarg.h>'s, reached through xffi_error_raise_v"),
    // Static inline functions xffi-sys reimplements with a Rust-shaped signature.
    ("xffi_object_init", "takes the deleter as a non-null fn: a header always needs one"),
    ("xffi_object_is_a_unchecked", "returns bool"),
    ("xffi_type_rows_load_", "private to the C inline is-instance; xffi-sys's type_record loads the pointer itself"),
    ("xffi_type_record_in_", "private to the C inline is-instance; xffi-sys's type_record is its copy"),
    ("xffi_any_bool", "reimplemented as xffi_any::bool, taking bool"),
    ("xffi_any_is_object", "reimplemented as xffi_any::is_object(&self) -> bool"),
];

/// Items xffi-sys declares under another path: (C item or `record.field`,
/// xffi-sys path relative to the crate root, why). The item is checked there.
pub const RENAMED: &[(&str, &str, &str)] = &[
    ("xffi_object__bindgen_ty_1", "xffi_object_deleter_slot", "C's anonymous union: Rust names it"),
    ("xffi_object.__bindgen_anon_1", "deleter", "C's anonymous union member: Rust names it"),
    ("xffi_any__bindgen_ty_1", "xffi_any_value", "C's anonymous union: Rust names it"),
    ("xffi_any.__bindgen_anon_1", "value", "C's anonymous union member: Rust names it"),
    ("xffi_any_none", "xffi_any::none", "an associated function of xffi_any"),
    ("xffi_any_int", "xffi_any::int", "an associated function of xffi_any"),
    ("xffi_any_float", "xffi_any::float", "an associated function of xffi_any"),
    ("xffi_any_object", "xffi_any::object", "an associated function of xffi_any"),
];
