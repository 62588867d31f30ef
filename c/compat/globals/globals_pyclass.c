/* c/compat/globals/globals_pyclass.c: the ffi.* globals tvm-ffi's Python package calls to
 * define types in Python (py_class):
 *
 *   ffi.MakeFieldGetter(field_type_index) -> int: the address of the C
 *     getter (xffi_field_getter) of a field stored as the index implies;
 *   ffi.MakeFieldSetter(field_type_index, converter, convert) -> Function:
 *     called with (field address, value), it runs convert(converter, value,
 *     &converted) (the package's type converter, a C callback given as an
 *     integer address) and writes the converted value into the field;
 *   ffi._PyClassRegisterTypeAttrColumns(type_index, total_size): sets the
 *     type's "__ffi_init__", "__ffi_new__" and "__ffi_shallow_copy__"
 *     attributes (c/lib/reflection/pyclass.c makes the objects).
 *
 * Addresses cross the call as integers, as tvm-ffi transports them. */
#include <string.h>

#include <xffi/json.h>
#include <xffi/map.h>

#include "compat/globals/builtin_globals.h"
#include "runtime/check.h"
#include "runtime/global_args.h"
#include "lib/container/map_key.h" /* map_text_of */
#include "lib/reflection/pyclass.h"
#include "runtime/type_internal.h"

/* The package's converter callback: 0, or -1 with an error raised. value is
 * borrowed; *result receives an owned value. */
typedef int (*pyclass_convert)(void *converter, const xffi_any *value, xffi_any *result);

_Static_assert(sizeof(pyclass_convert) == sizeof(uintptr_t), "function addresses travel as integers");
_Static_assert(sizeof(xffi_field_getter) == sizeof(uintptr_t), "function addresses travel as integers");

/* Argument index of fn as an address: an int that fits a pointer. */
static int arg_to_address(uintptr_t *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn,
                          const char *what) {
  int64_t value;
  if (xffi_arg_to_int(&value, args, num_args, index, fn) != XFFI_OK) return XFFI_FAIL;
  if ((uint64_t)value > (uint64_t)UINTPTR_MAX)
    return xffi_raise_arg(XFFI_KIND_VALUE, fn, what, "%lld is not an address", (long long)value);
  *out = (uintptr_t)(uint64_t)value;
  return XFFI_OK;
}

/* Argument index of fn as a field's static type index with a storage. */
static int arg_to_field_type(int32_t *out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn) {
  int64_t value;
  if (xffi_arg_to_int(&value, args, num_args, index, fn) != XFFI_OK) return XFFI_FAIL;
  xffi_field_getter getter;
  if (value < INT32_MIN || value > INT32_MAX || xffi_field_getter_for_type(&getter, (int32_t)value) != XFFI_OK) {
    xffi_object *detail = xffi_error_move_raised();
    xffi_object_dec_ref(detail);
    return xffi_raise_arg(XFFI_KIND_VALUE, fn, "field_type_index",
                          "%lld has no field storage (expected int, float, bool, opaque pointer, dtype, device, "
                          "Any, None or an object type)",
                          (long long)value);
  }
  *out = (int32_t)value;
  return XFFI_OK;
}

static int global_make_field_getter(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.MakeFieldGetter";
  int32_t type_index = 0;
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  if (arg_to_field_type(&type_index, args, num_args, 0, fn) != XFFI_OK) return XFFI_FAIL;
  xffi_field_getter getter;
  if (xffi_field_getter_for_type(&getter, type_index) != XFFI_OK) return XFFI_FAIL;
  uintptr_t address;
  memcpy(&address, &getter, sizeof(address));
  *result = xffi_any_int((int64_t)address);
  return XFFI_OK;
}

/* Which values a setter's converter gives back unchanged, as its field's
 * type schema says (the package builds the converter and the field's
 * metadata, {"type_schema": ...}, from one annotation): such a value is
 * written without the round trip through Python, which costs more than the
 * rest of a py_class field write (over half of FromJSONGraphString of the
 * benchmark graph). Learnt when the setter's field is registered. */
enum {
  PASSES_UNKNOWN = -1, /* no field registered with the setter yet */
  PASSES_NOTHING,      /* every value goes through the converter */
  PASSES_ANY,          /* schema Any: every value that is owned as it is */
  PASSES_INT,          /* schema int: ints */
  PASSES_FLOAT,        /* schema float: floats */
  PASSES_BOOL,         /* schema bool: bools */
  PASSES_STR           /* schema str: strings */
};

/* What a setter made by ffi.MakeFieldSetter keeps (its resource). */
typedef struct field_setter {
  int32_t type_index;      /* the field's static type index: its storage */
  void *converter;         /* the package's converter (borrowed: the package keeps it alive) */
  pyclass_convert convert; /* calls it */
  int32_t passes;          /* PASSES_*, read and written atomically */
} field_setter;

/* Whether the converter of schema `passes` gives value back unchanged.
 * Schema Any: the converter packs what it unpacked, so every value a field
 * can own as it is (not the views: raw strings, byte arrays, DLTensor
 * pointers, rvalue references, which it turns into owned values). */
static int passes_unchanged(int32_t passes, const xffi_any *value) {
  int32_t t = value->type_index;
  switch (passes) {
    case PASSES_ANY:
      return t >= XFFI_TYPE_STATIC_OBJECT_BEGIN || t == XFFI_TYPE_NONE || t == XFFI_TYPE_INT || t == XFFI_TYPE_BOOL ||
             t == XFFI_TYPE_FLOAT || t == XFFI_TYPE_OPAQUE_PTR || t == XFFI_TYPE_DTYPE || t == XFFI_TYPE_DEVICE ||
             t == XFFI_TYPE_SMALL_STR || t == XFFI_TYPE_SMALL_BYTES;
    case PASSES_INT: return t == XFFI_TYPE_INT;
    case PASSES_FLOAT: return t == XFFI_TYPE_FLOAT;
    case PASSES_BOOL: return t == XFFI_TYPE_BOOL;
    case PASSES_STR: return t == XFFI_TYPE_SMALL_STR || t == XFFI_TYPE_STRING;
    default: return 0;
  }
}

/* The setter, a direct Function (so that xffi_pyclass_setter_storage knows
 * it by its call): args are (field address, value), both borrowed. */
static int call_field_setter(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  static const char fn[] = "ffi.MakeFieldSetter's setter";
  const field_setter *setter = xffi_function_resource_unchecked(handle);
  if (xffi_global_check_call(fn, args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  if (args[0].type_index != XFFI_TYPE_OPAQUE_PTR || !args[0].v_ptr) {
    if (args[0].type_index == XFFI_TYPE_OPAQUE_PTR)
      return xffi_raise_arg(XFFI_KIND_VALUE, fn, "argument 0 (field address)", "is a NULL pointer");
    return xffi_raise_arg(XFFI_KIND_TYPE, fn, "argument 0 (field address)", "expected an opaque pointer, got %s",
                          xffi_any_kind_name(&args[0]));
  }
  if (passes_unchanged(__atomic_load_n(&setter->passes, __ATOMIC_RELAXED), &args[1])) {
    if (xffi_field_write(args[0].v_ptr, setter->type_index, &args[1]) != XFFI_OK) return XFFI_FAIL;
    *result = xffi_any_none();
    return XFFI_OK;
  }
  xffi_any converted = xffi_any_none();
  if (setter->convert(setter->converter, &args[1], &converted) != 0) {
    if (!xffi_error_peek_raised())
      xffi_error_raise(XFFI_KIND_RUNTIME, "%s: the type converter failed without raising an error", fn);
    return XFFI_FAIL;
  }
  int status = xffi_field_write(args[0].v_ptr, setter->type_index, &converted);
  xffi_any_release(&converted);
  if (status != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_none();
  return XFFI_OK;
}

/* The resource of setter, a Function of this kind (borrowed). */
static field_setter *field_setter_of(const xffi_object *setter) {
  return ((const xffi_function_head *)(const void *)setter)->resource;
}

/* xffi_pyclass_setter_storage for setters made here (c/lib/reflection/pyclass.h). */
static int setter_storage(int32_t *out, const xffi_object *setter) {
  *out = field_setter_of(setter)->type_index;
  return 1;
}

/* The value of key in map (borrowed), or NULL when map is not a Map or has
 * no such key, or on failure (raised). */
static const xffi_any *map_value(const xffi_any *map, const char *key, int *failed) {
  xffi_any k;
  const xffi_any *found = NULL;
  if (*failed || map->type_index != XFFI_TYPE_MAP) return NULL;
  *failed = xffi_any_from_str(&k, key, strlen(key)) != XFFI_OK;
  if (!*failed) *failed = xffi_map_lookup(&found, map->v_obj, &k) != XFFI_OK;
  xffi_any_release(&k);
  return *failed ? NULL : found;
}

/* PASSES_* of a field's metadata: a JSON object whose "type_schema" is
 * {"type": "Any" | "int" | "float" | "bool" | "str"} with no "args";
 * anything else (other schemas, no schema, text that is not JSON) is
 * PASSES_NOTHING. Leaves no error raised. */
static int32_t passes_of_metadata(xffi_byte_array metadata) {
  static const struct {
    const char *name;
    int32_t passes;
  } simple[] = {
      {"Any", PASSES_ANY}, {"int", PASSES_INT}, {"float", PASSES_FLOAT}, {"bool", PASSES_BOOL}, {"str", PASSES_STR}};
  if (!metadata.size) return PASSES_NOTHING;
  xffi_any parsed;
  if (xffi_json_parse(&parsed, metadata.data, metadata.size) != XFFI_OK) {
    xffi_object_dec_ref(xffi_error_move_raised()); /* not JSON: no schema known */
    return PASSES_NOTHING;
  }
  int failed = 0;
  const xffi_any *schema = map_value(&parsed, "type_schema", &failed);
  const xffi_any *type = schema ? map_value(schema, "type", &failed) : NULL;
  int32_t passes = PASSES_NOTHING;
  if (type && !map_value(schema, "args", &failed) && !failed &&
      (type->type_index == XFFI_TYPE_SMALL_STR || type->type_index == XFFI_TYPE_STRING)) {
    xffi_byte_array name = map_text_of(type);
    for (size_t i = 0; i < sizeof(simple) / sizeof(simple[0]); ++i)
      if (name.size == strlen(simple[i].name) && memcmp(name.data, simple[i].name, name.size) == 0)
        passes = simple[i].passes;
  }
  if (failed) xffi_object_dec_ref(xffi_error_move_raised()); /* out of memory: the converter runs */
  xffi_any_release(&parsed);
  return passes;
}

/* xffi_pyclass_setter_learn for setters made here (c/lib/reflection/pyclass.h). */
static void setter_learn(const xffi_object *setter, xffi_byte_array metadata) {
  field_setter *s = field_setter_of(setter);
  int32_t learnt = passes_of_metadata(metadata), seen = __atomic_load_n(&s->passes, __ATOMIC_RELAXED), next;
  do /* the first field decides; a setter shared by fields of other schemas passes nothing */
    next = seen == PASSES_UNKNOWN || seen == learnt ? learnt : PASSES_NOTHING;
  while (!__atomic_compare_exchange_n(&s->passes, &seen, next, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static const xffi_field_setter_kind made_setters = {call_field_setter, setter_storage, setter_learn};

static int global_make_field_setter(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.MakeFieldSetter";
  int32_t type_index = 0;
  uintptr_t converter = 0, convert = 0;
  if (xffi_global_check_call(fn, args, num_args, 3, result) != XFFI_OK) return XFFI_FAIL;
  if (arg_to_field_type(&type_index, args, num_args, 0, fn) != XFFI_OK) return XFFI_FAIL;
  if (arg_to_address(&converter, args, num_args, 1, fn, "type_converter") != XFFI_OK) return XFFI_FAIL;
  if (arg_to_address(&convert, args, num_args, 2, fn, "f_convert") != XFFI_OK) return XFFI_FAIL;
  if (convert == 0) return xffi_raise_arg(XFFI_KIND_VALUE, fn, "f_convert", "is 0 (expected a function address)");
  xffi_field_setter_kind_register(&made_setters); /* before any setter of the kind exists */
  field_setter *setter = xffi_alloc(sizeof(field_setter));
  if (!setter) return xffi_error_raise_out_of_memory();
  setter->type_index = type_index;
  setter->converter = (void *)converter;
  memcpy(&setter->convert, &convert, sizeof(setter->convert));
  setter->passes = PASSES_UNKNOWN;
  xffi_object *function;
  if (xffi_function_new_direct(&function, call_field_setter, setter, xffi_free) != XFFI_OK) {
    xffi_free(setter);
    return XFFI_FAIL;
  }
  *result = xffi_any_object(function); /* the new reference moves into the result */
  return XFFI_OK;
}

/* What __ffi_new__ and __ffi_shallow_copy__ of a type keep. */
typedef struct pyclass_layout {
  int32_t type_index;
  int32_t total_size;
} pyclass_layout;

static int call_new(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  const pyclass_layout *layout = resource;
  if (xffi_global_check_call("__ffi_new__", args, num_args, 0, result) != XFFI_OK) return XFFI_FAIL;
  xffi_object *obj;
  if (xffi_pyclass_new(&obj, layout->type_index, layout->total_size) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(obj);
  return XFFI_OK;
}

static int call_shallow_copy(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  static const char fn[] = "__ffi_shallow_copy__";
  const pyclass_layout *layout = resource;
  xffi_object *src;
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_object(&src, args, num_args, 0, layout->type_index, fn) != XFFI_OK) return XFFI_FAIL;
  if (!src)
    return xffi_raise_arg(XFFI_KIND_TYPE, fn, "argument 0", "expected %s, got None", xffi_type_key(layout->type_index));
  xffi_object *copy;
  if (xffi_pyclass_shallow_copy(&copy, src, layout->type_index, layout->total_size) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(copy);
  return XFFI_OK;
}

/* *out receives a new reference to a Function calling callback with a copy
 * of layout. */
static int layout_function_new(xffi_object **out, xffi_function_callback callback, pyclass_layout layout) {
  pyclass_layout *resource = xffi_alloc(sizeof(pyclass_layout));
  if (!resource) return xffi_error_raise_out_of_memory();
  *resource = layout;
  if (xffi_function_new(out, callback, resource, xffi_free) != XFFI_OK) {
    xffi_free(resource);
    return XFFI_FAIL;
  }
  return XFFI_OK;
}

/* Whether type_index has a (non-None) value of the attribute name. */
static int has_attr(const char *name, int32_t type_index) {
  xffi_any value = xffi_type_attr_entry(xffi_type_attr_column_find(name, strlen(name)), type_index);
  return value.type_index != XFFI_TYPE_NONE;
}

/* Checks that every field of type (and of its ancestors) lies in total_size
 * bytes after the header. */
static int check_layout(const char *fn, const xffi_type_info *type, int64_t total_size) {
  for (int32_t depth = 0; depth <= type->type_depth; ++depth) {
    const xffi_type_info *level = depth == type->type_depth ? type : type->type_ancestors[depth];
    int32_t count = __atomic_load_n(&level->num_fields, __ATOMIC_ACQUIRE);
    const xffi_field_info *fields = __atomic_load_n(&level->fields, __ATOMIC_ACQUIRE);
    for (int32_t i = 0; i < count; ++i) {
      const xffi_field_info *f = &fields[i];
      if (f->offset < (int64_t)sizeof(xffi_object) || f->size < 0 || f->offset > total_size - f->size)
        return xffi_raise_arg(XFFI_KIND_VALUE, fn, "total_size",
                              "%lld does not hold field '%.*s' of %s (offset %lld, size %lld)", (long long)total_size,
                              (int)f->name.size, f->name.data, level->type_key.data, (long long)f->offset,
                              (long long)f->size);
    }
  }
  return XFFI_OK;
}

static int global_pyclass_register(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi._PyClassRegisterTypeAttrColumns";
  static const char *const attrs[] = {"__ffi_init__", "__ffi_new__", "__ffi_shallow_copy__"};
  int64_t type_index, total_size;
  if (xffi_global_check_call(fn, args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int(&type_index, args, num_args, 0, fn) != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int(&total_size, args, num_args, 1, fn) != XFFI_OK) return XFFI_FAIL;
  const xffi_type_info *type = NULL;
  if (type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN && type_index <= INT32_MAX)
    type = xffi_type_info_find((int32_t)type_index);
  if (!type)
    return xffi_raise_arg(XFFI_KIND_INDEX, fn, "type_index", "%lld is not a registered object type",
                          (long long)type_index);
  if (total_size < (int64_t)sizeof(xffi_object) || total_size > INT32_MAX)
    return xffi_raise_arg(XFFI_KIND_VALUE, fn, "total_size",
                          "%lld is outside [%d, %d] (an object is at least its %d-byte header)", (long long)total_size,
                          (int)sizeof(xffi_object), INT32_MAX, (int)sizeof(xffi_object));
  if (check_layout(fn, type, total_size) != XFFI_OK) return XFFI_FAIL;
  for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); ++i)
    if (has_attr(attrs[i], (int32_t)type_index))
      return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: type %s already has attribute %s", fn, type->type_key.data,
                              attrs[i]);
  /* Make all three Functions first, so that only the registrations below
   * (which fail on memory alone) come after anything is kept. */
  pyclass_layout layout = {(int32_t)type_index, (int32_t)total_size};
  xffi_object *functions[3] = {NULL, NULL, NULL};
  int status = xffi_auto_init_function_new(&functions[0], fn, layout.type_index);
  if (status == XFFI_OK) status = layout_function_new(&functions[1], call_new, layout);
  if (status == XFFI_OK) status = layout_function_new(&functions[2], call_shallow_copy, layout);
  for (size_t i = 0; i < 3 && status == XFFI_OK; ++i) {
    xffi_any value = xffi_any_object(functions[i]);
    status = xffi_type_register_attr_in(fn, layout.type_index, attrs[i], strlen(attrs[i]), &value);
  }
  for (size_t i = 0; i < 3; ++i) xffi_object_dec_ref(functions[i]); /* the columns keep their own references */
  if (status != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_none();
  return XFFI_OK;
}

XFFI_BUILTIN_FUNCTION(make_field_getter_function, global_make_field_getter);
XFFI_BUILTIN_FUNCTION(make_field_setter_function, global_make_field_setter);
XFFI_BUILTIN_FUNCTION(pyclass_register_function, global_pyclass_register);

static const xffi_builtin_global pyclass_globals[] = {
    {"ffi.MakeFieldGetter", &make_field_getter_function, "int(int)"},
    {"ffi.MakeFieldSetter", &make_field_setter_function, "ffi.Function(int,int,int)"},
    {"ffi._PyClassRegisterTypeAttrColumns", &pyclass_register_function, "None(int,int)"},
};

const xffi_builtin_table xffi_globals_pyclass = {pyclass_globals, sizeof(pyclass_globals) / sizeof(pyclass_globals[0])};
