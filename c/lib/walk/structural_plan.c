/* c/lib/walk/structural_plan.c: the per-type field plans of structural equality and
 * hashing (c/lib/walk/structural_plan.h), cached in a table keyed by type index. */
#include <stdatomic.h>
#include <stddef.h>

#include "platform/platform.h"
#include "lib/walk/structural_plan.h"
#include "lib/walk/structural_region.h"

/* The cache: a table of plans indexed by type index, read lock-free. It
 * grows under plan_lock by a copy; a replaced table stays reachable from
 * its successor, since readers may still hold it. */
typedef _Atomic(const xffi_field_plan *) plan_slot;
typedef struct plan_table {
  size_t capacity;
  const struct plan_table *previous;
  plan_slot slots[];
} plan_table;
static _Atomic(plan_table *) plans;
static xffi_mutex plan_lock = XFFI_MUTEX_INITIALIZER;

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
  static const int32_t kinds[] = {XFFI_PLAN_READ_ANY, XFFI_PLAN_READ_OBJECT, XFFI_PLAN_READ_INT, XFFI_PLAN_READ_FLOAT};
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
      plan->fields[count++] =
          (xffi_plan_field){field, field->offset, read_kind(field), xffi_structural_field_region(field)};
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

static const xffi_field_plan *cached_plan(int32_t type_index) {
  plan_table *t = atomic_load_explicit(&plans, memory_order_acquire);
  if (!t || (size_t)type_index >= t->capacity) return NULL;
  return atomic_load_explicit(&t->slots[type_index], memory_order_acquire);
}

/* Under plan_lock: publishes plan (immortal) for type_index, growing the
 * table to cover it. XFFI_FAIL (raised) when memory runs out. */
static int store_plan(int32_t type_index, const xffi_field_plan *plan) {
  plan_table *t = atomic_load_explicit(&plans, memory_order_relaxed);
  size_t need = (size_t)type_index + 1;
  if (!t || need > t->capacity) {
    size_t capacity = t ? t->capacity * 2 : 256;
    while (capacity < need) capacity *= 2; /* type indices are int32_t: no overflow */
    plan_table *grown = xffi_alloc_zeroed(1, offsetof(plan_table, slots) + capacity * sizeof(plan_slot));
    if (!grown) return xffi_error_raise_out_of_memory();
    grown->capacity = capacity;
    grown->previous = t;
    for (size_t i = 0; t && i < t->capacity; ++i)
      atomic_store_explicit(&grown->slots[i], atomic_load_explicit(&t->slots[i], memory_order_relaxed),
                            memory_order_relaxed);
    atomic_store_explicit(&plans, grown, memory_order_release);
    t = grown;
  }
  atomic_store_explicit(&t->slots[type_index], plan, memory_order_release);
  return XFFI_OK;
}

const xffi_field_plan *xffi_field_plan_of(const xffi_type_info *type) {
  const xffi_field_plan *cached = cached_plan(type->type_index);
  if (cached && cached->seen_fields == total_fields(type)) return cached;
  xffi_field_plan *made = build(type);
  if (!made) return NULL;
  xffi_mutex_lock(&plan_lock);
  const xffi_field_plan *current = cached_plan(type->type_index);
  if (current && current->seen_fields >= made->seen_fields) { /* another thread's is as new: fields only grow */
    xffi_mutex_unlock(&plan_lock);
    xffi_free(made);
    return current;
  }
  made->replaced = current;
  int status = store_plan(type->type_index, made);
  xffi_mutex_unlock(&plan_lock);
  if (status != XFFI_OK) {
    xffi_free(made);
    return NULL;
  }
  return made;
}
