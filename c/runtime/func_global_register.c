/* c/runtime/func_global_register.c: registering and erasing global functions
 * through xffi's API (xffi/function.h). The arguments are checked, then the
 * process's other tvm-ffi runtime, when this one is bound to it, goes first
 * (its callers, Python or other plugins, find the function there, and a name
 * taken there is taken here too), then this runtime's registry
 * (c/runtime/func_registry.c, whose lookups are the hot path; these are not,
 * and are compiled for size). */
#include <string.h>

#include "runtime/check.h"
#include "runtime/func_registry.h"

/* Registers func (borrowed) under name (fn names the caller in errors). */
static int register_global(const char *fn, const char *name, xffi_object *func, xffi_byte_array doc,
                           xffi_byte_array metadata, int allow_override) {
  xffi_byte_array text = {name, strlen(name)};
  if (!text.size) return xffi_error_raise(XFFI_KIND_VALUE, "%s: name is empty", fn);
  if (xffi_foreign_global_set(text, func, doc, metadata, allow_override) != XFFI_OK) return XFFI_FAIL;
  return xffi_registry_set(text, func, doc, metadata, allow_override, XFFI_KIND_VALUE, fn, NULL);
}

int xffi_function_global_register(const char *name, xffi_object *func, int allow_override) {
  XFFI_CHECK_ARG_NOT_NULL(name);
  XFFI_CHECK_ARG_OBJECT(func, XFFI_TYPE_FUNCTION);
  xffi_byte_array none = {NULL, 0};
  return register_global(__func__, name, func, none, none, allow_override);
}

int xffi_function_global_register_with_info(const char *name, xffi_object *func, xffi_byte_array doc,
                                            xffi_byte_array metadata, int allow_override) {
  XFFI_CHECK_ARG_NOT_NULL(name);
  XFFI_CHECK_ARG_OBJECT(func, XFFI_TYPE_FUNCTION);
  if (!doc.data && doc.size)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: doc.data is NULL but doc.size is %zu", __func__, doc.size);
  if (!metadata.data && metadata.size)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: metadata.data is NULL but metadata.size is %zu", __func__,
                            metadata.size);
  return register_global(__func__, name, func, doc, metadata, allow_override);
}

int xffi_function_global_erase(const char *name) {
  XFFI_CHECK_ARG_NOT_NULL(name);
  if (!name[0]) return xffi_error_raise(XFFI_KIND_VALUE, "%s: name is empty", __func__);
  xffi_byte_array text = {name, strlen(name)};
  int removed = 0;
  if (xffi_registry_remove(text, &removed) != XFFI_OK) return XFFI_FAIL;
  if (!removed) return xffi_error_raise(XFFI_KIND_KEY, "%s: no global function named '%s'", __func__, name);
  /* Registered there too when this runtime is bound to another. */
  return xffi_foreign_global_remove(text);
}
