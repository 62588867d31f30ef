/* c/map_edit.c: setting and erasing keys of Map (copy-on-write) and Dict
 * (in place): xffi_map_set, _erase, _pop and the Dict ones, here with the shared
 * bodies inline; and building a map from arrays of keys and values. */
#include <string.h>

#include "check.h"
#include "map_table.h"

/* Copies a key or value view into an owned value, refusing rvalues and
 * malformed values (*owned is None then). */
static inline int copy_in(const char *fn, const char *what, xffi_any *owned, const xffi_any *view) {
  if (XFFI_UNLIKELY(!xffi_any_is_well_formed(view))) {
    *owned = xffi_any_none();
    return xffi_any_raise_malformed(fn, what, view);
  }
  int32_t t = view->type_index;
  if (XFFI_LIKELY(t != XFFI_TYPE_RAW_STR && t != XFFI_TYPE_BYTE_ARRAY_PTR && t != XFFI_TYPE_OBJECT_RVALUE)) {
    if (xffi_any_is_object(view)) xffi_object_inc_ref_inline(view->v_obj);
    *owned = *view; /* the common case, as xffi_any_copy does it */
    return XFFI_OK;
  }
  *owned = xffi_any_none();
  if (view->type_index == XFFI_TYPE_OBJECT_RVALUE)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s is an object rvalue reference (a move), which cannot be stored", fn,
                            what);
  return xffi_any_copy(owned, view);
}

/* Zeroes the bytes of an inline small key past its length, as the small
 * string lookup (c/map_lookup.c) expects of stored keys (they are no part of
 * the value). */
static inline void zero_small_tail(xffi_any *key) {
  if ((key->type_index == XFFI_TYPE_SMALL_STR || key->type_index == XFFI_TYPE_SMALL_BYTES) && key->small_len <= 7)
    memset(key->v_small + key->small_len, 0, sizeof(key->v_small) - key->small_len);
}

/* Sets key -> value in *target (borrowed). For a Map (cow != 0) a shared map
 * is first replaced by a private copy: *target's reference is then released
 * and replaced by the copy's; a Dict is changed in place. key and value are
 * borrowed views, copied in. Inline: each public function gets its own copy,
 * with cow a constant. */
static inline int map_set(const char *fn, xffi_object **target, int cow, const xffi_any *key, const xffi_any *value) {
  if (!key) return xffi_raise_null_arg(fn, "key");
  if (!value) return xffi_raise_null_arg(fn, "value");
  if (XFFI_UNLIKELY(!xffi_any_is_well_formed(key))) return xffi_any_raise_malformed(fn, "key", key);
  probe p;
  if (probe_init(&p, fn, key) != XFFI_OK) return XFFI_FAIL;
  xffi_any owned_value;
  if (copy_in(fn, "value", &owned_value, value) != XFFI_OK) return XFFI_FAIL;
  xffi_object *obj = *target;
  uint32_t i = cell_find_slot(cell_of(obj), &p);
  xffi_any owned_key = xffi_any_none();
  if (i == UINT32_MAX && copy_in(fn, "key", &owned_key, key) != XFFI_OK) {
    xffi_any_release(&owned_value);
    return XFFI_FAIL;
  }
  zero_small_tail(&owned_key);
  if (cow && !xffi_map_is_unique(obj)) {
    xffi_object *copy = xffi_map_clone(XFFI_TYPE_MAP, cell_of(obj), i == UINT32_MAX ? 1 : 0);
    if (!copy) {
      xffi_any_release(&owned_key);
      xffi_any_release(&owned_value);
      return XFFI_FAIL;
    }
    *target = copy;
    xffi_object_dec_ref_inline(obj);
    obj = copy;
    if (i != UINT32_MAX) i = cell_find_slot(cell_of(obj), &p);
  }
  map_cell *c = cell_of(obj);
  if (i != UINT32_MAX) {
    xffi_any *slot = &c->entries[(c->slots[i] & c->index_mask) - 1].value;
    xffi_any old = *slot;
    *slot = owned_value;
    xffi_any_release(&old);
    return XFFI_OK;
  }
  if (xffi_map_cell_reserve_one(c) != XFFI_OK) {
    xffi_any_release(&owned_key);
    xffi_any_release(&owned_value);
    return XFFI_FAIL;
  }
  xffi_map_cell_append(c, p.hash, &owned_key, &owned_value);
  return XFFI_OK;
}

/* Removes key from *target (copy-on-write for a Map, as map_set), moving the
 * value into *value_out (a new reference) if given, else releasing it. */
static inline int map_erase(const char *fn, xffi_object **target, int cow, const xffi_any *key, xffi_any *value_out) {
  if (!key) return xffi_raise_null_arg(fn, "key");
  if (XFFI_UNLIKELY(!xffi_any_is_well_formed(key))) return xffi_any_raise_malformed(fn, "key", key);
  probe p;
  if (probe_init(&p, fn, key) != XFFI_OK) return XFFI_FAIL;
  xffi_object *obj = *target;
  uint32_t i = cell_find_slot(cell_of(obj), &p);
  if (i == UINT32_MAX) return xffi_map_raise_key_error(fn, key);
  if (cow && !xffi_map_is_unique(obj)) {
    xffi_object *copy = xffi_map_clone(XFFI_TYPE_MAP, cell_of(obj), 0);
    if (!copy) return XFFI_FAIL;
    *target = copy;
    xffi_object_dec_ref_inline(obj);
    obj = copy;
    i = cell_find_slot(cell_of(obj), &p);
  }
  xffi_any old_key, old_value;
  xffi_map_cell_remove_at(cell_of(obj), i, &old_key, &old_value);
  xffi_any_release(&old_key);
  if (value_out)
    *value_out = old_value;
  else
    xffi_any_release(&old_value);
  return XFFI_OK;
}

int xffi_map_do_new_from(const char *fn, int32_t type_index, xffi_object **out, const xffi_any *keys,
                         const xffi_any *values, int64_t count) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  if (count < 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: count is negative (%lld)", fn, (long long)count);
  if (count > 0 && !keys)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: keys is NULL but count is %lld", fn, (long long)count);
  if (count > 0 && !values)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: values is NULL but count is %lld", fn, (long long)count);
  if (count > MAP_MAX_ENTRIES) return xffi_error_raise_out_of_memory();
  xffi_object *obj = xffi_map_alloc(type_index);
  if (!obj) return XFFI_FAIL;
  for (int64_t k = 0; k < count; ++k) {
    if (map_set(fn, &obj, 0, &keys[k], &values[k]) != XFFI_OK) {
      xffi_object_dec_ref_inline(obj);
      return XFFI_FAIL;
    }
  }
  *out = obj;
  return XFFI_OK;
}

/* ---- The public setters and erasers ---- */

int xffi_map_set(xffi_object **map, const xffi_any *key, const xffi_any *value) {
  if (xffi_map_check_ref(__func__, map) != XFFI_OK) return XFFI_FAIL;
  return map_set(__func__, map, 1, key, value);
}

int xffi_map_erase(xffi_object **map, const xffi_any *key) {
  if (xffi_map_check_ref(__func__, map) != XFFI_OK) return XFFI_FAIL;
  return map_erase(__func__, map, 1, key, NULL);
}

int xffi_map_pop(xffi_any *out, xffi_object **map, const xffi_any *key) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  if (xffi_map_check_ref(__func__, map) != XFFI_OK) return XFFI_FAIL;
  return map_erase(__func__, map, 1, key, out);
}

int xffi_dict_set(xffi_object *dict, const xffi_any *key, const xffi_any *value) {
  if (XFFI_UNLIKELY(!dict || dict->type_index != XFFI_TYPE_DICT) &&
      xffi_check_object_arg(__func__, "dict", dict, XFFI_TYPE_DICT) != XFFI_OK)
    return XFFI_FAIL;
  return map_set(__func__, &dict, 0, key, value);
}

int xffi_dict_erase(xffi_object *dict, const xffi_any *key) {
  XFFI_CHECK_ARG_OBJECT(dict, XFFI_TYPE_DICT);
  return map_erase(__func__, &dict, 0, key, NULL);
}

int xffi_dict_pop(xffi_any *out, xffi_object *dict, const xffi_any *key) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_OBJECT(dict, XFFI_TYPE_DICT);
  return map_erase(__func__, &dict, 0, key, out);
}
