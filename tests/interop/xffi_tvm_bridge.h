/* tests/interop/xffi_tvm_bridge.h: errors between xffi and tvm-ffi in one
 * process (see docs/tvm-ffi.md, "Errors").
 *
 * Values, objects and functions cross between the two runtimes as they are
 * (the layouts are shared). Errors need help: each runtime keeps its own
 * thread-local raised slot, and a caller that sees a failure status reads
 * its own runtime's slot. The rule:
 *
 *   An error is delivered to the slot of the runtime that will read it.
 *
 * - Exported functions that tvm-ffi may load: XFFI_TVM_EXPORT_FUNC is
 *   XFFI_EXPORT_FUNC plus, on failure, a move of the raised error from xffi's
 *   slot to tvm-ffi's (TVMFFIErrorSetRaised, found with dlsym in the process,
 *   so the library needs no link to libtvm_ffi). Without tvm-ffi in the
 *   process the error stays in xffi's slot. The error object is handed over
 *   as it is: its layout is shared and its deleter lives in it.
 * - xffi code calling a function that may come from tvm-ffi needs nothing:
 *   xffi_func_call itself takes a failed callee's error from tvm-ffi's slot
 *   when xffi's is empty (c/tvm_error.c).
 *
 * All of it is inline and costs nothing on the success path; the dlsym runs
 * only when a call fails (a missing tvm-ffi is not cached, since it may be
 * loaded later). Include it in one library or host; it needs -ldl on old
 * glibc. */
#ifndef XFFI_TVM_BRIDGE_H
#define XFFI_TVM_BRIDGE_H

#include <dlfcn.h>
#include <xffi/error.h>
#include <xffi/function.h>
#include <xffi/module.h>

/* tvm-ffi's C API entry points for its raised slot (facts of its C API,
 * checked by test_interop_host under AddressSanitizer): void
 * TVMFFIErrorSetRaised(handle) takes a reference of its own (it does not
 * steal the caller's). */
typedef void (*xffi_tvm_set_raised_fn)(void *error);

static inline void *xffi_tvm_symbol_(const char *name) {
  return dlsym(RTLD_DEFAULT, name);
}

/* Moves the error raised in xffi's slot (if any) into tvm-ffi's slot, if
 * tvm-ffi is in the process. Returns XFFI_FAIL. */
static inline int xffi_tvm_forward_raised(void) {
  union {
    void *p;
    xffi_tvm_set_raised_fn f;
  } sym = {xffi_tvm_symbol_("TVMFFIErrorSetRaised")};
  if (!sym.p) return XFFI_FAIL;
  xffi_object *err = xffi_error_move_raised();
  if (!err)
    err = (xffi_error_raise(XFFI_KIND_RUNTIME, "an xffi function failed without raising an error"),
           xffi_error_move_raised());
  sym.f(err);
  xffi_object_dec_ref(err); /* the slot took its own reference */
  return XFFI_FAIL;
}

/* XFFI_EXPORT_FUNC for a library that either runtime may load: on failure
 * the error goes to tvm-ffi's slot when tvm-ffi is in the process. */
#define XFFI_TVM_EXPORT_FUNC(name, impl)                                                                  \
  static int xffi_tvm_export_##name##_(void *handle, const xffi_any *args, int32_t num_args,            \
                                       xffi_any *result) {                                              \
    int status_ = impl(handle, args, num_args, result);                                                 \
    return XFFI_LIKELY(status_ == 0) ? 0 : xffi_tvm_forward_raised();                                   \
  }                                                                                                     \
  XFFI_EXPORT_FUNC(name, xffi_tvm_export_##name##_)

#endif /* XFFI_TVM_BRIDGE_H */
