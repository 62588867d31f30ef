/* c/lib/reflection/reflection_register.c: reflecting a C struct in one line per member
 * (xffi_reflect_fields and the XFFI_REFLECT_* macros), its methods from C
 * callbacks, and its metadata.
 *
 * A spec says where a member lies and what it holds; this file derives the
 * rest of tvm-ffi's field record from the static type (alignment, getter,
 * setter), so a C author cannot pair a member with the wrong accessors, and
 * hands the records to the registry as one all-or-nothing batch. */
#include <stdbool.h>
#include <string.h>
#include <xffi/function.h>
#include <xffi/reflection.h>

#include "runtime/check.h"
#include "lib/reflection/reflection_layout.h"
#include "runtime/type_internal.h"
#include "lib/reflection/type_reflection.h"

/* Fields one call registers: the records are built on the stack. */
#define REFLECT_BATCH_MAX 64

/* The size and alignment of the storage static_type_index implies, or 0
 * for a type with no storage. */
static int64_t storage_of(int32_t static_type_index, int64_t *alignment) {
  switch (static_type_index) {
    case XFFI_TYPE_INT: *alignment = _Alignof(int64_t); return sizeof(int64_t);
    case XFFI_TYPE_FLOAT: *alignment = _Alignof(double); return sizeof(double);
    case XFFI_TYPE_BOOL: *alignment = _Alignof(bool); return sizeof(bool);
    case XFFI_TYPE_OPAQUE_PTR: *alignment = _Alignof(void *); return sizeof(void *);
    case XFFI_TYPE_DTYPE: *alignment = _Alignof(DLDataType); return sizeof(DLDataType);
    case XFFI_TYPE_DEVICE: *alignment = _Alignof(DLDevice); return sizeof(DLDevice);
    case XFFI_TYPE_ANY:
    case XFFI_TYPE_NONE: *alignment = _Alignof(xffi_any); return sizeof(xffi_any);
    default: break;
  }
  if (static_type_index < XFFI_TYPE_STATIC_OBJECT_BEGIN) return 0;
  *alignment = _Alignof(xffi_object *);
  return sizeof(xffi_object *);
}

static xffi_byte_array text_of(const char *text) {
  xffi_byte_array bytes = {text, text ? strlen(text) : 0};
  return bytes;
}

/* Fills *info from *spec (borrowed; texts and default stay the caller's). */
static int record_of(const char *function, xffi_field_info *info, const xffi_reflect_field_spec *spec,
                     int32_t position) {
  if (!spec->name) return xffi_raise_arg(XFFI_KIND_VALUE, function, "specs", "[%d].name is NULL", (int)position);
  int64_t alignment = 0, size = storage_of(spec->static_type_index, &alignment);
  const char *type_key = xffi_type_key(spec->static_type_index);
  if (!size)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "%s: field '%s': static type %d (%s) has no field storage (expected int, float, bool, "
                            "opaque pointer, dtype, device, Any or an object type)",
                            function, spec->name, (int)spec->static_type_index, type_key ? type_key : "unknown");
  if (spec->size != size)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: field '%s': the member is %lld bytes, but %s is stored in %lld",
                            function, spec->name, (long long)spec->size, type_key ? type_key : "its type",
                            (long long)size);
  if (spec->flags & XFFI_FIELD_SETTER_IS_FUNCTION)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "%s: field '%s': XFFI_FIELD_SETTER_IS_FUNCTION is not for specs (the setter is derived "
                            "from the static type)",
                            function, spec->name);
  memset(info, 0, sizeof(*info));
  info->name = text_of(spec->name);
  info->doc = text_of(spec->doc);
  info->metadata = text_of(spec->metadata);
  info->flags = spec->flags;
  info->size = size;
  info->alignment = alignment;
  info->offset = spec->offset;
  info->field_static_type_index = spec->static_type_index;
  info->default_value_or_factory = (spec->flags & XFFI_FIELD_HAS_DEFAULT) ? spec->default_value : xffi_any_none();
  if (xffi_field_getter_for_type(&info->getter, spec->static_type_index) != XFFI_OK) return XFFI_FAIL;
  /* Read-only fields get a setter too, as in tvm-ffi: construction and
   * copies write them; writes by name check XFFI_FIELD_WRITABLE first. */
  xffi_field_setter setter;
  if (xffi_field_setter_for_type(&setter, spec->static_type_index) != XFFI_OK) return XFFI_FAIL;
  /* The record keeps a function pointer in a void* slot (tvm-ffi's layout). */
  memcpy(&info->setter, &setter, sizeof(setter));
  return XFFI_OK;
}

static int reflect_fields(const char *function, int32_t type_index, const xffi_reflect_field_spec *specs,
                          int32_t count) {
  if (!specs) return xffi_raise_null_arg(function, "specs");
  if (count < 1 || count > REFLECT_BATCH_MAX)
    return xffi_raise_arg(XFFI_KIND_VALUE, function, "count", "is %d (expected 1 to %d)", (int)count,
                          REFLECT_BATCH_MAX);
  xffi_field_info records[REFLECT_BATCH_MAX];
  for (int32_t i = 0; i < count; ++i)
    if (record_of(function, &records[i], &specs[i], i) != XFFI_OK) return XFFI_FAIL;
  return xffi_type_register_fields_in(function, type_index, records, count, XFFI_FIELD_RULES_STRICT);
}

int xffi_reflect_fields(int32_t type_index, const xffi_reflect_field_spec *specs, int32_t count) {
  return reflect_fields(__func__, type_index, specs, count);
}

int xffi_reflect_field_with_default(int32_t type_index, const xffi_reflect_field_spec *spec, xffi_any default_value) {
  if (!spec) return xffi_raise_null_arg(__func__, "spec");
  xffi_reflect_field_spec with_default = *spec;
  with_default.flags |= XFFI_FIELD_HAS_DEFAULT;
  with_default.default_value = default_value;
  return reflect_fields(__func__, type_index, &with_default, 1);
}

int xffi_reflect_method(int32_t type_index, const char *name, xffi_function_callback callback, void *resource,
                        int64_t flags, const char *doc) {
  XFFI_CHECK_ARG_NOT_NULL(name);
  XFFI_CHECK_ARG_NOT_NULL(callback);
  XFFI_CHECK_ARG(flags, flags == 0 || flags == XFFI_FIELD_IS_STATIC_METHOD, XFFI_KIND_VALUE,
                 "is %lld (expected 0 or XFFI_FIELD_IS_STATIC_METHOD)", (long long)flags);
  xffi_object *function = NULL;
  if (xffi_function_new(&function, callback, resource, NULL) != XFFI_OK) return XFFI_FAIL;
  xffi_method_info method;
  memset(&method, 0, sizeof(method));
  method.name = text_of(name);
  method.doc = text_of(doc);
  method.flags = flags;
  method.method = xffi_any_object(function);
  /* The name check happens under the registry lock, with the registration. */
  int status = xffi_type_register_method_checked_in(__func__, type_index, &method, 1);
  xffi_object_dec_ref(function); /* the record holds its own reference */
  return status;
}

int xffi_reflect_type(int32_t type_index, int64_t total_size, xffi_object_creator creator,
                      int32_t structural_eq_hash_kind, const char *doc) {
  XFFI_CHECK_ARG(total_size, total_size >= (int64_t)sizeof(xffi_object) && total_size <= INT32_MAX, XFFI_KIND_VALUE,
                 "is %lld (expected the object's size: %zu to %d bytes, header included)", (long long)total_size,
                 sizeof(xffi_object), INT32_MAX);
  XFFI_CHECK_ARG(
      structural_eq_hash_kind,
      structural_eq_hash_kind >= XFFI_SEQ_HASH_UNSUPPORTED && structural_eq_hash_kind <= XFFI_SEQ_HASH_UNIQUE_INSTANCE,
      XFFI_KIND_VALUE, "is %d (expected an XFFI_SEQ_HASH_* kind, 0 to %d)", (int)structural_eq_hash_kind,
      XFFI_SEQ_HASH_UNIQUE_INSTANCE);
  xffi_type_metadata metadata = {text_of(doc), creator, (int32_t)total_size, structural_eq_hash_kind};
  return xffi_type_register_metadata_in(__func__, type_index, &metadata);
}
