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
#include "runtime/string_internal.h"

/* The key helpers the chain walks call once per step: inline at every
 * optimisation level (-O2 would leave them out of line). */
#if defined(__GNUC__) || defined(__clang__)
#  define MAP_KEY_INLINE __attribute__((always_inline)) static inline
#  define MAP_OUT_OF_LINE __attribute__((noinline)) static
#else
#  define MAP_KEY_INLINE static inline
#  define MAP_OUT_OF_LINE static
#endif
/* MAP_OUT_OF_LINE: a specialised copy kept whole, so that its caller, a
 * dispatcher, stays a tail call without the copy's register saves. */

/* tvm-ffi's StableHashCombine and StableHashBytes (c/runtime/hash.h), by the
 * names the map's code uses. */
#define MAP_HASH_MOD XFFI_STABLE_HASH_MOD
static inline uint64_t map_hash_combine(uint64_t key, uint64_t value) { return xffi_stable_hash_combine(key, value); }
static inline uint64_t map_le_word(const char *p, size_t n) { return xffi_stable_le_word(p, n); }
static inline uint64_t map_hash_mod(uint64_t x) { return xffi_stable_hash_mod(x); }
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

/* Whether n bytes at x and y are equal. From 8 bytes on, the first and the
 * last 8 are compared as words first (overlapping when n < 16): keys of a
 * chain that differ are told apart without a call, and keys of up to 16
 * bytes need none at all. */
MAP_KEY_INLINE int map_same_bytes(const char *x, const char *y, size_t n) {
  if (n < 8) return n == 0 || memcmp(x, y, n) == 0;
  uint64_t x0, y0, x1, y1;
  memcpy(&x0, x, 8);
  memcpy(&y0, y, 8);
  memcpy(&x1, x + n - 8, 8);
  memcpy(&y1, y + n - 8, 8);
  if (x0 != y0 || x1 != y1) return 0;
  return n <= 16 || memcmp(x + 8, y + 8, n - 16) == 0;
}

/* Whether two text values have the same bytes (the less common forms:
 * map_key_equal compares two String or Bytes objects itself). */
static inline int map_same_text(const xffi_any *a, const xffi_any *b) {
  xffi_byte_array x = map_text_of(a), y = map_text_of(b);
  return x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, x.size) == 0);
}

/* Whether two values have the same 16 bytes (type, padding, payload). */
MAP_KEY_INLINE int map_same_bits(const xffi_any *a, const xffi_any *b) {
  uint64_t a0, b0, a1, b1;
  memcpy(&a0, a, 8);
  memcpy(&b0, b, 8);
  memcpy(&a1, (const char *)a + 8, 8);
  memcpy(&b1, (const char *)b + 8, 8);
  return a0 == b0 && a1 == b1;
}

/* Whether objects of type t may have a custom hash or equality: every
 * object but String and Bytes. */
static inline int map_may_be_custom(int32_t t) {
  return t >= XFFI_TYPE_STATIC_OBJECT_BEGIN && t != XFFI_TYPE_STRING && t != XFFI_TYPE_BYTES;
}

/* c/lib/container/map_hash.c: the custom paths (type attribute columns). */
int xffi_map_object_hash(uint64_t *out, const xffi_any *key);
int xffi_map_object_equal(int *out, const xffi_any *a, const xffi_any *b);

/* AnyHash of a value that is neither text nor an object (ints, floats,
 * None, pointers, devices...): its type and its 8 payload bytes. */
static inline uint64_t map_plain_hash(const xffi_any *key) {
  uint64_t word;
  memcpy(&word, &key->v_int64, sizeof(word));
  return map_hash_combine((uint64_t)(uint32_t)key->type_index, word);
}

/* AnyHash of a String or Bytes object (type t, obj borrowed); the bytes'
 * hash is cached in the objects xffi allocates (c/runtime/string_internal.h). */
static inline uint64_t map_text_object_hash(int32_t t, const xffi_object *obj) {
  return map_hash_combine((uint64_t)t, xffi_string_stable_hash(obj));
}

/* AnyHash, every kind (c/lib/container/map_hash.c; map_key_hash has the common ones
 * inline). XFFI_OK, or XFFI_FAIL when a custom hash failed (raised). */
int xffi_map_any_hash(uint64_t *out, const xffi_any *key);

/* AnyHash with the common kinds inline (plain values, String and Bytes
 * objects), the rest out of line. */
MAP_KEY_INLINE int map_key_hash(uint64_t *out, const xffi_any *key) {
  int32_t t = key->type_index;
  if (t < XFFI_TYPE_STATIC_OBJECT_BEGIN && !map_is_text(t)) {
    *out = map_plain_hash(key);
    return XFFI_OK;
  }
  if (t == XFFI_TYPE_STRING || t == XFFI_TYPE_BYTES) {
    *out = map_text_object_hash(t, key->v_obj);
    return XFFI_OK;
  }
  return xffi_map_any_hash(out, key);
}

/* What AnyEqual finds: MAP_KEY_EQUAL, MAP_KEY_OTHER, or MAP_KEY_FAILED
 * when a custom equality failed (raised). */
enum { MAP_KEY_FAILED = -1, MAP_KEY_OTHER = 0, MAP_KEY_EQUAL = 1 };

/* AnyEqual, the rest of it (c/lib/container/map_hash.c): values of different kinds, and
 * objects that may have a custom equality. */
int xffi_map_any_equal_slow(const xffi_any *a, const xffi_any *b);

/* AnyEqual, its common outcomes inline: the same bits, two String or two
 * Bytes objects, two plain values of one kind. */
MAP_KEY_INLINE int map_key_equal(const xffi_any *a, const xffi_any *b) {
  if (map_same_bits(a, b)) return MAP_KEY_EQUAL;
  int32_t t = a->type_index;
  if (t == b->type_index) {
    if (t == XFFI_TYPE_STRING || t == XFFI_TYPE_BYTES) {
      xffi_byte_array x = xffi_string_cell_of_unchecked(a->v_obj), y = xffi_string_cell_of_unchecked(b->v_obj);
      return x.size == y.size && map_same_bytes(x.data, y.data, x.size);
    }
    if (!map_may_be_custom(t)) return MAP_KEY_OTHER; /* plain values: equal only with the same bits */
  }
  return xffi_map_any_equal_slow(a, b);
}

/* AnyEqual: *out 1 or 0. XFFI_FAIL when a custom equality failed (raised). */
static inline int xffi_map_any_equal(int *out, const xffi_any *a, const xffi_any *b) {
  int eq = map_key_equal(a, b);
  *out = eq == MAP_KEY_EQUAL;
  return eq == MAP_KEY_FAILED ? XFFI_FAIL : XFFI_OK;
}

#endif /* XFFI_MAP_KEY_H */
