/* c/runtime/global_args.h: argument checks shared by the runtime's built-in ffi.*
 * global functions (c/globals_*.c), private.
 *
 * A built-in is called through the bare safe call, so anything may come:
 * NULL args or result, a negative count, malformed values. Each check raises
 * an error naming the global ("ffi.ListInsert: ...") and returns XFFI_FAIL;
 * nothing is changed or allocated before the checks pass. */
#ifndef XFFI_RUNTIME_GLOBAL_ARGS_H
#define XFFI_RUNTIME_GLOBAL_ARGS_H

#include "runtime/internal.h"

/* Any number of arguments (for the variadic constructors). */
#define XFFI_GLOBAL_ANY_COUNT (-1)

/* Checks a call of the global fn: result not NULL, num_args not negative,
 * args not NULL when num_args > 0, exactly `expected` arguments (unless
 * XFFI_GLOBAL_ANY_COUNT), and every argument well formed (xffi/any.h).
 * args and result are borrowed. Errors: ValueError for NULLs, a negative
 * count or a malformed argument; TypeError for a wrong count
 * ("ffi.ArraySize: expected 1 argument, got 2"). */
int xffi_global_check_call(const char *fn, const xffi_any *args, int32_t num_args, int32_t expected,
                           const xffi_any *result);

/* *out borrows argument index, which must be an object of exactly
 * type_index (a built-in container type, which has no subtypes): the common
 * case inline, anything else through xffi_arg_to_object's checks and
 * messages ("<fn>: argument 0: expected ffi.List, got int"). Call after
 * xffi_global_check_call (the argument is well formed). */
static inline int xffi_global_object_arg(xffi_object **out, const xffi_any *args, int32_t num_args, int32_t index,
                                         int32_t type_index, const char *fn) {
  if (XFFI_LIKELY(index < num_args && args[index].type_index == type_index)) {
    *out = args[index].v_obj;
    return XFFI_OK;
  }
  return xffi_arg_to_object(out, args, num_args, index, type_index, fn);
}

/* Raises IndexError "<fn>: index <index> out of range for a <kind> of size
 * <size>" and returns XFFI_FAIL. */
int xffi_global_raise_index(const char *fn, int64_t index, const char *kind, int64_t size);

/* Raises KeyError "<fn>: key <key> not found" (key borrowed, described by
 * value for ints, bools and short strings, by kind otherwise) and returns
 * XFFI_FAIL. */
int xffi_global_raise_missing_key(const char *fn, const xffi_any *key);

#endif /* XFFI_RUNTIME_GLOBAL_ARGS_H */
