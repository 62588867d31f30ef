/* c/tvm_error.c: errors raised by tvm-ffi code that xffi code called.
 *
 * Each runtime keeps its own thread-local raised slot. A callee written for
 * tvm-ffi (a tvm-ffi Function, or a function exported by a tvm-ffi library)
 * fails with its error in tvm-ffi's slot, and xffi's stays empty. When an xffi
 * caller sees that, it takes the error from tvm-ffi's slot: the Error layout is
 * shared, so the object is adopted as it is. This runs only on the failure
 * path and allocates nothing; without tvm-ffi in the process it finds nothing. */
#define _GNU_SOURCE /* RTLD_NOLOAD, RTLD_DEFAULT */
#include <dlfcn.h>

#include "internal.h"

/* tvm-ffi's C API: moves the raised error out of its slot (NULL if none). */
typedef void (*tvm_move_raised_fn)(void **out);

static void *tvm_symbol(const char *name) {
  void *sym = dlsym(RTLD_DEFAULT, name);
  if (sym) return sym;
  /* tvm-ffi loaded as a dependency of a library opened with RTLD_LOCAL is not
   * in the global scope; find it by name if (and only if) it is loaded. */
  void *lib = dlopen("libtvm_ffi.so", RTLD_LAZY | RTLD_NOLOAD);
  if (!lib) return NULL;
  sym = dlsym(lib, name);
  dlclose(lib); /* drops the reference RTLD_NOLOAD took; the library stays */
  return sym;
}

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
