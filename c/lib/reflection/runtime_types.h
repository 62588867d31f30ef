/* c/lib/reflection/runtime_types.h: the methods of the runtime's own reflected types
 * (c/compat/globals/type_runtime.c registers them; each type's file defines them). */
#ifndef XFFI_LIB_REFLECTION_RUNTIME_TYPES_H
#define XFFI_LIB_REFLECTION_RUNTIME_TYPES_H

#include "runtime/internal.h"

/* The runtime's objects whose fields are reflected (c/lib/reflection/access_path.c,
 * c/lib/reflection/enum_state.c): their layouts, so that the field records of
 * c/compat/globals/type_runtime.c take their offsets from the compiler on every target. */
typedef struct access_step {
  xffi_object header;
  int32_t kind; /* ATTR, ARRAY_ITEM, MAP_ITEM, then their _MISSING forms */
  xffi_any key; /* owned */
} access_step;

typedef struct access_path {
  xffi_object header;
  xffi_object *parent; /* owned; NULL for the root */
  xffi_object *step;   /* owned; NULL for the root */
  int32_t depth;       /* steps from the root */
} access_path;

typedef struct enum_state_object {
  xffi_object header;
  xffi_object *entries; /* List[Object], owned */
  xffi_object *indexes; /* Dict[Any, Object], owned */
  xffi_object *attrs;   /* Dict[str, Dict[Object, Any]], owned */
} enum_state_object;

/* ffi.VisitErrorContext (c/lib/walk/visit_error_context.c). */
typedef struct visit_error_context {
  xffi_object header;
  xffi_object *reverse_visit_pattern; /* a List of objects, innermost first; owned */
  xffi_object *prev_error_context;    /* the error's extra_context before this one; owned, or NULL */
} visit_error_context;

typedef struct xffi_runtime_method {
  const char *name;
  xffi_function_head *function; /* static, immortal (XFFI_BUILTIN_FUNCTION) */
  int is_static;                /* 0: the object comes as argument 0 */
  const char *type_schema;      /* the Function's type, JSON (tvm-ffi's) */
} xffi_runtime_method;

/* AccessStep kinds (tvm-ffi's AccessKind). */
enum {
  XFFI_ACCESS_ATTR,
  XFFI_ACCESS_ARRAY_ITEM,
  XFFI_ACCESS_MAP_ITEM,
  XFFI_ACCESS_ATTR_MISSING,
  XFFI_ACCESS_ARRAY_ITEM_MISSING,
  XFFI_ACCESS_MAP_ITEM_MISSING
};

/* *out receives a new AccessPath: the root when parent is NULL (kind and
 * key unused), else parent (borrowed) extended by a step of kind holding a
 * copy of key (borrowed). Errors: MemoryError, RuntimeError when the types
 * are not registered. */
int xffi_access_path_extend(xffi_object **out, xffi_object *parent, int32_t kind, const xffi_any *key) XFFI_INTERNAL;

/* *out receives a new AccessStep of kind holding a copy of key (borrowed).
 * Errors: MemoryError, RuntimeError when the type is not registered. */
int xffi_access_step_new(xffi_object **out, int32_t kind, const xffi_any *key) XFFI_INTERNAL;

/* ffi.EnumState's (c/lib/reflection/enum_state.c): __ffi_init__. */
extern const xffi_runtime_method xffi_enum_state_methods[] XFFI_INTERNAL;
extern const int32_t xffi_enum_state_method_count XFFI_INTERNAL;
/* ffi.reflection.AccessPath's (c/lib/reflection/access_path.c): _root, _extend, _attr, ... */
extern const xffi_runtime_method xffi_access_path_methods[] XFFI_INTERNAL;
extern const int32_t xffi_access_path_method_count XFFI_INTERNAL;

#endif /* XFFI_LIB_REFLECTION_RUNTIME_TYPES_H */
