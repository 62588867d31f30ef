/* c/runtime/static_object.h: static, immortal objects (private): the
 * reference counts and deleter they carry, static Function objects, and the
 * format of the tables of built-in global functions that the registry
 * (c/runtime/func_registry.c, c/runtime/builtin_index.c) searches. Static
 * objects let loading the library run and allocate nothing. */
#ifndef XFFI_RUNTIME_STATIC_OBJECT_H
#define XFFI_RUNTIME_STATIC_OBJECT_H

#include "runtime/internal.h"

/* A static Function's reference counts: strong and weak counts far from
 * both zero and XFFI_REF_COUNT_LIMIT, so no balanced use can free it. */
#define XFFI_BUILTIN_REF_COUNTS ((UINT64_C(1) << 32) | (UINT64_C(1) << 30))

/* The deleter of static objects: nothing to free (c/runtime/object.c). */
void xffi_builtin_object_deleter(void *self, int flags);

/* Defines a static Function object var that calls safe_call with itself as
 * handle (a safe_call of signature xffi_safe_call). */
#define XFFI_BUILTIN_FUNCTION(var, safe_call)                                \
  static xffi_function_head var = {{.ref_counts = XFFI_BUILTIN_REF_COUNTS,   \
                                    .type_index = XFFI_TYPE_FUNCTION,        \
                                    .reserved = 0,                           \
                                    .deleter = xffi_builtin_object_deleter}, \
                                   {(safe_call), NULL},                      \
                                   NULL}

typedef struct xffi_builtin_global {
  const char *name;             /* the full name, e.g. "ffi.ArraySize" */
  xffi_function_head *function; /* a static Function (XFFI_BUILTIN_FUNCTION) */
  const char *signature;        /* compact, c/runtime/function_signature.h; or NULL */
} xffi_builtin_global;

typedef struct xffi_builtin_table {
  const xffi_builtin_global *entries;
  size_t count;
} xffi_builtin_table;

/* The MISSING sentinel that ffi.GetInvalidObject returns and the
 * *GetItemOrMissing globals return for an absent key: a static, immortal
 * object of type ffi.Object (c/runtime/object.c; borrowed: take a reference
 * to hand it out). */
extern xffi_object xffi_missing_object XFFI_INTERNAL;
/* The KWARGS sentinel that ffi.GetKwargsObject returns: keyword arguments
 * follow it as name/value pairs (c/runtime/object.c; borrowed, immortal). */
extern xffi_object xffi_kwargs_object XFFI_INTERNAL;

#endif /* XFFI_RUNTIME_STATIC_OBJECT_H */
