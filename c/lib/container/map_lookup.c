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
MAP_KEY_INLINE int find_value_as(const xffi_any **out, const map_object *m, const xffi_any *probe, int kind) {
  *out = NULL;
  uint64_t pos;
  if (map_is_small(m)) {
    pos = map_small_search(m, probe, kind == PROBE_PLAIN);
    if (pos < m->size) *out = &map_small_pairs(m)[pos].value;
  } else {
    uint64_t hash = kind == PROBE_PLAIN ? map_plain_hash(probe) : map_text_object_hash(probe->type_index, probe->v_obj);
    pos = map_dense_search(m, probe, hash, kind == PROBE_PLAIN, NULL);
    if (pos < m->slots) *out = &map_item_at(m, pos)->value;
  }
  return pos == MAP_SEARCH_FAILED ? XFFI_FAIL : XFFI_OK;
}

/* One copy of find_value_as for each kind. */
MAP_OUT_OF_LINE int find_plain(const xffi_any **out, const map_object *m, const xffi_any *probe) {
  return find_value_as(out, m, probe, PROBE_PLAIN);
}
MAP_OUT_OF_LINE int find_text_object(const xffi_any **out, const map_object *m, const xffi_any *probe) {
  return find_value_as(out, m, probe, PROBE_TEXT_OBJECT);
}

/* Any normalized probe: the two kinds above, the rest through xffi_map_find. */
static int find_value(const xffi_any **out, const map_object *m, const xffi_any *probe) {
  int32_t t = probe->type_index;
  if (t == XFFI_TYPE_STRING || t == XFFI_TYPE_BYTES) return find_text_object(out, m, probe);
  if (map_key_is_plain(probe)) return find_plain(out, m, probe);
  map_place place;
  int status = xffi_map_find(&place, m, probe);
  *out = place.value;
  return status;
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
  xffi_any probe;
  if (XFFI_UNLIKELY(xffi_map_key_normalize(fn, &probe, key) != XFFI_OK)) return XFFI_FAIL;
  return find_value(out, map_of(map), &probe);
}

/* The commonest keys, a String object or an int already in tvm-ffi's form
 * (zero padding), are looked up as they are; the rest goes the general way. */
static inline int map_lookup(const char *fn, const xffi_any **out, const xffi_object *map, const xffi_any *key) {
  if (XFFI_LIKELY(out && map && is_map_kind(map) && key && key->small_len == 0)) {
    if (key->type_index == XFFI_TYPE_INT) return find_plain(out, map_of(map), key);
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
