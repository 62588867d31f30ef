/* c/lib/container/map_key.h: tvm-ffi's AnyHash and AnyEqual for map keys, inline for the
 * common kinds (private). Objects of types that may register
 * `__any_hash__`/`__any_equal__` go out of line (c/lib/container/map_hash.c), so that
 * strings, ints and other plain keys cost no call. Keys are stored keys or
 * normalized probes (xffi_map_key_normalize): never rvalues; borrowed text
 * only as a probe of more than 7 bytes. */
#ifndef XFFI_MAP_KEY_H
#define XFFI_MAP_KEY_H

#include <stdint.h>
#include <string.h>

#include <xffi/any.h>
#include <xffi/string.h>

#include "runtime/hash.h"
#include "runtime/internal.h"

/* tvm-ffi's StableHashCombine and StableHashBytes (c/runtime/hash.h). */
static inline uint64_t map_hash_combine(uint64_t key, uint64_t value) { return xffi_stable_hash_combine(key, value); }
static inline uint64_t map_stable_hash_bytes(const char *data, size_t size) {
  return xffi_stable_hash_bytes(data, size);
}

static inline int map_is_str_kind(int32_t t) {
  return t == XFFI_TYPE_STRING || t == XFFI_TYPE_SMALL_STR || t == XFFI_TYPE_RAW_STR;
}

/* Text kinds: the stored four, and the borrowed forms a probe may be. */
static inline int map_is_text(int32_t t) {
  return t == XFFI_TYPE_STRING || t == XFFI_TYPE_BYTES || t == XFFI_TYPE_SMALL_STR || t == XFFI_TYPE_SMALL_BYTES ||
         t == XFFI_TYPE_RAW_STR || t == XFFI_TYPE_BYTE_ARRAY_PTR;
}

/* The bytes of a text value (map_is_text). */
static inline xffi_byte_array map_text_of(const xffi_any *v) {
  xffi_byte_array b;
  switch (v->type_index) {
    case XFFI_TYPE_SMALL_STR:
    case XFFI_TYPE_SMALL_BYTES:
      b.data = v->v_small;
      b.size = v->small_len;
      return b;
    case XFFI_TYPE_RAW_STR:
      b.data = v->v_c_str;
      b.size = strlen(v->v_c_str);
      return b;
    case XFFI_TYPE_BYTE_ARRAY_PTR: return *v->v_bytes_ptr;
    default: return xffi_string_cell_of_unchecked(v->v_obj);
  }
}

static inline int map_same_text(const xffi_any *a, const xffi_any *b) {
  xffi_byte_array x = map_text_of(a), y = map_text_of(b);
  return x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, x.size) == 0);
}

/* Whether objects of type t may have a custom hash or equality: every
 * object but String and Bytes. */
static inline int map_may_be_custom(int32_t t) {
  return t >= XFFI_TYPE_STATIC_OBJECT_BEGIN && t != XFFI_TYPE_STRING && t != XFFI_TYPE_BYTES;
}

/* c/lib/container/map_hash.c: the custom paths (type attribute columns). */
int xffi_map_object_hash(uint64_t *out, const xffi_any *key);
int xffi_map_object_equal(int *out, const xffi_any *a, const xffi_any *b);

/* AnyHash. XFFI_OK, or XFFI_FAIL when a custom hash failed (raised). */
static inline int xffi_map_any_hash(uint64_t *out, const xffi_any *key) {
  int32_t t = key->type_index;
  switch (t) {
    case XFFI_TYPE_SMALL_STR:
    case XFFI_TYPE_SMALL_BYTES:
      /* The same value as the equal String/Bytes: one zero-padded word. */
      *out = map_hash_combine(t == XFFI_TYPE_SMALL_STR ? XFFI_TYPE_STRING : XFFI_TYPE_BYTES,
                              xffi_stable_le_word(key->v_small, sizeof(key->v_small)) % XFFI_STABLE_HASH_MOD);
      return XFFI_OK;
    case XFFI_TYPE_STRING:
    case XFFI_TYPE_BYTES:
    case XFFI_TYPE_RAW_STR: /* a probe of more than 7 bytes: hashed as the String it stands for */
    case XFFI_TYPE_BYTE_ARRAY_PTR: {
      xffi_byte_array b = map_text_of(key);
      *out = map_hash_combine(map_is_str_kind(t) ? XFFI_TYPE_STRING : XFFI_TYPE_BYTES,
                              map_stable_hash_bytes(b.data, b.size));
      return XFFI_OK;
    }
    default: break;
  }
  if (XFFI_UNLIKELY(t >= XFFI_TYPE_STATIC_OBJECT_BEGIN)) return xffi_map_object_hash(out, key);
  uint64_t word;
  memcpy(&word, &key->v_int64, sizeof(word));
  *out = map_hash_combine((uint64_t)(uint32_t)t, word);
  return XFFI_OK;
}

/* AnyEqual: *out 1 or 0. XFFI_FAIL when a custom equality failed (raised). */
static inline int xffi_map_any_equal(int *out, const xffi_any *a, const xffi_any *b) {
  if (memcmp(a, b, sizeof(xffi_any)) == 0) {
    *out = 1;
    return XFFI_OK;
  }
  int32_t ta = a->type_index, tb = b->type_index;
  *out = 0;
  if (ta == tb) {
    if (ta == XFFI_TYPE_STRING || ta == XFFI_TYPE_BYTES) {
      *out = map_same_text(a, b);
    } else if (XFFI_UNLIKELY(map_may_be_custom(ta))) {
      return xffi_map_object_equal(out, a, b);
    }
    return XFFI_OK;
  }
  /* Different kinds: only a small and an object form of the same text kind. */
  if (map_is_text(ta) && map_is_text(tb) && map_is_str_kind(ta) == map_is_str_kind(tb)) *out = map_same_text(a, b);
  return XFFI_OK;
}

#endif /* XFFI_MAP_KEY_H */
