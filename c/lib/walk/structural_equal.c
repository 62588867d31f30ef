/* c/lib/walk/structural_equal.c: xffi_structural_equal (ffi.StructuralEqual), tvm-ffi's
 * structural equality, semantics for semantics (see xffi/structural.h).
 *
 * Pairs (lhs, rhs) are walked depth first with a heap stack; the first pair
 * found unequal decides. The walk carries the current definition-region
 * kind (none, pattern, simple): a field flagged as a definition opens a
 * region for its value, and a free variable compared inside one is mapped
 * to its counterpart. DAG nodes and mapped free variables are remembered in
 * two identity tables (lhs -> rhs, rhs -> lhs), which also map object keys
 * of Maps to the other side's keys.
 *
 * A pair of shared values (both strong counts above 1: containers, or
 * objects walked by their fields) found equal is remembered with its region
 * kind, and met again in that kind it is equal at once: a DAG costs its
 * distinct pairs, not its paths. Walking it again would give the same
 * answer, since everything it mapped stays mapped. Unequal pairs end the
 * walk, so they need no memo. */
#include <string.h>

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/structural.h>
#include <xffi/tensor.h>
#include <xffi/tvm_ffi.h>

#include "runtime/bigint.h"
#include "runtime/check.h"
#include "lib/container/map_key.h"   /* map_text_of */
#include "lib/container/map_table.h" /* map_step: Maps walked without a checked call per entry */
#include "lib/walk/recursive_walk.h"
#include "lib/walk/structural_plan.h"
#include "lib/walk/structural_region.h"
#include "lib/reflection/runtime_types.h"

typedef struct equaler {
  int32_t region; /* the definition-region kind in effect */
  int skip_tensor_content;
  xffi_walk_table lhs_to_rhs, rhs_to_lhs; /* word: the counterpart's address */
  xffi_walk_table equal_pairs;            /* shared pairs found equal; word: the region kind */
  const xffi_type_attr_column *s_equal_column;
  xffi_object *fn_equal; /* owned: the callback handed to __s_equal__ hooks, made on first use */
  void **fn_equal_link;
  xffi_walk_vec *steps; /* mismatch_step, leaf first; NULL when no path is wanted */
  /* The frames of the innermost walk (a hook's callback starts another;
   * the outer ones are pinned by then), borrowed: pinned before a hook. */
  xffi_walk_vec *frames;
} equaler;

/* One step of the first mismatch's paths, on each side (keys owned). */
typedef struct mismatch_step {
  int32_t lhs_kind, rhs_kind;
  xffi_any lhs_key, rhs_key;
} mismatch_step;

enum { EQ_SEQ, EQ_MAP, EQ_OBJECT };

/* A pair being walked: both sides in one frame, with only what its kind needs. */
typedef struct eq_frame {
  xffi_object *lhs, *rhs; /* borrowed, or owned once pinned */
  int32_t kind;           /* EQ_* */
  int32_t pinned;         /* 1: lhs and rhs are held, and fields are read through their getters */
  int32_t seq_kind;       /* objects: the type's structural kind; containers: -1 */
  int32_t entry_region;   /* the region kind when the pair was met */
  int32_t own_region;     /* the region kind its children start from */
  int32_t memoise;        /* both sides shared: remember the pair if equal */
  int64_t position;       /* children given so far (items, entries, fields) */
  int64_t lsize, rsize;   /* containers: the sizes when the pair was met */
  union {
    struct {
      int64_t lcursor, rcursor; /* map_step cursors */
      const xffi_any *key;      /* the key of the entry being compared (borrowed from lhs) */
      xffi_any rkey;            /* ... and the key looked up on the right (a view) */
      int rhs_in_step;          /* the right side is walked beside the left (not yet at its end) */
    } map;
    struct {
      const xffi_field_plan *plan; /* the type's fields to compare (immortal) */
      xffi_any lchild, rchild;     /* the field values read last, when not views in place */
      int children_owned;          /* 1: lchild and rchild are references to release */
    } obj;
  } u;
} eq_frame;

/* Appends a step pair; the keys are stolen (released on failure). */
static int add_step(equaler *c, int32_t lhs_kind, xffi_any lhs_key, int32_t rhs_kind, xffi_any rhs_key) {
  mismatch_step *s = xffi_walk_vec_push(c->steps);
  if (!s) {
    xffi_any_release(&lhs_key);
    xffi_any_release(&rhs_key);
    return XFFI_FAIL;
  }
  s->lhs_kind = lhs_kind;
  s->rhs_kind = rhs_kind;
  s->lhs_key = lhs_key;
  s->rhs_key = rhs_key;
  return XFFI_OK;
}

/* Appends a step pair naming two keys (views, copied). */
static int add_key_step(equaler *c, int32_t lhs_kind, const xffi_any *lhs_key, int32_t rhs_kind,
                        const xffi_any *rhs_key) {
  xffi_any l, r;
  if (xffi_any_copy(&l, lhs_key) != XFFI_OK) return XFFI_FAIL;
  if (xffi_any_copy(&r, rhs_key) != XFFI_OK) {
    xffi_any_release(&l);
    return XFFI_FAIL;
  }
  return add_step(c, lhs_kind, l, rhs_kind, r);
}

static int add_attr_step(equaler *c, xffi_byte_array name) {
  xffi_any l, r;
  if (xffi_any_from_str(&l, name.data, name.size) != XFFI_OK) return XFFI_FAIL;
  if (xffi_any_copy(&r, &l) != XFFI_OK) {
    xffi_any_release(&l);
    return XFFI_FAIL;
  }
  return add_step(c, XFFI_ACCESS_ATTR, l, XFFI_ACCESS_ATTR, r);
}

/* The step to the frame's current child, on both sides. */
static int add_child_step(equaler *c, const eq_frame *f) {
  switch (f->kind) {
    case EQ_SEQ: {
      xffi_any i = xffi_any_int(f->position - 1);
      return add_step(c, XFFI_ACCESS_ARRAY_ITEM, i, XFFI_ACCESS_ARRAY_ITEM, i);
    }
    case EQ_MAP: return add_key_step(c, XFFI_ACCESS_MAP_ITEM, f->u.map.key, XFFI_ACCESS_MAP_ITEM, &f->u.map.rkey);
    default: return add_attr_step(c, f->u.obj.plan->fields[f->position - 1].field->name);
  }
}

static const void *counterpart(const xffi_walk_table *t, const void *obj) {
  if (!t->used) return NULL; /* only DAG nodes and bound free variables are recorded */
  const xffi_walk_entry *e = xffi_walk_table_find(t, obj, NULL);
  return e ? (const void *)(uintptr_t)e->word : NULL;
}

static int remember_pair(equaler *c, const void *l, const void *r) {
  xffi_walk_entry *e = xffi_walk_table_put(&c->lhs_to_rhs, l, NULL);
  if (!e) return XFFI_FAIL;
  e->word = (uint64_t)(uintptr_t)r;
  e = xffi_walk_table_put(&c->rhs_to_lhs, r, NULL);
  if (!e) return XFFI_FAIL;
  e->word = (uint64_t)(uintptr_t)l;
  return XFFI_OK;
}

/* Tensors: shape, dtype, then (unless skipped) the bytes. 1 with *out, -1 raised. */
static int tensor_equal(equaler *c, const xffi_any *l, const xffi_any *r, int *out) {
  DLTensor *a, *b;
  if (xffi_tensor_cell_of(&a, l->v_obj) != XFFI_OK || xffi_tensor_cell_of(&b, r->v_obj) != XFFI_OK) return -1;
  *out = 0;
  if (a->ndim != b->ndim) return 1;
  for (int i = 0; i < a->ndim; ++i)
    if (a->shape[i] != b->shape[i]) return 1;
  if (a->dtype.code != b->dtype.code || a->dtype.bits != b->dtype.bits || a->dtype.lanes != b->dtype.lanes) return 1;
  if (c->skip_tensor_content) {
    *out = 1;
    return 1;
  }
  int contiguous_a = 0, contiguous_b = 0;
  if (a->device.device_type != kDLCPU || b->device.device_type != kDLCPU)
    return xffi_error_raise(XFFI_KIND_RUNTIME, "StructuralEqual: can only compare CPU tensor"), -1;
  if (xffi_tensor_is_contiguous(&contiguous_a, l->v_obj) != XFFI_OK ||
      xffi_tensor_is_contiguous(&contiguous_b, r->v_obj) != XFFI_OK)
    return -1;
  if (!contiguous_a || !contiguous_b)
    return xffi_error_raise(XFFI_KIND_RUNTIME, "StructuralEqual: Can only compare contiguous tensor"), -1;
  uint64_t size = 0;
  if (xffi_tensor_nbytes(&size, l->v_obj) != XFFI_OK) return -1;
  *out = size == 0 ||
         memcmp((const char *)a->data + a->byte_offset, (const char *)b->data + b->byte_offset, (size_t)size) == 0;
  return 1;
}

static int equal_values(equaler *c, const xffi_any *l, const xffi_any *r, int *out);

/* The callback of __s_equal__ hooks: (lhs, rhs, def_region_kind, field_name) -> bool. */
static int fn_equal_call(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  if (num_args != 4)
    return xffi_error_raise(XFFI_KIND_TYPE, "s_equal callback: expected 4 arguments, got %d", (int)num_args);
  equaler *c = xffi_walk_callback_target(resource, "s_equal callback");
  if (!c) return XFFI_FAIL;
  int64_t opened = 0;
  if (xffi_any_to_int(&opened, &args[2]) != XFFI_OK) return XFFI_FAIL;
  if (opened < XFFI_REGION_NONE || opened > XFFI_REGION_SIMPLE)
    return xffi_error_raise(XFFI_KIND_VALUE, "s_equal callback: def_region_kind must be 0, 1 or 2, got %lld",
                            (long long)opened);
  int32_t saved = c->region;
  c->region = xffi_structural_child_region(saved, (int32_t)opened);
  int equal = 0;
  int status = equal_values(c, &args[0], &args[1], &equal);
  c->region = saved;
  if (status != XFFI_OK) return XFFI_FAIL;
  if (!equal && c->steps && xffi_walk_is_str(args[3].type_index) && add_attr_step(c, map_text_of(&args[3])) != XFFI_OK)
    return XFFI_FAIL;
  *result = xffi_any_bool(equal);
  return XFFI_OK;
}

/* What an object pair's field comparison (success) means for its kind:
 * DAG nodes are remembered; a free variable is equal to itself or, inside
 * a definition region, mapped to its counterpart. 1 equal, 0 not, -1 raised. */
static int finish_object(equaler *c, int32_t seq_kind, int32_t entry_region, const xffi_any *l, const xffi_any *r,
                         int success) {
  if (!success) return 0;
  if (seq_kind == XFFI_SEQ_HASH_DAG_NODE) return remember_pair(c, l->v_obj, r->v_obj) == XFFI_OK ? 1 : -1;
  if (seq_kind != XFFI_SEQ_HASH_FREE_VAR) return 1;
  if (l->v_obj != r->v_obj && entry_region == XFFI_REGION_NONE) return 0;
  return remember_pair(c, l->v_obj, r->v_obj) == XFFI_OK ? 1 : -1;
}

static void pin_frames(equaler *c) {
  if (!c->frames) return;
  for (size_t i = 0; i < c->frames->count; ++i) {
    eq_frame *f = xffi_walk_vec_at(c->frames, i);
    if (f->pinned) continue;
    xffi_object_inc_ref(f->lhs);
    xffi_object_inc_ref(f->rhs);
    f->pinned = 1;
  }
}

static int call_hook(equaler *c, const xffi_any *hook, int32_t seq_kind, const xffi_any *l, const xffi_any *r,
                     int *out) {
  if (hook->type_index != XFFI_TYPE_FUNCTION)
    return xffi_error_raise(XFFI_KIND_TYPE, "StructuralEqual: __s_equal__ of %s must be a Function, got %s",
                            xffi_type_key(l->type_index), xffi_any_kind_name(hook)),
           -1;
  if (!c->fn_equal && xffi_walk_callback_new(&c->fn_equal, &c->fn_equal_link, fn_equal_call, c) != XFFI_OK) return -1;
  /* The hook runs others' code, which may drop what the open frames borrow
   * (l and r too: held here for the call). */
  pin_frames(c);
  int32_t entry = c->region;
  c->region = xffi_structural_own_region(seq_kind, entry);
  xffi_any args[3] = {xffi_any_object_new_ref(l->v_obj), xffi_any_object_new_ref(r->v_obj),
                      xffi_any_object(c->fn_equal)},
           result = xffi_any_none();
  int status = xffi_function_call(hook->v_obj, args, 3, &result);
  xffi_any_release(&args[0]);
  xffi_any_release(&args[1]);
  c->region = entry;
  int truth = 0;
  if (status == XFFI_OK) status = xffi_any_to_bool(&truth, &result);
  xffi_any_release(&result);
  if (status != XFFI_OK) return -1;
  int r0 = finish_object(c, seq_kind, entry, l, r, truth);
  if (r0 < 0) return -1;
  *out = r0;
  return 1;
}

static int raise_no_kind(const xffi_type_info *info, const char *what) {
  return xffi_error_raise(XFFI_KIND_TYPE, "%s for type `%.*s`, so StructuralHash is not supported for this type", what,
                          (int)info->type_key.size, info->type_key.data);
}

/* The pair of objects of one reflected type: 1 with *out when decided at
 * once, 0 when its fields must be walked, -1 raised. */
static int object_immediate(equaler *c, const xffi_any *l, const xffi_any *r, int *out) {
  const xffi_type_info *info = xffi_object_type_info_unchecked(l->v_obj);
  if (!info->metadata) return raise_no_kind(info, "Type metadata is not set"), -1;
  int32_t kind = info->metadata->structural_eq_hash_kind;
  if (kind == XFFI_SEQ_HASH_UNSUPPORTED) return raise_no_kind(info, "_type_s_eq_hash_kind is not set"), -1;
  int same = l->v_obj == r->v_obj;
  if (kind == XFFI_SEQ_HASH_UNIQUE_INSTANCE || (kind == XFFI_SEQ_HASH_CONST_TREE_NODE && same)) {
    *out = same;
    return 1;
  }
  if (kind == XFFI_SEQ_HASH_DAG_NODE || kind == XFFI_SEQ_HASH_FREE_VAR) {
    const void *mapped = counterpart(&c->lhs_to_rhs, l->v_obj);
    if (mapped || counterpart(&c->rhs_to_lhs, r->v_obj)) {
      *out = mapped == r->v_obj;
      return 1;
    }
  }
  const xffi_any *hook = xffi_walk_type_attr(c->s_equal_column, l->type_index);
  if (hook) return call_hook(c, hook, kind, l, r, out);
  return 0;
}

/* 1 with *out when the pair needs no frame, 0 when it does, -1 raised. */
static int equal_immediate(equaler *c, const xffi_any *l, const xffi_any *r, int *out) {
  int32_t lt = l->type_index, rt = r->type_index;
  if ((xffi_walk_is_str(lt) && xffi_walk_is_str(rt)) || (xffi_walk_is_bytes(lt) && xffi_walk_is_bytes(rt))) {
    xffi_byte_array a = map_text_of(l), b = map_text_of(r);
    *out = a.size == b.size && (a.size == 0 || memcmp(a.data, b.data, a.size) == 0);
    return 1;
  }
  if (lt != rt) {
    *out = 0;
    return 1;
  }
  if (lt < XFFI_TYPE_STATIC_OBJECT_BEGIN) {
    if (lt == XFFI_TYPE_FLOAT && l->v_float64 != l->v_float64)
      *out = r->v_float64 != r->v_float64;
    else
      *out = l->small_len == r->small_len && l->v_int64 == r->v_int64;
    return 1;
  }
  switch (lt) {
    case XFFI_TYPE_BIGINT: {
      xffi_byte_array a = xffi_bigint_content("ffi.StructuralEqual", l),
                      b = xffi_bigint_content("ffi.StructuralEqual", r);
      *out = a.size == b.size && memcmp(a.data, b.data, a.size) == 0;
      return 1;
    }
    case XFFI_TYPE_SHAPE: {
      const xffi_shape_cell *a = xffi_shape_cell_of_unchecked(l->v_obj), *b = xffi_shape_cell_of_unchecked(r->v_obj);
      *out = a->size == b->size && (a->size == 0 || memcmp(a->data, b->data, a->size * sizeof(a->data[0])) == 0);
      return 1;
    }
    case XFFI_TYPE_TENSOR:
      if (l->v_obj == r->v_obj) {
        *out = 1;
        return 1;
      }
      return tensor_equal(c, l, r, out);
    case XFFI_TYPE_ARRAY:
    case XFFI_TYPE_LIST:
    case XFFI_TYPE_MAP:
    case XFFI_TYPE_DICT: return 0;
    default: return object_immediate(c, l, r, out);
  }
}

static inline int is_container(int32_t t) {
  return t == XFFI_TYPE_ARRAY || t == XFFI_TYPE_LIST || t == XFFI_TYPE_MAP || t == XFFI_TYPE_DICT;
}

/* The commonest pairs, decided here without a call: two plain values of
 * one type (ints, bools, Nones, floats, small strings, ...), as
 * equal_immediate decides them. The same bits are equal (a NaN too); other
 * bits are unequal, except for what only equal_immediate can tell: NaNs of
 * other payloads, and texts (bytes past small_len, or views' contents).
 * 0: not decided here. */
static inline int plain_pair_equal(const xffi_any *l, const xffi_any *r, int *out) {
  int32_t t = l->type_index;
  if (t != r->type_index || t >= XFFI_TYPE_STATIC_OBJECT_BEGIN) return 0;
  if (l->small_len == r->small_len && l->v_int64 == r->v_int64) {
    *out = 1;
    return 1;
  }
  if (t == XFFI_TYPE_FLOAT || xffi_walk_is_str(t) || xffi_walk_is_bytes(t)) return 0;
  *out = 0;
  return 1;
}

/* Two String or two Bytes objects (a node's name, a text value), compared
 * here without a call, as equal_immediate compares them. 0: not such a pair. */
static inline int text_object_pair_equal(const xffi_any *l, const xffi_any *r, int *out) {
  int32_t t = l->type_index;
  if (t != r->type_index || (t != XFFI_TYPE_STRING && t != XFFI_TYPE_BYTES)) return 0;
  xffi_byte_array a = xffi_string_cell_of_unchecked(l->v_obj), b = xffi_string_cell_of_unchecked(r->v_obj);
  *out = a.size == b.size && (a.data == b.data || a.size == 0 || memcmp(a.data, b.data, a.size) == 0);
  return 1;
}

/* The innermost frame (the size known here: no multiply by item_size). */
static inline eq_frame *top_frame(const xffi_walk_vec *stack) {
  return (eq_frame *)(void *)stack->data + (stack->count - 1);
}

/* Pushes a frame for the pair: 0 when pushed, 1 with *out when decided at
 * once (containers of other sizes), -1 raised. */
static int push_pair(equaler *c, xffi_walk_vec *stack, const xffi_any *l, const xffi_any *r, int *out) {
  if (stack->count >= XFFI_WALK_MAX_DEPTH) return xffi_walk_raise_too_deep("StructuralEqual"), -1;
  xffi_object *lo = l->v_obj, *ro = r->v_obj;
  int shared = xffi_object_strong_count(lo) > 1 && xffi_object_strong_count(ro) > 1;
  if (shared && c->equal_pairs.used) {
    const xffi_walk_entry *seen = xffi_walk_table_find(&c->equal_pairs, lo, ro);
    if (seen && seen->word == (uint64_t)(uint32_t)c->region) {
      *out = 1;
      return 1;
    }
  }
  int32_t kind, seq_kind = -1;
  int64_t lsize = 0, rsize = 0;
  const xffi_field_plan *plan = NULL;
  switch (l->type_index) {
    case XFFI_TYPE_ARRAY:
    case XFFI_TYPE_LIST:
      kind = EQ_SEQ;
      lsize = xffi_seq_size_unchecked(lo);
      rsize = xffi_seq_size_unchecked(ro);
      xffi_walk_read_ahead(xffi_seq_items_unchecked(lo), lsize);
      xffi_walk_read_ahead(xffi_seq_items_unchecked(ro), rsize);
      break;
    case XFFI_TYPE_MAP:
    case XFFI_TYPE_DICT:
      kind = EQ_MAP;
      lsize = (int64_t)map_of(lo)->size;
      rsize = (int64_t)map_of(ro)->size;
      map_read_ahead(map_of(lo));
      map_read_ahead(map_of(ro));
      break;
    default: {
      const xffi_type_info *type = xffi_object_type_info_unchecked(lo);
      kind = EQ_OBJECT;
      seq_kind = type->metadata->structural_eq_hash_kind;
      plan = xffi_field_plan_of(type);
      if (!plan) return -1;
      xffi_plan_read_ahead(plan, lo);
      xffi_plan_read_ahead(plan, ro);
    }
  }
  if (kind != EQ_OBJECT && lsize != rsize && !c->steps) {
    *out = 0;
    return 1;
  }
  /* A new top frame, inline while there is room; the members its kind uses are set below. */
  eq_frame *f = stack->count < stack->capacity ? (eq_frame *)(void *)stack->data + stack->count++
                                               : xffi_walk_vec_push_unset(stack);
  if (!f) return -1;
  f->lhs = lo;
  f->rhs = ro;
  f->kind = kind;
  f->pinned = 0;
  f->seq_kind = seq_kind;
  f->memoise = shared;
  f->entry_region = c->region;
  f->own_region = kind == EQ_OBJECT ? xffi_structural_own_region(seq_kind, c->region) : c->region;
  f->position = 0;
  f->lsize = lsize;
  f->rsize = rsize;
  if (kind == EQ_MAP) {
    f->u.map.lcursor = f->u.map.rcursor = 0;
    f->u.map.key = NULL;
    f->u.map.rkey = xffi_any_none();
    f->u.map.rhs_in_step = 1;
  } else if (kind == EQ_OBJECT) {
    f->u.obj.plan = plan;
    f->u.obj.lchild = f->u.obj.rchild = xffi_any_none();
    f->u.obj.children_owned = 0;
  }
  c->region = f->own_region;
  return 0;
}

/* Whether a and b are one Map key without running any hook: the same
 * bits, or texts of one kind with the same bytes (what the Map's own key
 * equality says for them). 0 also when only a hook could tell. */
static int same_plain_key(const xffi_any *a, const xffi_any *b) {
  if (memcmp(a, b, sizeof(xffi_any)) == 0) return 1;
  return map_is_text(a->type_index) && map_is_text(b->type_index) &&
         map_is_str_kind(a->type_index) == map_is_str_kind(b->type_index) && map_same_text(a, b);
}

/* The right Map's value for the left key (a view, mapped to the right's
 * objects), or NULL when the right lacks it. Maps built alike keep their
 * keys in one order: the right entry at the same position is tried first,
 * and only a key found elsewhere costs a lookup (keys are unique, so the
 * entry whose key equals is the one the lookup finds). -1 raised. */
static int right_value(eq_frame *f, const xffi_any *key, const xffi_any **found) {
  if (f->u.map.rhs_in_step) {
    xffi_map_item item;
    map_step(&item, map_of(f->rhs), &f->u.map.rcursor); /* the frame's own Map: checked at the start */
    f->u.map.rhs_in_step = item.key != NULL;
    if (item.key && same_plain_key(key, item.key)) {
      *found = item.value;
      return 0;
    }
  }
  return xffi_map_lookup(found, f->rhs, key) == XFFI_OK ? 0 : -1;
}

static void release_children(eq_frame *f) {
  if (!f->u.obj.children_owned) return;
  xffi_any_release(&f->u.obj.lchild);
  xffi_any_release(&f->u.obj.rchild);
  f->u.obj.lchild = f->u.obj.rchild = xffi_any_none();
  f->u.obj.children_owned = 0;
}

/* Whether the pair is two equal leaves (plain values, or texts of one
 * kind), decided without a call: then the walk needs no step for it. */
static inline int equal_leaves(const xffi_any *l, const xffi_any *r) {
  int equal;
  return (plain_pair_equal(l, r, &equal) || text_object_pair_equal(l, r, &equal)) && equal;
}

/* The frame's next pair that needs the walk: 1 with *l, *r (views valid
 * until the next call) and *region (the child's region kind), 2 when a Map
 * key is missing on the right, 0 at the end, -1 raised. Pairs of equal
 * leaves on the way are passed over here, in one loop, not one walk step
 * each; an unequal pair is given to the walk, which records its step. */
static int next_pair(equaler *c, eq_frame *f, const xffi_any **l, const xffi_any **r, int32_t *region) {
  *region = f->own_region;
  if (f->kind == EQ_SEQ) {
    /* Sizes re-read on each call: a hook run for the pair given last may have changed a List. */
    int64_t i = f->position, nl = xffi_seq_size_unchecked(f->lhs), nr = xffi_seq_size_unchecked(f->rhs);
    int64_t n = nl < nr ? nl : nr;
    const xffi_any *ls = xffi_seq_items_unchecked(f->lhs), *rs = xffi_seq_items_unchecked(f->rhs);
    while (i < n && equal_leaves(&ls[i], &rs[i])) ++i;
    f->position = i;
    if (i >= n) return 0;
    f->position = i + 1;
    *l = &ls[i];
    *r = &rs[i];
    return 1;
  }
  if (f->kind == EQ_MAP) {
    for (;;) {
      xffi_map_item item;
      map_step(&item, map_of(f->lhs), &f->u.map.lcursor);
      if (!item.key) return 0;
      ++f->position;
      xffi_any key = *item.key;
      if (key.type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN) {
        const void *mapped = counterpart(&c->lhs_to_rhs, key.v_obj);
        if (mapped) key.v_obj = (xffi_object *)(uintptr_t)mapped;
      }
      const xffi_any *found = NULL;
      if (right_value(f, &key, &found) < 0) return -1;
      f->u.map.key = item.key;
      f->u.map.rkey = key;
      if (!found) return 2;
      if (equal_leaves(item.value, found)) continue;
      *l = item.value;
      *r = found;
      return 1;
    }
  }
  const xffi_field_plan *plan = f->u.obj.plan;
  if (f->position >= plan->count) return 0;
  const xffi_plan_field *pf = &plan->fields[f->position++];
  release_children(f);
  if (xffi_plan_read_owns(pf, f->pinned)) { /* read into the slots as references */
    f->u.obj.lchild = f->u.obj.rchild = xffi_any_none();
    f->u.obj.children_owned = 1;
  }
  if (xffi_plan_read(pf, f->lhs, f->pinned, &f->u.obj.lchild, l) != XFFI_OK ||
      xffi_plan_read(pf, f->rhs, f->pinned, &f->u.obj.rchild, r) != XFFI_OK)
    return -1;
  *region = xffi_structural_child_region(f->own_region, pf->region);
  return 1;
}

/* The step of containers of other sizes (all common children equal): the
 * first index one side lacks, or a right key the left lacks. */
static int size_mismatch_step(equaler *c, const eq_frame *f) {
  int64_t nl = f->lsize, nr = f->rsize;
  if (f->kind == EQ_SEQ) {
    xffi_any at = xffi_any_int(nl > nr ? nr : nl);
    return nl > nr ? add_step(c, XFFI_ACCESS_ARRAY_ITEM, at, XFFI_ACCESS_ARRAY_ITEM_MISSING, at)
                   : add_step(c, XFFI_ACCESS_ARRAY_ITEM_MISSING, at, XFFI_ACCESS_ARRAY_ITEM, at);
  }
  int64_t cursor = 0;
  xffi_map_item item;
  for (;;) {
    if (xffi_map_next(&item, f->rhs, &cursor) != XFFI_OK) return XFFI_FAIL;
    if (!item.key) return XFFI_OK; /* every right key found: unequal all the same, no step */
    xffi_any key = *item.key;
    if (key.type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN) {
      const void *mapped = counterpart(&c->rhs_to_lhs, key.v_obj);
      if (mapped) key.v_obj = (xffi_object *)(uintptr_t)mapped;
    }
    const xffi_any *found;
    if (xffi_map_lookup(&found, f->lhs, &key) != XFFI_OK) return XFFI_FAIL;
    if (!found) return add_key_step(c, XFFI_ACCESS_MAP_ITEM_MISSING, &key, XFFI_ACCESS_MAP_ITEM, item.key);
  }
}

static void pop_frame(equaler *c, xffi_walk_vec *stack) {
  eq_frame *f = top_frame(stack);
  c->region = f->entry_region;
  if (f->kind == EQ_OBJECT) release_children(f);
  if (f->pinned) {
    xffi_object_dec_ref(f->lhs);
    xffi_object_dec_ref(f->rhs);
  }
  --stack->count;
}

static void unwind(equaler *c, xffi_walk_vec *stack) {
  while (stack->count) pop_frame(c, stack);
  xffi_walk_vec_free(stack);
}

static int equal_walk(equaler *c, xffi_walk_vec *stack, const xffi_any *l, const xffi_any *r, int *out);

static int equal_values(equaler *c, const xffi_any *l, const xffi_any *r, int *out) {
  int r0 = equal_immediate(c, l, r, out);
  if (r0) return r0 > 0 ? XFFI_OK : XFFI_FAIL;
  xffi_walk_vec stack = {NULL, 0, 0, sizeof(eq_frame)};
  xffi_walk_vec *outer_frames = c->frames;
  c->frames = &stack;
  int status = equal_walk(c, &stack, l, r, out);
  c->frames = outer_frames;
  return status;
}

/* The walk of a pair that needs frames, on stack (empty; freed by the end). */
static int equal_walk(equaler *c, xffi_walk_vec *stack, const xffi_any *l, const xffi_any *r, int *out) {
  int r0 = push_pair(c, stack, l, r, out);
  if (r0 < 0) goto fail;
  if (r0 > 0) {
    xffi_walk_vec_free(stack);
    return XFFI_OK;
  }
  int result = 0, top_has_step = 0;
  for (;;) {
    eq_frame *f = top_frame(stack);
    const xffi_any *a, *b;
    int32_t region;
    int more = next_pair(c, f, &a, &b, &region);
    if (more < 0) goto fail;
    if (more == 2) { /* a Map key the right side lacks */
      if (c->steps &&
          add_key_step(c, XFFI_ACCESS_MAP_ITEM, f->u.map.key, XFFI_ACCESS_MAP_ITEM_MISSING, &f->u.map.rkey) != XFFI_OK)
        goto fail;
      top_has_step = 1;
      break;
    }
    int equal = 0;
    if (more == 1) {
      c->region = region;
      int done;
      if (plain_pair_equal(a, b, &equal) || text_object_pair_equal(a, b, &equal))
        done = 1;
      else if (a->type_index == b->type_index && is_container(a->type_index)) /* nothing to decide first */
        done = push_pair(c, stack, a, b, &equal);
      else if ((done = equal_immediate(c, a, b, &equal)) == 0)
        done = push_pair(c, stack, a, b, &equal);
      if (done < 0) goto fail;
      if (done == 0) continue;
      c->region = top_frame(stack)->own_region;
      if (!equal) break;
      continue;
    }
    /* The frame is done and its children all equal. */
    if (f->seq_kind < 0 && f->lsize != f->rsize) { /* only when a path is wanted */
      if (size_mismatch_step(c, f) != XFFI_OK) goto fail;
      top_has_step = 1;
      break;
    }
    equal = 1;
    if (f->seq_kind >= 0) {
      xffi_any lv = xffi_any_object(f->lhs), rv = xffi_any_object(f->rhs);
      equal = finish_object(c, f->seq_kind, f->entry_region, &lv, &rv, 1);
      if (equal < 0) goto fail;
    }
    if (equal && f->memoise) {
      xffi_walk_entry *e = xffi_walk_table_put(&c->equal_pairs, f->lhs, f->rhs);
      if (!e) goto fail;
      e->word = (uint64_t)(uint32_t)f->entry_region;
    }
    pop_frame(c, stack);
    if (!equal) break;
    if (!stack->count) {
      result = 1;
      break;
    }
    c->region = top_frame(stack)->own_region;
  }
  /* Unequal: each open frame names the child that differed, innermost first. */
  if (!result && c->steps)
    for (size_t i = stack->count - (size_t)top_has_step; i-- > 0;)
      if (add_child_step(c, xffi_walk_vec_at(stack, i)) != XFFI_OK) goto fail;
  *out = result;
  unwind(c, stack);
  return XFFI_OK;
fail:
  unwind(c, stack);
  return XFFI_FAIL;
}

static int run(int *out, const xffi_any *lhs, const xffi_any *rhs, int32_t options, xffi_walk_vec *steps) {
  equaler c = {.region = (options & XFFI_STRUCTURAL_MAP_FREE_VARS) ? XFFI_REGION_PATTERN : XFFI_REGION_NONE,
               .skip_tensor_content = (options & XFFI_STRUCTURAL_SKIP_TENSOR_CONTENT) != 0,
               .s_equal_column = xffi_walk_column("__s_equal__"),
               .steps = steps};
  int equal = 0;
  int status = equal_values(&c, lhs, rhs, &equal);
  xffi_walk_table_free(&c.lhs_to_rhs);
  xffi_walk_table_free(&c.rhs_to_lhs);
  xffi_walk_table_free(&c.equal_pairs);
  xffi_walk_callback_end(c.fn_equal, c.fn_equal_link);
  if (status != XFFI_OK) return XFFI_FAIL;
  *out = equal;
  return XFFI_OK;
}

#define CHECK_OPTIONS(fn, options)                                                        \
  if ((options) & ~(XFFI_STRUCTURAL_MAP_FREE_VARS | XFFI_STRUCTURAL_SKIP_TENSOR_CONTENT)) \
    return xffi_error_raise(XFFI_KIND_VALUE, fn ": unknown option bits 0x%x in options", (unsigned)(options));

int xffi_structural_equal(int *out, const xffi_any *lhs, const xffi_any *rhs, int32_t options) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = 0;
  XFFI_CHECK_ARG_NOT_NULL(lhs);
  XFFI_CHECK_ARG_NOT_NULL(rhs);
  XFFI_CHECK_ARG_ANY(lhs);
  XFFI_CHECK_ARG_ANY(rhs);
  CHECK_OPTIONS("xffi_structural_equal", options);
  return run(out, lhs, rhs, options, NULL);
}

/* The paths (root first) of the steps gathered leaf first, as an Array [lhs, rhs]. */
static int paths_of(xffi_any *out, const xffi_walk_vec *steps) {
  xffi_object *paths[2] = {NULL, NULL};
  int status = XFFI_OK;
  for (int side = 0; side < 2 && status == XFFI_OK; ++side) {
    status = xffi_access_path_extend(&paths[side], NULL, 0, NULL);
    for (size_t i = steps->count; status == XFFI_OK && i-- > 0;) {
      const mismatch_step *s = xffi_walk_vec_at(steps, i);
      xffi_object *longer = NULL;
      status = side ? xffi_access_path_extend(&longer, paths[side], s->rhs_kind, &s->rhs_key)
                    : xffi_access_path_extend(&longer, paths[side], s->lhs_kind, &s->lhs_key);
      xffi_object_dec_ref(paths[side]);
      paths[side] = longer;
    }
  }
  xffi_object *pair = NULL;
  if (status == XFFI_OK) {
    xffi_any items[2] = {xffi_any_object(paths[0]), xffi_any_object(paths[1])};
    status = xffi_array_new(&pair, items, 2);
  }
  xffi_object_dec_ref(paths[0]);
  xffi_object_dec_ref(paths[1]);
  if (status != XFFI_OK) return XFFI_FAIL;
  *out = xffi_any_object(pair);
  return XFFI_OK;
}

int xffi_structural_first_mismatch(xffi_any *out, const xffi_any *lhs, const xffi_any *rhs, int32_t options) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  XFFI_CHECK_ARG_NOT_NULL(lhs);
  XFFI_CHECK_ARG_NOT_NULL(rhs);
  XFFI_CHECK_ARG_ANY(lhs);
  XFFI_CHECK_ARG_ANY(rhs);
  CHECK_OPTIONS("xffi_structural_first_mismatch", options);
  xffi_walk_vec steps = {NULL, 0, 0, sizeof(mismatch_step)};
  int equal = 0;
  int status = run(&equal, lhs, rhs, options, &steps);
  if (status == XFFI_OK && !equal) status = paths_of(out, &steps);
  for (size_t i = 0; i < steps.count; ++i) {
    mismatch_step *s = xffi_walk_vec_at(&steps, i);
    xffi_any_release(&s->lhs_key);
    xffi_any_release(&s->rhs_key);
  }
  xffi_walk_vec_free(&steps);
  return status;
}
