/* c/lib/reflection/access_path.c: ffi.reflection.AccessStep and ffi.reflection.AccessPath,
 * the paths diagnostics use to say where inside a value something is
 * (obj.layer.weight[2]), with the methods tvm_ffi.access_path calls.
 *
 * Laid out as tvm-ffi 0.1.15 lays them out: a step is its kind (int32 at
 * 24) and key (Any at 32); a path is its parent path (at 24, NULL for the
 * root), its last step (at 32, NULL for the root) and its depth (int32 at
 * 40). Paths share their parents, so a path is a linked list from leaf to
 * root; releasing a long one runs with bounded stack. The types are
 * registered by c/compat/globals/type_runtime.c, which lists these methods. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtime/static_object.h"
#include "runtime/check.h"
#include "lib/container/container_equal.h"
#include "runtime/global_args.h"
#include "runtime/type_internal.h"
#include "lib/reflection/runtime_types.h"

#if UINTPTR_MAX > 0xFFFFFFFFu /* the offsets measured from tvm-ffi's 64-bit wheel */
_Static_assert(offsetof(access_step, key) == 32, "tvm-ffi's AccessStepObj layout");
_Static_assert(offsetof(access_path, depth) == 40, "tvm-ffi's AccessPathObj layout");
#endif

enum { KIND_ATTR, KIND_ARRAY_ITEM, KIND_MAP_ITEM, KIND_ATTR_MISSING, KIND_ARRAY_ITEM_MISSING, KIND_MAP_ITEM_MISSING };

static const char step_key[] = "ffi.reflection.AccessStep";
static const char path_key[] = "ffi.reflection.AccessPath";

static int type_index_of(int32_t *out, const char *key, size_t size) {
  if (xffi_type_builtins_ensure() != XFFI_OK) return XFFI_FAIL;
  const xffi_type_info *info = xffi_type_find_by_key(key, size);
  if (!info) return xffi_error_raise(XFFI_KIND_RUNTIME, "%s is not registered", key);
  *out = info->type_index;
  return XFFI_OK;
}

static void step_deleter(void *self, int flags) {
  access_step *step = (access_step *)self;
  if (flags & XFFI_DELETE_CONTENTS) xffi_any_release(&step->key);
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

static void path_deleter(void *self, int flags) {
  access_path *path = (access_path *)self;
  if (flags & XFFI_DELETE_CONTENTS) {
    /* A parent chain as long as the path: parked, not recursed into. */
    if (xffi_release_begin(&path->header, flags, path_deleter)) return;
    xffi_object_dec_ref(path->step);
    xffi_object_dec_ref(path->parent);
    path->step = path->parent = NULL;
    xffi_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

/* See c/lib/reflection/runtime_types.h. */
int xffi_access_step_new(xffi_object **out, int32_t kind, const xffi_any *key) {
  int32_t index = 0;
  if (type_index_of(&index, step_key, sizeof(step_key) - 1) != XFFI_OK) return XFFI_FAIL;
  xffi_any copy;
  if (xffi_any_copy(&copy, key) != XFFI_OK) return XFFI_FAIL;
  access_step *step = xffi_runtime_object_alloc(sizeof(access_step), _Alignof(access_step), index);
  if (!step) {
    xffi_any_release(&copy);
    return XFFI_FAIL;
  }
  xffi_object_init(&step->header, index, step_deleter);
  step->kind = kind;
  step->key = copy;
  *out = &step->header;
  return XFFI_OK;
}

/* *out: a new path extending parent (borrowed; NULL for the root) by step
 * (stolen, NULL for the root). On failure step is released. */
static int path_new(xffi_object **out, xffi_object *parent, xffi_object *step) {
  int32_t index = 0;
  access_path *path = NULL;
  if (type_index_of(&index, path_key, sizeof(path_key) - 1) == XFFI_OK)
    path = xffi_runtime_object_alloc(sizeof(access_path), _Alignof(access_path), index);
  if (!path) {
    xffi_object_dec_ref(step);
    return XFFI_FAIL;
  }
  xffi_object_init(&path->header, index, path_deleter);
  if (parent) xffi_object_inc_ref(parent);
  path->parent = parent;
  path->step = step;
  path->depth = parent ? ((access_path *)(void *)parent)->depth + 1 : 0;
  *out = &path->header;
  return XFFI_OK;
}

int xffi_access_path_extend(xffi_object **out, xffi_object *parent, int32_t kind, const xffi_any *key) {
  xffi_object *step = NULL;
  if (!parent) return path_new(out, NULL, NULL);
  if (xffi_access_step_new(&step, kind, key) != XFFI_OK) return XFFI_FAIL;
  return path_new(out, parent, step);
}

/* Checks a method call: `expected` arguments, the first an AccessPath. */
static int check_self(access_path **self, const char *fn, const xffi_any *args, int32_t num_args, int32_t expected,
                      xffi_any *result) {
  int32_t index = 0;
  if (xffi_global_check_call(fn, args, num_args, expected, result) != XFFI_OK ||
      type_index_of(&index, path_key, sizeof(path_key) - 1) != XFFI_OK)
    return XFFI_FAIL;
  if (expected > 0 && args[0].type_index != index)
    return xffi_raise_arg(XFFI_KIND_TYPE, fn, "self", "expected %s, got %s", path_key, xffi_any_kind_name(&args[0]));
  *self = expected ? (access_path *)(void *)args[0].v_obj : NULL;
  return XFFI_OK;
}

static int return_object(xffi_any *result, xffi_object *obj) {
  *result = xffi_any_object(obj); /* the new reference moves into the result */
  return XFFI_OK;
}

static int path_root(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  access_path *unused;
  xffi_object *root;
  if (check_self(&unused, "AccessPath._root", args, num_args, 0, result) != XFFI_OK ||
      path_new(&root, NULL, NULL) != XFFI_OK)
    return XFFI_FAIL;
  return return_object(result, root);
}

static int path_extend(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "AccessPath._extend";
  access_path *self = NULL;
  int32_t step_index = 0;
  xffi_object *path;
  if (check_self(&self, fn, args, num_args, 2, result) != XFFI_OK ||
      type_index_of(&step_index, step_key, sizeof(step_key) - 1) != XFFI_OK)
    return XFFI_FAIL;
  if (args[1].type_index != step_index)
    return xffi_raise_arg(XFFI_KIND_TYPE, fn, "step", "expected %s, got %s", step_key, xffi_any_kind_name(&args[1]));
  xffi_object_inc_ref(args[1].v_obj);
  if (path_new(&path, &self->header, args[1].v_obj) != XFFI_OK) return XFFI_FAIL;
  return return_object(result, path);
}

static int is_string(const xffi_any *v) {
  return v->type_index == XFFI_TYPE_STRING || v->type_index == XFFI_TYPE_SMALL_STR ||
         v->type_index == XFFI_TYPE_RAW_STR;
}

/* The step-making methods: self and a key of the kind's type. */
static int extend_by(const char *fn, int32_t kind, const xffi_any *args, int32_t num_args, xffi_any *result) {
  access_path *self = NULL;
  xffi_object *step, *path;
  if (check_self(&self, fn, args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  if ((kind == KIND_ATTR || kind == KIND_ATTR_MISSING) && !is_string(&args[1]))
    return xffi_raise_arg(XFFI_KIND_TYPE, fn, "name", "expected str, got %s", xffi_any_kind_name(&args[1]));
  if ((kind == KIND_ARRAY_ITEM || kind == KIND_ARRAY_ITEM_MISSING) && args[1].type_index != XFFI_TYPE_INT)
    return xffi_raise_arg(XFFI_KIND_TYPE, fn, "index", "expected int, got %s", xffi_any_kind_name(&args[1]));
  if (xffi_access_step_new(&step, kind, &args[1]) != XFFI_OK || path_new(&path, &self->header, step) != XFFI_OK)
    return XFFI_FAIL;
  return return_object(result, path);
}

#define EXTEND_METHOD(name, kind)                                                           \
  static int name(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) { \
    (void)handle;                                                                           \
    return extend_by("AccessPath." #name, (kind), args, num_args, result);                  \
  }
EXTEND_METHOD(_attr, KIND_ATTR)
EXTEND_METHOD(_array_item, KIND_ARRAY_ITEM)
EXTEND_METHOD(_map_item, KIND_MAP_ITEM)
EXTEND_METHOD(_attr_missing, KIND_ATTR_MISSING)
EXTEND_METHOD(_array_item_missing, KIND_ARRAY_ITEM_MISSING)
EXTEND_METHOD(_map_item_missing, KIND_MAP_ITEM_MISSING)

static int steps_equal(const xffi_object *a, const xffi_object *b) {
  if (a == b) return 1;
  if (!a || !b) return 0;
  const access_step *x = (const access_step *)(const void *)a, *y = (const access_step *)(const void *)b;
  return x->kind == y->kind && xffi_container_values_equal(&x->key, &y->key);
}

/* Whether two paths of equal depth are equal, step by step (iterative). */
static int same_path(const access_path *a, const access_path *b) {
  while (a && b && a != b) {
    if (!steps_equal(a->step, b->step)) return 0;
    a = (const access_path *)(const void *)a->parent;
    b = (const access_path *)(const void *)b->parent;
  }
  return a == b; /* equal depths end together */
}

static int path_is_prefix_of(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  access_path *self = NULL;
  if (check_self(&self, "AccessPath._is_prefix_of", args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  const access_path *other = (const access_path *)(const void *)args[1].v_obj;
  if (args[1].type_index != self->header.type_index)
    return xffi_raise_arg(XFFI_KIND_TYPE, "AccessPath._is_prefix_of", "other", "expected %s, got %s", path_key,
                          xffi_any_kind_name(&args[1]));
  int prefix = 0;
  if (self->depth <= other->depth) {
    while (other->depth > self->depth) other = (const access_path *)(const void *)other->parent;
    prefix = same_path(self, other);
  }
  *result = xffi_any_bool(prefix);
  return XFFI_OK;
}

static int path_equal(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  access_path *self = NULL;
  if (check_self(&self, "AccessPath._path_equal", args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  if (args[1].type_index != self->header.type_index)
    return xffi_raise_arg(XFFI_KIND_TYPE, "AccessPath._path_equal", "other", "expected %s, got %s", path_key,
                          xffi_any_kind_name(&args[1]));
  const access_path *other = (const access_path *)(const void *)args[1].v_obj;
  *result = xffi_any_bool(self->depth == other->depth && same_path(self, other));
  return XFFI_OK;
}

/* The steps from the root to self, as an Array of AccessStep. */
static int path_to_steps(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  access_path *self = NULL;
  xffi_object *array = NULL;
  if (check_self(&self, "AccessPath._to_steps", args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  xffi_any *steps = self->depth ? xffi_alloc((size_t)self->depth * sizeof(xffi_any)) : NULL;
  if (self->depth && !steps) return xffi_error_raise_out_of_memory();
  const access_path *at = self;
  for (int32_t i = self->depth; i-- > 0; at = (const access_path *)(const void *)at->parent)
    steps[i] = xffi_any_object(at->step); /* views: the Array takes its own references */
  int status = xffi_array_new(&array, steps, self->depth);
  xffi_free(steps);
  if (status != XFFI_OK) return XFFI_FAIL;
  return return_object(result, array);
}

XFFI_BUILTIN_FUNCTION(root_function, path_root);
XFFI_BUILTIN_FUNCTION(extend_function, path_extend);
XFFI_BUILTIN_FUNCTION(attr_function, _attr);
XFFI_BUILTIN_FUNCTION(array_item_function, _array_item);
XFFI_BUILTIN_FUNCTION(map_item_function, _map_item);
XFFI_BUILTIN_FUNCTION(attr_missing_function, _attr_missing);
XFFI_BUILTIN_FUNCTION(array_item_missing_function, _array_item_missing);
XFFI_BUILTIN_FUNCTION(map_item_missing_function, _map_item_missing);
XFFI_BUILTIN_FUNCTION(is_prefix_of_function, path_is_prefix_of);
XFFI_BUILTIN_FUNCTION(to_steps_function, path_to_steps);
XFFI_BUILTIN_FUNCTION(path_equal_function, path_equal);

/* Type schemas: a Function returning R with parameters P (JSON lists). */
#define SCHEMA(R, P) "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[" R "],\"params\":[" P "]}}"
#define PATH "{\"type\":\"ffi.reflection.AccessPath\"}"
#define STEP "{\"type\":\"ffi.reflection.AccessStep\"}"
#define STR "{\"type\":\"ffi.String\"}"
#define INT "{\"type\":\"int\"}"
#define ANY "{\"type\":\"Any\"}"
#define BOOL "{\"type\":\"bool\"}"
#define STEPS "{\"type\":\"ffi.Array\",\"args\":[" STEP "]}"

const xffi_runtime_method xffi_access_path_methods[] = {
    {"_root", &root_function, 1, SCHEMA(PATH, "")},
    {"_extend", &extend_function, 0, SCHEMA(PATH, PATH "," STEP)},
    {"_attr", &attr_function, 0, SCHEMA(PATH, PATH "," STR)},
    {"_array_item", &array_item_function, 0, SCHEMA(PATH, PATH "," INT)},
    {"_map_item", &map_item_function, 0, SCHEMA(PATH, PATH "," ANY)},
    {"_attr_missing", &attr_missing_function, 0, SCHEMA(PATH, PATH "," STR)},
    {"_array_item_missing", &array_item_missing_function, 0, SCHEMA(PATH, PATH "," INT)},
    {"_map_item_missing", &map_item_missing_function, 0, SCHEMA(PATH, PATH "," ANY)},
    {"_is_prefix_of", &is_prefix_of_function, 0, SCHEMA(BOOL, PATH "," PATH)},
    {"_to_steps", &to_steps_function, 0, SCHEMA(STEPS, PATH)},
    {"_path_equal", &path_equal_function, 0, SCHEMA(BOOL, PATH "," PATH)},
};
const int32_t xffi_access_path_method_count =
    (int32_t)(sizeof(xffi_access_path_methods) / sizeof(xffi_access_path_methods[0]));
