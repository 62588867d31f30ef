/* c/lib/container/container_equal.c: value equality for the containers' contains globals
 * (c/lib/container/container_equal.h). */
#include "lib/container/container_equal.h"

enum { TEXT_NONE, TEXT_STR, TEXT_BYTES };

/* Which text kind v holds, with *out borrowing its bytes. */
static int text_of(const xffi_any *v, xffi_byte_array *out) {
  switch (v->type_index) {
    case XFFI_TYPE_SMALL_STR:
    case XFFI_TYPE_SMALL_BYTES:
      out->data = v->v_small;
      out->size = v->small_len;
      return v->type_index == XFFI_TYPE_SMALL_STR ? TEXT_STR : TEXT_BYTES;
    case XFFI_TYPE_STRING:
    case XFFI_TYPE_BYTES:
      *out = xffi_string_cell_of_unchecked(v->v_obj);
      return v->type_index == XFFI_TYPE_STRING ? TEXT_STR : TEXT_BYTES;
    case XFFI_TYPE_RAW_STR:
      out->data = v->v_c_str;
      out->size = strlen(v->v_c_str);
      return TEXT_STR;
    case XFFI_TYPE_BYTE_ARRAY_PTR: *out = *v->v_bytes_ptr; return TEXT_BYTES;
    default: return TEXT_NONE;
  }
}

int xffi_container_values_equal(const xffi_any *a, const xffi_any *b) {
  xffi_byte_array a_text, b_text;
  int a_kind = text_of(a, &a_text);
  int b_kind = text_of(b, &b_text);
  if (a_kind != TEXT_NONE || b_kind != TEXT_NONE) return a_kind == b_kind && xffi_bytes_equal(a_text, b_text);
  return a->type_index == b->type_index && a->v_int64 == b->v_int64;
}
