/* The reference for tests/dropin/load_allocs.c: a shared library of the
 * drop-in's shape for the dynamic loader (libc only, thread-local storage
 * of its own, one exported function) that does nothing when it loads. */
#include <xffi/export.h>

static _Thread_local int xffi_reference_slot;

XFFI_API int xffi_reference_touch(void);

int xffi_reference_touch(void) { return ++xffi_reference_slot; }
