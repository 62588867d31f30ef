/* c/runtime/builtin_index.h: finding the runtime's built-in ffi.* global functions
 * (the static tables of c/compat/globals/builtin_globals.h) by name (private).
 *
 * The index is a static open-addressing array over the tables' records,
 * filled on the first search: loading the library runs and allocates
 * nothing, and no search ever allocates. Built-in names are chosen by the
 * runtime, not by callers, so the index needs no protection from flooding;
 * it reuses the keyed hash the registry computes anyway. */
#ifndef XFFI_BUILTIN_INDEX_H
#define XFFI_BUILTIN_INDEX_H

#include "runtime/static_object.h"

/* The built-in global named name (len bytes), whose keyed name hash
 * (xffi_keyed_hash_bytes) is hash, or NULL. The record is static (borrowed,
 * immortal). Lock-free; safe from any thread. */
const xffi_builtin_global *xffi_builtin_find(const char *name, size_t len, uint64_t hash) XFFI_INTERNAL;

/* How many built-in globals there are, and the i-th of them (i < count), in
 * the order of xffi_builtin_tables. Static records (borrowed). */
size_t xffi_builtin_count(void) XFFI_INTERNAL;
const xffi_builtin_global *xffi_builtin_at(size_t i) XFFI_INTERNAL;

#endif /* XFFI_BUILTIN_INDEX_H */
