/* c/lib/container/map_lookup.c: finding keys in Map and Dict: xffi_map_get, _lookup and
 * _contains (a Map or a Dict). A small map is scanned, a dense one hashed
 * (tvm-ffi's rules, c/lib/container/map_table.h). No allocation: a borrowed C string of
 * more than 7 bytes is hashed and compared as the String it stands for. */
#include <string.h>

#include "runtime/check.h"
#include "lib/container/map_table.h"

/* The probe kinds the lookups specialise for (a constant where used). */
enum { PROBE_PLAIN, PROBE_TEXT_OBJECT };

/* Finds the normalized key probe in m: *out the stored value or NULL. The
 * scan and the chain walk with the key's hash and equality inline
 * (c/lib/container/map_key.h), specialised for the probe's kind: a plain value (equal
 * only to the same bits) or a String or Bytes object. */
MAP_KEY_INLINE int find_value_as(const xffi_any **out, const map_object *m, const xffi_any *probe, uint64_t hash,
                                 int kind) {
  *out = NULL;
  uint64_t pos;
  if (map_is_small(m)) {
    pos = map_small_search(m, probe, kind == PROBE_PLAIN);
    if (pos < m->size) *out = &map_small_pairs(m)[pos].value;
  } else {
    if (kind == PROBE_TEXT_OBJECT) hash = map_text_object_hash(probe->type_index, probe->v_obj);
    pos = map_dense_search(m, probe, hash, kind == PROBE_PLAIN, NULL);
    if (pos < m->slots) *out = &map_item_at(m, pos)->value;
  }
  return pos == MAP_SEARCH_FAILED ? XFFI_FAIL : XFFI_OK;
}

/* One copy of find_value_as for each kind; a plain probe comes with its
 * hash (map_plain_hash, or a small text's AnyHash). */
MAP_OUT_OF_LINE int find_plain(const xffi_any **out, const map_object *m, const xffi_any *probe, uint64_t hash) {
  return find_value_as(out, m, probe, hash, PROBE_PLAIN);
}
MAP_OUT_OF_LINE int find_text_object(const xffi_any **out, const map_object *m, const xffi_any *probe) {
  return find_value_as(out, m, probe, 0, PROBE_TEXT_OBJECT);
}

/* Every kind, in one walk (xffi_map_find). */
static int find_any(const xffi_any **out, const map_object *m, const xffi_any *probe) {
  map_place place;
  int status = xffi_map_find(&place, m, probe);
  *out = place.value;
  return status;
}

/* A small string or bytes (normalized: zero padding). It is stored as
 * such, so it is first looked for by its bits, with its AnyHash; only when
 * that misses is it looked for as text, for a String or Bytes object of at
 * most 7 bytes stored as a key (which C++ code may do). */
static int find_small_text(const xffi_any **out, const map_object *m, const xffi_any *probe) {
  int32_t object_type = probe->type_index == XFFI_TYPE_SMALL_STR ? XFFI_TYPE_STRING : XFFI_TYPE_BYTES;
  uint64_t hash =
      map_hash_combine((uint64_t)object_type, map_le_word(probe->v_small, sizeof(probe->v_small)) % MAP_HASH_MOD);
  int status = find_plain(out, m, probe, hash);
  if (status != XFFI_OK || *out) return status;
  return find_any(out, m, probe);
}

/* The String or Bytes object a borrowed text of more than 7 bytes stands
 * for during one lookup, on the stack: hashed and compared as the equal
 * object, inline, with its length found once. Never stored, never
 * released (its deleter is never called). */
typedef struct text_view {
  xffi_object header;
  xffi_string_cell cell;
} text_view;

static void text_view_never_deleted(void *self, int flags) { (void)self, (void)flags; }

/* Finds the borrowed text key (a C string or a byte array of size > 7
 * bytes) as the String or Bytes object it stands for. */
static int find_borrowed_text(const xffi_any **out, const map_object *m, const xffi_any *key, size_t size) {
  text_view view;
  int is_str = key->type_index == XFFI_TYPE_RAW_STR;
  xffi_object_init(&view.header, is_str ? XFFI_TYPE_STRING : XFFI_TYPE_BYTES, text_view_never_deleted);
  view.cell.data = is_str ? key->v_c_str : key->v_bytes_ptr->data;
  view.cell.size = size;
  xffi_any as_object = xffi_any_object(&view.header);
  return find_text_object(out, m, &as_object);
}

/* Any normalized probe: the kinds above, the rest through xffi_map_find. */
static int find_value(const xffi_any **out, const map_object *m, const xffi_any *probe) {
  int32_t t = probe->type_index;
  if (t == XFFI_TYPE_STRING || t == XFFI_TYPE_BYTES) return find_text_object(out, m, probe);
  if (t == XFFI_TYPE_SMALL_STR || t == XFFI_TYPE_SMALL_BYTES) return find_small_text(out, m, probe);
  if (t == XFFI_TYPE_RAW_STR) return find_borrowed_text(out, m, probe, strlen(probe->v_c_str));
  if (t == XFFI_TYPE_BYTE_ARRAY_PTR) return find_borrowed_text(out, m, probe, probe->v_bytes_ptr->size);
  if (map_key_is_plain(probe)) return find_plain(out, m, probe, map_plain_hash(probe));
  return find_any(out, m, probe);
}

/* Finds key in a readable map: *out the stored value (borrowed) or NULL.
 * Every check and key form; out of line, so that the fast path below stays
 * small. */
static int __attribute__((noinline))
map_lookup_general(const char *fn, const xffi_any **out, const xffi_object *map, const xffi_any *key) {
  if (XFFI_UNLIKELY(!out)) return xffi_raise_null_arg(fn, "out");
  if (XFFI_UNLIKELY(xffi_map_check_readable(fn, map) != XFFI_OK)) return XFFI_FAIL;
  if (XFFI_UNLIKELY(!key)) return xffi_raise_null_arg(fn, "key");
  if (XFFI_UNLIKELY(!xffi_any_is_well_formed(key))) return xffi_any_raise_malformed(fn, "key", key);
  int32_t t = key->type_index;
  if (t == XFFI_TYPE_RAW_STR || t == XFFI_TYPE_BYTE_ARRAY_PTR) { /* its length found once */
    size_t size = t == XFFI_TYPE_RAW_STR ? strlen(key->v_c_str) : key->v_bytes_ptr->size;
    if (size > XFFI_SMALL_STR_MAX) return find_borrowed_text(out, map_of(map), key, size);
  }
  xffi_any probe;
  if (XFFI_UNLIKELY(xffi_map_key_normalize(fn, &probe, key) != XFFI_OK)) return XFFI_FAIL;
  return find_value(out, map_of(map), &probe);
}

/* The commonest keys, a String object or an int already in tvm-ffi's form
 * (zero padding), are looked up as they are; the rest goes the general way. */
static inline int map_lookup(const char *fn, const xffi_any **out, const xffi_object *map, const xffi_any *key) {
  if (XFFI_LIKELY(out && map && is_map_kind(map) && key && key->small_len == 0)) {
    if (key->type_index == XFFI_TYPE_INT) return find_plain(out, map_of(map), key, map_plain_hash(key));
    if (key->type_index == XFFI_TYPE_STRING && key->v_obj) return find_text_object(out, map_of(map), key);
  }
  return map_lookup_general(fn, out, map, key);
}

int xffi_map_lookup_probe(const xffi_any **out, const xffi_object *map, const xffi_any *probe) {
  return find_value(out, map_of(map), probe);
}

int xffi_map_lookup(const xffi_any **out, const xffi_object *map, const xffi_any *key) {
  return map_lookup(__func__, out, map, key);
}

int xffi_map_get(xffi_any *out, const xffi_object *map, const xffi_any *key) {
  if (!out) return xffi_raise_null_arg(__func__, "out");
  const xffi_any *found;
  if (map_lookup(__func__, &found, map, key) != XFFI_OK) return XFFI_FAIL;
  if (!found) return xffi_map_raise_key_error(__func__, key);
  if (xffi_any_is_object(found)) xffi_object_inc_ref_inline(found->v_obj);
  *out = *found;
  return XFFI_OK;
}

int xffi_map_contains(int *out, const xffi_object *map, const xffi_any *key) {
  if (!out) return xffi_raise_null_arg(__func__, "out");
  const xffi_any *found = NULL;
  if (map_lookup(__func__, &found, map, key) != XFFI_OK) return XFFI_FAIL;
  *out = found != NULL;
  return XFFI_OK;
}
