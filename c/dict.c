/* c/dict.c: the Dict API. A Dict is changed in place, whoever shares it.
 * Lookups are in c/map_lookup.c, iteration in c/map_iter.c, the table in
 * c/map_table.h. */
#include "check.h"
#include "map_table.h"

int xffi_dict_new(xffi_object **out) { return xffi_map_do_new(__func__, XFFI_TYPE_DICT, out); }

int xffi_dict_new_from(xffi_object **out, const xffi_any *keys, const xffi_any *values, int64_t count) {
  return xffi_map_do_new_from(__func__, XFFI_TYPE_DICT, out, keys, values, count);
}

int xffi_dict_length(int64_t *out, const xffi_object *dict) { return xffi_map_do_length(__func__, out, dict); }


int xffi_dict_copy(xffi_object **out, const xffi_object *dict) {
  return xffi_map_do_copy(__func__, XFFI_TYPE_DICT, out, dict);
}

int xffi_dict_set(xffi_object *dict, const xffi_any *key, const xffi_any *value) {
  if (XFFI_UNLIKELY(!dict || dict->type_index != XFFI_TYPE_DICT) &&
      xffi_check_object_arg(__func__, "dict", dict, XFFI_TYPE_DICT) != XFFI_OK)
    return XFFI_FAIL;
  return xffi_map_do_set(__func__, &dict, 0, key, value);
}

int xffi_dict_erase(xffi_object *dict, const xffi_any *key) {
  XFFI_CHECK_ARG_OBJECT(dict, XFFI_TYPE_DICT);
  return xffi_map_do_erase(__func__, &dict, 0, key, NULL);
}

int xffi_dict_pop(xffi_any *out, xffi_object *dict, const xffi_any *key) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_OBJECT(dict, XFFI_TYPE_DICT);
  return xffi_map_do_erase(__func__, &dict, 0, key, out);
}

int xffi_dict_clear(xffi_object *dict) {
  XFFI_CHECK_ARG_OBJECT(dict, XFFI_TYPE_DICT);
  xffi_map_cell_clear(cell_of(dict));
  return XFFI_OK;
}
