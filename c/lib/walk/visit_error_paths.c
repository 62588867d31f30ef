/* c/lib/walk/visit_error_paths.c: xffi_visit_error_context_find_paths, tvm-ffi's
 * VisitErrorContext::FindAccessPaths: where in a root the objects recorded
 * by an error's ffi.VisitErrorContext (c/lib/walk/visit_error_context.c) are.
 *
 * The record is innermost first, so its last entry is looked for first: a
 * depth-first walk from the root counts how many entries the objects on
 * the current path have matched, in order, and reports the path where the
 * count reaches the whole record (not descending further there). The walk
 * keeps its frames on the heap (c/lib/walk/recursive_walk.h): a frame per container
 * or reflected object whose children are being looked at, with the access
 * path to its current child built only when a result needs it and kept
 * for the next result below the same frames.
 *
 * A List, Dict or object can hold itself. Rather than keep a set of the
 * objects on the path, the walk stops with tvm-ffi's depth bound (a
 * ValueError past 2^20 levels): only such a cycle, or a value as deep,
 * reaches it, and tvm-ffi's recursion would not survive either. */
#include <xffi/array.h>
#include <xffi/structural_visit.h>

#include "runtime/check.h"
#include "lib/walk/recursive_walk.h"
#include "lib/reflection/runtime_types.h"
#include "lib/walk/visit_error_context.h"

typedef struct find_frame {
  xffi_walk_frame walk;
  int matched;             /* a reflected object that matched the next entry of the record */
  size_t results_before;   /* results found before the frame began */
  xffi_object *child_path; /* the path to the current child, when built (owned), else NULL */
} find_frame;

typedef struct finder {
  const xffi_object **pattern; /* the record, outermost first, runs and non-objects dropped (borrowed) */
  size_t size, matched;
  int allow_prefix_match;
  xffi_object *root_path; /* owned */
  xffi_walk_vec frames;   /* find_frame */
  xffi_walk_vec results;  /* xffi_any: AccessPath, owned */
} finder;

/* The record of context, outermost entry first, with runs of the same
 * object collapsed and entries that are not objects left out. */
static int read_pattern(finder *f, const xffi_object *context, xffi_walk_vec *storage) {
  const xffi_object *list = ((const visit_error_context *)(const void *)context)->reverse_visit_pattern;
  if (!list) return XFFI_OK;
  if (list->type_index != XFFI_TYPE_LIST && list->type_index != XFFI_TYPE_ARRAY)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: context.reverse_visit_pattern expected a List, got %s",
                            "xffi_visit_error_context_find_paths", xffi_type_key(list->type_index));
  const xffi_any *items = xffi_seq_items_unchecked(list);
  for (int64_t i = xffi_seq_size_unchecked(list); i-- > 0;) {
    if (!xffi_any_is_object(&items[i])) continue;
    const xffi_object **last = storage->count ? xffi_walk_vec_top(storage) : NULL;
    if (last && *last == items[i].v_obj) continue;
    const xffi_object **slot = xffi_walk_vec_push(storage);
    if (!slot) return XFFI_FAIL;
    *slot = items[i].v_obj;
  }
  f->pattern = (const xffi_object **)(void *)storage->data;
  f->size = storage->count;
  return XFFI_OK;
}

/* The access step from frame fr to its current child: *kind and *key (owned). */
static int step_of(const find_frame *fr, int32_t *kind, xffi_any *key) {
  const xffi_walk_frame *w = &fr->walk;
  if (w->kind == XFFI_WALK_SEQ) {
    *kind = XFFI_ACCESS_ARRAY_ITEM;
    *key = xffi_any_int(w->position - 1);
    return XFFI_OK;
  }
  if (w->kind == XFFI_WALK_MAP) {
    *kind = XFFI_ACCESS_MAP_ITEM;
    return xffi_any_copy(key, w->item.key);
  }
  *kind = XFFI_ACCESS_ATTR;
  return xffi_any_from_str(key, w->field->name.data, w->field->name.size);
}

/* Adds the path to the current child of the top `depth` frames (the root
 * for 0) to the results, building what the frames have not cached. */
static int record(finder *f, size_t depth) {
  size_t built = depth;
  while (built > 0 && !((find_frame *)xffi_walk_vec_at(&f->frames, built - 1))->child_path) --built;
  for (; built < depth; ++built) {
    find_frame *fr = xffi_walk_vec_at(&f->frames, built);
    xffi_object *parent = built ? ((find_frame *)xffi_walk_vec_at(&f->frames, built - 1))->child_path : f->root_path;
    int32_t kind = 0;
    xffi_any key;
    if (step_of(fr, &kind, &key) != XFFI_OK) return XFFI_FAIL;
    int status = xffi_access_path_extend(&fr->child_path, parent, kind, &key);
    xffi_any_release(&key);
    if (status != XFFI_OK) return XFFI_FAIL;
  }
  xffi_object *path = depth ? ((find_frame *)xffi_walk_vec_at(&f->frames, depth - 1))->child_path : f->root_path;
  xffi_any *slot = xffi_walk_vec_push(&f->results);
  if (!slot) return XFFI_FAIL;
  xffi_object_inc_ref(path);
  *slot = xffi_any_object(path);
  return XFFI_OK;
}

static int is_container(int32_t t) {
  return t == XFFI_TYPE_ARRAY || t == XFFI_TYPE_LIST || t == XFFI_TYPE_MAP || t == XFFI_TYPE_DICT;
}

/* Meets value (borrowed), reached through the top frame's current child
 * (or the root when no frame is open): matches it, records a result, or
 * opens its frame. A container below the root is only passed through; the
 * root is taken as an object whatever it is, as tvm-ffi does, so a
 * container root (no reflection metadata) finds nothing. */
static int meet(finder *f, const xffi_any *value) {
  if (!xffi_any_is_object(value)) return XFFI_OK;
  int matched = 0;
  if (!is_container(value->type_index) || f->frames.count == 0) {
    if (!xffi_object_type_info_unchecked(value->v_obj)->metadata) return XFFI_OK;
    matched = f->matched < f->size && value->v_obj == f->pattern[f->matched];
    if (matched && f->matched + 1 == f->size) return record(f, f->frames.count);
    if (is_container(value->type_index)) return XFFI_OK;
  }
  if (f->frames.count >= XFFI_WALK_MAX_DEPTH) return xffi_walk_raise_too_deep("xffi_visit_error_context_find_paths");
  find_frame *fr = xffi_walk_vec_push(&f->frames);
  if (!fr) return XFFI_FAIL;
  if (xffi_walk_begin(&fr->walk, value, 0) != XFFI_OK) {
    --f->frames.count;
    return XFFI_FAIL;
  }
  fr->matched = matched;
  fr->results_before = f->results.count;
  fr->child_path = NULL;
  f->matched += (size_t)matched;
  return XFFI_OK;
}

/* Closes the top frame, whose children are done: a reflected object below
 * the root with part of the record matched on its path and nothing found
 * under it is a result when prefixes are allowed. */
static int close_top(finder *f) {
  find_frame *fr = xffi_walk_vec_top(&f->frames);
  int status = XFFI_OK;
  if (fr->walk.kind == XFFI_WALK_OBJECT && f->allow_prefix_match && f->matched > 0 && f->matched < f->size &&
      f->frames.count > 1 && f->results.count == fr->results_before)
    status = record(f, f->frames.count - 1);
  f->matched -= (size_t)fr->matched;
  if (fr->child_path) xffi_object_dec_ref(fr->child_path);
  xffi_walk_end(&fr->walk);
  --f->frames.count;
  return status;
}

static int run(finder *f, const xffi_any *root) {
  if (f->size == 0 || meet(f, root) != XFFI_OK) return f->size == 0 ? XFFI_OK : XFFI_FAIL;
  while (f->frames.count > 0) {
    find_frame *fr = xffi_walk_vec_top(&f->frames);
    if (fr->child_path) {
      xffi_object_dec_ref(fr->child_path);
      fr->child_path = NULL;
    }
    const xffi_any *child = NULL;
    int more = xffi_walk_next(&fr->walk, &child, 0);
    if (more < 0) return XFFI_FAIL;
    if (more == 0) {
      if (close_top(f) != XFFI_OK) return XFFI_FAIL;
      continue;
    }
    /* A Map gives its key, then its value: only values are looked into, and
     * only entries with neither None. */
    if (fr->walk.kind == XFFI_WALK_MAP && ((fr->walk.position & 1) || fr->walk.item.key->type_index == XFFI_TYPE_NONE))
      continue;
    /* The child may live in the frame, which a push can move: hold it. */
    xffi_any held = *child;
    if (xffi_any_is_object(&held)) xffi_object_inc_ref(held.v_obj);
    int status = meet(f, &held);
    if (xffi_any_is_object(&held)) xffi_object_dec_ref(held.v_obj);
    if (status != XFFI_OK) return XFFI_FAIL;
  }
  return XFFI_OK;
}

int xffi_visit_error_context_find_paths(xffi_any *out, const xffi_any *root, const xffi_object *context,
                                        int allow_prefix_match) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = xffi_any_none();
  XFFI_CHECK_ARG_NOT_NULL(root);
  XFFI_CHECK_ARG_NOT_NULL(context);
  if (xffi_visit_error_context_type() < 0) return XFFI_FAIL;
  if (!xffi_visit_error_context_is(context))
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: context expected ffi.VisitErrorContext, got %s", __func__,
                            xffi_type_key(context->type_index));
  finder f = {
      NULL, 0, 0, allow_prefix_match != 0, NULL, {NULL, 0, 0, sizeof(find_frame)}, {NULL, 0, 0, sizeof(xffi_any)}};
  xffi_walk_vec pattern = {NULL, 0, 0, sizeof(const xffi_object *)};
  int status = read_pattern(&f, context, &pattern);
  if (status == XFFI_OK) status = xffi_access_path_extend(&f.root_path, NULL, 0, NULL);
  if (status == XFFI_OK) status = run(&f, root);
  xffi_object *paths = NULL;
  if (status == XFFI_OK)
    status = xffi_array_new(&paths, (const xffi_any *)(void *)f.results.data, (int64_t)f.results.count);
  while (f.frames.count > 0) {
    find_frame *fr = xffi_walk_vec_top(&f.frames);
    if (fr->child_path) xffi_object_dec_ref(fr->child_path);
    xffi_walk_end(&fr->walk);
    --f.frames.count;
  }
  for (size_t i = 0; i < f.results.count; ++i) xffi_any_release(xffi_walk_vec_at(&f.results, i));
  xffi_walk_vec_free(&f.results);
  xffi_walk_vec_free(&f.frames);
  xffi_walk_vec_free(&pattern);
  if (f.root_path) xffi_object_dec_ref(f.root_path);
  if (status != XFFI_OK) return XFFI_FAIL;
  *out = xffi_any_object(paths);
  return XFFI_OK;
}
