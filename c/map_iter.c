/* c/map_iter.c: iterating over Map and Dict in insertion order with a
 * cursor (an entry position), holes skipped. */
#include "check.h"
#include "map_table.h"

int xffi_map_do_next(const char *fn, xffi_map_item *out, const xffi_object *map, int64_t *cursor) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  if (xffi_map_check_readable(fn, map) != XFFI_OK) return XFFI_FAIL;
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

int xffi_map_next(xffi_map_item *out, const xffi_object *map, int64_t *cursor) {
  return xffi_map_do_next(__func__, out, map, cursor);
}
