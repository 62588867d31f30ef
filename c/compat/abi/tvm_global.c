/* c/compat/abi/tvm_global.c: tvm-ffi's C functions for the global function
 * registry (xffi/tvm_ffi.h), over xffi's own (c/runtime/func_registry.c).
 * Unlike tvm-ffi, every one checks its arguments and raises an error
 * (returning -1) on NULLs and wrong types. Out of the call path, so compiled
 * for size (CMakeLists.txt), apart from tvm_function.c's TVMFFIFunctionCall. */
#include <xffi/function.h>
#include <xffi/tvm_ffi.h>

#include "runtime/check.h"
#include "runtime/func_registry.h"
#include "runtime/internal.h"

/* ValueError when a byte array argument cannot be read. */
static int check_byte_array(const char *fn, const char *argument, const xffi_byte_array *bytes) {
  if (!bytes) return xffi_raise_null_arg(fn, argument);
  if (!bytes->data && bytes->size)
    return xffi_raise_arg(XFFI_KIND_VALUE, fn, argument, "data is NULL but size is %zu", bytes->size);
  return XFFI_OK;
}

int TVMFFIFunctionGetGlobal(const xffi_byte_array *name, void **out) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  if (check_byte_array(__func__, "name", name) != XFFI_OK) return XFFI_FAIL;
  xffi_object *f = NULL;
  if (xffi_function_global_lookup_bytes(&f, *name) != XFFI_OK) return XFFI_FAIL;
  *out = f;
  return XFFI_OK;
}

int TVMFFIFunctionSetGlobal(const xffi_byte_array *name, void *f, int allow_override) {
  if (check_byte_array(__func__, "name", name) != XFFI_OK) return XFFI_FAIL;
  XFFI_CHECK_ARG_OBJECT((xffi_object *)f, XFFI_TYPE_FUNCTION);
  xffi_byte_array none = {NULL, 0};
  return xffi_registry_set(*name, f, none, none, allow_override, XFFI_KIND_RUNTIME, __func__, "");
}

/* The wheel's text after "... is already registered" for this entry point
 * (its static registrations come through it), trailing space included. */
static const char duplicate_method_causes[] =
    ", possible causes:\n- Two GlobalDef().def registrations for the same function \nPlease remove the duplicate "
    "registration.";

int TVMFFIFunctionSetGlobalFromMethodInfo(const xffi_method_info *method_info, int allow_override) {
  XFFI_CHECK_ARG_NOT_NULL(method_info);
  if (check_byte_array(__func__, "method_info->name", &method_info->name) != XFFI_OK ||
      check_byte_array(__func__, "method_info->doc", &method_info->doc) != XFFI_OK ||
      check_byte_array(__func__, "method_info->metadata", &method_info->metadata) != XFFI_OK)
    return XFFI_FAIL;
  const xffi_any *method = &method_info->method;
  if (method->type_index != XFFI_TYPE_FUNCTION || !method->v_obj)
    return xffi_raise_type_mismatch(__func__, "method_info->method to be an ffi.Function", method);
  return xffi_registry_set(method_info->name, method->v_obj, method_info->doc, method_info->metadata, allow_override,
                           XFFI_KIND_RUNTIME, __func__, duplicate_method_causes);
}
