/* c/lib/container/map.c: making, measuring, copying and clearing Maps. A Map is
 * immutable to everyone who shares it: the functions that change one take a
 * pointer to the caller's reference and, when the map is shared, replace it
 * with a changed copy (copy-on-write). Set and erase are in c/lib/container/map_edit.c,
 * lookups in c/lib/container/map_lookup.c, iteration in c/lib/container/map_iter.c, the table in
 * c/lib/container/map_table.h. */
#include "runtime/check.h"
#include "lib/container/map_table.h"

int xffi_map_new(xffi_object **out, const xffi_any *keys, const xffi_any *values, int64_t count) {
  return xffi_map_do_new_from(__func__, XFFI_TYPE_MAP, out, keys, values, 1, count, 0);
}

int xffi_map_length(int64_t *out, const xffi_object *map) { return xffi_map_do_length(__func__, out, map); }

int xffi_map_copy(xffi_object **out, const xffi_object *map) {
  return xffi_map_do_copy(__func__, XFFI_TYPE_MAP, out, map);
}

int xffi_map_clear(xffi_object **map) {
  if (xffi_map_check_ref(__func__, map) != XFFI_OK) return XFFI_FAIL;
  if (xffi_map_is_unique(*map)) {
    xffi_map_clear_pairs(map_of(*map));
    return XFFI_OK;
  }
  xffi_object *empty = xffi_map_alloc(XFFI_TYPE_MAP, MAP_SMALL_INIT);
  if (!empty) return XFFI_FAIL;
  xffi_object *old = *map;
  *map = empty;
  xffi_object_dec_ref_inline(old);
  return XFFI_OK;
}

int xffi_map_memory_bytes(size_t *out, const xffi_object *map) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  if (xffi_map_check_readable(__func__, map) != XFFI_OK) return XFFI_FAIL;
  const map_object *m = map_of(map);
  /* Objects xffi allocates hold 2 to 4 pairs inline (c/lib/container/map_table.c). */
  size_t bytes = MAP_SMALL_HEADER_BYTES + MAP_SMALL_INIT * sizeof(map_pair);
  if (m->data_deleter && m->data) {
    if (map_is_small(m))
      bytes += (size_t)map_small_slots(m) * sizeof(map_pair);
    else
      bytes += (size_t)((m->slots + MAP_BLOCK_CAP - 1) / MAP_BLOCK_CAP) * MAP_BLOCK_BYTES;
  } else if (map_is_small(m) && map_small_slots(m) > MAP_SMALL_INIT) {
    bytes += (size_t)(map_small_slots(m) - MAP_SMALL_INIT) * sizeof(map_pair);
  }
  *out = bytes;
  return XFFI_OK;
}
