/* c/runtime/bigint.c: ffi.BigInt (type index 78), integers wider than 64 bits, in
 * tvm-ffi's layout: the object header, a size_t count of 64-bit words, then
 * the words inline (two's complement, least significant first, native byte
 * order). Values are normalised: no redundant top sign word, and a value
 * that fits 64 bits is a plain int Any, never a BigInt object. */
#include <string.h>

#include "runtime/bigint.h"
#include "runtime/check.h"

typedef struct bigint_object {
  xffi_object header;
  size_t size; /* words that follow the struct */
} bigint_object;

static int64_t *bigint_words(bigint_object *obj) { return (int64_t *)(void *)(obj + 1); }

static void bigint_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

int xffi_bigint_from_bytes(const char *fn, const xffi_byte_array *input, xffi_any *out) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = xffi_any_int(0);
  if (!input) return xffi_raise_null_arg(fn, "input");
  if (!input->data && input->size)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: input->data is NULL but input->size is %zu", fn, input->size);
  if (input->size % sizeof(int64_t) != 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: BigInt content must contain whole 64-bit words, got %zu bytes", fn,
                            input->size);
  size_t size = input->size / sizeof(int64_t);
  /* Drop top words that only repeat the sign of the word below. Read with
   * memcpy: the input need not be aligned. */
  int64_t top, below;
  while (size > 1) {
    memcpy(&top, input->data + (size - 1) * sizeof(int64_t), sizeof(top));
    memcpy(&below, input->data + (size - 2) * sizeof(int64_t), sizeof(below));
    if (top != (below < 0 ? -1 : 0)) break;
    --size;
  }
  if (size <= 1) {
    int64_t value = 0;
    if (size) memcpy(&value, input->data, sizeof(value));
    *out = xffi_any_int(value);
    return XFFI_OK;
  }
  if (size > (SIZE_MAX - sizeof(bigint_object)) / sizeof(int64_t)) return xffi_error_raise_out_of_memory();
  bigint_object *obj = xffi_runtime_object_alloc(sizeof(bigint_object) + size * sizeof(int64_t),
                                                 _Alignof(bigint_object), XFFI_TYPE_BIGINT);
  if (!obj) return XFFI_FAIL;
  xffi_object_init(&obj->header, XFFI_TYPE_BIGINT, bigint_deleter);
  obj->size = size;
  memcpy(bigint_words(obj), input->data, size * sizeof(int64_t));
  out->type_index = XFFI_TYPE_BIGINT;
  out->v_obj = &obj->header;
  return XFFI_OK;
}

xffi_byte_array xffi_bigint_content(const char *fn, const xffi_any *value) {
  xffi_byte_array none = {NULL, 0};
  if (!value) {
    xffi_raise_null_arg(fn, "value");
    return none;
  }
  if (value->type_index == XFFI_TYPE_INT) return (xffi_byte_array){(const char *)&value->v_int64, sizeof(int64_t)};
  if (value->type_index == XFFI_TYPE_BIGINT && value->v_obj && value->v_obj->type_index == XFFI_TYPE_BIGINT) {
    bigint_object *obj = (bigint_object *)(void *)value->v_obj;
    return (xffi_byte_array){(const char *)bigint_words(obj), obj->size * sizeof(int64_t)};
  }
  xffi_raise_type_mismatch(fn, "int or ffi.BigInt", value);
  return none;
}
