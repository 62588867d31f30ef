/* c/lib/reflection/reflection_layout.c: the layout checks of a field record (where it lies
 * in the object, its alignment, its accessors), so that a bad record is
 * refused at registration with a message naming the field, instead of
 * letting a getter read outside the object later. */
#include <stdio.h>
#include <string.h>
#include <xffi/object.h>

#include "lib/reflection/field_storage.h"
#include "lib/reflection/reflection_layout.h"

/* ValueError "<function>: field 'name' of T: <detail>". */
XFFI_PRINTF(4, 5)
static int raise_field(const char *function, const xffi_type_info *type, const xffi_field_info *info,
                       const char *detail_format, ...) {
  char detail[160];
  va_list args;
  va_start(args, detail_format);
  vsnprintf(detail, sizeof(detail), detail_format, args);
  va_end(args);
  return xffi_error_raise(XFFI_KIND_VALUE, "%s: field '%.*s' of %s: %s", function, (int)info->name.size,
                          info->name.data, type->type_key.data, detail);
}

static int outside(const xffi_field_info *info, int32_t total_size) {
  return total_size > 0 && (info->offset > total_size || info->size > total_size - info->offset);
}

int xffi_field_layout_check(const char *function, const xffi_type_info *type, const xffi_field_info *info,
                            xffi_field_rules rules) {
  if (!info->name.size)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: info->name is empty: a field of %s needs a name", function,
                            type->type_key.data);
  if (!info->getter) return raise_field(function, type, info, "info->getter is NULL: every field needs one");
  if (info->size < 0) return raise_field(function, type, info, "size %lld is negative", (long long)info->size);
  /* A C++ class whose first base is polymorphic puts that base's members
   * before the Object header, at negative offsets (TVM's
   * relax PyExprMutator registers builder_ at -64); tvm-ffi accepts them.
   * Bytes of the header itself are never a field's. */
  int before_header = rules == XFFI_FIELD_RULES_TVM_FFI && info->offset < 0 && info->offset + info->size <= 0;
  if (info->offset < 0 && rules == XFFI_FIELD_RULES_TVM_FFI && !before_header)
    return raise_field(function, type, info,
                       "offset %lld + size %lld reaches into the object header (the first %zu bytes)",
                       (long long)info->offset, (long long)info->size, sizeof(xffi_object));
  if (info->offset < (int64_t)sizeof(xffi_object) && !before_header)
    return raise_field(function, type, info, "offset %lld lies in the object header (the first %zu bytes)",
                       (long long)info->offset, sizeof(xffi_object));
  if (info->alignment <= 0 || (info->alignment & (info->alignment - 1)) != 0)
    return raise_field(function, type, info, "alignment %lld is not a positive power of two",
                       (long long)info->alignment);
  /* xffi's own accessors touch a fixed number of bytes: a record that says
   * fewer would let them write into its neighbour (an int setter over half
   * of an object pointer). Other accessors are taken at the record's word. */
  int64_t read = xffi_field_getter_storage_size(info->getter), written = -1;
  if (info->setter && !(info->flags & XFFI_FIELD_SETTER_IS_FUNCTION)) {
    xffi_field_setter setter;
    memcpy(&setter, &info->setter, sizeof(setter));
    written = xffi_field_setter_storage_size(setter);
  }
  if ((read >= 0 && info->size != read) || (written >= 0 && info->size != written))
    return raise_field(function, type, info, "size %lld differs from the %lld bytes its %s", (long long)info->size,
                       (long long)(read >= 0 && info->size != read ? read : written),
                       read >= 0 && info->size != read ? "getter reads" : "setter writes");
  if (info->offset % info->alignment != 0)
    return raise_field(function, type, info, "offset %lld is not a multiple of its alignment %lld",
                       (long long)info->offset, (long long)info->alignment);
  const xffi_type_metadata *metadata = type->metadata;
  if (metadata && outside(info, metadata->total_size))
    return raise_field(function, type, info, "offset %lld + size %lld lies outside the object's total size %d",
                       (long long)info->offset, (long long)info->size, (int)metadata->total_size);
  if (rules == XFFI_FIELD_RULES_STRICT && (info->flags & XFFI_FIELD_WRITABLE) && !info->setter)
    return raise_field(function, type, info, "is writable (XFFI_FIELD_WRITABLE) but info->setter is NULL");
  return XFFI_OK;
}

/* One past the last byte of info, saturated (an offset near INT64_MAX with
 * no total size to bound it would overflow). */
static int64_t end_of(const xffi_field_info *info) {
  return info->offset > INT64_MAX - info->size ? INT64_MAX : info->offset + info->size;
}

static int same_storage(const xffi_field_info *a, const xffi_field_info *b) {
  return a->offset == b->offset && a->size == b->size && a->field_static_type_index == b->field_static_type_index &&
         a->getter == b->getter && a->setter == b->setter &&
         (a->flags & XFFI_FIELD_SETTER_IS_FUNCTION) == (b->flags & XFFI_FIELD_SETTER_IS_FUNCTION);
}

int xffi_field_overlap_check(const char *function, const xffi_type_info *type, const xffi_field_info *info,
                             const xffi_type_info *other_type, const xffi_field_info *other) {
  if (!info->size || !other->size) return XFFI_OK;
  if (info->offset >= end_of(other) || other->offset >= end_of(info)) return XFFI_OK;
  if (other_type != type && same_storage(info, other)) return XFFI_OK;
  return xffi_error_raise(XFFI_KIND_VALUE,
                          "%s: field '%.*s' of %s (offset %lld, size %lld) overlaps field '%.*s' of %s (offset %lld, "
                          "size %lld): fields may not share bytes (only an exact alias of an inherited field may)",
                          function, (int)info->name.size, info->name.data, type->type_key.data, (long long)info->offset,
                          (long long)info->size, (int)other->name.size, other->name.data, other_type->type_key.data,
                          (long long)other->offset, (long long)other->size);
}

int xffi_field_layout_check_total_size(const char *function, const xffi_type_info *type, int32_t total_size) {
  for (int32_t i = 0; i < type->num_fields; ++i) {
    const xffi_field_info *info = &type->fields[i];
    if (outside(info, total_size))
      return xffi_error_raise(XFFI_KIND_VALUE,
                              "%s: total_size %d of %s is too small: its field '%.*s' lies at offset %lld, size %lld",
                              function, (int)total_size, type->type_key.data, (int)info->name.size, info->name.data,
                              (long long)info->offset, (long long)info->size);
  }
  return XFFI_OK;
}
