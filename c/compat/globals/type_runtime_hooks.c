/* c/compat/globals/type_runtime_hooks.c: the Function-valued type attributes tvm-ffi's
 * runtime registers on its own reflected types (c/compat/globals/type_runtime.c) and on
 * ffi.BigInt, with tvm-ffi's behaviour:
 *
 *   __ffi_new__ (no arguments: an object as the type's default constructor
 *     makes it) on ffi.EnumState, ffi.Enum, ffi.IntEnum, ffi.StrEnum,
 *     ffi.reflection.AccessStep, ffi.reflection.AccessPath,
 *     ffi.VisitErrorContext, ffi.StructuralKey and ffi.VisitInterrupt;
 *   __ffi_shallow_copy__ (one object: a new object of the type holding the
 *     same field values) on those and on ffi.StructuralVisitor and
 *     ffi.StructuralMutator (a copy with the walker's table and region);
 *   __ffi_init__ of ffi.EnumState and ffi.StructuralKey: the type's
 *     `__ffi_init__` method, which tvm-ffi mirrors into the column;
 *   __ffi_convert__ of ffi.IntEnum and ffi.StrEnum: the value itself when it
 *     is one, else TypeError "Cannot cast from `K` to `ffi.IntEnum`";
 *   ffi.BigInt's __ffi_hash__(obj, fn), __ffi_eq__(a, b, fn),
 *     __ffi_compare__(a, b, fn) (the recursive callback fn, a Function or
 *     None, is not needed by an integer), __data_to_json__(value) (the
 *     decimal text) and __data_from_json__(text) (its inverse).
 *
 * Each Function is static and immortal, its resource the hook's record
 * (the type it serves), so registering them allocates nothing. */
#include <stdio.h>
#include <string.h>

#include <xffi/function.h>
#include <xffi/structural_visit.h>
#include <xffi/sys/function.h>

#include "compat/globals/type_runtime_hooks.h"
#include "lib/reflection/enum_state.h"
#include "lib/reflection/field_storage.h"
#include "lib/reflection/pyclass.h"
#include "lib/reflection/runtime_types.h"
#include "lib/text/bigint_text.h"
#include "lib/walk/structural_key.h"
#include "lib/walk/structural_visit_object.h"
#include "lib/walk/visit_error_context.h"
#include "runtime/bigint.h"
#include "runtime/check.h"
#include "runtime/global_args.h"
#include "runtime/static_object.h"
#include "runtime/type_internal.h"

/* How __ffi_new__ makes an empty object of a type. */
typedef enum empty_kind {
  EMPTY_NONE, /* no default constructor (the walkers) */
  EMPTY_ENUM,
  EMPTY_ENUM_STATE,
  EMPTY_ACCESS_STEP,
  EMPTY_ACCESS_PATH,
  EMPTY_VISIT_ERROR_CONTEXT,
  EMPTY_STRUCTURAL_KEY,
  EMPTY_VISIT_INTERRUPT
} empty_kind;

/* A runtime type whose __ffi_new__, __ffi_shallow_copy__ or
 * __ffi_convert__ is served here (the resource of those Functions). */
typedef struct runtime_type_hooks {
  const char *type_key;
  empty_kind empty;   /* EMPTY_NONE: no __ffi_new__ */
  int walker;         /* ffi.StructuralVisitor or ffi.StructuralMutator: copied as walkers */
  int32_t type_index; /* set at registration */
} runtime_type_hooks;

/* tvm-ffi's EnumObj: _int_index (int64) at 24, _str_index (a String, 16
 * bytes) at 32; IntEnum and StrEnum add no storage. */
enum { enum_str_index_offset = 32, enum_object_size = 48 };

/* The types with a default constructor first (the walkers have none). */
enum { ENUM_STATE = 0, INT_ENUM = 2, STR_ENUM = 3, STRUCTURAL_KEY = 7, TYPES_WITH_NEW = 9, TYPE_COUNT = 11 };
static runtime_type_hooks types[TYPE_COUNT] = {
    {"ffi.EnumState", EMPTY_ENUM_STATE, 0, -1},
    {"ffi.Enum", EMPTY_ENUM, 0, -1},
    {"ffi.IntEnum", EMPTY_ENUM, 0, -1},
    {"ffi.StrEnum", EMPTY_ENUM, 0, -1},
    {"ffi.reflection.AccessStep", EMPTY_ACCESS_STEP, 0, -1},
    {"ffi.reflection.AccessPath", EMPTY_ACCESS_PATH, 0, -1},
    {"ffi.VisitErrorContext", EMPTY_VISIT_ERROR_CONTEXT, 0, -1},
    {"ffi.StructuralKey", EMPTY_STRUCTURAL_KEY, 0, -1},
    {"ffi.VisitInterrupt", EMPTY_VISIT_INTERRUPT, 0, -1},
    {"ffi.StructuralVisitor", EMPTY_NONE, 1, -1},
    {"ffi.StructuralMutator", EMPTY_NONE, 1, -1},
};

static int call_new(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result);
static int call_shallow_copy(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result);
static int call_convert(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result);

/* A static, immortal Function whose resource is a type's record. */
#define HOOK_FUNCTION(call, i)                \
  {                                           \
    {.ref_counts = XFFI_BUILTIN_REF_COUNTS,   \
     .type_index = XFFI_TYPE_FUNCTION,        \
     .reserved = 0,                           \
     .deleter = xffi_builtin_object_deleter}, \
        {(call), NULL}, &types[i]             \
  }
static xffi_function_head new_functions[TYPES_WITH_NEW] = {
    HOOK_FUNCTION(call_new, 0), HOOK_FUNCTION(call_new, 1), HOOK_FUNCTION(call_new, 2),
    HOOK_FUNCTION(call_new, 3), HOOK_FUNCTION(call_new, 4), HOOK_FUNCTION(call_new, 5),
    HOOK_FUNCTION(call_new, 6), HOOK_FUNCTION(call_new, 7), HOOK_FUNCTION(call_new, 8)};
static xffi_function_head copy_functions[TYPE_COUNT] = {
    HOOK_FUNCTION(call_shallow_copy, 0), HOOK_FUNCTION(call_shallow_copy, 1), HOOK_FUNCTION(call_shallow_copy, 2),
    HOOK_FUNCTION(call_shallow_copy, 3), HOOK_FUNCTION(call_shallow_copy, 4), HOOK_FUNCTION(call_shallow_copy, 5),
    HOOK_FUNCTION(call_shallow_copy, 6), HOOK_FUNCTION(call_shallow_copy, 7), HOOK_FUNCTION(call_shallow_copy, 8),
    HOOK_FUNCTION(call_shallow_copy, 9), HOOK_FUNCTION(call_shallow_copy, 10)};
static xffi_function_head convert_functions[2] = {HOOK_FUNCTION(call_convert, INT_ENUM),
                                                  HOOK_FUNCTION(call_convert, STR_ENUM)};

/* "KEY.NAME": the name a hook's errors give. */
typedef struct hook_name {
  char text[64];
} hook_name;
static hook_name name_of(const runtime_type_hooks *hooks, const char *attr) {
  hook_name n;
  snprintf(n.text, sizeof(n.text), "%s.%s", hooks->type_key, attr);
  return n;
}

/* ---- __ffi_new__ ---- */

/* *out: a new object of hooks' type as its default constructor makes it. */
static int make_empty(xffi_object **out, const runtime_type_hooks *hooks) {
  xffi_any none = xffi_any_none();
  switch (hooks->empty) {
    case EMPTY_ENUM: {
      /* Fields only (pyclass.h): the deleter releases what they hold. */
      if (xffi_pyclass_new(out, hooks->type_index, enum_object_size) != XFFI_OK) return XFFI_FAIL;
      xffi_any empty_text = xffi_any_none(); /* "", as tvm-ffi's String() */
      empty_text.type_index = XFFI_TYPE_SMALL_STR;
      memcpy((char *)*out + enum_str_index_offset, &empty_text, sizeof(empty_text));
      return XFFI_OK;
    }
    case EMPTY_ENUM_STATE: return xffi_enum_state_new(out);
    case EMPTY_ACCESS_STEP: return xffi_access_step_new(out, XFFI_ACCESS_ATTR, &none);
    case EMPTY_ACCESS_PATH: return xffi_access_path_extend(out, NULL, 0, NULL);
    case EMPTY_VISIT_ERROR_CONTEXT: return xffi_visit_error_context_new_empty(out);
    case EMPTY_STRUCTURAL_KEY: return xffi_structural_key_new_raw(out, &none, 0);
    case EMPTY_VISIT_INTERRUPT: return xffi_visit_interrupt_new(out, &none);
    case EMPTY_NONE: break;
  }
  return xffi_error_raise(XFFI_KIND_TYPE, "%s.__ffi_new__: the type has no default constructor", hooks->type_key);
}

static int call_new(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  const runtime_type_hooks *hooks = xffi_function_resource_unchecked(handle);
  xffi_object *made = NULL;
  hook_name fn = name_of(hooks, "__ffi_new__");
  if (xffi_global_check_call(fn.text, args, num_args, 0, result) != XFFI_OK || make_empty(&made, hooks) != XFFI_OK)
    return XFFI_FAIL;
  *result = xffi_any_object(made);
  return XFFI_OK;
}

/* ---- __ffi_shallow_copy__ ---- */

/* Sets every field of type (its ancestors' and its own) in copy to src's
 * value, through the fields' records. */
static int copy_fields(xffi_object *copy, const xffi_object *src, const xffi_type_info *type) {
  for (int32_t depth = 0; depth <= type->type_depth; ++depth) {
    const xffi_type_info *level = depth == type->type_depth ? type : type->type_ancestors[depth];
    int32_t count = __atomic_load_n(&level->num_fields, __ATOMIC_ACQUIRE);
    const xffi_field_info *fields = __atomic_load_n(&level->fields, __ATOMIC_ACQUIRE);
    for (int32_t i = 0; i < count; ++i) {
      xffi_any value;
      if (xffi_field_read(&value, src, &fields[i]) != XFFI_OK) return XFFI_FAIL;
      int status = xffi_field_assign(copy, &fields[i], &value);
      xffi_any_release(&value);
      if (status != XFFI_OK) return XFFI_FAIL;
    }
  }
  return XFFI_OK;
}

/* A copy of src as hooks' type: a derived object is copied as the hook's
 * own type, as tvm-ffi's copy constructor of that type does. */
static int call_shallow_copy(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  const runtime_type_hooks *hooks = xffi_function_resource_unchecked(handle);
  hook_name name = name_of(hooks, "__ffi_shallow_copy__");
  const char *fn = name.text;
  xffi_object *src = NULL, *copy = NULL;
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK ||
      xffi_arg_to_object(&src, args, num_args, 0, hooks->type_index, fn) != XFFI_OK)
    return XFFI_FAIL;
  if (!src) return xffi_raise_arg(XFFI_KIND_TYPE, fn, "argument 0", "expected %s, got None", hooks->type_key);
  if (hooks->walker) {
    if (xffi_structural_link_copy(&copy, src, hooks->type_index) != XFFI_OK) return XFFI_FAIL;
  } else {
    const xffi_type_info *type = xffi_type_info_find(hooks->type_index);
    if (make_empty(&copy, hooks) != XFFI_OK) return XFFI_FAIL;
    if (copy_fields(copy, src, type) != XFFI_OK) {
      xffi_object_dec_ref(copy);
      return XFFI_FAIL;
    }
  }
  *result = xffi_any_object(copy);
  return XFFI_OK;
}

/* ---- __ffi_convert__ ---- */

static int call_convert(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  const runtime_type_hooks *hooks = xffi_function_resource_unchecked(handle);
  hook_name fn = name_of(hooks, "__ffi_convert__");
  if (xffi_global_check_call(fn.text, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  int is_a = 0;
  if (xffi_any_is_object(&args[0]) && xffi_object_is_a(&is_a, args[0].v_obj, hooks->type_index) != XFFI_OK)
    return XFFI_FAIL;
  if (!is_a)
    return xffi_error_raise(XFFI_KIND_TYPE, "Cannot cast from `%s` to `%s`", xffi_type_key(args[0].type_index),
                            hooks->type_key);
  return xffi_any_copy(result, &args[0]);
}

/* ---- ffi.BigInt ---- */

/* The hooks' checks: num_args arguments, the first want_objects of them
 * objects, the last the recursive callback (a Function or None). */
static int check_bigint_hook(const char *fn, const xffi_any *args, int32_t num_args, int32_t expected, int want_objects,
                             xffi_any *result) {
  if (xffi_global_check_call(fn, args, num_args, expected, result) != XFFI_OK) return XFFI_FAIL;
  for (int i = 0; i < want_objects; ++i)
    if (!xffi_any_is_object(&args[i])) {
      char what[24]; /* "argument " and any int */
      snprintf(what, sizeof(what), "argument %d", i);
      return xffi_raise_arg(XFFI_KIND_TYPE, fn, what, "expected ffi.Object, got %s", xffi_any_kind_name(&args[i]));
    }
  const xffi_any *callback = &args[expected - 1];
  if (callback->type_index != XFFI_TYPE_NONE && callback->type_index != XFFI_TYPE_FUNCTION)
    return xffi_raise_type_mismatch(fn, "ffi.Function", callback);
  return XFFI_OK;
}

/* A native hook's result (an Int, a Bool, or an Error) as a call's. */
static int native_result(xffi_any got, xffi_any *result) {
  if (got.type_index == XFFI_TYPE_ERROR) {
    xffi_error_set_raised(got.v_obj); /* steals the reference */
    return XFFI_FAIL;
  }
  *result = got;
  return XFFI_OK;
}

static int bigint_hash(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (check_bigint_hook("ffi.BigInt.__ffi_hash__", args, num_args, 2, 1, result) != XFFI_OK) return XFFI_FAIL;
  return native_result(xffi_bigint_any_hash(&args[0]), result);
}

static int bigint_eq(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (check_bigint_hook("ffi.BigInt.__ffi_eq__", args, num_args, 3, 2, result) != XFFI_OK) return XFFI_FAIL;
  return native_result(xffi_bigint_any_equal(&args[0], &args[1]), result);
}

static int bigint_compare(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.BigInt.__ffi_compare__";
  int order = 0;
  if (check_bigint_hook(fn, args, num_args, 3, 2, result) != XFFI_OK ||
      xffi_bigint_compare(&order, &args[0], &args[1], fn) != XFFI_OK)
    return XFFI_FAIL;
  *result = xffi_any_int(order);
  return XFFI_OK;
}

static int bigint_to_json(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.BigInt.__data_to_json__";
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  return xffi_bigint_to_decimal(result, &args[0], fn);
}

static int bigint_from_json(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.BigInt.__data_from_json__";
  xffi_byte_array text;
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK ||
      xffi_arg_to_str(&text, args, num_args, 0, fn) != XFFI_OK)
    return XFFI_FAIL;
  return xffi_bigint_from_decimal(result, text.data, text.size, fn);
}

XFFI_BUILTIN_FUNCTION(bigint_hash_function, bigint_hash);
XFFI_BUILTIN_FUNCTION(bigint_eq_function, bigint_eq);
XFFI_BUILTIN_FUNCTION(bigint_compare_function, bigint_compare);
XFFI_BUILTIN_FUNCTION(bigint_to_json_function, bigint_to_json);
XFFI_BUILTIN_FUNCTION(bigint_from_json_function, bigint_from_json);

/* ---- ffi.StructuralKey's __ffi_init__ ---- */

static int structural_key_init(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_object *key = NULL;
  if (xffi_global_check_call("ffi.StructuralKey.__ffi_init__", args, num_args, 1, result) != XFFI_OK ||
      xffi_structural_key_new(&key, &args[0]) != XFFI_OK)
    return XFFI_FAIL;
  *result = xffi_any_object(key);
  return XFFI_OK;
}

XFFI_BUILTIN_FUNCTION(structural_key_init_function, structural_key_init);

const xffi_runtime_method xffi_structural_key_methods[] = {{"__ffi_init__", &structural_key_init_function, 1,
                                                            "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{"
                                                            "\"type\":\"ffi.Object\"}],\"params\":[{\"type\":\"Any\"}]}"
                                                            "}"}};
const int32_t xffi_structural_key_method_count = 1;

/* ---- Registration ---- */

static int put_function(int32_t type_index, const char *name, xffi_function_head *function) {
  xffi_any entry = xffi_any_object(&function->header);
  return xffi_type_register_attr(type_index, name, &entry);
}

static int index_of(int32_t *out, const char *type_key) {
  const xffi_type_info *info = xffi_type_find_by_key(type_key, strlen(type_key));
  if (!info) return xffi_error_raise(XFFI_KIND_RUNTIME, "the runtime type %s is not registered", type_key);
  *out = info->type_index;
  return XFFI_OK;
}

int xffi_runtime_type_hooks_register(void) {
  for (int i = 0; i < TYPE_COUNT; ++i) {
    runtime_type_hooks *hooks = &types[i];
    if (index_of(&hooks->type_index, hooks->type_key) != XFFI_OK ||
        (i < TYPES_WITH_NEW && put_function(hooks->type_index, "__ffi_new__", &new_functions[i]) != XFFI_OK) ||
        put_function(hooks->type_index, "__ffi_shallow_copy__", &copy_functions[i]) != XFFI_OK)
      return XFFI_FAIL;
  }
  if (put_function(types[INT_ENUM].type_index, "__ffi_convert__", &convert_functions[0]) != XFFI_OK ||
      put_function(types[STR_ENUM].type_index, "__ffi_convert__", &convert_functions[1]) != XFFI_OK ||
      put_function(types[ENUM_STATE].type_index, "__ffi_init__", xffi_enum_state_methods[0].function) != XFFI_OK ||
      put_function(types[STRUCTURAL_KEY].type_index, "__ffi_init__", &structural_key_init_function) != XFFI_OK ||
      xffi_structural_key_register_hooks(types[STRUCTURAL_KEY].type_index) != XFFI_OK)
    return XFFI_FAIL;
  return put_function(XFFI_TYPE_BIGINT, "__ffi_hash__", &bigint_hash_function) != XFFI_OK ||
                 put_function(XFFI_TYPE_BIGINT, "__ffi_eq__", &bigint_eq_function) != XFFI_OK ||
                 put_function(XFFI_TYPE_BIGINT, "__ffi_compare__", &bigint_compare_function) != XFFI_OK ||
                 put_function(XFFI_TYPE_BIGINT, "__data_to_json__", &bigint_to_json_function) != XFFI_OK ||
                 put_function(XFFI_TYPE_BIGINT, "__data_from_json__", &bigint_from_json_function) != XFFI_OK
             ? XFFI_FAIL
             : XFFI_OK;
}
