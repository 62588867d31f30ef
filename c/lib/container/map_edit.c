/* c/lib/container/map_edit.c: setting and erasing keys of Map (copy-on-write) and Dict
 * (in place): xffi_map_set, _erase, _pop and the Dict ones, with the shared
 * bodies; and building a map from arrays of keys and values. The rules are
 * tvm-ffi's (c/lib/container/map_table.h): a small map keeps an overwritten key in place, a
 * dense one moves it to the end of the iteration order. */
#include <string.h>

#include "runtime/check.h"
#include "lib/container/map_table.h"

/* Copies a value view into an owned value, refusing rvalues and malformed
 * values (*owned is None then). */
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
  if (t == XFFI_TYPE_OBJECT_RVALUE)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s is an object rvalue reference (a move), which cannot be stored", fn,
                            what);
  return xffi_any_copy(owned, view);
}

/* A key as maps compare it: *probe a view in tvm-ffi's form
 * (xffi_map_key_normalize), borrowed from key. No allocation. */
static int key_probe(const char *fn, xffi_any *probe, const xffi_any *key) {
  if (XFFI_UNLIKELY(!xffi_any_is_well_formed(key))) return xffi_any_raise_malformed(fn, "key", key);
  return xffi_map_key_normalize(fn, probe, key);
}

/* Inserts the absent key (owned, moved in) with value (owned, moved in) into
 * m, in tvm-ffi's way: small up to 4 pairs, then dense, the table sized for
 * max(total, size) entries. place: what xffi_map_find found for the key in
 * m (or in the map m copies: the same slots). On failure both are still the
 * caller's and m is unchanged. */
MAP_KEY_INLINE int insert_new(const char *fn, map_object *m, xffi_any *key, xffi_any *value, const map_place *place,
                              uint64_t total) {
  uint64_t hash = place->hash;
  const map_chain_end *end = place->hashed ? &place->end : NULL;
  if (map_is_small(m)) {
    if (m->size < MAP_SMALL_MAX) return xffi_map_small_append(m, key, value);
    if (xffi_map_dense_from_small(m, total > m->size ? total : m->size) != XFFI_OK) return XFFI_FAIL;
    end = NULL; /* a new table */
  }
  if (!place->hashed && xffi_map_any_hash(&hash, key) != XFFI_OK) return XFFI_FAIL;
  return xffi_map_dense_insert_new(fn, m, key, value, hash, end);
}

/* The object a change applies to: *target itself, or for a Map (cow) a
 * private copy with the same positions (*copy, a new reference) when it is
 * shared or when `room` asks for more inline pairs than it has; the copy
 * replaces *target only once the change has succeeded (commit). */
static map_object *writable(xffi_object **target, int cow, xffi_object **copy, uint64_t room) {
  *copy = NULL;
  if (!cow || (room == 0 && xffi_map_is_unique(*target))) return map_of(*target);
  *copy = xffi_map_clone(XFFI_TYPE_MAP, map_of(*target), room);
  return *copy ? map_of(*copy) : NULL;
}

/* The inline pairs a Map needs to take a new key: a full small Map of fewer
 * than 4 slots grows into a new object with its pairs inline, as tvm-ffi's
 * Map does (a read then costs no extra load); else 0. */
static uint64_t room_for_new_key(int cow, const map_object *m) {
  if (!cow || !map_is_small(m) || m->size < map_small_slots(m) || map_small_slots(m) >= MAP_SMALL_MAX) return 0;
  return map_small_grown(map_small_slots(m));
}

/* Puts a successful copy in place of the caller's reference (released). */
static void commit(xffi_object **target, xffi_object *copy) {
  if (!copy) return;
  xffi_object *old = *target;
  *target = copy;
  xffi_object_dec_ref_inline(old);
}

/* Sets key -> value in *target. For a Map (cow != 0) a shared map is first
 * replaced by a private copy; a Dict is changed in place. key and value are
 * borrowed views, copied in. */
static int map_set(const char *fn, xffi_object **target, int cow, const xffi_any *key, const xffi_any *value) {
  if (!key) return xffi_raise_null_arg(fn, "key");
  if (!value) return xffi_raise_null_arg(fn, "value");
  xffi_any probe, owned_key = xffi_any_none(), owned_value;
  if (key_probe(fn, &probe, key) != XFFI_OK) return XFFI_FAIL;
  if (copy_in(fn, "value", &owned_value, value) != XFFI_OK) goto fail;
  map_place place;
  if (xffi_map_find(&place, map_of(*target), &probe) != XFFI_OK) goto fail;
  uint64_t pos = place.pos;
  xffi_object *copy;
  map_object *m = writable(target, cow, &copy, place.value ? 0 : room_for_new_key(cow, map_of(*target)));
  if (!m) goto fail;
  if (place.value) {
    xffi_any *slot = map_is_small(m) ? &map_small_pairs(m)[pos].value : &map_item_at(m, pos)->value;
    xffi_any old = *slot;
    *slot = owned_value;
    if (!map_is_small(m)) xffi_map_dense_move_to_end(m, pos);
    xffi_any_release(&old);
    commit(target, copy);
    return XFFI_OK;
  }
  /* Stored keys are owned and never borrowed: a C string becomes a String. */
  if (copy_in(fn, "key", &owned_key, &probe) != XFFI_OK ||
      insert_new(fn, m, &owned_key, &owned_value, &place, 0) != XFFI_OK) {
    if (copy) xffi_object_dec_ref_inline(copy);
    goto fail;
  }
  commit(target, copy);
  return XFFI_OK;
fail:
  xffi_any_release(&owned_key);
  xffi_any_release(&owned_value);
  return XFFI_FAIL;
}

/* Removes key from *target (copy-on-write for a Map, as map_set), moving the
 * value into *value_out (a new reference) if given, else releasing it. */
static int map_erase(const char *fn, xffi_object **target, int cow, const xffi_any *key, xffi_any *value_out) {
  if (!key) return xffi_raise_null_arg(fn, "key");
  xffi_any probe;
  if (key_probe(fn, &probe, key) != XFFI_OK) return XFFI_FAIL;
  map_place place;
  if (xffi_map_find(&place, map_of(*target), &probe) != XFFI_OK) return XFFI_FAIL;
  if (!place.value) return xffi_map_raise_key_error(fn, key);
  uint64_t pos = place.pos;
  xffi_object *copy;
  map_object *m = writable(target, cow, &copy, 0);
  if (!m) return XFFI_FAIL;
  xffi_any old_key, old_value;
  if (map_is_small(m)) {
    xffi_map_small_remove_at(m, pos, &old_key, &old_value);
  } else if (xffi_map_dense_remove_at(m, pos, &old_key, &old_value) != XFFI_OK) {
    if (copy) xffi_object_dec_ref_inline(copy);
    return XFFI_FAIL;
  }
  commit(target, copy);
  xffi_any_release(&old_key);
  if (value_out)
    *value_out = old_value;
  else
    xffi_any_release(&old_value);
  return XFFI_OK;
}

/* Releases pairs [from, count) of the caller's stolen arrays. */
static void release_pairs(xffi_any *keys, xffi_any *values, int64_t from, int64_t count) {
  for (int64_t k = from; k < count; ++k) {
    xffi_any_release(&keys[k]);
    xffi_any_release(&values[k]);
  }
}

/* The pair at pos of m takes value (owned, moved in) in place of its own,
 * as setting a present key does: a dense map moves it to the end of the
 * order. key (owned, equal to the stored one) is released: the first key
 * stays, as tvm-ffi keeps it. */
static void replace_value(map_object *m, uint64_t pos, xffi_any *key, xffi_any *value) {
  xffi_any *slot = map_is_small(m) ? &map_small_pairs(m)[pos].value : &map_item_at(m, pos)->value;
  xffi_any old = *slot;
  *slot = *value;
  *value = xffi_any_none();
  if (!map_is_small(m)) xffi_map_dense_move_to_end(m, pos);
  xffi_any_release(&old);
  xffi_any_release(key);
}

int xffi_map_put_moved(const char *fn, map_object *m, xffi_any *key, xffi_any *value, uint64_t total) {
  map_place place;
  if (xffi_map_find(&place, m, key) != XFFI_OK) return XFFI_FAIL;
  if (place.value) {
    replace_value(m, place.pos, key, value);
    return XFFI_OK;
  }
  return insert_new(fn, m, key, value, &place, total);
}

int xffi_map_do_build(const char *fn, int32_t type_index, xffi_object **out, xffi_any *keys, xffi_any *values,
                      int64_t count, int as_set) {
  *out = NULL;
  if ((uint64_t)count > MAP_MAX_SLOTS / 2) {
    release_pairs(keys, values, 0, count);
    return xffi_error_raise_out_of_memory();
  }
  /* Sized once, as tvm-ffi's CreateFromRange sizes it: small below 4
   * pairs (all inline), else a dense table for count entries. As Set does
   * from an empty map: small while at most 4 distinct keys, then dense. */
  uint64_t inline_pairs = (uint64_t)count < MAP_SMALL_MAX ? (uint64_t)count : as_set ? MAP_SMALL_MAX : MAP_SMALL_INIT;
  xffi_object *obj = xffi_map_alloc(type_index, inline_pairs);
  if (obj && !as_set && count >= MAP_SMALL_MAX && xffi_map_dense_from_small(map_of(obj), (uint64_t)count) != XFFI_OK) {
    xffi_object_dec_ref_inline(obj);
    obj = NULL;
  }
  int64_t k = 0;
  if (obj) {
    for (; k < count; ++k) {
      int32_t t = keys[k].type_index;
      if (XFFI_UNLIKELY(t == XFFI_TYPE_RAW_STR || t == XFFI_TYPE_BYTE_ARRAY_PTR || t == XFFI_TYPE_OBJECT_RVALUE)) {
        xffi_error_raise(XFFI_KIND_TYPE, "%s: key %lld is %s, not an owned value", fn, (long long)k,
                         xffi_any_kind_name(&keys[k]));
        break;
      }
      xffi_any key;
      if (xffi_map_key_normalize(fn, &key, &keys[k]) != XFFI_OK) break;
      keys[k] = key; /* the same owned value, its padding zeroed */
      if (xffi_map_put_moved(fn, map_of(obj), &keys[k], &values[k], (uint64_t)count) != XFFI_OK) break;
    }
  }
  if (obj && k == count) {
    *out = obj;
    return XFFI_OK;
  }
  release_pairs(keys, values, k, count);
  if (obj) xffi_object_dec_ref_inline(obj);
  return XFFI_FAIL;
}

xffi_object *xffi_map_new_sized(int32_t type_index, uint64_t count) {
  if (count > MAP_MAX_SLOTS / 2) {
    xffi_error_raise_out_of_memory();
    return NULL;
  }
  xffi_object *obj = xffi_map_alloc(type_index, count <= MAP_SMALL_MAX ? count : MAP_SMALL_INIT);
  if (obj && count > MAP_SMALL_MAX && xffi_map_dense_from_small(map_of(obj), count) != XFFI_OK) {
    xffi_object_dec_ref_inline(obj);
    return NULL;
  }
  return obj;
}

/* Pairs copied in on the stack up to this count, on the heap beyond. */
#define NEW_FROM_STACK_PAIRS 8

int xffi_map_do_new_from(const char *fn, int32_t type_index, xffi_object **out, const xffi_any *keys,
                         const xffi_any *values, int64_t stride, int64_t count, int as_set) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  if (count < 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: count is negative (%lld)", fn, (long long)count);
  if (count > 0 && !keys)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: keys is NULL but count is %lld", fn, (long long)count);
  if (count > 0 && !values)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: values is NULL but count is %lld", fn, (long long)count);
  if ((uint64_t)count > MAP_MAX_SLOTS / 2) return xffi_error_raise_out_of_memory();
  /* Owned copies of every pair first (a C string key becomes a String),
   * then one sized build. */
  xffi_any stack_pairs[2 * NEW_FROM_STACK_PAIRS];
  xffi_any *owned =
      count <= NEW_FROM_STACK_PAIRS ? stack_pairs : (xffi_any *)xffi_alloc((size_t)count * 2 * sizeof(xffi_any));
  if (!owned) return xffi_error_raise_out_of_memory();
  xffi_any *owned_keys = owned, *owned_values = owned + count;
  int64_t k = 0;
  for (; k < count; ++k) {
    xffi_any probe;
    if (key_probe(fn, &probe, &keys[k * stride]) != XFFI_OK) break;
    if (copy_in(fn, "value", &owned_values[k], &values[k * stride]) != XFFI_OK) break;
    if (copy_in(fn, "key", &owned_keys[k], &probe) != XFFI_OK) {
      xffi_any_release(&owned_values[k]);
      break;
    }
  }
  int status;
  if (k == count) {
    status = xffi_map_do_build(fn, type_index, out, owned_keys, owned_values, count, as_set);
  } else {
    release_pairs(owned_keys, owned_values, 0, k);
    status = XFFI_FAIL;
  }
  if (owned != stack_pairs) xffi_free(owned);
  return status;
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
  XFFI_CHECK_ARG_OBJECT(dict, XFFI_TYPE_DICT);
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
