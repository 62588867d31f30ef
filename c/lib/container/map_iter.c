/* c/lib/container/map_iter.c: iterating over Map and Dict in insertion order with a
 * cursor. Small map: the cursor is the next pair's index. Dense map: 0 is the
 * start, k > 0 means the item at slot k - 1 is next; INT64_MAX is the end.
 * A cursor made stale by changes to a Dict stays memory-safe: it is checked
 * against the table before use (the iteration may then skip or end). */
#include "runtime/check.h"
#include "lib/container/map_table.h"

int xffi_map_do_next(const char *fn, xffi_map_item *out, const xffi_object *map, int64_t *cursor) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  if (xffi_map_check_readable(fn, map) != XFFI_OK) return XFFI_FAIL;
  if (!cursor) return xffi_raise_null_arg(fn, "cursor");
  if (*cursor < 0) return xffi_error_raise(XFFI_KIND_INDEX, "%s: cursor is negative (%lld)", fn, (long long)*cursor);
  map_step(out, map_of(map), cursor);
  return XFFI_OK;
}

int xffi_map_next(xffi_map_item *out, const xffi_object *map, int64_t *cursor) {
  return xffi_map_do_next(__func__, out, map, cursor);
}
