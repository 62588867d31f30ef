/* c/structural_plan.c: the per-type field plans of structural equality and
 * hashing (c/structural_plan.h), cached in a table keyed by type index. */
#include <stdatomic.h>
#include <stddef.h>

#include "structural_plan.h"
#include "structural_region.h"

/* The cache: chunks of slots, made on first use, covering every
 * non-negative type index; an untouched chunk costs nothing. */
#define PLAN_CHUNK_BITS 16
#define PLAN_CHUNK_SLOTS ((size_t)1 << PLAN_CHUNK_BITS)
#define PLAN_CHUNKS ((size_t)1 << (31 - PLAN_CHUNK_BITS))
typedef _Atomic(const xffi_field_plan *) plan_slot;
static _Atomic(plan_slot *) plan_chunks[PLAN_CHUNKS];

/* The owner of level (1..depth: an ancestor, depth the type itself; the
 * root Object at level 0 has no fields). */
static const xffi_type_info *owner_at(const xffi_type_info *type, int32_t level) {
  return level < type->type_depth ? type->type_ancestors[level] : type;
}

static int32_t total_fields(const xffi_type_info *type) {
  int32_t total = 0;
  for (int32_t level = 1; level <= type->type_depth; ++level)
    total += __atomic_load_n(&owner_at(type, level)->num_fields, __ATOMIC_ACQUIRE);
  return total;
}

static int32_t read_kind(const xffi_field_info *field) {
  static const int32_t storage[] = {XFFI_TYPE_ANY, XFFI_TYPE_OBJECT, XFFI_TYPE_INT, XFFI_TYPE_FLOAT};
  static const int32_t kinds[] = {XFFI_PLAN_READ_ANY, XFFI_PLAN_READ_OBJECT, XFFI_PLAN_READ_INT,
                                  XFFI_PLAN_READ_FLOAT};
  for (size_t i = 0; i < sizeof(storage) / sizeof(storage[0]); ++i) {
    xffi_field_getter getter = NULL;
    if (xffi_field_getter_for_type(&getter, storage[i]) == XFFI_OK && getter == field->getter) return kinds[i];
  }
  return XFFI_PLAN_READ_GETTER;
}

/* A new plan of type (owned by the caller), or NULL (raised). */
static xffi_field_plan *build(const xffi_type_info *type) {
  int32_t capacity = 0;
  xffi_field_plan *plan = NULL;
  int32_t count = 0, seen = 0;
  for (int32_t level = 1; level <= type->type_depth; ++level) {
    const xffi_type_info *owner = owner_at(type, level);
    /* Writers publish the fields, then their number: one load of each per level. */
    int32_t num = __atomic_load_n(&owner->num_fields, __ATOMIC_ACQUIRE);
    const xffi_field_info *fields = __atomic_load_n(&owner->fields, __ATOMIC_ACQUIRE);
    seen += num;
    for (int32_t i = 0; i < num; ++i) {
      const xffi_field_info *field = &fields[i];
      if (field->flags & XFFI_FIELD_SEQ_HASH_IGNORE) continue;
      if (count == capacity) {
        capacity = capacity ? capacity * 2 : 8;
        xffi_field_plan *grown =
            xffi_realloc(plan, offsetof(xffi_field_plan, fields) + (size_t)capacity * sizeof(xffi_plan_field));
        if (!grown) {
          xffi_free(plan);
          xffi_error_raise_out_of_memory();
          return NULL;
        }
        plan = grown;
      }
      plan->fields[count++] = (xffi_plan_field){field, field->offset, read_kind(field),
                                                xffi_structural_field_region(field)};
    }
  }
  if (!plan && !(plan = xffi_alloc(offsetof(xffi_field_plan, fields)))) {
    xffi_error_raise_out_of_memory();
    return NULL;
  }
  plan->count = count;
  plan->seen_fields = seen;
  plan->replaced = NULL;
  return plan;
}

static plan_slot *slot_of(int32_t type_index) {
  size_t at = (size_t)type_index;
  _Atomic(plan_slot *) *chunk_ref = &plan_chunks[at >> PLAN_CHUNK_BITS];
  plan_slot *chunk = atomic_load_explicit(chunk_ref, memory_order_acquire);
  if (!chunk) {
    plan_slot *made = xffi_alloc_zeroed(PLAN_CHUNK_SLOTS, sizeof(plan_slot));
    if (!made) {
      xffi_error_raise_out_of_memory();
      return NULL;
    }
    if (atomic_compare_exchange_strong_explicit(chunk_ref, &chunk, made, memory_order_acq_rel,
                                                memory_order_acquire))
      chunk = made;
    else
      xffi_free(made); /* another thread made it first: chunk is theirs */
  }
  return &chunk[at & (PLAN_CHUNK_SLOTS - 1)];
}

const xffi_field_plan *xffi_field_plan_of(const xffi_type_info *type) {
  plan_slot *slot = slot_of(type->type_index);
  if (!slot) return NULL;
  const xffi_field_plan *cached = atomic_load_explicit(slot, memory_order_acquire);
  for (;;) {
    if (cached && cached->seen_fields == total_fields(type)) return cached;
    xffi_field_plan *made = build(type);
    if (!made) return NULL;
    made->replaced = cached;
    if (atomic_compare_exchange_strong_explicit(slot, &cached, made, memory_order_acq_rel, memory_order_acquire))
      return made;
    xffi_free(made); /* another thread published one: check that instead */
  }
}
