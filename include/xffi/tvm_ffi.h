/* xffi/tvm_ffi.h: tvm-ffi 0.1's stable C ABI, served by xffi.
 *
 * The 50 TVMFFI* functions that tvm-ffi's libtvm_ffi.so exports (version
 * 0.1.15.post2, which reports 0.1.16), declared with xffi's types, which have
 * the same layouts (xffi_any is TVMFFIAny, xffi_byte_array is
 * TVMFFIByteArray, xffi_type_info is TVMFFITypeInfo, ...). Libraries built
 * against tvm-ffi's own headers call these by name; xffi's library (and its
 * libtvm_ffi.so drop-in, docs/tvm-ffi.md) defines them over the same
 * registries and the same thread-local error slot as the xffi_* API, so one
 * process has one runtime.
 *
 * Conventions (tvm-ffi's): a function returning int gives 0 on success and
 * -1 with an error raised (read it with TVMFFIErrorMoveFromRaised or
 * xffi_error_move_raised). Unlike tvm-ffi, which exits the process or
 * crashes on NULL handles, bad indices and wrong types, every entry point
 * here raises an error and returns -1 (functions returning a pointer return
 * NULL, TVMFFIBacktrace an empty text); see each function for the exceptions
 * where tvm-ffi's contract leaves no way to report one.
 *
 * Do not include this header together with tvm-ffi's c_api.h in one
 * translation unit: the declarations use other type names. */
#ifndef XFFI_TVM_FFI_H
#define XFFI_TVM_FFI_H

#include <stdint.h>
#include <xffi/any.h>
#include <xffi/dlpack.h>
#include <xffi/export.h>
#include <xffi/reflection.h>
#include <xffi/sys/function.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* The version tvm-ffi's headers of the pinned release declare. */
#define XFFI_TVM_FFI_VERSION_MAJOR 0
#define XFFI_TVM_FFI_VERSION_MINOR 1
#define XFFI_TVM_FFI_VERSION_PATCH 16

typedef struct xffi_tvm_version {
  uint32_t major;
  uint32_t minor;
  uint32_t patch;
} xffi_tvm_version;

/* Sits immediately before the body of every object the runtime allocates.
 * The object's last (weak) release calls delete_space(body) when it is not
 * NULL; delete_space frees the whole block, prefix included. */
typedef struct xffi_object_alloc_header {
  void (*delete_space)(void *body);
} xffi_object_alloc_header;

/* A process-wide object allocator (tvm-ffi's TVMFFICustomAllocator).
 * allocate returns an uninitialised body of size bytes aligned to alignment
 * whose xffi_object_alloc_header is set, or NULL with an error raised. It may
 * be called from any thread. */
typedef struct xffi_custom_allocator {
  void *(*allocate)(size_t size, size_t alignment, int32_t type_index, void *context);
  void *context;
} xffi_custom_allocator;

/* ---- Version, objects, allocator ---- */

/* Writes the tvm-ffi version served (0.1.16). NULL is ignored. */
XFFI_API void TVMFFIGetVersion(xffi_tvm_version *out);
/* One more strong reference to obj (borrowed); NULL is a ValueError. */
XFFI_API int TVMFFIObjectIncRef(void *obj);
/* Drops one strong reference to obj (stolen); NULL is a no-op (returns 0). */
XFFI_API int TVMFFIObjectDecRef(void *obj);
/* An ffi.OpaquePyObject (type_index must be 74) holding handle; deleter(handle)
 * runs when it dies. *out receives a new reference. */
XFFI_API int TVMFFIObjectCreateOpaque(void *handle, int32_t type_index, void (*deleter)(void *handle), void **out);
/* The allocator in use (borrowed; never NULL: the built-in one until set,
 * which takes its blocks from xffi's allocator, xffi/sys/allocator.h). Every
 * object the runtime allocates comes from it, with the header above. */
XFFI_API xffi_custom_allocator *TVMFFIGetCustomAllocator(void);
/* Makes allocator (borrowed for the rest of the process, not copied) the
 * object allocator; NULL restores the built-in one. */
XFFI_API int TVMFFISetCustomAllocator(xffi_custom_allocator *allocator);
/* The index of a type key; an unknown key is an error. */
XFFI_API int TVMFFITypeKeyToIndex(const xffi_byte_array *type_key, int32_t *out_type_index);

/* ---- Functions, Any, errors ---- */

/* A Function calling safe_call(self, ...), running deleter(self) when it dies;
 * with self and deleter both NULL, safe_call receives the Function itself.
 * *out receives a new reference. */
XFFI_API int TVMFFIFunctionCreate(void *self, xffi_safe_call safe_call, void (*deleter)(void *self), void **out);
/* The global function named name: *out receives a new reference, or NULL when
 * none is registered (not an error). */
XFFI_API int TVMFFIFunctionGetGlobal(const xffi_byte_array *name, void **out);
/* An owned copy of a view: objects get a reference, a raw string becomes a
 * String, a byte array Bytes, and an object rvalue reference is moved out
 * (its slot set to NULL). */
XFFI_API int TVMFFIAnyViewToOwnedAny(const xffi_any *any_view, xffi_any *out);
/* Calls func (borrowed) with args (borrowed); *result must be None on entry
 * and receives an owned value. */
XFFI_API int TVMFFIFunctionCall(void *func, xffi_any *args, int32_t num_args, xffi_any *result);
/* Moves the calling thread's raised error into *result (a new reference, or NULL). */
XFFI_API void TVMFFIErrorMoveFromRaised(void **result);
/* Raises error: the slot takes its own reference (error is borrowed). NULL
 * empties the slot (as in tvm-ffi); a non-Error raises a TypeError instead. */
XFFI_API void TVMFFIErrorSetRaised(void *error);
/* Raises a new error of kind with message and a native backtrace. */
XFFI_API void TVMFFIErrorSetRaisedFromCStr(const char *kind, const char *message);
/* The same with the message concatenated from num_parts parts (NULL parts skipped). */
XFFI_API void TVMFFIErrorSetRaisedFromCStrParts(const char *kind, const char **message_parts, int32_t num_parts);
/* A new Error (*out, new reference) with copies of the texts (backtrace may
 * be NULL: empty). Out of memory returns -1 without raising (the slot is left
 * as it was); bad arguments (NULL kind, message or out) raise a ValueError. */
XFFI_API int TVMFFIErrorCreate(const xffi_byte_array *kind, const xffi_byte_array *message,
                               const xffi_byte_array *backtrace, void **out);
/* The same with a cause (an Error or NULL) and any extra context object (or
 * NULL), both borrowed: the new Error takes its own references. */
XFFI_API int TVMFFIErrorCreateWithCauseAndExtraContext(const xffi_byte_array *kind, const xffi_byte_array *message,
                                                       const xffi_byte_array *backtrace, void *cause_chain,
                                                       void *extra_context, void **out);

/* ---- DLPack ---- */

/* A Tensor from a legacy DLPack tensor. A nonzero require_alignment asks the
 * data (with byte_offset) to be aligned to it; require_contiguous asks for
 * compact strides. On success from is stolen; on failure it stays the caller's. */
XFFI_API int TVMFFITensorFromDLPack(DLManagedTensor *from, int32_t require_alignment, int32_t require_contiguous,
                                    void **out);
/* A DLPack tensor holding a new reference to from (borrowed). */
XFFI_API int TVMFFITensorToDLPack(void *from, DLManagedTensor **out);
/* As TVMFFITensorFromDLPack, for versioned DLPack tensors. */
XFFI_API int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned *from, int32_t require_alignment,
                                             int32_t require_contiguous, void **out);
/* As TVMFFITensorToDLPack, for versioned DLPack tensors. */
XFFI_API int TVMFFITensorToDLPackVersioned(void *from, DLManagedTensorVersioned **out);
/* A Tensor describing prototype's data, shape and strides (copied; compact
 * strides when NULL), keeping a reference to source (borrowed; a Tensor) and
 * freeing no data. The data is not validated; ndim and shape are. *out
 * receives a new reference. */
XFFI_API int TVMFFITensorCreateUnsafeView(void *source, const DLTensor *prototype, void **out);

/* ---- Strings, bytes, big integers, dtypes ---- */

/* A small string or a new ffi.String (owned) in *out. */
XFFI_API int TVMFFIStringFromByteArray(const xffi_byte_array *input, xffi_any *out);
/* Small bytes or a new ffi.Bytes (owned) in *out. */
XFFI_API int TVMFFIBytesFromByteArray(const xffi_byte_array *input, xffi_any *out);
/* An int or a new ffi.BigInt from whole 64-bit two's complement words, least
 * significant first, native byte order (normalised: an int when it fits). */
XFFI_API int TVMFFIBigIntFromByteArray(const xffi_byte_array *input, xffi_any *out);
/* The words of an int or BigInt (borrowed from *value). Anything else
 * gives {NULL, 0} with a TypeError (ValueError for NULL) raised. */
XFFI_API xffi_byte_array TVMFFIBigIntGetContentByteArray(const xffi_any *value);
/* Parses a dtype, with tvm-ffi's aliases (i8, u32, f16, bf16, fp8_e4m3fn, ...). */
XFFI_API int TVMFFIDataTypeFromString(const xffi_byte_array *str, DLDataType *out);
/* The text of a dtype as a string value (owned) in *out. */
XFFI_API int TVMFFIDataTypeToString(const DLDataType *dtype, xffi_any *out);

/* ---- Global functions ---- */

/* Registers f (borrowed; the registry takes a reference) as the global name.
 * An existing name is an error unless allow_override. */
XFFI_API int TVMFFIFunctionSetGlobal(const xffi_byte_array *name, void *f, int allow_override);
/* Registers method_info->method as the global method_info->name, keeping its
 * doc and metadata. */
XFFI_API int TVMFFIFunctionSetGlobalFromMethodInfo(const xffi_method_info *method_info, int allow_override);

/* ---- Type registry and reflection ---- */

/* Adds a field record to type_index (own fields only; texts copied). */
XFFI_API int TVMFFITypeRegisterField(int32_t type_index, const xffi_field_info *info);
/* Adds a method record to type_index. */
XFFI_API int TVMFFITypeRegisterMethod(int32_t type_index, const xffi_method_info *info);
/* Sets the metadata of type_index (once). */
XFFI_API int TVMFFITypeRegisterMetadata(int32_t type_index, const xffi_type_metadata *metadata);
/* Sets attribute attr_name of type_index to *attr_value (copied); type_index
 * 0 (None) only makes sure the column exists. A second value for the same
 * type is a RuntimeError. */
XFFI_API int TVMFFITypeRegisterAttr(int32_t type_index, const xffi_byte_array *attr_name, const xffi_any *attr_value);
/* The column of attr_name (borrowed, immortal), or NULL when no such column
 * exists (no error, as in tvm-ffi); NULL with an error raised for a NULL
 * name. */
XFFI_API const xffi_type_attr_column *TVMFFIGetTypeAttrColumn(const xffi_byte_array *attr_name);
/* A native backtrace of the calling thread as text (borrowed from
 * thread-local storage until the thread's next call), most recent frame
 * first. filename, lineno and func name the frame that asks, when given. */
XFFI_API const xffi_byte_array *TVMFFIBacktrace(const char *filename, int lineno, const char *func,
                                                int cross_ffi_boundary);
/* The index of type_key, registering it under parent_type_index if new:
 * static_type_index >= 0 asks for that index; num_child_slots reserves
 * indices for children; parent_type_index -2 only queries (-2 when unknown).
 * A known key returns its index whatever else is asked (as tvm-ffi).
 * Returns the index, or -1 with an error raised where tvm-ffi exits: NULL or
 * empty key, type_depth not the parent's + 1, num_child_slots outside
 * 0..XFFI_TYPE_MAX_CHILD_SLOTS, an unregistered or non-object parent, a
 * parent with no free child slot that cannot overflow, a taken static index.
 * type_key is borrowed (copied). */
XFFI_API int32_t TVMFFITypeGetOrAllocIndex(const xffi_byte_array *type_key, int32_t static_type_index,
                                           int32_t type_depth, int32_t num_child_slots,
                                           int32_t child_slots_can_overflow, int32_t parent_type_index);
/* The record of type_index (borrowed, immortal), or NULL with an error raised. */
XFFI_API const xffi_type_info *TVMFFIGetTypeInfo(int32_t type_index);

/* ---- Init-once handles ---- */

/* If *handle_addr is NULL, runs init_func(handle_addr's new value) once
 * across threads and stores the result; other callers wait for it. */
XFFI_API int TVMFFIHandleInitOnce(void **handle_addr, int (*init_func)(void **result));
/* If *handle_addr is not NULL, runs deinit_func(*handle_addr) once and sets it to NULL. */
XFFI_API int TVMFFIHandleDeinitOnce(void **handle_addr, int (*deinit_func)(void *handle));

/* ---- Environment: streams, tensor allocation, signals, modules ---- */

/* Sets the calling thread's current stream for a device; the previous one is
 * written to *opt_out_original_stream when that is not NULL. */
XFFI_API int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id, void *stream, void **opt_out_original_stream);
/* The calling thread's current stream for a device (NULL if none). */
XFFI_API void *TVMFFIEnvGetStream(int32_t device_type, int32_t device_id);
/* Sets the DLPack tensor allocator of the calling thread (and the process's
 * when write_to_global_context); the previous one goes to *opt_out_original_allocator. */
XFFI_API int TVMFFIEnvSetDLPackManagedTensorAllocator(DLPackManagedTensorAllocator allocator,
                                                      int write_to_global_context,
                                                      DLPackManagedTensorAllocator *opt_out_original_allocator);
/* The DLPack allocator in force for the calling thread (NULL if none). */
XFFI_API DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void);
/* A Tensor like prototype, allocated by the DLPack allocator in force. */
XFFI_API int TVMFFIEnvTensorAlloc(DLTensor *prototype, void **out);
/* Asks the host environment (Python) whether a signal is pending: -1 with
 * the host's error when one is. */
XFFI_API int TVMFFIEnvCheckSignals(void);
/* Registers a host entry point by name: PyErr_CheckSignals,
 * PyGILState_Ensure, PyGILState_Release. */
XFFI_API int TVMFFIEnvRegisterCAPI(const char *name, void *symbol);
/* Looks func_name up for a library module (library_ctx, borrowed: the
 * value the loader wrote into the library's __tvm_ffi__library_ctx): its
 * imports, depth first, then the global registry. *out is BORROWED: the
 * module caches the Function and keeps it while the module lives.
 * Errors: ValueError for a NULL out, library_ctx or func_name, or an empty
 * name; TypeError if library_ctx is no Module of this runtime; RuntimeError
 * "Cannot find function N in the imported modules or global registry". */
XFFI_API int TVMFFIEnvModLookupFromImports(void *library_ctx, const char *func_name, void **out);
/* Every library loaded from now on that defines a void* variable named name
 * gets it set to symbol (name copied; symbol stored as it is, never
 * dereferenced). Errors: ValueError for a NULL or empty name; MemoryError. */
XFFI_API int TVMFFIEnvModRegisterContextSymbol(const char *name, void *symbol);
/* Adds name -> symbol to the system library's table (name copied; a known
 * name gets the new address). 0 on success, as tvm-ffi always returns;
 * unlike it, -1 with ValueError for a NULL or empty name, MemoryError. */
XFFI_API int TVMFFIEnvModRegisterSystemLibSymbol(const char *name, void *symbol);

XFFI_EXTERN_C_END

#endif /* XFFI_TVM_FFI_H */
