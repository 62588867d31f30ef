/* c/compat/globals/globals_container_map.c: the ffi.Map* and ffi.Dict* globals
 * (c/compat/globals/globals_container.h), on xffi/map.h.
 *
 * tvm-ffi's conventions: ffi.Map and ffi.Dict take key, value, key, value...
 * (an odd count is a ValueError here; tvm-ffi aborts); ffi.Map* accept only a
 * Map and ffi.Dict* only a Dict; *GetItem of an absent key is a KeyError,
 * *GetItemOrMissing returns the MISSING sentinel (ffi.GetInvalidObject),
 * *Count returns 0 or 1, DictErase of an absent key does nothing.
 *
 * The iterator functor: *ForwardIterFunctor(map) returns a Function f that
 * holds the map (a reference) and a position, first at the first entry:
 * f(0) is the current key, f(1) the current value, f(2) moves to the next
 * entry and returns whether there is one. Python asks the size first and
 * calls f(2) after each entry; f(0) or f(1) past the end is an IndexError
 * here (tvm-ffi reads past the end), any other command a ValueError. */
#include "runtime/global_args.h"
#include "compat/globals/globals_container.h"
#include "lib/container/map_table.h"
#include "runtime/static_object.h"

static int make_pairs(int32_t type_index, const char *fn, const xffi_any *args, int32_t num_args, xffi_any *result) {
  if (xffi_global_check_call(fn, args, num_args, XFFI_GLOBAL_ANY_COUNT, result) != XFFI_OK) return XFFI_FAIL;
  if (num_args % 2 != 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: expected key, value pairs (an even number of arguments), got %d", fn,
                            (int)num_args);
  /* Sized once from the count, filled without regrowing; the result is
   * what Set called pair by pair gives (tvm-ffi's ffi.Map): a repeated key
   * takes the last value, keeping its place while the map is small. */
  xffi_object *map = NULL;
  const xffi_any *values = num_args ? args + 1 : NULL; /* args may be NULL when there are none */
  if (xffi_map_do_new_from(fn, type_index, &map, args, values, 2, num_args / 2, 1) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(map); /* the new reference moves into the result */
  return XFFI_OK;
}

/* Checks a call (map, ...) of `expected` arguments whose first is of type_index. */
static int map_args(xffi_object **map, int32_t type_index, int32_t expected, const char *fn, const xffi_any *args,
                    int32_t num_args, const xffi_any *result) {
  if (xffi_global_check_call(fn, args, num_args, expected, result) != XFFI_OK) return XFFI_FAIL;
  return xffi_global_object_arg(map, args, num_args, 0, type_index, fn);
}

static int map_size(int32_t type_index, const char *fn, const xffi_any *args, int32_t num_args, xffi_any *result) {
  xffi_object *map;
  int64_t size;
  if (map_args(&map, type_index, 1, fn, args, num_args, result) != XFFI_OK) return XFFI_FAIL;
  if (xffi_map_length(&size, map) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(size);
  return XFFI_OK;
}

/* Looks args[1] up in the map args[0]; an absent key gives *found NULL. */
static int map_find(const xffi_any **found, int32_t type_index, const char *fn, const xffi_any *args, int32_t num_args,
                    const xffi_any *result) {
  xffi_object *map;
  if (map_args(&map, type_index, 2, fn, args, num_args, result) != XFFI_OK) return XFFI_FAIL;
  return xffi_map_lookup(found, map, &args[1]);
}

static int map_get_item(int32_t type_index, const char *fn, const xffi_any *args, int32_t num_args, xffi_any *result) {
  const xffi_any *found;
  if (map_find(&found, type_index, fn, args, num_args, result) != XFFI_OK) return XFFI_FAIL;
  if (!found) return xffi_global_raise_missing_key(fn, &args[1]);
  return xffi_any_copy(result, found);
}

static int map_get_item_or_missing(int32_t type_index, const char *fn, const xffi_any *args, int32_t num_args,
                                   xffi_any *result) {
  const xffi_any *found;
  if (map_find(&found, type_index, fn, args, num_args, result) != XFFI_OK) return XFFI_FAIL;
  if (!found) {
    *result = xffi_any_object_new_ref(&xffi_missing_object);
    return XFFI_OK;
  }
  return xffi_any_copy(result, found);
}

static int map_count(int32_t type_index, const char *fn, const xffi_any *args, int32_t num_args, xffi_any *result) {
  const xffi_any *found;
  if (map_find(&found, type_index, fn, args, num_args, result) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(found != NULL);
  return XFFI_OK;
}

/* ---- the iterator functor ---- */

typedef struct map_iter {
  xffi_object *map; /* a strong reference */
  int64_t cursor;   /* xffi_map_next's cursor at the current entry */
} map_iter;

static void map_iter_finalize(void *resource) {
  map_iter *it = resource;
  xffi_object_dec_ref(it->map);
  xffi_free(it);
}

static int map_iter_call(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  static const char fn[] = "the iterator of ffi.MapForwardIterFunctor/ffi.DictForwardIterFunctor";
  map_iter *it = resource;
  int64_t command;
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int(&command, args, num_args, 0, fn) != XFFI_OK) return XFFI_FAIL;
  if (command < 0 || command > 2)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: command %lld is none of 0 (key), 1 (value), 2 (next)", fn,
                            (long long)command);
  xffi_map_item item;
  int64_t after = it->cursor;
  if (xffi_map_next(&item, it->map, &after) != XFFI_OK) return XFFI_FAIL;
  if (command == 2) {
    if (item.key) it->cursor = after; /* past the current entry */
    int64_t peek = it->cursor;
    if (xffi_map_next(&item, it->map, &peek) != XFFI_OK) return XFFI_FAIL;
    *result = xffi_any_bool(item.key != NULL);
    return XFFI_OK;
  }
  if (!item.key) return xffi_error_raise(XFFI_KIND_INDEX, "%s: the iteration is past the last entry", fn);
  return xffi_any_copy(result, command == 0 ? item.key : item.value);
}

static int map_iter_functor(int32_t type_index, const char *fn, const xffi_any *args, int32_t num_args,
                            xffi_any *result) {
  xffi_object *map, *functor = NULL;
  if (map_args(&map, type_index, 1, fn, args, num_args, result) != XFFI_OK) return XFFI_FAIL;
  map_iter *it = xffi_alloc(sizeof *it);
  if (!it) return xffi_error_raise_out_of_memory();
  it->map = map;
  it->cursor = 0;
  if (xffi_function_new(&functor, map_iter_call, it, map_iter_finalize) != XFFI_OK) {
    xffi_free(it); /* not yet owned by a function: the map reference is not taken */
    return XFFI_FAIL;
  }
  xffi_object_inc_ref(map);
  *result = xffi_any_object(functor);
  return XFFI_OK;
}

/* ---- Map ---- */

int xffi_global_map(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return make_pairs(XFFI_TYPE_MAP, "ffi.Map", args, num_args, result);
}
int xffi_global_map_size(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return map_size(XFFI_TYPE_MAP, "ffi.MapSize", args, num_args, result);
}
int xffi_global_map_get_item(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return map_get_item(XFFI_TYPE_MAP, "ffi.MapGetItem", args, num_args, result);
}
int xffi_global_map_count(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return map_count(XFFI_TYPE_MAP, "ffi.MapCount", args, num_args, result);
}
int xffi_global_map_forward_iter_functor(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return map_iter_functor(XFFI_TYPE_MAP, "ffi.MapForwardIterFunctor", args, num_args, result);
}
int xffi_global_map_get_item_or_missing(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return map_get_item_or_missing(XFFI_TYPE_MAP, "ffi.MapGetItemOrMissing", args, num_args, result);
}

/* ---- Dict ---- */

int xffi_global_dict(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return make_pairs(XFFI_TYPE_DICT, "ffi.Dict", args, num_args, result);
}
int xffi_global_dict_size(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return map_size(XFFI_TYPE_DICT, "ffi.DictSize", args, num_args, result);
}
int xffi_global_dict_get_item(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return map_get_item(XFFI_TYPE_DICT, "ffi.DictGetItem", args, num_args, result);
}
int xffi_global_dict_set_item(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_object *dict;
  if (map_args(&dict, XFFI_TYPE_DICT, 3, "ffi.DictSetItem", args, num_args, result) != XFFI_OK) return XFFI_FAIL;
  return xffi_dict_set(dict, &args[1], &args[2]);
}
int xffi_global_dict_count(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return map_count(XFFI_TYPE_DICT, "ffi.DictCount", args, num_args, result);
}
int xffi_global_dict_erase(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  const xffi_any *found;
  if (map_find(&found, XFFI_TYPE_DICT, "ffi.DictErase", args, num_args, result) != XFFI_OK) return XFFI_FAIL;
  return found ? xffi_dict_erase(args[0].v_obj, &args[1]) : XFFI_OK;
}
int xffi_global_dict_clear(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_object *dict;
  if (map_args(&dict, XFFI_TYPE_DICT, 1, "ffi.DictClear", args, num_args, result) != XFFI_OK) return XFFI_FAIL;
  return xffi_dict_clear(dict);
}
int xffi_global_dict_forward_iter_functor(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return map_iter_functor(XFFI_TYPE_DICT, "ffi.DictForwardIterFunctor", args, num_args, result);
}
int xffi_global_dict_get_item_or_missing(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return map_get_item_or_missing(XFFI_TYPE_DICT, "ffi.DictGetItemOrMissing", args, num_args, result);
}
