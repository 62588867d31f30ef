/* c/lib/text/repr_access_path.c: the "__ffi_repr__" type attributes of the
 * runtime's ffi.reflection.AccessStep and ffi.reflection.AccessPath, which
 * tvm-ffi's runtime registers with the types: a path prints as
 * <root>.name[3]["key"] instead of by its fields. Static Functions,
 * registered by xffi_type_runtime_ensure (c/compat/globals/type_runtime.c). */
#include <string.h>

#include "runtime/static_object.h"
#include "lib/text/repr_text.h"
#include "runtime/type_internal.h"
#include "lib/reflection/runtime_types.h"

enum { KIND_ATTR, KIND_ARRAY_ITEM, KIND_MAP_ITEM, KIND_ATTR_MISSING, KIND_ARRAY_ITEM_MISSING, KIND_MAP_ITEM_MISSING };

static const char step_key[] = "ffi.reflection.AccessStep";
static const char path_key[] = "ffi.reflection.AccessPath";

/* Checks a hook call: (self of type key, the repr Function). */
static int check_hook_call(const char *key, const xffi_any *args, int32_t num_args, const xffi_any *result) {
  if (!result || num_args != 2 || !args)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s.__ffi_repr__: expected 2 arguments (self, repr), got %d", key,
                            (int)num_args);
  const xffi_type_info *info = xffi_type_find_by_key(key, strlen(key));
  if (!info || args[0].type_index != info->type_index || !args[0].v_obj)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s.__ffi_repr__: argument 0 expected %s, got %s", key, key,
                            xffi_any_kind_name(&args[0]));
  if (args[1].type_index != XFFI_TYPE_FUNCTION || !args[1].v_obj)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s.__ffi_repr__: argument 1 expected a Function, got %s", key,
                            xffi_any_kind_name(&args[1]));
  return XFFI_OK;
}

/* Appends repr(value) (value borrowed) to t. */
static int put_repr_of(repr_text *t, xffi_object *repr, const xffi_any *value) {
  xffi_any text = xffi_any_none();
  if (xffi_function_call(repr, value, 1, &text) != XFFI_OK) return XFFI_FAIL;
  xffi_byte_array s;
  int status = xffi_any_to_str(&s, &text);
  if (status == XFFI_OK) status = xffi_repr_put(t, s.data, s.size);
  xffi_any_release(&text);
  return status;
}

/* Makes *result a String of t's text, and frees t. */
static int finish(repr_text *t, int status, xffi_any *result) {
  xffi_object *str = NULL;
  if (status == XFFI_OK) status = xffi_string_new(&str, t->data ? t->data : "", t->size);
  xffi_repr_text_free(t);
  if (status == XFFI_OK) *result = xffi_any_object(str);
  return status;
}

/* One step: ".name", "[3]", "[<repr of key>]", or their "[<missing:...>]" forms. */
static int step_repr(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (check_hook_call(step_key, args, num_args, result) != XFFI_OK) return XFFI_FAIL;
  const access_step *step = (const access_step *)args[0].v_obj;
  xffi_object *repr = args[1].v_obj;
  repr_text t = {NULL, 0, 0, SIZE_MAX, 0};
  xffi_byte_array name;
  int64_t index;
  int status;
  switch (step->kind) {
    case KIND_ATTR:
      status = xffi_any_to_str(&name, &step->key);
      if (status == XFFI_OK) status = xffi_repr_put(&t, ".", 1);
      if (status == XFFI_OK) status = xffi_repr_put(&t, name.data, name.size);
      break;
    case KIND_ARRAY_ITEM:
    case KIND_ARRAY_ITEM_MISSING:
      status = xffi_any_to_int(&index, &step->key);
      if (status == XFFI_OK) status = xffi_repr_put_str(&t, step->kind == KIND_ARRAY_ITEM ? "[" : "[<missing:");
      if (status == XFFI_OK) status = xffi_repr_put_int(&t, index);
      if (status == XFFI_OK) status = xffi_repr_put_str(&t, step->kind == KIND_ARRAY_ITEM ? "]" : ">]");
      break;
    case KIND_MAP_ITEM:
      status = xffi_repr_put(&t, "[", 1);
      if (status == XFFI_OK) status = put_repr_of(&t, repr, &step->key);
      if (status == XFFI_OK) status = xffi_repr_put(&t, "]", 1);
      break;
    case KIND_ATTR_MISSING:
    case KIND_MAP_ITEM_MISSING:
      status = xffi_repr_put_str(&t, "[<missing:");
      if (status == XFFI_OK) status = put_repr_of(&t, repr, &step->key);
      if (status == XFFI_OK) status = xffi_repr_put(&t, ">]", 2);
      break;
    default:
      status = xffi_error_raise(XFFI_KIND_VALUE, "%s.__ffi_repr__: unknown step kind %d", step_key, (int)step->kind);
  }
  return finish(&t, status, result);
}

/* "<root>" and each step from the root down, each printed by repr. */
static int path_repr(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (check_hook_call(path_key, args, num_args, result) != XFFI_OK) return XFFI_FAIL;
  const access_path *path = (const access_path *)args[0].v_obj;
  xffi_object *repr = args[1].v_obj;
  /* The steps leaf first, along the parent links (a heap array: paths may be deep). */
  size_t count = 0;
  for (const access_path *p = path; p && p->step; p = (const access_path *)p->parent) count++;
  xffi_object **steps = xffi_alloc((count ? count : 1) * sizeof(xffi_object *));
  if (!steps) return xffi_error_raise_out_of_memory();
  size_t k = 0;
  for (const access_path *p = path; p && p->step; p = (const access_path *)p->parent) steps[k++] = p->step;
  repr_text t = {NULL, 0, 0, SIZE_MAX, 0};
  int status = xffi_repr_put_str(&t, "<root>");
  for (size_t i = count; status == XFFI_OK && i-- > 0;) {
    xffi_any step = xffi_any_object(steps[i]);
    status = put_repr_of(&t, repr, &step);
  }
  xffi_free(steps);
  return finish(&t, status, result);
}

XFFI_BUILTIN_FUNCTION(step_repr_function, step_repr);
XFFI_BUILTIN_FUNCTION(path_repr_function, path_repr);

int xffi_repr_register_runtime_hooks(void) {
  static const char name[] = "__ffi_repr__";
  const struct {
    const char *key;
    xffi_function_head *function;
  } hooks[] = {{step_key, &step_repr_function}, {path_key, &path_repr_function}};
  const xffi_type_attr_column *column = xffi_type_attr_column_find(name, sizeof(name) - 1);
  for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); ++i) {
    const xffi_type_info *info = xffi_type_find_by_key(hooks[i].key, strlen(hooks[i].key));
    if (!info)
      return xffi_error_raise(XFFI_KIND_RUNTIME, "xffi_type_runtime_ensure: %s is not registered", hooks[i].key);
    int32_t t = info->type_index;
    /* Already there (a retry after a failure): keep it. */
    if (column && t >= column->begin_index && t - column->begin_index < column->size &&
        column->data[t - column->begin_index].type_index != XFFI_TYPE_NONE)
      continue;
    xffi_any value = xffi_any_object(&hooks[i].function->header); /* the column takes its own reference */
    if (xffi_type_register_attr_in("xffi_type_runtime_ensure", t, name, sizeof(name) - 1, &value) != XFFI_OK)
      return XFFI_FAIL;
  }
  return XFFI_OK;
}
