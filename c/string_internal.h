/* c/string_internal.h: what c/string.c shares with the map's lookups (c/map.c):
 * the short-input path of xffi_bytes_hash, inline, and the keyed map hash
 * (c/hash.h) cached in the String and Bytes objects this library allocates.
 * Private. */
#ifndef XFFI_STRING_INTERNAL_H
#define XFFI_STRING_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "hash.h"
#include "internal.h"

/* ---- Hashing (the definition of xffi_bytes_hash for up to 16 bytes) ---- */

/* Odd constants with well-mixed bits (digits of pi and e). */
#define XFFI_HASH_MIX0 UINT64_C(0x243f6a8885a308d3)
#define XFFI_HASH_MIX1 UINT64_C(0x13198a2e03707345)
#define XFFI_HASH_MIX2 UINT64_C(0xa4093822299f31d1)
#define XFFI_HASH_MIX3 UINT64_C(0xb7e151628aed2a6b)

/* xffi_hash_fold (and its 32-bit form) is in c/hash.h, shared with the keyed hash. */

/* The loads read little-endian on every target, so a hash (and anything that
 * depends on it, such as the order of a hash table's buckets) is the same on
 * big-endian machines (s390x) as on the others. */
static inline uint64_t xffi_hash_load64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static inline uint64_t xffi_hash_load32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  return v;
}

/* xffi_bytes_hash for size <= 16: the bytes (read as two possibly
 * overlapping words, all of them covered) meet in one 128-bit product; a
 * 64-bit multiply and a shift then carry its upper bits down, so that every
 * input bit flips every output bit with probability close to 1/2 (the strict
 * avalanche test in tests/c/test_string.c). */
static inline uint64_t xffi_hash_short(const void *data, size_t size) {
  const unsigned char *p = data;
  uint64_t a, b = 0;
  if (size >= 8) {
    a = xffi_hash_load64(p);
    b = xffi_hash_load64(p + size - 8);
  } else if (size >= 4) {
    a = (xffi_hash_load32(p) << 32) | xffi_hash_load32(p + size - 4);
  } else if (size > 0) {
    a = ((uint64_t)p[0] << 16) | ((uint64_t)p[size >> 1] << 8) | p[size - 1];
  } else {
    a = 0;
  }
  uint64_t h = xffi_hash_fold(a ^ XFFI_HASH_MIX1, b ^ XFFI_HASH_MIX2 ^ (uint64_t)size) * XFFI_HASH_MIX3;
  return h ^ (h >> 32);
}

/* xffi_bytes_hash, with the short path inline. */
static inline uint64_t xffi_hash_inline(const void *data, size_t size) {
  return XFFI_LIKELY(size <= 16) ? xffi_hash_short(data, size) : xffi_bytes_hash(data, size);
}

/* ---- The cached hash of String and Bytes objects ----
 * The String and Bytes objects made by c/string.c are allocated as
 *   [uint64 hash][24-byte header][16-byte cell][bytes][NUL]
 * with the object pointer at the header (so the tvm-ffi layout is unchanged:
 * the bytes still follow the cell). The hash word holds the keyed map hash
 * of the bytes (xffi_keyed_hash_bytes, not xffi_bytes_hash: map keys must not
 * be floodable); it is 0 until the first xffi_string_hash, which fills it
 * in (a relaxed atomic store: concurrent
 * readers may each compute and store the same value). Only objects whose
 * deleter is xffi_string_deleter have the word; String objects made by other
 * code (another runtime, another language) are hashed every time. */

/* Frees such an object's allocation (which starts 8 bytes before it). */
void xffi_string_deleter(void *self, int flags);

/* Computes, caches and returns the hash of an object of ours (out of line). */
uint64_t xffi_string_hash_fill(const xffi_object *obj);

/* The hash word of such an object (obj borrowed; the word lives in obj's
 * allocation), seen as 8-byte aligned (the allocation starts there) so that
 * its atomic loads and stores stay inline on i386 too. Use as
 * &xffi_string_hash_word(obj)->value. */
typedef struct xffi_string_hash_slot {
  uint64_t value __attribute__((aligned(8)));
} xffi_string_hash_slot;

static inline xffi_string_hash_slot *xffi_string_hash_word(const xffi_object *obj) {
  return (xffi_string_hash_slot *)(uintptr_t)obj - 1;
}

/* xffi_keyed_hash_bytes of a String or Bytes object's bytes (obj borrowed,
 * unchecked). */
static inline uint64_t xffi_string_hash(const xffi_object *obj) {
  if (XFFI_LIKELY(obj->deleter == xffi_string_deleter)) {
    uint64_t h = __atomic_load_n(&xffi_string_hash_word(obj)->value, __ATOMIC_RELAXED);
    if (XFFI_LIKELY(h != 0)) return h;
    return xffi_string_hash_fill(obj);
  }
  xffi_byte_array b = xffi_string_cell_of_unchecked(obj);
  return xffi_keyed_hash_bytes(b.data, b.size);
}

#endif /* XFFI_STRING_INTERNAL_H */
