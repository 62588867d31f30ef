/* c/compat/abi/tvm_function.c: tvm-ffi's C functions for Function objects
 * (xffi/tvm_ffi.h), over xffi's own (c/runtime/function.c); the global
 * registry's are in c/compat/abi/tvm_global.c. Unlike tvm-ffi, every one checks
 * its arguments and raises an error (returning -1) on NULLs and wrong types. */
#include <xffi/function.h>
#include <xffi/tvm_ffi.h>

#include "runtime/check.h"
#include "runtime/func_registry.h" /* xffi_function_from_extern_c */
#include "runtime/internal.h"

int TVMFFIFunctionCreate(void *self, xffi_safe_call safe_call, void (*deleter)(void *self), void **out) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_NOT_NULL(safe_call);
  xffi_object *f = NULL;
  if (xffi_function_from_extern_c(&f, self, safe_call, deleter) != XFFI_OK) return XFFI_FAIL;
  *out = f;
  return XFFI_OK;
}

/* The checks of TVMFFIFunctionCall, out of its path: raises the error for
 * the first bad argument, or, if none is bad, makes the call (so that the
 * fast path may send any call it doubts here). Takes the arguments exactly
 * as TVMFFIFunctionCall does (borrowed), which lets the compiler jump here
 * with no register shuffling. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int
call_checked(void *func, xffi_any *args, int32_t num_args, xffi_any *result) {
  static const char fn[] = "TVMFFIFunctionCall";
  if (!result) return xffi_raise_null_arg(fn, "result");
  if (xffi_check_object_arg(fn, "func", func, XFFI_TYPE_FUNCTION) != XFFI_OK) return XFFI_FAIL;
  if (num_args < 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: num_args is negative (%d)", fn, (int)num_args);
  if (!args && num_args > 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: args is NULL but num_args is %d", fn, (int)num_args);
  xffi_object *f = func;
  return XFFI_OBJECT_CELL(xffi_function_cell, f)->safe_call(f, args, num_args, result);
}

/* Every argument is checked, in the order that costs least on the common
 * path (tvm-ffi's own version checks nothing): a call with no arguments
 * tests num_args once, since args may then be anything; only a call with
 * arguments tests its sign and args. */
int TVMFFIFunctionCall(void *func, xffi_any *args, int32_t num_args, xffi_any *result) {
  xffi_object *f = func;
  if (XFFI_UNLIKELY(!f || f->type_index != XFFI_TYPE_FUNCTION || !result || (num_args != 0 && (num_args < 0 || !args))))
    return call_checked(func, args, num_args, result);
  /* The bare call, as tvm-ffi's: result is not reset, the status and the
   * error (in whichever slot the callee raised it) are the callee's. */
  return XFFI_OBJECT_CELL(xffi_function_cell, f)->safe_call(f, args, num_args, result);
}
