/* c/runtime/function.c: Function objects, calls, and argument checking for callees.
 *
 * A Function is one allocation (from the runtime's object allocator, with
 * tvm-ffi's allocation header in front: c/runtime/internal.h): the header, the tvm-ffi-compatible cell
 * { safe_call, cpp_call = NULL }, the resource (public: xffi_function_head),
 * then xffi's private fields. The cell's safe_call receives the object itself
 * as handle (the tvm-ffi convention, so a tvm-ffi runtime can call it too).
 * For a direct function it is the user's code; for a callback function it is
 * a trampoline that forwards to the callback with the resource instead. With
 * another tvm-ffi runtime in the process (c/runtime/foreign.c), both kinds
 * get a trampoline that also hands a failure's error to that runtime. */
#include <stdio.h>
#include <string.h>

#include <xffi/function.h>

#include "runtime/check.h"
#include "runtime/func_registry.h"
#include "runtime/internal.h"

typedef struct func_object {
  xffi_object header;
  xffi_function_cell cell;
  void *resource;
  /* A callback function's callback; for a direct function NULL, or its code
   * when the cell is func_direct_forwarding (the same signature, called
   * with the Function itself). */
  xffi_function_callback callback;
  xffi_function_finalizer finalizer;
  xffi_object *owner; /* strong reference or NULL */
} func_object;

_Static_assert(offsetof(func_object, cell) == 24, "the Function cell follows the 24-byte header");
_Static_assert(offsetof(func_object, resource) == offsetof(xffi_function_head, resource),
               "xffi_function_resource_unchecked reads the resource where func_object keeps it");
_Static_assert(sizeof(xffi_function_cell) == 2 * sizeof(void *), "Function cell: safe_call + cpp_call");
_Static_assert(offsetof(xffi_function_cell, cpp_call) == sizeof(void *), "cpp_call right after safe_call");

/* Forwards a call to the callback with the resource in place of the handle
 * (a tail call). */
static int func_trampoline(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  const func_object *f = handle;
  return f->callback(f->resource, args, num_args, result);
}

/* The trampoline of callback functions made while another tvm-ffi runtime is
 * in the process: that runtime's code calls the cell directly and reads only
 * its own slot, so the error the callback raised here moves there (an xffi
 * caller takes it back: xffi_function_call_failed_). An error left raised
 * from before the call is not the callback's and is dropped; a callback that
 * raised nowhere (or in the other slot) is passed on as it is. Without
 * another runtime the plain trampoline keeps the success path a tail call. */
static int func_trampoline_forwarding(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  const func_object *f = handle;
  uint64_t begun = xffi_raise_clock_now();
  int status = f->callback(f->resource, args, num_args, result);
  if (XFFI_LIKELY(status == 0)) return 0;
  xffi_error_release_raised_before(begun);
  return xffi_raised_slot ? xffi_error_forward_to_tvm() : status;
}

/* The same for direct functions made while another tvm-ffi runtime is in
 * the process: the code gets the Function itself, as its cell would. A
 * direct call is the cheapest there is, so the success path notes no raise
 * clock; on failure, an error the code already moved to the other runtime
 * (Rust closures do) tells an error left here from before
 * (xffi_error_forward_after_direct). */
static int func_direct_forwarding(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  const func_object *f = handle;
  int status = f->callback(handle, args, num_args, result);
  return XFFI_LIKELY(status == 0) ? 0 : xffi_error_forward_after_direct(status);
}

static void func_deleter(void *self, int flags) {
  func_object *f = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    /* Parked while another release runs, so a chain of functions releasing
     * each other (through owner or finalizer) uses bounded stack. A function
     * with neither releases nothing and skips that. */
    int nests = f->finalizer || f->owner;
    if (nests && xffi_release_begin(f, flags, func_deleter)) return;
    /* Finalizer first: it may live in the owner's library. */
    if (f->finalizer) f->finalizer(f->resource);
    f->finalizer = NULL;
    xffi_object *owner = f->owner;
    f->owner = NULL;
    xffi_object_dec_ref_inline(owner);
    if (nests) xffi_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(f);
}

/* Exactly one of direct_call (a direct function: the cell calls it itself)
 * and callback (called through the trampoline) is meant to be set; code_arg
 * names the caller's argument for the error when it is NULL. */
static int func_make(xffi_object **out, xffi_safe_call direct_call, xffi_function_callback callback, void *resource,
                     xffi_function_finalizer finalizer, xffi_object *owner, const char *fn, const char *code_arg) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  if (!callback && !direct_call) return xffi_raise_null_arg(fn, code_arg);
  func_object *f = xffi_runtime_object_alloc(sizeof *f, _Alignof(func_object), XFFI_TYPE_FUNCTION);
  if (!f) return XFFI_FAIL; /* raised */
  xffi_object_init(&f->header, XFFI_TYPE_FUNCTION, func_deleter);
  /* With another runtime, whose callers read only its slot, every kind
   * forwards its error there; without, the cell is the code or a tail call. */
  int forwarding = xffi_foreign_runtime_present() != 0;
  f->cell.safe_call = callback     ? (forwarding ? func_trampoline_forwarding : func_trampoline)
                      : forwarding ? func_direct_forwarding
                                   : direct_call;
  f->cell.cpp_call = NULL;
  f->callback = callback ? callback : forwarding ? direct_call : NULL;
  f->resource = resource;
  f->finalizer = finalizer;
  xffi_object_inc_ref_inline(owner);
  f->owner = owner;
  *out = &f->header;
  return XFFI_OK;
}

int xffi_function_new(xffi_object **out, xffi_function_callback callback, void *resource,
                      xffi_function_finalizer finalizer) {
  return func_make(out, NULL, callback, resource, finalizer, NULL, __func__, "callback");
}

int xffi_function_new_direct(xffi_object **out, xffi_safe_call call, void *resource,
                             xffi_function_finalizer finalizer) {
  return func_make(out, call, NULL, resource, finalizer, NULL, __func__, "call");
}

int xffi_function_new_with_owner(xffi_object **out, xffi_function_callback callback, void *resource,
                                 xffi_function_finalizer finalizer, xffi_object *owner) {
  return func_make(out, NULL, callback, resource, finalizer, owner, __func__, "callback");
}

/* The checked call, the Rust crate's and C++'s calls come through here; C's
 * inline call (xffi_function_call_unchecked) does the same at the call
 * site, reading the clock itself and calling xffi_function_call_failed_since_
 * on failure, so that its success path is one load and the jump into the
 * callee. A failed
 * call must report the callee's own error, never one a caller left raised
 * before the call: so the call notes the raise clock as it begins, and on
 * failure an error that was raised before then is released (its raise is
 * older than the call). The slot is then either the callee's error (or one
 * raised on its behalf) or empty, when the callee raised in tvm-ffi's slot
 * or nowhere (xffi_function_call_failed_). The success path reads one shared
 * word, no thread-local: in a shared library each thread-local access is a
 * call to __tls_get_addr. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int
call_failed(uint64_t begun, int status) {
  xffi_error_release_raised_before(begun);
  return status;
}

int xffi_function_call_raw(xffi_object *func, const xffi_any *args, int32_t num_args, xffi_any *result) {
  uint64_t begun = xffi_raise_clock_now();
  int status = XFFI_OBJECT_CELL(xffi_function_cell, func)->safe_call(func, args, num_args, result);
  if (XFFI_UNLIKELY(status != 0)) return call_failed(begun, status);
  return status;
}

int xffi_function_call_failed_(xffi_any *result, int status) {
  xffi_any_release(result);
  if (!xffi_raised_slot && !xffi_error_adopt_tvm_raised())
    return xffi_error_raise(XFFI_KIND_RUNTIME,
                            "xffi_function_call: the callee returned status %d without raising an error", status);
  return XFFI_FAIL;
}

int xffi_function_call_failed_since_(xffi_any *result, int status, uint64_t begun) {
  xffi_error_release_raised_before(begun);
  return xffi_function_call_failed_(result, status);
}

int xffi_function_call(xffi_object *func, const xffi_any *args, int32_t num_args, xffi_any *result) {
  XFFI_CHECK_ARG_NOT_NULL(result);
  *result = xffi_any_none();
  if (XFFI_UNLIKELY(!func || func->type_index != XFFI_TYPE_FUNCTION) &&
      xffi_check_object_arg(__func__, "func", func, XFFI_TYPE_FUNCTION) != XFFI_OK)
    return XFFI_FAIL;
  if (num_args < 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: num_args is negative (%d)", __func__, (int)num_args);
  if (!args && num_args > 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: args is NULL but num_args is %d", __func__, (int)num_args);
  int status = xffi_function_call_raw(func, args, num_args, result);
  if (status != 0) return xffi_function_call_failed_(result, status);
  return XFFI_OK;
}

/* ---- Argument checking ---- */

/* Checks that argument index exists; raises otherwise. */
static int arg_present(const xffi_any *args, int32_t num_args, int32_t index, const char *fn) {
  if (!fn) fn = "<function>";
  if (num_args < 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: num_args is negative (%d)", fn, (int)num_args);
  if (index < 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: argument index is negative (%d)", fn, (int)index);
  if (index >= num_args)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: argument %d: missing (called with %d argument%s)", fn, (int)index,
                            (int)num_args, num_args == 1 ? "" : "s");
  if (!args) return xffi_error_raise(XFFI_KIND_VALUE, "%s: args is NULL but num_args is %d", fn, (int)num_args);
  return XFFI_OK;
}

/* ValueError for a malformed argument (see xffi_any_is_well_formed). */
static int __attribute__((noinline, cold)) arg_malformed(const xffi_any *arg, int32_t index, const char *fn) {
  char what[32];
  snprintf(what, sizeof(what), "argument %d", (int)index);
  return xffi_any_raise_malformed(fn ? fn : "<function>", what, arg);
}

static inline int arg_check(const xffi_any *arg, int32_t index, const char *fn) {
  return XFFI_LIKELY(xffi_any_is_well_formed(arg)) ? XFFI_OK : arg_malformed(arg, index, fn);
}

/* TypeError for an argument of the wrong kind; ValueError if it is
 * malformed rather than of another kind. */
static int arg_mismatch(const xffi_any *arg, int32_t index, const char *expected, const char *fn) {
  if (!xffi_any_is_well_formed(arg)) return arg_malformed(arg, index, fn);
  if (!fn) fn = "<function>";
  return xffi_error_raise(XFFI_KIND_TYPE, "%s: argument %d: expected %s, got %s", fn, (int)index, expected,
                          xffi_any_kind_name(arg));
}

int xffi_arg_to_int(int64_t *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  if (arg_present(args, num_args, index, fn) != XFFI_OK) return XFFI_FAIL;
  const xffi_any *a = &args[index];
  if (a->type_index == XFFI_TYPE_INT || a->type_index == XFFI_TYPE_BOOL) {
    *out = a->v_int64;
    return XFFI_OK;
  }
  return arg_mismatch(a, index, "int", fn);
}

int xffi_arg_to_float(double *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  if (arg_present(args, num_args, index, fn) != XFFI_OK) return XFFI_FAIL;
  const xffi_any *a = &args[index];
  switch (a->type_index) {
    case XFFI_TYPE_FLOAT: *out = a->v_float64; return XFFI_OK;
    case XFFI_TYPE_INT:
    case XFFI_TYPE_BOOL: *out = (double)a->v_int64; return XFFI_OK;
    default: return arg_mismatch(a, index, "float", fn);
  }
}

int xffi_arg_to_bool(int *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  if (arg_present(args, num_args, index, fn) != XFFI_OK) return XFFI_FAIL;
  const xffi_any *a = &args[index];
  if (a->type_index == XFFI_TYPE_BOOL || a->type_index == XFFI_TYPE_INT) {
    *out = a->v_int64 != 0;
    return XFFI_OK;
  }
  return arg_mismatch(a, index, "bool", fn);
}

static int is_str(const xffi_any *a) {
  return a->type_index == XFFI_TYPE_SMALL_STR || a->type_index == XFFI_TYPE_RAW_STR ||
         a->type_index == XFFI_TYPE_STRING;
}

static int is_bytes(const xffi_any *a) {
  return is_str(a) || a->type_index == XFFI_TYPE_SMALL_BYTES || a->type_index == XFFI_TYPE_BYTE_ARRAY_PTR ||
         a->type_index == XFFI_TYPE_BYTES;
}

int xffi_arg_to_str(xffi_byte_array *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  if (arg_present(args, num_args, index, fn) != XFFI_OK) return XFFI_FAIL;
  const xffi_any *a = &args[index];
  if (!is_str(a)) return arg_mismatch(a, index, "str", fn);
  if (arg_check(a, index, fn) != XFFI_OK) return XFFI_FAIL;
  return xffi_any_to_str(out, a);
}

int xffi_arg_to_ptr(void **out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  if (arg_present(args, num_args, index, fn) != XFFI_OK) return XFFI_FAIL;
  const xffi_any *a = &args[index];
  if (a->type_index == XFFI_TYPE_OPAQUE_PTR || a->type_index == XFFI_TYPE_NONE) {
    *out = a->type_index == XFFI_TYPE_NONE ? NULL : a->v_ptr;
    return XFFI_OK;
  }
  return arg_mismatch(a, index, "void*", fn);
}

/* Whether a holds an object that is an instance of type_index (which must be
 * a registered object type). */
static int arg_is_instance(const xffi_any *a, int32_t type_index) {
  if (!xffi_any_is_object(a) || !a->v_obj) return 0;
#ifdef XFFI_NO_FOREIGN_RUNTIME
  if (a->v_obj->type_index == type_index) return 1;
  /* An object from another runtime may carry an index with no record here. */
  if (a->v_obj->type_index < 0 || a->v_obj->type_index >= xffi_type_count() ||
      !xffi_object_type_info_unchecked(a->v_obj))
    return 0;
#endif
  /* An object from another runtime whose type no runtime here has: 0. */
  return xffi_object_is_a_unchecked(a->v_obj, type_index);
}

int xffi_arg_to_object(xffi_object **out, const xffi_any *args, int32_t num_args, int32_t index, int32_t type_index,
                       const char *fn) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_OBJECT_TYPE(type_index);
  if (arg_present(args, num_args, index, fn) != XFFI_OK) return XFFI_FAIL;
  const xffi_any *a = &args[index];
  if (!arg_is_instance(a, type_index)) return arg_mismatch(a, index, xffi_type_key(type_index), fn);
  *out = a->v_obj;
  return XFFI_OK;
}

int xffi_arg_check_signature(const xffi_any *args, int32_t num_args, const char *signature, const char *fn) {
  XFFI_CHECK_ARG_NOT_NULL(signature);
  XFFI_CHECK_ARG_NOT_NULL(fn);
  if (num_args < 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: num_args is negative (%d)", fn, (int)num_args);
  if (!args && num_args > 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: args is NULL but num_args is %d", fn, (int)num_args);
  size_t expected = strlen(signature);
  for (size_t i = 0; i < expected; ++i) {
    if (!strchr("ifbsypoF*", signature[i]))
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: signature \"%s\": unknown character '%c' at %zu", __func__,
                              signature, signature[i], i);
  }
  if ((size_t)num_args != expected)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: expected %zu argument%s, got %d", fn, expected,
                            expected == 1 ? "" : "s", (int)num_args);
  for (int32_t i = 0; i < num_args; ++i) {
    const xffi_any *a = &args[i];
    if (arg_check(a, i, fn) != XFFI_OK) return XFFI_FAIL;
    int ok;
    const char *what;
    switch (signature[i]) {
      case 'i':
        ok = a->type_index == XFFI_TYPE_INT || a->type_index == XFFI_TYPE_BOOL;
        what = "int";
        break;
      case 'f':
        ok = a->type_index == XFFI_TYPE_FLOAT || a->type_index == XFFI_TYPE_INT || a->type_index == XFFI_TYPE_BOOL;
        what = "float";
        break;
      case 'b':
        ok = a->type_index == XFFI_TYPE_BOOL || a->type_index == XFFI_TYPE_INT;
        what = "bool";
        break;
      case 's':
        ok = is_str(a);
        what = "str";
        break;
      case 'y':
        ok = is_bytes(a);
        what = "bytes";
        break;
      case 'p':
        ok = a->type_index == XFFI_TYPE_OPAQUE_PTR || a->type_index == XFFI_TYPE_NONE;
        what = "void*";
        break;
      case 'o':
        ok = xffi_any_is_object(a);
        what = "ffi.Object";
        break;
      case 'F':
        ok = xffi_any_is_object(a) && a->type_index == XFFI_TYPE_FUNCTION;
        what = "ffi.Function";
        break;
      default: /* '*' */
        ok = 1;
        what = "anything";
        break;
    }
    if (!ok) return arg_mismatch(a, i, what, fn);
  }
  return XFFI_OK;
}

int xffi_function_from_extern_c(xffi_object **out, void *self, xffi_safe_call safe_call, void (*deleter)(void *)) {
  /* Nothing to pass or release: the cell calls safe_call with the Function
   * itself (tvm-ffi's rule). Otherwise safe_call gets self in its place. */
  return !self && !deleter ? xffi_function_new_direct(out, safe_call, NULL, NULL)
                           : xffi_function_new(out, safe_call, self, deleter);
}
