/* c/compat/globals/globals_misc.c: the runtime's misc ffi.* globals (c/compat/globals/builtin_globals.h):
 * ffi.String and ffi.Bytes (identity conversions: a value of the kind comes
 * back as that kind, a String or Bytes object as the same object), and
 * ffi.GetInvalidObject / ffi.GetKwargsObject, which return the two static
 * sentinels the tvm_ffi package compares against (MISSING and KWARGS). */
#include "compat/globals/builtin_globals.h"
#include "runtime/global_args.h"
#include "compat/globals/globals_container.h"
#include "runtime/static_object.h"

static int global_string(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.String";
  xffi_byte_array text;
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_str(&text, args, num_args, 0, fn) != XFFI_OK) return XFFI_FAIL;
  if (args[0].type_index == XFFI_TYPE_STRING) {
    *result = xffi_any_object_new_ref(args[0].v_obj);
    return XFFI_OK;
  }
  return xffi_any_from_str(result, text.data, text.size); /* small stays small, a C string is copied */
}

static int global_bytes(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.Bytes";
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  const xffi_any *v = &args[0];
  switch (v->type_index) {
    case XFFI_TYPE_BYTES: *result = xffi_any_object_new_ref(v->v_obj); return XFFI_OK;
    case XFFI_TYPE_SMALL_BYTES: *result = *v; return XFFI_OK;
    case XFFI_TYPE_BYTE_ARRAY_PTR: return xffi_any_from_bytes(result, v->v_bytes_ptr->data, v->v_bytes_ptr->size);
    default:
      /* A string is not bytes (as in tvm-ffi). */
      return xffi_error_raise(XFFI_KIND_TYPE, "%s: argument 0: expected bytes, got %s", fn, xffi_any_kind_name(v));
  }
}

/* Returns a new reference to a sentinel; takes no arguments. */
static int return_sentinel(const char *fn, xffi_object *sentinel, const xffi_any *args, int32_t num_args,
                           xffi_any *result) {
  if (xffi_global_check_call(fn, args, num_args, 0, result) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object_new_ref(sentinel);
  return XFFI_OK;
}

static int global_get_invalid_object(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return return_sentinel("ffi.GetInvalidObject", &xffi_missing_object, args, num_args, result);
}

static int global_get_kwargs_object(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return return_sentinel("ffi.GetKwargsObject", &xffi_kwargs_object, args, num_args, result);
}

XFFI_BUILTIN_FUNCTION(string_function, global_string);
XFFI_BUILTIN_FUNCTION(bytes_function, global_bytes);
XFFI_BUILTIN_FUNCTION(get_invalid_object_function, global_get_invalid_object);
XFFI_BUILTIN_FUNCTION(get_kwargs_object_function, global_get_kwargs_object);

static const xffi_builtin_global misc_globals[] = {
    {"ffi.String", &string_function, "ffi.String(ffi.String)"},
    {"ffi.Bytes", &bytes_function, "ffi.Bytes(ffi.Bytes)"},
    {"ffi.GetInvalidObject", &get_invalid_object_function, "ffi.Object()"},
    {"ffi.GetKwargsObject", &get_kwargs_object_function, "ffi.Object()"},
};

const xffi_builtin_table xffi_globals_misc = {misc_globals, sizeof(misc_globals) / sizeof(misc_globals[0])};
