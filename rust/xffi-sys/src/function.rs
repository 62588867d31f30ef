//! `xffi/function.h` and `xffi/sys/function.h` (extension tier: the
//! Function cell, the unchecked call): packed calls, callbacks, the global
//! registry, argument helpers.

use core::ffi::{c_char, c_int, c_void};
use core::mem::size_of;
use core::sync::atomic::{AtomicU64, Ordering};

use crate::any::xffi_any;
use crate::export::XFFI_OK;
use crate::object::xffi_object;
use crate::r#type::{xffi_byte_array, XFFI_TYPE_FLOAT, XFFI_TYPE_FUNCTION, XFFI_TYPE_INT};

/// The safe-call signature stored in every Function cell (handle = the Function object).
pub type xffi_safe_call =
    unsafe extern "C" fn(handle: *mut c_void, args: *const xffi_any, num_args: i32, result: *mut xffi_any) -> c_int;
/// A C implementation of a function: the first argument is the resource handle.
pub type xffi_function_callback =
    unsafe extern "C" fn(resource: *mut c_void, args: *const xffi_any, num_args: i32, result: *mut xffi_any) -> c_int;
/// Releases a function's resource (exactly once, on the thread that drops the last reference).
pub type xffi_function_finalizer = unsafe extern "C" fn(resource: *mut c_void);

/// The cell of a Function object (layout shared with tvm-ffi 0.1).
#[repr(C)]
#[derive(Debug)]
pub struct xffi_function_cell {
    /// The C entry point: called with the Function's own pointer, the arguments and the result
    /// slot.
    pub safe_call: Option<xffi_safe_call>,
    /// tvm-ffi's C++ entry point; NULL in functions xffi makes.
    pub cpp_call: *mut c_void,
}

/// The start of every Function made by xffi: header, cell, resource (part of
/// xffi's ABI, so a direct function reads its resource with one load).
#[repr(C)]
pub struct xffi_function_head {
    /// The object header.
    pub header: xffi_object,
    /// The Function cell.
    pub cell: xffi_function_cell,
    /// The function's resource (a closure's state), released by its finalizer.
    pub resource: *mut c_void,
}

/// The resource a Function made by xffi was created with (borrowed), read
/// from the handle a direct function receives (mirror of the C inline).
///
/// # Safety
/// `handle` must be a live Function made by xffi.
#[inline(always)]
pub unsafe fn xffi_function_resource_unchecked(handle: *const c_void) -> *mut c_void {
    (*(handle as *const xffi_function_head)).resource
}

extern "C" {
    /// New direct Function: its cell calls `call` itself, with the Function as
    /// handle (read the resource with [`xffi_function_resource_unchecked`]). `*out` receives a
    /// new reference; the resource passes to the function only on success.
    /// Errors: ValueError, MemoryError.
    pub fn xffi_function_new_direct(
        out: *mut *mut xffi_object,
        call: Option<xffi_safe_call>,
        resource: *mut c_void,
        finalizer: Option<xffi_function_finalizer>,
    ) -> c_int;
    /// The bare safe call (one jump through the cell): no checks, `*result`
    /// not reset, the callee's status returned as is.
    pub fn xffi_function_call_raw(
        func: *mut xffi_object,
        args: *const xffi_any,
        num_args: i32,
        result: *mut xffi_any,
    ) -> c_int;
    /// New Function from a callback: `*out` receives a new reference; the
    /// resource passes to the function only on success (finalizer may be None).
    /// Errors: ValueError, MemoryError.
    pub fn xffi_function_new(
        out: *mut *mut xffi_object,
        callback: Option<xffi_function_callback>,
        resource: *mut c_void,
        finalizer: Option<xffi_function_finalizer>,
    ) -> c_int;
    /// As [`xffi_function_new`], also keeping `owner` (borrowed; a new reference is taken) alive.
    pub fn xffi_function_new_with_owner(
        out: *mut *mut xffi_object,
        callback: Option<xffi_function_callback>,
        resource: *mut c_void,
        finalizer: Option<xffi_function_finalizer>,
        owner: *mut xffi_object,
    ) -> c_int;
    /// Calls `func` (borrowed) with borrowed argument views; `*result` receives
    /// an owned value. Errors: ValueError, TypeError, anything the callee raises.
    pub fn xffi_function_call(
        func: *mut xffi_object,
        args: *const xffi_any,
        num_args: i32,
        result: *mut xffi_any,
    ) -> c_int;
    /// Private to the inline call: failure path (releases `*result`).
    pub fn xffi_function_call_failed_(result: *mut xffi_any, status: c_int) -> c_int;
    /// Private to the inline call: the failure path of a call that read
    /// [`xffi_raise_clock`] (`begun`) as it began; releases an error raised
    /// at or before `begun`, then as [`xffi_function_call_failed_`].
    pub fn xffi_function_call_failed_since_(result: *mut xffi_any, status: c_int, begun: u64) -> c_int;
    /// The raise clock: ticked once per error raised, process-wide (read it,
    /// never write it). A call reads it as it begins, so that a failed call
    /// can tell its callee's error from one left raised before it.
    pub static xffi_raise_clock: AtomicU64;
    /// Argument helpers for callees (TypeError naming `fn_`, the position, what was expected and what came).
    pub fn xffi_arg_to_int(
        out: *mut i64,
        args: *const xffi_any,
        num_args: i32,
        index: i32,
        fn_: *const c_char,
    ) -> c_int;
    /// Writes argument `index` of a call as a double to \*out (a float, int or bool). Errors:
    /// TypeError "&lt;fn&gt;: argument &lt;index&gt;: expected float, got &lt;kind&gt;" (or
    /// "missing"); ValueError for a malformed argument.
    pub fn xffi_arg_to_float(
        out: *mut f64,
        args: *const xffi_any,
        num_args: i32,
        index: i32,
        fn_: *const c_char,
    ) -> c_int;
    /// Writes argument `index` of a call as a bool to \*out (a bool, or an int: non-zero is true).
    /// Errors: TypeError naming fn and the argument (or "missing"); ValueError for a malformed
    /// argument.
    pub fn xffi_arg_to_bool(
        out: *mut c_int,
        args: *const xffi_any,
        num_args: i32,
        index: i32,
        fn_: *const c_char,
    ) -> c_int;
    /// out borrows the characters (see xffi_any_to_str).
    pub fn xffi_arg_to_str(
        out: *mut xffi_byte_array,
        args: *const xffi_any,
        num_args: i32,
        index: i32,
        fn_: *const c_char,
    ) -> c_int;
    /// Writes argument `index` of a call as an opaque pointer to \*out (a pointer, or None: NULL).
    /// Errors: TypeError naming fn and the argument (or "missing"); ValueError for a malformed
    /// argument.
    pub fn xffi_arg_to_ptr(
        out: *mut *mut c_void,
        args: *const xffi_any,
        num_args: i32,
        index: i32,
        fn_: *const c_char,
    ) -> c_int;
    /// out borrows an object that is an instance of type_index (None is refused: a required object
    /// argument must be present).
    pub fn xffi_arg_to_object(
        out: *mut *mut xffi_object,
        args: *const xffi_any,
        num_args: i32,
        index: i32,
        type_index: i32,
        fn_: *const c_char,
    ) -> c_int;
    /// Checks a whole call against a one-character-per-argument signature.
    pub fn xffi_arg_check_signature(
        args: *const xffi_any,
        num_args: i32,
        signature: *const c_char,
        fn_: *const c_char,
    ) -> c_int;
    /// Registers `func` (borrowed; the registry takes its own reference) under `name` (copied).
    pub fn xffi_function_global_register(name: *const c_char, func: *mut xffi_object, allow_override: c_int) -> c_int;
    /// The same, keeping copies of `doc` and `metadata` (borrowed byte runs, JSON metadata; either may be empty).
    pub fn xffi_function_global_register_with_info(
        name: *const c_char,
        func: *mut xffi_object,
        doc: xffi_byte_array,
        metadata: xffi_byte_array,
        allow_override: c_int,
    ) -> c_int;
    /// Looks `name` up: `*out` receives a new reference, or NULL if missing (not an error).
    pub fn xffi_function_global_lookup(out: *mut *mut xffi_object, name: *const c_char) -> c_int;
    /// The same with a byte-run name.
    pub fn xffi_function_global_lookup_bytes(out: *mut *mut xffi_object, name: xffi_byte_array) -> c_int;
    /// The doc and metadata (JSON) of the global `name`: `*out_found` is 1 and
    /// both are owned string values (empty when none was given), or 0 and both None.
    pub fn xffi_function_global_info(
        out_doc: *mut xffi_any,
        out_metadata: *mut xffi_any,
        out_found: *mut c_int,
        name: xffi_byte_array,
    ) -> c_int;
    /// Removes `name`. Errors: ValueError, KeyError.
    pub fn xffi_function_global_erase(name: *const c_char) -> c_int;
    /// Lists registered names as new String references.
    pub fn xffi_function_global_names(out_names: *mut *mut xffi_object, out_count: *mut i64, capacity: i64) -> c_int;
}

/// [`xffi_function_call`] without its checks (mirror of the C inline
/// `xffi_function_call_unchecked`): resets `*result`, makes the bare call and,
/// on failure, makes sure an Error is raised and `*result` is None.
///
/// # Safety
/// `func` is a live Function, `result` is valid, and `args` holds
/// `num_args >= 0` values.
#[inline(always)]
pub unsafe fn xffi_function_call_unchecked(
    func: *mut xffi_object,
    args: *const xffi_any,
    num_args: i32,
    result: *mut xffi_any,
) -> c_int {
    *result = xffi_any::none();
    let begun = xffi_raise_clock.load(Ordering::Relaxed);
    let cell = (func as *mut u8).add(size_of::<xffi_object>()) as *const xffi_function_cell;
    let safe_call = (*cell).safe_call.unwrap_unchecked();
    let status = safe_call(func as *mut c_void, args, num_args, result);
    if status != 0 {
        return xffi_function_call_failed_since_(result, status, begun);
    }
    XFFI_OK
}

/// [`xffi_function_call`] with the checks and the call inlined (mirror of the C
/// inline `xffi_function_call_inline`).
///
/// # Safety
/// As [`xffi_function_call`].
#[inline(always)]
pub unsafe fn xffi_function_call_inline(
    func: *mut xffi_object,
    args: *const xffi_any,
    num_args: i32,
    result: *mut xffi_any,
) -> c_int {
    if !func.is_null()
        && (*func).type_index == XFFI_TYPE_FUNCTION
        && !result.is_null()
        && num_args >= 0
        && (!args.is_null() || num_args == 0)
    {
        return xffi_function_call_unchecked(func, args, num_args, result);
    }
    xffi_function_call(func, args, num_args, result)
}

/// [`xffi_arg_to_int`] with the common case inlined (mirror of the C inline
/// `xffi_arg_to_int_inline`): an int at `index` is read directly, anything else goes to
/// the exported, checked function (which raises the TypeError).
///
/// # Safety
/// As [`xffi_arg_to_int`].
#[inline(always)]
pub unsafe fn xffi_arg_to_int_inline(
    out: *mut i64,
    args: *const xffi_any,
    num_args: i32,
    index: i32,
    fn_: *const c_char,
) -> c_int {
    if !args.is_null() && index >= 0 && index < num_args && (*args.add(index as usize)).type_index == XFFI_TYPE_INT {
        *out = (*args.add(index as usize)).value.v_int64;
        return XFFI_OK;
    }
    xffi_arg_to_int(out, args, num_args, index, fn_)
}

/// [`xffi_arg_to_float`] with the common case inlined (mirror of the C
/// inline `xffi_arg_to_float_inline`).
///
/// # Safety
/// As [`xffi_arg_to_float`].
#[inline(always)]
pub unsafe fn xffi_arg_to_float_inline(
    out: *mut f64,
    args: *const xffi_any,
    num_args: i32,
    index: i32,
    fn_: *const c_char,
) -> c_int {
    if !args.is_null() && index >= 0 && index < num_args && (*args.add(index as usize)).type_index == XFFI_TYPE_FLOAT {
        *out = (*args.add(index as usize)).value.v_float64;
        return XFFI_OK;
    }
    xffi_arg_to_float(out, args, num_args, index, fn_)
}
