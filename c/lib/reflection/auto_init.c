/* c/lib/reflection/auto_init.c: making objects from their reflected fields:
 * ffi._RegisterFFIInit, the constructor tvm-ffi generates for a type, and
 * ffi.MakeObjectFromPackedArgs, which sets fields by name.
 *
 * A library built against tvm-ffi's headers calls the global (when it
 * exists) for each type it registers without an explicit constructor; the
 * Python package calls it for the types it defines. It stores, in the
 * type's "__ffi_init__" attribute, a Function that makes an empty object
 * (the type's creator, else its "__ffi_new__" attribute) and binds its
 * arguments to the fields as tvm-ffi does: positional arguments to the
 * init fields that are not keyword-only (required ones first), then, after
 * the KWARGS sentinel, name/value pairs; unbound fields take their default
 * (or their factory's value); a required field left unbound is a TypeError.
 * Fields are visited from the root ancestor down to the type itself. */
#include <string.h>

#include "runtime/static_object.h"
#include "runtime/check.h"
#include "lib/reflection/field_storage.h"
#include "runtime/global_args.h"
#include "lib/reflection/pyclass.h"
#include "lib/reflection/reflection_construct.h"
#include "runtime/type_internal.h"

/* Fields one constructor binds at most (all ancestors' included): the
 * binding keeps its bookkeeping on the stack. */
#define AUTO_INIT_MAX_FIELDS 256

/* Which fields a constructor binds, and in what order. Made once when the
 * constructor is registered (as tvm-ffi does: fields registered later are
 * not bound) and kept as its resource; the field records it points at are
 * immortal. */
typedef struct init_plan {
  const xffi_type_info *type;
  const xffi_field_info *fields[AUTO_INIT_MAX_FIELDS]; /* root ancestor's first */
  int32_t positional[AUTO_INIT_MAX_FIELDS];            /* indices into fields: required first */
  int32_t num_fields, num_positional;
} init_plan;

static int is_init(const xffi_field_info *f) { return (f->flags & XFFI_FIELD_INIT_OFF) == 0; }
static int is_kw_only(const xffi_field_info *f) { return (f->flags & XFFI_FIELD_KW_ONLY) != 0; }
static int has_default(const xffi_field_info *f) { return (f->flags & XFFI_FIELD_HAS_DEFAULT) != 0; }

static int add_fields(init_plan *plan, const xffi_type_info *info) {
  int32_t count = __atomic_load_n(&info->num_fields, __ATOMIC_ACQUIRE);
  const xffi_field_info *fields = __atomic_load_n(&info->fields, __ATOMIC_ACQUIRE);
  for (int32_t i = 0; i < count; ++i) {
    if (plan->num_fields == AUTO_INIT_MAX_FIELDS)
      return xffi_error_raise(XFFI_KIND_VALUE, "%s.__ffi_init__(): more than %d fields", plan->type->type_key.data,
                              AUTO_INIT_MAX_FIELDS);
    plan->fields[plan->num_fields++] = &fields[i];
  }
  return XFFI_OK;
}

static int make_plan(init_plan *plan, const xffi_type_info *type) {
  plan->type = type;
  plan->num_fields = plan->num_positional = 0;
  for (int32_t d = 0; d < type->type_depth; ++d)
    if (add_fields(plan, type->type_ancestors[d]) != XFFI_OK) return XFFI_FAIL;
  if (add_fields(plan, type) != XFFI_OK) return XFFI_FAIL;
  for (int pass = 0; pass < 2; ++pass) /* required fields, then those with defaults */
    for (int32_t i = 0; i < plan->num_fields; ++i) {
      const xffi_field_info *f = plan->fields[i];
      if (is_init(f) && !is_kw_only(f) && has_default(f) == pass) plan->positional[plan->num_positional++] = i;
    }
  return XFFI_OK;
}

/* *out receives a new reference to an empty object of type. */
static int create_empty(xffi_object **out, const xffi_type_info *type) {
  *out = NULL;
  const xffi_type_metadata *metadata = __atomic_load_n(&type->metadata, __ATOMIC_ACQUIRE);
  if (metadata && metadata->creator) {
    void *handle = NULL;
    if (metadata->creator(&handle) != XFFI_OK) return XFFI_FAIL;
    *out = handle;
    return XFFI_OK;
  }
  /* Columns live at fixed addresses once made: look the column up once. */
  static const xffi_type_attr_column *new_column;
  const xffi_type_attr_column *column = __atomic_load_n(&new_column, __ATOMIC_ACQUIRE);
  if (!column) {
    static const char new_name[] = "__ffi_new__";
    column = xffi_type_attr_column_find(new_name, sizeof(new_name) - 1);
    if (column) __atomic_store_n(&new_column, column, __ATOMIC_RELEASE);
  }
  xffi_any new_function = xffi_type_attr_entry(column, type->type_index);
  if (new_function.type_index == XFFI_TYPE_FUNCTION) {
    xffi_any made = xffi_any_none();
    if (xffi_function_call(new_function.v_obj, NULL, 0, &made) != XFFI_OK) return XFFI_FAIL;
    if (!xffi_any_is_object(&made) || made.v_obj->type_index != type->type_index) {
      xffi_any_release(&made);
      return xffi_error_raise(XFFI_KIND_TYPE, "%s.__ffi_new__ did not return a %s", type->type_key.data,
                              type->type_key.data);
    }
    *out = made.v_obj;
    return XFFI_OK;
  }
  return xffi_error_raise(XFFI_KIND_RUNTIME,
                          "Type `%s` does not support reflection creation (no native creator or __ffi_new__ type attr)",
                          type->type_key.data);
}

/* Re-raises the setter's error with the field named in front, keeping its
 * kind; the setter's message follows on its own lines, indented by two
 * spaces (tvm-ffi's nesting of messages). */
static int raise_field_error(const init_plan *plan, const xffi_field_info *f, const char *what) {
  xffi_object *cause = xffi_error_move_raised();
  const char *kind = XFFI_KIND_RUNTIME, *message = "";
  if (cause && cause->type_index == XFFI_TYPE_ERROR) {
    kind = xffi_error_cell_of_unchecked(cause)->kind.data;
    message = xffi_error_cell_of_unchecked(cause)->message.data;
  }
  size_t size = 1;
  for (const char *p = message; *p; ++p) size += *p == '\n' ? 3 : 1;
  char *indented = xffi_alloc(size);
  int status;
  if (!indented) {
    status = xffi_error_raise_out_of_memory();
  } else {
    char *out = indented;
    for (const char *p = message; *p; ++p) {
      *out++ = *p;
      if (*p == '\n') *out++ = ' ', *out++ = ' ';
    }
    *out = '\0';
    status = xffi_error_raise(kind, "%s.__ffi_init__() %s '%.*s':\n  %s", plan->type->type_key.data, what,
                              (int)f->name.size, f->name.data, indented);
    xffi_free(indented);
  }
  xffi_object_dec_ref(cause);
  return status;
}

static int set_default(const init_plan *plan, const xffi_field_info *f, xffi_object *obj) {
  int status;
  if (f->flags & XFFI_FIELD_DEFAULT_FROM_FACTORY) {
    xffi_any made = xffi_any_none();
    if (f->default_value_or_factory.type_index != XFFI_TYPE_FUNCTION)
      status = xffi_error_raise(XFFI_KIND_TYPE, "its default factory is not a Function");
    else
      status = xffi_function_call(f->default_value_or_factory.v_obj, NULL, 0, &made);
    if (status == XFFI_OK) status = xffi_field_assign(obj, f, &made);
    xffi_any_release(&made);
  } else {
    status = xffi_field_assign(obj, f, &f->default_value_or_factory);
  }
  return status == XFFI_OK ? XFFI_OK : raise_field_error(plan, f, "default for field");
}

static int bind(const init_plan *plan, xffi_object *obj, const xffi_any *args, int32_t num_args) {
  const char *key = plan->type->type_key.data;
  unsigned char set[AUTO_INIT_MAX_FIELDS] = {0};
  int32_t kwargs_at = -1;
  for (int32_t i = 0; i < num_args && kwargs_at < 0; ++i)
    if (xffi_any_is_object(&args[i]) && args[i].v_obj == &xffi_kwargs_object) kwargs_at = i;
  int32_t num_positional = kwargs_at >= 0 ? kwargs_at : num_args;
  if (num_positional > plan->num_positional)
    return xffi_error_raise(XFFI_KIND_TYPE,
                            "%s.__ffi_init__() takes at most %d positional argument(s), but %d were given", key,
                            (int)plan->num_positional, (int)num_positional);
  for (int32_t i = 0; i < num_positional; ++i) {
    int32_t fi = plan->positional[i];
    if (xffi_field_assign(obj, plan->fields[fi], &args[i]) != XFFI_OK)
      return raise_field_error(plan, plan->fields[fi], "field");
    set[fi] = 1;
  }
  if (kwargs_at >= 0) {
    if ((num_args - kwargs_at - 1) % 2 != 0)
      return xffi_error_raise(XFFI_KIND_TYPE, "%s.__ffi_init__() KWARGS requires an even number of key-value arguments",
                              key);
    for (int32_t i = kwargs_at + 1; i < num_args; i += 2) {
      xffi_byte_array name;
      if (xffi_arg_to_str(&name, args, num_args, i, "__ffi_init__") != XFFI_OK) return XFFI_FAIL;
      int32_t fi = -1;
      for (int32_t j = 0; j < plan->num_fields && fi < 0; ++j) {
        const xffi_field_info *f = plan->fields[j];
        if (is_init(f) && f->name.size == name.size && memcmp(f->name.data, name.data, name.size) == 0) fi = j;
      }
      if (fi < 0)
        return xffi_error_raise(XFFI_KIND_TYPE, "%s.__ffi_init__() got an unexpected keyword argument '%.*s'", key,
                                (int)name.size, name.data);
      if (set[fi])
        return xffi_error_raise(XFFI_KIND_TYPE, "%s.__ffi_init__() got multiple values for argument '%.*s'", key,
                                (int)name.size, name.data);
      if (xffi_field_assign(obj, plan->fields[fi], &args[i + 1]) != XFFI_OK)
        return raise_field_error(plan, plan->fields[fi], "field");
      set[fi] = 1;
    }
  }
  for (int32_t fi = 0; fi < plan->num_fields; ++fi) {
    const xffi_field_info *f = plan->fields[fi];
    if (set[fi]) continue;
    if (has_default(f)) {
      if (set_default(plan, f, obj) != XFFI_OK) return XFFI_FAIL;
    } else if (is_init(f)) {
      return xffi_error_raise(XFFI_KIND_TYPE, "%s.__ffi_init__() missing required %sargument: '%.*s'", key,
                              is_kw_only(f) ? "keyword-only " : "", (int)f->name.size, f->name.data);
    }
  }
  return XFFI_OK;
}

/* The generated constructor: resource is its plan. args are borrowed;
 * *result receives a new reference to the object. */
static int auto_init(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  const init_plan *plan = resource;
  if (xffi_global_check_call("__ffi_init__", args, num_args, XFFI_GLOBAL_ANY_COUNT, result) != XFFI_OK)
    return XFFI_FAIL;
  xffi_object *obj = NULL;
  int status = create_empty(&obj, plan->type);
  if (status == XFFI_OK) status = bind(plan, obj, args, num_args);
  if (status != XFFI_OK) {
    xffi_object_dec_ref(obj);
    return XFFI_FAIL;
  }
  *result = xffi_any_object(obj); /* the new reference moves into the result */
  return XFFI_OK;
}

int xffi_auto_init_function_new(xffi_object **out, const char *function, int32_t type_index) {
  const xffi_type_info *type = xffi_type_info_find(type_index);
  if (!type || type_index < XFFI_TYPE_STATIC_OBJECT_BEGIN)
    return xffi_raise_arg(XFFI_KIND_INDEX, function, "type_index", "%d is not a registered object type",
                          (int)type_index);
  init_plan *plan = xffi_alloc(sizeof(init_plan)); /* ~3 KB: kept off the stack */
  if (!plan) return xffi_error_raise_out_of_memory();
  if (make_plan(plan, type) != XFFI_OK || xffi_function_new(out, auto_init, plan, xffi_free) != XFFI_OK) {
    xffi_free(plan);
    return XFFI_FAIL;
  }
  return XFFI_OK;
}

static int register_auto_init(int32_t type_index) {
  static const char fn[] = "ffi._RegisterFFIInit";
  static const char attr[] = "__ffi_init__";
  xffi_object *init = NULL;
  if (xffi_auto_init_function_new(&init, fn, type_index) != XFFI_OK) return XFFI_FAIL;
  xffi_any value = xffi_any_object(init);
  int status = xffi_type_register_attr_in(fn, type_index, attr, sizeof(attr) - 1, &value);
  xffi_object_dec_ref(init); /* the column keeps its own reference */
  return status;
}

/* The fields named by keys: args[1], args[3], ... are names, each followed
 * by its value; the others take their defaults. */
static int bind_by_name(const init_plan *plan, xffi_object *obj, const xffi_any *args, int32_t num_args) {
  static const char fn[] = "ffi.MakeObjectFromPackedArgs";
  const char *key = plan->type->type_key.data;
  int32_t num_keys = (num_args - 1) / 2;
  if (num_keys > AUTO_INIT_MAX_FIELDS)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: %d field values for type `%s`, more than it can have", fn,
                            (int)num_keys, key);
  unsigned char found[AUTO_INIT_MAX_FIELDS] = {0};
  xffi_byte_array names[AUTO_INIT_MAX_FIELDS];
  for (int32_t k = 0; k < num_keys; ++k)
    if (xffi_arg_to_str(&names[k], args, num_args, 1 + 2 * k, fn) != XFFI_OK) return XFFI_FAIL;
  for (int32_t fi = 0; fi < plan->num_fields; ++fi) {
    const xffi_field_info *f = plan->fields[fi];
    int32_t k = 0;
    while (k < num_keys &&
           (found[k] || names[k].size != f->name.size || memcmp(names[k].data, f->name.data, f->name.size) != 0))
      ++k;
    if (k < num_keys) {
      if (xffi_field_assign(obj, f, &args[2 + 2 * k]) != XFFI_OK) return raise_field_error(plan, f, "field");
      found[k] = 1;
    } else if (has_default(f)) {
      if (set_default(plan, f, obj) != XFFI_OK) return XFFI_FAIL;
    } else {
      return xffi_error_raise(XFFI_KIND_TYPE, "Required field `%.*s` not set in type `%s`", (int)f->name.size,
                              f->name.data, key);
    }
  }
  for (int32_t k = 0; k < num_keys; ++k)
    if (!found[k])
      return xffi_error_raise(XFFI_KIND_TYPE, "Type `%s` does not have field `%.*s`", key, (int)names[k].size,
                              names[k].data);
  return XFFI_OK;
}

/* ffi.MakeObjectFromPackedArgs(type, name, value, ...): type is a type
 * index or key; *result receives a new reference to the object. */
static int global_make_object(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.MakeObjectFromPackedArgs";
  if (xffi_global_check_call(fn, args, num_args, XFFI_GLOBAL_ANY_COUNT, result) != XFFI_OK) return XFFI_FAIL;
  if (num_args < 1 || num_args % 2 == 0)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: expected a type then name/value pairs, got %d arguments", fn,
                            (int)num_args);
  const xffi_type_info *type = NULL;
  if (args[0].type_index == XFFI_TYPE_INT) {
    if (args[0].v_int64 >= XFFI_TYPE_STATIC_OBJECT_BEGIN && args[0].v_int64 <= INT32_MAX)
      type = xffi_type_info_find((int32_t)args[0].v_int64);
  } else {
    xffi_byte_array name;
    if (xffi_arg_to_str(&name, args, num_args, 0, fn) != XFFI_OK) return XFFI_FAIL;
    if (xffi_type_builtins_ensure() != XFFI_OK) return XFFI_FAIL;
    type = xffi_type_find_by_key(name.data, name.size);
  }
  if (!type || type->type_index < XFFI_TYPE_STATIC_OBJECT_BEGIN)
    return xffi_raise_arg(XFFI_KIND_INDEX, fn, "type", "is not a registered object type");
  init_plan *plan = xffi_alloc(sizeof(init_plan));
  if (!plan) return xffi_error_raise_out_of_memory();
  xffi_object *obj = NULL;
  int status = make_plan(plan, type);
  if (status == XFFI_OK) status = create_empty(&obj, type);
  if (status == XFFI_OK) status = bind_by_name(plan, obj, args, num_args);
  xffi_free(plan);
  if (status != XFFI_OK) {
    xffi_object_dec_ref(obj);
    return XFFI_FAIL;
  }
  *result = xffi_any_object(obj); /* the new reference moves into the result */
  return XFFI_OK;
}

static int global_register_ffi_init(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi._RegisterFFIInit";
  int64_t type_index;
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  if (args[0].type_index != XFFI_TYPE_INT) return xffi_raise_type_mismatch(fn, "int", &args[0]);
  type_index = args[0].v_int64;
  if (type_index < 0 || type_index > INT32_MAX)
    return xffi_raise_arg(XFFI_KIND_INDEX, fn, "type_index", "%lld is not a type index", (long long)type_index);
  if (register_auto_init((int32_t)type_index) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_none();
  return XFFI_OK;
}

XFFI_BUILTIN_FUNCTION(register_ffi_init_function, global_register_ffi_init);
XFFI_BUILTIN_FUNCTION(make_object_function, global_make_object);

static const xffi_builtin_global auto_init_globals[] = {
    {"ffi._RegisterFFIInit", &register_ffi_init_function, "None(int)"},
    {"ffi.MakeObjectFromPackedArgs", &make_object_function, "*"},
};

const xffi_builtin_table xffi_globals_auto_init = {auto_init_globals,
                                                   sizeof(auto_init_globals) / sizeof(auto_init_globals[0])};

int xffi_reflection_new_empty(xffi_object **out, const xffi_type_info *type) { return create_empty(out, type); }
