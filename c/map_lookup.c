/* c/map_lookup.c: finding keys in Map and Dict: xffi_map_get, _lookup and
 * _contains and their Dict twins. The hot paths (String, small string, C
 * string, int keys) are written out so that a hit costs a few dozen
 * instructions; the general path hashes and compares any key kind. The
 * public functions live here so that the hot paths inline into them. */
#include <string.h>

#include "check.h"
#include "map_table.h"

/* ---- The lookup fast paths ----
 * The same hashing and equality as probe_init/key_equal, written out for
 * the commonest keys (strings of every form, ints) so that a hit costs a few
 * dozen instructions: no call on the common path (a String's hash is cached
 * in the object, c/string_internal.h), and the probe's bytes are loaded once
 * into registers and compared against each candidate inline.
 *
 * The slot test shared by the loops below: with x = slot ^ tag, x <= mask
 * exactly when the slot's tag is the probe's (then x is the entry index + 1).
 * Deleted slots (index_mask) fail it, as their bits above the mask differ
 * from a tag's. */

/* Walks the probe sequence of hash in the cell c: runs on_candidate (a
 * block that may return, or break out of the walk) for each entry whose slot
 * tag matches, with `entry` pointing at it; runs on_empty at the first empty
 * slot (it must return or break). One compare (slot <= MAP_SLOT_END) finds
 * both an empty slot and the end mark; only then are they told apart, and the
 * walk wraps to slot 0 by the slot count stored after the end mark. So the
 * walk keeps neither an end pointer nor the array's start in a register, and
 * an occupied slot costs the compare and the tag test. */
#define PROBE_WALK(c, hash, on_candidate, on_empty)                                    \
  do {                                                                                 \
    uint32_t mask_ = (c)->index_mask, tag_ = slot_tag((hash), mask_);                  \
    for (const uint32_t *p_ = (c)->slots + home_slot((hash), (c)->num_slots);; ++p_) { \
      uint32_t slot_ = *p_;                                                            \
      if (XFFI_UNLIKELY(slot_ <= MAP_SLOT_END)) {                                      \
        if (slot_ == MAP_SLOT_EMPTY) {                                                 \
          on_empty                                                                     \
        }                                                                              \
        p_ -= p_[1]; /* the end mark, then the slot count: back to slot 0 */           \
        slot_ = *p_;                                                                   \
        if (slot_ == MAP_SLOT_EMPTY) {                                                 \
          on_empty                                                                     \
        }                                                                              \
      }                                                                                \
      uint32_t x_ = slot_ ^ tag_;                                                      \
      if (x_ <= mask_) {                                                               \
        const map_entry *entry = &(c)->entries[x_ - 1];                                \
        on_candidate                                                                   \
      }                                                                                \
    }                                                                                  \
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
      xffi_byte_array b = xffi_string_cell_of_unchecked(entry->key.v_obj);
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
  PROBE_LOOP(c, hash, {
    if (entry->key.type_index == obj_type) {
      xffi_byte_array b = xffi_string_cell_of_unchecked(entry->key.v_obj);
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
static int __attribute__((noinline))
lookup_text_object_slow(const xffi_any **out, const map_cell *c, const xffi_object *obj, int32_t small_type) {
  xffi_byte_array b = xffi_string_cell_of_unchecked(obj);
  *out = find_text(c, b.data, b.size, xffi_string_hash(obj), obj->type_index, small_type);
  return XFFI_OK;
}

/* Whether a String or Bytes key object is the hot case: 8 to 16 bytes (*b),
 * allocated by this library with its hash cached (*hash). */
static inline int text_object_is_hot(const xffi_object *obj, xffi_byte_array *b, uint64_t *hash) {
  *b = xffi_string_cell_of_unchecked(obj);
  return XFFI_LIKELY(b->size - 8 <= 8 && obj->deleter == xffi_string_deleter &&
                     (*hash = __atomic_load_n(&xffi_string_hash_word(obj)->value, __ATOMIC_RELAXED)) != 0);
}

/* A String or Bytes key object: the hot case (8 to 16 bytes, hash cached)
 * stays a leaf; the rest goes to lookup_text_object_slow by a tail call. */
static inline int lookup_text_object(const xffi_any **out, const map_cell *c, const xffi_object *obj, int32_t obj_type,
                                     int32_t small_type) {
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
static int __attribute__((noinline))
lookup_small_str_slow(const xffi_any **out, const map_cell *c, const xffi_any *key) {
  return lookup_text_slow(out, c, key->v_small, key->small_len, XFFI_TYPE_STRING, XFFI_TYPE_SMALL_STR);
}

/* A small string (at most 7 bytes inline in the key). Stored small keys have
 * their bytes past small_len zeroed (xffi_map_do_set), so a stored small string
 * matches when its first 8 bytes (type and length, the same as the probe's)
 * and its last 8 (the bytes) equal the probe's. A stored String object
 * (rare: copying in makes short strings small) sends the lookup to the
 * general walk. No call on the common path: a leaf. */
static int __attribute__((noinline))
lookup_small_str(const xffi_any **out, const xffi_object *map, const xffi_any *key) {
  const map_cell *c = cell_of(map); /* (the map, not the cell: one add fewer in the caller) */
  size_t size = key->small_len;     /* at most 7: checked by the callers */
  uint64_t head, bytes = small_word(key, size);
  memcpy(&head, key, sizeof(head));
  uint64_t hash = xffi_keyed_hash_short(key->v_small, size);
  PROBE_WALK(
      c, hash,
      {
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
      },
      {
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
  if (XFFI_UNLIKELY(xffi_map_check_readable(fn, map) != XFFI_OK)) return XFFI_FAIL;
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

/* The general path of xffi_map_lookup and xffi_map_lookup (argument
 * errors, empty maps, keys without a fast path), kept out of line so that
 * the fast paths need few registers. */
static int __attribute__((noinline))
map_lookup_general(const char *fn, const xffi_any **out, const xffi_object *map, const xffi_any *key) {
  return map_lookup(fn, out, map, key);
}

/* The exported lookups: a dispatch on the key's kind, each fast path by a
 * tail call (the String one too: inlined here, its probe loop's registers
 * would cost every other kind a few moves on entry), the rest out of line. */
static inline int lookup_entry(const char *fn, const xffi_any **out, const xffi_object *map, const xffi_any *key) {
  /* An empty map needs no test: its index is one empty slot. */
  if (XFFI_LIKELY(out && map && is_map_kind(map) && key)) {
    const map_cell *c = cell_of(map);
    int32_t t = key->type_index;
    /* Malformed keys (a NULL pointer, a small string over 7 bytes) fail the
     * second test and get their ValueError from the general path. */
    if (XFFI_LIKELY(t == XFFI_TYPE_STRING && key->v_obj)) return lookup_string(out, c, key->v_obj);
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
  if (XFFI_UNLIKELY(!found)) return xffi_map_raise_key_error(fn, key);
  if (xffi_any_is_object(found)) xffi_object_inc_ref_inline(found->v_obj);
  *out = *found;
  return XFFI_OK;
}

/* Every get but the hot String one: the lookup's fast paths, by calls. */
static int __attribute__((noinline))
map_get_general(const char *fn, xffi_any *out, const xffi_object *map, const xffi_any *key) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  const xffi_any *found;
  if (lookup_entry(fn, &found, map, key) != XFFI_OK) return XFFI_FAIL;
  return get_found(fn, out, found, key);
}

/* xffi_map_get and xffi_map_get. The hot String case is inline, with no
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
