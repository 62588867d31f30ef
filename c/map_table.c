/* c/map_table.c: the storage of Map and Dict (c/map_table.h): the index and
 * entry arrays, their growth, compaction and release, map objects and their
 * copies; the maps' argument checks and messages. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "map_table.h"

const uint32_t xffi_map_empty_index[3] = {MAP_SLOT_EMPTY, MAP_SLOT_END, 1};

uint64_t xffi_map_stored_key_hash(const xffi_any *key) {
  probe p;
  p.hash = 0;
  if (probe_init(&p, "", key) != XFFI_OK) return 0; /* never: stored keys are valid */
  return p.hash;
}

/* ---- The index: growth and removal ---- */

/* The slot count for an index rebuilt around `live` entries. */
static uint32_t slots_for(int64_t live) {
  uint64_t n = (uint64_t)live * 15 / 8 + 1;
  return n < 8 ? 8 : (uint32_t)n;
}

static uint32_t mask_for(uint32_t num_slots) {
  uint32_t mask = 1;
  while (mask < num_slots) mask = (mask << 1) | 1;
  return mask;
}

/* Drops the holes from the entry array (keeping the order) and rebuilds the
 * index into `slots` (num_slots of them, zeroed or to be zeroed here). Never
 * fails. The old slot array, if different, is freed. */
static void cell_rebuild_into(map_cell *c, uint32_t *slots, uint32_t num_slots) {
  if (c->holes) {
    int64_t w = 0;
    for (int64_t r = 0; r < c->used; ++r)
      if (c->entries[r].key.type_index != MAP_HOLE) c->entries[w++] = c->entries[r];
    c->used = w;
    c->holes = 0;
  }
  if (slots != c->slots) {
    if (cell_has_index(c)) xffi_free(c->slots);
    c->slots = slots;
  }
  memset(slots, 0, index_bytes(num_slots));
  slots[num_slots] = MAP_SLOT_END;
  slots[num_slots + 1] = num_slots;
  c->num_slots = num_slots;
  c->index_mask = mask_for(num_slots);
  for (int64_t e = 0; e < c->used; ++e) cell_index_put(c, xffi_map_stored_key_hash(&c->entries[e].key), e);
}

/* Grows the entry array to hold at least `need` entries. */
static int cell_reserve_entries(map_cell *c, int64_t need) {
  if (need <= c->capacity) return XFFI_OK;
  if (need > MAP_MAX_ENTRIES) return xffi_error_raise_out_of_memory();
  int64_t capacity = c->capacity + c->capacity / 4;
  if (capacity < c->capacity + 8) capacity = c->capacity + 8;
  if (capacity < need) capacity = need;
  if (capacity > MAP_MAX_ENTRIES) capacity = MAP_MAX_ENTRIES;
  map_entry *entries = xffi_realloc(c->entries, (size_t)capacity * sizeof(map_entry));
  if (!entries) return xffi_error_raise_out_of_memory();
  c->entries = entries;
  c->capacity = capacity;
  return XFFI_OK;
}

int xffi_map_cell_grow_for_one(map_cell *c) {
  if (!cell_has_index(c) || c->size + c->holes + 1 > max_load(c->num_slots)) {
    if (c->size + 1 > MAP_MAX_ENTRIES) return xffi_error_raise_out_of_memory();
    uint32_t n = slots_for(c->size + 1);
    uint32_t *slots = xffi_alloc(index_bytes(n));
    if (!slots) return xffi_error_raise_out_of_memory();
    cell_rebuild_into(c, slots, n);
  }
  return cell_reserve_entries(c, c->used + 1);
}

/* Removes the entry at slot i, moving its key and value out (owned). Compacts
 * when holes outnumber live entries (no allocation). */
void xffi_map_cell_remove_at(map_cell *c, uint32_t i, xffi_any *key_out, xffi_any *value_out) {
  int64_t e = (int64_t)(c->slots[i] & c->index_mask) - 1;
  map_entry *entry = &c->entries[e];
  *key_out = entry->key;
  *value_out = entry->value;
  entry->key = xffi_any_none();
  entry->key.type_index = MAP_HOLE;
  entry->value = xffi_any_none();
  c->slots[i] = c->index_mask;
  c->size -= 1;
  c->holes += 1;
  if (c->holes > c->size) {
    uint32_t n = c->num_slots;
    uint32_t *slots = c->slots;
    /* Shrink a mostly empty index when memory allows; never fail. */
    if (n > 64 && n / 4 > slots_for(c->size)) {
      uint32_t smaller = slots_for(c->size);
      uint32_t *fresh = xffi_alloc(index_bytes(smaller));
      if (fresh) {
        slots = fresh;
        n = smaller;
      }
    }
    cell_rebuild_into(c, slots, n);
    if (c->capacity > 64 && c->capacity / 4 > c->used) {
      int64_t capacity = c->used + c->used / 4 + 8;
      map_entry *entries = xffi_realloc(c->entries, (size_t)capacity * sizeof(map_entry));
      if (entries) {
        c->entries = entries;
        c->capacity = capacity;
      }
    }
  }
}

/* Releases every entry and frees the tables, leaving an empty cell. */
void xffi_map_cell_clear(map_cell *c) {
  map_entry *entries = c->entries;
  int64_t used = c->used;
  if (cell_has_index(c)) xffi_free(c->slots);
  cell_init(c);
  for (int64_t e = 0; e < used; ++e) {
    if (entries[e].key.type_index == MAP_HOLE) continue;
    xffi_any_release(&entries[e].key);
    xffi_any_release(&entries[e].value);
  }
  xffi_free(entries);
}

/* ---- Objects ---- */

static void map_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) {
    /* Parked while another release runs: a deep nesting uses bounded stack. */
    if (xffi_release_begin(self, flags, map_deleter)) return;
    xffi_map_cell_clear(cell_of((xffi_object *)self));
    xffi_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_free(self);
}

xffi_object *xffi_map_alloc(int32_t type_index) {
  xffi_hash_key_ensure(); /* before any hash is stored in a map */
  map_object *m = xffi_alloc(sizeof(map_object));
  if (!m) {
    xffi_error_raise_out_of_memory();
    return NULL;
  }
  xffi_object_init(&m->header, type_index, map_deleter);
  cell_init(&m->cell);
  return &m->header;
}

/* A new map of the given type holding src's entries (duplicated), with room
 * for `extra` more entries without allocating. NULL with MemoryError raised. */
xffi_object *xffi_map_clone(int32_t type_index, const map_cell *src, int64_t extra) {
  xffi_object *obj = xffi_map_alloc(type_index);
  if (!obj) return NULL;
  map_cell *c = cell_of(obj);
  int64_t need = src->size + extra;
  if (need > 0) {
    uint32_t n = slots_for(need);
    c->entries = xffi_alloc((size_t)need * sizeof(map_entry));
    c->slots = xffi_alloc_zeroed(1, index_bytes(n));
    if (!c->entries || !c->slots) {
      xffi_object_dec_ref_inline(obj);
      xffi_error_raise_out_of_memory();
      return NULL;
    }
    c->capacity = need;
    c->num_slots = n;
    c->slots[n] = MAP_SLOT_END;
    c->slots[n + 1] = n;
    c->index_mask = mask_for(n);
    for (int64_t r = 0; r < src->used; ++r) {
      const map_entry *entry = &src->entries[r];
      if (entry->key.type_index == MAP_HOLE) continue;
      int64_t e = c->used++;
      c->entries[e].key = entry->key;
      c->entries[e].value = entry->value;
      if (xffi_any_is_object(&entry->key)) xffi_object_inc_ref_inline(entry->key.v_obj);
      if (xffi_any_is_object(&entry->value)) xffi_object_inc_ref_inline(entry->value.v_obj);
      c->size += 1;
      cell_index_put(c, xffi_map_stored_key_hash(&entry->key), e);
    }
  }
  return obj;
}

/* ---- Argument checks and messages ---- */

int xffi_map_check_readable(const char *fn, const xffi_object *map) {
  if (XFFI_LIKELY(map && is_map_kind(map))) return XFFI_OK;
  const char *arg = strncmp(fn, "xffi_dict", 9) == 0 ? "dict" : "map";
  if (!map) return xffi_raise_null_arg(fn, arg);
  xffi_any view = xffi_any_object((xffi_object *)map);
  return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s expected ffi.Map or ffi.Dict, got %s", fn, arg, xffi_any_kind_name(&view));
}

int xffi_map_check_ref(const char *fn, xffi_object **map) {
  if (!map) return xffi_raise_null_arg(fn, "map");
  if (!*map) return xffi_raise_null_arg(fn, "*map");
  return xffi_check_object_arg(fn, "*map", *map, XFFI_TYPE_MAP);
}

/* A short printable form of a key for KeyError messages. */
static void describe_key(char *buf, size_t cap, const xffi_any *key) {
  probe p;
  memset(&p, 0, sizeof(p));
  switch (key->type_index) {
    case XFFI_TYPE_INT: snprintf(buf, cap, "%lld", (long long)key->v_int64); return;
    case XFFI_TYPE_BOOL: snprintf(buf, cap, "%s", key->v_int64 ? "true" : "false"); return;
    case XFFI_TYPE_FLOAT: snprintf(buf, cap, "%g", key->v_float64); return;
    case XFFI_TYPE_NONE: snprintf(buf, cap, "None"); return;
    default: break;
  }
  if (probe_init(&p, "", key) == XFFI_OK && p.kind == KEY_TEXT) {
    int shown = p.size > 40 ? 40 : (int)p.size;
    snprintf(buf, cap, "%s\"%.*s\"%s", p.small_type == XFFI_TYPE_SMALL_BYTES ? "b" : "", shown, p.data,
             p.size > 40 ? "..." : "");
    return;
  }
  snprintf(buf, cap, "(a %s)", xffi_any_kind_name(key));
}

/* Out of line and cold: its 96-byte buffer would otherwise give every caller
 * a stack frame. */
__attribute__((noinline, cold)) int xffi_map_raise_key_error(const char *fn, const xffi_any *key) {
  char text[96];
  describe_key(text, sizeof(text), key);
  return xffi_error_raise(XFFI_KIND_KEY, "%s: key %s is not in the map", fn, text);
}

/* ---- Shared bodies ---- */

int xffi_map_do_length(const char *fn, int64_t *out, const xffi_object *map) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  if (xffi_map_check_readable(fn, map) != XFFI_OK) return XFFI_FAIL;
  *out = cell_of(map)->size;
  return XFFI_OK;
}

int xffi_map_do_copy(const char *fn, int32_t type_index, xffi_object **out, const xffi_object *map) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  if (xffi_map_check_readable(fn, map) != XFFI_OK) return XFFI_FAIL;
  *out = xffi_map_clone(type_index, cell_of(map), 0);
  return *out ? XFFI_OK : XFFI_FAIL;
}
