/* c/lib/module/module_cxx.h: the seam between the module files and the C++ half of
 * tvm-ffi's ABI (c/compat/cxx/, linked only into the drop-in libtvm_ffi.so).
 * Plain C declarations that C++ can include: no xffi or runtime header.
 *
 * tvm-ffi's ModuleObj is a polymorphic C++ class derived from the plain
 * Object, so in the Itanium layout its vtable pointer comes first, the Object
 * header after it (at xffi_module_shell_prefix()), then its two members
 * imports_ (Array<Any>) and import_lookup_cache_ (Map). Every Module this
 * runtime makes is allocated in that shape (c/lib/module/module.c); when the
 * C++ half is linked it builds the C++ part of each one (vtable pointer and
 * members), so C++ code reads them as real ModuleObjs, and it serves the
 * module operations for every Module, this runtime's and C++ libraries'
 * subclasses alike, through their virtual functions. Without it (libxffi)
 * the module files serve their own Modules and refuse others. */
#ifndef XFFI_MODULE_CXX_H
#define XFFI_MODULE_CXX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct xffi_object;
struct xffi_any;

/* What the C++ half provides. Each int function returns 0, or -1 with an
 * error raised; module arguments are borrowed Module objects (any ModuleObj);
 * every *out is a new reference (NULL or None: not found). */
/* The questions of xffi_module_cxx_half.describe. */
typedef enum xffi_module_question {
  XFFI_MODULE_KIND,           /* kind(): a String */
  XFFI_MODULE_PROPERTY_MASK,  /* GetPropertyMask(): an int */
  XFFI_MODULE_WRITE_FORMATS,  /* GetWriteFormats(): an Array of String */
  XFFI_MODULE_INSPECT_SOURCE, /* InspectSource(format): a String */
  XFFI_MODULE_WRITE_TO_FILE,  /* WriteToFile(file, format): None */
} xffi_module_question;

typedef struct xffi_module_cxx_half {
  /* Bytes from the start of a library module's allocation to the end of its
   * C++ part (vtable pointer, Object header, imports_, import_lookup_cache_). */
  size_t shell_size;
  /* Builds the C++ part of a library module at shell (the allocation's start;
   * its Object header is then set up by the C side) / tears it down (its
   * members released) before the memory is freed. */
  int (*construct)(void *shell);
  void (*destruct)(void *shell);
  /* ModuleObj::GetFunction / GetFunctionDoc (prefix "__tvm_ffi__doc_") or
   * GetFunctionMetadata (prefix "__tvm_ffi__metadata_") / ImplementsFunction,
   * with query_imports. */
  int (*get_function)(struct xffi_object **out, struct xffi_object *module, const char *name, size_t name_len,
                      int query_imports);
  int (*get_text)(struct xffi_any *out, struct xffi_object *module, const char *prefix, const char *name,
                  size_t name_len, int query_imports);
  int (*implements)(int *out, struct xffi_object *module, const char *name, size_t name_len, int query_imports);
  /* The virtual ImportModule and ClearImports; the imports_ member (*out an Array). */
  int (*import_module)(struct xffi_object *module, struct xffi_object *other);
  int (*clear_imports)(struct xffi_object *module);
  int (*imports)(struct xffi_object **out, struct xffi_object *module);
  /* TVMFFIEnvModLookupFromImports: *out borrowed (the module's cache keeps it). */
  int (*lookup_from_imports)(struct xffi_object **out, struct xffi_object *module, const char *name);
  /* The virtual function what names (xffi_module_question), with strings
   * the ffi.* global's string arguments after the module (borrowed, checked
   * as strings: InspectSource's format; WriteToFile's file and format).
   * *out: the answer (None for WriteToFile). */
  int (*describe)(struct xffi_any *out, int what, struct xffi_object *module, const struct xffi_any *strings);
} xffi_module_cxx_half;

/* Installs the C++ half (borrowed, static; once, while the drop-in loads,
 * before any Module exists). */
void xffi_module_cxx_half_set(const xffi_module_cxx_half *half);

/* Bytes before a library module's Object header: the vtable pointer, padded
 * to 8 bytes (the Itanium layout on 64-bit targets). */
size_t xffi_module_shell_prefix(void);

/* A library module's own answers, without its imports (what the C++ class's
 * virtual GetFunction and GetFunctionDoc/Metadata call):
 * *out a new reference or NULL / None when absent. module: a library module
 * this runtime made (borrowed). */
int xffi_module_own_function(struct xffi_object **out, struct xffi_object *module, const char *name, size_t name_len);
int xffi_module_own_text(struct xffi_any *out, struct xffi_object *module, const char *prefix, const char *name,
                         size_t name_len);

/* Calls visit(payload, name, address) for each registered context symbol,
 * in registration order (TVMFFIEnvModRegisterContextSymbol); stops at and
 * returns the first non-zero result. */
int xffi_context_symbols_visit(int (*visit)(void *payload, const char *name, void *address), void *payload);

#ifdef __cplusplus
}
#endif

#endif /* XFFI_MODULE_CXX_H */
