/* c/lib/reflection/reflection_records.c: reading a type's reflection records from C: its
 * fields and methods with its ancestors' (root ancestor first, as tvm-ffi's
 * Python package lists them), its metadata, and its attributes by name.
 * Lock-free: counts are published after the records they count. */
#include <string.h>
#include <xffi/reflection.h>

#include "runtime/check.h"
#include "runtime/type_internal.h"

static const xffi_type_info *type_arg(const char *function, int32_t type_index) {
  const xffi_type_info *info = xffi_type_info_find(type_index);
  if (!info) xffi_raise_arg(XFFI_KIND_INDEX, function, "type_index", "%d is not a registered type", (int)type_index);
  return info;
}

/* The record at depth of info's chain: an ancestor, or info itself. */
static const xffi_type_info *level_of(const xffi_type_info *info, int32_t depth) {
  return depth == info->type_depth ? info : info->type_ancestors[depth];
}

int xffi_type_count_fields(int32_t *out, int32_t type_index) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  const xffi_type_info *info = type_arg(__func__, type_index);
  if (!info) return XFFI_FAIL;
  int32_t total = 0;
  for (int32_t depth = 0; depth <= info->type_depth; ++depth)
    total += __atomic_load_n(&level_of(info, depth)->num_fields, __ATOMIC_ACQUIRE);
  *out = total;
  return XFFI_OK;
}

int xffi_type_field_at(const xffi_field_info **out, int32_t type_index, int32_t position) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  const xffi_type_info *info = type_arg(__func__, type_index);
  if (!info) return XFFI_FAIL;
  int32_t rest = position, total = 0;
  for (int32_t depth = 0; depth <= info->type_depth && position >= 0; ++depth) {
    const xffi_type_info *level = level_of(info, depth);
    int32_t count = __atomic_load_n(&level->num_fields, __ATOMIC_ACQUIRE);
    const xffi_field_info *fields = __atomic_load_n(&level->fields, __ATOMIC_ACQUIRE);
    if (rest < count) {
      *out = &fields[rest];
      return XFFI_OK;
    }
    rest -= count;
    total += count;
  }
  if (position < 0) xffi_type_count_fields(&total, type_index);
  return xffi_raise_arg(XFFI_KIND_INDEX, __func__, "position", "%d is out of range for the %d fields of %s",
                        (int)position, (int)total, info->type_key.data);
}

int xffi_type_count_methods(int32_t *out, int32_t type_index) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  const xffi_type_info *info = type_arg(__func__, type_index);
  if (!info) return XFFI_FAIL;
  int32_t total = 0;
  for (int32_t depth = 0; depth <= info->type_depth; ++depth)
    total += __atomic_load_n(&level_of(info, depth)->num_methods, __ATOMIC_ACQUIRE);
  *out = total;
  return XFFI_OK;
}

int xffi_type_method_at(const xffi_method_info **out, int32_t type_index, int32_t position) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  const xffi_type_info *info = type_arg(__func__, type_index);
  if (!info) return XFFI_FAIL;
  int32_t rest = position, total = 0;
  for (int32_t depth = 0; depth <= info->type_depth && position >= 0; ++depth) {
    const xffi_type_info *level = level_of(info, depth);
    int32_t count = __atomic_load_n(&level->num_methods, __ATOMIC_ACQUIRE);
    const xffi_method_info *methods = __atomic_load_n(&level->methods, __ATOMIC_ACQUIRE);
    if (rest < count) {
      *out = &methods[rest];
      return XFFI_OK;
    }
    rest -= count;
    total += count;
  }
  if (position < 0) xffi_type_count_methods(&total, type_index);
  return xffi_raise_arg(XFFI_KIND_INDEX, __func__, "position", "%d is out of range for the %d methods of %s",
                        (int)position, (int)total, info->type_key.data);
}

int xffi_type_get_metadata(const xffi_type_metadata **out, int32_t type_index) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  const xffi_type_info *info = type_arg(__func__, type_index);
  if (!info) return XFFI_FAIL;
  *out = __atomic_load_n(&info->metadata, __ATOMIC_ACQUIRE);
  return XFFI_OK;
}

int xffi_type_get_attr(xffi_any *out, int32_t type_index, const char *name) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(name);
  if (!type_arg(__func__, type_index)) return XFFI_FAIL;
  xffi_any value = xffi_any_none();
  const xffi_type_attr_column *column = xffi_type_attr_column_find(name, strlen(name));
  if (column) {
    int64_t offset = (int64_t)type_index - column->begin_index;
    int32_t size = __atomic_load_n(&column->size, __ATOMIC_ACQUIRE);
    const xffi_any *data = __atomic_load_n(&column->data, __ATOMIC_ACQUIRE);
    if (offset >= 0 && offset < size) value = data[offset];
    if (value.type_index == XFFI_TYPE_NONE) { /* a type only the process's other runtime knows */
      const xffi_any *theirs = xffi_type_attr_provided(column, type_index);
      if (theirs) value = *theirs;
    }
  }
  if (xffi_any_is_object(&value)) xffi_object_inc_ref(value.v_obj);
  *out = value;
  return XFFI_OK;
}
