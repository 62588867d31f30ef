/* c/lib/walk/deep_copy.c: xffi_deep_copy (ffi.DeepCopy), tvm-ffi's DeepCopy.
 *
 * Walks the value depth first with a heap stack and a table from each
 * original object to its copy, so an object reached twice is copied once
 * (sharing kept) and a cycle ends at the copy being made. Only objects that
 * may be reached twice enter the table (may_be_reached_again: more than one
 * strong reference, or the root):
 * - a List, a Dict or a reflected object gets its copy (an empty List or
 *   Dict, or its type's `__ffi_shallow_copy__`) before its children, so a
 *   child that leads back to it finds the copy. The table only borrows a
 *   copy being filled (the frame holds the one reference) and takes its own
 *   reference when the copy is done: a type whose setters write only while
 *   their caller holds the only reference (Rust's `#[xffi(default)]`
 *   types) is filled that way. A cycle back to such an object shares the
 *   copy before it is filled, so its setters refuse and DeepCopy fails
 *   (an object graph that is immutable once made cannot hold a cycle that
 *   is made anew);
 * - an Array or a Map is built from its copied children at the end (it is
 *   immutable); a child that leads back to one being built gets the
 *   original as a placeholder, and a last pass replaces such placeholders
 *   in the copied Lists, Dicts and objects (tvm-ffi's deferred fix-up);
 * - Strings, Bytes, Shapes, BigInts and ffi.Enum members are immutable or
 *   singletons: shared, not copied. */
#include <string.h>

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/recursive.h>

#include "runtime/check.h"
#include "lib/container/array_move.h"
#include "lib/reflection/field_storage.h"
#include "lib/container/map_table.h"
#include "lib/reflection/pyclass.h"
#include "lib/walk/recursive_walk.h"

/* COPY_IN_PROGRESS: an Array or Map being built (no copy yet);
 * COPY_FILLING: a List, Dict or object whose copy (borrowed) is being filled;
 * COPY_DONE: the copy is finished (owned by the table). */
enum { COPY_IN_PROGRESS = 1, COPY_FILLING = 2, COPY_DONE = 3 };

typedef struct copier {
  xffi_walk_table copies; /* original -> state and its copy (see the states) */
  /* The copied children (owned Anys) of the Arrays and Maps being built, one
   * stack for all frames: each frame's run starts at its `first` and is
   * consumed when the frame finishes (no buffer per container). */
  xffi_walk_vec pending;
  const xffi_type_attr_column *shallow_copy_column;
  const xffi_object *root; /* the value copied, when an object */
  int has_placeholders;
  int placeholder_made; /* the last copy_immediate gave a placeholder */
} copier;

typedef struct copy_frame {
  xffi_walk_frame walk;
  xffi_any copy;       /* owned: the List, Dict or object copy */
  size_t first;        /* Array and Map: where its copied children start in copier.pending */
  xffi_any key;        /* Dict: the copied key waiting for its value (owned) */
  int tracked;         /* the original has an entry in copier.copies */
  int got_placeholder; /* a child's copy is a placeholder (fixed in the last pass) */
} copy_frame;

static int is_shared_leaf(const xffi_object *obj) {
  int32_t t = obj->type_index;
  return t == XFFI_TYPE_STRING || t == XFFI_TYPE_BYTES || t == XFFI_TYPE_SHAPE || t == XFFI_TYPE_BIGINT ||
         xffi_walk_is_enum(obj);
}

/* Whether obj may be reached again in the walk. An object with one strong
 * reference is held only by the container or object the walk reached it
 * through, which is copied once, so it is reached once and needs no entry
 * in the table (most of a tree's nodes: the table's inserts and lookups
 * were a third of a copy). A second reference may be a second path to it
 * (sharing or a cycle); the root may be borrowed by the caller, so a cycle
 * back to it can pass through objects of one reference: it always has an
 * entry. A copy made so far only adds references (shallow copies share the
 * originals' children): that can only make the answer yes. */
static int may_be_reached_again(const copier *c, const xffi_object *obj) {
  return obj == c->root || (uint32_t)__atomic_load_n(XFFI_REF_COUNTS(obj), __ATOMIC_RELAXED) != 1;
}

/* 1 with *out (owned) when value needs no frame, 0 when it does, -1 raised. */
static int copy_immediate(copier *c, const xffi_any *value, xffi_any *out) {
  int32_t t = value->type_index;
  if (t < XFFI_TYPE_STATIC_OBJECT_BEGIN) {
    /* Plain data is its own copy; borrowed forms (only the root can be one)
     * and moves take xffi_any_copy's conversion or refusal. */
    if (XFFI_LIKELY(t != XFFI_TYPE_RAW_STR && t != XFFI_TYPE_BYTE_ARRAY_PTR && t != XFFI_TYPE_OBJECT_RVALUE)) {
      *out = *value;
      return 1;
    }
    return xffi_any_copy(out, value) == XFFI_OK ? 1 : -1;
  }
  xffi_object *obj = value->v_obj;
  if (is_shared_leaf(obj)) {
    *out = xffi_any_object_new_ref(obj);
    return 1;
  }
  if (!may_be_reached_again(c, obj)) return 0;
  const xffi_walk_entry *seen = xffi_walk_table_find(&c->copies, obj, NULL);
  if (seen && seen->state != COPY_IN_PROGRESS) {
    *out = xffi_any_object_new_ref(seen->value.v_obj);
    return 1;
  }
  if (seen) { /* an Array or Map being built: its original stands in */
    c->has_placeholders = 1;
    c->placeholder_made = 1;
    *out = xffi_any_object_new_ref(obj);
    return 1;
  }
  return 0;
}

/* Records original's state; copy (borrowed) is kept borrowed while
 * COPY_FILLING and with a new reference once COPY_DONE. */
static int record_copy(copier *c, const xffi_object *original, int32_t state, const xffi_any *copy) {
  xffi_walk_entry *e = xffi_walk_table_put(&c->copies, original, NULL);
  if (!e) return XFFI_FAIL;
  if (e->state != COPY_FILLING) xffi_any_release(&e->value);
  e->state = state;
  e->value = !copy ? xffi_any_none() : state == COPY_DONE ? xffi_any_object_new_ref(copy->v_obj) : *copy;
  return XFFI_OK;
}

/* Drops the borrowed copies of a failed walk, so freeing the table does
 * not release them. */
static void forget_borrowed(copier *c) {
  for (size_t i = 0; i < c->copies.capacity; ++i) {
    xffi_walk_entry *e = &c->copies.entries[i];
    if (e->a && e->state == COPY_FILLING) e->value = xffi_any_none();
  }
}

/* The first copy of a List, a Dict or an object (into f->copy). */
static int start_copy(copier *c, copy_frame *f) {
  const xffi_any *original = &f->walk.held;
  xffi_object *made = NULL;
  switch (original->type_index) {
    case XFFI_TYPE_ARRAY:
    case XFFI_TYPE_MAP:
      f->first = c->pending.count;
      return f->tracked ? record_copy(c, original->v_obj, COPY_IN_PROGRESS, NULL) : XFFI_OK;
    case XFFI_TYPE_LIST:
      if (xffi_list_new_with_capacity(&made, f->walk.size) != XFFI_OK) return XFFI_FAIL;
      break;
    case XFFI_TYPE_DICT:
      /* Sized for the original's entries: filled without regrowing. */
      made = xffi_map_new_sized(XFFI_TYPE_DICT, (uint64_t)f->walk.size);
      if (!made) return XFFI_FAIL;
      break;
    default: {
      const xffi_any *hook = xffi_walk_type_attr(c->shallow_copy_column, original->type_index);
      xffi_byte_array key = f->walk.type->type_key;
      if (!hook || hook->type_index != XFFI_TYPE_FUNCTION)
        return xffi_error_raise(XFFI_KIND_RUNTIME,
                                "Cannot deep copy object of type \"%.*s\" because it is not copy-constructible",
                                (int)key.size, key.data);
      xffi_any result = xffi_any_none();
      if (xffi_function_call(hook->v_obj, original, 1, &result) != XFFI_OK) return XFFI_FAIL;
      if (result.type_index != original->type_index) {
        xffi_error_raise(XFFI_KIND_TYPE, "DeepCopy: __ffi_shallow_copy__ of %.*s returned %s, not a %.*s",
                         (int)key.size, key.data, xffi_any_kind_name(&result), (int)key.size, key.data);
        xffi_any_release(&result);
        return XFFI_FAIL;
      }
      made = result.v_obj;
    }
  }
  f->copy = xffi_any_object(made); /* the new reference moves into the frame */
  return f->tracked ? record_copy(c, original->v_obj, COPY_FILLING, &f->copy) : XFFI_OK;
}

/* Frees the top frame f: its copied children still pending are released. */
static void free_frame(copier *c, copy_frame *f) {
  int32_t t = f->walk.held.type_index;
  if (t == XFFI_TYPE_ARRAY || t == XFFI_TYPE_MAP) {
    for (size_t i = f->first; i < c->pending.count; ++i) xffi_any_release(xffi_walk_vec_at(&c->pending, i));
    if (c->pending.count > f->first) c->pending.count = f->first;
  }
  xffi_any_release(&f->key);
  xffi_any_release(&f->copy);
  xffi_walk_end(&f->walk);
}

static int push_frame(copier *c, xffi_walk_vec *stack, const xffi_any *value) {
  if (stack->count >= XFFI_WALK_MAX_DEPTH) return xffi_walk_raise_too_deep("DeepCopy");
  int tracked = may_be_reached_again(c, value->v_obj); /* before the walk holds it */
  copy_frame *f = xffi_walk_vec_push(stack);
  if (!f) return XFFI_FAIL;
  if (xffi_walk_begin(&f->walk, value, 0) != XFFI_OK) {
    --stack->count;
    return XFFI_FAIL;
  }
  f->tracked = tracked;
  return start_copy(c, f); /* on failure the caller frees the frame */
}

static int same_value(const xffi_any *a, const xffi_any *b) {
  return a->type_index == b->type_index && a->small_len == b->small_len && a->v_int64 == b->v_int64;
}

/* Writes value (borrowed), the copy of the field's original value (borrowed),
 * into the field of obj. A field of a Python-defined type (its setter made
 * by ffi.MakeFieldSetter) takes a copy of the original's type straight into
 * its storage: the package's type converter produced the original, and a
 * deep copy has the same types at every level, so converting it again
 * gives it back unchanged (that Python converter was about a fifth of the
 * benchmark graph's copy). */
static int assign_field(xffi_object *obj, const xffi_field_info *field, const xffi_any *original,
                        const xffi_any *value) {
  int32_t storage;
  if ((field->flags & XFFI_FIELD_SETTER_IS_FUNCTION) && field->setter && value->type_index == original->type_index &&
      xffi_pyclass_setter_storage(&storage, (const xffi_object *)field->setter))
    return xffi_field_write((char *)obj + field->offset, storage, value);
  return xffi_field_assign(obj, field, value);
}

/* Adds the copied child (owned; consumed) to the frame's copy. */
static int feed(copier *c, copy_frame *f, xffi_any *child) {
  int status = XFFI_OK;
  switch (f->walk.held.type_index) {
    case XFFI_TYPE_LIST: status = xffi_list_push(f->copy.v_obj, child); break;
    case XFFI_TYPE_ARRAY:
    case XFFI_TYPE_MAP: {
      xffi_any *slot = xffi_walk_vec_push_unset(&c->pending);
      if (!slot) {
        status = XFFI_FAIL;
        break;
      }
      xffi_any_move(slot, child);
      return XFFI_OK;
    }
    case XFFI_TYPE_DICT:
      if (f->walk.position & 1) {
        xffi_any_move(&f->key, child);
        return XFFI_OK;
      }
      /* Both move in (the key a copy of a stored key: owned, normalized). */
      status = xffi_map_put_moved("DeepCopy", map_of(f->copy.v_obj), &f->key, child, 0);
      if (status == XFFI_OK) {
        f->key = xffi_any_none();
        return XFFI_OK;
      }
      xffi_any_release(&f->key);
      break;
    default:
      /* The shallow copy holds the original's field values: set only those that changed. */
      if (!same_value(&f->walk.child, child))
        status = assign_field(f->copy.v_obj, f->walk.field, &f->walk.child, child);
  }
  xffi_any_release(child);
  return status;
}

/* *made receives a new Map of the n key/value pairs (owned, interleaved,
 * moved in and consumed even on failure) in their order, sized once. */
static int build_map(xffi_object **made, xffi_any *pairs, int64_t n) {
  enum { FEW = 16 };
  xffi_any few_keys[FEW], few_values[FEW];
  xffi_any *keys = few_keys, *values = few_values;
  if (n > FEW) {
    keys = xffi_alloc((size_t)n * 2 * sizeof(xffi_any));
    if (!keys) {
      for (int64_t i = 0; i < 2 * n; ++i) xffi_any_release(&pairs[i]);
      return xffi_error_raise_out_of_memory();
    }
    values = keys + n;
  }
  for (int64_t i = 0; i < n; ++i) {
    keys[i] = pairs[2 * i];
    values[i] = pairs[2 * i + 1];
  }
  int status = xffi_map_do_build("DeepCopy", XFFI_TYPE_MAP, made, keys, values, n, 0);
  if (keys != few_keys) xffi_free(keys);
  return status;
}

/* *out receives the frame's finished copy (owned). */
static int finish(copier *c, copy_frame *f, xffi_any *out) {
  const xffi_any *original = &f->walk.held;
  if (original->type_index != XFFI_TYPE_ARRAY && original->type_index != XFFI_TYPE_MAP) {
    *out = xffi_any_object_new_ref(f->copy.v_obj);
    /* An untracked copy holding a placeholder gets an entry too: the last
     * pass finds the copies to fix in the table. */
    return f->tracked || f->got_placeholder ? record_copy(c, original->v_obj, COPY_DONE, &f->copy) : XFFI_OK;
  }
  xffi_object *made = NULL;
  xffi_any *items = (xffi_any *)xffi_walk_vec_at(&c->pending, f->first);
  int64_t count = (int64_t)(c->pending.count - f->first);
  c->pending.count = f->first; /* the children move into the new container (or are released) */
  int status = original->type_index == XFFI_TYPE_ARRAY ? xffi_array_new_moved(&made, items, count)
                                                       : build_map(&made, items, count / 2);
  if (status != XFFI_OK) return XFFI_FAIL;
  *out = xffi_any_object(made);
  return f->tracked ? record_copy(c, original->v_obj, COPY_DONE, out) : XFFI_OK;
}

/* The copy of an original that a placeholder stands for, or NULL. */
static const xffi_any *copy_of(const copier *c, const xffi_any *v) {
  if (!xffi_any_is_object(v)) return NULL;
  const xffi_walk_entry *e = xffi_walk_table_find(&c->copies, v->v_obj, NULL);
  return e && e->state == COPY_DONE && e->value.v_obj != v->v_obj ? &e->value : NULL;
}

static int fix_dict(const copier *c, xffi_object *dict) {
  /* Collect first (changing a Dict while iterating it may skip entries): old key, new key, new value. */
  xffi_walk_vec fixes = {NULL, 0, 0, 3 * sizeof(xffi_any)};
  int64_t cursor = 0;
  xffi_map_item item;
  int status = XFFI_OK;
  while (status == XFFI_OK && xffi_map_next(&item, dict, &cursor) == XFFI_OK && item.key) {
    const xffi_any *key = copy_of(c, item.key), *value = copy_of(c, item.value);
    if (!key && !value) continue;
    const xffi_any views[3] = {*item.key, key ? *key : *item.key, value ? *value : *item.value};
    xffi_any *fix = xffi_walk_vec_push(&fixes);
    if (!fix) status = XFFI_FAIL;
    for (int k = 0; fix && k < 3; ++k)
      if (xffi_any_copy(&fix[k], &views[k]) != XFFI_OK) status = XFFI_FAIL;
  }
  for (size_t i = 0; i < fixes.count; ++i) {
    xffi_any *fix = xffi_walk_vec_at(&fixes, i);
    if (status == XFFI_OK) status = xffi_dict_erase(dict, &fix[0]);
    if (status == XFFI_OK) status = xffi_dict_set(dict, &fix[1], &fix[2]);
    for (int k = 0; k < 3; ++k) xffi_any_release(&fix[k]);
  }
  xffi_walk_vec_free(&fixes);
  return status;
}

/* Replaces the placeholders (originals of Arrays and Maps that were being
 * built) left in the copies. */
static int fix_placeholders(copier *c) {
  for (size_t i = 0; i < c->copies.capacity; ++i) {
    const xffi_walk_entry *e = &c->copies.entries[i];
    if (!e->a || e->state != COPY_DONE) continue;
    xffi_object *copy = e->value.v_obj;
    int32_t t = copy->type_index;
    if (t == XFFI_TYPE_LIST) {
      for (int64_t k = 0; k < xffi_seq_size_unchecked(copy); ++k) {
        const xffi_any *real = copy_of(c, &xffi_seq_items_unchecked(copy)[k]);
        if (real && xffi_list_set(copy, k, real) != XFFI_OK) return XFFI_FAIL;
      }
    } else if (t == XFFI_TYPE_DICT) {
      if (fix_dict(c, copy) != XFFI_OK) return XFFI_FAIL;
    } else if (t >= XFFI_WALK_STATIC_OBJECT_END) {
      const xffi_type_info *type = xffi_object_type_info_unchecked(copy);
      int32_t level = 1, index = 0;
      const xffi_field_info *field;
      while ((field = xffi_walk_next_field(type, &level, &index, 0))) {
        xffi_any value;
        if (xffi_field_read(&value, copy, field) != XFFI_OK) return XFFI_FAIL;
        const xffi_any *real = copy_of(c, &value);
        int status = real ? xffi_field_assign(copy, field, real) : XFFI_OK;
        xffi_any_release(&value);
        if (status != XFFI_OK) return XFFI_FAIL;
      }
    }
  }
  return XFFI_OK;
}

static int copy_value(copier *c, const xffi_any *value, xffi_any *out) {
  int r = copy_immediate(c, value, out);
  if (r) return r > 0 ? XFFI_OK : XFFI_FAIL;
  xffi_walk_vec stack = {NULL, 0, 0, sizeof(copy_frame)};
  if (push_frame(c, &stack, value) != XFFI_OK) goto fail;
  for (;;) {
    copy_frame *f = xffi_walk_vec_top(&stack);
    const xffi_any *child;
    int more = xffi_walk_next(&f->walk, &child, 0);
    if (more < 0) goto fail;
    xffi_any resolved = xffi_any_none();
    if (more) {
      xffi_any view = *child; /* by value: pushing may move the frame that holds it */
      r = copy_immediate(c, &view, &resolved);
      if (r < 0) goto fail;
      if (c->placeholder_made) {
        f->got_placeholder = 1;
        c->placeholder_made = 0;
      }
      if (r == 0) {
        if (push_frame(c, &stack, &view) != XFFI_OK) goto fail;
        continue;
      }
      if (feed(c, f, &resolved) != XFFI_OK) goto fail;
      continue;
    }
    if (finish(c, f, &resolved) != XFFI_OK) goto fail;
    free_frame(c, f);
    --stack.count;
    if (!stack.count) {
      xffi_walk_vec_free(&stack);
      *out = resolved;
      return XFFI_OK;
    }
    if (feed(c, xffi_walk_vec_top(&stack), &resolved) != XFFI_OK) goto fail;
  }
fail:
  while (stack.count) {
    free_frame(c, xffi_walk_vec_top(&stack));
    --stack.count;
  }
  xffi_walk_vec_free(&stack);
  return XFFI_FAIL;
}

int xffi_deep_copy(xffi_any *out, const xffi_any *value) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  XFFI_CHECK_ARG_NOT_NULL(value);
  XFFI_CHECK_ARG_ANY(value);
  copier c = {{NULL, 0, 0},
              {NULL, 0, 0, sizeof(xffi_any)},
              xffi_walk_column("__ffi_shallow_copy__"),
              xffi_any_is_object(value) ? value->v_obj : NULL,
              0,
              0};
  xffi_any result = xffi_any_none();
  int status = copy_value(&c, value, &result);
  if (status == XFFI_OK && c.has_placeholders) status = fix_placeholders(&c);
  forget_borrowed(&c);
  xffi_walk_table_free(&c.copies);
  xffi_walk_vec_free(&c.pending);
  if (status != XFFI_OK) {
    xffi_any_release(&result);
    return XFFI_FAIL;
  }
  *out = result;
  return XFFI_OK;
}
