/* c/map_lookup.c: finding keys in Map and Dict: xffi_map_get, _lookup and
 * _contains (a Map or a Dict). A small map is scanned, a dense one hashed
 * (tvm-ffi's rules, c/map_table.h). No allocation: a borrowed C string of
 * more than 7 bytes is hashed and compared as the String it stands for. */
#include <string.h>

#include "check.h"
#include "map_table.h"

/* Finds key in a readable map: *out the stored value (borrowed) or NULL. */
static int map_lookup(const char *fn, const xffi_any **out, const xffi_object *map, const xffi_any *key) {
  if (XFFI_UNLIKELY(!out)) return xffi_raise_null_arg(fn, "out");
  if (XFFI_UNLIKELY(xffi_map_check_readable(fn, map) != XFFI_OK)) return XFFI_FAIL;
  if (XFFI_UNLIKELY(!key)) return xffi_raise_null_arg(fn, "key");
  if (XFFI_UNLIKELY(!xffi_any_is_well_formed(key))) return xffi_any_raise_malformed(fn, "key", key);
  xffi_any probe;
  if (XFFI_UNLIKELY(xffi_map_key_normalize(fn, &probe, key) != XFFI_OK)) return XFFI_FAIL;
  uint64_t pos;
  return xffi_map_find(out, &pos, map_of(map), &probe);
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
