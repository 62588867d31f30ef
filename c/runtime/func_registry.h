/* c/runtime/func_registry.h: the global function registry's entry points for the
 * runtime's own callers (private): the TVMFFI* functions (c/compat/abi/tvm_function.c)
 * and the registry's ffi.* globals (c/compat/globals/globals_registry.c). */
#ifndef XFFI_FUNC_REGISTRY_H
#define XFFI_FUNC_REGISTRY_H

#include "runtime/internal.h"

/* Registers func (borrowed: the registry takes its own reference) under
 * name, keeping copies of doc and metadata (JSON text; either may be empty).
 * A name that is taken (by a registered function or a built-in) raises
 * duplicate_kind unless allow_override: naming fn, with a hint, or, when
 * tvm_suffix is not NULL, in tvm-ffi's exact words ("Global Function `NAME`
 * is already registered" and tvm_suffix), which the ABI's callers compare.
 * The caller has checked
 * that func is a Function and that name, doc and metadata are readable.
 * Errors: ValueError "<fn>: name is empty"; duplicate_kind; MemoryError
 * (nothing changed). */
int xffi_registry_set(xffi_byte_array name, xffi_object *func, xffi_byte_array doc, xffi_byte_array metadata,
                      int allow_override, const char *duplicate_kind, const char *fn,
                      const char *tvm_suffix) XFFI_INTERNAL;

/* Removes name if a function (registered or built-in) has it; *out_removed
 * says whether one did (a missing name is not an error here). The registry's
 * reference is released once lookups in flight are done.
 * Errors: MemoryError (hiding a built-in needs a record; nothing changed). */
int xffi_registry_remove(xffi_byte_array name, int *out_removed) XFFI_INTERNAL;

/* A Function as TVMFFIFunctionCreate makes it (safe_call not NULL): with
 * self and deleter both NULL the cell calls safe_call with the Function
 * itself, otherwise with self, and deleter(self) runs when it dies. *out
 * receives a new reference. For the runtime's own callers, so that they
 * never call an exported TVMFFI* name (which another loaded runtime could
 * interpose). Errors: MemoryError (then self is still the caller's). */
int xffi_function_from_extern_c(xffi_object **out, void *self, xffi_safe_call safe_call,
                                void (*deleter)(void *)) XFFI_INTERNAL;

#endif /* XFFI_FUNC_REGISTRY_H */
