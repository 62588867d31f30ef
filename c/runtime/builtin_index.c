/* c/runtime/builtin_index.c: the name index over the runtime's static tables of
 * built-in ffi.* global functions (see c/runtime/builtin_index.h). */
#include <string.h>

#include "runtime/builtin_index.h"
#include "runtime/hash.h"
#include "platform/platform.h"
#include "runtime/seeds.h"

/* Slots of the index: a power of two, at least twice the number of built-in
 * globals so that probe runs stay short. Should the tables ever outgrow half
 * of it, searches fall back to scanning the tables (still correct). */
#define INDEX_SLOTS 512

typedef struct index_slot {
  uint64_t hash;
  const xffi_builtin_global *global; /* NULL: empty */
  size_t len;
} index_slot;

static index_slot slots[INDEX_SLOTS];
static size_t total;    /* built-in globals in all tables */
static int index_valid; /* whether slots holds every one of them */
static xffi_once index_once = XFFI_ONCE_INITIALIZER;

static void index_build(void) {
  xffi_hash_key_ensure();
  size_t count = 0;
  for (size_t t = 0; t < xffi_builtin_table_count; ++t) count += xffi_builtin_tables[t]->count;
  total = count;
  if (count > INDEX_SLOTS / 2) return; /* scan instead */
  for (size_t t = 0; t < xffi_builtin_table_count; ++t) {
    const xffi_builtin_table *table = xffi_builtin_tables[t];
    for (size_t i = 0; i < table->count; ++i) {
      const xffi_builtin_global *g = &table->entries[i];
      size_t len = strlen(g->name);
      uint64_t hash = xffi_keyed_hash_bytes(g->name, len);
      size_t s = (size_t)hash & (INDEX_SLOTS - 1);
      while (slots[s].global) s = (s + 1) & (INDEX_SLOTS - 1);
      slots[s] = (index_slot){hash, g, len};
    }
  }
  index_valid = 1;
}

static inline void index_ensure(void) { xffi_call_once(&index_once, index_build); }

const xffi_builtin_global *xffi_builtin_find(const char *name, size_t len, uint64_t hash) {
  index_ensure();
  if (XFFI_UNLIKELY(!index_valid)) {
    for (size_t i = 0; i < total; ++i) {
      const xffi_builtin_global *g = xffi_builtin_at(i);
      if (strlen(g->name) == len && memcmp(g->name, name, len) == 0) return g;
    }
    return NULL;
  }
  for (size_t s = (size_t)hash & (INDEX_SLOTS - 1);; s = (s + 1) & (INDEX_SLOTS - 1)) {
    const index_slot *slot = &slots[s];
    if (!slot->global) return NULL;
    if (slot->hash == hash && slot->len == len && memcmp(slot->global->name, name, len) == 0) return slot->global;
  }
}

size_t xffi_builtin_count(void) {
  index_ensure();
  return total;
}

const xffi_builtin_global *xffi_builtin_at(size_t i) {
  for (size_t t = 0; t < xffi_builtin_table_count; ++t) {
    const xffi_builtin_table *table = xffi_builtin_tables[t];
    if (i < table->count) return &table->entries[i];
    i -= table->count;
  }
  return NULL;
}
