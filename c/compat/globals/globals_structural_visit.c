/* c/compat/globals/globals_structural_visit.c: ffi.VisitInterrupt, ffi.StructuralWalk,
 * ffi.StructuralVisit, ffi.StructuralMap, ffi.StructuralMutate,
 * ffi.VisitErrorContext.FindAccessPaths and the
 * visitor's and mutator's methods (tvm_ffi.structural), on
 * xffi/structural_visit.h. Arguments are borrowed, except the root of a map
 * or mutate, which is taken over when it is moved (an rvalue reference) and
 * copied otherwise; results are owned by the caller. The Functions are
 * static and immortal (c/compat/globals/builtin_globals.h).
 *
 * Callbacks come as tvm_ffi.structural builds them: a sequence of
 * (type_index, Function) pairs ((type_index, Function, takes_mode) for
 * StructuralMutate), tried in order; the first whose type matches the value
 * (tvm-ffi's RuntimeTypeIndexMatch) is called. */
#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/structural_visit.h>
#include <xffi/tvm_ffi.h>

#include "compat/globals/builtin_globals.h"
#include "runtime/global_args.h"
#include "lib/walk/visit_error_context.h"

/* tvm-ffi's type index of `typing.Any` in a callback entry: matches all. */
#define ANY_TYPE_INDEX (-1)

typedef struct callback_entry {
  int32_t type_index;
  xffi_object *function; /* borrowed from the argument */
  int extra;             /* takes the def-region kind (walk, map) or the inplace mode (mutate) */
} callback_entry;

typedef struct callback_table {
  const char *fn;
  callback_entry *entries;
  int64_t count;
  xffi_object *link_arg; /* visit and mutate: handed as the second argument */
} callback_table;

/* Reads the entries of args[index] (a sequence of width-element
 * sequences) into t, appending; with_extra marks them (walk, map), or
 * width 3 reads it from the third element (mutate). */
static int read_entries(callback_table *t, const xffi_any *args, int32_t index, int32_t width, int with_extra) {
  const xffi_any *arg = &args[index];
  if (arg->type_index != XFFI_TYPE_ARRAY && arg->type_index != XFFI_TYPE_LIST)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: argument %d: expected a sequence of callback entries, got %s", t->fn,
                            (int)index, xffi_any_kind_name(arg));
  int64_t count = xffi_seq_size_unchecked(arg->v_obj);
  const xffi_any *items = xffi_seq_items_unchecked(arg->v_obj);
  callback_entry *grown = xffi_realloc(t->entries, (size_t)(t->count + count + 1) * sizeof(callback_entry));
  if (!grown) return xffi_error_raise_out_of_memory();
  t->entries = grown;
  for (int64_t i = 0; i < count; ++i) {
    const xffi_any *entry = &items[i];
    int ok = (entry->type_index == XFFI_TYPE_ARRAY || entry->type_index == XFFI_TYPE_LIST) &&
             xffi_seq_size_unchecked(entry->v_obj) == width;
    const xffi_any *parts = ok ? xffi_seq_items_unchecked(entry->v_obj) : NULL;
    ok = ok && parts[0].type_index == XFFI_TYPE_INT && parts[1].type_index == XFFI_TYPE_FUNCTION &&
         (width < 3 || parts[2].type_index == XFFI_TYPE_BOOL);
    if (!ok)
      return xffi_error_raise(
          XFFI_KIND_TYPE, "%s: argument %d: entry %lld must be (type_index: int, callback: %s), got %s", t->fn,
          (int)index, (long long)i, width < 3 ? "ffi.Function" : "ffi.Function, takes_inplace_mode: bool",
          xffi_any_kind_name(entry));
    callback_entry *e = &t->entries[t->count++];
    e->type_index = (int32_t)parts[0].v_int64;
    e->function = parts[1].v_obj;
    e->extra = width < 3 ? with_extra : parts[2].v_int64 != 0;
  }
  return XFFI_OK;
}

/* tvm-ffi's RuntimeTypeIndexMatch: exact, Any, str/bytes with their small
 * forms, Object with any object, or an ancestor object type. */
static int matches(const xffi_any *value, int32_t target) {
  int32_t actual = value->type_index;
  if (actual == target || target == ANY_TYPE_INDEX) return 1;
  if (target == XFFI_TYPE_STRING) return actual == XFFI_TYPE_SMALL_STR;
  if (target == XFFI_TYPE_BYTES) return actual == XFFI_TYPE_SMALL_BYTES;
  if (target == XFFI_TYPE_OBJECT) return actual >= XFFI_TYPE_STATIC_OBJECT_BEGIN;
  if (actual < XFFI_TYPE_STATIC_OBJECT_BEGIN || target < XFFI_TYPE_STATIC_OBJECT_BEGIN || actual < target) return 0;
  int is_a = 0;
  return xffi_object_is_a(&is_a, value->v_obj, target) == XFFI_OK && is_a;
}

static const callback_entry *find_entry(const callback_table *t, const xffi_any *value) {
  for (int64_t i = 0; i < t->count; ++i)
    if (matches(value, t->entries[i].type_index)) return &t->entries[i];
  return NULL;
}

/* Walk and map: callback(value) or callback(value, def_region_kind). */
static int call_value_callback(void *resource, const xffi_any *value, int32_t def_region, xffi_any *result) {
  const callback_entry *e = find_entry(resource, value);
  if (!e) return XFFI_STRUCTURAL_DECLINED;
  xffi_any args[2] = {*value, xffi_any_int(def_region)};
  return xffi_function_call(e->function, args, e->extra ? 2 : 1, result);
}

/* Visit: callback(value, visitor). */
static int call_visit_callback(void *resource, xffi_object *visitor, const xffi_any *value, xffi_any *result) {
  const callback_entry *e = find_entry(resource, value);
  if (!e) return XFFI_STRUCTURAL_DECLINED;
  xffi_any args[2] = {*value, xffi_any_object(visitor)};
  return xffi_function_call(e->function, args, 2, result);
}

/* Mutate: callback(value, mutator) or callback(value, mutator, inplace_mode). */
static int call_mutate_callback(void *resource, xffi_object *mutator, const xffi_any *value, int32_t inplace_mode,
                                xffi_any *result) {
  const callback_entry *e = find_entry(resource, value);
  if (!e) return XFFI_STRUCTURAL_DECLINED;
  xffi_any args[3] = {*value, xffi_any_object(mutator), xffi_any_int(inplace_mode)};
  return xffi_function_call(e->function, args, e->extra ? 3 : 2, result);
}

static int order_of(int32_t *out, const char *fn, const xffi_any *args, int32_t num_args, int32_t index) {
  int64_t order = 0;
  if (xffi_arg_to_int(&order, args, num_args, index, fn) != XFFI_OK) return XFFI_FAIL;
  if (order != XFFI_STRUCTURAL_PREORDER && order != XFFI_STRUCTURAL_POSTORDER)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: argument %d: order must be 0 (pre-order) or 1 (post-order), got %lld",
                            fn, (int)index, (long long)order);
  *out = (int32_t)order;
  return XFFI_OK;
}

static int call_interrupt(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_global_check_call("ffi.VisitInterrupt", args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  xffi_object *made = NULL;
  if (xffi_visit_interrupt_new(&made, &args[0]) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(made);
  return XFFI_OK;
}

/* StructuralWalk and StructuralMap: (root, callbacks, callbacks_with_def_region_kind, order). */
static int walk_or_map(const char *fn, int map, const xffi_any *args, int32_t num_args, xffi_any *result) {
  if (xffi_global_check_call(fn, args, num_args, 4, result) != XFFI_OK) return XFFI_FAIL;
  callback_table t = {fn, NULL, 0, NULL};
  int32_t order = 0;
  int status = XFFI_FAIL;
  if (read_entries(&t, args, 1, 2, 0) == XFFI_OK && read_entries(&t, args, 2, 2, 1) == XFFI_OK &&
      order_of(&order, fn, args, num_args, 3) == XFFI_OK) {
    if (!map) {
      status = xffi_structural_walk(result, &args[0], order, call_value_callback, &t);
    } else {
      xffi_any root;
      if (TVMFFIAnyViewToOwnedAny(&args[0], &root) == XFFI_OK)
        status = xffi_structural_map(result, &root, order, call_value_callback, &t);
    }
  }
  xffi_free(t.entries);
  return status;
}

static int call_walk(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return walk_or_map("ffi.StructuralWalk", 0, args, num_args, result);
}

static int call_map(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return walk_or_map("ffi.StructuralMap", 1, args, num_args, result);
}

static int call_visit(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.StructuralVisit";
  if (xffi_global_check_call(fn, args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  callback_table t = {fn, NULL, 0, NULL};
  int status = read_entries(&t, args, 1, 2, 0) == XFFI_OK
                   ? xffi_structural_visit(result, &args[0], call_visit_callback, &t)
                   : XFFI_FAIL;
  xffi_free(t.entries);
  return status;
}

static int call_mutate(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.StructuralMutate";
  if (xffi_global_check_call(fn, args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  callback_table t = {fn, NULL, 0, NULL};
  int status = XFFI_FAIL;
  xffi_any root;
  if (read_entries(&t, args, 1, 3, 0) == XFFI_OK && TVMFFIAnyViewToOwnedAny(&args[0], &root) == XFFI_OK)
    status = xffi_structural_mutate(result, &root, call_mutate_callback, &t);
  xffi_free(t.entries);
  return status;
}

/* ffi.VisitErrorContext.FindAccessPaths(root: Object, context: VisitErrorContext,
 * allow_prefix_match: bool) -> Array[AccessPath]; a root of None finds nothing. */
static int call_find_paths(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.VisitErrorContext.FindAccessPaths";
  if (xffi_global_check_call(fn, args, num_args, 3, result) != XFFI_OK) return XFFI_FAIL;
  if (args[0].type_index != XFFI_TYPE_NONE && !xffi_any_is_object(&args[0]))
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: argument 0 (root): expected an object or None, got %s", fn,
                            xffi_any_kind_name(&args[0]));
  if (args[2].type_index != XFFI_TYPE_BOOL && args[2].type_index != XFFI_TYPE_INT)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: argument 2 (allow_prefix_match): expected a bool, got %s", fn,
                            xffi_any_kind_name(&args[2]));
  if (!xffi_any_is_object(&args[1]) || !xffi_visit_error_context_is(args[1].v_obj))
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: argument 1 (context): expected ffi.VisitErrorContext, got %s", fn,
                            xffi_any_kind_name(&args[1]));
  return xffi_visit_error_context_find_paths(result, &args[0], args[1].v_obj, args[2].v_int64 != 0);
}

/* ---- Methods: the visitor or mutator is argument 0 ---- */

static int link_arg(xffi_object **out, const char *fn, const xffi_any *args, int32_t num_args, int32_t expected,
                    const xffi_any *result) {
  if (xffi_global_check_call(fn, args, num_args, expected, result) != XFFI_OK) return XFFI_FAIL;
  if (!xffi_any_is_object(&args[0]))
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: argument 0: expected a visitor or mutator, got %s", fn,
                            xffi_any_kind_name(&args[0]));
  *out = args[0].v_obj;
  return XFFI_OK;
}

#define METHOD_2(name, global, api)                                                         \
  static int name(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) { \
    (void)handle;                                                                           \
    xffi_object *link = NULL;                                                               \
    if (link_arg(&link, global, args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;    \
    return api(result, link, &args[1]);                                                     \
  }

METHOD_2(call_visitor_visit, "ffi.StructuralVisitorVisit", xffi_structural_visitor_visit)
METHOD_2(call_visitor_default_visit, "ffi.StructuralVisitorDefaultVisit", xffi_structural_visitor_default_visit)
METHOD_2(call_mutator_mutate, "ffi.StructuralMutatorMutate", xffi_structural_mutator_mutate)
METHOD_2(call_mutator_default_mutate, "ffi.StructuralMutatorDefaultMutate", xffi_structural_mutator_default_mutate)
METHOD_2(call_mutator_remap_get, "ffi.StructuralMutatorVarRemapGet", xffi_structural_mutator_var_remap_get)

static int call_mutator_remap_set(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_object *link = NULL;
  if (link_arg(&link, "ffi.StructuralMutatorVarRemapSet", args, num_args, 3, result) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_none();
  return xffi_structural_mutator_var_remap_set(link, &args[1], &args[2]);
}

static int region_of(const char *fn, int mutator, const xffi_any *args, int32_t num_args, xffi_any *result) {
  xffi_object *link = NULL;
  int32_t region = 0;
  if (link_arg(&link, fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  int status =
      mutator ? xffi_structural_mutator_def_region(&region, link) : xffi_structural_visitor_def_region(&region, link);
  if (status != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(region);
  return XFFI_OK;
}

static int with_region(const char *fn, int mutator, const xffi_any *args, int32_t num_args, xffi_any *result) {
  xffi_object *link = NULL, *function = NULL;
  int64_t kind = 0;
  if (link_arg(&link, fn, args, num_args, 3, result) != XFFI_OK ||
      xffi_arg_to_int(&kind, args, num_args, 1, fn) != XFFI_OK ||
      xffi_global_object_arg(&function, args, num_args, 2, XFFI_TYPE_FUNCTION, fn) != XFFI_OK)
    return XFFI_FAIL;
  return mutator ? xffi_structural_mutator_with_def_region(result, link, (int32_t)kind, function)
                 : xffi_structural_visitor_with_def_region(result, link, (int32_t)kind, function);
}

static int call_visitor_region(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return region_of("ffi.StructuralVisitorDefRegionKind", 0, args, num_args, result);
}
static int call_mutator_region(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return region_of("ffi.StructuralMutatorDefRegionKind", 1, args, num_args, result);
}
static int call_visitor_with_region(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return with_region("ffi.StructuralVisitorWithDefRegionKind", 0, args, num_args, result);
}
static int call_mutator_with_region(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return with_region("ffi.StructuralMutatorWithDefRegionKind", 1, args, num_args, result);
}

XFFI_BUILTIN_FUNCTION(interrupt_function, call_interrupt);
XFFI_BUILTIN_FUNCTION(walk_function, call_walk);
XFFI_BUILTIN_FUNCTION(visit_function, call_visit);
XFFI_BUILTIN_FUNCTION(map_function, call_map);
XFFI_BUILTIN_FUNCTION(mutate_function, call_mutate);
XFFI_BUILTIN_FUNCTION(find_paths_function, call_find_paths);
XFFI_BUILTIN_FUNCTION(visitor_visit_function, call_visitor_visit);
XFFI_BUILTIN_FUNCTION(visitor_default_visit_function, call_visitor_default_visit);
XFFI_BUILTIN_FUNCTION(visitor_region_function, call_visitor_region);
XFFI_BUILTIN_FUNCTION(visitor_with_region_function, call_visitor_with_region);
XFFI_BUILTIN_FUNCTION(mutator_mutate_function, call_mutator_mutate);
XFFI_BUILTIN_FUNCTION(mutator_default_mutate_function, call_mutator_default_mutate);
XFFI_BUILTIN_FUNCTION(mutator_remap_get_function, call_mutator_remap_get);
XFFI_BUILTIN_FUNCTION(mutator_remap_set_function, call_mutator_remap_set);
XFFI_BUILTIN_FUNCTION(mutator_region_function, call_mutator_region);
XFFI_BUILTIN_FUNCTION(mutator_with_region_function, call_mutator_with_region);

static const xffi_builtin_global structural_visit_globals[] = {
    {"ffi.VisitInterrupt", &interrupt_function, "ffi.VisitInterrupt(Any)"},
    {"ffi.StructuralWalk", &walk_function,
     "Optional<ffi.VisitInterrupt>(Any,ffi.Array<Tuple<int,ffi.Function>>,ffi.Array<Tuple<int,ffi.Function>>,int)"},
    {"ffi.StructuralVisit", &visit_function, "Optional<ffi.VisitInterrupt>(Any,ffi.Array<Tuple<int,ffi.Function>>)"},
    {"ffi.StructuralMap", &map_function,
     "Any(Any,ffi.Array<Tuple<int,ffi.Function>>,ffi.Array<Tuple<int,ffi.Function>>,int)"},
    {"ffi.StructuralMutate", &mutate_function, "Any(Any,ffi.Array<Tuple<int,ffi.Function,bool>>)"},
    {"ffi.VisitErrorContext.FindAccessPaths", &find_paths_function,
     "ffi.Array<ffi.reflection.AccessPath>(ffi.Object,ffi.VisitErrorContext,bool)"},
    {"ffi.StructuralVisitorVisit", &visitor_visit_function, "Optional<ffi.VisitInterrupt>(ffi.StructuralVisitor,Any)"},
    {"ffi.StructuralVisitorDefaultVisit", &visitor_default_visit_function,
     "Optional<ffi.VisitInterrupt>(ffi.StructuralVisitor,Any)"},
    {"ffi.StructuralVisitorDefRegionKind", &visitor_region_function, "int(ffi.StructuralVisitor)"},
    {"ffi.StructuralVisitorWithDefRegionKind", &visitor_with_region_function,
     "Any(ffi.StructuralVisitor,int,ffi.Function)"},
    {"ffi.StructuralMutatorMutate", &mutator_mutate_function, "Any(ffi.StructuralMutator,Any)"},
    {"ffi.StructuralMutatorDefaultMutate", &mutator_default_mutate_function, "Any(ffi.StructuralMutator,Any)"},
    {"ffi.StructuralMutatorVarRemapGet", &mutator_remap_get_function, "Any(ffi.StructuralMutator,Any)"},
    {"ffi.StructuralMutatorVarRemapSet", &mutator_remap_set_function, "None(ffi.StructuralMutator,Any,Any)"},
    {"ffi.StructuralMutatorDefRegionKind", &mutator_region_function, "int(ffi.StructuralMutator)"},
    {"ffi.StructuralMutatorWithDefRegionKind", &mutator_with_region_function,
     "Any(ffi.StructuralMutator,int,ffi.Function)"},
};

const xffi_builtin_table xffi_globals_structural_visit = {
    structural_visit_globals, sizeof(structural_visit_globals) / sizeof(structural_visit_globals[0])};
