/* c/lib/container/map_lookup.c: finding keys in Map and Dict: xffi_map_get, _lookup and
 * _contains (a Map or a Dict). A small map is scanned, a dense one hashed
 * (tvm-ffi's rules, c/lib/container/map_table.h). No allocation: a borrowed C string of
 * more than 7 bytes is hashed and compared as the String it stands for. */
#include <string.h>

#include "runtime/check.h"
#include "lib/container/map_table.h"

/* Finds the normalized key probe in m: *out the stored value or NULL. The
 * scan and the chain walk of xffi_map_find, here with the hash and equality
 * inline (c/lib/container/map_key.h), for the lookups' sake. */
static inline int find_value(const xffi_any **out, const map_object *m, const xffi_any *probe) {
  *out = NULL;
  int eq = 0;
  if (map_is_small(m)) {
    const map_pair *pairs = map_small_pairs(m);
    for (uint64_t i = 0, n = m->size; i < n; ++i) {
      if (XFFI_UNLIKELY(xffi_map_any_equal(&eq, &pairs[i].key, probe) != XFFI_OK)) return XFFI_FAIL;
      if (eq) {
        *out = &pairs[i].value;
        return XFFI_OK;
      }
    }
    return XFFI_OK;
  }
  if (m->size == 0) return XFFI_OK;
  uint64_t hash = 0;
  if (XFFI_UNLIKELY(xffi_map_any_hash(&hash, probe) != XFFI_OK)) return XFFI_FAIL;
  uint64_t i = map_fib_slot(hash, m->fib_shift);
  unsigned char meta = *map_meta(m, i);
  if (meta & 0x80u) return XFFI_OK; /* not the head of a chain: absent */
  for (uint64_t steps = 0; steps <= m->size; ++steps) {
    const map_item *it = map_item_at(m, i);
    if (XFFI_UNLIKELY(xffi_map_any_equal(&eq, &it->key, probe) != XFFI_OK)) return XFFI_FAIL;
    if (eq) {
      *out = &it->value;
      return XFFI_OK;
    }
    uint64_t jump = xffi_map_jumps[meta & 0x7Fu];
    if (jump == 0) break;
    i = map_wrap(m, i + jump);
    meta = *map_meta(m, i);
  }
  return XFFI_OK;
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
  if (XFFI_LIKELY(out && map && is_map_kind(map) && key && key->small_len == 0 &&
                  ((key->type_index == XFFI_TYPE_STRING && key->v_obj) || key->type_index == XFFI_TYPE_INT)))
    return find_value(out, map_of(map), key);
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
