/* c/compat/globals/globals_type.c: the runtime's ffi.* global functions of the type
 * registry (c/compat/globals/builtin_globals.h). */
#include "compat/globals/builtin_globals.h"
#include "runtime/check.h"

/* ffi.GetRegisteredTypeKeys() -> Array of the keys of all registered
 * types, in index order (holes skipped), as tvm-ffi lists them. */
static int get_registered_type_keys(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  (void)args;
  XFFI_CHECK_ARG_NOT_NULL(result);
  XFFI_CHECK_ARG(num_args, num_args == 0, XFFI_KIND_TYPE, "is %d, but ffi.GetRegisteredTypeKeys takes no arguments",
                 (int)num_args);
  /* Types registered meanwhile are left out: the count is read once. */
  int32_t count = xffi_type_count();
  xffi_any *keys = xffi_alloc((size_t)count * sizeof(xffi_any));
  if (!keys) return xffi_error_raise_out_of_memory();
  int64_t n = 0;
  for (int32_t i = 0; i < count; ++i) {
    const xffi_type_info *info = xffi_type_info_find(i);
    if (info) keys[n++] = xffi_any_c_str(info->type_key.data); /* keys are NUL-terminated, immortal */
  }
  xffi_object *array = NULL;
  int status = xffi_array_new(&array, keys, n); /* copies each key into a string */
  xffi_free(keys);
  if (status != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(array);
  return XFFI_OK;
}

XFFI_BUILTIN_FUNCTION(get_registered_type_keys_function, get_registered_type_keys);

static const xffi_builtin_global type_globals[] = {
    {"ffi.GetRegisteredTypeKeys", &get_registered_type_keys_function, "ffi.Array<ffi.String>()"},
};

const xffi_builtin_table xffi_globals_type = {type_globals, sizeof(type_globals) / sizeof(type_globals[0])};
