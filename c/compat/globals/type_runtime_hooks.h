/* c/compat/globals/type_runtime_hooks.h: the Function-valued type attributes tvm-ffi's
 * runtime registers on its own reflected types and on ffi.BigInt (private;
 * c/compat/globals/type_runtime_hooks.c says which and what they do). */
#ifndef XFFI_TYPE_RUNTIME_HOOKS_H
#define XFFI_TYPE_RUNTIME_HOOKS_H

#include "lib/reflection/runtime_types.h"

/* ffi.StructuralKey's methods: __ffi_init__(key), a key of key's
 * structural hash (static). */
extern const xffi_runtime_method xffi_structural_key_methods[] XFFI_INTERNAL;
extern const int32_t xffi_structural_key_method_count XFFI_INTERNAL;

/* Registers the attributes, once the runtime's types and their methods are
 * registered (c/compat/globals/type_runtime.c). XFFI_FAIL with an error
 * raised: a type missing, an attribute already registered, MemoryError. */
int xffi_runtime_type_hooks_register(void) XFFI_INTERNAL;

#endif /* XFFI_TYPE_RUNTIME_HOOKS_H */
