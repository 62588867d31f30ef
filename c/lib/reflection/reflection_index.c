/* c/lib/reflection/reflection_index.c: building a type's field-name index (see
 * c/lib/reflection/reflection_index.h): open addressing, linear probing, at most half full
 * so every probe ends at an empty slot. */
#include "lib/reflection/reflection_index.h"

xffi_field_index *xffi_field_index_build(const xffi_field_info *fields, int32_t count) {
  if (count < 0 || count > (1 << 28)) return NULL;
  uint32_t slots = 4;
  while (slots < (uint32_t)count * 2u) slots *= 2;
  xffi_field_index *index = xffi_alloc_zeroed(1, sizeof(xffi_field_index) + slots * sizeof(xffi_field_index_slot));
  if (!index) return NULL;
  index->mask = slots - 1;
  for (int32_t position = 0; position < count; ++position) {
    uint32_t hash = xffi_field_name_hash_bytes(fields[position].name.data, fields[position].name.size);
    uint32_t i = hash & index->mask;
    while (index->slots[i].position_plus_one) i = (i + 1) & index->mask;
    index->slots[i].hash = hash;
    index->slots[i].position_plus_one = position + 1;
  }
  return index;
}
