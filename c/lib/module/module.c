/* c/lib/module/module.c: Module objects: shared libraries loaded with the platform's
 * loader (c/platform/platform.h: dlopen, LoadLibrary) and the system library, whose
 * functions are found as `__tvm_ffi_NAME` symbols (the tvm-ffi 0.1 naming),
 * with tvm-ffi's imports: a module may import others, searched depth first
 * after the module itself.
 *
 * A Module is one allocation (from the runtime's object allocator, with
 * tvm-ffi's allocation header in front: c/runtime/internal.h) in the shape of
 * tvm-ffi's C++ ModuleObj (c/lib/module/module_cxx.h): a vtable pointer, the
 * header, ModuleObj's two members, then a private cell and the path (the
 * prefix for the system library). When the C++ half of the ABI is linked
 * (the drop-in), it builds the C++ part and serves the module operations
 * through virtual calls; otherwise the pointer and members stay NULL. Functions taken from a module hold a strong
 * reference to it (xffi_function_new_with_owner), so the library stays loaded
 * until the module and all of them are gone; then the deleter closes it.
 *
 * Imports and the lookup cache of TVMFFIEnvModLookupFromImports change under
 * one process-wide lock; symbol lookups (dlsym) and calls never run under it,
 * so a library constructor that calls back into the runtime cannot deadlock
 * with a search. */
#include <string.h>

#include <xffi/function.h>
#include <xffi/module.h>
#include <xffi/array.h>
#include <xffi/string.h>

#include "runtime/check.h"
#include "runtime/internal.h"
#include "lib/module/module_internal.h"
#include "lib/module/module_cxx.h"
#include "runtime/name_table.h"
#include "platform/platform.h"

typedef struct module_object {
  xffi_object header;
  void *cxx_members[2]; /* ModuleObj::imports_, import_lookup_cache_: the C++ half's */
  xffi_module_source source;
  void *dl_handle;     /* from xffi_library_open; NULL for the system library */
  int32_t abi_version; /* 0: no marker */
  /* Guarded by modules_lock: */
  uint64_t visit_mark;   /* the last search that reached this module */
  xffi_object **imports; /* strong references, in import order */
  size_t import_count, import_capacity;
  xffi_name_table cache; /* TVMFFIEnvModLookupFromImports' results: owns each Function */
  /* Immutable: */
  size_t path_len;
  char path[];
} module_object;

static xffi_mutex modules_lock = XFFI_MUTEX_INITIALIZER;
static uint64_t visit_clock; /* guarded by modules_lock */

static void module_deleter(void *self, int flags);

/* Set once while the drop-in loads (before any Module exists), then read only. */
static const xffi_module_cxx_half *cxx_half;

void xffi_module_cxx_half_set(const xffi_module_cxx_half *half) { cxx_half = half; }
const xffi_module_cxx_half *xffi_module_cxx_half_get(void) { return cxx_half; }

/* The header's place: after the vtable pointer, padded to 8 bytes. That is
 * the Itanium layout on 64-bit targets; on 32-bit ones it keeps the header's
 * 64-bit counts 8-aligned (and the C++ half, whose layout differs there,
 * declines to install: c/compat/cxx/library_module.cc). */
#define SHELL_PREFIX ((size_t)8)
_Static_assert(SHELL_PREFIX >= sizeof(void *) && SHELL_PREFIX % _Alignof(module_object) == 0,
               "the vtable pointer fits before the header, which stays aligned");

size_t xffi_module_shell_prefix(void) { return SHELL_PREFIX; }

int xffi_module_is_readable(const xffi_object *module) {
  return module && module->type_index == XFFI_TYPE_MODULE && (cxx_half || module->deleter == module_deleter);
}

int xffi_module_is_own(const xffi_object *module) {
  return module && module->type_index == XFFI_TYPE_MODULE && module->deleter == module_deleter;
}

/* ---- Symbols ---- */

/* head + middle + tail, NUL-terminated, in stack (of stack_size bytes) when
 * it fits, else in a new allocation; NULL when out of memory. */
static char *join_name(char *stack, size_t stack_size, const char *head, const char *middle, size_t middle_len,
                       const char *tail, size_t tail_len) {
  size_t head_len = strlen(head);
  if (middle_len > SIZE_MAX / 4 || tail_len > SIZE_MAX / 4) return NULL;
  size_t total = head_len + middle_len + tail_len + 1;
  char *buffer = total <= stack_size ? stack : xffi_alloc(total);
  if (!buffer) return NULL;
  memcpy(buffer, head, head_len);
  if (middle_len) memcpy(buffer + head_len, middle, middle_len);
  if (tail_len) memcpy(buffer + head_len + middle_len, tail, tail_len);
  buffer[total - 1] = '\0';
  return buffer;
}

static void free_name(char *name, const char *stack) {
  if (name != stack) xffi_free(name);
}

/* tvm-ffi's Library::GetSymbol: the system library tries prefix + name,
 * then name. NULL also when out of memory (a symbol cannot be looked up). */
void *xffi_module_symbol(xffi_object *module, const char *name, int own_only) {
  module_object *m = (module_object *)module;
  if (m->source == XFFI_MODULE_DYNAMIC_LIBRARY)
    return own_only ? xffi_library_own_symbol(m->dl_handle, name) : xffi_library_symbol(m->dl_handle, name);
  char stack[256];
  char *full = join_name(stack, sizeof stack, "", m->path, m->path_len, name, strlen(name));
  void *address = full ? xffi_system_lib_symbol(full) : NULL;
  free_name(full, stack);
  return address ? address : xffi_system_lib_symbol(name);
}

/* The address of the symbol head + name (name: a byte run; one holding a NUL
 * names no symbol). For functions (head "__tvm_ffi_") the system library
 * tries "__tvm_ffi_" + prefix + name, then "__tvm_ffi_" + name, as tvm-ffi's
 * GetSymbolWithSymbolPrefix does. Sets *out_of_memory when the name could
 * not be built. */
static void *named_symbol(module_object *m, const char *head, xffi_byte_array name, int *out_of_memory) {
  *out_of_memory = 0;
  if (name.size && memchr(name.data, '\0', name.size)) return NULL;
  char stack[256];
  int function_symbol = strcmp(head, XFFI_EXPORT_PREFIX) == 0;
  if (m->source == XFFI_MODULE_SYSTEM_LIBRARY && function_symbol) {
    char *full = join_name(stack, sizeof stack, head, m->path, m->path_len, name.data, name.size);
    if (!full) {
      *out_of_memory = 1;
      return NULL;
    }
    void *address = xffi_system_lib_symbol(full);
    free_name(full, stack);
    if (address) return address;
  }
  char *full = join_name(stack, sizeof stack, head, "", 0, name.data, name.size);
  if (!full) {
    *out_of_memory = 1;
    return NULL;
  }
  void *address = m->source == XFFI_MODULE_SYSTEM_LIBRARY && function_symbol ? xffi_system_lib_symbol(full)
                                                                             : xffi_module_symbol(&m->header, full, 0);
  free_name(full, stack);
  return address;
}

/* ISO C has no cast between object and function pointers: copy the bits. */
static xffi_function_callback symbol_as_callback(void *address) {
  xffi_function_callback callback;
  _Static_assert(sizeof callback == sizeof address, "function and object pointers have the same size");
  memcpy(&callback, &address, sizeof callback);
  return callback;
}

/* ---- Life ---- */

/* Sets the library's variable name (if it defines one) to address. */
static int write_context_symbol(void *module, const char *name, void *address) {
  void **variable = xffi_module_symbol(module, name, 1);
  if (variable) *variable = address;
  return 0;
}

static void release_function(void *function) { xffi_object_dec_ref(function); }

static void release_contents(module_object *m) {
  /* Imports may nest deeply: release them with bounded stack. */
  while (m->import_count > 0) xffi_object_dec_ref(m->imports[--m->import_count]);
  xffi_free(m->imports);
  m->imports = NULL;
  xffi_name_table_clear(&m->cache, release_function);
}

static void module_deleter(void *self, int flags) {
  module_object *m = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    if (xffi_release_begin(self, flags, module_deleter)) return; /* parked: called again */
    release_contents(m);
    if (cxx_half) cxx_half->destruct((char *)self - SHELL_PREFIX);
    xffi_release_end();
    if (m->dl_handle) {
      /* A library loaded twice shares its context variable: leave it NULL
       * rather than pointing at a dead module. */
      void **ctx = xffi_library_own_symbol(m->dl_handle, XFFI_LIBRARY_CTX_SYMBOL);
      if (ctx && *ctx == self) *ctx = NULL;
      xffi_library_close(m->dl_handle);
      m->dl_handle = NULL;
    }
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free((char *)self - SHELL_PREFIX);
}

int xffi_module_new_library(xffi_object **out, xffi_module_source source, void *handle, const char *name,
                            int32_t abi_version) {
  *out = NULL;
  size_t len = strlen(name);
  char *shell = NULL;
  if (len < SIZE_MAX - sizeof(module_object) - SHELL_PREFIX)
    shell = xffi_runtime_object_alloc(SHELL_PREFIX + sizeof(module_object) + len + 1, _Alignof(module_object),
                                      XFFI_TYPE_MODULE);
  else
    xffi_error_raise_out_of_memory();
  if (shell) {
    memset(shell, 0, SHELL_PREFIX + sizeof(module_object));
    if (cxx_half && cxx_half->construct(shell) != XFFI_OK) {
      xffi_runtime_object_free(shell);
      shell = NULL;
    }
  }
  if (!shell) {
    if (handle) xffi_library_close(handle);
    return XFFI_FAIL; /* raised */
  }
  module_object *m = (module_object *)(void *)(shell + SHELL_PREFIX);
  xffi_object_init(&m->header, XFFI_TYPE_MODULE, module_deleter);
  m->source = source;
  m->dl_handle = handle;
  m->abi_version = abi_version;
  m->path_len = len;
  memcpy(m->path, name, len + 1);
  xffi_object *lib = &m->header;
  /* tvm-ffi's order: context symbols, the embedded tree, then the context. */
  xffi_context_symbols_visit(write_context_symbol, lib);
  const unsigned char *bin = xffi_module_symbol(lib, XFFI_LIBRARY_BIN_SYMBOL, 1);
  void **ctx = xffi_module_symbol(lib, XFFI_LIBRARY_CTX_SYMBOL, 1);
  if (!bin) {
    if (ctx) *ctx = lib;
    *out = lib;
    return XFFI_OK;
  }
  xffi_object *root;
  int lib_used = 0;
  int status = xffi_module_tree_from_bin(&root, &lib_used, bin, lib);
  if (status == XFFI_OK && lib_used && ctx) *ctx = lib;
  xffi_object_dec_ref(lib); /* the tree holds it when it uses it */
  if (status != XFFI_OK) return status;
  *out = root;
  return XFFI_OK;
}

int xffi_module_load(xffi_object **out, const char *path) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_NOT_NULL(path);
  if (!path[0]) return xffi_error_raise(XFFI_KIND_VALUE, "%s: path is empty", __func__);
  char why[512];
  void *handle = xffi_library_open(path, why, sizeof why);
  if (!handle) return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: cannot load '%s': %s", __func__, path, why);
  xffi_foreign_runtime_forget(); /* the library may have brought a tvm-ffi runtime */
  /* The marker the library defines itself, not one of its dependencies'. */
  const int32_t *marker = xffi_library_own_symbol(handle, XFFI_ABI_MARKER_SYMBOL);
  int32_t abi = marker ? *marker : 0;
  if (marker && abi != XFFI_ABI_VERSION) {
    xffi_library_close(handle);
    return xffi_error_raise(XFFI_KIND_RUNTIME,
                            "%s: '%s' was built for xffi ABI version %d, but this runtime has ABI version %d", __func__,
                            path, (int)abi, (int)XFFI_ABI_VERSION);
  }
  return xffi_module_new_library(out, XFFI_MODULE_DYNAMIC_LIBRARY, handle, path, abi);
}

static int module_arg(module_object **out, xffi_object *module, const char *fn) {
  if (xffi_check_object_arg(fn, "module", module, XFFI_TYPE_MODULE) != XFFI_OK) return XFFI_FAIL;
  if (!xffi_module_is_own(module))
    return xffi_raise_arg(XFFI_KIND_TYPE, fn, "module", "is a Module of another runtime, which this one cannot read");
  *out = (module_object *)module;
  return XFFI_OK;
}

/* ---- Functions, metadata and docs of one module ---- */

/* The module's own function name: *out a new reference or NULL. */
static int own_function(xffi_object **out, module_object *m, xffi_byte_array name) {
  *out = NULL;
  int out_of_memory;
  void *address = named_symbol(m, XFFI_EXPORT_PREFIX, name, &out_of_memory);
  if (out_of_memory) return xffi_error_raise_out_of_memory();
  if (!address) return XFFI_OK;
  /* Exported functions receive a NULL handle (resource), per the convention. */
  return xffi_function_new_with_owner(out, symbol_as_callback(address), NULL, NULL, &m->header);
}

int xffi_module_lookup_function(xffi_object **out, xffi_object *module, const char *name) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  module_object *m = NULL;
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  XFFI_CHECK_ARG_NOT_NULL(name);
  if (!name[0]) return xffi_error_raise(XFFI_KIND_VALUE, "%s: name is empty", __func__);
  return own_function(out, m, (xffi_byte_array){name, strlen(name)});
}

int xffi_module_path(const char **out, xffi_object *module) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  module_object *m = NULL;
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  *out = m->path;
  return XFFI_OK;
}

int xffi_module_abi_version(int32_t *out, xffi_object *module) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  module_object *m = NULL;
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  *out = m->abi_version;
  return XFFI_OK;
}

/* ---- Searching imports ---- */

/* The modules a search visits, in order: root (when with_root) and then,
 * depth first, each import before its own imports, each module once. Taken
 * under the lock as new references (*out_modules: a new allocation, release
 * with release_modules), so that the search itself runs unlocked. Uses a heap
 * stack: import chains may be deep. */
static int collect_modules(module_object ***out_modules, size_t *out_count, module_object *root, int with_root) {
  *out_modules = NULL;
  *out_count = 0;
  size_t count = 0, capacity = 0, depth = 0, stack_capacity = 0;
  module_object **found = NULL, **stack = NULL;
  int status = XFFI_OK;
  xffi_mutex_lock(&modules_lock);
  uint64_t mark = ++visit_clock;
  /* Start from root itself, or from its imports pushed in reverse so that
   * they pop in order. */
  size_t initial = with_root ? 1 : root->import_count;
  if (initial) {
    stack = xffi_alloc(initial * sizeof *stack);
    if (!stack) {
      status = XFFI_FAIL;
    } else {
      stack_capacity = initial;
      if (with_root) stack[depth++] = root;
      for (size_t i = with_root ? 0 : root->import_count; i > 0; --i)
        stack[depth++] = (module_object *)root->imports[i - 1];
    }
  }
  if (!with_root) root->visit_mark = mark;
  while (status == XFFI_OK && depth > 0) {
    module_object *m = stack[--depth];
    if (m->visit_mark == mark) continue;
    m->visit_mark = mark;
    if (count == capacity) {
      size_t grown = capacity ? capacity * 2 : 8;
      module_object **bigger = xffi_realloc(found, grown * sizeof *found);
      if (!bigger) {
        status = XFFI_FAIL;
        break;
      }
      found = bigger;
      capacity = grown;
    }
    xffi_object_inc_ref(&m->header);
    found[count++] = m;
    if (depth + m->import_count > stack_capacity) {
      size_t grown = (depth + m->import_count) * 2;
      module_object **bigger = xffi_realloc(stack, grown * sizeof *stack);
      if (!bigger) {
        status = XFFI_FAIL;
        break;
      }
      stack = bigger;
      stack_capacity = grown;
    }
    for (size_t i = m->import_count; i > 0; --i) stack[depth++] = (module_object *)m->imports[i - 1];
  }
  xffi_mutex_unlock(&modules_lock);
  xffi_free(stack);
  if (status != XFFI_OK) {
    while (count > 0) xffi_object_dec_ref(&found[--count]->header);
    xffi_free(found);
    return xffi_error_raise_out_of_memory();
  }
  *out_modules = found;
  *out_count = count;
  return XFFI_OK;
}

static void release_modules(module_object **modules, size_t count) {
  for (size_t i = 0; i < count; ++i) xffi_object_dec_ref(&modules[i]->header);
  xffi_free(modules);
}

/* The first module of the search (see collect_modules) defining the symbol
 * head + name: *out a new reference, or NULL. */
static int find_defining(module_object **out, module_object *root, int with_root, const char *head,
                         xffi_byte_array name) {
  *out = NULL;
  module_object **modules;
  size_t count;
  if (collect_modules(&modules, &count, root, with_root) != XFFI_OK) return XFFI_FAIL;
  int status = XFFI_OK;
  for (size_t i = 0; i < count; ++i) {
    int out_of_memory;
    void *address = named_symbol(modules[i], head, name, &out_of_memory);
    if (out_of_memory) {
      status = xffi_error_raise_out_of_memory();
      break;
    }
    if (address) {
      *out = modules[i];
      xffi_object_inc_ref(&modules[i]->header);
      break;
    }
  }
  release_modules(modules, count);
  return status;
}

int xffi_module_get_function(xffi_object **out, xffi_object *module, xffi_byte_array name, int query_imports) {
  module_object *m = NULL;
  *out = NULL;
  if (cxx_half) return cxx_half->get_function(out, module, name.data, name.size, query_imports);
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  if (own_function(out, m, name) != XFFI_OK) return XFFI_FAIL;
  if (*out || !query_imports) return XFFI_OK;
  module_object *owner;
  if (find_defining(&owner, m, 0, XFFI_EXPORT_PREFIX, name) != XFFI_OK) return XFFI_FAIL;
  if (!owner) return XFFI_OK;
  int status = own_function(out, owner, name);
  xffi_object_dec_ref(&owner->header);
  return status;
}

int xffi_module_imports_function(xffi_object **out, xffi_object *module, xffi_byte_array name) {
  *out = NULL;
  module_object *owner;
  if (find_defining(&owner, (module_object *)module, 0, XFFI_EXPORT_PREFIX, name) != XFFI_OK) return XFFI_FAIL;
  if (!owner) return XFFI_OK;
  int status = own_function(out, owner, name);
  xffi_object_dec_ref(&owner->header);
  return status;
}

int xffi_module_implements(int *out, xffi_object *module, xffi_byte_array name, int query_imports) {
  module_object *m = NULL;
  *out = 0;
  if (cxx_half) return cxx_half->implements(out, module, name.data, name.size, query_imports);
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  int out_of_memory;
  if (named_symbol(m, XFFI_EXPORT_PREFIX, name, &out_of_memory)) {
    *out = 1;
    return XFFI_OK;
  }
  if (out_of_memory) return xffi_error_raise_out_of_memory();
  if (!query_imports) return XFFI_OK;
  module_object *owner;
  if (find_defining(&owner, m, 0, XFFI_EXPORT_PREFIX, name) != XFFI_OK) return XFFI_FAIL;
  if (owner) {
    *out = 1;
    xffi_object_dec_ref(&owner->header);
  }
  return XFFI_OK;
}

/* Calls a metadata or doc getter (a safe call taking no arguments, handle
 * NULL) and checks that it gave a String. */
static int call_text_getter(xffi_any *out, void *address, const char *symbol_head, xffi_byte_array name) {
  xffi_object *getter;
  if (xffi_function_new(&getter, symbol_as_callback(address), NULL, NULL) != XFFI_OK) return XFFI_FAIL;
  xffi_any result = xffi_any_none();
  int status = xffi_function_call(getter, NULL, 0, &result);
  xffi_object_dec_ref(getter);
  if (status != XFFI_OK) return XFFI_FAIL;
  if (result.type_index != XFFI_TYPE_SMALL_STR && result.type_index != XFFI_TYPE_STRING) {
    const char *kind = xffi_any_kind_name(&result);
    xffi_any_release(&result);
    return xffi_error_raise(XFFI_KIND_TYPE, "%s%.*s: expected the getter to return a String, got %s", symbol_head,
                            (int)(name.size > 200 ? 200 : name.size), name.data, kind);
  }
  *out = result;
  return XFFI_OK;
}

static int module_text(xffi_any *out, xffi_object *module, const char *prefix, xffi_byte_array name, int query_imports);

int xffi_module_get_text(xffi_any *out, xffi_object *module, const char *prefix, xffi_byte_array name,
                         int query_imports) {
  if (cxx_half) return cxx_half->get_text(out, module, prefix, name.data, name.size, query_imports);
  return module_text(out, module, prefix, name, query_imports);
}

int xffi_module_own_text(xffi_any *out, xffi_object *module, const char *prefix, const char *name, size_t name_len) {
  return module_text(out, module, prefix, (xffi_byte_array){name, name_len}, 0);
}

static int module_text(xffi_any *out, xffi_object *module, const char *prefix, xffi_byte_array name,
                       int query_imports) {
  module_object *m = NULL;
  *out = xffi_any_none();
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  module_object *owner = NULL;
  if (query_imports) {
    if (find_defining(&owner, m, 1, prefix, name) != XFFI_OK) return XFFI_FAIL;
  } else {
    owner = m;
    xffi_object_inc_ref(&m->header);
  }
  int status = XFFI_OK;
  if (owner) {
    int out_of_memory;
    void *address = named_symbol(owner, prefix, name, &out_of_memory);
    if (out_of_memory)
      status = xffi_error_raise_out_of_memory();
    else if (address)
      status = call_text_getter(out, address, prefix, name);
    xffi_object_dec_ref(&owner->header);
  }
  return status;
}

/* ---- A library module's own answers, for the C++ half's virtual functions ---- */

int xffi_module_own_function(xffi_object **out, xffi_object *module, const char *name, size_t name_len) {
  return own_function(out, (module_object *)module, (xffi_byte_array){name, name_len});
}

/* ---- Imports ---- */

int xffi_module_import(xffi_object *module, xffi_object *other) {
  module_object *m = NULL, *o = NULL;
  if (cxx_half) return cxx_half->import_module(module, other);
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  if (module_arg(&o, other, __func__) != XFFI_OK) return XFFI_FAIL;
  /* A cycle: m is other itself or among other's imports, at any depth. */
  module_object **reachable;
  size_t count;
  if (collect_modules(&reachable, &count, o, 1) != XFFI_OK) return XFFI_FAIL;
  int cyclic = 0, out_of_memory = 0;
  xffi_mutex_lock(&modules_lock);
  for (size_t i = 0; i < count; ++i)
    if (reachable[i] == m) cyclic = 1;
  if (!cyclic && m->import_count == m->import_capacity) {
    size_t grown = m->import_capacity ? m->import_capacity * 2 : 4;
    xffi_object **bigger = xffi_realloc(m->imports, grown * sizeof *bigger);
    if (bigger) {
      m->imports = bigger;
      m->import_capacity = grown;
    } else {
      out_of_memory = 1;
    }
  }
  if (!cyclic && !out_of_memory) {
    xffi_object_inc_ref(other);
    m->imports[m->import_count++] = other;
  }
  xffi_mutex_unlock(&modules_lock);
  release_modules(reachable, count);
  if (cyclic)
    return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: cyclic dependency detected during import", "ModuleImportModule");
  if (out_of_memory) return xffi_error_raise_out_of_memory();
  return XFFI_OK;
}

int xffi_module_clear_imports(xffi_object *module) {
  module_object *m = NULL;
  if (cxx_half) return cxx_half->clear_imports(module);
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  xffi_mutex_lock(&modules_lock);
  xffi_object **imports = m->imports;
  size_t count = m->import_count;
  m->imports = NULL;
  m->import_count = m->import_capacity = 0;
  xffi_mutex_unlock(&modules_lock);
  /* Released unlocked: a module that dies here may close its library. */
  while (count > 0) xffi_object_dec_ref(imports[--count]);
  xffi_free(imports);
  return XFFI_OK;
}

int xffi_module_imports_array(xffi_object **out, xffi_object *module) {
  module_object *m = NULL;
  *out = NULL;
  if (cxx_half) return cxx_half->imports(out, module);
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  xffi_mutex_lock(&modules_lock);
  size_t count = m->import_count;
  xffi_any *items = count ? xffi_alloc(count * sizeof(xffi_any)) : NULL;
  int status = XFFI_FAIL;
  if (count && !items) {
    xffi_mutex_unlock(&modules_lock);
    return xffi_error_raise_out_of_memory();
  }
  for (size_t i = 0; i < count; ++i) items[i] = xffi_any_object(m->imports[i]);
  /* The Array takes its own references while the imports cannot change. */
  status = xffi_array_new(out, items, (int64_t)count);
  xffi_mutex_unlock(&modules_lock);
  xffi_free(items);
  return status;
}

/* ---- TVMFFIEnvModLookupFromImports ---- */

int xffi_module_lookup_from_imports(xffi_object **out, xffi_object *module, const char *name) {
  *out = NULL;
  module_object *m = NULL;
  if (cxx_half) return cxx_half->lookup_from_imports(out, module, name);
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  xffi_byte_array bytes = {name, strlen(name)};
  xffi_mutex_lock(&modules_lock);
  xffi_object *cached = xffi_name_table_find(&m->cache, name, bytes.size);
  xffi_mutex_unlock(&modules_lock);
  if (cached) {
    *out = cached;
    return XFFI_OK;
  }
  xffi_object *function;
  if (xffi_module_imports_function(&function, module, bytes) != XFFI_OK) return XFFI_FAIL;
  if (!function && xffi_function_global_lookup_bytes(&function, bytes) != XFFI_OK) return XFFI_FAIL;
  if (!function)
    return xffi_error_raise(XFFI_KIND_RUNTIME, "Cannot find function %s in the imported modules or global registry",
                            name);
  xffi_mutex_lock(&modules_lock);
  cached = xffi_name_table_find(&m->cache, name, bytes.size); /* another thread may have been first */
  void *previous = NULL;
  if (!cached && xffi_name_table_put(&m->cache, name, bytes.size, function, &previous)) {
    cached = function;
    function = NULL;
  }
  xffi_mutex_unlock(&modules_lock);
  if (function) xffi_object_dec_ref(function); /* another thread's is cached, or no room */
  if (!cached) return xffi_error_raise_out_of_memory();
  *out = cached;
  return XFFI_OK;
}
