/* c/runtime/check.c: the messages of failed argument checks (c/runtime/check.h). */
#include <stdarg.h>
#include <stdio.h>

#include "runtime/check.h"

int xffi_raise_arg(const char *kind, const char *function, const char *argument, const char *detail_format, ...) {
  /* Format the detail first, then prefix it; the detail is short (a few
   * words and numbers), so a stack buffer holds it. */
  char detail[256];
  va_list args;
  va_start(args, detail_format);
  int size = vsnprintf(detail, sizeof(detail), detail_format, args);
  va_end(args);
  if (size < 0) detail[0] = '\0';
  return xffi_error_raise(kind, "%s: %s %s", function, argument, detail);
}

int xffi_raise_null_arg(const char *function, const char *argument) {
  return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s is NULL", function, argument);
}

int xffi_raise_type_mismatch(const char *function, const char *expected, const xffi_any *got) {
  return xffi_error_raise(XFFI_KIND_TYPE, "%s: expected %s, got %s", function, expected, xffi_any_kind_name(got));
}

int xffi_check_object_arg(const char *function, const char *argument, const xffi_object *obj, int32_t type_index) {
  if (!obj) return xffi_raise_null_arg(function, argument);
  if (!xffi_type_info_find(obj->type_index) || obj->type_index < XFFI_TYPE_STATIC_OBJECT_BEGIN)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s expected %s, got an object of unregistered type index %d", function,
                            argument, xffi_type_key(type_index), (int)obj->type_index);
  if (xffi_object_is_a_unchecked(obj, type_index)) return XFFI_OK;
  return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s expected %s, got %s", function, argument, xffi_type_key(type_index),
                          xffi_type_key(obj->type_index));
}

int xffi_check_object_type_arg(const char *function, const char *argument, int32_t type_index) {
  if (type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN && xffi_type_info_find(type_index)) return XFFI_OK;
  return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s %d is not a registered object type", function, argument,
                          (int)type_index);
}
