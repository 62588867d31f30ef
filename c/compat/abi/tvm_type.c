/* c/compat/abi/tvm_type.c: tvm-ffi's type registry entry points (xffi/tvm_ffi.h).
 *
 * Thin: each checks the pointers tvm-ffi would dereference blindly and
 * calls the registry (c/type*.c). Where tvm-ffi exits on bad input, these
 * return -1 (or NULL) with the error raised. */
#include <xffi/tvm_ffi.h>

#include "runtime/check.h"
#include "runtime/type_internal.h"
#include "lib/reflection/type_reflection.h"

/* A key or name argument: not NULL, and data not NULL when it has bytes. */
#define CHECK_BYTE_ARRAY(arg)                                                                                     \
  do {                                                                                                            \
    XFFI_CHECK_ARG_NOT_NULL(arg);                                                                                 \
    XFFI_CHECK_ARG(arg, (arg)->data || !(arg)->size, XFFI_KIND_VALUE, "has NULL data but size %zu", (arg)->size); \
  } while (0)

int TVMFFITypeKeyToIndex(const xffi_byte_array *type_key, int32_t *out_type_index) {
  CHECK_BYTE_ARRAY(type_key);
  XFFI_CHECK_ARG_NOT_NULL(out_type_index);
  if (xffi_type_builtins_ensure() != XFFI_OK) return XFFI_FAIL;
  const xffi_type_info *info = xffi_type_find_by_key(type_key->data, type_key->size);
  if (!info)
    return xffi_error_raise(XFFI_KIND_KEY, "%s: cannot find type '%.*s'", __func__, (int)type_key->size,
                            type_key->data);
  *out_type_index = info->type_index;
  return XFFI_OK;
}

static int32_t get_or_alloc(const xffi_byte_array *type_key, int32_t static_type_index, int32_t type_depth,
                            int32_t num_child_slots, int32_t child_slots_can_overflow, int32_t parent_type_index) {
  CHECK_BYTE_ARRAY(type_key);
  XFFI_CHECK_ARG(type_key, type_key->size > 0, XFFI_KIND_VALUE, "is empty");
  int32_t index = -1;
  if (xffi_type_get_or_alloc(&index, "TVMFFITypeGetOrAllocIndex", type_key->data, type_key->size, static_type_index,
                             type_depth, num_child_slots, child_slots_can_overflow, parent_type_index) != XFFI_OK)
    return -1;
  return index;
}

int32_t TVMFFITypeGetOrAllocIndex(const xffi_byte_array *type_key, int32_t static_type_index, int32_t type_depth,
                                  int32_t num_child_slots, int32_t child_slots_can_overflow,
                                  int32_t parent_type_index) {
  return get_or_alloc(type_key, static_type_index, type_depth, num_child_slots, child_slots_can_overflow,
                      parent_type_index);
}

const xffi_type_info *TVMFFIGetTypeInfo(int32_t type_index) {
  const xffi_type_info *info = xffi_type_info_find(type_index);
  if (!info) xffi_error_raise(XFFI_KIND_INDEX, "%s: no type has index %d", __func__, (int)type_index);
  return info;
}

int TVMFFITypeRegisterField(int32_t type_index, const xffi_field_info *info) {
  return xffi_type_register_field_in(__func__, type_index, info);
}

int TVMFFITypeRegisterMethod(int32_t type_index, const xffi_method_info *info) {
  return xffi_type_register_method_in(__func__, type_index, info);
}

int TVMFFITypeRegisterMetadata(int32_t type_index, const xffi_type_metadata *metadata) {
  return xffi_type_register_metadata_in(__func__, type_index, metadata);
}

int TVMFFITypeRegisterAttr(int32_t type_index, const xffi_byte_array *attr_name, const xffi_any *attr_value) {
  CHECK_BYTE_ARRAY(attr_name);
  return xffi_type_register_attr_in(__func__, type_index, attr_name->data, attr_name->size, attr_value);
}

const xffi_type_attr_column *TVMFFIGetTypeAttrColumn(const xffi_byte_array *attr_name) {
  if (!attr_name || (!attr_name->data && attr_name->size)) {
    xffi_error_raise(XFFI_KIND_VALUE, "%s: attr_name %s", __func__, attr_name ? "has NULL data but a size" : "is NULL");
    return NULL;
  }
  /* The runtime's own entries are registered with its types, on first use. */
  if (xffi_type_builtins_ensure() != XFFI_OK) return NULL;
  const xffi_type_attr_column *column = xffi_type_attr_column_find(attr_name->data, attr_name->size);
  /* Callers read the column by index: bound to the process's tvm-ffi
   * runtime, it first takes the values that runtime holds for the types
   * they share (registered there by its own code, as Python's pyclass does). */
  xffi_type_attr_column_sync(column);
  return column;
}
