/* c/lib/reflection/reflection_index.h: a per-type index of field names, so that a lookup
 * by name costs one hash probe instead of a scan of every field (a type
 * with 32 fields took ~1,300 instructions per get by name with a scan).
 *
 * Each type record has an index of its own fields (not its ancestors'),
 * rebuilt by the registry under its lock whenever fields are added and
 * published after them; readers use it lock-free. An old index is retired,
 * not freed, as the field arrays are. */
#ifndef XFFI_REFLECTION_INDEX_H
#define XFFI_REFLECTION_INDEX_H

#include <xffi/reflection.h>

#include "runtime/internal.h"

typedef struct xffi_field_index_slot {
  uint32_t hash;
  int32_t position_plus_one; /* 0: empty */
} xffi_field_index_slot;

typedef struct xffi_field_index {
  uint32_t mask; /* slots - 1; slots is a power of two, at least twice the fields */
  xffi_field_index_slot slots[];
} xffi_field_index;

/* The hash of a NUL-terminated name; *size receives its length. */
static inline uint32_t xffi_field_name_hash(const char *name, size_t *size) {
  uint32_t hash = 2166136261u; /* FNV-1a: short names, one pass that also measures */
  const char *p = name;
  for (; *p; ++p) hash = (hash ^ (unsigned char)*p) * 16777619u;
  *size = (size_t)(p - name);
  return hash;
}

/* The same hash of size bytes at data. */
static inline uint32_t xffi_field_name_hash_bytes(const char *data, size_t size) {
  uint32_t hash = 2166136261u;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ (unsigned char)data[i]) * 16777619u;
  return hash;
}

/* A new index (owned by the caller until published) of fields[0..count),
 * or NULL when out of memory (nothing raised). */
xffi_field_index *xffi_field_index_build(const xffi_field_info *fields, int32_t count) XFFI_INTERNAL;

/* The field called name (size bytes, hash from xffi_field_name_hash) among
 * fields indexed by index, or NULL. fields must be the level's array loaded
 * after index (it holds every position the index names). */
static inline const xffi_field_info *xffi_field_index_find(const xffi_field_index *index, const xffi_field_info *fields,
                                                           const char *name, size_t size, uint32_t hash) {
  for (uint32_t i = hash & index->mask;; i = (i + 1) & index->mask) {
    const xffi_field_index_slot *slot = &index->slots[i];
    if (!slot->position_plus_one) return NULL;
    if (slot->hash != hash) continue;
    const xffi_field_info *field = &fields[slot->position_plus_one - 1];
    if (field->name.size != size) continue;
    size_t k = 0;
    while (k < size && field->name.data[k] == name[k]) ++k;
    if (k == size) return field;
  }
}

#endif /* XFFI_REFLECTION_INDEX_H */
