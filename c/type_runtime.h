/* c/type_runtime.h: the methods of the runtime's own reflected types
 * (c/type_runtime.c registers them; each type's file defines them). */
#ifndef XFFI_TYPE_RUNTIME_H
#define XFFI_TYPE_RUNTIME_H

#include "internal.h"

typedef struct xffi_runtime_method {
  const char *name;
  xffi_function_head *function; /* static, immortal (XFFI_BUILTIN_FUNCTION) */
  int is_static;                /* 0: the object comes as argument 0 */
  const char *type_schema;      /* the Function's type, JSON (tvm-ffi's) */
} xffi_runtime_method;

/* ffi.EnumState's (c/enum_state.c): __ffi_init__. */
extern const xffi_runtime_method xffi_enum_state_methods[] XFFI_INTERNAL;
extern const int32_t xffi_enum_state_method_count XFFI_INTERNAL;
/* ffi.reflection.AccessPath's (c/access_path.c): _root, _extend, _attr, ... */
extern const xffi_runtime_method xffi_access_path_methods[] XFFI_INTERNAL;
extern const int32_t xffi_access_path_method_count XFFI_INTERNAL;

#endif /* XFFI_TYPE_RUNTIME_H */
