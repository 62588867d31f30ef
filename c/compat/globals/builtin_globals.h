/* c/compat/globals/builtin_globals.h: the ffi.* global functions the runtime provides.
 *
 * They live in static tables of static, immortal Function objects, so that
 * loading the library runs nothing and allocates nothing; the global
 * function registry (c/runtime/func_registry.c) finds them by name next to the
 * functions registered at run time. Each area keeps its own table in its
 * own file (c/compat/globals/globals_<area>.c); c/compat/globals/globals.c
 * lists the tables for the registry (c/runtime/seeds.h). */
#ifndef XFFI_BUILTIN_GLOBALS_H
#define XFFI_BUILTIN_GLOBALS_H

#include "runtime/seeds.h"
#include "runtime/static_object.h"

/* One table per area (c/globals_<area>.c). */
extern const xffi_builtin_table xffi_globals_container XFFI_INTERNAL; /* Array, List, Map, Dict, Shape, ... */
extern const xffi_builtin_table xffi_globals_misc XFFI_INTERNAL;      /* String, Bytes, sentinels, ... */
extern const xffi_builtin_table xffi_globals_registry XFFI_INTERNAL;  /* the global registry's own */
extern const xffi_builtin_table xffi_globals_module XFFI_INTERNAL;    /* modules and the system library */
extern const xffi_builtin_table xffi_globals_type XFFI_INTERNAL;      /* the type registry's */
extern const xffi_builtin_table xffi_globals_auto_init
    XFFI_INTERNAL; /* ffi._RegisterFFIInit (c/lib/reflection/auto_init.c) */
extern const xffi_builtin_table xffi_globals_recursive XFFI_INTERNAL; /* DeepCopy, Recursive{Eq,Lt,Le,Gt,Ge,Hash} */
extern const xffi_builtin_table xffi_globals_structural
    XFFI_INTERNAL; /* Structural{Equal,Hash,Key,KeyEqual}, GetFirstStructuralMismatch */
extern const xffi_builtin_table xffi_globals_repr XFFI_INTERNAL; /* ffi.ReprPrint (c/compat/globals/globals_repr.c) */
extern const xffi_builtin_table xffi_globals_pyclass XFFI_INTERNAL; /* py_class (c/compat/globals/globals_pyclass.c) */

/* ffi.json.Parse/Stringify and the JSON graph (c/compat/globals/globals_serialization.c). */
extern const xffi_builtin_table xffi_globals_serialization XFFI_INTERNAL;

/* ffi.StructuralWalk/Visit/Map/Mutate, ffi.VisitInterrupt (c/compat/globals/globals_structural_visit.c). */
extern const xffi_builtin_table xffi_globals_structural_visit XFFI_INTERNAL;

#endif /* XFFI_BUILTIN_GLOBALS_H */
