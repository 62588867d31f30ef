/* c/runtime/hash.h: the hashes of byte strings (private): the keyed hash of the
 * registries' names (types, global functions), the public unkeyed
 * xffi_bytes_hash, and tvm-ffi's stable hash that Map and Dict place keys by.
 *
 * Names may come from callers who choose them to collide (hash flooding:
 * thousands of names sharing one home slot turn inserts quadratic). So the
 * registries hash them with a secret 256-bit key drawn from the OS once per
 * process (xffi_hash_key_ensure): without the key nobody can compute which
 * inputs collide. (Map keys cannot be keyed: C++ code computes their slots
 * with tvm-ffi's hash; the map's defence is in docs/map.md, "Hostile keys".) The mixing step is a folded
 * 64x64->128-bit product of input xor key words, which is not invertible (it
 * loses information), unlike a bijective integer mix whose preimages of any
 * chosen hash can be computed.
 *
 * Hashes are consistent within a process only; never store them. */
#ifndef XFFI_HASH_H
#define XFFI_HASH_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "runtime/internal.h"

/* ---- The keyed hash of map keys ---- */

/* The secret key words. Written once by xffi_hash_key_ensure (before it
 * returns), read-only afterwards. */
extern uint64_t xffi_hash_key[4] XFFI_INTERNAL;

/* Makes sure xffi_hash_key holds the process's secret (thread-safe, cheap
 * after the first call: one acquire load). Called wherever a keyed hash is
 * computed: registering and looking up a global function or a type (a
 * lookup may run before any registration). */
extern atomic_int xffi_hash_key_ready XFFI_INTERNAL;
void xffi_hash_key_init(void);
static inline void xffi_hash_key_ensure(void) {
  if (XFFI_LIKELY(atomic_load_explicit(&xffi_hash_key_ready, memory_order_acquire))) return;
  xffi_hash_key_init();
}

/* xffi_hash_fold from four 32x32 -> 64-bit products, for targets without a
 * 128-bit integer (32-bit ones): the same value, computed in halves. */
static inline uint64_t xffi_hash_fold_halves(uint64_t a, uint64_t b) {
  uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, b_lo = (uint32_t)b, b_hi = b >> 32;
  uint64_t lo_lo = a_lo * b_lo, lo_hi = a_lo * b_hi, hi_lo = a_hi * b_lo, hi_hi = a_hi * b_hi;
  /* The middle column: at most three 32-bit values, so it cannot overflow. */
  uint64_t middle = (lo_lo >> 32) + (uint32_t)lo_hi + (uint32_t)hi_lo;
  uint64_t low = (middle << 32) | (uint32_t)lo_lo;
  uint64_t high = hi_hi + (lo_hi >> 32) + (hi_lo >> 32) + (middle >> 32);
  return low ^ high;
}

/* A 64x64 -> 128-bit product with its halves xored together: every bit of
 * either factor reaches most bits of the result. */
#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 xffi_uint128;
static inline uint64_t xffi_hash_fold(uint64_t a, uint64_t b) {
  xffi_uint128 product = (xffi_uint128)a * b;
  return (uint64_t)product ^ (uint64_t)(product >> 64);
}
#else
static inline uint64_t xffi_hash_fold(uint64_t a, uint64_t b) { return xffi_hash_fold_halves(a, b); }
#endif

/* Folded product: the two 64-bit halves of a * b xored together. */
static inline uint64_t xffi_keyed_fold(uint64_t a, uint64_t b) { return xffi_hash_fold(a, b); }

/* Spreads the upper bits of the fold over the lower ones (the map takes the
 * home slot from the low 32 bits and the tag from the high ones). */
static inline uint64_t xffi_keyed_finish(uint64_t h) {
  h *= UINT64_C(0x9e3779b97f4a7c15);
  return h ^ (h >> 32);
}

/* The keyed hash of a 64-bit word; salt tells kinds apart (a type index). */
static inline uint64_t xffi_keyed_hash_word(uint64_t x, uint64_t salt) {
  return xffi_keyed_finish(xffi_keyed_fold(x ^ xffi_hash_key[0], salt ^ xffi_hash_key[1]));
}

static inline uint64_t xffi_keyed_load64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static inline uint64_t xffi_keyed_load32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* The keyed hash of size <= 16 bytes: all of them (read as two possibly
 * overlapping words) and the size meet the key in one folded product. */
static inline uint64_t xffi_keyed_hash_short(const void *data, size_t size) {
  const unsigned char *p = data;
  uint64_t a = 0, b = 0;
  if (size >= 8) {
    a = xffi_keyed_load64(p);
    b = xffi_keyed_load64(p + size - 8);
  } else if (size >= 4) {
    a = (xffi_keyed_load32(p) << 32) | xffi_keyed_load32(p + size - 4);
  } else if (size > 0) {
    a = ((uint64_t)p[0] << 16) | ((uint64_t)p[size >> 1] << 8) | p[size - 1];
  }
  return xffi_keyed_finish(xffi_keyed_fold(a ^ xffi_hash_key[0], b ^ xffi_hash_key[1] ^ (uint64_t)size));
}

/* The keyed hash of any number of bytes (out of line past 16). */
uint64_t xffi_keyed_hash_long(const void *data, size_t size);

static inline uint64_t xffi_keyed_hash_bytes(const void *data, size_t size) {
  return XFFI_LIKELY(size <= 16) ? xffi_keyed_hash_short(data, size) : xffi_keyed_hash_long(data, size);
}

/* ---- The public, unkeyed hash (xffi_bytes_hash) ----
 * Stable within a build on every target, so never used for map keys (anyone
 * can compute its collisions). Its short-input path, inline: */

/* Odd constants with well-mixed bits (digits of pi and e). */
#define XFFI_HASH_MIX0 UINT64_C(0x243f6a8885a308d3)
#define XFFI_HASH_MIX1 UINT64_C(0x13198a2e03707345)
#define XFFI_HASH_MIX2 UINT64_C(0xa4093822299f31d1)
#define XFFI_HASH_MIX3 UINT64_C(0xb7e151628aed2a6b)

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
 * avalanche test in tests/c/runtime/test_string.c). */
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

/* ---- tvm-ffi's stable hash ----
 * Unkeyed by necessity: C++ code compiled against tvm-ffi's headers computes
 * these for map keys and structural hashes, so both runtimes must agree on
 * every bit (docs/map.md, "Hostile keys"). */
#define XFFI_STABLE_HASH_MULTIPLIER UINT64_C(1099511628211)
#define XFFI_STABLE_HASH_MOD UINT64_C(2147483647)

/* tvm-ffi's StableHashCombine. */
static inline uint64_t xffi_stable_hash_combine(uint64_t key, uint64_t value) {
  return key ^ (value + UINT64_C(0x9e3779b9) + (key << 6) + (key >> 2));
}

/* One little-endian word of n <= 8 bytes, zero-extended (byte order fixed,
 * so the value is the same on every machine). */
static inline uint64_t xffi_stable_le_word(const char *p, size_t n) {
  unsigned char b[8] = {0};
  /* Fixed-size copies (inlined, unlike a memcpy of n bytes). */
  if (n == 8) {
    memcpy(b, p, 8);
  } else {
    size_t at = 0;
    if (n & 4) memcpy(b, p, 4), at = 4;
    if (n & 2) memcpy(b + at, p + at, 2), at += 2;
    if (n & 1) b[at] = (unsigned char)p[at];
  }
  uint64_t w;
  memcpy(&w, b, 8); /* the bytes in memory order, the rest zero */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w); /* byte i becomes bits 8i..8i+7, as on little-endian */
#endif
  return w;
}

/* x mod 2^31 - 1, the same as x % XFFI_STABLE_HASH_MOD: since 2^31 = 1 modulo
 * 2^31 - 1, the high bits fold onto the low ones (twice, then one
 * subtraction), fewer steps than the general division by a constant. */
static inline uint64_t xffi_stable_hash_mod(uint64_t x) {
  x = (x & XFFI_STABLE_HASH_MOD) + (x >> 31); /* < 2^33 + 2^31 */
  x = (x & XFFI_STABLE_HASH_MOD) + (x >> 31); /* <= XFFI_STABLE_HASH_MOD + 4 */
  return x >= XFFI_STABLE_HASH_MOD ? x - XFFI_STABLE_HASH_MOD : x;
}

/* tvm-ffi's StableHashBytes: words folded mod 2^31 - 1 (wrapping product). */
static inline uint64_t xffi_stable_hash_bytes(const char *data, size_t size) {
  uint64_t r = 0;
  size_t i = 0;
  for (; i + 8 <= size; i += 8)
    r = xffi_stable_hash_mod(r * XFFI_STABLE_HASH_MULTIPLIER + xffi_stable_le_word(data + i, 8));
  if (i < size) r = xffi_stable_hash_mod(r * XFFI_STABLE_HASH_MULTIPLIER + xffi_stable_le_word(data + i, size - i));
  return r;
}

#endif /* XFFI_HASH_H */
