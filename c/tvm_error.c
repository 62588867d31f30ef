/* c/tvm_error.c: errors crossing between xffi and tvm-ffi code.
 *
 * Each runtime keeps its own thread-local raised slot, and a caller that sees
 * a failure reads its own. The Error layout is shared, so an error moves from
 * one slot to the other as it is.
 * - Adopting: a callee written for tvm-ffi fails with its error in tvm-ffi's
 *   slot and xffi's stays empty; the xffi caller takes it from there.
 * - Forwarding: an xffi callee that tvm-ffi code may call (every exported
 *   function) moves its error into tvm-ffi's slot when tvm-ffi is present;
 *   an xffi caller of it adopts it back.
 * Both run only on the failure path and allocate nothing (but the
 * RuntimeError made for a failure that raised no error at all); without
 * tvm-ffi in the process they find nothing. */
#include <xffi/module.h>

#include "internal.h"
#include "platform.h"

/* tvm-ffi's C API, looked up at run time. TVMFFIErrorMoveFromRaised moves
 * the raised error out of tvm-ffi's slot into *out (a new reference, NULL if
 * none). */
typedef void (*tvm_move_raised_fn)(void **out);
/* TVMFFIErrorSetRaised puts error in tvm-ffi's slot, taking a reference of
 * its own: error stays borrowed, and the caller releases its reference. */
typedef void (*tvm_set_raised_fn)(void *error);

/* name in tvm-ffi, if tvm-ffi is loaded in the process (never loads it). */
static void *tvm_symbol(const char *name) { return xffi_loaded_symbol("tvm_ffi", name); }

int xffi_error_adopt_tvm_raised(void) {
  union {
    void *p;
    tvm_move_raised_fn f;
  } move = {tvm_symbol("TVMFFIErrorMoveFromRaised")};
  if (!move.p) return 0;
  void *err = NULL;
  move.f(&err);
  if (!err) return 0;
  xffi_error_set_raised((xffi_object *)err); /* steals it; refuses a non-Error */
  return 1;
}

int xffi_error_forward_to_tvm(void) {
  union {
    void *p;
    tvm_set_raised_fn f;
  } set = {tvm_symbol("TVMFFIErrorSetRaised")};
  if (!set.p) return XFFI_FAIL;
  xffi_object *err = xffi_error_move_raised();
  if (!err) {
    /* An error tvm-ffi already holds (a tvm-ffi callee's, passed on) stays. */
    if (xffi_error_adopt_tvm_raised())
      err = xffi_error_move_raised();
    else
      err = (xffi_error_raise(XFFI_KIND_RUNTIME, "an xffi function failed without raising an error"),
             xffi_error_move_raised());
  }
  if (err) {
    set.f(err);
    xffi_object_dec_ref(err);
  }
  return XFFI_FAIL;
}

int xffi_export_failed_(void) { return xffi_error_forward_to_tvm(); }
