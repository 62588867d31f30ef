/* c/lib/walk/structural_visit.c: xffi_structural_walk and xffi_structural_visit
 * (ffi.StructuralWalk, ffi.StructuralVisit), ffi.VisitInterrupt, and the
 * visitor/mutator link objects (c/lib/walk/structural_visit_object.h).
 *
 * One engine runs both: a heap stack of frames (c/lib/walk/recursive_walk.h), one per
 * container or object whose children are being visited. A walk calls its
 * callback before (pre-order) or after (post-order) a value's frame; a
 * visit calls it instead of the frame, unless the callback declines. An
 * error records the value that failed and each open frame's value in its
 * ffi.VisitErrorContext (c/lib/walk/visit_error_context.c), once per value as
 * tvm-ffi's levels do. */
#include <string.h>

#include <xffi/function.h>
#include <xffi/reflection.h>

#include "runtime/check.h"
#include "lib/walk/structural_visit_object.h"
#include "runtime/type_internal.h"
#include "lib/walk/visit_error_context.h"

/* ---- Link objects ---- */

static const char visitor_key[] = "ffi.StructuralVisitor";

/* A native hook, as tvm-ffi calls it: hook(walker, value), value borrowed;
 * returns an owned value: None (go on), the walker's own interrupt, or an
 * Error. */
typedef xffi_any (*native_hook)(structural_engine_link *walker, xffi_any value);

/* The visitor's function table for native hooks (tvm-ffi's layout: one
 * entry, visit). */
typedef struct native_visitor_table {
  native_hook visit;
} native_visitor_table;

static xffi_any native_visit(structural_engine_link *walker, xffi_any value);
static const native_visitor_table visitor_table = {native_visit};

static void link_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

int xffi_structural_link_new(xffi_object **out, const char *type_key, void *engine) {
  if (xffi_type_builtins_ensure() != XFFI_OK) return XFFI_FAIL;
  const xffi_type_info *info = xffi_type_find_by_key(type_key, strlen(type_key));
  if (!info) return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: the type is not registered", type_key);
  structural_engine_link *link =
      xffi_runtime_object_alloc(sizeof(structural_engine_link), _Alignof(structural_engine_link), info->type_index);
  if (!link) return XFFI_FAIL;
  xffi_object_init(&link->header, info->type_index, link_deleter);
  link->table = strcmp(type_key, visitor_key) == 0 ? (const void *)&visitor_table : NULL;
  link->def_region_kind = XFFI_DEF_REGION_NONE;
  link->engine = engine;
  *out = &link->header;
  return XFFI_OK;
}

int xffi_structural_link_copy(xffi_object **out, const xffi_object *src, int32_t type_index) {
  /* Only tvm-ffi's members are read: src may be another runtime's walker. */
  const structural_engine_link *from = (const structural_engine_link *)(const void *)src;
  structural_engine_link *link =
      xffi_runtime_object_alloc(sizeof(structural_engine_link), _Alignof(structural_engine_link), type_index);
  if (!link) return XFFI_FAIL;
  xffi_object_init(&link->header, type_index, link_deleter);
  link->table = from->table;
  link->def_region_kind = from->def_region_kind;
  link->engine = NULL; /* the original's walk is not the copy's: its walk has ended */
  *out = &link->header;
  return XFFI_OK;
}

void *xffi_structural_link_engine(const xffi_object *link, const char *type_key, const char *fn) {
  if (!link) {
    xffi_error_raise(XFFI_KIND_VALUE, "%s: the %s is NULL", fn, type_key);
    return NULL;
  }
  xffi_byte_array key = xffi_object_type_info_unchecked(link)->type_key;
  if (key.size != strlen(type_key) || memcmp(key.data, type_key, key.size) != 0) {
    xffi_error_raise(XFFI_KIND_TYPE, "%s: expected %s, got %.*s", fn, type_key, (int)key.size, key.data);
    return NULL;
  }
  void *engine = ((const structural_engine_link *)(const void *)link)->engine;
  if (!engine) xffi_error_raise(XFFI_KIND_RUNTIME, "%s: the %s was used after its walk ended", fn, type_key);
  return engine;
}

int xffi_structural_call_in_region(xffi_any *out, int32_t *region, int32_t kind, xffi_object *function,
                                   const char *fn) {
  *out = xffi_any_none();
  if (kind < XFFI_DEF_REGION_NONE || kind > XFFI_DEF_REGION_SIMPLE)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: kind must be a DefRegionKind (0, 1 or 2), got %d", fn, (int)kind);
  if (!function || function->type_index != XFFI_TYPE_FUNCTION)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: callback must be an ffi.Function", fn);
  int32_t saved = *region;
  *region = xffi_structural_scoped_region(saved, kind);
  int status = xffi_function_call(function, NULL, 0, out);
  *region = saved;
  return status;
}

int32_t xffi_structural_fields_region(const xffi_object *obj, int32_t region) {
  const xffi_type_metadata *metadata = xffi_object_type_info_unchecked(obj)->metadata;
  if (metadata && metadata->structural_eq_hash_kind == XFFI_SEQ_HASH_FREE_VAR && region == XFFI_DEF_REGION_SIMPLE)
    return XFFI_DEF_REGION_NONE;
  return region;
}

/* ---- ffi.VisitInterrupt ---- */

typedef struct visit_interrupt {
  xffi_object header;
  xffi_any value;
} visit_interrupt;

static void interrupt_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) xffi_any_release(&((visit_interrupt *)self)->value);
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

int xffi_visit_interrupt_new(xffi_object **out, const xffi_any *value) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_NOT_NULL(value);
  xffi_any copy;
  if (xffi_any_copy(&copy, value) != XFFI_OK) return XFFI_FAIL;
  visit_interrupt *v =
      xffi_runtime_object_alloc(sizeof(visit_interrupt), _Alignof(visit_interrupt), XFFI_TYPE_VISIT_INTERRUPT);
  if (!v) {
    xffi_any_release(&copy);
    return XFFI_FAIL;
  }
  xffi_object_init(&v->header, XFFI_TYPE_VISIT_INTERRUPT, interrupt_deleter);
  v->value = copy;
  *out = &v->header;
  return XFFI_OK;
}

int xffi_visit_interrupt_value(xffi_any *out, const xffi_object *interrupt) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  XFFI_CHECK_ARG_NOT_NULL(interrupt);
  if (interrupt->type_index != XFFI_TYPE_VISIT_INTERRUPT)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: expected ffi.VisitInterrupt, got %s", __func__,
                            xffi_type_key(interrupt->type_index));
  return xffi_any_copy(out, &((const visit_interrupt *)(const void *)interrupt)->value);
}

/* ---- The engine ---- */

typedef struct visit_engine {
  const char *fn; /* the operation, for messages */
  int walk;       /* 1: walk (callbacks around frames), 0: visit (callback instead of a frame) */
  int32_t order;
  xffi_structural_walk_callback walk_callback;
  xffi_structural_visit_callback visit_callback;
  void *resource;
  xffi_object *visitor;               /* the link handed to callbacks and hooks (owned; made when first needed) */
  int32_t region;                     /* the region of the value at hand (what callbacks see) */
  const xffi_type_attr_column *hooks; /* `__s_visit__`, or NULL when no type has one */
} visit_engine;

typedef struct visit_frame {
  xffi_walk_frame walk;
  int32_t region;        /* the region the value itself is in */
  int32_t fields_region; /* an object's: where its fields start */
} visit_frame;

enum { GO_ON = 0, STOP = 1, LEAVE_OUT = 2, PUSHED = 3 };

/* Reads a callback's result (owned; consumed): GO_ON, LEAVE_OUT, or STOP
 * with the interrupt moved to *out; -1 raised for another kind. */
static int read_result(visit_engine *e, int walk_result, xffi_any *result, const xffi_any *value, xffi_any *out) {
  int32_t t = result->type_index;
  if (t == XFFI_TYPE_NONE) return GO_ON;
  if (t == XFFI_TYPE_VISIT_INTERRUPT) {
    xffi_any_move(out, result);
    return STOP;
  }
  if (walk_result && (t == XFFI_TYPE_INT || t == XFFI_TYPE_BOOL))
    return result->v_int64 == XFFI_STRUCTURAL_SKIP ? LEAVE_OUT : GO_ON;
  xffi_error_raise(XFFI_KIND_TYPE, "%s: the callback for a %s returned %s, expected %s", e->fn,
                   xffi_any_kind_name(value), xffi_any_kind_name(result),
                   walk_result ? "None, a WalkResult (int) or ffi.VisitInterrupt" : "None or ffi.VisitInterrupt");
  xffi_any_release(result);
  return -1;
}

/* Calls the walk callback on value in region. */
static int call_walk(visit_engine *e, const xffi_any *value, int32_t region, xffi_any *out) {
  xffi_any result = xffi_any_none();
  e->region = region;
  int status = e->walk_callback(e->resource, value, region, &result);
  if (status == XFFI_STRUCTURAL_DECLINED) {
    xffi_any_release(&result);
    return GO_ON;
  }
  if (status != XFFI_OK) {
    xffi_any_release(&result);
    return -1;
  }
  return read_result(e, 1, &result, value, out);
}

static int push_frame(visit_engine *e, xffi_walk_vec *stack, const xffi_any *value, int32_t region) {
  if (stack->count >= XFFI_WALK_MAX_DEPTH) return xffi_walk_raise_too_deep(e->fn);
  visit_frame *f = xffi_walk_vec_push(stack);
  if (!f) return XFFI_FAIL;
  if (xffi_walk_begin(&f->walk, value, XFFI_FIELD_SEQ_HASH_IGNORE) != XFFI_OK) {
    --stack->count;
    return XFFI_FAIL;
  }
  f->region = region;
  f->fields_region = xffi_structural_fields_region(value->v_obj, region);
  return XFFI_OK;
}

static int run(visit_engine *e, const xffi_any *value, int32_t region, int children_only, xffi_any *out);

/* The visitor's visit for native hooks: visits value (borrowed) in the
 * region the walker holds (a hook may have changed it), as
 * xffi_structural_visitor_visit does for Function hooks. */
static xffi_any native_visit(structural_engine_link *walker, xffi_any value) {
  xffi_any out = xffi_any_none();
  visit_engine *e = walker->engine;
  if (!e) {
    xffi_error_raise(XFFI_KIND_RUNTIME,
                     "a native __s_visit__ hook used the ffi.StructuralVisitor after its walk ended");
  } else {
    e->region = walker->def_region_kind;
    if (run(e, &value, e->region, 0, &out) == XFFI_OK) return out;
  }
  xffi_object *err = xffi_error_move_raised();
  if (err) {
    out.type_index = XFFI_TYPE_ERROR;
    out.v_obj = err;
  }
  return out;
}

/* Calls a type's native `__s_visit__` hook (an opaque pointer to a C
 * function) on value (borrowed) in region, with the visitor in tvm-ffi's
 * layout. GO_ON, STOP (*out set) or -1 raised. */
static int call_native_hook(visit_engine *e, const xffi_any *hook, const xffi_any *value, int32_t region,
                            xffi_any *out) {
  if (!e->visitor && xffi_structural_link_new(&e->visitor, visitor_key, e) != XFFI_OK) return -1;
  structural_engine_link *walker = (structural_engine_link *)(void *)e->visitor;
  native_hook call;
  _Static_assert(sizeof(call) == sizeof(hook->v_ptr), "a function pointer fits an OpaquePtr");
  memcpy(&call, &hook->v_ptr, sizeof(call));
  walker->def_region_kind = e->region = region;
  xffi_any result = call(walker, *value);
  if (result.type_index == XFFI_TYPE_ERROR) {
    xffi_error_set_raised(result.v_obj);
    return -1;
  }
  return read_result(e, 0, &result, value, out);
}

/* Visits the children of value (borrowed, an object) in region: through its
 * type's `__s_visit__` hook (a Function (visitor, value) -> None or an
 * interrupt, or a native hook), which runs now, or else by pushing its frame. PUSHED, GO_ON
 * (the hook ran), STOP (*out set) or -1 raised. */
static int open_value(visit_engine *e, xffi_walk_vec *stack, const xffi_any *value, int32_t region, xffi_any *out) {
  const xffi_any *hook =
      value->type_index >= XFFI_WALK_STATIC_OBJECT_END ? xffi_walk_type_attr(e->hooks, value->type_index) : NULL;
  if (!hook) return push_frame(e, stack, value, region) == XFFI_OK ? PUSHED : -1;
  if (hook->type_index == XFFI_TYPE_OPAQUE_PTR && hook->v_ptr) return call_native_hook(e, hook, value, region, out);
  if (hook->type_index != XFFI_TYPE_FUNCTION)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: __s_visit__ of %s must be an ffi.Function, got %s", e->fn,
                            xffi_type_key(value->type_index), xffi_any_kind_name(hook)),
           -1;
  if (!e->visitor && xffi_structural_link_new(&e->visitor, visitor_key, e) != XFFI_OK) return -1;
  xffi_any args[2] = {xffi_any_object(e->visitor), *value}, result = xffi_any_none();
  e->region = region;
  if (xffi_function_call(hook->v_obj, args, 2, &result) != XFFI_OK) return -1;
  return read_result(e, 0, &result, value, out);
}

/* Whether value has children to visit: an object other than a String,
 * Bytes or BigInt (which have no fields: no frame is needed for them). */
static int has_children(const xffi_any *value) {
  int32_t t = value->type_index;
  return xffi_any_is_object(value) && t != XFFI_TYPE_STRING && t != XFFI_TYPE_BYTES && t != XFFI_TYPE_BIGINT;
}

/* Meets value (borrowed) in region: calls the callback and/or visits its
 * children. GO_ON, STOP (*out set) or -1 raised. */
static int meet(visit_engine *e, xffi_walk_vec *stack, const xffi_any *value, int32_t region, xffi_any *out) {
  if (value->type_index == XFFI_TYPE_NONE) return GO_ON;
  int has_frame = has_children(value);
  if (e->walk) {
    if (e->order == XFFI_STRUCTURAL_PREORDER) {
      int r = call_walk(e, value, region, out);
      if (r != GO_ON) return r == LEAVE_OUT ? GO_ON : r;
    }
    if (has_frame) {
      int opened = open_value(e, stack, value, region, out);
      if (opened == PUSHED) return GO_ON;
      if (opened != GO_ON) return opened;
    }
    if (e->order == XFFI_STRUCTURAL_POSTORDER) {
      int r = call_walk(e, value, region, out);
      return r == LEAVE_OUT ? GO_ON : r;
    }
    return GO_ON;
  }
  xffi_any result = xffi_any_none();
  e->region = region;
  int status = e->visit_callback(e->resource, e->visitor, value, &result);
  if (status == XFFI_STRUCTURAL_DECLINED) {
    xffi_any_release(&result);
    if (!has_frame) return GO_ON;
    int opened = open_value(e, stack, value, region, out);
    return opened == PUSHED ? GO_ON : opened;
  }
  if (status != XFFI_OK) {
    xffi_any_release(&result);
    return -1;
  }
  return read_result(e, 0, &result, value, out);
}

/* Visits value (borrowed) in region; with children_only, value's frame is
 * pushed without a callback for value itself (default_visit). *out: None,
 * or the interrupt that stopped the walk. */
static int run(visit_engine *e, const xffi_any *value, int32_t region, int children_only, xffi_any *out) {
  *out = xffi_any_none();
  int32_t entry_region = e->region;
  xffi_walk_vec stack = {NULL, 0, 0, sizeof(visit_frame)};
  int r;
  if (children_only) {
    /* default_visit: an error of value's own hook does not name value. */
    r = has_children(value) ? open_value(e, &stack, value, region, out) : GO_ON;
    if (r == PUSHED) r = GO_ON;
  } else {
    r = meet(e, &stack, value, region, out);
    if (r < 0) xffi_visit_error_context_note(value);
  }
  while (r == GO_ON && stack.count > 0) {
    visit_frame *f = xffi_walk_vec_top(&stack);
    const xffi_any *child = NULL;
    int more = xffi_walk_next(&f->walk, &child, XFFI_FIELD_SEQ_HASH_IGNORE);
    if (more < 0) {
      r = -1;
      break;
    }
    if (more == 0) {
      visit_frame done = *f;
      --stack.count;
      int call_after = e->walk && e->order == XFFI_STRUCTURAL_POSTORDER && !(children_only && stack.count == 0);
      r = call_after ? call_walk(e, &done.walk.held, done.region, out) : GO_ON;
      if (r == LEAVE_OUT) r = GO_ON;
      if (r < 0) xffi_visit_error_context_note(&done.walk.held);
      xffi_walk_end(&done.walk);
      continue;
    }
    /* A Map's keys are anchors, not children: only its values are visited. */
    if (f->walk.kind == XFFI_WALK_MAP && (f->walk.position & 1)) continue;
    int32_t child_region = f->region;
    if (f->walk.kind == XFFI_WALK_OBJECT) {
      child_region = f->fields_region;
      if (f->walk.field->flags & XFFI_FIELD_SEQ_HASH_DEF_SIMPLE)
        child_region = xffi_structural_scoped_region(child_region, XFFI_DEF_REGION_SIMPLE);
      else if (f->walk.field->flags & XFFI_FIELD_SEQ_HASH_DEF_PATTERN)
        child_region = xffi_structural_scoped_region(child_region, XFFI_DEF_REGION_PATTERN);
    }
    /* The child may live in the frame, which a push can move: hold it. */
    xffi_any held = *child;
    if (xffi_any_is_object(&held)) xffi_object_inc_ref(held.v_obj);
    r = meet(e, &stack, &held, child_region, out);
    if (r < 0) xffi_visit_error_context_note(&held);
    if (xffi_any_is_object(&held)) xffi_object_dec_ref(held.v_obj);
  }
  /* An error names each value whose children were being visited, innermost
   * first (tvm-ffi's levels), except the one default_visit was given. */
  for (size_t i = stack.count; r < 0 && i-- > (children_only ? 1u : 0u);)
    xffi_visit_error_context_note(&((visit_frame *)xffi_walk_vec_at(&stack, i))->walk.held);
  for (size_t i = 0; i < stack.count; ++i) xffi_walk_end(&((visit_frame *)xffi_walk_vec_at(&stack, i))->walk);
  xffi_walk_vec_free(&stack);
  e->region = entry_region;
  if (r < 0) {
    xffi_any_release(out);
    return XFFI_FAIL;
  }
  return XFFI_OK;
}

int xffi_structural_walk(xffi_any *out, const xffi_any *root, int32_t order, xffi_structural_walk_callback callback,
                         void *resource) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  XFFI_CHECK_ARG_NOT_NULL(root);
  XFFI_CHECK_ARG_NOT_NULL(callback);
  if (order != XFFI_STRUCTURAL_PREORDER && order != XFFI_STRUCTURAL_POSTORDER)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: order must be 0 (pre-order) or 1 (post-order), got %d", __func__,
                            (int)order);
  visit_engine e = {"StructuralWalk",
                    1,
                    order,
                    callback,
                    NULL,
                    resource,
                    NULL,
                    XFFI_DEF_REGION_NONE,
                    xffi_walk_column("__s_visit__")};
  int status = run(&e, root, XFFI_DEF_REGION_NONE, 0, out);
  if (e.visitor) {
    ((structural_engine_link *)(void *)e.visitor)->engine = NULL;
    xffi_object_dec_ref(e.visitor);
  }
  return status;
}

int xffi_structural_visit(xffi_any *out, const xffi_any *root, xffi_structural_visit_callback callback,
                          void *resource) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  XFFI_CHECK_ARG_NOT_NULL(root);
  XFFI_CHECK_ARG_NOT_NULL(callback);
  visit_engine e = {
      "StructuralVisit", 0, 0, NULL, callback, resource, NULL, XFFI_DEF_REGION_NONE, xffi_walk_column("__s_visit__")};
  if (xffi_structural_link_new(&e.visitor, visitor_key, &e) != XFFI_OK) return XFFI_FAIL;
  int status = run(&e, root, XFFI_DEF_REGION_NONE, 0, out);
  ((structural_engine_link *)(void *)e.visitor)->engine = NULL;
  xffi_object_dec_ref(e.visitor);
  return status;
}

static int visitor_run(xffi_any *out, xffi_object *visitor, const xffi_any *value, int children_only, const char *fn) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  XFFI_CHECK_ARG_NOT_NULL(value);
  visit_engine *e = xffi_structural_link_engine(visitor, visitor_key, fn);
  if (!e) return XFFI_FAIL;
  return run(e, value, e->region, children_only, out);
}

int xffi_structural_visitor_visit(xffi_any *out, xffi_object *visitor, const xffi_any *value) {
  return visitor_run(out, visitor, value, 0, __func__);
}

int xffi_structural_visitor_default_visit(xffi_any *out, xffi_object *visitor, const xffi_any *value) {
  return visitor_run(out, visitor, value, 1, __func__);
}

int xffi_structural_visitor_def_region(int32_t *out, const xffi_object *visitor) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = XFFI_DEF_REGION_NONE;
  visit_engine *e = xffi_structural_link_engine(visitor, visitor_key, __func__);
  if (!e) return XFFI_FAIL;
  *out = e->region;
  return XFFI_OK;
}

int xffi_structural_visitor_with_def_region(xffi_any *out, xffi_object *visitor, int32_t kind, xffi_object *function) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  visit_engine *e = xffi_structural_link_engine(visitor, visitor_key, __func__);
  if (!e) return XFFI_FAIL;
  return xffi_structural_call_in_region(out, &e->region, kind, function, __func__);
}
