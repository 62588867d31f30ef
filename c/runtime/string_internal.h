/* c/runtime/string_internal.h: what c/runtime/string.c shares with the map (c/lib/container/):
 * the map's hash of the bytes (tvm-ffi's StableHashBytes, c/runtime/hash.h) cached in
 * the String and Bytes objects this library allocates. Private. */
#ifndef XFFI_STRING_INTERNAL_H
#define XFFI_STRING_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "runtime/hash.h"
#include "runtime/internal.h"

/* ---- The cached hash of String and Bytes objects ----
 * The String and Bytes objects made by c/runtime/string.c with the built-in object
 * allocator are allocated as
 *   [uint64 hash][allocation header][24-byte header][16-byte cell][bytes][NUL]
 * (the allocation header is tvm-ffi's, c/runtime/internal.h) with the object pointer
 * at the header (so the tvm-ffi layout is unchanged:
 * the bytes still follow the cell). The hash word caches the hash a Map or
 * Dict places the object's key by: tvm-ffi's StableHashBytes of the bytes
 * (xffi_stable_hash_bytes), which C++ code compiled against tvm-ffi's headers
 * computes for the same key, so it cannot be keyed (the map's own defence
 * against colliding keys is in docs/map.md, "Hostile keys"; caching changes
 * no placement). Inserts, rehashes and lookups with a key object read it
 * instead of hashing the bytes again. The word is 0 until the first
 * xffi_string_stable_hash, which stores the hash with XFFI_STRING_HASH_SET
 * (the hash is below 2^31, so the bit tells a stored 0 from none) in a
 * relaxed atomic store: concurrent readers may each compute and store the
 * same value. Only objects whose deleter is xffi_string_deleter have the
 * word; String objects made by other code (another runtime, another
 * language) are hashed every time. */

/* Frees such an object's allocation (which starts 16 bytes before it). */
void xffi_string_deleter(void *self, int flags);

/* Copies n <= 32 bytes between non-overlapping buffers with two possibly
 * overlapping fixed-size moves (inline, no call). */
static inline void xffi_copy_short(char *dst, const char *src, size_t n) {
  if (n >= 16) {
    memcpy(dst, src, 16);
    memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    memcpy(dst, src, 8);
    memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    memcpy(dst, src, 4);
    memcpy(dst + n - 4, src + n - 4, 4);
  } else if (n > 0) {
    dst[0] = src[0];
    dst[n >> 1] = src[n >> 1];
    dst[n - 1] = src[n - 1];
  }
}

/* A new String (type_index XFFI_TYPE_STRING) or Bytes (XFFI_TYPE_BYTES)
 * holding a copy of size bytes, as an owned Any in *out (a new reference),
 * for the Any constructors (c/runtime/any.c), which check the arguments: out
 * is not NULL and data is not NULL unless size is 0. On failure *out is
 * untouched and MemoryError is raised. Small sizes are the caller's (an object
 * is made whatever the size). */
int xffi_string_any_new(xffi_any *out, const char *data, size_t size, int32_t type_index);

/* Marks a hash word that holds a hash (bit 63: the hash itself is below 2^31). */
#define XFFI_STRING_HASH_SET (UINT64_C(1) << 63)

/* Computes, caches and returns the stable hash of an object of ours (out of
 * line). */
uint64_t xffi_string_stable_hash_fill(const xffi_object *obj);

/* The hash word of such an object (obj borrowed; the word lives in obj's
 * allocation), seen as 8-byte aligned (the allocation starts there) so that
 * its atomic loads and stores stay inline on i386 too. Use as
 * &xffi_string_hash_word(obj)->value. */
typedef struct xffi_string_hash_slot {
  uint64_t value __attribute__((aligned(8)));
} xffi_string_hash_slot;

static inline xffi_string_hash_slot *xffi_string_hash_word(const xffi_object *obj) {
  return (xffi_string_hash_slot *)(uintptr_t)obj - 2; /* before the allocation header */
}

/* tvm-ffi's StableHashBytes of a String or Bytes object's bytes (obj
 * borrowed, unchecked): cached in objects of ours, computed for others. */
static inline uint64_t xffi_string_stable_hash(const xffi_object *obj) {
  if (XFFI_LIKELY(obj->deleter == xffi_string_deleter)) {
    uint64_t word = __atomic_load_n(&xffi_string_hash_word(obj)->value, __ATOMIC_RELAXED);
    if (XFFI_LIKELY(word != 0)) return word & ~XFFI_STRING_HASH_SET;
    return xffi_string_stable_hash_fill(obj);
  }
  xffi_byte_array b = xffi_string_cell_of_unchecked(obj);
  return xffi_stable_hash_bytes(b.data, b.size);
}

#endif /* XFFI_STRING_INTERNAL_H */
