/* c/runtime/name_table.h: a map from names (byte strings) to pointers, for the
 * module side's tables (the system library's symbols, each module's
 * TVMFFIEnvModLookupFromImports cache). Open addressing with linear probing
 * over a power-of-two array at most half full, keyed with the process's
 * secret hash (c/runtime/hash.h), so n insertions cost O(n) whatever the names.
 * Names are copied; entries are never removed one by one. Not synchronised:
 * the owner locks. A zeroed table is empty and allocates nothing. */
#ifndef XFFI_NAME_TABLE_H
#define XFFI_NAME_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct xffi_name_entry {
  char *name; /* NULL: an empty slot */
  size_t len;
  uint64_t hash;
  void *value;
} xffi_name_entry;

typedef struct xffi_name_table {
  xffi_name_entry *slots;
  size_t count, capacity;
} xffi_name_table;

/* The value stored under name (len bytes, borrowed), or NULL. */
void *xffi_name_table_find(const xffi_name_table *table, const char *name, size_t len);

/* Stores value under name (copied) or, when name is present, replaces its
 * value and writes the old one to *out_previous (else NULL there). Returns 0
 * when out of memory, with nothing changed and nothing raised. */
int xffi_name_table_put(xffi_name_table *table, const char *name, size_t len, void *value, void **out_previous);

/* Frees the names and the slots; each value goes to release (NULL: kept)
 * first. The table is empty afterwards. */
void xffi_name_table_clear(xffi_name_table *table, void (*release)(void *value));

#endif /* XFFI_NAME_TABLE_H */
