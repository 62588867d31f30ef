/* c/hash.c: the per-process secret of the keyed map hash (c/hash.h) and its
 * long-input path. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#  define _GNU_SOURCE /* getrandom */
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "hash.h"

#if defined(__linux__) && defined(__has_include)
#  if __has_include(<sys/random.h>)
#    include <sys/random.h>
#    define XFFI_HAVE_GETRANDOM 1
#  endif
#endif

uint64_t xffi_hash_key[4];

static atomic_int key_ready;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* Fills buf from the OS: getrandom where there is one, else /dev/urandom.
 * Returns the number of bytes obtained. */
static size_t os_random(unsigned char *buf, size_t size) {
  size_t got = 0;
#ifdef XFFI_HAVE_GETRANDOM
  while (got < size) {
    ssize_t n = getrandom(buf + got, size - got, GRND_NONBLOCK);
    if (n <= 0) break; /* no entropy yet, or no such system call (old kernel) */
    got += (size_t)n;
  }
  if (got == size) return got;
#endif
  FILE *f = fopen("/dev/urandom", "rb");
  if (f) {
    got = fread(buf, 1, size, f);
    fclose(f);
  }
  return got;
}

static void key_init(void) {
  unsigned char bytes[sizeof(xffi_hash_key)];
  memset(bytes, 0, sizeof(bytes));
  size_t got = os_random(bytes, sizeof(bytes));
  uint64_t words[4];
  memcpy(words, bytes, sizeof(words));
  if (got < sizeof(bytes)) {
    /* No OS randomness (a sandbox without /dev/urandom): fall back on what
     * varies between processes and runs, folded through the mix so that
     * every key word depends on all of it. Weaker, never absent. */
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    uint64_t noise[4] = {(uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec, (uint64_t)(uintptr_t)&ts,
                         (uint64_t)(uintptr_t)&key_ready ^ (uint64_t)clock()};
    uint64_t acc = UINT64_C(0x243f6a8885a308d3);
    for (int i = 0; i < 4; ++i) {
      acc = xffi_keyed_fold(acc ^ noise[i], UINT64_C(0xa4093822299f31d1) + (uint64_t)i);
      words[i] ^= xffi_keyed_finish(acc);
    }
  }
  memcpy(xffi_hash_key, words, sizeof(words));
  atomic_store_explicit(&key_ready, 1, memory_order_release);
}

void xffi_hash_key_ensure(void) {
  if (XFFI_LIKELY(atomic_load_explicit(&key_ready, memory_order_acquire))) return;
  pthread_once(&key_once, key_init);
}

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
