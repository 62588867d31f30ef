/* xffi/function.h: functions as objects, the one calling convention, argument
 * checking for callees, and the process-wide registry of global functions.
 *
 * A Function is an ordinary object (type index XFFI_TYPE_FUNCTION): it can be
 * held in an Any, passed as an argument, returned, stored in containers and
 * shared with another runtime (tvm-ffi 0.1 included) in the same process.
 *
 * The calling convention (the "safe call"):
 *
 *   int call(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result);
 *
 * - args are borrowed views, valid for the duration of the call;
 * - result is owned by the caller, who sets it to None before the call; the
 *   callee stores an owned value in it (or leaves it None);
 * - the return value is 0 on success, non-zero on failure with an Error in
 *   the calling thread's raised slot (xffi/error.h); the caller moves it out
 *   with xffi_error_move_raised, or passes it on (xffi_error_pass).
 *
 * Errors reported by the functions of this header use the message form
 * "<function>: <what is wrong>", e.g.
 *   "xffi_function_call: func expected Function, got String"
 *   "my_add: argument 1: expected int, got str". */
#ifndef XFFI_FUNCTION_H
#define XFFI_FUNCTION_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/any.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/sys/function.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* The safe-call signature, xffi_safe_call, is in xffi/sys/function.h with
 * the Function cell that stores it. */

/* A C implementation of a function: the safe-call signature, but the first
 * argument is the resource handle given at creation instead of the object. */
typedef int (*xffi_function_callback)(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result);

/* Releases a function's resource handle. Called exactly once, when the last
 * strong reference to the function is dropped, on whatever thread drops it. */
typedef void (*xffi_function_finalizer)(void *resource);

/* Makes a Function from a C callback. *out receives a new reference.
 * resource is passed to every call of callback and, when the function dies,
 * to finalizer (which may be NULL: then the resource is not released).
 * Ownership of resource passes to the function only on success: on failure
 * the finalizer is NOT called and the caller still owns resource.
 * Errors: ValueError for a NULL out or callback; MemoryError (*out is NULL). */
XFFI_API int xffi_function_new(xffi_object **out, xffi_function_callback callback, void *resource,
                               xffi_function_finalizer finalizer);

/* Makes a direct Function: its cell calls `call` itself, with the Function
 * object as handle, so a call goes straight to your code (xffi_function_new adds
 * one forwarding step to swap the handle for the resource). Inside call,
 * xffi_function_resource_unchecked(handle) reads the resource in one load. tvm-ffi 0.1
 * callers call it the same way. Made while another tvm-ffi runtime is in the
 * process (docs/plugin-runtime.md), the cell is a step that calls `call` and,
 * when it fails, moves its error to that runtime, whose callers read only
 * their own error slot. *out receives a new reference; resource and
 * finalizer are as for xffi_function_new (ownership passes only on success).
 * Errors: ValueError for a NULL out or call; MemoryError (*out is NULL). */
XFFI_API int xffi_function_new_direct(xffi_object **out, xffi_safe_call call, void *resource,
                                      xffi_function_finalizer finalizer);

/* As xffi_function_new, and the function also keeps owner (borrowed here: a new
 * strong reference is taken; NULL for none) alive while it lives. owner is released
 * after the finalizer ran. Used by modules so that a function taken from a
 * shared library keeps the library loaded.
 * Errors: as xffi_function_new. */
XFFI_API int xffi_function_new_with_owner(xffi_object **out, xffi_function_callback callback, void *resource,
                                          xffi_function_finalizer finalizer, xffi_object *owner);

/* Calls func (borrowed) with num_args borrowed argument views.
 * *result must hold nothing that needs releasing: it is set to None, then
 * receives the callee's owned result (release it with xffi_any_release).
 * Returns XFFI_OK, or XFFI_FAIL with an Error raised and *result None (a
 * value a failing callee left in it is released). The error a failed call
 * reports is always the callee's own (or one raised on its behalf), never
 * one a caller left raised before the call: such an error is released when
 * the call fails (a successful call leaves the slot as it found it). A callee written
 * for tvm-ffi raises into tvm-ffi's slot: when xffi's slot is empty after a
 * failure and tvm-ffi is in the process, its raised error is moved into
 * xffi's slot as it is (the layouts are shared). A callee that fails without
 * raising anything anywhere gets a RuntimeError raised on its behalf.
 * Errors: ValueError for NULL func or result, NULL args with num_args > 0,
 * or num_args < 0; TypeError if func is not a Function; anything the callee
 * raises. */
XFFI_API int xffi_function_call(xffi_object *func, const xffi_any *args, int32_t num_args, xffi_any *result);

/* xffi_function_call with the argument checks and the call inlined: a handful
 * of instructions above a direct call (the checks on num_args and args fold
 * away when num_args is a constant, as in XFFI_CALL). Same contract and
 * errors as xffi_function_call. */
static inline int xffi_function_call_inline(xffi_object *func, const xffi_any *args, int32_t num_args,
                                            xffi_any *result) {
  if (XFFI_LIKELY(func != NULL && func->type_index == XFFI_TYPE_FUNCTION && result != NULL && num_args >= 0 &&
                  (args != NULL || num_args == 0)))
    return xffi_function_call_unchecked(func, args, num_args, result);
  return xffi_function_call(func, args, num_args, result);
}

#ifndef __cplusplus
/* Calls func with the argument values listed (at least one; use
 * xffi_function_call(func, NULL, 0, result) for none), e.g.
 *   XFFI_CALL(add, &result, xffi_any_int(1), xffi_any_int(2))
 * C only (it uses a compound literal). */
#  define XFFI_CALL(func, result, ...)                                 \
    xffi_function_call_inline((func), (const xffi_any[]){__VA_ARGS__}, \
                              (int32_t)(sizeof((const xffi_any[]){__VA_ARGS__}) / sizeof(xffi_any)), (result))
#endif

/* ---- Argument checking for callees ----
 * Each helper reads argument index (0 is the first) of a call's args and
 * raises a TypeError naming fn (the callee's name, for the message), the
 * position, what was expected and what came:
 *   "<fn>: argument <index>: expected int, got str"
 *   "<fn>: argument <index>: missing (called with <num_args> arguments)".
 * Conversions follow xffi/any.h (int accepts bool, float accepts int...).
 * A malformed argument (xffi/any.h) is a ValueError instead:
 *   "<fn>: argument <index> is malformed: <what>".
 * Borrowed everything; nothing is allocated except the error. */

/* The out-of-line forms (exported for other languages' FFIs; the inline
 * forms below call them only on their slow paths). */
XFFI_API int xffi_arg_to_int(int64_t *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn);
XFFI_API int xffi_arg_to_float(double *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn);
XFFI_API int xffi_arg_to_bool(int *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn);
/* *out borrows the characters (see xffi_any_to_str). */
XFFI_API int xffi_arg_to_str(xffi_byte_array *out, const xffi_any *args, int32_t num_args, int32_t index,
                             const char *fn);
XFFI_API int xffi_arg_to_ptr(void **out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn);
/* *out borrows an object that is an instance of type_index (None is refused:
 * a required object argument must be present). */
XFFI_API int xffi_arg_to_object(xffi_object **out, const xffi_any *args, int32_t num_args, int32_t index,
                                int32_t type_index, const char *fn);

/* Inline fast paths of the helpers that matter in hot callees. */
static inline int xffi_arg_to_int_inline(int64_t *out, const xffi_any *args, int32_t num_args, int32_t index,
                                         const char *fn) {
  if (XFFI_LIKELY(args != NULL && index >= 0 && index < num_args && args[index].type_index == XFFI_TYPE_INT)) {
    *out = args[index].v_int64;
    return XFFI_OK;
  }
  return xffi_arg_to_int(out, args, num_args, index, fn);
}
static inline int xffi_arg_to_float_inline(double *out, const xffi_any *args, int32_t num_args, int32_t index,
                                           const char *fn) {
  if (XFFI_LIKELY(args != NULL && index >= 0 && index < num_args && args[index].type_index == XFFI_TYPE_FLOAT)) {
    *out = args[index].v_float64;
    return XFFI_OK;
  }
  return xffi_arg_to_float(out, args, num_args, index, fn);
}

/* Checks a whole call against a signature, one character per argument:
 *   i int, f float, b bool, s str, y bytes, p opaque pointer, o any object,
 *   F Function, * anything.
 * The count must match exactly: "<fn>: expected 2 arguments, got 3".
 * Errors: ValueError for a NULL signature or fn, NULL args with num_args > 0,
 * negative num_args, an unknown signature character, or a malformed argument
 * (xffi/any.h); TypeError for a mismatch. */
XFFI_API int xffi_arg_check_signature(const xffi_any *args, int32_t num_args, const char *signature, const char *fn);

/* ---- The global function registry ----
 * One per process (per loaded libxffi: see docs/plugins.md). A copy of
 * xffi bound to the process's other tvm-ffi runtime (docs/plugin-runtime.md)
 * registers in that runtime's registry too, and its lookups find that
 * registry's functions after its own. Thread-safe.
 * Lookups are lock-free, write no shared memory and allocate nothing (except
 * once per thread, and only beyond the 64th thread using lookups at once).
 * Writers (register, remove) are serialised and wait for lookups in flight
 * to finish before releasing anything, so a function returned by a lookup is
 * never freed under the reader's feet. Names are byte strings; they are
 * copied (borrowed). */

/* Registers func (borrowed: the registry takes its own reference) under
 * name. If the name is taken (a built-in ffi.* function's name included),
 * fails unless allow_override is non-zero, in which case the previous
 * function's registry reference is released (a built-in is only shadowed).
 * Errors: ValueError for a NULL or empty name, NULL func, or a taken name
 * without allow_override; TypeError if func is not a Function; MemoryError. */
XFFI_API int xffi_function_global_register(const char *name, xffi_object *func, int allow_override);

/* The same, keeping copies of doc and metadata (borrowed byte runs; either
 * may be empty: {NULL, 0}) with the function, as xffi_function_global_info
 * and tvm-ffi's ffi.GetGlobalFuncMetadata give them back. metadata is JSON
 * text, for a typed function {"type_schema":"<its schema as a JSON string>"}
 * (docs/reflection.md, "Type schemas"), which tvm-ffi's Python side and stub
 * generator read. Errors: as xffi_function_global_register, and ValueError
 * for doc.data or metadata.data NULL with a size > 0. */
XFFI_API int xffi_function_global_register_with_info(const char *name, xffi_object *func, xffi_byte_array doc,
                                                     xffi_byte_array metadata, int allow_override);

/* Looks name up. *out receives a new reference, or NULL if no function has
 * that name (a missing name is XFFI_OK with *out NULL, not an error).
 * Errors: ValueError for a NULL out or name; MemoryError only on a thread's
 * first lookup beyond 64 concurrent lookup threads. */
XFFI_API int xffi_function_global_lookup(xffi_object **out, const char *name);

/* The same for a name given as a byte run (not necessarily NUL-terminated). */
XFFI_API int xffi_function_global_lookup_bytes(xffi_object **out, xffi_byte_array name);

/* Removes name and releases the registry's reference to its function (after
 * lookups in flight have finished). Functions already handed out stay valid.
 * Removing a built-in ffi.* function hides it from lookups and listings.
 * Errors: ValueError for a NULL or empty name; KeyError if no function has
 * it; MemoryError (hiding a built-in takes a small record). */
XFFI_API int xffi_function_global_erase(const char *name);

/* The doc and the metadata (JSON text) kept for the global function name
 * (a byte run): *out_found says whether a function has that name; if so,
 * *out_doc and *out_metadata (each may be NULL when not wanted) receive
 * owned string values (empty when none was given; release them with
 * xffi_any_release), else they are None. Built-in ffi.* functions have the
 * metadata tvm-ffi gives them (their signature as a type schema) and no doc.
 * Functions registered through TVMFFIFunctionSetGlobalFromMethodInfo
 * (xffi/tvm_ffi.h) keep theirs.
 * Errors: ValueError for a NULL out_found, or NULL name.data with
 * name.size > 0; MemoryError; RuntimeError for a built-in whose signature in
 * xffi's tables is malformed (then both are None). */
XFFI_API int xffi_function_global_info(xffi_any *out_doc, xffi_any *out_metadata, int *out_found, xffi_byte_array name);

/* Lists the registered names: writes min(capacity, total) new String
 * references to out_names[0..] (out_names may be NULL when capacity is 0)
 * and the total number of names to *out_count. Call with capacity 0 to size
 * the buffer; names registered in between may make the total grow. The
 * runtime's built-in ffi.* functions are listed too (after the others),
 * unless removed.
 * Errors: ValueError for a NULL out_count, NULL out_names with
 * capacity > 0, or a negative capacity; MemoryError (nothing is written to
 * out_names then). */
XFFI_API int xffi_function_global_names(xffi_object **out_names, int64_t *out_count, int64_t capacity);

XFFI_EXTERN_C_END

#endif /* XFFI_FUNCTION_H */
