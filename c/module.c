/* c/module.c: Module objects: shared libraries loaded with the platform's
 * loader (c/platform.h: dlopen, LoadLibrary), whose functions are found as
 * `__tvm_ffi_NAME` symbols (the tvm-ffi 0.1 naming).
 *
 * A Module is one allocation: header, a private cell { library handle, ABI
 * version }, then the path. Functions taken from a module hold a strong
 * reference to it (xffi_function_new_with_owner), so the library stays loaded
 * until the module and all of them are gone; then the deleter closes it. */
#include <string.h>

#include <xffi/function.h>
#include <xffi/module.h>

#include "check.h"
#include "internal.h"
#include "platform.h"

typedef struct module_object {
  xffi_object header;
  void *dl_handle;     /* from xffi_library_open */
  int32_t abi_version; /* 0: no marker */
  size_t path_len;
  char path[];
} module_object;

static void module_deleter(void *self, int flags) {
  module_object *m = self;
  if ((flags & XFFI_DELETE_CONTENTS) && m->dl_handle) {
    xffi_library_close(m->dl_handle);
    m->dl_handle = NULL;
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_free(m);
}

int xffi_module_load(xffi_object **out, const char *path) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_NOT_NULL(path);
  if (!path[0]) return xffi_error_raise(XFFI_KIND_VALUE, "%s: path is empty", __func__);
  size_t len = strlen(path);
  module_object *m = xffi_alloc(sizeof(module_object) + len + 1);
  if (!m) return xffi_error_raise_out_of_memory();
  char why[512];
  void *handle = xffi_library_open(path, why, sizeof why);
  if (!handle) {
    xffi_free(m);
    return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: cannot load '%s': %s", __func__, path, why);
  }
  /* The marker the library defines itself, not one of its dependencies'. */
  const int32_t *marker = xffi_library_own_symbol(handle, XFFI_ABI_MARKER_SYMBOL);
  int32_t abi = marker ? *marker : 0;
  if (marker && abi != XFFI_ABI_VERSION) {
    xffi_library_close(handle);
    xffi_free(m);
    return xffi_error_raise(XFFI_KIND_RUNTIME,
                            "%s: '%s' was built for xffi ABI version %d, but this runtime has ABI version %d", __func__,
                            path, (int)abi, (int)XFFI_ABI_VERSION);
  }
  xffi_object_init(&m->header, XFFI_TYPE_MODULE, module_deleter);
  m->dl_handle = handle;
  m->abi_version = abi;
  m->path_len = len;
  memcpy(m->path, path, len + 1);
  *out = &m->header;
  return XFFI_OK;
}

static int module_arg(module_object **out, xffi_object *module, const char *fn) {
  if (xffi_check_object_arg(fn, "module", module, XFFI_TYPE_MODULE) != XFFI_OK) return XFFI_FAIL;
  *out = (module_object *)module;
  return XFFI_OK;
}

int xffi_module_lookup_function(xffi_object **out, xffi_object *module, const char *name) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  module_object *m;
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  XFFI_CHECK_ARG_NOT_NULL(name);
  if (!name[0]) return xffi_error_raise(XFFI_KIND_VALUE, "%s: name is empty", __func__);
  static const char prefix[] = XFFI_EXPORT_PREFIX;
  size_t len = strlen(name);
  char stack_buffer[256];
  char *symbol = stack_buffer;
  if (len + sizeof prefix > sizeof stack_buffer) {
    symbol = xffi_alloc(len + sizeof prefix);
    if (!symbol) return xffi_error_raise_out_of_memory();
  }
  memcpy(symbol, prefix, sizeof prefix - 1);
  memcpy(symbol + sizeof prefix - 1, name, len + 1);
  void *address = xffi_library_symbol(m->dl_handle, symbol);
  if (symbol != stack_buffer) xffi_free(symbol);
  if (!address) return XFFI_OK; /* no such function: *out stays NULL */
  /* ISO C has no cast between object and function pointers: copy the bits. */
  xffi_function_callback callback;
  _Static_assert(sizeof callback == sizeof address, "function and object pointers have the same size");
  memcpy(&callback, &address, sizeof callback);
  /* Exported functions receive a NULL handle (resource), per the convention. */
  return xffi_function_new_with_owner(out, callback, NULL, NULL, module);
}

int xffi_module_path(const char **out, xffi_object *module) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  module_object *m;
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  *out = m->path;
  return XFFI_OK;
}

int xffi_module_abi_version(int32_t *out, xffi_object *module) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  module_object *m;
  if (module_arg(&m, module, __func__) != XFFI_OK) return XFFI_FAIL;
  *out = m->abi_version;
  return XFFI_OK;
}
