/* c/lib/container/dict.c: making, measuring, copying and clearing Dicts. A Dict is
 * changed in place, whoever shares it. Set, erase and pop are in
 * c/lib/container/map_edit.c, lookups in c/lib/container/map_lookup.c, iteration in c/lib/container/map_iter.c, the
 * table in c/lib/container/map_table.h. */
#include "runtime/check.h"
#include "lib/container/map_table.h"

int xffi_dict_new(xffi_object **out, const xffi_any *keys, const xffi_any *values, int64_t count) {
  return xffi_map_do_new_from(__func__, XFFI_TYPE_DICT, out, keys, values, 1, count, 0);
}

int xffi_dict_copy(xffi_object **out, const xffi_object *dict) {
  return xffi_map_do_copy(__func__, XFFI_TYPE_DICT, out, dict);
}

int xffi_dict_clear(xffi_object *dict) {
  XFFI_CHECK_ARG_OBJECT(dict, XFFI_TYPE_DICT);
  xffi_map_clear_pairs(map_of(dict));
  return XFFI_OK;
}
