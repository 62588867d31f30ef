/* c/runtime/hash.c: the per-process secret of the keyed map hash (c/runtime/hash.h), its
 * long-input path, and the public unkeyed hash xffi_bytes_hash. */
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "runtime/hash.h"
#include "platform/platform.h"

uint64_t xffi_hash_key[4];

atomic_int xffi_hash_key_ready;
static xffi_once key_once = XFFI_ONCE_INITIALIZER;

static void key_init(void) {
  unsigned char bytes[sizeof(xffi_hash_key)];
  memset(bytes, 0, sizeof(bytes));
  size_t got = xffi_os_random(bytes, sizeof(bytes));
  uint64_t words[4];
  memcpy(words, bytes, sizeof(words));
  if (got < sizeof(bytes)) {
    /* No OS randomness (a sandbox without /dev/urandom): fall back on what
     * varies between processes and runs, folded through the mix so that
     * every key word depends on all of it. Weaker, never absent. */
    int on_stack = 0;
    uint64_t noise[4] = {(uint64_t)time(NULL), (uint64_t)(uintptr_t)&on_stack,
                         (uint64_t)(uintptr_t)&xffi_hash_key_ready, (uint64_t)(uintptr_t)&xffi_os_random};
    uint64_t acc = UINT64_C(0x243f6a8885a308d3);
    for (int i = 0; i < 4; ++i) {
      acc = xffi_keyed_fold(acc ^ noise[i], UINT64_C(0xa4093822299f31d1) + (uint64_t)i);
      words[i] ^= xffi_keyed_finish(acc);
    }
  }
  memcpy(xffi_hash_key, words, sizeof(words));
  atomic_store_explicit(&xffi_hash_key_ready, 1, memory_order_release);
}

void xffi_hash_key_init(void) { xffi_call_once(&key_once, key_init); }

uint64_t xffi_keyed_hash_long(const void *data, size_t size) {
  if (size <= 16) return xffi_keyed_hash_short(data, size);
  const unsigned char *p = data;
  const uint64_t *k = xffi_hash_key;
  uint64_t s0 = k[2] ^ (uint64_t)size, s1 = k[3];
  size_t left = size;
  /* Two independent lanes of 16 bytes each per round. */
  while (left > 32) {
    s0 = xffi_keyed_fold(xffi_keyed_load64(p) ^ k[0], xffi_keyed_load64(p + 8) ^ s0);
    s1 = xffi_keyed_fold(xffi_keyed_load64(p + 16) ^ k[1], xffi_keyed_load64(p + 24) ^ s1);
    p += 32;
    left -= 32;
  }
  s0 ^= s1;
  if (left > 16) {
    s0 = xffi_keyed_fold(xffi_keyed_load64(p) ^ k[0], xffi_keyed_load64(p + 8) ^ s0);
    p += 16;
    left -= 16;
  }
  /* The last 16 bytes, possibly overlapping what was already read. */
  uint64_t h = xffi_keyed_fold(xffi_keyed_load64(p + left - 16) ^ k[1], xffi_keyed_load64(p + left - 8) ^ s0);
  return xffi_keyed_finish(xffi_keyed_fold(h ^ k[2], (uint64_t)size ^ k[3]));
}

/* ---- Hashing ----
 * Multiply-fold: each step multiplies two 64-bit words into 128 bits and
 * xors the halves, which spreads every input bit over the whole result.
 * Up to 16 bytes: xffi_hash_short (c/runtime/hash.h), one such product. */

uint64_t xffi_bytes_hash(const void *data, size_t size) {
  if (size <= 16) return xffi_hash_short(data, size);
  const unsigned char *p = data;
  uint64_t seed = XFFI_HASH_MIX0 ^ xffi_hash_fold(size ^ XFFI_HASH_MIX1, XFFI_HASH_MIX2);
  size_t left = size;
  uint64_t s1 = seed, s2 = seed;
  while (left > 32) {
    seed = xffi_hash_fold(xffi_hash_load64(p) ^ XFFI_HASH_MIX1, xffi_hash_load64(p + 8) ^ seed);
    s1 = xffi_hash_fold(xffi_hash_load64(p + 16) ^ XFFI_HASH_MIX2, xffi_hash_load64(p + 24) ^ s1);
    p += 32;
    left -= 32;
  }
  seed ^= s1 ^ s2;
  if (left > 16) {
    seed = xffi_hash_fold(xffi_hash_load64(p) ^ XFFI_HASH_MIX1, xffi_hash_load64(p + 8) ^ seed);
    p += 16;
    left -= 16;
  }
  /* The last 16 bytes, possibly overlapping what was already read. */
  uint64_t a = xffi_hash_load64(p + left - 16) ^ XFFI_HASH_MIX1;
  uint64_t b = xffi_hash_load64(p + left - 8) ^ seed;
  uint64_t h = xffi_hash_fold(a, b);
  return xffi_hash_fold(h ^ XFFI_HASH_MIX3, (uint64_t)size ^ XFFI_HASH_MIX1 ^ seed);
}
