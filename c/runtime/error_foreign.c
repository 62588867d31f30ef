/* c/runtime/error_foreign.c: errors handed between this runtime and a
 * second tvm-ffi runtime in the process.
 *
 * Two runtimes in one process (the wheel's libtvm_ffi.so beside xffi, each
 * serving its own callers) keep two raised slots. Only then, and only on
 * failure paths, errors are handed across: a function xffi exports that
 * fails moves its error to the other runtime (xffi_error_forward_to_tvm),
 * whose callers read only its slot, and an xffi caller of the other
 * runtime's Function that failed takes the error from there
 * (xffi_error_adopt_tvm_raised). With one runtime both find nothing; whether
 * there is another is probed once (c/runtime/foreign.c), so a failure in a
 * process with one runtime costs no lookup. */
#include <xffi/sys/error.h>
#include <xffi/sys/module.h>

#include "runtime/internal.h"

int xffi_error_adopt_tvm_raised(void) {
  /* A runtime this xffi cannot bind to may lay its errors out otherwise. */
  const xffi_foreign_error_entries *theirs = xffi_foreign_errors();
  if (!theirs || xffi_foreign_runtime_present() == 2 || !theirs->move_from_raised) return 0;
  void *err = NULL;
  theirs->move_from_raised(&err);
  if (!err) return 0;
  xffi_error_set_raised(err); /* steals it; refuses a non-Error */
  return 1;
}

/* Hands err (borrowed) to a runtime this xffi cannot bind to as text: kind
 * and message through TVMFFIErrorSetRaisedFromCStr, whose C strings do not
 * depend on that runtime's object layouts; with no such entry point there,
 * its caller sees the failure status alone. */
static void forward_as_text(const xffi_foreign_error_entries *theirs, xffi_object *err) {
  if (!theirs->set_raised_from_text) return;
  const xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
  /* An Error's kind and message are NUL-terminated (c/runtime/error.c; tvm-ffi's). */
  theirs->set_raised_from_text(cell->kind.data ? cell->kind.data : "RuntimeError",
                               cell->message.data ? cell->message.data : "");
}

int xffi_error_forward_to_tvm(void) {
  const xffi_foreign_error_entries *theirs = xffi_foreign_errors();
  /* One runtime (no other tvm-ffi loaded): the error stays in the one slot.
   * The probe is remembered, so this costs a load, not a dlsym. */
  if (!theirs || !theirs->set_raised) {
    if (!xffi_raised_slot) xffi_error_raise(XFFI_KIND_RUNTIME, "an xffi function failed without raising an error");
    return XFFI_FAIL;
  }
  int bound = xffi_foreign_runtime_present() == 1;
  /* Two runtimes: the caller of an export is the other runtime, which reads
   * its own slot, so the error moves there (nothing stale stays in xffi's). */
  xffi_object *err = xffi_error_move_raised();
  if (!err) {
    /* An error the other runtime already holds (its callee's, passed on) stays. */
    if (bound && xffi_error_adopt_tvm_raised())
      err = xffi_error_move_raised();
    else
      err = (xffi_error_raise(XFFI_KIND_RUNTIME, "an xffi function failed without raising an error"),
             xffi_error_move_raised());
  }
  if (err && !bound)
    forward_as_text(theirs, err);
  else if (err)
    theirs->set_raised(err); /* takes its own reference */
  if (err) xffi_object_dec_ref(err);
  return XFFI_FAIL;
}

int xffi_error_forward_after_direct(int status) {
  if (!xffi_raised_slot) return status; /* raised nowhere here: passed on as it is */
  const xffi_foreign_error_entries *entries = xffi_foreign_errors();
  void *theirs = NULL;
  if (entries && xffi_foreign_runtime_present() == 1 && entries->move_from_raised) entries->move_from_raised(&theirs);
  if (!theirs) return xffi_error_forward_to_tvm();
  /* The code raised there itself: the one here is older, not its error. */
  entries->set_raised(theirs); /* takes its own reference */
  xffi_object_dec_ref((xffi_object *)theirs);
  xffi_object_dec_ref(xffi_error_move_raised());
  return status;
}

int xffi_export_failed_(void) { return xffi_error_forward_to_tvm(); }
