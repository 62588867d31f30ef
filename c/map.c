/* c/map.c: Map (immutable, copy-on-write) and Dict (mutable), insertion-ordered
 * hash maps from Any to Any.
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
 * - The slot array has one more slot after the num_slots of the index,
 *   always 0: a probe that runs off the end finds it "empty" and only then
 *   tests whether it is at the end (and wraps to slot 0), so probing an
 *   occupied slot costs no wrap test.
 * - An empty map without an index points at empty_index, one shared empty
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
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <xffi/map.h>
#include <xffi/string.h>

#include "hash.h"
#include "check.h"
#include "internal.h"
#include "string_internal.h"

#define MAP_HOLE INT32_MIN
#define MAP_MAX_ENTRIES (INT64_C(1) << 30)

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

/* The index of every map that has none (see the top of this file). Never
 * written: insertion allocates a real index first (cell_reserve_one). */
static uint32_t empty_index[2];

/* The bytes of an index of n slots: n slots and the end slot. */
static inline size_t index_bytes(uint32_t n) { return ((size_t)n + 1) * sizeof(uint32_t); }

static inline int cell_has_index(const map_cell *c) { return c->slots != empty_index; }

/* An empty cell: no entries, the shared empty index. */
static inline void cell_init(map_cell *c) {
  memset(c, 0, sizeof(*c));
  c->slots = empty_index;
  c->num_slots = 1;
  c->index_mask = 1;
}

/* ---- Keys: classification, hashing, equality ---- */

enum { KEY_EXACT, KEY_FLOAT, KEY_TEXT };

/* A key being looked up, with what equality and hashing need. */
typedef struct probe {
  int kind;          /* KEY_* */
  int32_t type;      /* KEY_EXACT: the type index that must match */
  int32_t small_type; /* KEY_TEXT: the inline kind (small string or small bytes) */
  int32_t obj_type;   /* KEY_TEXT: the object kind (String or Bytes) */
  uint64_t payload;  /* KEY_EXACT: the value bits; KEY_FLOAT: the double */
  const xffi_object *obj; /* KEY_TEXT: the key's own object, if it is one */
  const char *data;  /* KEY_TEXT: the bytes */
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
      xffi_byte_array b = xffi_string_view(key->v_obj);
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
      if (d == 0.0) d = 0.0;          /* -0.0 and 0.0 are one key */
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
        xffi_byte_array b = xffi_string_view(k->v_obj);
        return b.size == p->size && bytes_eq(b.data, p->data, p->size);
      }
      return 0;
    case KEY_FLOAT: {
      if (t != XFFI_TYPE_FLOAT) return 0;
      double a = k->v_float64, b;
      memcpy(&b, &p->payload, sizeof(b));
      return a == b || (isnan(a) && isnan(b));
    }
    default:
      return t == p->type && exact_payload(k) == p->payload;
  }
}

/* The hash of a stored key (never a borrowed string). */
static uint64_t stored_key_hash(const xffi_any *key) {
  probe p;
  p.hash = 0;
  if (probe_init(&p, "", key) != XFFI_OK) return 0; /* never: stored keys are valid */
  return p.hash;
}

/* ---- The index ---- */

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

/* The slot count for an index rebuilt around `live` entries. */
static uint32_t slots_for(int64_t live) {
  uint64_t n = (uint64_t)live * 15 / 8 + 1;
  return n < 8 ? 8 : (uint32_t)n;
}

static uint32_t mask_for(uint32_t num_slots) {
  uint32_t mask = 1;
  while (mask < num_slots) mask = (mask << 1) | 1;
  return mask;
}

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

/* Puts entry index e with the given hash into the first empty slot. */
static inline void cell_index_put(map_cell *c, uint64_t hash, int64_t e) {
  uint32_t n = c->num_slots;
  uint32_t i = home_slot(hash, n);
  while (c->slots[i] != 0)
    if (++i == n) i = 0;
  c->slots[i] = slot_tag(hash, c->index_mask) | (uint32_t)(e + 1);
}

/* Drops the holes from the entry array (keeping the order) and rebuilds the
 * index into `slots` (num_slots of them, zeroed or to be zeroed here). Never
 * fails. The old slot array, if different, is freed. */
static void cell_rebuild_into(map_cell *c, uint32_t *slots, uint32_t num_slots) {
  if (c->holes) {
    int64_t w = 0;
    for (int64_t r = 0; r < c->used; ++r)
      if (c->entries[r].key.type_index != MAP_HOLE) c->entries[w++] = c->entries[r];
    c->used = w;
    c->holes = 0;
  }
  if (slots != c->slots) {
    if (cell_has_index(c)) xffi_free(c->slots);
    c->slots = slots;
  }
  memset(slots, 0, index_bytes(num_slots));
  c->num_slots = num_slots;
  c->index_mask = mask_for(num_slots);
  for (int64_t e = 0; e < c->used; ++e) cell_index_put(c, stored_key_hash(&c->entries[e].key), e);
}

/* Grows the entry array to hold at least `need` entries. */
static int cell_reserve_entries(map_cell *c, int64_t need) {
  if (need <= c->capacity) return XFFI_OK;
  if (need > MAP_MAX_ENTRIES) return xffi_error_raise_out_of_memory();
  int64_t capacity = c->capacity + c->capacity / 4;
  if (capacity < c->capacity + 8) capacity = c->capacity + 8;
  if (capacity < need) capacity = need;
  if (capacity > MAP_MAX_ENTRIES) capacity = MAP_MAX_ENTRIES;
  map_entry *entries = xffi_realloc(c->entries, (size_t)capacity * sizeof(map_entry));
  if (!entries) return xffi_error_raise_out_of_memory();
  c->entries = entries;
  c->capacity = capacity;
  return XFFI_OK;
}

/* Makes room for one more entry (index and entry array). On failure the map's
 * contents are unchanged (the index may have been rebuilt). */
static int cell_reserve_one(map_cell *c) {
  if (!cell_has_index(c) || c->size + c->holes + 1 > max_load(c->num_slots)) {
    if (c->size + 1 > MAP_MAX_ENTRIES) return xffi_error_raise_out_of_memory();
    uint32_t n = slots_for(c->size + 1);
    uint32_t *slots = xffi_alloc(index_bytes(n));
    if (!slots) return xffi_error_raise_out_of_memory();
    cell_rebuild_into(c, slots, n);
  }
  return cell_reserve_entries(c, c->used + 1);
}

/* Appends owned key and value (moved in) under hash; room must exist. */
static void cell_append(map_cell *c, uint64_t hash, xffi_any *key, xffi_any *value) {
  int64_t e = c->used;
  xffi_any_move(&c->entries[e].key, key);
  xffi_any_move(&c->entries[e].value, value);
  c->used = e + 1;
  c->size += 1;
  cell_index_put(c, hash, e);
}

/* Removes the entry at slot i, moving its key and value out (owned). Compacts
 * when holes outnumber live entries (no allocation). */
static void cell_remove_at(map_cell *c, uint32_t i, xffi_any *key_out, xffi_any *value_out) {
  int64_t e = (int64_t)(c->slots[i] & c->index_mask) - 1;
  map_entry *entry = &c->entries[e];
  *key_out = entry->key;
  *value_out = entry->value;
  entry->key = xffi_any_none();
  entry->key.type_index = MAP_HOLE;
  entry->value = xffi_any_none();
  c->slots[i] = c->index_mask;
  c->size -= 1;
  c->holes += 1;
  if (c->holes > c->size) {
    uint32_t n = c->num_slots;
    uint32_t *slots = c->slots;
    /* Shrink a mostly empty index when memory allows; never fail. */
    if (n > 64 && n / 4 > slots_for(c->size)) {
      uint32_t smaller = slots_for(c->size);
      uint32_t *fresh = xffi_alloc(index_bytes(smaller));
      if (fresh) {
        slots = fresh;
        n = smaller;
      }
    }
    cell_rebuild_into(c, slots, n);
    if (c->capacity > 64 && c->capacity / 4 > c->used) {
      int64_t capacity = c->used + c->used / 4 + 8;
      map_entry *entries = xffi_realloc(c->entries, (size_t)capacity * sizeof(map_entry));
      if (entries) {
        c->entries = entries;
        c->capacity = capacity;
      }
    }
  }
}

/* Releases every entry and frees the tables, leaving an empty cell. */
static void cell_clear(map_cell *c) {
  map_entry *entries = c->entries;
  int64_t used = c->used;
  if (cell_has_index(c)) xffi_free(c->slots);
  cell_init(c);
  for (int64_t e = 0; e < used; ++e) {
    if (entries[e].key.type_index == MAP_HOLE) continue;
    xffi_any_release(&entries[e].key);
    xffi_any_release(&entries[e].value);
  }
  xffi_free(entries);
}

/* ---- Objects ---- */

static void map_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) {
    /* Parked while another release runs: a deep nesting uses bounded stack. */
    if (xffi_release_begin(self, flags, map_deleter)) return;
    cell_clear(cell_of((xffi_object *)self));
    xffi_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_free(self);
}

static xffi_object *map_alloc(int32_t type_index) {
  xffi_hash_key_ensure(); /* before any hash is stored in a map */
  map_object *m = xffi_alloc(sizeof(map_object));
  if (!m) {
    xffi_error_raise_out_of_memory();
    return NULL;
  }
  xffi_object_init(&m->header, type_index, map_deleter);
  cell_init(&m->cell);
  return &m->header;
}

/* A new map of the given type holding src's entries (duplicated), with room
 * for `extra` more entries without allocating. NULL with MemoryError raised. */
static xffi_object *map_clone(int32_t type_index, const map_cell *src, int64_t extra) {
  xffi_object *obj = map_alloc(type_index);
  if (!obj) return NULL;
  map_cell *c = cell_of(obj);
  int64_t need = src->size + extra;
  if (need > 0) {
    uint32_t n = slots_for(need);
    c->entries = xffi_alloc((size_t)need * sizeof(map_entry));
    c->slots = xffi_alloc_zeroed((size_t)n + 1, sizeof(uint32_t));
    if (!c->entries || !c->slots) {
      xffi_object_dec_ref_inline(obj);
      xffi_error_raise_out_of_memory();
      return NULL;
    }
    c->capacity = need;
    c->num_slots = n;
    c->index_mask = mask_for(n);
    for (int64_t r = 0; r < src->used; ++r) {
      const map_entry *entry = &src->entries[r];
      if (entry->key.type_index == MAP_HOLE) continue;
      int64_t e = c->used++;
      c->entries[e].key = entry->key;
      c->entries[e].value = entry->value;
      if (xffi_any_is_object(&entry->key)) xffi_object_inc_ref_inline(entry->key.v_obj);
      if (xffi_any_is_object(&entry->value)) xffi_object_inc_ref_inline(entry->value.v_obj);
      c->size += 1;
      cell_index_put(c, stored_key_hash(&entry->key), e);
    }
  }
  return obj;
}

static int map_is_unique(const xffi_object *obj) {
  return __atomic_load_n(XFFI_REF_COUNTS(obj), __ATOMIC_ACQUIRE) == XFFI_REF_INITIAL;
}

/* ---- Argument checks and messages ---- */

static inline int is_map_kind(const xffi_object *obj) {
  return obj->type_index == XFFI_TYPE_MAP || obj->type_index == XFFI_TYPE_DICT;
}

static int check_readable(const char *fn, const xffi_object *map) {
  if (XFFI_LIKELY(map && is_map_kind(map))) return XFFI_OK;
  const char *arg = strncmp(fn, "xffi_dict", 9) == 0 ? "dict" : "map";
  if (!map) return xffi_raise_null_arg(fn, arg);
  xffi_any view = xffi_any_object((xffi_object *)map);
  return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s expected Map or Dict, got %s", fn, arg, xffi_any_kind_name(&view));
}

static int check_map_ref(const char *fn, xffi_object **map) {
  if (!map) return xffi_raise_null_arg(fn, "map");
  if (!*map) return xffi_raise_null_arg(fn, "*map");
  return xffi_check_object_arg(fn, "*map", *map, XFFI_TYPE_MAP);
}

/* A short printable form of a key for KeyError messages. */
static void describe_key(char *buf, size_t cap, const xffi_any *key) {
  probe p;
  memset(&p, 0, sizeof(p));
  switch (key->type_index) {
    case XFFI_TYPE_INT: snprintf(buf, cap, "%lld", (long long)key->v_int64); return;
    case XFFI_TYPE_BOOL: snprintf(buf, cap, "%s", key->v_int64 ? "true" : "false"); return;
    case XFFI_TYPE_FLOAT: snprintf(buf, cap, "%g", key->v_float64); return;
    case XFFI_TYPE_NONE: snprintf(buf, cap, "None"); return;
    default: break;
  }
  if (probe_init(&p, "", key) == XFFI_OK && p.kind == KEY_TEXT) {
    int shown = p.size > 40 ? 40 : (int)p.size;
    snprintf(buf, cap, "%s\"%.*s\"%s", p.small_type == XFFI_TYPE_SMALL_BYTES ? "b" : "", shown, p.data,
             p.size > 40 ? "..." : "");
    return;
  }
  snprintf(buf, cap, "(a %s)", xffi_any_kind_name(key));
}

/* Out of line and cold: its 96-byte buffer would otherwise give every caller
 * a stack frame. */
static int __attribute__((noinline, cold)) raise_key_error(const char *fn, const xffi_any *key) {
  char text[96];
  describe_key(text, sizeof(text), key);
  return xffi_error_raise(XFFI_KIND_KEY, "%s: key %s is not in the map", fn, text);
}

/* ---- Shared implementations ---- */

static int map_new_from(const char *fn, int32_t type_index, xffi_object **out, const xffi_any *keys,
                        const xffi_any *values, int64_t count);

static int map_new(const char *fn, int32_t type_index, xffi_object **out) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = map_alloc(type_index);
  return *out ? XFFI_OK : XFFI_FAIL;
}

static int map_length(const char *fn, int64_t *out, const xffi_object *map) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  if (check_readable(fn, map) != XFFI_OK) return XFFI_FAIL;
  *out = cell_of(map)->size;
  return XFFI_OK;
}

/* ---- The lookup fast paths ----
 * The same hashing and equality as probe_init/key_equal, written out for
 * the commonest keys (strings of every form, ints) so that a hit costs a few
 * dozen instructions: no call on the common path (a String's hash is cached
 * in the object, c/string_internal.h), and the probe's bytes are loaded once
 * into registers and compared against each candidate inline.
 *
 * The slot test shared by the loops below: with x = slot ^ tag, x <= mask
 * exactly when the slot's tag is the probe's (then x is the entry index + 1),
 * and x == tag exactly when the slot is empty. Deleted slots (index_mask)
 * pass neither test, as their bits above the mask differ from a tag's. */

/* Walks the probe sequence of hash in the cell c: runs on_candidate (a
 * block that may return, or break out of the walk) for each entry whose slot
 * tag matches, with `entry` pointing at it; runs on_empty at the first empty
 * slot (it must return or break). */
#define PROBE_WALK(c, hash, on_candidate, on_empty)                                       \
  do {                                                                                    \
    uint32_t mask_ = (c)->index_mask, tag_ = slot_tag((hash), mask_);                     \
    for (const uint32_t *p_ = (c)->slots + home_slot((hash), (c)->num_slots);;) {         \
      uint32_t x_ = *p_ ^ tag_;                                                           \
      /* Opaque to the optimiser, so that it tests x_ == tag_ as written instead of \
       * keeping the slot value alive for an equivalent test (a register and a    \
       * move per probed slot). */                                                        \
      __asm__("" : "+r"(x_));                                                             \
      if (x_ <= mask_) {                                                                  \
        const map_entry *entry = &(c)->entries[x_ - 1];                                   \
        on_candidate                                                                      \
      } else if (x_ == tag_) {                                                            \
        /* Empty, or the end slot: then wrap. Rare, so the slot array and its  \
         * size are read again here (volatile: else the compiler keeps them in   \
         * registers throughout the loop, which then needs saved registers). */     \
        const uint32_t *slots_ = *(const uint32_t *const volatile *)&(c)->slots;          \
        if (XFFI_UNLIKELY(p_ == slots_ + *(const volatile uint32_t *)&(c)->num_slots)) {  \
          p_ = slots_;                                                                    \
          continue;                                                                       \
        }                                                                                 \
        on_empty                                                                          \
      }                                                                                   \
      ++p_;                                                                               \
    }                                                                                     \
  } while (0)

/* The walk for a function returning the value found: NULL when absent. */
#define PROBE_LOOP(c, hash, on_candidate) PROBE_WALK(c, hash, on_candidate, return NULL;)

/* Any text: the entry value whose key has the size bytes at data, or NULL.
 * obj_type/small_type: String and small string, or Bytes and small bytes. */
static inline const xffi_any *find_text(const map_cell *c, const char *data, size_t size, uint64_t hash,
                                        int32_t obj_type, int32_t small_type) {
  PROBE_LOOP(c, hash, {
    int32_t t = entry->key.type_index;
    if (t == obj_type) {
      xffi_byte_array b = xffi_string_view(entry->key.v_obj);
      if (b.size == size && (b.data == data || bytes_eq(b.data, data, size))) return &entry->value;
    } else if (t == small_type && entry->key.small_len == size && short_bytes_eq(entry->key.v_small, data, size)) {
      return &entry->value;
    }
  });
}

/* Text of 8 to 16 bytes: only objects can hold it (small strings hold at
 * most 7 bytes), compared as two overlapping words. No call: a leaf. */
static inline const xffi_any *find_text_mid(const map_cell *c, const char *data, size_t size, uint64_t hash,
                                            int32_t obj_type) {
  /* Opaque, so that a candidate reads the probe's bytes again rather than
   * keeping the two words the hash read in registers across the walk. */
  __asm__("" : "+r"(data));
  PROBE_LOOP(c, hash, {
    if (entry->key.type_index == obj_type) {
      xffi_byte_array b = xffi_string_view(entry->key.v_obj);
      if (b.size == size &&
          ((load64(b.data) ^ load64(data)) | (load64(b.data + size - 8) ^ load64(data + size - 8))) == 0)
        return &entry->value;
    }
  });
}

static inline const xffi_any *find_int(const map_cell *c, int64_t key) {
  uint64_t hash = exact_hash(XFFI_TYPE_INT, (uint64_t)key);
  PROBE_LOOP(c, hash, {
    if (entry->key.type_index == XFFI_TYPE_INT && entry->key.v_int64 == key) return &entry->value;
  });
}

/* Any text key given as bytes. */
static int __attribute__((noinline)) lookup_text_slow(const xffi_any **out, const map_cell *c, const char *data,
                                                      size_t size, int32_t obj_type, int32_t small_type) {
  *out = find_text(c, data, size, xffi_keyed_hash_bytes(data, size), obj_type, small_type);
  return XFFI_OK;
}

/* A String or Bytes key object outside the hot case below. */
static int __attribute__((noinline)) lookup_text_object_slow(const xffi_any **out, const map_cell *c,
                                                             const xffi_object *obj, int32_t small_type) {
  xffi_byte_array b = xffi_string_view(obj);
  *out = find_text(c, b.data, b.size, xffi_string_hash(obj), obj->type_index, small_type);
  return XFFI_OK;
}

/* A String or Bytes key object: the hot case (8 to 16 bytes, hash cached)
 * stays a leaf; the rest goes to lookup_text_object_slow by a tail call. */
/* Whether a String or Bytes key object is the hot case: 8 to 16 bytes (*b),
 * allocated by this library with its hash cached (*hash). */
static inline int text_object_is_hot(const xffi_object *obj, xffi_byte_array *b, uint64_t *hash) {
  *b = xffi_string_view(obj);
  return XFFI_LIKELY(b->size - 8 <= 8 && obj->deleter == xffi_string_deleter &&
                     (*hash = __atomic_load_n(&xffi_string_hash_word(obj)->value, __ATOMIC_RELAXED)) != 0);
}

static inline int lookup_text_object(const xffi_any **out, const map_cell *c, const xffi_object *obj,
                                     int32_t obj_type, int32_t small_type) {
  xffi_byte_array b;
  uint64_t hash;
  if (XFFI_UNLIKELY(!text_object_is_hot(obj, &b, &hash))) return lookup_text_object_slow(out, c, obj, small_type);
  *out = find_text_mid(c, b.data, b.size, hash, obj_type);
  return XFFI_OK;
}

static int __attribute__((noinline)) lookup_string(const xffi_any **out, const map_cell *c, const xffi_object *obj) {
  return lookup_text_object(out, c, obj, XFFI_TYPE_STRING, XFFI_TYPE_SMALL_STR);
}

static int __attribute__((noinline)) lookup_bytes(const xffi_any **out, const map_cell *c, const xffi_object *obj) {
  return lookup_text_object(out, c, obj, XFFI_TYPE_BYTES, XFFI_TYPE_SMALL_BYTES);
}

/* Masks that keep the first n bytes (n = 0..7) of a word loaded from memory.
 * Written as bytes and loaded like the data, so they fit either byte order
 * (a numeric 0xff.. constant keeps the last bytes on a big-endian machine). */
static const unsigned char first_bytes_mask[8][8] = {
    {0},
    {0xff},
    {0xff, 0xff},
    {0xff, 0xff, 0xff},
    {0xff, 0xff, 0xff, 0xff},
    {0xff, 0xff, 0xff, 0xff, 0xff},
    {0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
    {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
};

/* The bytes of an inline small string or small bytes value of size <= 7
 * bytes as one word, the bytes past size zeroed. */
static inline uint64_t small_word(const xffi_any *v, size_t size) {
  return load64(v->v_small) & load64((const char *)first_bytes_mask[size]);
}

/* A small string key of any size, the general way. */
static int __attribute__((noinline)) lookup_small_str_slow(const xffi_any **out, const map_cell *c,
                                                           const xffi_any *key) {
  return lookup_text_slow(out, c, key->v_small, key->small_len, XFFI_TYPE_STRING, XFFI_TYPE_SMALL_STR);
}

/* A small string (at most 7 bytes inline in the key). Stored small keys have
 * their bytes past small_len zeroed (map_set), so a stored small string
 * matches when its first 8 bytes (type and length, the same as the probe's)
 * and its last 8 (the bytes) equal the probe's. A stored String object
 * (rare: copying in makes short strings small) sends the lookup to the
 * general walk. No call on the common path: a leaf. */
static int __attribute__((noinline)) lookup_small_str(const xffi_any **out, const xffi_object *map,
                                                      const xffi_any *key) {
  const map_cell *c = cell_of(map); /* (the map, not the cell: one add fewer in the caller) */
  size_t size = key->small_len; /* at most 7: checked by the callers */
  uint64_t head, bytes = small_word(key, size);
  memcpy(&head, key, sizeof(head));
  uint64_t hash = xffi_keyed_hash_short(key->v_small, size);
  PROBE_WALK(c, hash, {
    uint64_t entry_head;
    memcpy(&entry_head, &entry->key, sizeof(entry_head));
    if (entry_head == head) {
      if (load64(entry->key.v_small) == bytes) {
        *out = &entry->value;
        return XFFI_OK;
      }
    } else if (entry->key.type_index == XFFI_TYPE_STRING) {
      return lookup_small_str_slow(out, c, key);
    }
  }, {
    *out = NULL;
    return XFFI_OK;
  });
}

/* A borrowed C string: a leaf after strlen for 8 to 16 bytes, the general
 * walk otherwise. */
static int __attribute__((noinline)) lookup_c_str(const xffi_any **out, const xffi_object *map, const char *c_str) {
  const map_cell *c = cell_of(map);
  size_t size = strlen(c_str);
  if (XFFI_UNLIKELY(size - 8 > 8)) return lookup_text_slow(out, c, c_str, size, XFFI_TYPE_STRING, XFFI_TYPE_SMALL_STR);
  *out = find_text_mid(c, c_str, size, xffi_keyed_hash_short(c_str, size), XFFI_TYPE_STRING);
  return XFFI_OK;
}

static int __attribute__((noinline)) lookup_int(const xffi_any **out, const map_cell *c, int64_t key) {
  *out = find_int(c, key);
  return XFFI_OK;
}

/* Looks key up in the non-empty map cell c if its kind has a fast path
 * (then returns XFFI_OK with *out the value or NULL); else returns 1. */
static inline int find_fast(const xffi_any **out, const xffi_object *map, const xffi_any *key) {
  const map_cell *c = cell_of(map);
  switch (key->type_index) {
    case XFFI_TYPE_STRING: return lookup_string(out, c, key->v_obj);
    case XFFI_TYPE_SMALL_STR: return lookup_small_str(out, map, key);
    case XFFI_TYPE_RAW_STR: return lookup_c_str(out, map, key->v_c_str);
    case XFFI_TYPE_INT: return lookup_int(out, c, key->v_int64);
    case XFFI_TYPE_BYTES: return lookup_bytes(out, c, key->v_obj);
    default: return 1;
  }
}

/* Finds key in a readable map: *out the stored value or NULL. */
static inline int map_lookup(const char *fn, const xffi_any **out, const xffi_object *map, const xffi_any *key) {
  if (XFFI_UNLIKELY(!out)) return xffi_raise_null_arg(fn, "out");
  if (XFFI_UNLIKELY(check_readable(fn, map) != XFFI_OK)) return XFFI_FAIL;
  if (XFFI_UNLIKELY(!key)) return xffi_raise_null_arg(fn, "key");
  if (XFFI_UNLIKELY(!xffi_any_is_well_formed(key))) return xffi_any_raise_malformed(fn, "key", key);
  const map_cell *c = cell_of(map);
  if (c->size == 0 && key->type_index != XFFI_TYPE_OBJECT_RVALUE) {
    *out = NULL;
    return XFFI_OK;
  }
  if (find_fast(out, map, key) == XFFI_OK) return XFFI_OK;
  probe p;
  if (XFFI_UNLIKELY(probe_init(&p, fn, key) != XFFI_OK)) return XFFI_FAIL;
  uint32_t i = cell_find_slot(c, &p);
  *out = i == UINT32_MAX ? NULL : &c->entries[(c->slots[i] & c->index_mask) - 1].value;
  return XFFI_OK;
}

static int map_contains(const char *fn, int *out, const xffi_object *map, const xffi_any *key) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  const xffi_any *found = NULL;
  if (map_lookup(fn, &found, map, key) != XFFI_OK) return XFFI_FAIL;
  *out = found != NULL;
  return XFFI_OK;
}

static int map_next(const char *fn, xffi_map_item *out, const xffi_object *map, int64_t *cursor) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  if (check_readable(fn, map) != XFFI_OK) return XFFI_FAIL;
  if (!cursor) return xffi_raise_null_arg(fn, "cursor");
  if (*cursor < 0) return xffi_error_raise(XFFI_KIND_INDEX, "%s: cursor is negative (%lld)", fn, (long long)*cursor);
  const map_cell *c = cell_of(map);
  for (int64_t e = *cursor; e < c->used; ++e) {
    if (c->entries[e].key.type_index == MAP_HOLE) continue;
    out->key = &c->entries[e].key;
    out->value = &c->entries[e].value;
    *cursor = e + 1;
    return XFFI_OK;
  }
  out->key = NULL;
  out->value = NULL;
  if (*cursor < c->used) *cursor = c->used;
  return XFFI_OK;
}

static int map_copy(const char *fn, int32_t type_index, xffi_object **out, const xffi_object *map) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  if (check_readable(fn, map) != XFFI_OK) return XFFI_FAIL;
  *out = map_clone(type_index, cell_of(map), 0);
  return *out ? XFFI_OK : XFFI_FAIL;
}

/* Copies a key or value view into an owned value, refusing rvalues and
 * malformed values (*owned is None then). */
static inline int copy_in(const char *fn, const char *what, xffi_any *owned, const xffi_any *view) {
  if (XFFI_UNLIKELY(!xffi_any_is_well_formed(view))) {
    *owned = xffi_any_none();
    return xffi_any_raise_malformed(fn, what, view);
  }
  int32_t t = view->type_index;
  if (XFFI_LIKELY(t != XFFI_TYPE_RAW_STR && t != XFFI_TYPE_BYTE_ARRAY_PTR && t != XFFI_TYPE_OBJECT_RVALUE)) {
    if (xffi_any_is_object(view)) xffi_object_inc_ref_inline(view->v_obj);
    *owned = *view; /* the common case, as xffi_any_copy does it */
    return XFFI_OK;
  }
  *owned = xffi_any_none();
  if (view->type_index == XFFI_TYPE_OBJECT_RVALUE)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s is an object rvalue reference (a move), which cannot be stored", fn,
                            what);
  return xffi_any_copy(owned, view);
}

/* Zeroes the bytes of an inline small key past its length, as lookup_small_str
 * expects of stored keys (they are no part of the value). */
static inline void zero_small_tail(xffi_any *key) {
  if ((key->type_index == XFFI_TYPE_SMALL_STR || key->type_index == XFFI_TYPE_SMALL_BYTES) && key->small_len <= 7) {
    uint64_t w = small_word(key, key->small_len);
    memcpy(key->v_small, &w, sizeof(w));
  }
}

/* Sets key -> value in *target. For a Map (cow != 0) a shared map is first
 * replaced by a private copy; for a Dict *target is changed in place. */
static int map_set(const char *fn, xffi_object **target, int cow, const xffi_any *key, const xffi_any *value) {
  if (!key) return xffi_raise_null_arg(fn, "key");
  if (!value) return xffi_raise_null_arg(fn, "value");
  if (XFFI_UNLIKELY(!xffi_any_is_well_formed(key))) return xffi_any_raise_malformed(fn, "key", key);
  probe p;
  if (probe_init(&p, fn, key) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned_value;
  if (copy_in(fn, "value", &owned_value, value) != XFFI_OK) return XFFI_FAIL;
  xffi_object *obj = *target;
  uint32_t i = cell_find_slot(cell_of(obj), &p);
  xffi_any owned_key = xffi_any_none();
  if (i == UINT32_MAX && copy_in(fn, "key", &owned_key, key) != XFFI_OK) {
    xffi_any_release(&owned_value);
    return XFFI_FAIL;
  }
  zero_small_tail(&owned_key);
  if (cow && !map_is_unique(obj)) {
    xffi_object *copy = map_clone(XFFI_TYPE_MAP, cell_of(obj), i == UINT32_MAX ? 1 : 0);
    if (!copy) {
      xffi_any_release(&owned_key);
      xffi_any_release(&owned_value);
      return XFFI_FAIL;
    }
    *target = copy;
    xffi_object_dec_ref_inline(obj);
    obj = copy;
    if (i != UINT32_MAX) i = cell_find_slot(cell_of(obj), &p);
  }
  map_cell *c = cell_of(obj);
  if (i != UINT32_MAX) {
    xffi_any *slot = &c->entries[(c->slots[i] & c->index_mask) - 1].value;
    xffi_any old = *slot;
    *slot = owned_value;
    xffi_any_release(&old);
    return XFFI_OK;
  }
  if (cell_reserve_one(c) != XFFI_OK) {
    xffi_any_release(&owned_key);
    xffi_any_release(&owned_value);
    return XFFI_FAIL;
  }
  cell_append(c, p.hash, &owned_key, &owned_value);
  return XFFI_OK;
}

/* Removes key from *target (copy-on-write for a Map), moving the value into
 * *value_out if given. */
static int map_erase(const char *fn, xffi_object **target, int cow, const xffi_any *key, xffi_any *value_out) {
  if (!key) return xffi_raise_null_arg(fn, "key");
  if (XFFI_UNLIKELY(!xffi_any_is_well_formed(key))) return xffi_any_raise_malformed(fn, "key", key);
  probe p;
  if (probe_init(&p, fn, key) != XFFI_OK) return XFFI_FAIL;
  xffi_object *obj = *target;
  uint32_t i = cell_find_slot(cell_of(obj), &p);
  if (i == UINT32_MAX) return raise_key_error(fn, key);
  if (cow && !map_is_unique(obj)) {
    xffi_object *copy = map_clone(XFFI_TYPE_MAP, cell_of(obj), 0);
    if (!copy) return XFFI_FAIL;
    *target = copy;
    xffi_object_dec_ref_inline(obj);
    obj = copy;
    i = cell_find_slot(cell_of(obj), &p);
  }
  xffi_any old_key, old_value;
  cell_remove_at(cell_of(obj), i, &old_key, &old_value);
  xffi_any_release(&old_key);
  if (value_out)
    *value_out = old_value;
  else
    xffi_any_release(&old_value);
  return XFFI_OK;
}

static int map_new_from(const char *fn, int32_t type_index, xffi_object **out, const xffi_any *keys,
                        const xffi_any *values, int64_t count) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  if (count < 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: count is negative (%lld)", fn, (long long)count);
  if (count > 0 && !keys)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: keys is NULL but count is %lld", fn, (long long)count);
  if (count > 0 && !values)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: values is NULL but count is %lld", fn, (long long)count);
  if (count > MAP_MAX_ENTRIES) return xffi_error_raise_out_of_memory();
  xffi_object *obj = map_alloc(type_index);
  if (!obj) return XFFI_FAIL;
  for (int64_t k = 0; k < count; ++k) {
    if (map_set(fn, &obj, 0, &keys[k], &values[k]) != XFFI_OK) {
      xffi_object_dec_ref_inline(obj);
      return XFFI_FAIL;
    }
  }
  *out = obj;
  return XFFI_OK;
}

/* ======================= Map ======================= */

int xffi_map_new(xffi_object **out) { return map_new(__func__, XFFI_TYPE_MAP, out); }

int xffi_map_new_from(xffi_object **out, const xffi_any *keys, const xffi_any *values, int64_t count) {
  return map_new_from(__func__, XFFI_TYPE_MAP, out, keys, values, count);
}

int xffi_map_length(int64_t *out, const xffi_object *map) { return map_length(__func__, out, map); }

/* The general path of xffi_map_lookup and xffi_dict_lookup (argument
 * errors, empty maps, keys without a fast path), kept out of line so that
 * the fast paths need few registers. */
static int __attribute__((noinline)) map_lookup_general(const char *fn, const xffi_any **out,
                                                        const xffi_object *map, const xffi_any *key) {
  return map_lookup(fn, out, map, key);
}

/* The exported lookups: the fast path inline, the rest out of line. */
static inline int lookup_entry(const char *fn, const xffi_any **out, const xffi_object *map, const xffi_any *key) {
  /* An empty map needs no test: its index is one empty slot. */
  if (XFFI_LIKELY(out && map && is_map_kind(map) && key)) {
    const map_cell *c = cell_of(map);
    /* The commonest key, inline; the others by tail calls. */
    int32_t t = key->type_index;
    /* Malformed keys (a NULL pointer, a small string over 7 bytes) fail the
     * second test and get their ValueError from the general path. */
    if (XFFI_LIKELY(t == XFFI_TYPE_STRING && key->v_obj))
      return lookup_text_object(out, c, key->v_obj, XFFI_TYPE_STRING, XFFI_TYPE_SMALL_STR);
    /* Tested in this order, one compare each (a switch would be a tree). */
    if (t == XFFI_TYPE_RAW_STR && key->v_c_str) return lookup_c_str(out, map, key->v_c_str);
    if (t == XFFI_TYPE_SMALL_STR && key->small_len <= XFFI_SMALL_STR_MAX) return lookup_small_str(out, map, key);
    if (t == XFFI_TYPE_INT) return lookup_int(out, c, key->v_int64);
    if (t == XFFI_TYPE_BYTES && key->v_obj) return lookup_bytes(out, c, key->v_obj);
  }
  return map_lookup_general(fn, out, map, key);
}

/* The end of a get: *out receives a copy of *found (a new reference), or
 * KeyError when found is NULL. */
static inline int get_found(const char *fn, xffi_any *out, const xffi_any *found, const xffi_any *key) {
  if (XFFI_UNLIKELY(!found)) return raise_key_error(fn, key);
  if (xffi_any_is_object(found)) xffi_object_inc_ref_inline(found->v_obj);
  *out = *found;
  return XFFI_OK;
}

/* Every get but the hot String one: the lookup's fast paths, by calls. */
static int __attribute__((noinline)) map_get_general(const char *fn, xffi_any *out, const xffi_object *map,
                                                     const xffi_any *key) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  const xffi_any *found;
  if (lookup_entry(fn, &found, map, key) != XFFI_OK) return XFFI_FAIL;
  return get_found(fn, out, found, key);
}

/* xffi_map_get and xffi_dict_get. The hot String case is inline, with no
 * local whose address escapes (so nothing goes through the stack). */
static inline int map_get(const char *fn, xffi_any *out, const xffi_object *map, const xffi_any *key) {
  xffi_byte_array b;
  uint64_t hash;
  if (XFFI_LIKELY(out && map && is_map_kind(map) && key && key->type_index == XFFI_TYPE_STRING && key->v_obj &&
                  text_object_is_hot(key->v_obj, &b, &hash)))
    return get_found(fn, out, find_text_mid(cell_of(map), b.data, b.size, hash, XFFI_TYPE_STRING), key);
  return map_get_general(fn, out, map, key);
}

int xffi_map_get(xffi_any *out, const xffi_object *map, const xffi_any *key) {
  return map_get(__func__, out, map, key);
}

int xffi_map_lookup(const xffi_any **out, const xffi_object *map, const xffi_any *key) {
  return lookup_entry(__func__, out, map, key);
}

int xffi_map_contains(int *out, const xffi_object *map, const xffi_any *key) {
  return map_contains(__func__, out, map, key);
}

int xffi_map_next(xffi_map_item *out, const xffi_object *map, int64_t *cursor) {
  return map_next(__func__, out, map, cursor);
}

int xffi_map_copy(xffi_object **out, const xffi_object *map) {
  return map_copy(__func__, XFFI_TYPE_MAP, out, map);
}

int xffi_map_set(xffi_object **map, const xffi_any *key, const xffi_any *value) {
  if (check_map_ref(__func__, map) != XFFI_OK) return XFFI_FAIL;
  return map_set(__func__, map, 1, key, value);
}

int xffi_map_erase(xffi_object **map, const xffi_any *key) {
  if (check_map_ref(__func__, map) != XFFI_OK) return XFFI_FAIL;
  return map_erase(__func__, map, 1, key, NULL);
}

int xffi_map_clear(xffi_object **map) {
  if (check_map_ref(__func__, map) != XFFI_OK) return XFFI_FAIL;
  if (map_is_unique(*map)) {
    cell_clear(cell_of(*map));
    return XFFI_OK;
  }
  xffi_object *empty = map_alloc(XFFI_TYPE_MAP);
  if (!empty) return XFFI_FAIL;
  xffi_object *old = *map;
  *map = empty;
  xffi_object_dec_ref_inline(old);
  return XFFI_OK;
}

int xffi_map_memory_bytes(size_t *out, const xffi_object *map) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  if (check_readable(__func__, map) != XFFI_OK) return XFFI_FAIL;
  const map_cell *c = cell_of(map);
  *out = sizeof(map_object) + (size_t)c->capacity * sizeof(map_entry) +
         (cell_has_index(c) ? index_bytes(c->num_slots) : 0);
  return XFFI_OK;
}

/* ======================= Dict ======================= */

int xffi_dict_new(xffi_object **out) { return map_new(__func__, XFFI_TYPE_DICT, out); }

int xffi_dict_new_from(xffi_object **out, const xffi_any *keys, const xffi_any *values, int64_t count) {
  return map_new_from(__func__, XFFI_TYPE_DICT, out, keys, values, count);
}

int xffi_dict_length(int64_t *out, const xffi_object *dict) { return map_length(__func__, out, dict); }

int xffi_dict_get(xffi_any *out, const xffi_object *dict, const xffi_any *key) {
  return map_get(__func__, out, dict, key);
}

int xffi_dict_lookup(const xffi_any **out, const xffi_object *dict, const xffi_any *key) {
  return lookup_entry(__func__, out, dict, key);
}

int xffi_dict_contains(int *out, const xffi_object *dict, const xffi_any *key) {
  return map_contains(__func__, out, dict, key);
}

int xffi_dict_next(xffi_map_item *out, const xffi_object *dict, int64_t *cursor) {
  return map_next(__func__, out, dict, cursor);
}

int xffi_dict_copy(xffi_object **out, const xffi_object *dict) {
  return map_copy(__func__, XFFI_TYPE_DICT, out, dict);
}

int xffi_dict_set(xffi_object *dict, const xffi_any *key, const xffi_any *value) {
  if (XFFI_UNLIKELY(!dict || dict->type_index != XFFI_TYPE_DICT) &&
      xffi_check_object_arg(__func__, "dict", dict, XFFI_TYPE_DICT) != XFFI_OK)
    return XFFI_FAIL;
  return map_set(__func__, &dict, 0, key, value);
}

int xffi_dict_erase(xffi_object *dict, const xffi_any *key) {
  XFFI_CHECK_ARG_OBJECT(dict, XFFI_TYPE_DICT);
  return map_erase(__func__, &dict, 0, key, NULL);
}

int xffi_dict_pop(xffi_any *out, xffi_object *dict, const xffi_any *key) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_OBJECT(dict, XFFI_TYPE_DICT);
  return map_erase(__func__, &dict, 0, key, out);
}

int xffi_dict_clear(xffi_object *dict) {
  XFFI_CHECK_ARG_OBJECT(dict, XFFI_TYPE_DICT);
  cell_clear(cell_of(dict));
  return XFFI_OK;
}
