/* c/lib/module/module_internal.h: what the module files share (c/lib/module/module.c, the
 * Module objects and their imports; c/lib/module/module_registry.c, the process-wide
 * tables (context symbols, the system library, modules kept alive); c/lib/module/module_bin.c, the import tree
 * a library embeds; c/compat/abi/tvm_module.c and c/compat/globals/globals_module.c, the tvm-ffi entry
 * points and ffi.* globals built on them). */
#ifndef XFFI_MODULE_INTERNAL_H
#define XFFI_MODULE_INTERNAL_H

#include <xffi/module.h>

#include "runtime/internal.h"

/* tvm-ffi's library symbol names (its extra/module.h). */
#define XFFI_LIBRARY_CTX_SYMBOL "__tvm_ffi__library_ctx"
#define XFFI_LIBRARY_BIN_SYMBOL "__tvm_ffi__library_bin"
#define XFFI_METADATA_PREFIX "__tvm_ffi__metadata_"
#define XFFI_DOC_PREFIX "__tvm_ffi__doc_"

/* tvm-ffi's Module property bits (ModulePropertyMask). */
#define XFFI_MODULE_BINARY_SERIALIZABLE 1
#define XFFI_MODULE_RUNNABLE 2

/* Where a library module's symbols come from. */
typedef enum xffi_module_source {
  XFFI_MODULE_DYNAMIC_LIBRARY = 1, /* a shared library opened by the loader */
  XFFI_MODULE_SYSTEM_LIBRARY = 2,  /* the system-library table, under a prefix */
} xffi_module_source;

/* A library symbol's address (the bits of a data or function symbol), or
 * NULL. own_only: only a symbol the library itself defines (for the data
 * symbols the loader writes or reads: never a dependency's variable). */
void *xffi_module_symbol(xffi_object *module, const char *name, int own_only);

/* Whether module (borrowed) is a Module this runtime made (its layout is
 * known); Module objects of other runtimes are refused by every entry. */
int xffi_module_is_own(const xffi_object *module);

/* Whether the module operations below can serve module (borrowed): this
 * runtime's Modules, and with the C++ half linked (c/lib/module/module_cxx.h)
 * every Module (a C++ ModuleObj). */
int xffi_module_is_readable(const xffi_object *module);

/* The C++ half, or NULL when it is not linked (libxffi). */
const struct xffi_module_cxx_half *xffi_module_cxx_half_get(void);

/* Makes a library module over source (XFFI_MODULE_DYNAMIC_LIBRARY: handle is
 * the opened library, which the module closes when it dies, also when this
 * fails; XFFI_MODULE_SYSTEM_LIBRARY: handle is NULL and name the prefix).
 * Then writes the context symbols, reads the embedded import tree and sets
 * __tvm_ffi__library_ctx (the order tvm-ffi follows). *out: new reference to
 * the root module. name is copied. */
int xffi_module_new_library(xffi_object **out, xffi_module_source source, void *handle, const char *name,
                            int32_t abi_version);

/* Builds the module tree a library embeds under __tvm_ffi__library_bin (bin:
 * its address, read as tvm-ffi writes it). lib: the library's own module
 * (borrowed) placed where the tree says "_lib". *out: new reference to the
 * root; *out_lib_used: whether lib appears in the tree. */
int xffi_module_tree_from_bin(xffi_object **out, int *out_lib_used, const unsigned char *bin, xffi_object *lib);

/* ---- c/lib/module/module_registry.c ---- */

/* Adds (name, symbol) to the context symbols (name copied). */
int xffi_context_symbol_register(const char *name, void *symbol);

/* Adds name -> symbol to the system library's table (name copied; a known
 * name gets the new address). */
int xffi_system_lib_register(const char *name, void *symbol);
/* The system library's symbol name, or NULL. */
void *xffi_system_lib_symbol(const char *name);

/* The system-library module for prefix (one per prefix for the process's
 * life): *out a new reference. prefix borrowed, NUL-terminated. */
int xffi_system_lib_module(xffi_object **out, const char *prefix, size_t prefix_len);

/* ModuleGlobalsAdd / ModuleGlobalsRemove: the modules kept alive for the
 * process's life (module borrowed; added once however often). */
int xffi_module_globals_add(xffi_object *module);
int xffi_module_globals_remove(xffi_object *module);

/* ---- c/lib/module/module.c ---- */

/* Looks name up in module's imports (depth first, in import order, each
 * module before its imports), not in module itself: *out receives a new
 * reference to a Function, or NULL when none has it. */
int xffi_module_imports_function(xffi_object **out, xffi_object *module, xffi_byte_array name);

/* tvm-ffi's ModuleObj::GetFunction(name, query_imports) and friends. Each
 * *out is a new reference or NULL (not found: no error). */
int xffi_module_get_function(xffi_object **out, xffi_object *module, xffi_byte_array name, int query_imports);
int xffi_module_get_text(xffi_any *out, xffi_object *module, const char *prefix, xffi_byte_array name,
                         int query_imports);
int xffi_module_implements(int *out, xffi_object *module, xffi_byte_array name, int query_imports);

/* ModuleImportModule: refuses a cycle with RuntimeError. Borrowed both. */
int xffi_module_import(xffi_object *module, xffi_object *other);
int xffi_module_clear_imports(xffi_object *module);
/* The imports of module (borrowed) in import order, as ffi.Module's
 * reflected field imports_ reads them: *out receives a new ffi.Array. */
int xffi_module_imports_array(xffi_object **out, xffi_object *module);

/* TVMFFIEnvModLookupFromImports: *out borrowed from module's cache. */
int xffi_module_lookup_from_imports(xffi_object **out, xffi_object *module, const char *name);

#endif /* XFFI_MODULE_INTERNAL_H */
