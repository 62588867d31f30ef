/* xffi/sys/function.h: the Function cell and the unchecked call (extension tier).
 *
 * The layout behind a Function object (shared with tvm-ffi 0.1), the start
 * of every Function xffi makes, and the call without checks for hot loops.
 * xffi/function.h includes it: its inline call and the safe-call signature
 * come from here. */
#ifndef XFFI_SYS_FUNCTION_H
#define XFFI_SYS_FUNCTION_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/any.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/sys/object.h>

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

/* The start of every Function made by xffi (xffi_function_new*, including
 * direct ones): header, cell, resource. Part of xffi's ABI, so that a
 * direct call can find its resource without a call; the rest is private. */
typedef struct xffi_function_head {
  xffi_object header;
  xffi_function_cell cell;
  void *resource;
} xffi_function_head;

/* The resource a Function made by xffi was created with (borrowed; the
 * function owns it). Unchecked: handle must be a live Function made by xffi
 * (meant for a direct function's call on its own handle); for functions made
 * by another runtime the result is meaningless. */
static inline void *xffi_function_resource_unchecked(const void *handle) {
  return ((const xffi_function_head *)handle)->resource;
}

/* Private to xffi_function_call_unchecked (trailing underscore: never call
 * it): the failure path of a call whose callee returned status (non-zero).
 * Releases *result and returns XFFI_FAIL. */
XFFI_API int xffi_function_call_failed_(xffi_any *result, int status);

/* The bare safe call, like tvm-ffi's TVMFFIFunctionCall: calls func's
 * cell with exactly these arguments and returns the callee's status as is.
 * No argument checks. func and args are borrowed; *result must already be
 * None (it is not reset here) and receives the callee's owned value. On
 * failure *result is left as the callee left it and the error stays in
 * whichever slot the callee raised it: xffi_function_call_unchecked adds the
 * reset, the release of *result and the adoption of tvm-ffi's error. Like
 * every call, when the callee fails it releases an error left raised from
 * before the call (see xffi_function_call). */
XFFI_API int xffi_function_call_raw(xffi_object *func, const xffi_any *args, int32_t num_args, xffi_any *result);

#if !defined(__cplusplus) && !defined(__STDC_NO_ATOMICS__)
/* The raise clock (read it, never write it): one process-wide count, ticked
 * each time an error is raised, whose tick the raised slot remembers. A call
 * reads it as it begins; if the call fails, an error raised at or before
 * that tick is older than the call (a caller ignored an earlier failure) and
 * is released, so a failed call reports its callee's error, never a stale
 * one. Reading it is one load, which lets the inline call below jump
 * straight into the callee. Declared for C11 with atomics only; C++ and
 * compilers without them call through xffi_function_call_raw, which reads
 * it inside the library. */
XFFI_API extern _Atomic uint64_t xffi_raise_clock;

/* Private to xffi_function_call_unchecked: xffi_function_call_failed_ for a
 * call that read the raise clock (begun) as it began; first releases an
 * error raised at or before begun (see xffi_raise_clock). */
XFFI_API int xffi_function_call_failed_since_(xffi_any *result, int status, uint64_t begun);
#endif

/* xffi_function_call without its checks, for a caller that has already made
 * sure of them (a hot loop that checked func once; a typed wrapper whose
 * types guarantee them): func is a live Function, result is not NULL, and
 * args holds num_args >= 0 values. Breaking that is undefined behaviour, not
 * an error. Otherwise the same contract as xffi_function_call, errors raised by
 * the callee included. The cost of a call through a function pointer and, in
 * C, one load of the raise clock. */
static inline int xffi_function_call_unchecked(xffi_object *func, const xffi_any *args, int32_t num_args,
                                               xffi_any *result) {
  *result = xffi_any_none();
#if !defined(__cplusplus) && !defined(__STDC_NO_ATOMICS__)
  uint64_t begun = xffi_raise_clock; /* reading an _Atomic object is an atomic load */
  int status = XFFI_OBJECT_CELL(xffi_function_cell, func)->safe_call(func, args, num_args, result);
  if (XFFI_UNLIKELY(status != 0)) return xffi_function_call_failed_since_(result, status, begun);
#else
  int status = xffi_function_call_raw(func, args, num_args, result);
  if (XFFI_UNLIKELY(status != 0)) return xffi_function_call_failed_(result, status);
#endif
  return XFFI_OK;
}

XFFI_EXTERN_C_END

#endif /* XFFI_SYS_FUNCTION_H */
