/* xffi/module.h: Module objects (shared libraries) and the macro that exports
 * a function from a library.
 *
 * A library exports function NAME as the symbol `__tvm_ffi_NAME` with the
 * safe-call signature (xffi/function.h) and a NULL handle: the convention of
 * tvm-ffi 0.1, so the same library can be loaded by either runtime.
 *
 * ABI marker: a library meant for xffi_module_load writes
 * XFFI_DEFINE_ABI_MARKER(); once, at file scope in one of its files. It
 * defines the exported constant `xffi_library_abi_version` holding the
 * XFFI_ABI_VERSION the library was compiled against; the loader compares it
 * with the running library's and refuses a mismatch. A library without the
 * marker (a pure tvm-ffi library, say) is accepted. Including this header
 * defines nothing.
 *
 * On Windows there are no weak symbols: a library using XFFI_EXPORT_FUNCTION
 * links libxffi (the DLL's import library), and one that registers global
 * functions or types at load pins itself (GetModuleHandleEx with
 * GET_MODULE_HANDLE_EX_FLAG_PIN), the counterpart of -z nodelete.
 *
 * One runtime per process: a library that uses xffi itself (registers global
 * functions or types, makes objects) must link libxffi as a shared library,
 * or leave the xffi symbols undefined for the host to provide. See
 * docs/plugins.md. */
#ifndef XFFI_MODULE_H
#define XFFI_MODULE_H

#include <stdint.h>
#include <xffi/any.h>
#include <xffi/error.h>
#include <xffi/export.h>
#include <xffi/function.h>
#include <xffi/object.h>
#include <xffi/sys/module.h>
#include <xffi/version.h>

/* Marks a symbol a library exports (whatever its default visibility). */
#if defined(_WIN32)
#  define XFFI_DLL_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#  define XFFI_DLL_EXPORT __attribute__((visibility("default")))
#else
#  define XFFI_DLL_EXPORT
#endif

/* The prefix of exported function symbols, and the ABI marker's name (a
 * string, for the loader's symbol lookup). */
#define XFFI_EXPORT_PREFIX "__tvm_ffi_"
#define XFFI_ABI_MARKER_SYMBOL "xffi_library_abi_version"

/* Exports impl (a function with the safe-call signature, which receives a
 * NULL handle) from a library as function name, in one line at file scope:
 *
 *   static int add_one(void *h, const xffi_any *args, int32_t n, xffi_any *r) { ... }
 *   XFFI_EXPORT_FUNCTION(add_one, add_one);
 *
 * defines the exported symbol __tvm_ffi_add_one. Either runtime may load the
 * library: when impl fails its error is in xffi's raised slot, which xffi
 * callers and every TVMFFI* caller served by xffi read; when another tvm-ffi
 * runtime is loaded as well, the error moves to its slot (xffi_error_forward_to_tvm). */
#define XFFI_EXPORT_FUNCTION(name, impl)                                                                          \
  XFFI_EXPORT_LINKAGE_ XFFI_DLL_EXPORT int __tvm_ffi_##name(void *handle, const xffi_any *args, int32_t num_args, \
                                                            xffi_any *result);                                    \
  XFFI_EXPORT_LINKAGE_ XFFI_DLL_EXPORT int __tvm_ffi_##name(void *handle, const xffi_any *args, int32_t num_args, \
                                                            xffi_any *result) {                                   \
    int status_ = impl(handle, args, num_args, result);                                                           \
    if (XFFI_UNLIKELY(status_ != 0)) XFFI_EXPORT_FAILED_();                                                       \
    return status_;                                                                                               \
  }                                                                                                               \
  XFFI_EXPORT_LINKAGE_ XFFI_DLL_EXPORT int __tvm_ffi_##name(void *handle, const xffi_any *args, int32_t num_args, \
                                                            xffi_any *result)

/* Defines the ABI marker (see the top of this file): write
 *
 *   XFFI_DEFINE_ABI_MARKER();
 *
 * once, at file scope, in one file of a library that xffi_module_load may
 * load (a second definition is a link error, as for any exported constant).
 * The same on every platform: an exported constant on ELF and Mach-O, a
 * dllexport'ed one on Windows, an ordinary one on wasm32-wasi (which has no
 * shared libraries; the macro still compiles, so portable code need not test
 * for it). Host programs do not write it. */
#define XFFI_DEFINE_ABI_MARKER()                                                   \
  XFFI_EXPORT_DECLARATION_ XFFI_DLL_EXPORT const int32_t xffi_library_abi_version; \
  XFFI_EXPORT_LINKAGE_ XFFI_DLL_EXPORT const int32_t xffi_library_abi_version = XFFI_ABI_VERSION

XFFI_EXTERN_C_BEGIN

/* Loads the shared library at path (dlopen with lazy binding as tvm-ffi's
 * loader; LoadLibraryExW on Windows, path
 * being UTF-8: a path with a directory is opened as it is, a bare name is
 * searched for as the system loader does) and checks
 * its ABI marker. *out receives a new reference to a Module; the library
 * stays loaded while the Module or any function taken from it lives, and is
 * unloaded (dlclose, FreeLibrary) after the last of them goes, unless it was
 * linked with -z nodelete or pinned itself on Windows (plugins that register global functions or types at load must
 * be: see docs/plugins.md; so must plugins whose objects, with deleters in
 * the plugin's code, may outlive the Module and its functions). Loading the
 * same path twice gives two Modules sharing the one loaded library. path is
 * borrowed. As tvm-ffi's loader it writes the registered context symbols
 * (TVMFFIEnvModRegisterContextSymbol) into the library, builds the import
 * tree the library embeds (__tvm_ffi__library_bin; *out is then its root)
 * and sets the library's __tvm_ffi__library_ctx to its Module: see
 * docs/plugins.md. A malformed embedded tree, or a kind whose
 * ffi.Module.load_from_bytes.<kind> loader is missing, is a RuntimeError.
 * Errors: ValueError for a NULL out, NULL or empty path; RuntimeError
 * "xffi_module_load: cannot load '<path>': <the system's message>" for a
 * missing or broken file, and "xffi_module_load: '<path>' was built for xffi
 * ABI version N, but this runtime has ABI version M" for a mismatch;
 * MemoryError. Where the platform has no shared libraries (wasm32-wasi) the
 * RuntimeError says that module loading is compiled out. */
XFFI_API int xffi_module_load(xffi_object **out, const char *path);

/* Gets the function name exported by module (borrowed) as __tvm_ffi_<name>.
 * *out receives a new reference to a Function that keeps the module alive,
 * or NULL if the library exports no such function (not an error).
 * Only the module's own functions: ffi.ModuleGetFunction with query_imports
 * searches its imports too.
 * Errors: ValueError for a NULL out, NULL or empty name; TypeError if module
 * is not a Module this runtime made (ValueError if NULL); MemoryError. */
XFFI_API int xffi_module_lookup_function(xffi_object **out, xffi_object *module, const char *name);

/* The path the module was loaded from (for the system library: its symbol
 * prefix), borrowed from the module (NUL-terminated). Errors:
 * ValueError/TypeError as above. */
XFFI_API int xffi_module_path(const char **out, xffi_object *module);

/* The xffi ABI version the library was built with, or 0 if it carries no
 * marker (a pure tvm-ffi library, say). Errors: ValueError/TypeError as above. */
XFFI_API int xffi_module_abi_version(int32_t *out, xffi_object *module);

XFFI_EXTERN_C_END

#endif /* XFFI_MODULE_H */
