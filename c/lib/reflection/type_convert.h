/* c/lib/reflection/type_convert.h: the "__ffi_convert__" type attributes of
 * the built-in object types (private; c/lib/reflection/type_convert.c). */
#ifndef XFFI_LIB_REFLECTION_TYPE_CONVERT_H
#define XFFI_LIB_REFLECTION_TYPE_CONVERT_H

#include "runtime/internal.h"

/* Registers the built-in object types' "__ffi_convert__" attributes; part of
 * registering tvm-ffi's runtime-owned types (c/compat/globals/type_runtime.c).
 * XFFI_FAIL with an error raised when memory runs out (a retry adds only what
 * is missing). */
int xffi_type_register_builtin_converters(void) XFFI_INTERNAL;

#endif /* XFFI_LIB_REFLECTION_TYPE_CONVERT_H */
