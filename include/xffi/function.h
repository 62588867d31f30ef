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
 *   "xffi_func_call: func expected Function, got String"
 *   "my_add: argument 1: expected int, got str". */
#ifndef XFFI_FUNCTION_H
#define XFFI_FUNCTION_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/any.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* The safe-call signature stored in every Function cell. handle is the
 * Function object itself (as in tvm-ffi 0.1, whose callers pass the object). */
typedef int (*xffi_safe_call)(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result);

/* The cell of a Function object (layout shared with tvm-ffi 0.1):
 * - safe_call: called with the Function object as handle;
 * - cpp_call: always NULL for functions made by xffi (tvm-ffi's C++ code sets
 *   it for its own functions; xffi never calls it). */
typedef struct xffi_function_cell {
  xffi_safe_call safe_call;
  void *cpp_call;
} xffi_function_cell;

/* A C implementation of a function: the safe-call signature, but the first
 * argument is the resource handle given at creation instead of the object. */
typedef int (*xffi_func_callback)(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result);

/* Releases a function's resource handle. Called exactly once, when the last
 * strong reference to the function is dropped, on whatever thread drops it. */
typedef void (*xffi_func_finalizer)(void *resource);

/* Makes a Function from a C callback. *out receives a new reference.
 * resource is passed to every call of callback and, when the function dies,
 * to finalizer (which may be NULL: then the resource is not released).
 * Ownership of resource passes to the function only on success: on failure
 * the finalizer is NOT called and the caller still owns resource.
 * Errors: ValueError for a NULL out or callback; MemoryError (*out is NULL). */
XFFI_API int xffi_func_new(xffi_object **out, xffi_func_callback callback, void *resource,
                           xffi_func_finalizer finalizer);

/* Makes a direct Function: its cell calls `call` itself, with the Function
 * object as handle, so a call goes straight to your code (xffi_func_new adds
 * one forwarding step to swap the handle for the resource). Inside call,
 * xffi_func_resource(handle) reads the resource in one load. tvm-ffi 0.1
 * callers call it the same way. *out receives a new reference; resource and
 * finalizer are as for xffi_func_new (ownership passes only on success).
 * Errors: ValueError for a NULL out or call; MemoryError (*out is NULL). */
XFFI_API int xffi_func_new_direct(xffi_object **out, xffi_safe_call call, void *resource,
                                  xffi_func_finalizer finalizer);

/* The start of every Function made by xffi (xffi_func_new*, including
 * direct ones): header, cell, resource. Part of xffi's ABI, so that a
 * direct call can find its resource without a call; the rest is private. */
typedef struct xffi_function_head {
  xffi_object header;
  xffi_function_cell cell;
  void *resource;
} xffi_function_head;

/* The resource a Function made by xffi was created with (borrowed; the
 * function owns it). Meant for a direct function's call on its own handle;
 * meaningless for functions made by another runtime. */
static inline void *xffi_func_resource(const void *handle) {
  return ((const xffi_function_head *)handle)->resource;
}

/* As xffi_func_new, and the function also keeps owner (borrowed here: a new
 * strong reference is taken; NULL for none) alive while it lives. owner is released
 * after the finalizer ran. Used by modules so that a function taken from a
 * shared library keeps the library loaded.
 * Errors: as xffi_func_new. */
XFFI_API int xffi_func_new_with_owner(xffi_object **out, xffi_func_callback callback, void *resource,
                                      xffi_func_finalizer finalizer, xffi_object *owner);

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
XFFI_API int xffi_func_call(xffi_object *func, const xffi_any *args, int32_t num_args, xffi_any *result);

/* Private to xffi_func_call_inline: the failure path of a call whose callee
 * returned status (non-zero). Releases *result and returns XFFI_FAIL. */
XFFI_API int xffi_func_call_failed_(xffi_any *result, int status);

/* The bare safe call, like tvm-ffi's TVMFFIFunctionCall: calls func's
 * cell with exactly these arguments and returns the callee's status as is.
 * No argument checks. func and args are borrowed; *result must already be
 * None (it is not reset here) and receives the callee's owned value. On
 * failure *result is left as the callee left it and the error stays in
 * whichever slot the callee raised it: xffi_func_call_unchecked adds the
 * reset, the release of *result and the adoption of tvm-ffi's error. Like
 * every call, when the callee fails it releases an error left raised from
 * before the call (see xffi_func_call). */
XFFI_API int xffi_func_call_raw(xffi_object *func, const xffi_any *args, int32_t num_args, xffi_any *result);

/* xffi_func_call without its checks, for a caller that has already made
 * sure of them (a hot loop that checked func once; a typed wrapper whose
 * types guarantee them): func is a live Function, result is not NULL, and
 * args holds num_args >= 0 values. Breaking that is undefined behaviour, not
 * an error. Otherwise the same contract as xffi_func_call, errors raised by
 * the callee included. The cost of a call through a function pointer. */
static inline int xffi_func_call_unchecked(xffi_object *func, const xffi_any *args, int32_t num_args,
                                           xffi_any *result) {
  *result = xffi_any_none();
  int status = xffi_func_call_raw(func, args, num_args, result);
  if (XFFI_UNLIKELY(status != 0)) return xffi_func_call_failed_(result, status);
  return XFFI_OK;
}

/* xffi_func_call with the argument checks and the call inlined: a handful
 * of instructions above a direct call (the checks on num_args and args fold
 * away when num_args is a constant, as in XFFI_CALL). Same contract and
 * errors as xffi_func_call. */
static inline int xffi_func_call_inline(xffi_object *func, const xffi_any *args, int32_t num_args,
                                        xffi_any *result) {
  if (XFFI_LIKELY(func != NULL && func->type_index == XFFI_TYPE_FUNCTION && result != NULL && num_args >= 0 &&
                  (args != NULL || num_args == 0)))
    return xffi_func_call_unchecked(func, args, num_args, result);
  return xffi_func_call(func, args, num_args, result);
}

#ifndef __cplusplus
/* Calls func with the argument values listed (at least one; use
 * xffi_func_call(func, NULL, 0, result) for none), e.g.
 *   XFFI_CALL(add, &result, xffi_any_int(1), xffi_any_int(2))
 * C only (it uses a compound literal). */
#  define XFFI_CALL(func, result, ...)                                                          \
    xffi_func_call_inline((func), (const xffi_any[]){__VA_ARGS__},                              \
                          (int32_t)(sizeof((const xffi_any[]){__VA_ARGS__}) / sizeof(xffi_any)), \
                          (result))
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
XFFI_API int xffi_arg_get_int(int64_t *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn);
XFFI_API int xffi_arg_get_float(double *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn);
XFFI_API int xffi_arg_get_bool(int *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn);
/* *out borrows the characters (see xffi_any_to_str). */
XFFI_API int xffi_arg_get_str(xffi_byte_array *out, const xffi_any *args, int32_t num_args, int32_t index,
                              const char *fn);
XFFI_API int xffi_arg_get_ptr(void **out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn);
/* *out borrows an object that is an instance of type_index (None is refused:
 * a required object argument must be present). */
XFFI_API int xffi_arg_get_object(xffi_object **out, const xffi_any *args, int32_t num_args, int32_t index,
                                 int32_t type_index, const char *fn);

/* Inline fast paths of the helpers that matter in hot callees. */
static inline int xffi_arg_int(int64_t *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn) {
  if (XFFI_LIKELY(args != NULL && index >= 0 && index < num_args && args[index].type_index == XFFI_TYPE_INT)) {
    *out = args[index].v_int64;
    return XFFI_OK;
  }
  return xffi_arg_get_int(out, args, num_args, index, fn);
}
static inline int xffi_arg_float(double *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn) {
  if (XFFI_LIKELY(args != NULL && index >= 0 && index < num_args && args[index].type_index == XFFI_TYPE_FLOAT)) {
    *out = args[index].v_float64;
    return XFFI_OK;
  }
  return xffi_arg_get_float(out, args, num_args, index, fn);
}

/* Checks a whole call against a signature, one character per argument:
 *   i int, f float, b bool, s str, y bytes, p opaque pointer, o any object,
 *   F Function, * anything.
 * The count must match exactly: "<fn>: expected 2 arguments, got 3".
 * Errors: ValueError for a NULL signature or fn, NULL args with num_args > 0,
 * negative num_args, an unknown signature character, or a malformed argument
 * (xffi/any.h); TypeError for a mismatch. */
XFFI_API int xffi_args_check(const xffi_any *args, int32_t num_args, const char *signature, const char *fn);

/* ---- The global function registry ----
 * One per process (per loaded libxffi: see docs/plugins.md). Thread-safe.
 * Lookups are lock-free, write no shared memory and allocate nothing (except
 * once per thread, and only beyond the 64th thread using lookups at once).
 * Writers (register, remove) are serialised and wait for lookups in flight
 * to finish before releasing anything, so a function returned by a lookup is
 * never freed under the reader's feet. Names are byte strings; they are
 * copied (borrowed). */

/* Registers func (borrowed: the registry takes its own reference) under
 * name. If the name is taken, fails unless allow_override is non-zero, in
 * which case the previous function's registry reference is released.
 * Errors: ValueError for a NULL or empty name, NULL func, or a taken name
 * without allow_override; TypeError if func is not a Function; MemoryError. */
XFFI_API int xffi_func_global_register(const char *name, xffi_object *func, int allow_override);

/* Looks name up. *out receives a new reference, or NULL if no function has
 * that name (a missing name is XFFI_OK with *out NULL, not an error).
 * Errors: ValueError for a NULL out or name; MemoryError only on a thread's
 * first lookup beyond 64 concurrent lookup threads. */
XFFI_API int xffi_func_global_get(xffi_object **out, const char *name);

/* The same for a name given as a byte run (not necessarily NUL-terminated). */
XFFI_API int xffi_func_global_get_bytes(xffi_object **out, xffi_byte_array name);

/* Removes name and releases the registry's reference to its function (after
 * lookups in flight have finished). Functions already handed out stay valid.
 * Errors: ValueError for a NULL or empty name; KeyError if no function has it. */
XFFI_API int xffi_func_global_remove(const char *name);

/* Lists the registered names: writes min(capacity, total) new String
 * references to out_names[0..] (out_names may be NULL when capacity is 0)
 * and the total number of names to *out_count. Call with capacity 0 to size
 * the buffer; names registered in between may make the total grow.
 * Errors: ValueError for a NULL out_count, or NULL out_names with
 * capacity > 0; MemoryError (nothing is written to out_names then). */
XFFI_API int xffi_func_global_list(xffi_object **out_names, size_t capacity, size_t *out_count);

XFFI_EXTERN_C_END

#endif /* XFFI_FUNCTION_H */
