/* c/type.c: the type registry.
 *
 * Readers never lock. Two structures are published through atomic pointers:
 * - the index table (type index -> record), read by is-instance inline;
 * - the key map (open addressing, key hash -> record), read by key lookups.
 * Writers serialise on one mutex. Entries are only ever added, so a reader
 * probing the map sees either an empty slot or a complete record (slots are
 * written with release stores after the record is filled in). When either
 * structure grows, the new one is filled and then published; the old one
 * stays valid for readers still holding it, parked on a retired list that
 * keeps it reachable (it is small: growth doubles, so retired memory is less
 * than the live structure). Records are immortal. */
#include <stdio.h>
#include <string.h>

#include "hash.h"
#include "check.h"
#include "internal.h"
#include "platform.h"

/* ---- Built-in types: static, so nothing runs or allocates at load. ---- */

static const int32_t ancestors_of_builtin_object[1] = {XFFI_TYPE_OBJECT};

#define BUILTIN(index, depth, key, ancestors) \
  { (index), (depth), {(key), sizeof(key) - 1}, (ancestors) }

static const xffi_type_info builtin_infos[] = {
    BUILTIN(XFFI_TYPE_NONE, 0, "None", NULL),
    BUILTIN(XFFI_TYPE_INT, 0, "int", NULL),
    BUILTIN(XFFI_TYPE_BOOL, 0, "bool", NULL),
    BUILTIN(XFFI_TYPE_FLOAT, 0, "float", NULL),
    BUILTIN(XFFI_TYPE_OPAQUE_PTR, 0, "void*", NULL),
    BUILTIN(XFFI_TYPE_DTYPE, 0, "DataType", NULL),
    BUILTIN(XFFI_TYPE_DEVICE, 0, "Device", NULL),
    BUILTIN(XFFI_TYPE_DLTENSOR_PTR, 0, "DLTensor*", NULL),
    BUILTIN(XFFI_TYPE_RAW_STR, 0, "const char*", NULL),
    BUILTIN(XFFI_TYPE_BYTE_ARRAY_PTR, 0, "TVMFFIByteArray*", NULL),
    BUILTIN(XFFI_TYPE_OBJECT_RVALUE, 0, "ObjectRValueRef", NULL),
    BUILTIN(XFFI_TYPE_SMALL_STR, 0, "ffi.SmallStr", NULL),
    BUILTIN(XFFI_TYPE_SMALL_BYTES, 0, "ffi.SmallBytes", NULL),
    BUILTIN(XFFI_TYPE_OBJECT, 0, "ffi.Object", NULL),
    BUILTIN(XFFI_TYPE_STRING, 1, "ffi.String", ancestors_of_builtin_object),
    BUILTIN(XFFI_TYPE_BYTES, 1, "ffi.Bytes", ancestors_of_builtin_object),
    BUILTIN(XFFI_TYPE_ERROR, 1, "ffi.Error", ancestors_of_builtin_object),
    BUILTIN(XFFI_TYPE_FUNCTION, 1, "ffi.Function", ancestors_of_builtin_object),
    BUILTIN(XFFI_TYPE_SHAPE, 1, "ffi.Shape", ancestors_of_builtin_object),
    BUILTIN(XFFI_TYPE_TENSOR, 1, "ffi.Tensor", ancestors_of_builtin_object),
    BUILTIN(XFFI_TYPE_ARRAY, 1, "ffi.Array", ancestors_of_builtin_object),
    BUILTIN(XFFI_TYPE_MAP, 1, "ffi.Map", ancestors_of_builtin_object),
    BUILTIN(XFFI_TYPE_MODULE, 1, "ffi.Module", ancestors_of_builtin_object),
    BUILTIN(XFFI_TYPE_OPAQUE_FOREIGN, 1, "ffi.OpaquePyObject", ancestors_of_builtin_object),
    BUILTIN(XFFI_TYPE_LIST, 1, "ffi.List", ancestors_of_builtin_object),
    BUILTIN(XFFI_TYPE_DICT, 1, "ffi.Dict", ancestors_of_builtin_object),
};
#define BUILTIN_COUNT (sizeof(builtin_infos) / sizeof(builtin_infos[0]))

/* builtin_infos lists the value types (indices 0 to XFFI_TYPE_SMALL_BYTES)
 * first, then the object types from XFFI_TYPE_OBJECT on, each run in index
 * order: so a value type's record is at its index, an object type's at its
 * offset from XFFI_TYPE_OBJECT past the value types. */
#define BUILTIN_VALUE_TYPES (XFFI_TYPE_SMALL_BYTES + 1)
#define B(i) [i] = &builtin_infos[i]
#define BO(i) [i] = &builtin_infos[BUILTIN_VALUE_TYPES + (i)-XFFI_TYPE_OBJECT]
static const xffi_type_info *builtin_table[XFFI_TYPE_DYNAMIC_BEGIN] = {
    B(0),   B(1),   B(2),   B(3),   B(4),   B(5),   B(6),   B(7),   B(8),   B(9),   B(10),  B(11),  B(12),
    BO(64), BO(65), BO(66), BO(67), BO(68), BO(69), BO(70), BO(71), BO(72), BO(73), BO(74), BO(75), BO(76),
};
#undef B
#undef BO

const xffi_type_info *const *xffi_type_table_ = builtin_table;

/* ---- Mutable state, guarded by registry_lock for writers. ---- */

static xffi_mutex registry_lock = XFFI_MUTEX_INITIALIZER;
static int32_t type_count = XFFI_TYPE_DYNAMIC_BEGIN; /* published with release */
static int32_t table_capacity = XFFI_TYPE_DYNAMIC_BEGIN;

/* A slot's hash is written before its record is published (release), so a
 * reader that sees the record sees its hash. Built-in records are static and
 * carry no hash of their own, hence the copy here. */
typedef struct key_slot {
  uint64_t hash;
  const xffi_type_info *info;
} key_slot;

typedef struct key_map {
  size_t mask; /* capacity - 1, capacity a power of two */
  size_t used;
  key_slot slots[];
} key_map;

static key_map *keys; /* NULL until the first registration; published with release */

/* Superseded tables and maps, kept reachable for readers that still hold them. */
typedef struct retired {
  struct retired *next;
  void *memory;
} retired;
static retired *retired_list;

/* Keys are hashed with the process's secret key (c/hash.h), so chosen keys
 * cannot share a probe run. */
static uint64_t key_hash(const char *key, size_t size) {
  xffi_hash_key_ensure();
  return xffi_keyed_hash_bytes(key, size);
}

static const xffi_type_info *builtin_by_key(const char *key, size_t size) {
  for (size_t i = 0; i < BUILTIN_COUNT; ++i) {
    const xffi_type_info *info = &builtin_infos[i];
    if (info->type_key.size == size && memcmp(info->type_key.data, key, size) == 0) return info;
  }
  return NULL;
}

static const xffi_type_info *map_find(const key_map *map, const char *key, size_t size, uint64_t hash) {
  for (size_t i = hash & map->mask;; i = (i + 1) & map->mask) {
    const xffi_type_info *info = __atomic_load_n(&map->slots[i].info, __ATOMIC_ACQUIRE);
    if (!info) return NULL;
    if (map->slots[i].hash == hash && info->type_key.size == size && memcmp(info->type_key.data, key, size) == 0)
      return info;
  }
}

/* Writers only: stores info in map (which has room). */
static void map_put(key_map *map, const xffi_type_info *info, uint64_t hash) {
  size_t i = hash & map->mask;
  while (map->slots[i].info) i = (i + 1) & map->mask;
  map->slots[i].hash = hash;
  __atomic_store_n(&map->slots[i].info, info, __ATOMIC_RELEASE);
  map->used++;
}

static int retire(void *memory) {
  retired *r = xffi_alloc(sizeof(retired));
  if (!r) return XFFI_FAIL;
  r->memory = memory;
  r->next = retired_list;
  retired_list = r;
  return XFFI_OK;
}

/* Writers only: makes room in the key map for one more record (load <= 1/2). */
static int map_reserve_one(void) {
  size_t capacity = keys ? keys->mask + 1 : 0;
  size_t used = keys ? keys->used : 0;
  if (keys && (used + 1) * 2 <= capacity) return XFFI_OK;
  size_t new_capacity = capacity ? capacity * 2 : 256;
  key_map *map = xffi_alloc_zeroed(1, sizeof(key_map) + new_capacity * sizeof(map->slots[0]));
  if (!map) return XFFI_FAIL;
  map->mask = new_capacity - 1;
  if (keys) {
    for (size_t i = 0; i <= keys->mask; ++i)
      if (keys->slots[i].info) map_put(map, keys->slots[i].info, keys->slots[i].hash);
  } else {
    for (size_t i = 0; i < BUILTIN_COUNT; ++i) {
      const xffi_type_info *info = &builtin_infos[i];
      map_put(map, info, key_hash(info->type_key.data, info->type_key.size));
    }
  }
  if (keys && retire(keys) != XFFI_OK) {
    xffi_free(map);
    return XFFI_FAIL;
  }
  __atomic_store_n(&keys, map, __ATOMIC_RELEASE);
  return XFFI_OK;
}

/* Writers only: makes room in the index table for one more type. */
static int table_reserve_one(void) {
  if (type_count < table_capacity) return XFFI_OK;
  if (table_capacity > INT32_MAX / 2) return XFFI_FAIL;
  int32_t new_capacity = table_capacity * 2;
  const xffi_type_info **table = xffi_alloc_zeroed((size_t)new_capacity, sizeof(table[0]));
  if (!table) return XFFI_FAIL;
  memcpy(table, xffi_type_table_, (size_t)type_count * sizeof(table[0]));
  if (xffi_type_table_ != builtin_table && retire((void *)xffi_type_table_) != XFFI_OK) {
    xffi_free(table);
    return XFFI_FAIL;
  }
  __atomic_store_n(&xffi_type_table_, table, __ATOMIC_RELEASE);
  table_capacity = new_capacity;
  return XFFI_OK;
}

static const xffi_type_info *info_at(int32_t index) {
  int32_t count = __atomic_load_n(&type_count, __ATOMIC_ACQUIRE);
  if (index < 0 || index >= count) return NULL;
  return __atomic_load_n(&xffi_type_table_, __ATOMIC_ACQUIRE)[index];
}

static int is_object_type(const xffi_type_info *info) {
  return info && info->type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN;
}

/* Writers only: the new record, its ancestors and key in one allocation. */
static xffi_type_info *make_record(int32_t index, const xffi_type_info *parent, const char *key, size_t size) {
  int32_t depth = parent->type_depth + 1;
  size_t bytes = sizeof(xffi_type_info) + (size_t)depth * sizeof(int32_t) + size + 1;
  xffi_type_info *info = xffi_alloc(bytes);
  if (!info) return NULL;
  int32_t *ancestors = (int32_t *)(info + 1);
  char *key_copy = (char *)(ancestors + depth);
  if (parent->type_depth) memcpy(ancestors, parent->type_ancestors, (size_t)parent->type_depth * sizeof(int32_t));
  ancestors[depth - 1] = parent->type_index;
  memcpy(key_copy, key, size);
  key_copy[size] = '\0';
  info->type_index = index;
  info->type_depth = depth;
  info->type_key.data = key_copy;
  info->type_key.size = size;
  info->type_ancestors = ancestors;
  return info;
}

int xffi_type_register(int32_t *out_type_index, const char *type_key, int32_t parent_type_index) {
  XFFI_CHECK_ARG_NOT_NULL(out_type_index);
  XFFI_CHECK_ARG_NOT_NULL(type_key);
  size_t size = strlen(type_key);
  if (size == 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: type_key is empty", __func__);
  const xffi_type_info *parent = info_at(parent_type_index);
  if (!is_object_type(parent))
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: parent_type_index %d (%s) is not a registered object type", __func__,
                            (int)parent_type_index, xffi_type_key(parent_type_index));
  /* Each record copies its ancestors (for O(1) is-instance), so a chain of
   * depth d costs O(d^2) in total: the limit keeps that bounded. */
  if (parent->type_depth >= XFFI_TYPE_MAX_DEPTH)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "%s: cannot register '%s' under %s (index %d): the parent is at depth %d and the "
                            "deepest allowed type depth is %d (XFFI_TYPE_MAX_DEPTH)",
                            __func__, type_key, parent->type_key.data, (int)parent_type_index, (int)parent->type_depth,
                            (int)XFFI_TYPE_MAX_DEPTH);
  uint64_t hash = key_hash(type_key, size);

  xffi_mutex_lock(&registry_lock);
  const xffi_type_info *existing = keys ? map_find(keys, type_key, size, hash) : builtin_by_key(type_key, size);
  if (existing && existing->type_depth == 0) {
    /* A built-in root (Object) or plain value type (int, float, ...): it has
     * no parent to compare, so say what it is instead. */
    xffi_mutex_unlock(&registry_lock);
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: type key '%s' is reserved for the built-in %s type (index %d)",
                            __func__, type_key, is_object_type(existing) ? "root object" : "value",
                            (int)existing->type_index);
  }
  if (existing) {
    int32_t existing_parent = existing->type_depth ? existing->type_ancestors[existing->type_depth - 1] : -1;
    xffi_mutex_unlock(&registry_lock);
    if (existing_parent == parent_type_index) {
      *out_type_index = existing->type_index;
      return XFFI_OK;
    }
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "%s: type key '%s' is already registered with parent %s (index %d), not %s (index %d)",
                            __func__, type_key, xffi_type_key(existing_parent), (int)existing_parent,
                            xffi_type_key(parent_type_index), (int)parent_type_index);
  }
  if (type_count == INT32_MAX) {
    xffi_mutex_unlock(&registry_lock);
    return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: all %d type indices are in use", __func__, (int)INT32_MAX);
  }
  xffi_type_info *info = NULL;
  if (map_reserve_one() != XFFI_OK || table_reserve_one() != XFFI_OK ||
      !(info = make_record(type_count, parent, type_key, size))) {
    xffi_mutex_unlock(&registry_lock);
    return xffi_error_raise_out_of_memory();
  }
  /* Publish the record in the table before the count, and before the key. */
  const xffi_type_info **table = (const xffi_type_info **)xffi_type_table_;
  __atomic_store_n(&table[type_count], info, __ATOMIC_RELEASE);
  __atomic_store_n(&type_count, type_count + 1, __ATOMIC_RELEASE);
  map_put(keys, info, hash);
  *out_type_index = info->type_index;
  xffi_mutex_unlock(&registry_lock);
  return XFFI_OK;
}

int xffi_type_info_get_by_key(const xffi_type_info **out, const char *type_key) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(type_key);
  size_t size = strlen(type_key);
  const key_map *map = __atomic_load_n(&keys, __ATOMIC_ACQUIRE);
  const xffi_type_info *info =
      map ? map_find(map, type_key, size, key_hash(type_key, size)) : builtin_by_key(type_key, size);
  if (!info) return xffi_error_raise(XFFI_KIND_KEY, "%s: no type is registered with key '%s'", __func__, type_key);
  *out = info;
  return XFFI_OK;
}

int xffi_type_info_get(const xffi_type_info **out, int32_t type_index) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  const xffi_type_info *info = info_at(type_index);
  if (!info) return xffi_error_raise(XFFI_KIND_INDEX, "%s: no type has index %d", __func__, (int)type_index);
  *out = info;
  return XFFI_OK;
}

const xffi_type_info *xffi_type_info_find(int32_t type_index) { return info_at(type_index); }

const char *xffi_type_key(int32_t type_index) {
  const xffi_type_info *info = info_at(type_index);
  return info ? info->type_key.data : "<unregistered type>";
}

int32_t xffi_type_count(void) { return __atomic_load_n(&type_count, __ATOMIC_ACQUIRE); }

int xffi_object_is_a(int *out, const xffi_object *obj, int32_t type_index) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(obj);
  if (!is_object_type(info_at(type_index)))
    return xffi_error_raise(XFFI_KIND_INDEX, "%s: type_index %d is not a registered object type", __func__,
                            (int)type_index);
  if (!is_object_type(info_at(obj->type_index)))
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: obj has type index %d, which is not a registered object type",
                            __func__, (int)obj->type_index);
  *out = xffi_object_is_a_unchecked(obj, type_index);
  return XFFI_OK;
}
