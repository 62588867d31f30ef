/* c/runtime/name_table.c: names to pointers (c/runtime/name_table.h). */
#include "runtime/name_table.h"

#include <string.h>

#include "runtime/hash.h"
#include "runtime/internal.h"

static uint64_t name_hash(const char *name, size_t len) {
  xffi_hash_key_ensure();
  return xffi_keyed_hash_bytes(name, len);
}

/* The slot of name, or the empty slot where it would go (capacity > 0). */
static xffi_name_entry *slot_of(const xffi_name_table *table, const char *name, size_t len, uint64_t hash) {
  size_t mask = table->capacity - 1;
  for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
    xffi_name_entry *slot = &table->slots[i];
    if (!slot->name || (slot->hash == hash && slot->len == len && memcmp(slot->name, name, len) == 0)) return slot;
  }
}

void *xffi_name_table_find(const xffi_name_table *table, const char *name, size_t len) {
  if (!table->capacity) return NULL;
  xffi_name_entry *slot = slot_of(table, name, len, name_hash(name, len));
  return slot->name ? slot->value : NULL;
}

/* Room for one more name: 0 when out of memory. */
static int reserve(xffi_name_table *table) {
  if ((table->count + 1) * 2 <= table->capacity) return 1;
  if (table->capacity > SIZE_MAX / 4 / sizeof(xffi_name_entry)) return 0;
  size_t grown = table->capacity ? table->capacity * 2 : 16;
  xffi_name_entry *slots = xffi_alloc_zeroed(grown, sizeof(xffi_name_entry));
  if (!slots) return 0;
  xffi_name_table bigger = {slots, table->count, grown};
  for (size_t i = 0; i < table->capacity; ++i) {
    xffi_name_entry *old = &table->slots[i];
    if (old->name) *slot_of(&bigger, old->name, old->len, old->hash) = *old;
  }
  xffi_free(table->slots);
  *table = bigger;
  return 1;
}

int xffi_name_table_put(xffi_name_table *table, const char *name, size_t len, void *value, void **out_previous) {
  *out_previous = NULL;
  uint64_t hash = name_hash(name, len);
  if (table->capacity) {
    xffi_name_entry *slot = slot_of(table, name, len, hash);
    if (slot->name) {
      *out_previous = slot->value;
      slot->value = value;
      return 1;
    }
  }
  if (len == SIZE_MAX) return 0;
  char *copy = xffi_alloc(len + 1);
  if (!copy) return 0;
  if (!reserve(table)) {
    xffi_free(copy);
    return 0;
  }
  memcpy(copy, name, len);
  copy[len] = '\0';
  *slot_of(table, name, len, hash) = (xffi_name_entry){copy, len, hash, value};
  table->count++;
  return 1;
}

void xffi_name_table_clear(xffi_name_table *table, void (*release)(void *value)) {
  for (size_t i = 0; i < table->capacity; ++i) {
    xffi_name_entry *slot = &table->slots[i];
    if (!slot->name) continue;
    if (release) release(slot->value);
    xffi_free(slot->name);
  }
  xffi_free(table->slots);
  table->slots = NULL;
  table->count = table->capacity = 0;
}
