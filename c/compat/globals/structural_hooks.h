/* c/compat/globals/structural_hooks.h: the structural hooks and type flags tvm-ffi's
 * runtime registers on its built-in types (c/compat/globals/structural_hooks.c). */
#ifndef XFFI_STRUCTURAL_HOOKS_H
#define XFFI_STRUCTURAL_HOOKS_H

#include "runtime/internal.h"

/* Registers __s_visit__, __s_mutate__ and __s_maybe_inplace_mutate__ on the
 * built-in containers and leaves, and __ffi_type_final__ on the runtime's
 * types, as the wheel's runtime does. Called once, while the runtime's
 * types are registered (c/compat/globals/type_runtime.c), after them.
 * XFFI_FAIL with the error of xffi_type_register_attr raised. */
int xffi_structural_hooks_register(void) XFFI_INTERNAL;

#endif /* XFFI_STRUCTURAL_HOOKS_H */
