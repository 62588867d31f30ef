/* c/string.c: String and Bytes objects, byte comparison and hashing. */
#include <string.h>

#include "internal.h"

/* Header, cell, then the bytes and a NUL, in one allocation. */
typedef struct string_object {
  xffi_object header;
  xffi_string_cell cell;
  char bytes[];
} string_object;

size_t xffi_string_alloc_size(size_t n) {
  size_t bytes = sizeof(string_object) + n + 1;
  return bytes > n ? bytes : 0;
}

/* The argument errors of string_make, kept off its hot path. */
static int __attribute__((noinline, cold)) string_bad_args(xffi_object **out, const char *data, size_t size,
                                                           const char *fn) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  if (!data && size) return xffi_error_raise(XFFI_KIND_VALUE, "%s: data is NULL but size is %zu", fn, size);
  return xffi_error_raise_out_of_memory(); /* the size overflows */
}

static inline int string_make(xffi_object **out, const char *data, size_t size, int32_t type_index,
                              const char *fn) {
  if (XFFI_UNLIKELY(!out || (!data && size) || size > SIZE_MAX - sizeof(string_object) - 1))
    return string_bad_args(out, data, size, fn);
  string_object *s = xffi_alloc(sizeof(string_object) + size + 1);
  if (XFFI_UNLIKELY(!s)) {
    *out = NULL;
    return xffi_error_raise_out_of_memory();
  }
  xffi_object_init(&s->header, type_index, xffi_deleter_plain);
  memcpy(s->bytes, data ? data : "", size);
  s->bytes[size] = '\0';
  s->cell.data = s->bytes;
  s->cell.size = size;
  *out = &s->header;
  return XFFI_OK;
}

int xffi_string_new(xffi_object **out, const char *data, size_t size) {
  return string_make(out, data, size, XFFI_TYPE_STRING, "xffi_string_new");
}

int xffi_string_from_c_str(xffi_object **out, const char *c_str) {
  if (!c_str) return xffi_raise_null_arg("xffi_string_from_c_str", "c_str");
  return string_make(out, c_str, strlen(c_str), XFFI_TYPE_STRING, "xffi_string_from_c_str");
}

int xffi_bytes_new(xffi_object **out, const char *data, size_t size) {
  return string_make(out, data, size, XFFI_TYPE_BYTES, "xffi_bytes_new");
}

int xffi_string_get(xffi_byte_array *out, const xffi_object *obj) {
  if (!out) return xffi_raise_null_arg("xffi_string_get", "out");
  if (!obj) return xffi_raise_null_arg("xffi_string_get", "obj");
  if (obj->type_index != XFFI_TYPE_STRING && obj->type_index != XFFI_TYPE_BYTES)
    return xffi_error_raise(XFFI_KIND_TYPE, "xffi_string_get: obj expected String or Bytes, got %s",
                            xffi_type_key(obj->type_index));
  *out = xffi_string_view(obj);
  return XFFI_OK;
}

int xffi_bytes_compare(xffi_byte_array a, xffi_byte_array b) {
  size_t common = a.size < b.size ? a.size : b.size;
  int c = common ? memcmp(a.data, b.data, common) : 0;
  if (c) return c;
  return a.size < b.size ? -1 : a.size > b.size;
}

/* ---- Hashing ----
 * Multiply-fold: each step multiplies two 64-bit words into 128 bits and
 * xors the halves, which spreads every input bit over the whole result. */

__extension__ typedef unsigned __int128 uint128;

static uint64_t fold_multiply(uint64_t a, uint64_t b) {
  uint128 product = (uint128)a * b;
  return (uint64_t)product ^ (uint64_t)(product >> 64);
}

static uint64_t load64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static uint64_t load32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* Odd constants with well-mixed bits (digits of pi and e). */
#define MIX0 UINT64_C(0x243f6a8885a308d3)
#define MIX1 UINT64_C(0x13198a2e03707345)
#define MIX2 UINT64_C(0xa4093822299f31d1)
#define MIX3 UINT64_C(0xb7e151628aed2a6b)

uint64_t xffi_hash_bytes(const void *data, size_t size) {
  const unsigned char *p = data;
  uint64_t seed = MIX0 ^ fold_multiply(size ^ MIX1, MIX2);
  uint64_t a, b;
  if (size <= 16) {
    if (size >= 4) {
      /* Two overlapping reads from each end cover 4..16 bytes. */
      size_t mid = (size >> 3) << 2;
      a = (load32(p) << 32) | load32(p + mid);
      b = (load32(p + size - 4) << 32) | load32(p + size - 4 - mid);
    } else if (size > 0) {
      a = ((uint64_t)p[0] << 16) | ((uint64_t)p[size >> 1] << 8) | p[size - 1];
      b = 0;
    } else {
      a = b = 0;
    }
  } else {
    size_t left = size;
    uint64_t s1 = seed, s2 = seed;
    while (left > 32) {
      seed = fold_multiply(load64(p) ^ MIX1, load64(p + 8) ^ seed);
      s1 = fold_multiply(load64(p + 16) ^ MIX2, load64(p + 24) ^ s1);
      p += 32;
      left -= 32;
    }
    seed ^= s1 ^ s2;
    if (left > 16) {
      seed = fold_multiply(load64(p) ^ MIX1, load64(p + 8) ^ seed);
      p += 16;
      left -= 16;
    }
    /* The last 16 bytes, possibly overlapping what was already read. */
    a = load64(p + left - 16);
    b = load64(p + left - 8);
  }
  a ^= MIX1;
  b ^= seed;
  uint64_t h = fold_multiply(a, b);
  return fold_multiply(h ^ MIX3, (uint64_t)size ^ MIX1 ^ seed);
}
