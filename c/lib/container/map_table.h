/* c/lib/container/map_table.h: the storage under Map (immutable, copy-on-write) and Dict
 * (mutable): tvm-ffi's layout, which is ABI (private header).
 *
 * tvm-ffi's headers read, mutate, rehash and free these objects with their
 * own inline code, so every offset, constant and rule below is shared with
 * C++ code compiled against them (docs/one-runtime/layouts.md, Part 2).
 *
 * Files: this header (layout, accessors, shared declarations, the chain
 * walk), c/lib/container/map_key.h (the key hash and equality, AnyHash and AnyEqual: the
 * common kinds inline), c/lib/container/map_hash.c (the rest of them, custom columns, key
 * normalization), c/lib/container/map_small.c (maps of at
 * most 4 pairs), c/lib/container/map_dense.c (the block table), c/lib/container/map_table.c (objects,
 * release, copies, dispatch, argument checks), c/lib/container/map_edit.c (set, erase,
 * pop), c/lib/container/map_lookup.c (lookups), c/lib/container/map_iter.c (iteration), c/lib/container/map.c (the Map
 * API), c/lib/container/dict.c (the Dict API).
 *
 * Object: a 24-byte header, then data (storage), size (live pairs), slots
 * (capacity; bit 63 set = small layout) and data_deleter (frees data, or NULL
 * when data is inline in the object). A dense map adds fib_shift and the
 * head and tail slot of its insertion-order list (80 bytes). Every map object
 * is at least 80 bytes, so any map can become dense in place.
 *
 * Small layout: data points at `slots` pairs (key, value), size of them in
 * use, in insertion order; lookups scan them (no hashing).
 *
 * Dense layout: data points at slots/16 blocks; a block is 16 metadata bytes
 * then 16 items (key, value, prev, next: 48 bytes). A key's home slot is
 * FibHash(AnyHash(key)). Metadata: 0xFF empty, 0xFE protected (transient),
 * bit 7 clear = head of the chain of keys whose home is this slot, bit 7 set
 * = later element of some chain; bits 0-6 pick the jump to the chain's next
 * slot from map_jumps (0 ends the chain). prev/next link the items in
 * insertion order by slot index (UINT64_MAX = none). */
#ifndef XFFI_MAP_TABLE_H
#define XFFI_MAP_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <xffi/map.h>
#include <xffi/string.h>

#include "runtime/internal.h"
#include "lib/container/map_key.h"

#define MAP_SMALL_TAG (UINT64_C(1) << 63)
#define MAP_SMALL_MAX 4 /* pairs a small map may hold */
#define MAP_SMALL_INIT 2
/* tvm-ffi's growth of a full small map of `slots` pairs: 2, then 4. */
static inline uint64_t map_small_grown(uint64_t slots) {
  uint64_t grown = slots * 2 < MAP_SMALL_INIT ? MAP_SMALL_INIT : slots * 2;
  return grown > MAP_SMALL_MAX ? MAP_SMALL_MAX : grown;
}
#define MAP_BLOCK_CAP 16
#define MAP_NUM_JUMPS 126
#define MAP_META_EMPTY 0xFFu
#define MAP_META_PROTECTED 0xFEu
#define MAP_NONE UINT64_MAX

/* xffi's own inserts refuse to grow a chain or a table past these bounds
 * (hostile keys: docs/map.md): a clear error instead of quadratic time. An
 * insert walks its key's chain once, so MAP_MAX_CHAIN bounds its work;
 * chains of ordinary keys stay far below it (under tvm-ffi's string hash, 10^8
 * numbered 16-byte keys share chains of up to about 625). */
#define MAP_MAX_CHAIN 1024
#define MAP_MAX_SLOTS (UINT64_C(1) << 31)

typedef struct map_pair {
  xffi_any key;
  xffi_any value;
} map_pair;

typedef struct map_item {
  xffi_any key;
  xffi_any value;
  uint64_t prev;
  uint64_t next;
} map_item;

typedef struct map_object {
  xffi_object header;
  void *data;
  uint64_t size;
  uint64_t slots;
  void (*data_deleter)(void *data);
  /* dense layout only (in a small map, the first inline pair's bytes) */
  uint32_t fib_shift;
  uint64_t list_head;
  uint64_t list_tail;
} map_object;

/* The small header: MapBaseObj, the fields up to data_deleter, rounded up to
 * the pairs' alignment (56 bytes on 64-bit targets, as tvm-ffi's
 * sizeof(SmallMapBaseObj)); inline pairs start there. */
#define MAP_SMALL_HEADER_BYTES \
  ((offsetof(map_object, fib_shift) + _Alignof(map_pair) - 1) / _Alignof(map_pair) * _Alignof(map_pair))
#define MAP_BLOCK_BYTES (MAP_BLOCK_CAP + MAP_BLOCK_CAP * sizeof(map_item))

_Static_assert(sizeof(map_pair) == 32, "a pair is two Anys");
_Static_assert(sizeof(map_item) == 48, "a dense item is 48 bytes");
_Static_assert(MAP_SMALL_HEADER_BYTES + MAP_SMALL_INIT * sizeof(map_pair) >= sizeof(map_object),
               "a small map object can become dense in place");
#if UINTPTR_MAX == UINT64_MAX
/* Measured from tvm-ffi's headers (docs/one-runtime/layouts.md 2.1). The
 * same declarations give C++'s layout on other targets too. */
_Static_assert(sizeof(map_object) == 80, "the dense map object is 80 bytes");
_Static_assert(offsetof(map_object, data) == 24 && offsetof(map_object, size) == 32 &&
                   offsetof(map_object, slots) == 40 && offsetof(map_object, data_deleter) == 48 &&
                   offsetof(map_object, fib_shift) == 56 && offsetof(map_object, list_head) == 64 &&
                   offsetof(map_object, list_tail) == 72,
               "tvm-ffi's MapBaseObj/DenseMapBaseObj offsets");
#endif

static inline map_object *map_of(const xffi_object *obj) { return (map_object *)obj; }
static inline int map_is_small(const map_object *m) { return (m->slots & MAP_SMALL_TAG) != 0; }
static inline uint64_t map_small_slots(const map_object *m) { return m->slots & ~MAP_SMALL_TAG; }
static inline map_pair *map_small_pairs(const map_object *m) { return (map_pair *)m->data; }

/* Dense accessors: slot i's metadata byte and item. */
static inline unsigned char *map_meta(const map_object *m, uint64_t i) {
  return (unsigned char *)m->data + (i / MAP_BLOCK_CAP) * MAP_BLOCK_BYTES + i % MAP_BLOCK_CAP;
}
static inline map_item *map_item_at(const map_object *m, uint64_t i) {
  return (map_item *)((unsigned char *)m->data + (i / MAP_BLOCK_CAP) * MAP_BLOCK_BYTES + MAP_BLOCK_CAP +
                      (i % MAP_BLOCK_CAP) * sizeof(map_item));
}

/* The 126 jump distances of a chain (tvm-ffi's kNextProbeLocation). */
extern const uint64_t xffi_map_jumps[MAP_NUM_JUMPS];

/* Slot x modulo the slot count, a power of two in every dense table (tvm-ffi
 * sizes them so); the mask keeps any index in range even if it were not. */
static inline uint64_t map_wrap(const map_object *m, uint64_t x) { return x & (m->slots - 1); }

static inline uint64_t map_fib_slot(uint64_t hash, uint32_t fib_shift) {
  return (UINT64_C(11400714819323198485) * hash) >> fib_shift;
}

/* What a search returns besides a slot: the key is absent (MAP_NONE), or a
 * custom equality failed (raised). */
#define MAP_SEARCH_FAILED (MAP_NONE - 1)

/* tvm-ffi's Search in a dense map m: the slot of the key equal to probe
 * (hash: its AnyHash), MAP_NONE or MAP_SEARCH_FAILED. The walk starts at
 * the home slot, which must head a chain, and follows the chain's jumps.
 * plain (a constant where it is called): the probe is neither text nor an
 * object, so only a key with the same bits is equal to it. end (NULL for
 * lookups): when the key is absent, the chain's last slot (MAP_NONE when
 * the home slot heads no chain) and its length, where an insert goes next. */
typedef struct map_chain_end {
  uint64_t last;
  uint64_t length;
} map_chain_end;
MAP_KEY_INLINE uint64_t map_dense_search(const map_object *m, const xffi_any *probe, uint64_t hash, int plain,
                                         map_chain_end *end) {
  if (end) {
    end->last = MAP_NONE;
    end->length = 0;
  }
  if (m->size == 0) return MAP_NONE;
  const unsigned char *blocks = m->data;
  uint64_t mask = m->slots - 1, i = map_fib_slot(hash, m->fib_shift);
  /* slot i: its block, its metadata byte and its item (map_meta, map_item_at) */
  const unsigned char *block = blocks + (i / MAP_BLOCK_CAP) * MAP_BLOCK_BYTES;
  unsigned char meta = block[i % MAP_BLOCK_CAP];
  if (meta & 0x80u) return MAP_NONE; /* empty, or inside another chain */
  for (uint64_t steps = 0; steps <= m->size; ++steps) {
    const xffi_any *key = &((const map_item *)(block + MAP_BLOCK_CAP))[i % MAP_BLOCK_CAP].key;
    if (plain) {
      if (map_same_bits(key, probe)) return i;
    } else {
      int eq = map_key_equal(key, probe);
      if (eq != MAP_KEY_OTHER) return eq == MAP_KEY_EQUAL ? i : MAP_SEARCH_FAILED;
    }
    uint64_t jump = xffi_map_jumps[meta & 0x7Fu];
    if (jump == 0) {
      if (end) {
        end->last = i;
        end->length = steps + 1;
      }
      break;
    }
    i = (i + jump) & mask; /* map_wrap */
    block = blocks + (i / MAP_BLOCK_CAP) * MAP_BLOCK_BYTES;
    meta = block[i % MAP_BLOCK_CAP];
  }
  return MAP_NONE; /* the chain's end (or a chain longer than the map: corrupt) */
}

/* The index of the pair of the small map m equal to probe, m->size when
 * absent, or MAP_SEARCH_FAILED; plain as for map_dense_search. */
MAP_KEY_INLINE uint64_t map_small_search(const map_object *m, const xffi_any *probe, int plain) {
  const map_pair *pairs = map_small_pairs(m);
  uint64_t i = 0, n = m->size;
  for (; i < n; ++i) {
    if (plain) {
      if (map_same_bits(&pairs[i].key, probe)) break;
    } else {
      int eq = map_key_equal(&pairs[i].key, probe);
      if (eq == MAP_KEY_EQUAL) break;
      if (eq == MAP_KEY_FAILED) return MAP_SEARCH_FAILED;
    }
  }
  return i;
}

/* Whether a normalized key is plain: neither text nor an object. */
static inline int map_key_is_plain(const xffi_any *key) {
  int32_t t = key->type_index;
  return t < XFFI_TYPE_STATIC_OBJECT_BEGIN && !map_is_text(t);
}

/* Reads ahead (internal.h) the pairs of m (checked already), or the first
 * block of its dense storage (most maps fit in one): a walk then steps
 * through them by links, one load after another. */
XFFI_READ_AHEAD_FN void map_read_ahead(const map_object *m) {
  if (m->size == 0) return;
  uint64_t slots = map_is_small(m) ? 0 : m->slots;
  size_t bytes = map_is_small(m)
                     ? (size_t)m->size * sizeof(map_pair)
                     : MAP_BLOCK_CAP + (size_t)(slots < MAP_BLOCK_CAP ? slots : MAP_BLOCK_CAP) * sizeof(map_item);
  for (size_t at = 0; at < bytes; at += XFFI_READ_AHEAD_SPAN) XFFI_READ_AHEAD((const char *)m->data + at);
}

/* One step of the insertion-order iteration (c/lib/container/map_iter.c, whose comment
 * gives the cursor's meaning) on a map checked already: *out names the
 * entry at *cursor (both NULL at the end) and *cursor moves past it. */
#define MAP_CURSOR_END INT64_MAX
static inline void map_step(xffi_map_item *out, const map_object *m, int64_t *cursor) {
  out->key = NULL;
  out->value = NULL;
  if (map_is_small(m)) {
    uint64_t i = (uint64_t)*cursor;
    if (*cursor >= 0 && i < m->size) {
      const map_pair *p = &map_small_pairs(m)[i];
      out->key = &p->key;
      out->value = &p->value;
      *cursor = (int64_t)i + 1;
    } else {
      *cursor = MAP_CURSOR_END;
    }
    return;
  }
  uint64_t slot = *cursor == 0 ? m->list_head : (uint64_t)*cursor - 1;
  if (*cursor == MAP_CURSOR_END || m->size == 0 || slot >= m->slots) {
    *cursor = MAP_CURSOR_END;
    return;
  }
  unsigned char meta = *map_meta(m, slot);
  if (meta == MAP_META_EMPTY || meta == MAP_META_PROTECTED) {
    *cursor = MAP_CURSOR_END; /* the entry was erased since: stop */
    return;
  }
  const map_item *it = map_item_at(m, slot);
  out->key = &it->key;
  out->value = &it->value;
  *cursor = it->next == MAP_NONE || it->next >= m->slots ? MAP_CURSOR_END : (int64_t)it->next + 1;
}

static inline int is_map_kind(const xffi_object *obj) {
  return obj->type_index == XFFI_TYPE_MAP || obj->type_index == XFFI_TYPE_DICT;
}

/* Whether the caller's reference is the only one: strong 1, no weak
 * references (a weak one could be locked concurrently). obj borrowed. */
static inline int xffi_map_is_unique(const xffi_object *obj) {
  return __atomic_load_n(XFFI_REF_COUNTS(obj), __ATOMIC_ACQUIRE) == XFFI_REF_INITIAL;
}

/* ---- c/lib/container/map_hash.c (and c/lib/container/map_key.h: AnyHash, AnyEqual) ---- */
/* Turns a key view (borrowed, well formed) into the form tvm-ffi stores and
 * compares: borrowed C strings and byte arrays of at most 7 bytes become small
 * strings/bytes (longer ones stay borrowed: hashed and compared as the
 * String/Bytes they stand for, never stored), padding bytes zeroed, bools
 * 0/1. *out is a view (borrowed from key). TypeError for an rvalue reference. */
int xffi_map_key_normalize_slow(const char *fn, xffi_any *out, const xffi_any *key);
static inline int xffi_map_key_normalize(const char *fn, xffi_any *out, const xffi_any *key) {
  int32_t t = key->type_index;
  /* Ints, floats, None, pointers, devices and objects other than rvalues:
   * the value as it is, with tvm-ffi's zero padding. */
  if (XFFI_LIKELY(t == XFFI_TYPE_INT || t == XFFI_TYPE_FLOAT || t >= XFFI_TYPE_STATIC_OBJECT_BEGIN)) {
    *out = *key;
    out->small_len = 0;
    return XFFI_OK;
  }
  return xffi_map_key_normalize_slow(fn, out, key);
}

/* ---- c/lib/container/map_small.c ---- */
/* Appends (moves in) a pair; grows the pair array (2, then 4 slots) when
 * full, out of line (a Dict, which keeps its identity; a Map grows into a
 * new object instead: c/lib/container/map_edit.c). Requires size < MAP_SMALL_MAX.
 * MemoryError leaves the map unchanged. */
int xffi_map_small_append(map_object *m, xffi_any *key, xffi_any *value);
/* Removes the pair at index i, moving key and value out (owned). */
void xffi_map_small_remove_at(map_object *m, uint64_t i, xffi_any *key_out, xffi_any *value_out);

/* ---- c/lib/container/map_dense.c ---- */
/* Turns the small map m into a dense map in place, its pairs moved over, the
 * table sized for cap >= size entries (xffi_map_dense_table_size: at least
 * 16 slots). MemoryError, or a custom hash's error, leaves it unchanged. */
int xffi_map_dense_from_small(map_object *m, uint64_t cap);
/* Inserts a new key (absent: checked by the caller) with its hash, moving key
 * and value in; rehashes (doubling) when needed. end (or NULL): the end of
 * the key's chain as the caller's search of m found it, so that the chain
 * is not walked again. On failure (MemoryError, or the chain bounds above)
 * nothing changed and key/value are still the caller's. */
int xffi_map_dense_insert_new(const char *fn, map_object *m, xffi_any *key, xffi_any *value, uint64_t hash,
                              const map_chain_end *end);
/* Moves the item at slot i to the end of the insertion order (tvm-ffi does
 * so when a dense map's key is set again). */
void xffi_map_dense_move_to_end(map_object *m, uint64_t i);
/* Removes the item at slot i, moving key and value out (owned). Fails only
 * when a custom hash of a chain's key fails. */
int xffi_map_dense_remove_at(map_object *m, uint64_t i, xffi_any *key_out, xffi_any *value_out);
/* Releases the items of every live slot, keeping the blocks (empty). */
void xffi_map_dense_release_items(map_object *m);
/* Points m's storage fields at new empty blocks of n_slots (m's old storage
 * is the caller's to free). xffi_map_dense_table_size: tvm-ffi's
 * CalcTableSize for cap entries (at most half full), but never under one
 * whole block of 16 slots. */
int xffi_map_dense_alloc_blocks(map_object *m, uint64_t n_slots, uint32_t fib_shift);
void xffi_map_dense_table_size(uint64_t cap, uint32_t *fib_shift, uint64_t *n_slots);

/* ---- c/lib/container/map_table.c ---- */
/* A new empty small map of type_index with room for `inline_pairs` >= 2 pairs
 * inline (a new reference), or NULL with MemoryError raised. */
xffi_object *xffi_map_alloc(int32_t type_index, uint64_t inline_pairs);
/* The data deleter of storage xffi allocates (pair arrays and blocks). */
void xffi_map_free_storage(void *data);
/* What xffi_map_find learns about a key: where it is, or where an insert
 * of it starts. */
typedef struct map_place {
  const xffi_any *value; /* the stored value, NULL when absent */
  uint64_t pos;          /* the small index or dense slot of the key (when present) */
  int hashed;            /* dense: hash holds the key's AnyHash (else not computed) */
  uint64_t hash;
  map_chain_end end; /* dense, absent: the end of the key's chain (map_dense_search) */
} map_place;
/* Finds key (a normalized view) in m. XFFI_FAIL when a custom hash or
 * equality failed (raised). */
int xffi_map_find(map_place *out, const map_object *m, const xffi_any *key);
/* Releases every pair, keeping the storage. */
void xffi_map_clear_pairs(map_object *m);
/* A new map of type_index holding m's pairs (new references), in the same
 * order; a small m's copy has room for max(size, room) pairs inline. A new
 * reference, or NULL with MemoryError raised. */
xffi_object *xffi_map_clone(int32_t type_index, const map_object *m, uint64_t room);
/* Argument checks: map (borrowed) must be a Map or a Dict; *map a Map. The
 * argument is named "dict" for fn xffi_dict_*, else "map". */
int xffi_map_check_readable_slow(const char *fn, const xffi_object *map);
static inline int xffi_map_check_readable(const char *fn, const xffi_object *map) {
  if (XFFI_LIKELY(map && is_map_kind(map))) return XFFI_OK;
  return xffi_map_check_readable_slow(fn, map);
}
int xffi_map_check_ref_slow(const char *fn, xffi_object **map);
static inline int xffi_map_check_ref(const char *fn, xffi_object **map) {
  if (XFFI_LIKELY(map && *map && (*map)->type_index == XFFI_TYPE_MAP)) return XFFI_OK;
  return xffi_map_check_ref_slow(fn, map);
}
/* KeyError "<fn>: key <key> is not in the map" (key borrowed). */
int xffi_map_raise_key_error(const char *fn, const xffi_any *key);
int xffi_map_do_length(const char *fn, int64_t *out, const xffi_object *map);
int xffi_map_do_copy(const char *fn, int32_t type_index, xffi_object **out, const xffi_object *map);

/* ---- c/lib/container/map_edit.c ---- */
/* A new map of type_index (*out, a new reference) from count pairs, sized
 * once and filled without per-insert copies: keys and values are owned and
 * stolen, every one consumed on success and on failure (the arrays
 * themselves stay the caller's; their items are garbage after). The shape
 * is tvm-ffi's range constructor's (as_set 0: small below 4 pairs, else
 * dense from the start) or that of Set called pair by pair on an empty map
 * (as_set 1: small while at most 4 distinct keys). Either way a repeated
 * key takes the last value and keeps its place while the map is small,
 * moving to the end once it is dense. Keys must be owned values (no
 * borrowed text, no rvalue: TypeError). The hash-flood refusal of
 * docs/map.md applies. count >= 0 is the caller's check. */
int xffi_map_do_build(const char *fn, int32_t type_index, xffi_object **out, xffi_any *keys, xffi_any *values,
                      int64_t count, int as_set);
/* Sets key -> value in m in place, as xffi_dict_set does, without its
 * argument checks and copies: key (a stored, owned value, normalized) and
 * value (owned) are moved in on success (a repeated key keeps its place
 * while small, moves to the end once dense, the first key object stays); a
 * full small map of 4 becomes a dense table for max(total, size) entries.
 * On failure (MemoryError, a custom hash's error, the hash-flood refusal)
 * both are still the caller's and m is unchanged. For a map only its caller
 * holds or a Dict (DeepCopy's, the sized build's). */
int xffi_map_put_moved(const char *fn, map_object *m, xffi_any *key, xffi_any *value, uint64_t total);
/* A new empty map of type_index (a new reference) with room for count
 * distinct keys, set one by one, without regrowing: small with count pairs
 * inline up to 4 (what Set from an empty map leaves), else a dense table
 * sized for count. NULL with MemoryError raised. */
xffi_object *xffi_map_new_sized(int32_t type_index, uint64_t count);
/* The same from borrowed views (keys and values copied in; a C string key
 * becomes a String), with every argument checked: xffi_map_new's body (stride
 * 1), and ffi.Map's and ffi.Dict's (interleaved key, value: stride 2, as_set
 * 1). Pair k is keys[k * stride], values[k * stride]; *out a new reference. */
int xffi_map_do_new_from(const char *fn, int32_t type_index, xffi_object **out, const xffi_any *keys,
                         const xffi_any *values, int64_t stride, int64_t count, int as_set);

/* ---- c/lib/container/map_lookup.c ---- */
/* Finds probe, a key already in the form xffi_map_key_normalize gives, in
 * map (borrowed, a Map or a Dict: the caller's checks): *out the stored
 * value (borrowed) or NULL. For readers that look one key up many times. */
int xffi_map_lookup_probe(const xffi_any **out, const xffi_object *map, const xffi_any *probe);

/* ---- c/lib/container/map_iter.c ---- */
int xffi_map_do_next(const char *fn, xffi_map_item *out, const xffi_object *map, int64_t *cursor);

#endif /* XFFI_MAP_TABLE_H */
