/* c/map_table.h: the table under Map (immutable, copy-on-write) and Dict
 * (mutable), insertion-ordered hash maps from Any to Any (private).
 *
 * Files: this header (layout, keys, the index's inline parts), c/map_table.c
 * (storage: growth, removal, copies; argument checks and messages),
 * c/map_edit.c (set, erase, pop), c/map_lookup.c (lookups, the hot
 * paths), c/map_iter.c (iteration), c/map.c (the Map API), c/dict.c (the
 * Dict API).
 *
 * Layout (xffi's own; tvm-ffi has no public C layout for maps). After the
 * object header comes map_cell, pointing at two separate buffers:
 * - entries: a dense array of (key, value) pairs in insertion order, 32 bytes
 *   each. An erased entry becomes a hole (key type MAP_HOLE) until the next
 *   compaction, so erase never moves other entries.
 * - slots: the hash index, num_slots uint32 values, linear probing. A slot is
 *   0 (empty), index_mask (deleted), or (tag | entry index + 1), where the low
 *   bits below index_mask hold the entry index and the bits above it hold a
 *   tag taken from the upper half of the hash: ((hash >> 33) | index_mask) + 1,
 *   never 0 and with no bit below index_mask (so a tagged slot is never 0 nor
 *   index_mask). A tag mismatch skips an entry without touching it. The home
 *   slot of a hash is (low 32 bits of the hash * num_slots) >> 32, so
 *   num_slots need not be a power of two and the index can grow by 1.5x.
 *   Every key kind is hashed with the process's secret key (c/hash.h), so
 *   callers cannot choose keys that share a home slot.
 * - The slot array has two more words after the num_slots of the index: the
 *   end mark MAP_SLOT_END (1), a value no other slot has (a tag is at least
 *   index_mask + 1 >= 2; a deleted slot is index_mask >= 15 in a real
 *   index), then num_slots. A lookup tests for empty and end in one compare
 *   (slot <= 1), so probing an occupied slot costs no wrap test, and wraps by
 *   the count that follows the mark (c/map_lookup.c).
 * - An empty map without an index points at xffi_map_empty_index, one shared empty
 *   slot (and its end slot) that is never written, so a lookup needs no
 *   emptiness test.
 *
 * Invariants: holes == number of deleted slots; size + holes <= 80% of
 * num_slots (so probing always ends at an empty slot); used == size + holes.
 * Compaction (dropping holes and rebuilding the index in place, no
 * allocation) happens when an erase leaves more holes than live entries:
 * amortised O(1), and lookups never wade through a majority of deleted slots.
 * Growth: the index is rebuilt at 1.875 slots per live entry when it would
 * pass 80% load (so it sits between 53% and 80%); the entry array grows by
 * 1.25x. For large maps that is 32..40 bytes of entries plus 5..7.5 bytes of
 * index per entry. */
#ifndef XFFI_MAP_TABLE_H
#define XFFI_MAP_TABLE_H

#include <math.h>
#include <string.h>

#include <xffi/map.h>
#include <xffi/string.h>

#include "hash.h"
#include "internal.h"
#include "string_internal.h"

#define MAP_HOLE INT32_MIN
#define MAP_MAX_ENTRIES (INT64_C(1) << 30)

/* Slot values below every tag (see the top of this file). */
#define MAP_SLOT_EMPTY 0u
#define MAP_SLOT_END 1u

typedef struct map_entry {
  xffi_any key;
  xffi_any value;
} map_entry;

typedef struct map_cell {
  map_entry *entries;
  uint32_t *slots;
  int64_t size;     /* live entries */
  int64_t used;     /* entries[0, used) in use, holes included */
  int64_t capacity; /* entries allocated */
  int64_t holes;    /* holes in entries == deleted slots */
  uint32_t num_slots;
  uint32_t index_mask; /* low bits of a slot: entry index + 1; the value itself marks a deleted slot */
} map_cell;

typedef struct map_object {
  xffi_object header;
  map_cell cell;
} map_object;

_Static_assert(sizeof(map_entry) == 32, "a map entry is two Anys");

static inline map_cell *cell_of(const xffi_object *obj) { return &((map_object *)obj)->cell; }

/* The index of every map that has none: an empty slot, the end mark and the
 * slot count (1).
 * Never written: insertion allocates a real index first
 * (xffi_map_cell_reserve_one). */
extern const uint32_t xffi_map_empty_index[3];

/* The bytes of an index of n slots: n slots, the end mark and the count. */
static inline size_t index_bytes(uint32_t n) { return ((size_t)n + 2) * sizeof(uint32_t); }

static inline int cell_has_index(const map_cell *c) { return c->slots != xffi_map_empty_index; }

/* An empty cell: no entries, the shared empty index. */
static inline void cell_init(map_cell *c) {
  memset(c, 0, sizeof(*c));
  c->slots = (uint32_t *)xffi_map_empty_index; /* never written */
  c->num_slots = 1;
  c->index_mask = 1;
}

/* ---- Keys: classification, hashing, equality ---- */

enum { KEY_EXACT, KEY_FLOAT, KEY_TEXT };

/* A key being looked up, with what equality and hashing need. */
typedef struct probe {
  int kind;               /* KEY_* */
  int32_t type;           /* KEY_EXACT: the type index that must match */
  int32_t small_type;     /* KEY_TEXT: the inline kind (small string or small bytes) */
  int32_t obj_type;       /* KEY_TEXT: the object kind (String or Bytes) */
  uint64_t payload;       /* KEY_EXACT: the value bits; KEY_FLOAT: the double */
  const xffi_object *obj; /* KEY_TEXT: the key's own object, if it is one */
  const char *data;       /* KEY_TEXT: the bytes */
  size_t size;
  uint64_t hash;
} probe;

/* The comparable bits of a plain value or the identity of an object. */
static inline uint64_t exact_payload(const xffi_any *k) {
  switch (k->type_index) {
    case XFFI_TYPE_NONE: return 0;
    case XFFI_TYPE_BOOL: return k->v_int64 != 0;
    case XFFI_TYPE_DTYPE: {
      uint32_t bits;
      memcpy(&bits, &k->v_dtype, sizeof(bits));
      return bits;
    }
    default: return (uint64_t)k->v_int64;
  }
}

/* Keyed (c/hash.h), so that callers cannot choose colliding keys. */
static inline uint64_t exact_hash(int32_t type_index, uint64_t payload) {
  return xffi_keyed_hash_word(payload, (uint64_t)(uint32_t)type_index);
}

static inline uint64_t load64(const char *p) {
  uint64_t v;
  memcpy(&v, p, sizeof(v));
  return v;
}

static inline uint32_t load32(const char *p) {
  uint32_t v;
  memcpy(&v, p, sizeof(v));
  return v;
}

/* Whether size <= 16 bytes at a and b are equal: overlapping word compares. */
static inline int short_bytes_eq(const char *a, const char *b, size_t size) {
  if (size >= 8) return ((load64(a) ^ load64(b)) | (load64(a + size - 8) ^ load64(b + size - 8))) == 0;
  if (size >= 4) return ((load32(a) ^ load32(b)) | (load32(a + size - 4) ^ load32(b + size - 4))) == 0;
  for (size_t i = 0; i < size; ++i)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* Whether size bytes at a and b are equal: inline up to 16 bytes (most
 * keys), memcmp beyond. */
static inline int bytes_eq(const char *a, const char *b, size_t size) {
  return size <= 16 ? short_bytes_eq(a, b, size) : memcmp(a, b, size) == 0;
}

/* Fills p for key (a view, well formed: the callers check it, c/internal.h).
 * Fails only for keys that cannot be stored. */
static inline int probe_init(probe *p, const char *fn, const xffi_any *key) {
  int32_t t = key->type_index;
  /* Every field gets a value on every path (cheap stores; keeps compilers'
   * may-be-uninitialized analysis quiet). */
  p->kind = KEY_EXACT;
  p->type = t;
  p->small_type = p->obj_type = XFFI_TYPE_NONE;
  p->payload = 0;
  p->obj = NULL;
  p->data = NULL;
  p->size = 0;
  p->hash = 0;
  switch (t) {
    case XFFI_TYPE_SMALL_STR:
    case XFFI_TYPE_SMALL_BYTES:
      p->kind = KEY_TEXT;
      p->obj = NULL;
      p->data = key->v_small;
      p->size = key->small_len;
      break;
    case XFFI_TYPE_STRING:
    case XFFI_TYPE_BYTES: {
      xffi_byte_array b = xffi_string_cell_of_unchecked(key->v_obj);
      p->kind = KEY_TEXT;
      p->obj = key->v_obj;
      p->data = b.data;
      p->size = b.size;
      break;
    }
    case XFFI_TYPE_RAW_STR:
      p->kind = KEY_TEXT;
      p->obj = NULL;
      p->data = key->v_c_str;
      p->size = strlen(key->v_c_str);
      t = XFFI_TYPE_SMALL_STR;
      break;
    case XFFI_TYPE_BYTE_ARRAY_PTR:
      p->kind = KEY_TEXT;
      p->obj = NULL;
      p->data = key->v_bytes_ptr->data;
      p->size = key->v_bytes_ptr->size;
      t = XFFI_TYPE_SMALL_BYTES;
      break;
    case XFFI_TYPE_FLOAT: {
      double d = key->v_float64;
      uint64_t bits;
      if (d == 0.0) d = 0.0;         /* -0.0 and 0.0 are one key */
      if (isnan(d)) d = (double)NAN; /* every NaN is one key */
      memcpy(&bits, &d, sizeof(bits));
      p->kind = KEY_FLOAT;
      memcpy(&p->payload, &key->v_float64, sizeof(p->payload));
      p->hash = xffi_keyed_hash_word(bits, XFFI_TYPE_FLOAT);
      return XFFI_OK;
    }
    case XFFI_TYPE_OBJECT_RVALUE:
      return xffi_error_raise(XFFI_KIND_TYPE,
                              "%s: key is an object rvalue reference (a move), which cannot be a map key", fn);
    default:
      p->kind = KEY_EXACT;
      p->type = t;
      p->payload = exact_payload(key);
      p->hash = exact_hash(t, p->payload);
      return XFFI_OK;
  }
  if (t == XFFI_TYPE_SMALL_STR || t == XFFI_TYPE_STRING) {
    p->small_type = XFFI_TYPE_SMALL_STR;
    p->obj_type = XFFI_TYPE_STRING;
  } else {
    p->small_type = XFFI_TYPE_SMALL_BYTES;
    p->obj_type = XFFI_TYPE_BYTES;
  }
  p->hash = p->obj ? xffi_string_hash(p->obj) : xffi_keyed_hash_bytes(p->data, p->size);
  return XFFI_OK;
}

static inline int key_equal(const xffi_any *k, const probe *p) {
  int32_t t = k->type_index;
  switch (p->kind) {
    case KEY_TEXT:
      if (t == p->small_type) return k->small_len == p->size && bytes_eq(k->v_small, p->data, p->size);
      if (t == p->obj_type) {
        if (k->v_obj == p->obj) return 1;
        xffi_byte_array b = xffi_string_cell_of_unchecked(k->v_obj);
        return b.size == p->size && bytes_eq(b.data, p->data, p->size);
      }
      return 0;
    case KEY_FLOAT: {
      if (t != XFFI_TYPE_FLOAT) return 0;
      double a = k->v_float64, b;
      memcpy(&b, &p->payload, sizeof(b));
      return a == b || (isnan(a) && isnan(b));
    }
    default: return t == p->type && exact_payload(k) == p->payload;
  }
}

/* ---- The index ----
 * What lookups inline; growth and removal are in c/map_table.c. */

static inline uint32_t home_slot(uint64_t hash, uint32_t num_slots) {
  return (uint32_t)(((uint64_t)(uint32_t)hash * num_slots) >> 32);
}

static inline uint32_t slot_tag(uint64_t hash, uint32_t index_mask) {
  /* (hash >> 33) | index_mask is at most 0x7fffffff (index_mask < 2^31), so
   * the sum neither wraps to 0 nor keeps a bit below index_mask. */
  return ((uint32_t)(hash >> 33) | index_mask) + 1;
}

/* The largest size + holes an index of n slots may hold (80%). */
static inline int64_t max_load(uint32_t n) { return (int64_t)n - (int64_t)(n / 5); }

/* The slot position holding the entry equal to p, or UINT32_MAX. */
static inline uint32_t cell_find_slot(const map_cell *c, const probe *p) {
  if (c->size == 0) return UINT32_MAX;
  uint32_t n = c->num_slots, mask = c->index_mask;
  uint32_t tag = slot_tag(p->hash, mask);
  const uint32_t *slots = c->slots;
  const map_entry *entries = c->entries;
  for (uint32_t i = home_slot(p->hash, n);;) {
    uint32_t s = slots[i];
    if (s == 0) return UINT32_MAX;
    if ((s & ~mask) == tag && key_equal(&entries[(s & mask) - 1].key, p)) return i;
    if (++i == n) i = 0;
  }
}

/* ---- Objects ---- */

static inline int is_map_kind(const xffi_object *obj) {
  return obj->type_index == XFFI_TYPE_MAP || obj->type_index == XFFI_TYPE_DICT;
}

/* Whether the caller's reference is the only one: strong 1, no weak
 * references (a weak one could be locked concurrently). obj borrowed. */
static inline int xffi_map_is_unique(const xffi_object *obj) {
  return __atomic_load_n(XFFI_REF_COUNTS(obj), __ATOMIC_ACQUIRE) == XFFI_REF_INITIAL;
}

/* ---- c/map_table.c ---- */

/* The hash of a stored key (key borrowed; never a borrowed string). */
uint64_t xffi_map_stored_key_hash(const xffi_any *key);
/* The growth step of xffi_map_cell_reserve_one (below). */
int xffi_map_cell_grow_for_one(map_cell *c);
/* Removes the entry at slot i, moving its key and value out into *key_out and
 * *value_out (new references, the caller's to release). */
void xffi_map_cell_remove_at(map_cell *c, uint32_t i, xffi_any *key_out, xffi_any *value_out);
/* Releases every entry and frees the tables, leaving an empty cell. */
void xffi_map_cell_clear(map_cell *c);
/* A new empty map of type_index (a new reference), or NULL with MemoryError
 * raised. */
xffi_object *xffi_map_alloc(int32_t type_index);
/* A new map of type_index holding src's entries (duplicated: new references),
 * with room for extra more entries without allocating; a new reference, or
 * NULL with MemoryError raised. */
xffi_object *xffi_map_clone(int32_t type_index, const map_cell *src, int64_t extra);
/* Argument checks: map (borrowed) must be a Map or a Dict; *map a Map. The
 * argument is named "dict" for fn xffi_dict_*, else "map". */
int xffi_map_check_readable(const char *fn, const xffi_object *map);
int xffi_map_check_ref(const char *fn, xffi_object **map);
/* KeyError "<fn>: key <key> is not in the map" (key borrowed). */
int xffi_map_raise_key_error(const char *fn, const xffi_any *key);
/* The shared bodies of the Map and Dict functions of the same name; fn is
 * the public function (__func__), for messages. out receives a new
 * reference. */
int xffi_map_do_length(const char *fn, int64_t *out, const xffi_object *map);
int xffi_map_do_copy(const char *fn, int32_t type_index, xffi_object **out, const xffi_object *map);

/* ---- c/map_edit.c ---- */
int xffi_map_do_new_from(const char *fn, int32_t type_index, xffi_object **out, const xffi_any *keys,
                         const xffi_any *values, int64_t count);

/* ---- c/map_iter.c ---- */
int xffi_map_do_next(const char *fn, xffi_map_item *out, const xffi_object *map, int64_t *cursor);

/* Makes room for one more entry (index and entry array). On failure (a
 * MemoryError raised) the map's contents are unchanged. */
static inline int xffi_map_cell_reserve_one(map_cell *c) {
  if (XFFI_LIKELY(cell_has_index(c) && c->size + c->holes + 1 <= max_load(c->num_slots) && c->used < c->capacity))
    return XFFI_OK;
  return xffi_map_cell_grow_for_one(c);
}

/* Puts entry index e with the given hash into the first empty slot. */
static inline void cell_index_put(map_cell *c, uint64_t hash, int64_t e) {
  uint32_t n = c->num_slots;
  uint32_t i = home_slot(hash, n);
  while (c->slots[i] != 0)
    if (++i == n) i = 0;
  c->slots[i] = slot_tag(hash, c->index_mask) | (uint32_t)(e + 1);
}

/* Appends key and value (both stolen: moved in, left None) under hash; room
 * must exist. */
static inline void xffi_map_cell_append(map_cell *c, uint64_t hash, xffi_any *key, xffi_any *value) {
  int64_t e = c->used;
  xffi_any_move(&c->entries[e].key, key);
  xffi_any_move(&c->entries[e].value, value);
  c->used = e + 1;
  c->size += 1;
  cell_index_put(c, hash, e);
}

#endif /* XFFI_MAP_TABLE_H */
