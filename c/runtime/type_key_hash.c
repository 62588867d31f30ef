/* c/runtime/type_key_hash.c: the type_key_hash of type records.
 *
 * tvm-ffi fills TVMFFITypeInfo.type_key_hash with std::hash of the key, which
 * on Linux is libstdc++'s _Hash_bytes (a 64-bit Murmur-style hash, seed
 * 0xc70f6907). Readers (dataclass hashing, the Python package) compare it
 * with values computed by that library, so this reproduces the function:
 * whole 8-byte words read little-endian (as on x86-64 and AArch64 Linux, the
 * targets tvm-ffi ships), the tail read as one little-endian number. */
#include <xffi/type.h>

#define HASH_SEED UINT64_C(0xc70f6907)
#define HASH_MUL ((UINT64_C(0xc6a4a793) << 32) + UINT64_C(0x5bd1e995))

static uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }

/* n (1..8) bytes at p as a little-endian number. */
static uint64_t load_le(const unsigned char *p, size_t n) {
  uint64_t v = 0;
  while (n--) v = (v << 8) | p[n];
  return v;
}

uint64_t xffi_type_key_hash(const char *data, size_t size) {
  const unsigned char *p = (const unsigned char *)data;
  size_t whole = size & ~(size_t)7;
  uint64_t hash = HASH_SEED ^ ((uint64_t)size * HASH_MUL);
  for (size_t i = 0; i < whole; i += 8) {
    hash ^= shift_mix(load_le(p + i, 8) * HASH_MUL) * HASH_MUL;
    hash *= HASH_MUL;
  }
  if (size & 7) {
    hash ^= load_le(p + whole, size & 7);
    hash *= HASH_MUL;
  }
  hash = shift_mix(hash) * HASH_MUL;
  return shift_mix(hash);
}
