/* c/lib/reflection/field_storage.c: reading and writing a reflected field, by the storage
 * its static type index implies, and by name on any object.
 *
 * The storage of a field follows tvm-ffi's conventions, so that records made
 * by C++ code, by Python-defined classes and by xffi describe memory alike:
 * int is int64_t, float double, bool a C bool, opaque pointer void*, dtype
 * DLDataType, device DLDevice, Any and None an xffi_any (16 bytes), and every
 * object type one object pointer (NULL is None). */
#include <stdbool.h>
#include <string.h>
#include <xffi/function.h>
#include <xffi/reflection.h>
#include <xffi/string.h>

#include "runtime/check.h"
#include "lib/reflection/field_storage.h"
#include "runtime/internal.h"
#include "lib/reflection/reflection_index.h"
#include "runtime/type_internal.h"

/* ---- Getters: *result receives a new reference; never fail. ---- */

static int get_int(void *field_addr, xffi_any *result) {
  int64_t value;
  memcpy(&value, field_addr, sizeof(value));
  *result = xffi_any_int(value);
  return XFFI_OK;
}

static int get_float(void *field_addr, xffi_any *result) {
  double value;
  memcpy(&value, field_addr, sizeof(value));
  *result = xffi_any_float(value);
  return XFFI_OK;
}

static int get_bool(void *field_addr, xffi_any *result) {
  *result = xffi_any_bool(*(const bool *)field_addr);
  return XFFI_OK;
}

static int get_ptr(void *field_addr, xffi_any *result) {
  void *value;
  memcpy(&value, field_addr, sizeof(value));
  *result = xffi_any_ptr(value);
  return XFFI_OK;
}

static int get_dtype(void *field_addr, xffi_any *result) {
  DLDataType value;
  memcpy(&value, field_addr, sizeof(value));
  *result = xffi_any_dtype(value);
  return XFFI_OK;
}

static int get_device(void *field_addr, xffi_any *result) {
  DLDevice value;
  memcpy(&value, field_addr, sizeof(value));
  *result = xffi_any_device(value);
  return XFFI_OK;
}

static int get_any(void *field_addr, xffi_any *result) {
  const xffi_any *value = field_addr;
  *result = *value;
  if (xffi_any_is_object(result)) xffi_object_inc_ref(result->v_obj);
  return XFFI_OK;
}

static int get_object(void *field_addr, xffi_any *result) {
  xffi_object *value;
  memcpy(&value, field_addr, sizeof(value));
  *result = xffi_any_object_new_ref(value);
  return XFFI_OK;
}

int xffi_field_getter_for_type(xffi_field_getter *out, int32_t static_type_index) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  switch (static_type_index) {
    case XFFI_TYPE_INT: *out = get_int; return XFFI_OK;
    case XFFI_TYPE_FLOAT: *out = get_float; return XFFI_OK;
    case XFFI_TYPE_BOOL: *out = get_bool; return XFFI_OK;
    case XFFI_TYPE_OPAQUE_PTR: *out = get_ptr; return XFFI_OK;
    case XFFI_TYPE_DTYPE: *out = get_dtype; return XFFI_OK;
    case XFFI_TYPE_DEVICE: *out = get_device; return XFFI_OK;
    case XFFI_TYPE_ANY:
    case XFFI_TYPE_NONE: *out = get_any; return XFFI_OK;
    default: break;
  }
  if (static_type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN) {
    *out = get_object;
    return XFFI_OK;
  }
  return xffi_raise_arg(XFFI_KIND_VALUE, __func__, "static_type_index",
                        "%d has no field storage (expected int, float, bool, opaque pointer, dtype, device, Any, "
                        "None or an object type)",
                        (int)static_type_index);
}

/* ---- Conversion: what a value becomes in a field of a given type. ---- */

/* Converts the view *value for a field of static type type_index into an
 * owned *out (a String or Bytes object is made for a small or borrowed
 * string). Raises "expected <type>, got <kind>" as the xffi_any_to_*
 * accessors do, with function as the context. */
static int convert_object(xffi_any *out, const xffi_any *value, int32_t type_index) {
  if ((type_index == XFFI_TYPE_STRING || type_index == XFFI_TYPE_BYTES) && !xffi_any_is_object(value) &&
      value->type_index != XFFI_TYPE_NONE) {
    xffi_byte_array text;
    int status = type_index == XFFI_TYPE_STRING ? xffi_any_to_str(&text, value) : xffi_any_to_bytes(&text, value);
    if (status != XFFI_OK) return XFFI_FAIL;
    xffi_object *obj;
    status = type_index == XFFI_TYPE_STRING ? xffi_string_new(&obj, text.data, text.size)
                                            : xffi_bytes_new(&obj, text.data, text.size);
    if (status != XFFI_OK) return XFFI_FAIL;
    *out = xffi_any_object(obj);
    return XFFI_OK;
  }
  xffi_object *obj;
  if (xffi_any_to_object(&obj, value, type_index) != XFFI_OK) return XFFI_FAIL;
  *out = xffi_any_object_new_ref(obj);
  return XFFI_OK;
}

int xffi_field_write(void *field_addr, int32_t static_type_index, const xffi_any *value) {
  XFFI_CHECK_ARG_NOT_NULL(field_addr);
  XFFI_CHECK_ARG_NOT_NULL(value);
  XFFI_CHECK_ARG_ANY(value);
  switch (static_type_index) {
    case XFFI_TYPE_INT: {
      int64_t v;
      if (xffi_any_to_int(&v, value) != XFFI_OK) return XFFI_FAIL;
      memcpy(field_addr, &v, sizeof(v));
      return XFFI_OK;
    }
    case XFFI_TYPE_FLOAT: {
      double v;
      if (xffi_any_to_float(&v, value) != XFFI_OK) return XFFI_FAIL;
      memcpy(field_addr, &v, sizeof(v));
      return XFFI_OK;
    }
    case XFFI_TYPE_BOOL: {
      int v;
      if (xffi_any_to_bool(&v, value) != XFFI_OK) return XFFI_FAIL;
      *(bool *)field_addr = v != 0;
      return XFFI_OK;
    }
    case XFFI_TYPE_OPAQUE_PTR: {
      void *v;
      if (xffi_any_to_ptr(&v, value) != XFFI_OK) return XFFI_FAIL;
      memcpy(field_addr, &v, sizeof(v));
      return XFFI_OK;
    }
    case XFFI_TYPE_DTYPE: {
      DLDataType v;
      if (xffi_any_to_dtype(&v, value) != XFFI_OK) return XFFI_FAIL;
      memcpy(field_addr, &v, sizeof(v));
      return XFFI_OK;
    }
    case XFFI_TYPE_DEVICE: {
      DLDevice v;
      if (xffi_any_to_device(&v, value) != XFFI_OK) return XFFI_FAIL;
      memcpy(field_addr, &v, sizeof(v));
      return XFFI_OK;
    }
    case XFFI_TYPE_ANY:
    case XFFI_TYPE_NONE: {
      xffi_any copy;
      if (xffi_any_copy(&copy, value) != XFFI_OK) return XFFI_FAIL;
      xffi_any *slot = field_addr;
      xffi_any old = *slot;
      *slot = copy;
      xffi_any_release(&old);
      return XFFI_OK;
    }
    default: break;
  }
  if (static_type_index < XFFI_TYPE_STATIC_OBJECT_BEGIN)
    return xffi_raise_arg(XFFI_KIND_VALUE, __func__, "static_type_index", "%d has no field storage",
                          (int)static_type_index);
  xffi_any converted;
  if (convert_object(&converted, value, static_type_index) != XFFI_OK) return XFFI_FAIL;
  xffi_object *old;
  memcpy(&old, field_addr, sizeof(old));
  memcpy(field_addr, &converted.v_obj, sizeof(converted.v_obj));
  if (old) xffi_object_dec_ref(old);
  return XFFI_OK;
}

/* ---- Setters: one per storage, each xffi_field_write for its type. ---- */

#define TYPED_SETTER(fn, type_index) \
  static int fn(void *field_addr, const xffi_any *value) { return xffi_field_write(field_addr, type_index, value); }
TYPED_SETTER(set_int, XFFI_TYPE_INT)
TYPED_SETTER(set_float, XFFI_TYPE_FLOAT)
TYPED_SETTER(set_bool, XFFI_TYPE_BOOL)
TYPED_SETTER(set_ptr, XFFI_TYPE_OPAQUE_PTR)
TYPED_SETTER(set_dtype, XFFI_TYPE_DTYPE)
TYPED_SETTER(set_device, XFFI_TYPE_DEVICE)
TYPED_SETTER(set_any, XFFI_TYPE_ANY)
TYPED_SETTER(set_string, XFFI_TYPE_STRING)
TYPED_SETTER(set_bytes, XFFI_TYPE_BYTES)
TYPED_SETTER(set_object, XFFI_TYPE_OBJECT)

int xffi_field_setter_for_type(xffi_field_setter *out, int32_t static_type_index) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  switch (static_type_index) {
    case XFFI_TYPE_INT: *out = set_int; return XFFI_OK;
    case XFFI_TYPE_FLOAT: *out = set_float; return XFFI_OK;
    case XFFI_TYPE_BOOL: *out = set_bool; return XFFI_OK;
    case XFFI_TYPE_OPAQUE_PTR: *out = set_ptr; return XFFI_OK;
    case XFFI_TYPE_DTYPE: *out = set_dtype; return XFFI_OK;
    case XFFI_TYPE_DEVICE: *out = set_device; return XFFI_OK;
    case XFFI_TYPE_ANY:
    case XFFI_TYPE_NONE: *out = set_any; return XFFI_OK;
    case XFFI_TYPE_STRING: *out = set_string; return XFFI_OK;
    case XFFI_TYPE_BYTES: *out = set_bytes; return XFFI_OK;
    default: break;
  }
  if (static_type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN) {
    /* Other object types: set_object takes any object; xffi_object_set_field
     * checks the declared type before it calls a setter. */
    *out = set_object;
    return XFFI_OK;
  }
  return xffi_raise_arg(XFFI_KIND_VALUE, __func__, "static_type_index", "%d has no field storage",
                        (int)static_type_index);
}

/* ---- The bytes xffi's own accessors touch ---- */

int64_t xffi_field_getter_storage_size(xffi_field_getter getter) {
  if (getter == get_int || getter == get_float) return 8;
  if (getter == get_ptr || getter == get_object) return sizeof(void *); /* 4 on 32-bit targets */
  if (getter == get_bool) return sizeof(bool);
  if (getter == get_dtype) return sizeof(DLDataType);
  if (getter == get_device) return sizeof(DLDevice);
  if (getter == get_any) return sizeof(xffi_any);
  return -1;
}

int64_t xffi_field_setter_storage_size(xffi_field_setter setter) {
  if (setter == set_int || setter == set_float) return 8;
  if (setter == set_ptr || setter == set_string || setter == set_bytes || setter == set_object)
    return sizeof(void *); /* 4 on 32-bit targets */
  if (setter == set_bool) return sizeof(bool);
  if (setter == set_dtype) return sizeof(DLDataType);
  if (setter == set_device) return sizeof(DLDevice);
  if (setter == set_any) return sizeof(xffi_any);
  return -1;
}

/* ---- By name ---- */

static int name_is(const xffi_byte_array *name, const char *wanted, size_t wanted_size) {
  return name->size == wanted_size && memcmp(name->data, wanted, wanted_size) == 0;
}

#ifndef XFFI_NO_FOREIGN_RUNTIME
/* The field called name (size bytes) among level's own fields, by scan. */
static const xffi_field_info *find_field_by_scan(const xffi_type_info *level, const char *name, size_t size) {
  int32_t count = __atomic_load_n(&level->num_fields, __ATOMIC_ACQUIRE);
  const xffi_field_info *fields = __atomic_load_n(&level->fields, __ATOMIC_ACQUIRE);
  for (int32_t k = 0; k < count; ++k)
    if (name_is(&fields[k].name, name, size)) return &fields[k];
  return NULL;
}
#endif

/* The field called name (NUL-terminated) of info or its nearest ancestor
 * having one, or NULL. Lock-free: each level's name index is published
 * after the fields it names (c/lib/reflection/reflection_index.h), and the fields array
 * loaded after the index holds all of them. */
static const xffi_field_info *find_field(const xffi_type_info *info, const char *name) {
  size_t size;
  uint32_t hash = xffi_field_name_hash(name, &size);
  for (int32_t depth = info->type_depth; depth >= 0; --depth) {
    const xffi_type_info *level = depth == info->type_depth ? info : info->type_ancestors[depth];
    /* Every record is the start of its registry entry (c/runtime/type_internal.h). */
    const xffi_field_index *index = __atomic_load_n(&((const xffi_type_entry *)level)->field_index, __ATOMIC_ACQUIRE);
    if (!index) {
#ifndef XFFI_NO_FOREIGN_RUNTIME
      /* A mirror of a type only the process's other runtime knows has no
       * index: its fields are that runtime's, found by scan. */
      if (XFFI_UNLIKELY(((const xffi_type_entry *)level)->provided)) {
        const xffi_field_info *found = find_field_by_scan(level, name, size);
        if (found) return found;
      }
#endif
      continue; /* no fields at this level */
    }
    const xffi_field_info *fields = __atomic_load_n(&level->fields, __ATOMIC_ACQUIRE);
    const xffi_field_info *found = xffi_field_index_find(index, fields, name, size, hash);
    if (found) return found;
  }
  return NULL;
}

int xffi_type_find_field(const xffi_field_info **out, int32_t type_index, const char *name) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(name);
  const xffi_type_info *info = xffi_type_info_find(type_index);
  if (!info)
    return xffi_raise_arg(XFFI_KIND_INDEX, __func__, "type_index", "%d is not a registered type", (int)type_index);
  *out = find_field(info, name);
  return XFFI_OK;
}

int xffi_type_find_method(const xffi_method_info **out, int32_t type_index, const char *name) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(name);
  const xffi_type_info *info = xffi_type_info_find(type_index);
  if (!info)
    return xffi_raise_arg(XFFI_KIND_INDEX, __func__, "type_index", "%d is not a registered type", (int)type_index);
  size_t size = strlen(name);
  *out = NULL;
  for (int32_t depth = info->type_depth; depth >= 0 && !*out; --depth) {
    const xffi_type_info *level = depth == info->type_depth ? info : info->type_ancestors[depth];
    int32_t count = __atomic_load_n(&level->num_methods, __ATOMIC_ACQUIRE);
    const xffi_method_info *methods = __atomic_load_n(&level->methods, __ATOMIC_ACQUIRE);
    for (int32_t i = 0; i < count && !*out; ++i)
      if (name_is(&methods[i].name, name, size)) *out = &methods[i];
  }
  return XFFI_OK;
}

/* The record of obj's field called name, or an AttributeError naming both. */
static const xffi_field_info *field_of(const char *function, const xffi_object *obj, const char *name) {
  const xffi_type_info *info = xffi_type_info_find(obj->type_index);
  if (!info) {
    xffi_raise_arg(XFFI_KIND_TYPE, function, "obj", "has type index %d, which is not a registered type",
                   (int)obj->type_index);
    return NULL;
  }
  const xffi_field_info *field = find_field(info, name);
  if (!field) xffi_error_raise(XFFI_KIND_ATTRIBUTE, "%s: '%s' has no field '%s'", function, info->type_key.data, name);
  return field;
}

int xffi_field_read(xffi_any *out, const xffi_object *obj, const xffi_field_info *field) {
  *out = xffi_any_none();
  if (!field->getter)
    return xffi_error_raise(XFFI_KIND_ATTRIBUTE, "field '%.*s' of '%s' has no getter", (int)field->name.size,
                            field->name.data, xffi_type_key(obj->type_index));
  if (field->getter((char *)obj + field->offset, out) == XFFI_OK) return XFFI_OK;
  *out = xffi_any_none();
  return XFFI_FAIL;
}

int xffi_object_get_field(xffi_any *out, const xffi_object *obj, const char *name) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(obj);
  XFFI_CHECK_ARG_NOT_NULL(name);
  const xffi_field_info *field = field_of(__func__, obj, name);
  if (!field) return XFFI_FAIL;
  if (!field->getter)
    return xffi_error_raise(XFFI_KIND_ATTRIBUTE, "%s: field '%s' of '%s' has no getter", __func__, name,
                            xffi_type_key(obj->type_index));
  xffi_any result;
  if (xffi_field_read(&result, obj, field) != XFFI_OK) return XFFI_FAIL;
  *out = result;
  return XFFI_OK;
}

int xffi_field_check_value(const char *function, const xffi_object *obj, const xffi_field_info *field,
                           const xffi_any *value) {
  int32_t type_index = field->field_static_type_index;
  /* A plain value of exactly the declared kind (an int for an int field):
   * nothing to convert, and the common case of every setter. */
  if (value->type_index == type_index && type_index < XFFI_TYPE_STATIC_OBJECT_BEGIN) return XFFI_OK;
  int ok = 1;
  union {
    int64_t i;
    double f;
    int b;
    void *p;
    DLDataType dtype;
    DLDevice device;
    xffi_byte_array text;
    xffi_object *obj;
  } scratch;
  int32_t expected = type_index;
  switch (type_index) {
    case XFFI_TYPE_INT: ok = xffi_any_to_int(&scratch.i, value) == XFFI_OK; break;
    case XFFI_TYPE_FLOAT: ok = xffi_any_to_float(&scratch.f, value) == XFFI_OK; break;
    case XFFI_TYPE_BOOL: ok = xffi_any_to_bool(&scratch.b, value) == XFFI_OK; break;
    case XFFI_TYPE_OPAQUE_PTR: ok = xffi_any_to_ptr(&scratch.p, value) == XFFI_OK; break;
    case XFFI_TYPE_DTYPE: ok = xffi_any_to_dtype(&scratch.dtype, value) == XFFI_OK; break;
    case XFFI_TYPE_DEVICE: ok = xffi_any_to_device(&scratch.device, value) == XFFI_OK; break;
    case XFFI_TYPE_STRING:
      ok = value->type_index == XFFI_TYPE_NONE || xffi_any_to_str(&scratch.text, value) == XFFI_OK;
      break;
    case XFFI_TYPE_BYTES:
      ok = value->type_index == XFFI_TYPE_NONE || xffi_any_to_bytes(&scratch.text, value) == XFFI_OK;
      break;
    default:
      if (type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN && xffi_type_info_find(type_index))
        ok = xffi_any_to_object(&scratch.obj, value, type_index) == XFFI_OK;
      else
        expected = XFFI_TYPE_ANY;
      break;
  }
  if (ok) return XFFI_OK;
  xffi_object *detail = xffi_error_move_raised();
  if (detail) xffi_object_dec_ref(detail);
  return xffi_error_raise(XFFI_KIND_TYPE, "%s%sfield '%.*s' of '%s' expects %s, got %s", function ? function : "",
                          function ? ": " : "", (int)field->name.size, field->name.data, xffi_type_key(obj->type_index),
                          expected == XFFI_TYPE_ANY ? "Any" : xffi_type_key(expected), xffi_any_kind_name(value));
}

/* The write of xffi_field_assign once the value is known to fit. */
static int assign_checked(xffi_object *obj, const xffi_field_info *field, const xffi_any *value) {
  if (!field->setter)
    return xffi_error_raise(XFFI_KIND_ATTRIBUTE, "field '%.*s' of '%s' has no setter", (int)field->name.size,
                            field->name.data, xffi_type_key(obj->type_index));
  void *field_addr = (char *)obj + field->offset;
  if (!(field->flags & XFFI_FIELD_SETTER_IS_FUNCTION)) {
    /* The record keeps a function pointer in a void* slot (tvm-ffi's layout). */
    xffi_field_setter setter;
    memcpy(&setter, &field->setter, sizeof(setter));
    return setter(field_addr, value) == XFFI_OK ? XFFI_OK : XFFI_FAIL;
  }
  xffi_any args[2] = {xffi_any_ptr(field_addr), *value};
  xffi_any ignored = xffi_any_none();
  if (xffi_function_call(field->setter, args, 2, &ignored) != XFFI_OK) return XFFI_FAIL;
  xffi_any_release(&ignored);
  return XFFI_OK;
}

int xffi_field_assign(xffi_object *obj, const xffi_field_info *field, const xffi_any *value) {
  /* A C setter of an object field may take any object (xffi's own do): the
   * declared type is checked here. Scalar setters convert, and refuse what
   * does not convert; a Function setter (a Python-defined class's) converts
   * by the field's type schema, as tvm-ffi's own does. */
  if (field->field_static_type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN &&
      !(field->flags & XFFI_FIELD_SETTER_IS_FUNCTION) && xffi_field_check_value(NULL, obj, field, value) != XFFI_OK)
    return XFFI_FAIL;
  return assign_checked(obj, field, value);
}

int xffi_object_set_field(xffi_object *obj, const char *name, const xffi_any *value) {
  XFFI_CHECK_ARG_NOT_NULL(obj);
  XFFI_CHECK_ARG_NOT_NULL(name);
  XFFI_CHECK_ARG_NOT_NULL(value);
  XFFI_CHECK_ARG_ANY(value);
  const xffi_field_info *field = field_of(__func__, obj, name);
  if (!field) return XFFI_FAIL;
  if (!(field->flags & XFFI_FIELD_WRITABLE) || !field->setter)
    return xffi_error_raise(XFFI_KIND_ATTRIBUTE, "%s: field '%s' of '%s' is read-only", __func__, name,
                            xffi_type_key(obj->type_index));
  if (xffi_field_check_value(__func__, obj, field, value) != XFFI_OK) return XFFI_FAIL;
  return assign_checked(obj, field, value);
}

xffi_field_storage xffi_field_storage_of(const xffi_field_info *field) {
  int32_t t = field->field_static_type_index;
  if (t == XFFI_TYPE_ANY)
    return field->size == (int64_t)sizeof(xffi_object *) ? XFFI_FIELD_STORAGE_OBJECT : XFFI_FIELD_STORAGE_ANY;
  if (t == XFFI_TYPE_NONE) return XFFI_FIELD_STORAGE_ANY; /* MakeFieldGetter stores None fields as Any */
  if (t >= XFFI_TYPE_STATIC_OBJECT_BEGIN) return XFFI_FIELD_STORAGE_OBJECT;
  return XFFI_FIELD_STORAGE_PLAIN;
}
