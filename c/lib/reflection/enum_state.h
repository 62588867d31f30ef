/* c/lib/reflection/enum_state.h: ffi.EnumState objects (c/lib/reflection/enum_state.c). */
#ifndef XFFI_ENUM_STATE_H
#define XFFI_ENUM_STATE_H

#include "runtime/internal.h"

/* *out receives a new reference to an empty EnumState (an empty List of
 * entries, empty Dicts of indexes and attrs). On failure *out is NULL,
 * nothing is leaked and an error is raised (MemoryError, or RuntimeError
 * if the type cannot be registered). */
int xffi_enum_state_new(xffi_object **out) XFFI_INTERNAL;

#endif /* XFFI_ENUM_STATE_H */
