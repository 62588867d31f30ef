/* c/reflection_construct.h: the generated constructor of c/auto_init.c, for
 * xffi_object_construct (c/reflection_construct.c) to call on a type that
 * has no "__ffi_init__" attribute. */
#ifndef XFFI_REFLECTION_CONSTRUCT_H
#define XFFI_REFLECTION_CONSTRUCT_H

#include "internal.h"

/* Runs the constructor ffi._RegisterFFIInit would store for type_index
 * (creator or __ffi_new__, then fields bound from args, borrowed, and
 * defaults) without registering it: *result receives a new reference to the
 * object. Errors: those of __ffi_init__ (TypeError for a missing, unknown or
 * mistyped argument; RuntimeError for a type that cannot be made empty). */
int xffi_auto_init_call(int32_t type_index, const xffi_any *args, int32_t num_args, xffi_any *result) XFFI_INTERNAL;

#endif /* XFFI_REFLECTION_CONSTRUCT_H */
