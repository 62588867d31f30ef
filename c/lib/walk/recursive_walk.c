/* c/lib/walk/recursive_walk.c: frames, identity tables and field access shared by
 * the recursive operations (c/lib/walk/recursive_walk.h). */
#include <stdatomic.h>
#include <string.h>

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/string.h>

#include "runtime/check.h"
#include "lib/reflection/field_storage.h"
#include "lib/container/map_table.h" /* map_step: Maps walked without a checked call per entry */
#include "lib/walk/recursive_walk.h"
#include "runtime/type_internal.h"

/* ffi.Enum's record once the runtime registered it (registered once, never
 * changed: a plain cache is enough). */
static const xffi_type_info *_Atomic enum_type;

int xffi_walk_is_enum(const xffi_object *obj) {
  const xffi_type_info *type = atomic_load_explicit(&enum_type, memory_order_acquire);
  if (!type) {
    if (obj->type_index < XFFI_TYPE_DYNAMIC_BEGIN) return 0; /* no built-in type derives from it */
    type = xffi_type_find_by_key("ffi.Enum", 8);
    if (!type) return 0;
    atomic_store_explicit(&enum_type, type, memory_order_release);
  }
  return xffi_object_is_a_type_unchecked(obj, type);
}

const xffi_type_attr_column *xffi_walk_column(const char *name) {
  return xffi_type_attr_column_find(name, strlen(name));
}

const xffi_any *xffi_walk_type_attr(const xffi_type_attr_column *column, int32_t type_index) {
  if (!column) return NULL;
  /* Writers publish the data, then the size: a size read first covers the data read after. */
  int32_t size = __atomic_load_n(&column->size, __ATOMIC_ACQUIRE);
  const xffi_any *data = __atomic_load_n(&column->data, __ATOMIC_ACQUIRE);
  int64_t at = (int64_t)type_index - column->begin_index;
  /* None here: a type only the process's other runtime knows may have one there. */
  if (at < 0 || at >= size || !data) return xffi_type_attr_provided(column, type_index);
  const xffi_any *entry = &data[at];
  return __atomic_load_n(&entry->type_index, __ATOMIC_ACQUIRE) == XFFI_TYPE_NONE
             ? xffi_type_attr_provided(column, type_index)
             : entry;
}

/* ---- Callbacks ---- */

static void free_link(void *link) { xffi_free(link); }

int xffi_walk_callback_new(xffi_object **out, void ***link, xffi_function_callback call, void *walk) {
  void **slot = xffi_alloc(sizeof(void *));
  if (!slot) return xffi_error_raise_out_of_memory();
  *slot = walk;
  if (xffi_function_new(out, call, slot, free_link) != XFFI_OK) {
    xffi_free(slot);
    return XFFI_FAIL;
  }
  *link = slot;
  return XFFI_OK;
}

void *xffi_walk_callback_target(void *resource, const char *name) {
  void *walk = *(void **)resource;
  if (!walk) xffi_error_raise(XFFI_KIND_RUNTIME, "%s was called after the walk that made it ended", name);
  return walk;
}

void xffi_walk_callback_end(xffi_object *fn, void **link) {
  if (!fn) return;
  *link = NULL;
  xffi_object_dec_ref(fn);
}

/* ---- Identity tables ---- */

static size_t slot_of(const void *a, const void *b, size_t mask) {
  /* Addresses share their low (alignment) bits and often their high ones:
   * a multiply, then the high half folded down, spreads the middle bits. */
  uint64_t h =
      ((uint64_t)(uintptr_t)a ^ ((uint64_t)(uintptr_t)b * UINT64_C(0xc2b2ae3d27d4eb4f))) * UINT64_C(0x9e3779b97f4a7c15);
  return (size_t)(h >> 32 ^ h) & mask;
}

xffi_walk_entry *xffi_walk_table_find(const xffi_walk_table *t, const void *a, const void *b) {
  if (!t->capacity) return NULL;
  size_t mask = t->capacity - 1;
  for (size_t i = slot_of(a, b, mask);; i = (i + 1) & mask) {
    xffi_walk_entry *e = &t->entries[i];
    if (!e->a) return NULL;
    if (e->a == a && e->b == b) return e;
  }
}

static int grow(xffi_walk_table *t) {
  size_t capacity = t->capacity ? t->capacity * 2 : 64;
  if (capacity > SIZE_MAX / sizeof(xffi_walk_entry)) return xffi_error_raise_out_of_memory();
  xffi_walk_entry *entries = xffi_alloc_zeroed(capacity, sizeof(xffi_walk_entry));
  if (!entries) return xffi_error_raise_out_of_memory();
  size_t mask = capacity - 1;
  for (size_t j = 0; j < t->capacity; ++j) {
    xffi_walk_entry *e = &t->entries[j];
    if (!e->a) continue;
    size_t i = slot_of(e->a, e->b, mask);
    while (entries[i].a) i = (i + 1) & mask;
    entries[i] = *e;
  }
  xffi_free(t->entries);
  t->entries = entries;
  t->capacity = capacity;
  return XFFI_OK;
}

xffi_walk_entry *xffi_walk_table_put(xffi_walk_table *t, const void *a, const void *b) {
  xffi_walk_entry *found = xffi_walk_table_find(t, a, b);
  if (found) return found;
  /* At most half full: probes stay short. */
  if ((t->used + 1) * 2 > t->capacity && grow(t) != XFFI_OK) return NULL;
  size_t mask = t->capacity - 1;
  size_t i = slot_of(a, b, mask);
  while (t->entries[i].a) i = (i + 1) & mask;
  xffi_walk_entry *e = &t->entries[i];
  e->a = a;
  e->b = b;
  e->value = xffi_any_none();
  ++t->used;
  return e;
}

void xffi_walk_table_remove(xffi_walk_table *t, const void *a, const void *b) {
  xffi_walk_entry *e = xffi_walk_table_find(t, a, b);
  if (!e) return;
  xffi_any_release(&e->value);
  /* Backward shift: pull later entries of the probe run into the hole, so
   * that every entry stays reachable from its home slot. */
  size_t mask = t->capacity - 1, hole = (size_t)(e - t->entries);
  for (size_t j = (hole + 1) & mask; t->entries[j].a; j = (j + 1) & mask) {
    size_t home = slot_of(t->entries[j].a, t->entries[j].b, mask);
    /* Entry j may move to the hole unless its home lies after the hole, up to j (cyclically). */
    int home_between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (home_between) continue;
    t->entries[hole] = t->entries[j];
    hole = j;
  }
  memset(&t->entries[hole], 0, sizeof(xffi_walk_entry));
  --t->used;
}

void xffi_walk_table_free(xffi_walk_table *t) {
  for (size_t i = 0; i < t->capacity; ++i)
    if (t->entries[i].a) xffi_any_release(&t->entries[i].value);
  xffi_free(t->entries);
  t->entries = NULL;
  t->capacity = t->used = 0;
}

/* ---- Fields ---- */

const xffi_field_info *xffi_walk_next_field(const xffi_type_info *type, int32_t *level, int32_t *index,
                                            int64_t skip_flags) {
  /* Level d < depth is ancestor d (level 0, the root Object, has none); level depth is the type. */
  for (; *level <= type->type_depth; ++*level, *index = 0) {
    const xffi_type_info *owner = *level < type->type_depth ? type->type_ancestors[*level] : type;
    int32_t count = __atomic_load_n(&owner->num_fields, __ATOMIC_ACQUIRE);
    const xffi_field_info *fields = __atomic_load_n(&owner->fields, __ATOMIC_ACQUIRE);
    while (*index < count) {
      const xffi_field_info *field = &fields[(*index)++];
      if (!(field->flags & skip_flags)) return field;
    }
  }
  return NULL;
}

/* ---- Frames ---- */

/* Sets every member of f for value (an object, held as f->held already). */
static int start_frame(xffi_walk_frame *f, const xffi_any *value) {
  /* Member by member, not a memset: a frame per container is the walks' main cost. */
  f->child = xffi_any_none();
  f->child_owned = 0;
  f->type_index = value->type_index;
  f->position = f->map_cursor = 0;
  f->item.key = f->item.value = NULL;
  f->type = NULL;
  f->level = f->field_index = 0;
  f->field = NULL;
  xffi_object *obj = value->v_obj;
  switch (value->type_index) {
    case XFFI_TYPE_ARRAY:
    case XFFI_TYPE_LIST:
      f->kind = XFFI_WALK_SEQ;
      f->size = xffi_seq_size_unchecked(obj);
      return XFFI_OK;
    case XFFI_TYPE_MAP:
    case XFFI_TYPE_DICT:
      f->kind = XFFI_WALK_MAP;
      f->size = (int64_t)map_of(obj)->size;
      return XFFI_OK;
    default:
      f->kind = XFFI_WALK_OBJECT;
      f->type = xffi_object_type_info_unchecked(obj);
      f->level = 1;
      f->size = -1; /* not counted: every walk compares objects of one type, fields in step */
      return XFFI_OK;
  }
}

int xffi_walk_begin(xffi_walk_frame *f, const xffi_any *value, int64_t skip_flags) {
  (void)skip_flags; /* xffi_walk_next applies it */
  f->held = xffi_any_object_new_ref(value->v_obj);
  return start_frame(f, value);
}

int xffi_walk_next_entry_or_field(xffi_walk_frame *f, const xffi_any **child, int64_t skip_flags) {
  xffi_object *obj = f->held.v_obj;
  if (f->kind == XFFI_WALK_MAP) {
    if ((f->position & 1) == 0) {
      map_step(&f->item, map_of(obj), &f->map_cursor); /* the frame's own Map: checked at the start */
      if (!f->item.key) return 0;
      *child = f->item.key;
    } else {
      *child = f->item.value;
    }
    ++f->position;
    return 1;
  }
  if (f->child_owned) {
    xffi_any_release(&f->child);
    f->child_owned = 0;
  }
  f->field = xffi_walk_next_field(f->type, &f->level, &f->field_index, skip_flags);
  if (!f->field) return 0;
  ++f->position;
  if (xffi_field_read(&f->child, obj, f->field) != XFFI_OK) return -1;
  f->child_owned = 1;
  *child = &f->child;
  return 1;
}

void xffi_walk_end(xffi_walk_frame *f) {
  if (f->child_owned) xffi_any_release(&f->child);
  xffi_any_release(&f->held);
}

/* ---- Vectors ---- */

void *xffi_walk_vec_push_unset(xffi_walk_vec *v) {
  if (v->count == v->capacity) {
    size_t capacity = v->capacity ? v->capacity * 2 : 16;
    if (capacity > SIZE_MAX / v->item_size) {
      xffi_error_raise_out_of_memory();
      return NULL;
    }
    char *data = xffi_realloc(v->data, capacity * v->item_size);
    if (!data) {
      xffi_error_raise_out_of_memory();
      return NULL;
    }
    v->data = data;
    v->capacity = capacity;
  }
  return v->data + v->count++ * v->item_size;
}

void *xffi_walk_vec_push(xffi_walk_vec *v) {
  void *item = xffi_walk_vec_push_unset(v);
  if (item) memset(item, 0, v->item_size);
  return item;
}

void xffi_walk_vec_free(xffi_walk_vec *v) {
  xffi_free(v->data);
  v->data = NULL;
  v->count = v->capacity = 0;
}

int xffi_walk_raise_too_deep(const char *what) {
  return xffi_error_raise(XFFI_KIND_VALUE, "%s: maximum stack depth (%zu) exceeded", what, XFFI_WALK_MAX_DEPTH);
}
