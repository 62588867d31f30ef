//! Mirror of include/xffi/structural_visit.h: structural visitors and mutators
//! (ffi.StructuralWalk/Visit/Map/Mutate, ffi.VisitInterrupt, ffi.VisitErrorContext). Ownership as in the header.

use core::ffi::{c_int, c_void};

use crate::any::xffi_any;
use crate::object::xffi_object;

/// Callbacks run before a value's children.
pub const XFFI_STRUCTURAL_PREORDER: u32 = 0;
/// Callbacks run after a value's children.
pub const XFFI_STRUCTURAL_POSTORDER: u32 = 1;
/// A walk callback's result: go on into the value's children.
pub const XFFI_STRUCTURAL_ADVANCE: u32 = 0;
/// A walk callback's result: leave the value's children out.
pub const XFFI_STRUCTURAL_SKIP: u32 = 1;
/// The value may not be changed in place.
pub const XFFI_STRUCTURAL_INPLACE_DISALLOW: u32 = 0;
/// The walk owns the value's only reference: it may be changed in place.
pub const XFFI_STRUCTURAL_INPLACE_ALLOW: u32 = 1;
/// Not in a definition region.
pub const XFFI_DEF_REGION_NONE: u32 = 0;
/// In a pattern definition region.
pub const XFFI_DEF_REGION_PATTERN: u32 = 1;
/// In a simple definition region.
pub const XFFI_DEF_REGION_SIMPLE: u32 = 2;
/// What a map or mutate callback returns when it does not handle the value.
pub const XFFI_STRUCTURAL_DECLINED: u32 = 1;

/// Walk callback: `value` borrowed; writes None, an int (advance/skip) or a new VisitInterrupt.
pub type xffi_structural_walk_callback = unsafe extern "C" fn(
    resource: *mut c_void,
    value: *const xffi_any,
    def_region: i32,
    result: *mut xffi_any,
) -> c_int;
/// Visit callback: `visitor` and `value` borrowed; writes None or a new VisitInterrupt.
pub type xffi_structural_visit_callback = unsafe extern "C" fn(
    resource: *mut c_void,
    visitor: *mut xffi_object,
    value: *const xffi_any,
    result: *mut xffi_any,
) -> c_int;
/// Map callback: `value` borrowed; writes the replacement (a new reference).
pub type xffi_structural_map_callback = unsafe extern "C" fn(
    resource: *mut c_void,
    value: *const xffi_any,
    def_region: i32,
    result: *mut xffi_any,
) -> c_int;
/// Mutate callback: `mutator` and `value` borrowed; writes the final result (a new reference).
pub type xffi_structural_mutate_callback = unsafe extern "C" fn(
    resource: *mut c_void,
    mutator: *mut xffi_object,
    value: *const xffi_any,
    inplace_mode: i32,
    result: *mut xffi_any,
) -> c_int;

extern "C" {
    /// `*out` receives a new ffi.VisitInterrupt holding a copy of `*value` (borrowed).
    pub fn xffi_visit_interrupt_new(out: *mut *mut xffi_object, value: *const xffi_any) -> c_int;
    /// `*out` receives a new reference to the payload of `interrupt` (borrowed).
    pub fn xffi_visit_interrupt_value(out: *mut xffi_any, interrupt: *const xffi_object) -> c_int;
    /// Walks `*root` (borrowed); `*out`: None or the VisitInterrupt that stopped it (new reference).
    pub fn xffi_structural_walk(
        out: *mut xffi_any,
        root: *const xffi_any,
        order: i32,
        callback: Option<xffi_structural_walk_callback>,
        resource: *mut c_void,
    ) -> c_int;
    /// Visits `*root` (borrowed) with a callback that owns the descent.
    pub fn xffi_structural_visit(
        out: *mut xffi_any,
        root: *const xffi_any,
        callback: Option<xffi_structural_visit_callback>,
        resource: *mut c_void,
    ) -> c_int;
    /// From a visit callback: visits `*value` (borrowed) with the same callback.
    pub fn xffi_structural_visitor_visit(
        out: *mut xffi_any,
        visitor: *mut xffi_object,
        value: *const xffi_any,
    ) -> c_int;
    /// From a visit callback: visits the children of `*value` (borrowed).
    pub fn xffi_structural_visitor_default_visit(
        out: *mut xffi_any,
        visitor: *mut xffi_object,
        value: *const xffi_any,
    ) -> c_int;
    /// `*out` receives the visitor's current definition region.
    pub fn xffi_structural_visitor_def_region(out: *mut i32, visitor: *const xffi_object) -> c_int;
    /// Calls `function` (borrowed) with the visitor's region set to `kind`.
    pub fn xffi_structural_visitor_with_def_region(
        out: *mut xffi_any,
        visitor: *mut xffi_object,
        kind: i32,
        function: *mut xffi_object,
    ) -> c_int;
    /// Maps `*root` (stolen; None after) into `*out` (owned).
    pub fn xffi_structural_map(
        out: *mut xffi_any,
        root: *mut xffi_any,
        order: i32,
        callback: Option<xffi_structural_map_callback>,
        resource: *mut c_void,
    ) -> c_int;
    /// Mutates `*root` (stolen; None after) into `*out` (owned).
    pub fn xffi_structural_mutate(
        out: *mut xffi_any,
        root: *mut xffi_any,
        callback: Option<xffi_structural_mutate_callback>,
        resource: *mut c_void,
    ) -> c_int;
    /// From a mutate callback: mutates `*value` (borrowed) with the same callback.
    pub fn xffi_structural_mutator_mutate(
        out: *mut xffi_any,
        mutator: *mut xffi_object,
        value: *const xffi_any,
    ) -> c_int;
    /// From a mutate callback: the default descent of `*value` (borrowed).
    pub fn xffi_structural_mutator_default_mutate(
        out: *mut xffi_any,
        mutator: *mut xffi_object,
        value: *const xffi_any,
    ) -> c_int;
    /// `*out` receives the replacement recorded for `*var` (borrowed), or None.
    pub fn xffi_structural_mutator_var_remap_get(
        out: *mut xffi_any,
        mutator: *mut xffi_object,
        var: *const xffi_any,
    ) -> c_int;
    /// Records `*mapped` (borrowed, copied) for `*var` (borrowed).
    pub fn xffi_structural_mutator_var_remap_set(
        mutator: *mut xffi_object,
        var: *const xffi_any,
        mapped: *const xffi_any,
    ) -> c_int;
    /// `*out` receives the mutator's current definition region.
    pub fn xffi_structural_mutator_def_region(out: *mut i32, mutator: *const xffi_object) -> c_int;
    /// Calls `function` (borrowed) with the mutator's region set to `kind`.
    pub fn xffi_structural_mutator_with_def_region(
        out: *mut xffi_any,
        mutator: *mut xffi_object,
        kind: i32,
        function: *mut xffi_object,
    ) -> c_int;
    /// `*out` receives the ffi.VisitErrorContext of `err` (borrowed; an Error) as a new
    /// reference, or null when it has none.
    pub fn xffi_visit_error_context_of(out: *mut *mut xffi_object, err: *mut xffi_object) -> c_int;
    /// tvm-ffi's FindAccessPaths: `*out` receives a new Array of ffi.reflection.AccessPath from
    /// `root` (borrowed) to where `context`'s (borrowed) record ends.
    pub fn xffi_visit_error_context_find_paths(
        out: *mut xffi_any,
        root: *const xffi_any,
        context: *const xffi_object,
        allow_prefix_match: c_int,
    ) -> c_int;
}
