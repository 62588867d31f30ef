/* c/runtime/global_args.c: argument checks of the built-in ffi.* globals
 * (c/runtime/global_args.h). */
#include "runtime/global_args.h"

#include <stdio.h>

int xffi_global_check_call(const char *fn, const xffi_any *args, int32_t num_args, int32_t expected,
                           const xffi_any *result) {
  if (result == NULL) return xffi_error_raise(XFFI_KIND_VALUE, "%s: result is NULL", fn);
  if (num_args < 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: num_args is negative (%d)", fn, (int)num_args);
  if (args == NULL && num_args > 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: args is NULL but num_args is %d", fn, (int)num_args);
  if (expected != XFFI_GLOBAL_ANY_COUNT && num_args != expected)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: expected %d argument%s, got %d", fn, (int)expected,
                            expected == 1 ? "" : "s", (int)num_args);
  for (int32_t i = 0; i < num_args; ++i) {
    if (XFFI_UNLIKELY(!xffi_any_is_well_formed(&args[i]))) {
      char what[32];
      snprintf(what, sizeof what, "argument %d", (int)i);
      return xffi_any_raise_malformed(fn, what, &args[i]);
    }
  }
  return XFFI_OK;
}

int xffi_global_raise_index(const char *fn, int64_t index, const char *kind, int64_t size) {
  return xffi_error_raise(XFFI_KIND_INDEX, "%s: index %lld out of range for a %s of size %lld", fn, (long long)index,
                          kind, (long long)size);
}

/* Strings longer than this are named by kind and length only. */
#define MISSING_KEY_SHOWN_BYTES 64

int xffi_global_raise_missing_key(const char *fn, const xffi_any *key) {
  switch (key->type_index) {
    case XFFI_TYPE_INT: return xffi_error_raise(XFFI_KIND_KEY, "%s: key %lld not found", fn, (long long)key->v_int64);
    case XFFI_TYPE_BOOL:
      return xffi_error_raise(XFFI_KIND_KEY, "%s: key %s not found", fn, key->v_int64 ? "True" : "False");
    default: break;
  }
  xffi_byte_array text;
  int is_str = key->type_index == XFFI_TYPE_SMALL_STR || key->type_index == XFFI_TYPE_STRING ||
               key->type_index == XFFI_TYPE_RAW_STR;
  if (is_str && xffi_any_to_str(&text, key) == XFFI_OK) {
    if (text.size <= MISSING_KEY_SHOWN_BYTES)
      return xffi_error_raise(XFFI_KIND_KEY, "%s: key \"%.*s\" not found", fn, (int)text.size, text.data);
    return xffi_error_raise(XFFI_KIND_KEY, "%s: key (a str of %zu bytes) not found", fn, text.size);
  }
  return xffi_error_raise(XFFI_KIND_KEY, "%s: key (a %s) not found", fn, xffi_any_kind_name(key));
}
