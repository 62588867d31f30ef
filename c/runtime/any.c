/* c/runtime/any.c: owned copies of views, string values, and checked accessors. */
#include <string.h>

#include "runtime/check.h"
#include "runtime/internal.h"
#include "runtime/string_internal.h"

const char *xffi_any_kind_name(const xffi_any *v) {
  if (!v) return "NULL";
  switch (v->type_index) {
    case XFFI_TYPE_RAW_STR:
    case XFFI_TYPE_SMALL_STR: return "str";
    case XFFI_TYPE_BYTE_ARRAY_PTR:
    case XFFI_TYPE_SMALL_BYTES: return "bytes";
    default: return xffi_type_key(v->type_index);
  }
}

int xffi_any_raise_malformed(const char *fn, const char *what, const xffi_any *v) {
  const char *why;
  switch (v->type_index) {
    case XFFI_TYPE_RAW_STR: why = "a borrowed C string (RAW_STR) with a NULL pointer"; break;
    case XFFI_TYPE_BYTE_ARRAY_PTR:
      why = v->v_bytes_ptr ? "a borrowed byte array (BYTE_ARRAY_PTR) with NULL data and a non-zero size"
                           : "a borrowed byte array (BYTE_ARRAY_PTR) with a NULL pointer";
      break;
    case XFFI_TYPE_DLTENSOR_PTR: why = "a DLTensor view (DLTENSOR_PTR) with a NULL pointer"; break;
    case XFFI_TYPE_SMALL_STR:
    case XFFI_TYPE_SMALL_BYTES:
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s is malformed: a small %s of length %u (at most %d fit inline)",
                              fn, what, v->type_index == XFFI_TYPE_SMALL_STR ? "string" : "bytes value",
                              (unsigned)v->small_len, XFFI_SMALL_STR_MAX);
    default:
      if (v->type_index < 0)
        return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s is malformed: negative type index %d", fn, what,
                                (int)v->type_index);
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s is malformed: object type index %d with a NULL object", fn, what,
                              (int)v->type_index);
  }
  return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s is malformed: %s", fn, what, why);
}

/* The error of a checked accessor given the wrong kind: ValueError when v is
 * malformed, else TypeError "expected <expected>, got <kind>". */
static int accessor_mismatch(const char *fn, const char *expected, const xffi_any *v) {
  if (!xffi_any_is_well_formed(v)) return xffi_any_raise_malformed(fn, "v", v);
  return xffi_raise_type_mismatch(fn, expected, v);
}

/* *out = a small value of kind type_index holding size <= 7 bytes,
 * NUL-terminated: written in place, by fixed-size moves (no call). */
static void small_value_into(xffi_any *out, int32_t type_index, const char *data, size_t size) {
  *out = xffi_any_none(); /* the bytes after the text are NULs */
  out->type_index = type_index;
  out->small_len = (uint32_t)size;
  xffi_copy_short(out->v_small, data, size);
}

/* The argument errors of owned_text, kept off its hot path. */
static int __attribute__((noinline, cold)) owned_text_bad_args(const xffi_any *out, size_t size, const char *fn) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  return xffi_error_raise(XFFI_KIND_VALUE, "%s: data is NULL but size is %zu", fn, size);
}

/* Inlined into its callers: a String into an Any is a hot path. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
owned_text(xffi_any *out, const char *data, size_t size, int is_bytes, const char *fn) {
  if (XFFI_UNLIKELY(!out || (!data && size))) return owned_text_bad_args(out, size, fn);
  if (size > XFFI_SMALL_STR_MAX)
    return xffi_string_any_new(out, data, size, is_bytes ? XFFI_TYPE_BYTES : XFFI_TYPE_STRING);
  small_value_into(out, is_bytes ? XFFI_TYPE_SMALL_BYTES : XFFI_TYPE_SMALL_STR, data, size);
  return XFFI_OK;
}

int xffi_any_from_str(xffi_any *out, const char *data, size_t size) { return owned_text(out, data, size, 0, __func__); }

int xffi_any_from_bytes(xffi_any *out, const char *data, size_t size) {
  return owned_text(out, data, size, 1, __func__);
}

int xffi_any_copy(xffi_any *out, const xffi_any *view) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(view);
  if (xffi_any_check(__func__, "view", view) != XFFI_OK) {
    *out = xffi_any_none();
    return XFFI_FAIL;
  }
  switch (view->type_index) {
    case XFFI_TYPE_RAW_STR: return owned_text(out, view->v_c_str, strlen(view->v_c_str), 0, __func__);
    case XFFI_TYPE_BYTE_ARRAY_PTR:
      return owned_text(out, view->v_bytes_ptr->data, view->v_bytes_ptr->size, 1, __func__);
    case XFFI_TYPE_OBJECT_RVALUE:
      return xffi_error_raise(XFFI_KIND_TYPE, "%s: cannot copy an object rvalue reference (a move)", __func__);
    default:
      if (xffi_any_is_object(view)) xffi_object_inc_ref_inline(view->v_obj);
      *out = *view;
      return XFFI_OK;
  }
}

/* ---- Checked accessors ---- */

int xffi_any_to_int(int64_t *out, const xffi_any *v) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(v);
  if (v->type_index != XFFI_TYPE_INT && v->type_index != XFFI_TYPE_BOOL) return accessor_mismatch(__func__, "int", v);
  *out = v->v_int64;
  return XFFI_OK;
}

int xffi_any_to_bool(int *out, const xffi_any *v) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(v);
  if (v->type_index != XFFI_TYPE_INT && v->type_index != XFFI_TYPE_BOOL) return accessor_mismatch(__func__, "bool", v);
  *out = v->v_int64 != 0;
  return XFFI_OK;
}

int xffi_any_to_float(double *out, const xffi_any *v) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(v);
  switch (v->type_index) {
    case XFFI_TYPE_FLOAT: *out = v->v_float64; return XFFI_OK;
    case XFFI_TYPE_INT:
    case XFFI_TYPE_BOOL: *out = (double)v->v_int64; return XFFI_OK;
    default: return accessor_mismatch(__func__, "float", v);
  }
}

int xffi_any_to_ptr(void **out, const xffi_any *v) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(v);
  if (v->type_index == XFFI_TYPE_NONE)
    *out = NULL;
  else if (v->type_index == XFFI_TYPE_OPAQUE_PTR)
    *out = v->v_ptr;
  else
    return accessor_mismatch(__func__, "void*", v);
  return XFFI_OK;
}

int xffi_any_to_dtype(DLDataType *out, const xffi_any *v) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(v);
  if (v->type_index != XFFI_TYPE_DTYPE) return accessor_mismatch(__func__, "dtype", v);
  *out = v->v_dtype;
  return XFFI_OK;
}

int xffi_any_to_device(DLDevice *out, const xffi_any *v) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(v);
  if (v->type_index != XFFI_TYPE_DEVICE) return accessor_mismatch(__func__, "device", v);
  *out = v->v_device;
  return XFFI_OK;
}

/* The bytes of any string-like value; 0 if v is not one. Bytes kinds count
 * only when accept_bytes. */
static int text_of(xffi_byte_array *out, const xffi_any *v, int accept_bytes) {
  switch (v->type_index) {
    case XFFI_TYPE_SMALL_BYTES:
      if (!accept_bytes) return 0;
      /* fall through */
    case XFFI_TYPE_SMALL_STR:
      out->data = v->v_small;
      out->size = v->small_len;
      return 1;
    case XFFI_TYPE_RAW_STR:
      out->data = v->v_c_str;
      out->size = strlen(v->v_c_str);
      return 1;
    case XFFI_TYPE_BYTE_ARRAY_PTR:
      if (!accept_bytes) return 0;
      *out = *v->v_bytes_ptr;
      return 1;
    case XFFI_TYPE_BYTES:
      if (!accept_bytes) return 0;
      /* fall through */
    case XFFI_TYPE_STRING: *out = xffi_string_cell_of_unchecked(v->v_obj); return 1;
    default: return 0;
  }
}

int xffi_any_to_str(xffi_byte_array *out, const xffi_any *v) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(v);
  XFFI_CHECK_ARG_ANY(v);
  if (!text_of(out, v, 0)) return xffi_raise_type_mismatch(__func__, "str", v);
  return XFFI_OK;
}

int xffi_any_to_bytes(xffi_byte_array *out, const xffi_any *v) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(v);
  XFFI_CHECK_ARG_ANY(v);
  if (!text_of(out, v, 1)) return xffi_raise_type_mismatch(__func__, "bytes", v);
  return XFFI_OK;
}

int xffi_any_to_object(xffi_object **out, const xffi_any *v, int32_t type_index) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(v);
  XFFI_CHECK_ARG_ANY(v);
  XFFI_CHECK_ARG_OBJECT_TYPE(type_index);
  const xffi_type_info *expected = xffi_type_info_find(type_index);
  if (v->type_index == XFFI_TYPE_NONE) {
    *out = NULL;
    return XFFI_OK;
  }
#ifdef XFFI_NO_FOREIGN_RUNTIME /* the table's forms read no size (xffi/sys/type.h) */
  if (xffi_any_is_object(v) && (v->type_index >= xffi_type_count() || !xffi_object_type_info_unchecked(v->v_obj)))
    return xffi_raise_type_mismatch(__func__, expected->type_key.data, v);
#endif
  if (!xffi_any_is_object(v) || !xffi_object_is_a_type_unchecked(v->v_obj, expected))
    return xffi_raise_type_mismatch(__func__, expected->type_key.data, v);
  *out = v->v_obj;
  return XFFI_OK;
}
