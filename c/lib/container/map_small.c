/* c/lib/container/map_small.c: maps of at most 4 pairs (tvm-ffi's small layout): pairs in
 * insertion order, found by a linear scan with AnyEqual (map_small_search,
 * c/lib/container/map_table.h), never hashed. */
#include "runtime/check.h"
#include "lib/container/map_table.h"

int xffi_map_small_append(map_object *m, xffi_any *key, xffi_any *value) {
  uint64_t slots = map_small_slots(m);
  if (m->size == slots) {
    /* tvm-ffi's growth: 2 slots, then 4. The new array is xffi's own, freed
     * by xffi_map_free_storage, so the object itself never moves. */
    uint64_t grown = map_small_grown(slots);
    map_pair *pairs = xffi_alloc((size_t)grown * sizeof(map_pair));
    if (!pairs) return xffi_error_raise_out_of_memory();
    if (m->size) memcpy(pairs, m->data, (size_t)m->size * sizeof(map_pair));
    void *old = m->data;
    void (*old_deleter)(void *) = m->data_deleter;
    uint64_t size = m->size;
    /* The old storage no longer owns the pairs (moved by memcpy): a deleter
     * that drops another small map (a Dict switched in place by C++) finds
     * that map already emptied, so it releases nothing twice. */
    m->data = pairs;
    m->data_deleter = xffi_map_free_storage;
    m->slots = grown | MAP_SMALL_TAG;
    m->size = size;
    if (old_deleter) old_deleter(old);
  }
  map_pair *p = &map_small_pairs(m)[m->size];
  xffi_any_move(&p->key, key);
  xffi_any_move(&p->value, value);
  m->size += 1;
  return XFFI_OK;
}

void xffi_map_small_remove_at(map_object *m, uint64_t i, xffi_any *key_out, xffi_any *value_out) {
  map_pair *pairs = map_small_pairs(m);
  *key_out = pairs[i].key;
  *value_out = pairs[i].value;
  if (i + 1 < m->size) memmove(&pairs[i], &pairs[i + 1], (size_t)(m->size - i - 1) * sizeof(map_pair));
  m->size -= 1;
}
