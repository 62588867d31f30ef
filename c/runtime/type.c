/* c/runtime/type.c: the type registry.
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
 * than the live structure). Records are immortal.
 *
 * Indices follow tvm-ffi: a type reserves num_child_slots indices right
 * after its own for its children; a child takes the next free run of its
 * parent's range, or, once that is full and the parent may overflow, a run
 * at the end of the table (type_count, the counter). */
#include <stdio.h>
#include <string.h>

#include "runtime/hash.h"
#include "runtime/check.h"
#include "platform/platform.h"
#include "runtime/seeds.h"
#include "runtime/type_internal.h"

const xffi_type_info *const *xffi_type_table_ = xffi_type_builtin_table;
/* The table with its size, for the inline forms (xffi/sys/type.h): one
 * pointer, so a reader never pairs a size with a smaller table. */
static const xffi_type_rows_ builtin_rows = {XFFI_TYPE_DYNAMIC_BEGIN, xffi_type_builtin_table};
const xffi_type_rows_ *xffi_type_sized_table_ = &builtin_rows;

/* ---- Mutable state, guarded by registry_lock for writers. ---- */

static xffi_mutex registry_lock = XFFI_MUTEX_INITIALIZER;
static int32_t type_count = XFFI_TYPE_DYNAMIC_BEGIN; /* published with release */
static int32_t table_capacity = XFFI_TYPE_DYNAMIC_BEGIN;

/* A slot's hash is written before its record is published (release), so a
 * reader that sees the record sees its hash. The map's hash is keyed (unlike
 * the record's type_key_hash, which anyone can compute). */
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

/* Keys are hashed with the process's secret key (c/runtime/hash.h), so chosen keys
 * cannot share a probe run. */
static uint64_t key_hash(const char *key, size_t size) {
  xffi_hash_key_ensure();
  return xffi_keyed_hash_bytes(key, size);
}

void xffi_type_lock(void) { xffi_mutex_lock(&registry_lock); }
void xffi_type_unlock(void) { xffi_mutex_unlock(&registry_lock); }

static const xffi_type_info *builtin_by_key(const char *key, size_t size) {
  for (size_t i = 0; i < XFFI_TYPE_BUILTIN_COUNT; ++i) {
    const xffi_type_info *info = &xffi_type_builtin_entries[i].stored.info;
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

int xffi_type_retire(void *memory) {
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
    for (size_t i = 0; i < XFFI_TYPE_BUILTIN_COUNT; ++i) {
      const xffi_type_info *info = &xffi_type_builtin_entries[i].stored.info;
      map_put(map, info, key_hash(info->type_key.data, info->type_key.size));
    }
  }
  if (keys && xffi_type_retire(keys) != XFFI_OK) {
    xffi_free(map);
    return XFFI_FAIL;
  }
  __atomic_store_n(&keys, map, __ATOMIC_RELEASE);
  return XFFI_OK;
}

/* Writers only: makes the index table hold count rows (holes NULL). */
static int table_reserve(int32_t count) {
  if (count <= table_capacity) return XFFI_OK;
  int32_t new_capacity = table_capacity <= INT32_MAX / 2 ? table_capacity * 2 : INT32_MAX;
  if (new_capacity < count) new_capacity = count;
  /* The rows and their size in one block: a size is never read with a smaller table. */
  xffi_type_rows_ *rows = xffi_alloc_zeroed(1, sizeof(xffi_type_rows_) + (size_t)new_capacity * sizeof(rows->rows[0]));
  if (!rows) return XFFI_FAIL;
  const xffi_type_info **table = (const xffi_type_info **)(rows + 1);
  rows->size = new_capacity;
  rows->rows = table;
  memcpy(table, xffi_type_table_, (size_t)type_count * sizeof(table[0]));
  if (xffi_type_sized_table_ != &builtin_rows && xffi_type_retire((void *)xffi_type_sized_table_) != XFFI_OK) {
    xffi_free(rows);
    return XFFI_FAIL;
  }
  __atomic_store_n(&xffi_type_table_, table, __ATOMIC_RELEASE);
  __atomic_store_n(&xffi_type_sized_table_, rows, __ATOMIC_RELEASE);
  table_capacity = new_capacity;
  return XFFI_OK;
}

/* Inlined everywhere (this file is compiled for size): it is every lookup's
 * first step, the hot ones' (is-instance, fields by name) included. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline const xffi_type_info *
info_at(int32_t index) {
  int32_t count = __atomic_load_n(&type_count, __ATOMIC_ACQUIRE);
  if (index < 0 || index >= count) return NULL;
  return __atomic_load_n(&xffi_type_table_, __ATOMIC_ACQUIRE)[index];
}

xffi_type_entry *xffi_type_entry_at(int32_t type_index) { return (xffi_type_entry *)info_at(type_index); }

static int is_object_type(const xffi_type_info *info) {
  return info && info->type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN;
}

/* Writers only: the new entry, its ancestors and key in one allocation. */
static xffi_type_entry *make_entry(int32_t index, int32_t depth, const xffi_type_info *parent, const char *key,
                                   size_t size, int32_t num_slots, int32_t can_overflow) {
  size_t bytes = sizeof(xffi_type_entry) + (size_t)depth * (sizeof(xffi_type_info *) + sizeof(int32_t)) + size + 1;
  xffi_type_entry *entry = xffi_alloc_zeroed(1, bytes);
  if (!entry) return NULL;
  const xffi_type_info **ancestors = (const xffi_type_info **)(entry + 1);
  int32_t *ancestor_indices = (int32_t *)(ancestors + depth);
  char *key_copy = (char *)(ancestor_indices + depth);
  if (parent) {
    const xffi_type_record_ *parent_record = (const xffi_type_record_ *)parent;
    if (parent->type_depth) {
      memcpy(ancestors, parent->type_ancestors, (size_t)parent->type_depth * sizeof(ancestors[0]));
      memcpy(ancestor_indices, parent_record->ancestor_indices_, (size_t)parent->type_depth * sizeof(int32_t));
    }
    ancestors[depth - 1] = parent;
    ancestor_indices[depth - 1] = parent->type_index;
  }
  memcpy(key_copy, key, size);
  key_copy[size] = '\0';
  xffi_type_info *info = &entry->stored.info;
  entry->stored.ancestor_indices_ = depth ? ancestor_indices : NULL;
  info->type_index = index;
  info->type_depth = depth;
  info->type_key.data = key_copy;
  info->type_key.size = size;
  info->type_ancestors = depth ? ancestors : NULL;
  info->type_key_hash = xffi_type_key_hash(key, size);
  entry->num_slots = num_slots;
  entry->allocated_slots = 1;
  entry->can_overflow = can_overflow;
  return entry;
}

#ifndef XFFI_NO_FOREIGN_RUNTIME /* the drop-in has no type provider */
xffi_type_entry *xffi_type_mirror_place_locked(int32_t index, const xffi_type_info *parent, const char *key,
                                               size_t size, const xffi_type_info *theirs) {
  xffi_type_entry *there = xffi_type_entry_at(index);
  if (there) return there;
  int32_t depth = parent ? parent->type_depth + 1 : 0;
  int32_t new_count = index >= type_count ? index + 1 : type_count;
  xffi_type_entry *entry = NULL;
  if (index < XFFI_TYPE_STATIC_OBJECT_BEGIN || depth > XFFI_TYPE_MAX_DEPTH || table_reserve(new_count) != XFFI_OK ||
      !(entry = make_entry(index, depth, parent, key, size, 1, 0)))
    return NULL;
  entry->provided = theirs;
  /* Not in the key map: a key lookup that misses asks the provider, and a
   * registration of the key here takes the mirror over (allocate_locked). */
  const xffi_type_info **table = (const xffi_type_info **)xffi_type_table_;
  __atomic_store_n(&table[index], &entry->stored.info, __ATOMIC_RELEASE);
  __atomic_store_n(&type_count, new_count, __ATOMIC_RELEASE);
  return entry;
}
#endif

const xffi_type_info *xffi_type_find_by_key(const char *key, size_t size) {
  const key_map *map = __atomic_load_n(&keys, __ATOMIC_ACQUIRE);
  return map ? map_find(map, key, size, key_hash(key, size)) : builtin_by_key(key, size);
}

/* An error found under the lock, raised once the lock is released (raising
 * allocates, and an installed allocator may call back into the registry). */
typedef struct pending_error {
  const char *kind;
  char message[320];
} pending_error;

XFFI_PRINTF(3, 4)
static int defer(pending_error *error, const char *kind, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(error->message, sizeof(error->message), format, args);
  va_end(args);
  error->kind = kind;
  return XFFI_FAIL;
}

/* The index the process's other tvm-ffi runtime gave a new dynamic type
 * (index -1: none, this runtime places it), and whether it created the type
 * there (created 1) or already had it (created 2). */
typedef struct foreign_index {
  int32_t index;
  int created;
} foreign_index;

/* Writers only: places a new type (key not registered yet) and publishes it.
 * parent is NULL for a root. */
static int allocate_locked(int32_t *out, pending_error *error, const char *function, const char *key, size_t size,
                           int32_t static_index, int32_t depth, int32_t num_child_slots, int32_t can_overflow,
                           xffi_type_entry *parent, const foreign_index *given) {
  int32_t num_slots = num_child_slots + 1, index, new_count = type_count;
  int from_parent_range = 0;
  if (given->index >= 0) {
    /* The process's runtime placed it: the same index here, where it may
     * only be free (a type registered before that runtime was found holds it). */
#ifndef XFFI_NO_FOREIGN_RUNTIME /* the drop-in has no type provider */
    xffi_type_entry *mirror = xffi_type_entry_at(given->index);
    if (mirror && mirror->provided && mirror->stored.info.type_key.size == size &&
        memcmp(mirror->stored.info.type_key.data, key, size) == 0 && map_reserve_one() == XFFI_OK) {
      /* This runtime registers a type it had mirrored (the process's runtime
       * has the key: given->created is 2). The record becomes its own: the
       * fields, methods and metadata it registers, compared with that
       * runtime's (xffi_foreign_tell). The counts go to 0 first and the
       * arrays stay: a reader that loaded an old count still reads live
       * records; registration publishes new arrays before their counts. */
      mirror->provided = NULL;
      __atomic_store_n(&mirror->stored.info.num_fields, 0, __ATOMIC_RELEASE);
      __atomic_store_n(&mirror->stored.info.num_methods, 0, __ATOMIC_RELEASE);
      __atomic_store_n(&mirror->stored.info.metadata, NULL, __ATOMIC_RELEASE);
      mirror->foreign_created = given->created;
      map_put(keys, &mirror->stored.info, key_hash(key, size));
      *out = given->index;
      return XFFI_OK;
    }
#endif
    if (info_at(given->index))
      return defer(error, XFFI_KIND_RUNTIME,
                   "%s: index %d, which the process's tvm-ffi runtime gave '%.*s', is taken in this runtime by %s",
                   function, (int)given->index, (int)size, key, info_at(given->index)->type_key.data);
    index = given->index;
    if (index >= new_count) new_count = index + 1;
  } else if (static_index >= 0) {
    if (static_index >= type_count || info_at(static_index))
      return defer(error, XFFI_KIND_VALUE, "%s: static_type_index %d for '%.*s' is %s", function, (int)static_index,
                   (int)size, key, static_index >= type_count ? "past the table" : "taken by another type");
    index = static_index;
  } else if (!parent) {
    return defer(error, XFFI_KIND_VALUE, "%s: '%.*s' has neither a parent nor a static_type_index", function, (int)size,
                 key);
  } else if (parent->allocated_slots <= parent->num_slots - num_slots) {
    index = parent->stored.info.type_index + parent->allocated_slots; /* inside the parent's reserved range */
    from_parent_range = 1;
    if (info_at(index))
      return defer(error, XFFI_KIND_VALUE, "%s: index %d reserved under %s for '%.*s' is taken by %s", function,
                   (int)index, parent->stored.info.type_key.data, (int)size, key, info_at(index)->type_key.data);
  } else if (parent->can_overflow) {
    if (type_count > INT32_MAX - num_slots)
      return defer(error, XFFI_KIND_RUNTIME, "%s: no type indices left for '%.*s'", function, (int)size, key);
    index = type_count;
    new_count = type_count + num_slots;
  } else {
    return defer(error, XFFI_KIND_TYPE,
                 "%s: cannot register '%.*s' under %s (index %d): it has no free child slot and does not overflow",
                 function, (int)size, key, parent->stored.info.type_key.data, (int)parent->stored.info.type_index);
  }
  if (parent && index <= parent->stored.info.type_index)
    return defer(error, XFFI_KIND_VALUE, "%s: index %d of '%.*s' is not above its parent's (%d)", function, (int)index,
                 (int)size, key, (int)parent->stored.info.type_index);
  /* A child of a type that cannot overflow cannot either. */
  if (parent && !parent->can_overflow) can_overflow = 0;
  xffi_type_entry *entry = NULL;
  if (map_reserve_one() != XFFI_OK || table_reserve(new_count) != XFFI_OK ||
      !(entry =
            make_entry(index, depth, parent ? &parent->stored.info : NULL, key, size, num_slots, can_overflow != 0)))
    return defer(error, XFFI_KIND_MEMORY, "%s: out of memory registering '%.*s'", function, (int)size, key);
  if (from_parent_range) parent->allocated_slots += num_slots;
  entry->foreign_created = given->created;
  /* Publish the record in the table before the count, and before the key. */
  const xffi_type_info **table = (const xffi_type_info **)xffi_type_table_;
  __atomic_store_n(&table[index], &entry->stored.info, __ATOMIC_RELEASE);
  __atomic_store_n(&type_count, new_count, __ATOMIC_RELEASE);
  map_put(keys, &entry->stored.info, key_hash(key, size));
  *out = index;
  return XFFI_OK;
}

int xffi_type_builtins_ensure(void) { return xffi_type_runtime_ensure(); }

int xffi_type_get_or_alloc(int32_t *out, const char *function, const char *key, size_t size, int32_t static_type_index,
                           int32_t type_depth, int32_t num_child_slots, int32_t child_slots_can_overflow,
                           int32_t parent_type_index) {
  if (xffi_type_builtins_ensure() != XFFI_OK) return XFFI_FAIL;
  /* Known keys (every C++ type after its first library, every query) need no lock. */
  const xffi_type_info *existing = xffi_type_find_by_key(key, size);
  if (existing) {
    *out = existing->type_index;
    return XFFI_OK;
  }
  /* With another tvm-ffi runtime in the process, a dynamic type takes its
   * index from it, so the objects this runtime makes read as their type
   * there; asked outside the lock (a query, parent -2, asks nothing). */
  foreign_index given;
  if (xffi_foreign_type_index(&given.index, &given.created, key, size, static_type_index, type_depth, num_child_slots,
                              child_slots_can_overflow, parent_type_index) != XFFI_OK)
    return XFFI_FAIL;
  pending_error error = {NULL, ""};
  int status = XFFI_OK;
  xffi_mutex_lock(&registry_lock);
  existing = xffi_type_find_by_key(key, size);
  if (existing) {
    *out = existing->type_index; /* tvm-ffi checks nothing else for a known key */
  } else if (parent_type_index == -2) {
    *out = -2; /* query only */
  } else {
    xffi_type_entry *parent = parent_type_index >= 0 ? xffi_type_entry_at(parent_type_index) : NULL;
    if (parent_type_index >= 0 && (!parent || !is_object_type(&parent->stored.info)))
      status = defer(&error, XFFI_KIND_TYPE, "%s: parent_type_index %d of '%.*s' is not a registered object type",
                     function, (int)parent_type_index, (int)size, key);
    else if (parent_type_index < -1)
      status = defer(&error, XFFI_KIND_VALUE, "%s: parent_type_index %d of '%.*s' is neither an index, -1 nor -2",
                     function, (int)parent_type_index, (int)size, key);
    else if (type_depth != (parent ? parent->stored.info.type_depth + 1 : 0))
      status = defer(&error, XFFI_KIND_VALUE, "%s: type_depth %d of '%.*s' should be %d (%s)", function,
                     (int)type_depth, (int)size, key, parent ? parent->stored.info.type_depth + 1 : 0,
                     parent ? "its parent's depth + 1" : "a root");
    else if (type_depth > XFFI_TYPE_MAX_DEPTH)
      status = defer(&error, XFFI_KIND_VALUE, "%s: type_depth %d of '%.*s' is deeper than XFFI_TYPE_MAX_DEPTH (%d)",
                     function, (int)type_depth, (int)size, key, (int)XFFI_TYPE_MAX_DEPTH);
    else if (num_child_slots < 0 || num_child_slots > XFFI_TYPE_MAX_CHILD_SLOTS)
      status = defer(&error, XFFI_KIND_VALUE,
                     "%s: num_child_slots %d of '%.*s' is outside 0..%d (XFFI_TYPE_MAX_CHILD_SLOTS)", function,
                     (int)num_child_slots, (int)size, key, (int)XFFI_TYPE_MAX_CHILD_SLOTS);
    else
      status = allocate_locked(out, &error, function, key, size, static_type_index, type_depth, num_child_slots,
                               child_slots_can_overflow, parent, &given);
  }
  xffi_mutex_unlock(&registry_lock);
  if (status != XFFI_OK) return xffi_error_raise(error.kind, "%s", error.message);
  return XFFI_OK;
}

int xffi_type_register(int32_t *out_type_index, const char *type_key, int32_t parent_type_index) {
  XFFI_CHECK_ARG_NOT_NULL(out_type_index);
  XFFI_CHECK_ARG_NOT_NULL(type_key);
  size_t size = strlen(type_key);
  if (size == 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: type_key is empty", __func__);
  const xffi_type_info *parent = xffi_type_info_find(parent_type_index);
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
  /* Stricter than tvm-ffi: a known key must come with the parent it has. */
  const xffi_type_info *existing = xffi_type_find_by_key(type_key, size);
  if (existing && existing->type_depth == 0)
    /* A built-in root (Object) or plain value type (int, float, ...): it has
     * no parent to compare, so say what it is instead. */
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: type key '%s' is reserved for the built-in %s type (index %d)",
                            __func__, type_key, is_object_type(existing) ? "root object" : "value",
                            (int)existing->type_index);
  if (existing) {
    int32_t existing_parent = existing->type_ancestors[existing->type_depth - 1]->type_index;
    if (existing_parent == parent_type_index) {
      *out_type_index = existing->type_index;
      return XFFI_OK;
    }
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "%s: type key '%s' is already registered with parent %s (index %d), not %s (index %d)",
                            __func__, type_key, xffi_type_key(existing_parent), (int)existing_parent,
                            xffi_type_key(parent_type_index), (int)parent_type_index);
  }
  /* A new key (or one another thread registers meanwhile: then its index,
   * if the parents agree): placed as tvm-ffi places the types its
   * Python package defines, with no child slots of its own. */
  int32_t index = -1;
  if (xffi_type_get_or_alloc(&index, __func__, type_key, size, -1, parent->type_depth + 1, 0, 1, parent_type_index) !=
      XFFI_OK)
    return XFFI_FAIL;
  const xffi_type_info *made = info_at(index);
  if (made->type_depth == 0 || made->type_ancestors[made->type_depth - 1]->type_index != parent_type_index)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: type key '%s' was registered meanwhile with another parent", __func__,
                            type_key);
  *out_type_index = index;
  return XFFI_OK;
}

int xffi_type_info_get_by_key(const xffi_type_info **out, const char *type_key) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(type_key);
  if (xffi_type_builtins_ensure() != XFFI_OK) return XFFI_FAIL;
  const xffi_type_info *info = xffi_type_find_by_key(type_key, strlen(type_key));
  /* A type only the process's other runtime knows: its mirror. */
  if (!info) info = xffi_type_provided_by_key(type_key, strlen(type_key));
  if (!info) return xffi_error_raise(XFFI_KIND_KEY, "%s: no type is registered with key '%s'", __func__, type_key);
  *out = info;
  return XFFI_OK;
}

int xffi_type_info_get(const xffi_type_info **out, int32_t type_index) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  const xffi_type_info *info = xffi_type_info_find(type_index);
  if (!info) return xffi_error_raise(XFFI_KIND_INDEX, "%s: no type has index %d", __func__, (int)type_index);
  *out = info;
  return XFFI_OK;
}

const xffi_type_info *xffi_type_info_find_slow_(int32_t type_index) { return xffi_type_info_find(type_index); }

#ifndef XFFI_NO_FOREIGN_RUNTIME
/* A type only the process's other runtime knows: its mirror, synced (info
 * the mirror, or NULL when none is made yet). Out of line, so that
 * xffi_type_info_find's own types path stays a leaf. */
#  if defined(__GNUC__)
__attribute__((noinline))
#  endif
static const xffi_type_info *
provided_info(const xffi_type_info *info, int32_t type_index) {
  return info ? xffi_type_live(info) : xffi_type_provided(type_index);
}
#endif

const xffi_type_info *xffi_type_info_find(int32_t type_index) {
#ifdef XFFI_NO_FOREIGN_RUNTIME /* the drop-in has no type provider */
  return info_at(type_index);
#else
  const xffi_type_info *info = info_at(type_index);
  if (XFFI_LIKELY(info && !((const xffi_type_entry *)info)->provided)) return info;
  return provided_info(info, type_index);
#endif
}

const char *xffi_type_key(int32_t type_index) {
  const xffi_type_info *info = xffi_type_info_find(type_index);
  return info ? info->type_key.data : "<unregistered type>";
}

int32_t xffi_type_count(void) { return __atomic_load_n(&type_count, __ATOMIC_ACQUIRE); }

int xffi_type_registered_here(int32_t type_index) {
  const xffi_type_entry *entry = xffi_type_entry_at(type_index);
#ifdef XFFI_NO_FOREIGN_RUNTIME
  return entry != NULL;
#else
  /* A mirror that this runtime registered since (its key is in the map) is its own too. */
  return entry && (!entry->provided || xffi_type_find_by_key(entry->stored.info.type_key.data,
                                                             entry->stored.info.type_key.size) == &entry->stored.info);
#endif
}

int xffi_object_is_a(int *out, const xffi_object *obj, int32_t type_index) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(obj);
  const xffi_type_info *mine = info_at(obj->type_index), *target = info_at(type_index);
  if (XFFI_LIKELY(is_object_type(mine) && is_object_type(target))) {
    /* The records in hand: the inline form's test, with no second lookup. */
    int32_t depth = target->type_depth;
    *out = obj->type_index == type_index ||
           (mine->type_depth > depth && ((const xffi_type_record_ *)mine)->ancestor_indices_[depth] == type_index);
    return XFFI_OK;
  }
#ifndef XFFI_NO_FOREIGN_RUNTIME
  /* An object, or a target, of a type only the process's other runtime
   * knows: mirrored here, then the same test. */
  if (!mine) mine = xffi_type_provided(obj->type_index);
  if (!target) target = xffi_type_provided(type_index);
  if (is_object_type(mine) && is_object_type(target)) {
    *out = xffi_object_is_a_unchecked(obj, type_index);
    return XFFI_OK;
  }
#endif
  if (!is_object_type(target))
    return xffi_error_raise(XFFI_KIND_INDEX, "%s: type_index %d is not a registered object type", __func__,
                            (int)type_index);
  return xffi_error_raise(XFFI_KIND_TYPE, "%s: obj has type index %d, which is not a registered object type", __func__,
                          (int)obj->type_index);
}
