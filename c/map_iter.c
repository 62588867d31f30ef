/* c/map_iter.c: iterating over Map and Dict in insertion order with a
 * cursor. Small map: the cursor is the next pair's index. Dense map: 0 is the
 * start, k > 0 means the item at slot k - 1 is next; INT64_MAX is the end.
 * A cursor made stale by changes to a Dict stays memory-safe: it is checked
 * against the table before use (the iteration may then skip or end). */
#include "check.h"
#include "map_table.h"

#define CURSOR_END INT64_MAX

int xffi_map_do_next(const char *fn, xffi_map_item *out, const xffi_object *map, int64_t *cursor) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  if (xffi_map_check_readable(fn, map) != XFFI_OK) return XFFI_FAIL;
  if (!cursor) return xffi_raise_null_arg(fn, "cursor");
  if (*cursor < 0) return xffi_error_raise(XFFI_KIND_INDEX, "%s: cursor is negative (%lld)", fn, (long long)*cursor);
  const map_object *m = map_of(map);
  out->key = NULL;
  out->value = NULL;
  if (map_is_small(m)) {
    uint64_t i = (uint64_t)*cursor;
    if (i < m->size) {
      const map_pair *p = &map_small_pairs(m)[i];
      out->key = &p->key;
      out->value = &p->value;
      *cursor = (int64_t)i + 1;
    } else {
      *cursor = CURSOR_END;
    }
    return XFFI_OK;
  }
  uint64_t slot = *cursor == 0 ? m->list_head : (uint64_t)*cursor - 1;
  if (*cursor == CURSOR_END || m->size == 0 || slot >= m->slots) {
    *cursor = CURSOR_END;
    return XFFI_OK;
  }
  unsigned char meta = *map_meta(m, slot);
  if (meta == MAP_META_EMPTY || meta == MAP_META_PROTECTED) {
    *cursor = CURSOR_END; /* the entry was erased since: stop */
    return XFFI_OK;
  }
  const map_item *it = map_item_at(m, slot);
  out->key = &it->key;
  out->value = &it->value;
  *cursor = it->next == MAP_NONE || it->next >= m->slots ? CURSOR_END : (int64_t)it->next + 1;
  return XFFI_OK;
}

int xffi_map_next(xffi_map_item *out, const xffi_object *map, int64_t *cursor) {
  return xffi_map_do_next(__func__, out, map, cursor);
}
