//! The declarations of `tvm_ffi.h`: tvm-ffi 0.1's stable C ABI (the 50
//! `TVMFFI*` functions of its libtvm_ffi.so), served by xffi over the same
//! registries and error slot as the `xffi_*` API. Ownership and errors as in
//! the header: 0 on success, -1 with an error raised. Re-exported at the
//! crate root.

use core::ffi::{c_char, c_int, c_void};

use crate::any::xffi_any;
use crate::dlpack::{DLDataType, DLManagedTensor, DLManagedTensorVersioned, DLPackManagedTensorAllocator, DLTensor};
use crate::function::xffi_safe_call;
use crate::r#type::{xffi_byte_array, xffi_type_info};
use crate::reflection::{xffi_field_info, xffi_method_info, xffi_type_attr_column, xffi_type_metadata};

/// The major version tvm-ffi's headers of the pinned release declare.
pub const XFFI_TVM_FFI_VERSION_MAJOR: u32 = 0;
/// The minor version tvm-ffi's headers of the pinned release declare.
pub const XFFI_TVM_FFI_VERSION_MINOR: u32 = 1;
/// The patch version tvm-ffi's headers of the pinned release declare.
pub const XFFI_TVM_FFI_VERSION_PATCH: u32 = 16;

/// tvm-ffi's version triple (TVMFFIVersion).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xffi_tvm_version {
    /// The major version.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
    /// The patch version.
    pub patch: u32,
}

/// Sits immediately before the body of every object the runtime allocates.
#[repr(C)]
pub struct xffi_object_alloc_header {
    /// Frees the object's memory (the allocator's own function), given the body's address.
    pub delete_space: Option<unsafe extern "C" fn(body: *mut c_void)>,
}

/// A process-wide object allocator (TVMFFICustomAllocator).
#[repr(C)]
pub struct xffi_custom_allocator {
    /// Allocates `size` bytes at `alignment` for an object of `type_index`, or returns NULL.
    pub allocate: Option<
        unsafe extern "C" fn(size: usize, alignment: usize, type_index: i32, context: *mut c_void) -> *mut c_void,
    >,
    /// Passed to `allocate` (borrowed).
    pub context: *mut c_void,
}

extern "C" {
    /// Writes the tvm-ffi version served (0.1.16).
    pub fn TVMFFIGetVersion(out: *mut xffi_tvm_version);
    /// One more strong reference to `obj` (borrowed).
    pub fn TVMFFIObjectIncRef(obj: *mut c_void) -> c_int;
    /// Drops one strong reference to `obj` (stolen).
    pub fn TVMFFIObjectDecRef(obj: *mut c_void) -> c_int;
    /// An ffi.OpaquePyObject holding `handle` (`*out`: a new reference).
    pub fn TVMFFIObjectCreateOpaque(
        handle: *mut c_void,
        type_index: i32,
        deleter: Option<unsafe extern "C" fn(handle: *mut c_void)>,
        out: *mut *mut c_void,
    ) -> c_int;
    /// The object allocator in use (borrowed, never null).
    pub fn TVMFFIGetCustomAllocator() -> *mut xffi_custom_allocator;
    /// Makes `allocator` (borrowed for the rest of the process) the object allocator; null restores the built-in one.
    pub fn TVMFFISetCustomAllocator(allocator: *mut xffi_custom_allocator) -> c_int;
    /// The index of a type key.
    pub fn TVMFFITypeKeyToIndex(type_key: *const xffi_byte_array, out_type_index: *mut i32) -> c_int;

    /// A Function over a C callback (`*out`: a new reference).
    pub fn TVMFFIFunctionCreate(
        self_: *mut c_void,
        safe_call: Option<xffi_safe_call>,
        deleter: Option<unsafe extern "C" fn(self_: *mut c_void)>,
        out: *mut *mut c_void,
    ) -> c_int;
    /// The global function `name` (`*out`: a new reference, or null when none).
    pub fn TVMFFIFunctionGetGlobal(name: *const xffi_byte_array, out: *mut *mut c_void) -> c_int;
    /// An owned copy of a view (object rvalue references are moved out).
    pub fn TVMFFIAnyViewToOwnedAny(any_view: *const xffi_any, out: *mut xffi_any) -> c_int;
    /// Calls `func` (borrowed); `*result` must be None on entry.
    pub fn TVMFFIFunctionCall(func: *mut c_void, args: *mut xffi_any, num_args: i32, result: *mut xffi_any) -> c_int;
    /// Moves the raised error into `*result` (a new reference, or null).
    pub fn TVMFFIErrorMoveFromRaised(result: *mut *mut c_void);
    /// Raises `error` (borrowed: the slot takes its own reference).
    pub fn TVMFFIErrorSetRaised(error: *mut c_void);
    /// Raises a new error of `kind` with `message`.
    pub fn TVMFFIErrorSetRaisedFromCStr(kind: *const c_char, message: *const c_char);
    /// Raises a new error whose message is the concatenation of the parts.
    pub fn TVMFFIErrorSetRaisedFromCStrParts(kind: *const c_char, message_parts: *mut *const c_char, num_parts: i32);
    /// A new Error (`*out`: a new reference); fails without raising.
    pub fn TVMFFIErrorCreate(
        kind: *const xffi_byte_array,
        message: *const xffi_byte_array,
        backtrace: *const xffi_byte_array,
        out: *mut *mut c_void,
    ) -> c_int;
    /// A new Error with a cause and extra context (both borrowed).
    pub fn TVMFFIErrorCreateWithCauseAndExtraContext(
        kind: *const xffi_byte_array,
        message: *const xffi_byte_array,
        backtrace: *const xffi_byte_array,
        cause_chain: *mut c_void,
        extra_context: *mut c_void,
        out: *mut *mut c_void,
    ) -> c_int;

    /// A Tensor from a legacy DLPack tensor (`from` stolen on success only).
    pub fn TVMFFITensorFromDLPack(
        from: *mut DLManagedTensor,
        require_alignment: i32,
        require_contiguous: i32,
        out: *mut *mut c_void,
    ) -> c_int;
    /// A legacy DLPack tensor holding a new reference to `from` (borrowed).
    pub fn TVMFFITensorToDLPack(from: *mut c_void, out: *mut *mut DLManagedTensor) -> c_int;
    /// A Tensor from a versioned DLPack tensor (`from` stolen on success only).
    pub fn TVMFFITensorFromDLPackVersioned(
        from: *mut DLManagedTensorVersioned,
        require_alignment: i32,
        require_contiguous: i32,
        out: *mut *mut c_void,
    ) -> c_int;
    /// A versioned DLPack tensor holding a new reference to `from` (borrowed).
    pub fn TVMFFITensorToDLPackVersioned(from: *mut c_void, out: *mut *mut DLManagedTensorVersioned) -> c_int;
    /// A Tensor viewing `prototype`'s data and keeping `source` (borrowed) alive.
    pub fn TVMFFITensorCreateUnsafeView(
        source: *mut c_void,
        prototype: *const DLTensor,
        out: *mut *mut c_void,
    ) -> c_int;

    /// A string value (owned) from bytes.
    pub fn TVMFFIStringFromByteArray(input: *const xffi_byte_array, out: *mut xffi_any) -> c_int;
    /// A bytes value (owned) from bytes.
    pub fn TVMFFIBytesFromByteArray(input: *const xffi_byte_array, out: *mut xffi_any) -> c_int;
    /// An int or BigInt (owned) from 64-bit words, least significant first.
    pub fn TVMFFIBigIntFromByteArray(input: *const xffi_byte_array, out: *mut xffi_any) -> c_int;
    /// The words of an int or BigInt (borrowed from `*value`).
    pub fn TVMFFIBigIntGetContentByteArray(value: *const xffi_any) -> xffi_byte_array;
    /// Parses a dtype with tvm-ffi's aliases.
    pub fn TVMFFIDataTypeFromString(str_: *const xffi_byte_array, out: *mut DLDataType) -> c_int;
    /// The text of a dtype (owned string value).
    pub fn TVMFFIDataTypeToString(dtype: *const DLDataType, out: *mut xffi_any) -> c_int;

    /// Registers `f` (borrowed) as the global `name`.
    pub fn TVMFFIFunctionSetGlobal(name: *const xffi_byte_array, f: *mut c_void, allow_override: c_int) -> c_int;
    /// Registers a method record's function as a global, keeping its doc and metadata.
    pub fn TVMFFIFunctionSetGlobalFromMethodInfo(method_info: *const xffi_method_info, allow_override: c_int) -> c_int;

    /// Adds a field record to `type_index`.
    pub fn TVMFFITypeRegisterField(type_index: i32, info: *const xffi_field_info) -> c_int;
    /// Adds a method record to `type_index`.
    pub fn TVMFFITypeRegisterMethod(type_index: i32, info: *const xffi_method_info) -> c_int;
    /// Sets the metadata of `type_index` (once).
    pub fn TVMFFITypeRegisterMetadata(type_index: i32, metadata: *const xffi_type_metadata) -> c_int;
    /// Sets a type attribute (the value is copied).
    pub fn TVMFFITypeRegisterAttr(
        type_index: i32,
        attr_name: *const xffi_byte_array,
        attr_value: *const xffi_any,
    ) -> c_int;
    /// The column of a type attribute (borrowed, immortal), or null with an error raised.
    pub fn TVMFFIGetTypeAttrColumn(attr_name: *const xffi_byte_array) -> *const xffi_type_attr_column;
    /// A native backtrace as text (borrowed from thread-local storage).
    pub fn TVMFFIBacktrace(
        filename: *const c_char,
        lineno: c_int,
        func: *const c_char,
        cross_ffi_boundary: c_int,
    ) -> *const xffi_byte_array;
    /// The index of a type key, registering it if new (-1 with an error raised on failure).
    pub fn TVMFFITypeGetOrAllocIndex(
        type_key: *const xffi_byte_array,
        static_type_index: i32,
        type_depth: i32,
        num_child_slots: i32,
        child_slots_can_overflow: i32,
        parent_type_index: i32,
    ) -> i32;
    /// The record of `type_index` (borrowed, immortal), or null with an error raised.
    pub fn TVMFFIGetTypeInfo(type_index: i32) -> *const xffi_type_info;

    /// Runs `init_func` once across threads when `*handle_addr` is null.
    pub fn TVMFFIHandleInitOnce(
        handle_addr: *mut *mut c_void,
        init_func: Option<unsafe extern "C" fn(result: *mut *mut c_void) -> c_int>,
    ) -> c_int;
    /// Runs `deinit_func` once when `*handle_addr` is not null, then nulls it.
    pub fn TVMFFIHandleDeinitOnce(
        handle_addr: *mut *mut c_void,
        deinit_func: Option<unsafe extern "C" fn(handle: *mut c_void) -> c_int>,
    ) -> c_int;

    /// Sets the calling thread's current stream for a device.
    pub fn TVMFFIEnvSetStream(
        device_type: i32,
        device_id: i32,
        stream: *mut c_void,
        opt_out_original_stream: *mut *mut c_void,
    ) -> c_int;
    /// The calling thread's current stream for a device (null if none).
    pub fn TVMFFIEnvGetStream(device_type: i32, device_id: i32) -> *mut c_void;
    /// Sets the DLPack tensor allocator (thread, and process when asked).
    pub fn TVMFFIEnvSetDLPackManagedTensorAllocator(
        allocator: DLPackManagedTensorAllocator,
        write_to_global_context: c_int,
        opt_out_original_allocator: *mut DLPackManagedTensorAllocator,
    ) -> c_int;
    /// The DLPack allocator in force for the calling thread.
    pub fn TVMFFIEnvGetDLPackManagedTensorAllocator() -> DLPackManagedTensorAllocator;
    /// A Tensor like `prototype`, allocated by the DLPack allocator in force.
    pub fn TVMFFIEnvTensorAlloc(prototype: *mut DLTensor, out: *mut *mut c_void) -> c_int;
    /// Asks the host environment whether a signal is pending.
    pub fn TVMFFIEnvCheckSignals() -> c_int;
    /// Registers a host entry point by name.
    pub fn TVMFFIEnvRegisterCAPI(name: *const c_char, symbol: *mut c_void) -> c_int;
    /// Looks a function up for a library module (`*out` borrowed).
    pub fn TVMFFIEnvModLookupFromImports(
        library_ctx: *mut c_void,
        func_name: *const c_char,
        out: *mut *mut c_void,
    ) -> c_int;
    /// Every library loaded from now on gets its `void*` variable `name` set to `symbol`.
    pub fn TVMFFIEnvModRegisterContextSymbol(name: *const c_char, symbol: *mut c_void) -> c_int;
    /// Adds `name -> symbol` to the system library's table (always 0).
    pub fn TVMFFIEnvModRegisterSystemLibSymbol(name: *const c_char, symbol: *mut c_void) -> c_int;
}
