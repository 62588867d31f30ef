/* c/compat/globals/builtin_globals.h: the ffi.* global functions the runtime provides.
 *
 * They live in static tables of static, immortal Function objects, so that
 * loading the library runs nothing and allocates nothing; the global
 * function registry (c/runtime/func_registry.c) finds them by name next to the
 * functions registered at run time. Each area keeps its own table in its
 * own file (c/globals_<area>.c); c/compat/globals/globals.c lists the tables. */
#ifndef XFFI_BUILTIN_GLOBALS_H
#define XFFI_BUILTIN_GLOBALS_H

#include "runtime/internal.h"

/* A static Function's reference counts: strong and weak counts far from
 * both zero and XFFI_REF_COUNT_LIMIT, so no balanced use can free it. */
#define XFFI_BUILTIN_REF_COUNTS ((UINT64_C(1) << 32) | (UINT64_C(1) << 30))

/* The deleter of static objects: nothing to free. */
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
  const char *metadata;         /* JSON text, or NULL */
} xffi_builtin_global;

typedef struct xffi_builtin_table {
  const xffi_builtin_global *entries;
  size_t count;
} xffi_builtin_table;

/* One table per area (c/globals_<area>.c). */
extern const xffi_builtin_table xffi_globals_container XFFI_INTERNAL; /* Array, List, Map, Dict, Shape, ... */
extern const xffi_builtin_table xffi_globals_misc XFFI_INTERNAL;      /* String, Bytes, sentinels, ... */
extern const xffi_builtin_table xffi_globals_registry XFFI_INTERNAL;  /* the global registry's own */
extern const xffi_builtin_table xffi_globals_module XFFI_INTERNAL;    /* modules and the system library */
extern const xffi_builtin_table xffi_globals_type XFFI_INTERNAL;      /* the type registry's */
extern const xffi_builtin_table xffi_globals_auto_init XFFI_INTERNAL; /* ffi._RegisterFFIInit (c/lib/reflection/auto_init.c) */
extern const xffi_builtin_table xffi_globals_recursive XFFI_INTERNAL; /* DeepCopy, Recursive{Eq,Lt,Le,Gt,Ge,Hash} */
extern const xffi_builtin_table xffi_globals_structural
    XFFI_INTERNAL; /* Structural{Equal,Hash,Key,KeyEqual}, GetFirstStructuralMismatch */
extern const xffi_builtin_table xffi_globals_repr XFFI_INTERNAL;    /* ffi.ReprPrint (c/compat/globals/globals_repr.c) */
extern const xffi_builtin_table xffi_globals_pyclass XFFI_INTERNAL; /* py_class (c/compat/globals/globals_pyclass.c) */

/* ffi.json.Parse/Stringify and the JSON graph (c/compat/globals/globals_serialization.c). */
extern const xffi_builtin_table xffi_globals_serialization XFFI_INTERNAL;

/* ffi.StructuralWalk/Visit/Map/Mutate, ffi.VisitInterrupt (c/compat/globals/globals_structural_visit.c). */
extern const xffi_builtin_table xffi_globals_structural_visit XFFI_INTERNAL;

/* All tables, in the order names are listed. */
extern const xffi_builtin_table *const xffi_builtin_tables[] XFFI_INTERNAL;
extern const size_t xffi_builtin_table_count XFFI_INTERNAL;

#endif /* XFFI_BUILTIN_GLOBALS_H */
