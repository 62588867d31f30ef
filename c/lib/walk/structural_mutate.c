/* c/lib/walk/structural_mutate.c: xffi_structural_map and xffi_structural_mutate
 * (ffi.StructuralMap, ffi.StructuralMutate), tvm-ffi's structural mutator:
 * result(x) = post(D(pre(x))) for a map, callback(x) or D(x) for a mutate,
 * where D, the default descent, maps a container's or object's children
 * and rebuilds it only if one changed.
 *
 * D runs on a heap stack: a frame per container or object whose children
 * are being mapped, recording each changed child; when its children are
 * done the frame makes its result (copy-on-write, or the changes written
 * into the value itself when the walk owns its only reference) and gives it
 * to the frame below. "Unchanged" is tvm-ffi's marker value
 * (XFFI_TYPE_UNCHANGED), never handed out: the public results are values.
 * Free variables and DAG nodes go through the variable remap, so each is
 * mapped once by D and its result reused.
 *
 * An error names, in its ffi.VisitErrorContext (c/lib/walk/visit_error_context.c),
 * the levels tvm-ffi's mutator names: each value D ran on (a frame, or one
 * done at once), a value whose callback failed (the mutate callback and
 * the pre-order map callback on the value given, the post-order one on D's
 * result), innermost first. A mutate callback that failed after calling
 * default_mutate on its value names it twice, as tvm-ffi does. */
#include <string.h>

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/map.h>

#include "runtime/check.h"
#include "lib/reflection/field_storage.h"
#include "lib/walk/structural_visit_object.h"
#include "lib/walk/visit_error_context.h"

static const char mutator_key[] = "ffi.StructuralMutator";

typedef struct mutate_engine {
  const char *fn; /* the operation, for messages */
  int map;        /* 1: map (callbacks around D), 0: mutate (the callback owns the descent) */
  int32_t order;
  xffi_structural_map_callback map_callback;
  xffi_structural_mutate_callback mutate_callback;
  void *resource;
  xffi_object *mutator;  /* the link handed to callbacks and hooks (owned; made when first needed) */
  int32_t region;        /* the region of the value at hand */
  xffi_walk_table remap; /* var -> its result (owned; state 1: the entry holds a reference to var) */
  const xffi_type_attr_column *shallow_copy;
  const xffi_type_attr_column *mutate_hooks, *inplace_hooks; /* `__s_mutate__`, `__s_maybe_inplace_mutate__` */
} mutate_engine;

/* What turns D's result into the value's result. */
enum { AFTER_PLAIN, AFTER_MAP_PRE, AFTER_MAP_POST };

typedef struct child_change {
  int64_t position;
  const xffi_field_info *field; /* objects */
  xffi_any key;                 /* owned: maps, the key whose value changed */
  xffi_any value;               /* owned */
} child_change;

typedef struct mutate_frame {
  xffi_any held; /* owned: the value D runs on */
  int32_t kind;  /* XFFI_WALK_SEQ, _MAP or _OBJECT */
  int inplace;   /* the walk owns held's only reference: change it, not a copy */
  int32_t region, fields_region;
  int32_t remap_kind; /* XFFI_SEQ_HASH_FREE_VAR, _DAG_NODE, or 0 */
  int32_t after;
  xffi_any extra; /* owned: AFTER_MAP_PRE's callback result */
  int64_t position, map_cursor;
  int64_t entry_size; /* containers: the size when D started on it */
  const xffi_type_info *type;
  int32_t level, field_index;
  const xffi_field_info *field; /* the field of the child being mapped */
  xffi_any child;               /* owned: the child being mapped */
  xffi_any child_key;           /* owned: maps, the key of the child being mapped */
  xffi_walk_vec changes;        /* child_change */
} mutate_frame;

static xffi_any unchanged(void) {
  xffi_any v = xffi_any_none();
  v.type_index = XFFI_TYPE_UNCHANGED;
  return v;
}

static int is_unique(const xffi_any *v) {
  return xffi_any_is_object(v) && __atomic_load_n(XFFI_REF_COUNTS(v->v_obj), __ATOMIC_ACQUIRE) == XFFI_REF_INITIAL;
}

static void hold(xffi_any *out, const xffi_any *v) {
  *out = *v;
  if (xffi_any_is_object(out)) xffi_object_inc_ref(out->v_obj);
}

/* ---- The variable remap ---- */

static const xffi_any *remap_find(const mutate_engine *e, const xffi_object *var) {
  const xffi_walk_entry *found = xffi_walk_table_find(&e->remap, var, NULL);
  return found ? &found->value : NULL;
}

static int remap_set(mutate_engine *e, xffi_object *var, const xffi_any *mapped) {
  xffi_any copy;
  if (mapped->type_index == XFFI_TYPE_UNCHANGED)
    copy = *mapped;
  else if (xffi_any_copy(&copy, mapped) != XFFI_OK)
    return XFFI_FAIL;
  xffi_walk_entry *entry = xffi_walk_table_put(&e->remap, var, NULL);
  if (!entry) {
    xffi_any_release(&copy);
    return XFFI_FAIL;
  }
  if (!entry->state) {
    /* Keep var alive: its address is the key. */
    xffi_object_inc_ref(var);
    entry->state = 1;
  }
  xffi_any_release(&entry->value);
  entry->value = copy;
  return XFFI_OK;
}

static void remap_free(mutate_engine *e) {
  for (size_t i = 0; i < e->remap.capacity; ++i) {
    xffi_walk_entry *entry = &e->remap.entries[i];
    if (entry->a && entry->state) xffi_object_dec_ref((xffi_object *)(uintptr_t)entry->a);
  }
  xffi_walk_table_free(&e->remap);
}

/* ---- Callbacks ---- */

/* 1 with *r (owned) set by the map callback on value, 0 when it declined,
 * -1 raised. */
static int call_map(mutate_engine *e, const xffi_any *value, int32_t region, xffi_any *r) {
  *r = xffi_any_none();
  e->region = region;
  int status = e->map_callback(e->resource, value, region, r);
  if (status == XFFI_OK && r->type_index != XFFI_TYPE_UNCHANGED) return 1;
  xffi_any_release(r);
  if (status == XFFI_OK) *r = unchanged();
  return status == XFFI_STRUCTURAL_DECLINED ? 0 : status == XFFI_OK ? 1 : -1;
}

/* The value's result from D's result d (owned; consumed): *r owned. */
static int finish_after(mutate_engine *e, int32_t after, xffi_any *extra, const xffi_any *x, xffi_any *d,
                        int32_t region, xffi_any *r) {
  if (after == AFTER_MAP_PRE && d->type_index == XFFI_TYPE_UNCHANGED) {
    xffi_any_move(r, extra);
    return XFFI_OK;
  }
  if (after == AFTER_MAP_POST) {
    const xffi_any *view = d->type_index == XFFI_TYPE_UNCHANGED ? x : d;
    xffi_any mapped;
    int matched = call_map(e, view, region, &mapped);
    if (matched < 0) {
      xffi_visit_error_context_note(view);
      xffi_any_release(d);
      return XFFI_FAIL;
    }
    if (matched && mapped.type_index != XFFI_TYPE_UNCHANGED) {
      xffi_any_release(d);
      *r = mapped;
      return XFFI_OK;
    }
  }
  xffi_any_move(r, d);
  return XFFI_OK;
}

/* ---- Frames ---- */

static void free_frame(mutate_frame *f) {
  for (size_t i = 0; i < f->changes.count; ++i) {
    child_change *c = xffi_walk_vec_at(&f->changes, i);
    xffi_any_release(&c->key);
    xffi_any_release(&c->value);
  }
  xffi_walk_vec_free(&f->changes);
  xffi_any_release(&f->child);
  xffi_any_release(&f->child_key);
  xffi_any_release(&f->extra);
  xffi_any_release(&f->held);
}

/* ---- Native hooks: the mutator in tvm-ffi's StructuralMutatorObj layout ---- */

typedef xffi_any (*native_mutate_fn)(structural_engine_link *mutator, xffi_any value);
typedef xffi_any (*native_remap_set_fn)(structural_engine_link *mutator, xffi_any var, xffi_any mapped);

/* tvm-ffi's table of a mutator's functions, each returning an owned value
 * or an Error (values borrowed). */
typedef struct native_mutator_table {
  native_mutate_fn mutate, maybe_inplace_mutate, var_remap_get;
  native_remap_set_fn var_remap_set;
} native_mutator_table;

/* status's outcome as a native function returns it: out, or the raised Error. */
static xffi_any native_result(int status, xffi_any out) {
  if (status == XFFI_OK) return out;
  xffi_object *err = xffi_error_move_raised();
  if (err) {
    out.type_index = XFFI_TYPE_ERROR;
    out.v_obj = err;
  }
  return out;
}

/* Mutates value in the region the mutator holds (a hook may have changed
 * it); the copying mutation serves both entries of the table. */
static xffi_any native_mutate(structural_engine_link *mutator, xffi_any value) {
  mutate_engine *e = mutator->engine;
  if (e) e->region = mutator->def_region_kind;
  xffi_any out = xffi_any_none();
  return native_result(xffi_structural_mutator_mutate(&out, &mutator->header, &value), out);
}

static xffi_any native_remap_get(structural_engine_link *mutator, xffi_any var) {
  xffi_any out = xffi_any_none();
  return native_result(xffi_structural_mutator_var_remap_get(&out, &mutator->header, &var), out);
}

static xffi_any native_remap_set(structural_engine_link *mutator, xffi_any var, xffi_any mapped) {
  return native_result(xffi_structural_mutator_var_remap_set(&mutator->header, &var, &mapped), xffi_any_none());
}

static const native_mutator_table mutator_table = {native_mutate, native_mutate, native_remap_get, native_remap_set};

/* Makes the engine's mutator (the link handed to callbacks and hooks). */
static int mutator_new(mutate_engine *e) {
  if (xffi_structural_link_new(&e->mutator, mutator_key, e) != XFFI_OK) return XFFI_FAIL;
  ((structural_engine_link *)(void *)e->mutator)->table = &mutator_table;
  return XFFI_OK;
}

/* Calls a type's native `__s_mutate__` hook on x (borrowed) in region: 1
 * with *d (owned: a replacement, the marker, or x again), -1 raised. */
static int call_native_hook(mutate_engine *e, const xffi_any *hook, const xffi_any *x, int32_t region, xffi_any *d) {
  if (!e->mutator && mutator_new(e) != XFFI_OK) return -1;
  structural_engine_link *mutator = (structural_engine_link *)(void *)e->mutator;
  native_mutate_fn call;
  _Static_assert(sizeof(call) == sizeof(hook->v_ptr), "a function pointer fits an OpaquePtr");
  memcpy(&call, &hook->v_ptr, sizeof(call));
  mutator->def_region_kind = e->region = region;
  *d = call(mutator, *x);
  if (d->type_index != XFFI_TYPE_ERROR) return 1;
  xffi_error_set_raised(d->v_obj);
  *d = xffi_any_none();
  return -1;
}

/* D of a reflected object through its type's hook, if it has one: 1 with
 * *d (owned; the marker when the hook gave x back), 0 when it has none, -1
 * raised. In place, `__s_maybe_inplace_mutate__` first. */
static int call_hook(mutate_engine *e, const xffi_any *x, int inplace, int32_t region, xffi_any *d) {
  if (x->type_index < XFFI_WALK_STATIC_OBJECT_END) return 0;
  const xffi_any *hook = inplace ? xffi_walk_type_attr(e->inplace_hooks, x->type_index) : NULL;
  if (!hook || hook->type_index != XFFI_TYPE_FUNCTION) hook = xffi_walk_type_attr(e->mutate_hooks, x->type_index);
  if (!hook) return 0;
  if (hook->type_index == XFFI_TYPE_OPAQUE_PTR && hook->v_ptr) {
    if (call_native_hook(e, hook, x, region, d) != 1) return -1;
  } else if (hook->type_index != XFFI_TYPE_FUNCTION) {
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: __s_mutate__ of %s must be an ffi.Function, got %s", e->fn,
                            xffi_type_key(x->type_index), xffi_any_kind_name(hook)),
           -1;
  } else {
    if (!e->mutator && mutator_new(e) != XFFI_OK) return -1;
    xffi_any args[2] = {xffi_any_object(e->mutator), *x};
    e->region = region;
    if (xffi_function_call(hook->v_obj, args, 2, d) != XFFI_OK) return -1;
  }
  if (xffi_structural_same(d, x)) {
    xffi_any_release(d);
    *d = unchanged();
  }
  return 1;
}

/* D of x (borrowed) in region: 1 with *r (owned) when done at once, 0 with a
 * frame pushed (the frame owns extra then), -1 raised. extra (owned) is
 * consumed either way. */
static int descend(mutate_engine *e, xffi_walk_vec *stack, const xffi_any *x, int inplace, int32_t region,
                   int32_t after, xffi_any *extra, xffi_any *r) {
  xffi_any d = unchanged();
  int32_t t = x->type_index, kind = XFFI_WALK_OBJECT, remap_kind = 0;
  int leaf = !xffi_any_is_object(x) || t == XFFI_TYPE_STRING || t == XFFI_TYPE_BYTES || t == XFFI_TYPE_BIGINT;
  if (!leaf && (t == XFFI_TYPE_ARRAY || t == XFFI_TYPE_LIST)) kind = XFFI_WALK_SEQ;
  if (!leaf && (t == XFFI_TYPE_MAP || t == XFFI_TYPE_DICT)) kind = XFFI_WALK_MAP;
  if (!leaf && kind == XFFI_WALK_OBJECT) {
    int hooked = call_hook(e, x, inplace, region, &d);
    if (hooked < 0) {
      xffi_visit_error_context_note(x);
      xffi_any_release(extra);
      return -1;
    }
    leaf = hooked;
  }
  if (!leaf && kind == XFFI_WALK_OBJECT) {
    const xffi_type_metadata *metadata = xffi_object_type_info_unchecked(x->v_obj)->metadata;
    int32_t seq_kind = metadata ? metadata->structural_eq_hash_kind : XFFI_SEQ_HASH_UNSUPPORTED;
    if (seq_kind == XFFI_SEQ_HASH_FREE_VAR || seq_kind == XFFI_SEQ_HASH_DAG_NODE) {
      remap_kind = seq_kind;
      const xffi_any *mapped = remap_find(e, x->v_obj);
      if (mapped) {
        leaf = 1;
        if (mapped->type_index != XFFI_TYPE_UNCHANGED && xffi_any_copy(&d, mapped) != XFFI_OK) {
          xffi_visit_error_context_note(x);
          xffi_any_release(extra);
          return -1;
        }
      } else if (seq_kind == XFFI_SEQ_HASH_FREE_VAR && region == XFFI_DEF_REGION_NONE) {
        leaf = 1; /* a use of a variable, not its definition */
      }
    }
  }
  if (leaf) {
    int status = finish_after(e, after, extra, x, &d, region, r);
    xffi_any_release(extra);
    return status == XFFI_OK ? 1 : -1;
  }
  mutate_frame *f = stack->count < XFFI_WALK_MAX_DEPTH ? xffi_walk_vec_push(stack) : NULL;
  if (!f) {
    if (stack->count >= XFFI_WALK_MAX_DEPTH) xffi_walk_raise_too_deep(e->fn);
    xffi_visit_error_context_note(x);
    xffi_any_release(extra);
    return -1;
  }
  hold(&f->held, x);
  f->kind = kind;
  f->inplace = inplace && kind != XFFI_WALK_OBJECT;
  f->region = region;
  f->fields_region = xffi_structural_fields_region(x->v_obj, region);
  f->remap_kind = remap_kind;
  f->after = after;
  xffi_any_move(&f->extra, extra);
  f->child = xffi_any_none();
  f->child_key = xffi_any_none();
  f->changes.item_size = sizeof(child_change);
  if (kind == XFFI_WALK_SEQ) f->entry_size = xffi_seq_size_unchecked(x->v_obj);
  if (kind == XFFI_WALK_MAP && xffi_map_length(&f->entry_size, x->v_obj) != XFFI_OK) {
    xffi_visit_error_context_note(x);
    free_frame(f);
    --stack->count;
    return -1;
  }
  if (kind == XFFI_WALK_OBJECT) {
    f->type = xffi_object_type_info_unchecked(x->v_obj);
    f->level = 1;
  }
  return 0;
}

/* Meets value (borrowed; allow: it may change in place) in region: 1 with
 * *r (owned) when done at once, 0 with a frame pushed, -1 raised. */
static int enter(mutate_engine *e, xffi_walk_vec *stack, const xffi_any *value, int allow, int32_t region,
                 xffi_any *r) {
  xffi_any extra = xffi_any_none();
  *r = xffi_any_none();
  if (!e->map) {
    e->region = region;
    int status = e->mutate_callback(e->resource, e->mutator, value,
                                    allow ? XFFI_STRUCTURAL_INPLACE_ALLOW : XFFI_STRUCTURAL_INPLACE_DISALLOW, r);
    if (status == XFFI_OK) return 1;
    xffi_any_release(r);
    if (status != XFFI_STRUCTURAL_DECLINED) {
      xffi_visit_error_context_note(value);
      return -1;
    }
    return descend(e, stack, value, allow, region, AFTER_PLAIN, &extra, r);
  }
  if (e->order == XFFI_STRUCTURAL_POSTORDER) return descend(e, stack, value, allow, region, AFTER_MAP_POST, &extra, r);
  int matched = call_map(e, value, region, &extra);
  if (matched < 0) {
    xffi_visit_error_context_note(value);
    return -1;
  }
  if (!matched || extra.type_index == XFFI_TYPE_UNCHANGED || xffi_structural_same(&extra, value)) {
    xffi_any_release(&extra);
    return descend(e, stack, value, allow, region, AFTER_PLAIN, &extra, r);
  }
  /* The replacement is descended; the walk owns it alone if nobody else took it. */
  xffi_any descent = extra;
  return descend(e, stack, &descent, is_unique(&extra), region, AFTER_MAP_PRE, &extra, r);
}

/* The frame's next child into f->child (owned) with its region and whether
 * it may change in place: 1, 0 at the end, -1 raised. */
static int next_child(mutate_frame *f, int *allow, int32_t *region) {
  xffi_any_release(&f->child);
  *allow = 0;
  *region = f->region;
  xffi_object *obj = f->held.v_obj;
  if (f->kind == XFFI_WALK_SEQ) {
    if (f->position >= xffi_seq_size_unchecked(obj)) return 0;
    const xffi_any *item = &xffi_seq_items_unchecked(obj)[f->position];
    *allow = f->inplace && is_unique(item);
    hold(&f->child, item);
    return 1;
  }
  if (f->kind == XFFI_WALK_MAP) {
    xffi_map_item item;
    if (xffi_map_next(&item, obj, &f->map_cursor) != XFFI_OK) return -1;
    if (!item.key) return 0;
    *allow = f->inplace && is_unique(item.value);
    xffi_any_release(&f->child_key);
    hold(&f->child_key, item.key);
    hold(&f->child, item.value);
    return 1;
  }
  f->field = xffi_walk_next_field(f->type, &f->level, &f->field_index, XFFI_FIELD_SEQ_HASH_IGNORE);
  if (!f->field) return 0;
  if (xffi_field_read(&f->child, obj, f->field) != XFFI_OK) return -1;
  *region = f->fields_region;
  if (f->field->flags & XFFI_FIELD_SEQ_HASH_DEF_SIMPLE)
    *region = xffi_structural_scoped_region(*region, XFFI_DEF_REGION_SIMPLE);
  else if (f->field->flags & XFFI_FIELD_SEQ_HASH_DEF_PATTERN)
    *region = xffi_structural_scoped_region(*region, XFFI_DEF_REGION_PATTERN);
  return 1;
}

/* Gives the frame its current child's result r (owned; consumed). */
static int feed(mutate_frame *f, xffi_any *r) {
  if (r->type_index == XFFI_TYPE_UNCHANGED || xffi_structural_same(r, &f->child)) {
    xffi_any_release(r);
  } else {
    child_change *c = xffi_walk_vec_push(&f->changes);
    if (!c) {
      xffi_any_release(r);
      return XFFI_FAIL;
    }
    c->position = f->position;
    c->field = f->field;
    c->key = xffi_any_none();
    if (f->kind == XFFI_WALK_MAP) xffi_any_move(&c->key, &f->child_key);
    xffi_any_move(&c->value, r);
  }
  ++f->position;
  return XFFI_OK;
}

/* Refuses a List or Dict that a callback resized or rekeyed while its
 * children were mapped: the changes are recorded by position (memory-safe
 * either way; this keeps the result defined). Items written in place are
 * fine: each child is read when D reaches it. */
static int check_container_kept(const mutate_engine *e, mutate_frame *f) {
  if (f->kind == XFFI_WALK_OBJECT) return XFFI_OK;
  xffi_object *obj = f->held.v_obj;
  const char *what = xffi_type_key(f->held.type_index);
  int64_t size = 0;
  if (f->kind == XFFI_WALK_SEQ)
    size = xffi_seq_size_unchecked(obj);
  else if (xffi_map_length(&size, obj) != XFFI_OK)
    return XFFI_FAIL;
  /* Children are read as reached: a size changed and changed back shows in how many were. */
  if (size != f->entry_size || f->position != f->entry_size)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "%s: a callback changed the size of the %s being mapped from %lld to %lld items; "
                            "a container must keep its size and keys while its children are mapped",
                            e->fn, what, (long long)f->entry_size,
                            (long long)(size != f->entry_size ? size : f->position));
  if (f->kind == XFFI_WALK_SEQ || f->changes.count == 0) return XFFI_OK;
  const child_change *changes = (const child_change *)(const void *)f->changes.data;
  int64_t cursor = 0, position = 0;
  size_t next = 0;
  xffi_map_item item;
  while (next < f->changes.count && xffi_map_next(&item, obj, &cursor) == XFFI_OK && item.key) {
    if (position++ != changes[next].position) continue;
    if (!xffi_structural_same(item.key, &changes[next].key)) break;
    ++next;
  }
  if (next < f->changes.count)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "%s: a callback changed the keys of the %s being mapped; a container must keep its "
                            "size and keys while its children are mapped",
                            e->fn, what);
  return XFFI_OK;
}

/* Moves the changes into target's slots (target unique to the walk). */
static int apply_to_container(mutate_frame *f, xffi_object *target) {
  child_change *changes = (child_change *)(void *)f->changes.data;
  if (f->kind == XFFI_WALK_SEQ) {
    xffi_any *items = (xffi_any *)(uintptr_t)xffi_seq_items_unchecked(target);
    for (size_t i = 0; i < f->changes.count; ++i) {
      xffi_any_release(&items[changes[i].position]);
      xffi_any_move(&items[changes[i].position], &changes[i].value);
    }
    return XFFI_OK;
  }
  int64_t cursor = 0, position = 0;
  size_t next = 0;
  xffi_map_item item;
  while (next < f->changes.count && xffi_map_next(&item, target, &cursor) == XFFI_OK && item.key) {
    if (position++ != changes[next].position) continue;
    xffi_any *slot = (xffi_any *)(uintptr_t)item.value;
    xffi_any_release(slot);
    xffi_any_move(slot, &changes[next++].value);
  }
  return XFFI_OK;
}

/* The copy an object's changed fields go into (*out, owned). */
static int copy_object(mutate_engine *e, mutate_frame *f, xffi_any *out) {
  xffi_byte_array key = f->type->type_key;
  const xffi_any *hook = xffi_walk_type_attr(e->shallow_copy, f->held.type_index);
  if (!hook || hook->type_index != XFFI_TYPE_FUNCTION)
    return xffi_error_raise(XFFI_KIND_TYPE,
                            "%s: cannot change a field of an object of type `%.*s`: its __ffi_shallow_copy__ is not "
                            "an ffi.Function",
                            e->fn, (int)key.size, key.data);
  if (xffi_function_call(hook->v_obj, &f->held, 1, out) != XFFI_OK) return XFFI_FAIL;
  if (out->type_index != f->held.type_index || out->v_obj == f->held.v_obj) {
    xffi_any_release(out);
    return xffi_error_raise(XFFI_KIND_TYPE,
                            "%s: the __ffi_shallow_copy__ of `%.*s` must return a distinct object of the same type",
                            e->fn, (int)key.size, key.data);
  }
  return XFFI_OK;
}

/* D's result for a frame whose children are done: *d owned. */
static int rebuild(mutate_engine *e, mutate_frame *f, xffi_any *d) {
  *d = unchanged();
  if (check_container_kept(e, f) != XFFI_OK) return XFFI_FAIL;
  if (f->changes.count == 0) return XFFI_OK;
  if (f->inplace) return apply_to_container(f, f->held.v_obj);
  xffi_object *obj = f->held.v_obj, *copy = NULL;
  int status = XFFI_OK;
  switch (f->held.type_index) {
    case XFFI_TYPE_ARRAY:
      status = xffi_array_new(&copy, xffi_seq_items_unchecked(obj), xffi_seq_size_unchecked(obj));
      break;
    case XFFI_TYPE_LIST:
      status = xffi_list_new(&copy, xffi_seq_items_unchecked(obj), xffi_seq_size_unchecked(obj));
      break;
    case XFFI_TYPE_MAP: status = xffi_map_copy(&copy, obj); break;
    case XFFI_TYPE_DICT: status = xffi_dict_copy(&copy, obj); break;
    default: {
      xffi_any made;
      if (copy_object(e, f, &made) != XFFI_OK) return XFFI_FAIL;
      child_change *changes = (child_change *)(void *)f->changes.data;
      for (size_t i = 0; i < f->changes.count; ++i) {
        if (xffi_field_assign(made.v_obj, changes[i].field, &changes[i].value) != XFFI_OK) {
          xffi_any_release(&made);
          return XFFI_FAIL;
        }
      }
      *d = made;
      return XFFI_OK;
    }
  }
  if (status != XFFI_OK) return XFFI_FAIL;
  apply_to_container(f, copy);
  *d = xffi_any_object(copy);
  return XFFI_OK;
}

/* The result of the top frame, whose children are done: *r owned. */
static int complete(mutate_engine *e, mutate_frame *f, xffi_any *r) {
  xffi_any d;
  if (rebuild(e, f, &d) != XFFI_OK) {
    xffi_visit_error_context_note(&f->held);
    return XFFI_FAIL;
  }
  if (f->remap_kind &&
      (f->remap_kind == XFFI_SEQ_HASH_DAG_NODE || f->region == XFFI_DEF_REGION_PATTERN ||
       d.type_index != XFFI_TYPE_UNCHANGED) &&
      remap_set(e, f->held.v_obj, &d) != XFFI_OK) {
    xffi_visit_error_context_note(&f->held);
    xffi_any_release(&d);
    return XFFI_FAIL;
  }
  return finish_after(e, f->after, &f->extra, &f->held, &d, f->region, r);
}

/* Maps value (borrowed) in region: *out receives its result (owned; the
 * marker when unchanged). default_only: D alone, no callback for value. */
static int run(mutate_engine *e, const xffi_any *value, int allow, int32_t region, int default_only, xffi_any *out) {
  *out = xffi_any_none();
  int32_t entry_region = e->region;
  xffi_walk_vec stack = {NULL, 0, 0, sizeof(mutate_frame)};
  xffi_any r, none = xffi_any_none();
  int done = default_only ? descend(e, &stack, value, allow, region, AFTER_PLAIN, &none, &r)
                          : enter(e, &stack, value, allow, region, &r);
  while (done >= 0 && stack.count > 0) {
    mutate_frame *f = xffi_walk_vec_top(&stack);
    if (done == 1) {
      /* r is the result of f's current child. */
      if (feed(f, &r) != XFFI_OK) {
        done = -1;
        break;
      }
    }
    int child_allow;
    int32_t child_region;
    int more = next_child(f, &child_allow, &child_region);
    if (more < 0) {
      done = -1;
      break;
    }
    if (more == 0) {
      int status = complete(e, f, &r);
      free_frame(f);
      --stack.count;
      done = status == XFFI_OK ? 1 : -1;
      if (done == 1 && stack.count == 0) break;
      continue;
    }
    /* f->child stays owned by f while the child's frame (if any) runs. */
    xffi_any child;
    hold(&child, &f->child);
    done = enter(e, &stack, &child, child_allow, child_region, &r);
    xffi_any_release(&child);
  }
  /* An error names each value D was running on, innermost first. */
  for (size_t i = stack.count; done < 0 && i-- > 0;)
    xffi_visit_error_context_note(&((mutate_frame *)xffi_walk_vec_at(&stack, i))->held);
  for (size_t i = 0; i < stack.count; ++i) free_frame(xffi_walk_vec_at(&stack, i));
  xffi_walk_vec_free(&stack);
  e->region = entry_region;
  if (done < 0) return XFFI_FAIL;
  *out = r;
  return XFFI_OK;
}

/* Runs the engine on *root (stolen) into *out. */
static int run_root(mutate_engine *e, xffi_any *out, xffi_any *root) {
  xffi_any owned = *root, r;
  *root = xffi_any_none();
  e->shallow_copy = xffi_walk_column("__ffi_shallow_copy__");
  e->mutate_hooks = xffi_walk_column("__s_mutate__");
  e->inplace_hooks = xffi_walk_column("__s_maybe_inplace_mutate__");
  int status = run(e, &owned, is_unique(&owned), XFFI_DEF_REGION_NONE, 0, &r);
  remap_free(e);
  if (e->mutator) {
    ((structural_engine_link *)(void *)e->mutator)->engine = NULL;
    xffi_object_dec_ref(e->mutator);
  }
  if (status != XFFI_OK) {
    xffi_any_release(&owned);
    return XFFI_FAIL;
  }
  if (r.type_index == XFFI_TYPE_UNCHANGED) {
    *out = owned;
  } else {
    *out = r;
    xffi_any_release(&owned);
  }
  return XFFI_OK;
}

/* Releases a root taken over by a call that failed; returns status. */
static int refuse_root(xffi_any *root, int status) {
  xffi_any_release(root);
  return status;
}

int xffi_structural_map(xffi_any *out, xffi_any *root, int32_t order, xffi_structural_map_callback callback,
                        void *resource) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  XFFI_CHECK_ARG_NOT_NULL(root);
  /* The root is taken over on every path, failures included. */
  if (!callback) return refuse_root(root, xffi_error_raise(XFFI_KIND_VALUE, "%s: callback is NULL", __func__));
  if (order != XFFI_STRUCTURAL_PREORDER && order != XFFI_STRUCTURAL_POSTORDER)
    return refuse_root(
        root, xffi_error_raise(XFFI_KIND_VALUE, "%s: order must be 0 (pre-order) or 1 (post-order), got %d", __func__,
                               (int)order));
  mutate_engine e = {"StructuralMap", 1,    order, callback, NULL, resource, NULL, XFFI_DEF_REGION_NONE,
                     {NULL, 0, 0},    NULL, NULL,  NULL};
  return run_root(&e, out, root);
}

int xffi_structural_mutate(xffi_any *out, xffi_any *root, xffi_structural_mutate_callback callback, void *resource) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  XFFI_CHECK_ARG_NOT_NULL(root);
  if (!callback) return refuse_root(root, xffi_error_raise(XFFI_KIND_VALUE, "%s: callback is NULL", __func__));
  mutate_engine e = {"StructuralMutate", 0,    0,    NULL, callback, resource, NULL, XFFI_DEF_REGION_NONE,
                     {NULL, 0, 0},       NULL, NULL, NULL};
  if (mutator_new(&e) != XFFI_OK) return refuse_root(root, XFFI_FAIL);
  return run_root(&e, out, root);
}

/* ---- From inside a callback ---- */

static int mutator_run(xffi_any *out, xffi_object *mutator, const xffi_any *value, int default_only, const char *fn) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  XFFI_CHECK_ARG_NOT_NULL(value);
  mutate_engine *e = xffi_structural_link_engine(mutator, mutator_key, fn);
  if (!e) return XFFI_FAIL;
  xffi_any r;
  if (run(e, value, 0, e->region, default_only, &r) != XFFI_OK) return XFFI_FAIL;
  if (r.type_index == XFFI_TYPE_UNCHANGED) return xffi_any_copy(out, value);
  *out = r;
  return XFFI_OK;
}

int xffi_structural_mutator_mutate(xffi_any *out, xffi_object *mutator, const xffi_any *value) {
  return mutator_run(out, mutator, value, 0, __func__);
}

int xffi_structural_mutator_default_mutate(xffi_any *out, xffi_object *mutator, const xffi_any *value) {
  return mutator_run(out, mutator, value, 1, __func__);
}

int xffi_structural_mutator_var_remap_get(xffi_any *out, xffi_object *mutator, const xffi_any *var) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  XFFI_CHECK_ARG_NOT_NULL(var);
  mutate_engine *e = xffi_structural_link_engine(mutator, mutator_key, __func__);
  if (!e) return XFFI_FAIL;
  if (!xffi_any_is_object(var))
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: var must be an object, got %s", __func__, xffi_any_kind_name(var));
  const xffi_any *mapped = remap_find(e, var->v_obj);
  if (!mapped) return XFFI_OK;
  /* A variable recorded as unchanged maps to itself. */
  return xffi_any_copy(out, mapped->type_index == XFFI_TYPE_UNCHANGED ? var : mapped);
}

int xffi_structural_mutator_var_remap_set(xffi_object *mutator, const xffi_any *var, const xffi_any *mapped) {
  XFFI_CHECK_ARG_NOT_NULL(var);
  XFFI_CHECK_ARG_NOT_NULL(mapped);
  mutate_engine *e = xffi_structural_link_engine(mutator, mutator_key, __func__);
  if (!e) return XFFI_FAIL;
  if (!xffi_any_is_object(var))
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: var must be an object, got %s", __func__, xffi_any_kind_name(var));
  return remap_set(e, var->v_obj, mapped);
}

int xffi_structural_mutator_def_region(int32_t *out, const xffi_object *mutator) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = XFFI_DEF_REGION_NONE;
  mutate_engine *e = xffi_structural_link_engine(mutator, mutator_key, __func__);
  if (!e) return XFFI_FAIL;
  *out = e->region;
  return XFFI_OK;
}

int xffi_structural_mutator_with_def_region(xffi_any *out, xffi_object *mutator, int32_t kind, xffi_object *function) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  mutate_engine *e = xffi_structural_link_engine(mutator, mutator_key, __func__);
  if (!e) return XFFI_FAIL;
  return xffi_structural_call_in_region(out, &e->region, kind, function, __func__);
}
