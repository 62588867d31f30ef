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
 * - xffi code calling a function that may come from tvm-ffi (a tvm-ffi
 *   Function object, or a function exported by a tvm-ffi library):
 *   xffi_tvm_call. On failure with nothing in xffi's slot, it adopts the
 *   error from tvm-ffi's slot (TVMFFIErrorMoveFromRaised), again as it is.
 *   xffi_tvm_function_wrap makes a Function that does this on every call,
 *   for handing such a function to xffi code that calls xffi_func_call.
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
 * steal the caller's); void TVMFFIErrorMoveFromRaised(handle *out) moves the
 * slot's reference out, NULL if none. */
typedef void (*xffi_tvm_set_raised_fn)(void *error);
typedef void (*xffi_tvm_move_raised_fn)(void **out);

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

/* If xffi's slot is empty, moves tvm-ffi's raised error (if tvm-ffi is in
 * the process and raised one) into it. Returns XFFI_FAIL. */
static inline int xffi_tvm_adopt_raised(void) {
  if (xffi_error_peek_raised()) return XFFI_FAIL;
  union {
    void *p;
    xffi_tvm_move_raised_fn f;
  } sym = {xffi_tvm_symbol_("TVMFFIErrorMoveFromRaised")};
  void *err = NULL;
  if (sym.p) sym.f(&err);
  if (err) {
    xffi_error_set_raised((xffi_object *)err);
    return XFFI_FAIL;
  }
  return xffi_error_raise(XFFI_KIND_RUNTIME, "xffi_tvm_call: the callee failed without raising an error");
}

/* Calls func (borrowed, made by either runtime) like xffi_func_call, and on
 * failure makes sure the error is in xffi's slot. */
static inline int xffi_tvm_call(xffi_object *func, const xffi_any *args, int32_t num_args, xffi_any *result) {
  if (!func || func->type_index != XFFI_TYPE_FUNCTION || !result || num_args < 0 || (!args && num_args > 0))
    return xffi_func_call(func, args, num_args, result); /* raises the argument error */
  *result = xffi_any_none();
  int status = XFFI_OBJECT_CELL(xffi_function_cell, func)->safe_call(func, args, num_args, result);
  if (XFFI_LIKELY(status == 0)) return XFFI_OK;
  xffi_any_release(result);
  return xffi_tvm_adopt_raised();
}

static inline int xffi_tvm_wrapped_call_(void *inner, const xffi_any *args, int32_t num_args, xffi_any *result) {
  return xffi_tvm_call((xffi_object *)inner, args, num_args, result);
}

static inline void xffi_tvm_wrapped_release_(void *inner) {
  xffi_object_dec_ref((xffi_object *)inner);
}

/* A Function that calls func (borrowed; the wrapper keeps a reference) with
 * xffi_tvm_call, so that callers using xffi_func_call get tvm-ffi's errors.
 * *out receives a new reference. Errors: as xffi_func_new; TypeError if func
 * is not a Function. */
static inline int xffi_tvm_function_wrap(xffi_object **out, xffi_object *func) {
  if (!func || func->type_index != XFFI_TYPE_FUNCTION) {
    if (out) *out = NULL;
    return xffi_error_raise(XFFI_KIND_TYPE, "xffi_tvm_function_wrap: func expected Function, got %s",
                            func ? "another object" : "NULL");
  }
  xffi_object_inc_ref(func);
  if (xffi_func_new(out, xffi_tvm_wrapped_call_, func, xffi_tvm_wrapped_release_) != XFFI_OK) {
    xffi_object_dec_ref(func);
    return XFFI_FAIL;
  }
  return XFFI_OK;
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
