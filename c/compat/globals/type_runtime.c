/* c/compat/globals/type_runtime.c: the reflected types that tvm-ffi's runtime registers
 * itself and that the tvm_ffi package looks up by key when it is imported
 * (ffi.EnumState, ffi.Enum, ffi.IntEnum, ffi.StrEnum, the access path
 * types, the structural visitor, mutator, error context and key), with
 * their fields as tvm-ffi 0.1.15 lays them out (key, parent, offset, size,
 * frozen, type schema).
 *
 * Nothing runs when the library loads: the types are registered the first
 * time anyone asks the registry for a key or a new index
 * (xffi_type_runtime_ensure, c/runtime/seeds.h), so a dynamic-index
 * numbering like tvm-ffi's (128 onwards, in this order) results when nobody
 * registered earlier. The records here give the package what it binds its
 * classes to and reads fields through; the types' behaviour (methods,
 * constructors, structural work) lives with each type in the library
 * (c/lib/reflection/access_path.c, enum_state.c, c/lib/walk/...). */
#include <stddef.h>
#include <string.h>

#include "runtime/check.h"
#include "lib/module/module_internal.h"
#include "lib/reflection/runtime_types.h"
#include "platform/platform.h"
#include "runtime/type_internal.h"
#include "lib/reflection/type_reflection.h"
#include "lib/reflection/type_convert.h"
#include "lib/text/repr_text.h"
#include "runtime/seeds.h"
#include "lib/reflection/reflection_layout.h"
#include "compat/globals/structural_hooks.h"
#include "compat/globals/type_runtime_hooks.h"

/* ---- Field getters: *result receives a new reference (or a plain value). */

static int get_any(void *field, xffi_any *result) { return xffi_any_copy(result, (const xffi_any *)field); }

/* An ObjectRef field: NULL reads as None. */
static int get_object(void *field, xffi_any *result) {
  xffi_object *obj;
  memcpy(&obj, field, sizeof(obj));
  *result = xffi_any_object_new_ref(obj);
  return XFFI_OK;
}

static int get_int64(void *field, xffi_any *result) {
  int64_t value;
  memcpy(&value, field, sizeof(value));
  *result = xffi_any_int(value);
  return XFFI_OK;
}

static int get_int32(void *field, xffi_any *result) {
  int32_t value;
  memcpy(&value, field, sizeof(value));
  *result = xffi_any_int(value);
  return XFFI_OK;
}

/* ffi.Module's imports_: xffi's modules keep their imports elsewhere (under
 * the modules lock), so the getter finds the module from the field's address
 * (tvm-ffi's offset, module_imports_offset) and builds the Array. */
enum { module_imports_offset = 24 };
static int get_module_imports(void *field, xffi_any *result) {
  xffi_object *module = (xffi_object *)(void *)((char *)field - module_imports_offset);
  xffi_object *array = NULL;
  if (xffi_module_imports_array(&array, module) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(array);
  return XFFI_OK;
}

/* ---- Field setters: *value is borrowed; the field keeps its own copy.
 * tvm-ffi registers a setter even for read-only fields (the package uses it
 * to fill new objects); a wrong kind is a TypeError, never a crash. */

static const char setter_name[] = "field setter";

static int set_any(void *field, const xffi_any *value) {
  xffi_any copy, old;
  if (xffi_any_copy(&copy, value) != XFFI_OK) return XFFI_FAIL;
  memcpy(&old, field, sizeof(old));
  memcpy(field, &copy, sizeof(copy));
  xffi_any_release(&old);
  return XFFI_OK;
}

static int set_string(void *field, const xffi_any *value) {
  switch (value->type_index) {
    case XFFI_TYPE_STRING:
    case XFFI_TYPE_SMALL_STR:
    case XFFI_TYPE_RAW_STR: return set_any(field, value);
    default: return xffi_raise_type_mismatch(setter_name, "str", value);
  }
}

static int set_object(void *field, const xffi_any *value) {
  if (value->type_index != XFFI_TYPE_NONE && !xffi_any_is_object(value))
    return xffi_raise_type_mismatch(setter_name, "an object or None", value);
  xffi_object *old, *obj = value->type_index == XFFI_TYPE_NONE ? NULL : value->v_obj;
  if (obj) xffi_object_inc_ref(obj);
  memcpy(&old, field, sizeof(old));
  memcpy(field, &obj, sizeof(obj));
  if (old) xffi_object_dec_ref(old);
  return XFFI_OK;
}

static int int_of(int64_t *out, const xffi_any *value) {
  if (value->type_index != XFFI_TYPE_INT && value->type_index != XFFI_TYPE_BOOL)
    return xffi_raise_type_mismatch(setter_name, "int", value);
  *out = value->v_int64;
  return XFFI_OK;
}

static int set_int64(void *field, const xffi_any *value) {
  int64_t v = 0;
  if (int_of(&v, value) != XFFI_OK) return XFFI_FAIL;
  memcpy(field, &v, sizeof(v));
  return XFFI_OK;
}

/* imports_ is read-only (def_ro): imports change through
 * ffi.ModuleImportModule and ffi.ModuleClearImports. */
static int set_module_imports(void *field, const xffi_any *value) {
  (void)field;
  (void)value;
  return xffi_error_raise(XFFI_KIND_TYPE,
                          "ffi.Module.imports_ is read-only: use ffi.ModuleImportModule or ffi.ModuleClearImports");
}

static int set_int32(void *field, const xffi_any *value) {
  int64_t v = 0;
  if (int_of(&v, value) != XFFI_OK) return XFFI_FAIL;
  if (v < INT32_MIN || v > INT32_MAX)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: %lld does not fit a 32-bit field", setter_name, (long long)v);
  int32_t narrow = (int32_t)v;
  memcpy(field, &narrow, sizeof(narrow));
  return XFFI_OK;
}

/* ---- The records. ---- */

typedef struct runtime_field {
  const char *name;
  const char *doc;         /* NULL: none */
  const char *type_schema; /* JSON of the field's type */
  int64_t size;
  int64_t offset;
  xffi_field_getter getter;
  xffi_field_setter setter;
  int32_t static_type_index; /* the field's type when fixed, else -1 */
  int64_t flags;             /* XFFI_FIELD_* beyond read-only, as tvm-ffi's ObjectDef sets them */
} runtime_field;

typedef struct runtime_type {
  const char *key;
  const char *parent_key; /* an earlier entry of runtime_types, or "ffi.Object" */
  const runtime_field *fields;
  int32_t num_fields;
  const xffi_runtime_method *methods;
  const int32_t *num_methods;
} runtime_type;

#define SCHEMA_INT "{\"type\":\"int\"}"
#define SCHEMA_ANY "{\"type\":\"Any\"}"
#define SCHEMA_STRING "{\"type\":\"ffi.String\"}"
#define SCHEMA_OBJECT_LIST "{\"type\":\"ffi.List\",\"args\":[{\"type\":\"ffi.Object\"}]}"
#define SCHEMA_OPTIONAL(key) "{\"type\":\"Optional\",\"args\":[{\"type\":\"" key "\"}]}"

static const runtime_field enum_state_fields[] = {
    {"entries", "Enum singletons in registration order.", SCHEMA_OBJECT_LIST, sizeof(void *),
     offsetof(enum_state_object, entries), get_object, set_object, XFFI_TYPE_LIST, XFFI_FIELD_INIT_OFF},
    {"indexes", "Canonical integer and string indices to enum singletons.",
     "{\"type\":\"ffi.Dict\",\"args\":[{\"type\":\"Any\"},{\"type\":\"ffi.Object\"}]}", sizeof(void *),
     offsetof(enum_state_object, indexes), get_object, set_object, XFFI_TYPE_OBJECT, XFFI_FIELD_INIT_OFF},
    {"attrs", "Extensible-attribute columns keyed by enum singleton.",
     "{\"type\":\"ffi.Dict\",\"args\":[{\"type\":\"ffi.String\"},{\"type\":\"ffi.Dict\",\"args\":[{\"type\":\"ffi."
     "Object\"},{\"type\":\"Any\"}]}]}",
     sizeof(void *), offsetof(enum_state_object, attrs), get_object, set_object, XFFI_TYPE_OBJECT, XFFI_FIELD_INIT_OFF},
};
static const runtime_field enum_fields[] = {
    {"_int_index", "Canonical integer index.", SCHEMA_INT, 8, 24, get_int64, set_int64, XFFI_TYPE_INT,
     XFFI_FIELD_SEQ_HASH_IGNORE},
    {"_str_index", "Canonical string index.", SCHEMA_STRING, 16, 32, get_any, set_string, -1, 0},
};
static const runtime_field int_enum_fields[] = {
    {"value", "Canonical integer index.", SCHEMA_INT, 8, 24, get_int64, set_int64, XFFI_TYPE_INT,
     XFFI_FIELD_INIT_OFF | XFFI_FIELD_SEQ_HASH_IGNORE},
};
static const runtime_field str_enum_fields[] = {
    {"value", "Canonical string index.", SCHEMA_STRING, 16, 32, get_any, set_string, -1,
     XFFI_FIELD_INIT_OFF | XFFI_FIELD_SEQ_HASH_IGNORE},
};
static const runtime_field access_step_fields[] = {
    {"kind", NULL, SCHEMA_INT, 4, offsetof(access_step, kind), get_int32, set_int32, XFFI_TYPE_INT, 0},
    {"key", NULL, SCHEMA_ANY, 16, offsetof(access_step, key), get_any, set_any, -1, 0},
};
static const runtime_field access_path_fields[] = {
    {"parent", NULL, SCHEMA_OPTIONAL("ffi.Object"), sizeof(void *), offsetof(access_path, parent), get_object,
     set_object, -1, 0},
    {"step", NULL, SCHEMA_OPTIONAL("ffi.reflection.AccessStep"), sizeof(void *), offsetof(access_path, step),
     get_object, set_object, -1, 0},
    {"depth", NULL, SCHEMA_INT, 4, offsetof(access_path, depth), get_int32, set_int32, XFFI_TYPE_INT, 0},
};
static const runtime_field visit_error_context_fields[] = {
    {"reverse_visit_pattern", NULL, SCHEMA_OBJECT_LIST, sizeof(void *),
     offsetof(visit_error_context, reverse_visit_pattern), get_object, set_object, XFFI_TYPE_LIST, 0},
    {"prev_error_context", NULL, SCHEMA_OPTIONAL("ffi.Object"), sizeof(void *),
     offsetof(visit_error_context, prev_error_context), get_object, set_object, -1, 0},
};
static const runtime_field structural_key_fields[] = {
    {"key", NULL, SCHEMA_ANY, 16, 24, get_any, set_any, -1, 0},
    {"hash_i64", NULL, SCHEMA_INT, 8, 40, get_int64, set_int64, XFFI_TYPE_INT, 0},
};
static const runtime_field visit_interrupt_fields[] = {
    {"value", NULL, SCHEMA_ANY, 16, 24, get_any, set_any, -1, 0},
};

static const runtime_field module_fields[] = {
    {"imports_", NULL, "{\"type\":\"ffi.Array\",\"args\":[{\"type\":\"Any\"}]}", 8, module_imports_offset,
     get_module_imports, set_module_imports, XFFI_TYPE_ARRAY, 0},
};

#define FIELDS(array) array, (int32_t)(sizeof(array) / sizeof(array[0]))
/* In tvm-ffi's registration order. ffi.VisitInterrupt (77) and ffi.Module
 * (73) are static records: only their fields are added here. */
static const runtime_type runtime_types[] = {
    {"ffi.EnumState", "ffi.Object", FIELDS(enum_state_fields), xffi_enum_state_methods, &xffi_enum_state_method_count},
    {"ffi.Enum", "ffi.Object", FIELDS(enum_fields), NULL, NULL},
    {"ffi.IntEnum", "ffi.Enum", FIELDS(int_enum_fields), NULL, NULL},
    {"ffi.StrEnum", "ffi.Enum", FIELDS(str_enum_fields), NULL, NULL},
    {"ffi.reflection.AccessStep", "ffi.Object", FIELDS(access_step_fields), NULL, NULL},
    {"ffi.reflection.AccessPath", "ffi.Object", FIELDS(access_path_fields), xffi_access_path_methods,
     &xffi_access_path_method_count},
    {"ffi.StructuralVisitor", "ffi.Object", NULL, 0, NULL, NULL},
    {"ffi.VisitErrorContext", "ffi.Object", FIELDS(visit_error_context_fields), NULL, NULL},
    {"ffi.StructuralMutator", "ffi.Object", NULL, 0, NULL, NULL},
    {"ffi.StructuralKey", "ffi.Object", FIELDS(structural_key_fields), xffi_structural_key_methods,
     &xffi_structural_key_method_count},
    {"ffi.VisitInterrupt", NULL, FIELDS(visit_interrupt_fields), NULL, NULL},
    {"ffi.Module", NULL, FIELDS(module_fields), NULL, NULL},
};

static const char function_name[] = "xffi_type_runtime_ensure";

static xffi_byte_array text_of(const char *text) {
  xffi_byte_array bytes = {text ? text : "", text ? strlen(text) : 0};
  return bytes;
}

/* The metadata JSON tvm-ffi gives a field or method: an object whose
 * "type_schema" is the schema's JSON as a string. Returns the length
 * written into buf (room for size bytes; the schemas here all fit). */
static size_t metadata_of(char *buf, size_t size, const char *schema) {
  static const char head[] = "{\"type_schema\":\"", tail[] = "\"}";
  size_t n = 0;
  for (const char *p = head; *p && n + 1 < size; ++p) buf[n++] = *p;
  for (const char *p = schema; *p && n + 2 < size; ++p) {
    if (*p == '"' || *p == '\\') buf[n++] = '\\';
    buf[n++] = *p;
  }
  for (const char *p = tail; *p && n + 1 < size; ++p) buf[n++] = *p;
  buf[n] = '\0';
  return n;
}

/* Adds the fields of type that it does not have yet (a retry after a
 * failure resumes where it stopped). */
static int register_fields(const runtime_type *type, const xffi_type_info *info) {
  for (int32_t i = __atomic_load_n(&info->num_fields, __ATOMIC_ACQUIRE); i < type->num_fields; ++i) {
    const runtime_field *f = &type->fields[i];
    xffi_field_info field;
    memset(&field, 0, sizeof(field));
    field.name = text_of(f->name);
    field.doc = text_of(f->doc);
    char metadata[512];
    field.metadata.data = metadata;
    field.metadata.size = metadata_of(metadata, sizeof(metadata), f->type_schema);
    field.flags = f->flags; /* read-only (frozen) */
    field.size = f->size;
    /* The storage's own alignment: 8-byte scalars and Any align as int64_t
     * does on the target (4 on i386), smaller fields by their size. */
    field.alignment = f->size < (int64_t) _Alignof(int64_t) ? f->size : (int64_t) _Alignof(int64_t);
    field.offset = f->offset;
    field.getter = f->getter;
    /* The record's setter slot is a void * shared with Function setters. */
    _Static_assert(sizeof(field.setter) == sizeof(f->setter), "a function pointer fits the setter slot");
    memcpy(&field.setter, &f->setter, sizeof(f->setter));
    field.default_value_or_factory = xffi_any_none();
    field.field_static_type_index = f->static_type_index;
    if (xffi_type_register_fields_in(function_name, info->type_index, &field, 1, XFFI_FIELD_RULES_RUNTIME) != XFFI_OK)
      return XFFI_FAIL;
  }
  return XFFI_OK;
}

/* Adds the methods of type that it does not have yet, in order. */
static int register_methods(const runtime_type *type, const xffi_type_info *info) {
  int32_t count = type->num_methods ? *type->num_methods : 0;
  for (int32_t i = __atomic_load_n(&info->num_methods, __ATOMIC_ACQUIRE); i < count; ++i) {
    xffi_method_info method;
    memset(&method, 0, sizeof(method));
    method.name = text_of(type->methods[i].name);
    method.doc = text_of(NULL);
    char metadata[512];
    method.metadata.data = metadata;
    method.metadata.size = metadata_of(metadata, sizeof(metadata), type->methods[i].type_schema);
    method.flags = type->methods[i].is_static ? XFFI_FIELD_IS_STATIC_METHOD : 0;
    method.method = xffi_any_object(&type->methods[i].function->header); /* the registry takes its own reference */
    if (xffi_type_register_method_in(function_name, info->type_index, &method) != XFFI_OK) return XFFI_FAIL;
  }
  return XFFI_OK;
}

static int register_all(void) {
  for (size_t i = 0; i < sizeof(runtime_types) / sizeof(runtime_types[0]); ++i) {
    const runtime_type *type = &runtime_types[i];
    const xffi_type_info *info = xffi_type_find_by_key(type->key, strlen(type->key));
    if (!info) {
      const xffi_type_info *parent = xffi_type_find_by_key(type->parent_key, strlen(type->parent_key));
      int32_t index;
      if (!parent) return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: no parent %s", function_name, type->parent_key);
      if (xffi_type_get_or_alloc(&index, function_name, type->key, strlen(type->key), -1, parent->type_depth + 1, 0, 1,
                                 parent->type_index) != XFFI_OK)
        return XFFI_FAIL;
      info = xffi_type_info_find(index);
    }
    /* Before its fields: from then on nobody else adds any (their layouts are ours). */
    if (xffi_type_mark_runtime_owned(function_name, info->type_index) != XFFI_OK) return XFFI_FAIL;
    if (register_fields(type, info) != XFFI_OK || register_methods(type, info) != XFFI_OK) return XFFI_FAIL;
  }
  if (xffi_type_register_builtin_converters() != XFFI_OK || xffi_structural_hooks_register() != XFFI_OK ||
      xffi_runtime_type_hooks_register() != XFFI_OK)
    return XFFI_FAIL;
  return xffi_repr_register_runtime_hooks();
}

/* Set once every runtime type is registered. */
static int registered;
/* Serialises the registration; the registering thread marks itself so that
 * its own calls into the registry do not wait for themselves. */
static xffi_mutex registering_lock = XFFI_MUTEX_INITIALIZER;
static _Thread_local int registering;

int xffi_type_runtime_ensure(void) {
  if (__atomic_load_n(&registered, __ATOMIC_ACQUIRE) || registering) return XFFI_OK;
  int status = XFFI_OK;
  xffi_mutex_lock(&registering_lock);
  if (!__atomic_load_n(&registered, __ATOMIC_ACQUIRE)) {
    registering = 1;
    status = register_all();
    registering = 0;
    if (status == XFFI_OK) __atomic_store_n(&registered, 1, __ATOMIC_RELEASE);
  }
  xffi_mutex_unlock(&registering_lock);
  return status;
}
