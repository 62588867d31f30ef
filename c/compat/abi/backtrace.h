/* c/compat/abi/backtrace.h: the native stack as tvm-ffi's backtrace text
 * (private; c/compat/abi/backtrace.c). */
#ifndef XFFI_COMPAT_ABI_BACKTRACE_H
#define XFFI_COMPAT_ABI_BACKTRACE_H

#include "runtime/internal.h"

/* The calling thread's native stack as tvm-ffi's backtrace text (borrowed, valid until the thread's next capture).
 * first_kept is the return address into the runtime's caller: frames before it are the runtime's own and are left out
 * (NULL keeps all). filename, lineno and func, when filename and func are given, replace the caller's frame. Unless
 * cross_ffi_boundary, it stops at the FFI call or the Python interpreter. */
const xffi_byte_array *xffi_backtrace_capture(void *first_kept, const char *filename, int lineno, const char *func,
                                              int cross_ffi_boundary);

#endif /* XFFI_COMPAT_ABI_BACKTRACE_H */
