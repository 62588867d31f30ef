/* c/runtime/seeds.h: what the layer above contributes to this runtime
 * (private), and the only names of that layer the runtime uses
 * (scripts/check-house.py lists them as its exceptions to the layer rule).
 *
 * The runtime is complete without the tvm-ffi compatibility layer except
 * for what tvm-ffi's own runtime holds from the start and its clients find
 * by name: the built-in ffi.* global functions, and the reflected types it
 * registers itself (ffi.EnumState, the access paths, the structural
 * visitors, ...) in the order that gives tvm-ffi's dynamic type indices.
 * Both are defined in c/compat/globals/ and reached from here, on first
 * use, rather than registered by a call at load: loading the library runs
 * nothing, and a static link keeps them without a constructor. */
#ifndef XFFI_RUNTIME_SEEDS_H
#define XFFI_RUNTIME_SEEDS_H

#include "runtime/static_object.h"

/* Every table of built-in globals, in the order names are listed
 * (c/compat/globals/globals.c). Static, immortal. */
extern const xffi_builtin_table *const xffi_builtin_tables[] XFFI_INTERNAL;
extern const size_t xffi_builtin_table_count XFFI_INTERNAL;

/* Registers the reflected types tvm-ffi's runtime owns, once per process
 * (c/compat/globals/type_runtime.c); later calls return XFFI_OK at once, as
 * do calls made while it registers (from the registering thread). XFFI_FAIL
 * with an error raised when a registration failed (retried next time). The
 * library asks for it through xffi_type_builtins_ensure (c/runtime/type.c). */
int xffi_type_runtime_ensure(void) XFFI_INTERNAL;

#endif /* XFFI_RUNTIME_SEEDS_H */
