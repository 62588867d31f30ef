/* c/compat/abi/tvm_module.c: tvm-ffi's environment entry points of the module side
 * (its c_env_api.h): import lookup for a library's code, context symbols and
 * the system library. Each checks its arguments and returns 0, or -1 with
 * an error raised (tvm-ffi dereferences NULLs). */
#include <xffi/tvm_ffi.h>

#include "runtime/check.h"
#include "runtime/internal.h"
#include "lib/module/module_internal.h"

int TVMFFIEnvModLookupFromImports(void *library_ctx, const char *func_name, void **out) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_NOT_NULL(library_ctx);
  XFFI_CHECK_ARG_NOT_NULL(func_name);
  if (!func_name[0]) return xffi_raise_arg(XFFI_KIND_VALUE, __func__, "func_name", "is empty");
  xffi_object *module = library_ctx;
  if (!xffi_module_is_readable(module))
    return xffi_raise_arg(XFFI_KIND_TYPE, __func__, "library_ctx",
                          "is not a library Module of this runtime (expected the value the loader wrote into "
                          "__tvm_ffi__library_ctx)");
  xffi_object *function;
  if (xffi_module_lookup_from_imports(&function, module, func_name) != XFFI_OK) return XFFI_FAIL;
  *out = function;
  return XFFI_OK;
}

int TVMFFIEnvModRegisterContextSymbol(const char *name, void *symbol) {
  XFFI_CHECK_ARG_NOT_NULL(name);
  if (!name[0]) return xffi_raise_arg(XFFI_KIND_VALUE, __func__, "name", "is empty");
  return xffi_context_symbol_register(name, symbol);
}

int TVMFFIEnvModRegisterSystemLibSymbol(const char *name, void *symbol) {
  XFFI_CHECK_ARG_NOT_NULL(name);
  if (!name[0]) return xffi_raise_arg(XFFI_KIND_VALUE, __func__, "name", "is empty");
  return xffi_system_lib_register(name, symbol);
}
