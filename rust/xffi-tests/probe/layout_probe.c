/* layout_probe.c: reports the C compiler's view of every public xffi struct
 * (size, alignment, field offsets) and constant, so the Rust `layout` test can
 * prove that xffi-sys's hand-written declarations match it. Also exports the
 * static inline hot paths, so the Rust reimplementations can be checked
 * against the C ones on the same objects. */
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <xffi/xffi.h>
#include <xffi/array.h>
#include <xffi/dtype.h>
#include <xffi/function.h>
#include <xffi/shape.h>
#include <xffi/tensor.h>
#include <xffi/sys/array.h>
#include <xffi/sys/error.h>
#include <xffi/sys/function.h>
#include <xffi/sys/object.h>
#include <xffi/sys/type.h>

typedef struct xffi_probe_entry {
  const char *name;
  int64_t value;
} xffi_probe_entry;

#define S(T) {"size " #T, (int64_t)sizeof(T)}, {"align " #T, (int64_t)alignof(T)}
#define O(T, f) {"offset " #T "." #f, (int64_t)offsetof(T, f)}
#define C(name) {"const " #name, (int64_t)(name)}

static const xffi_probe_entry entries[] = {
  S(xffi_object), O(xffi_object, ref_counts), O(xffi_object, type_index), O(xffi_object, reserved),
  O(xffi_object, deleter),
  S(xffi_byte_array), O(xffi_byte_array, data), O(xffi_byte_array, size),
  S(xffi_type_info), O(xffi_type_info, type_index), O(xffi_type_info, type_depth), O(xffi_type_info, type_key),
  O(xffi_type_info, type_ancestors),
  S(xffi_any), O(xffi_any, type_index), O(xffi_any, small_len), O(xffi_any, v_int64), O(xffi_any, v_small),
  S(xffi_error_cell), O(xffi_error_cell, kind), O(xffi_error_cell, message), O(xffi_error_cell, backtrace),
  O(xffi_error_cell, update_backtrace), O(xffi_error_cell, cause_chain), O(xffi_error_cell, extra_context),
  S(DLPackVersion), O(DLPackVersion, major), O(DLPackVersion, minor),
  S(DLDevice), O(DLDevice, device_type), O(DLDevice, device_id),
  S(DLDataType), O(DLDataType, code), O(DLDataType, bits), O(DLDataType, lanes),
  S(DLTensor), O(DLTensor, data), O(DLTensor, device), O(DLTensor, ndim), O(DLTensor, dtype), O(DLTensor, shape),
  O(DLTensor, strides), O(DLTensor, byte_offset),
  S(DLManagedTensor), O(DLManagedTensor, dl_tensor), O(DLManagedTensor, manager_ctx), O(DLManagedTensor, deleter),
  S(DLManagedTensorVersioned), O(DLManagedTensorVersioned, version), O(DLManagedTensorVersioned, manager_ctx),
  O(DLManagedTensorVersioned, deleter), O(DLManagedTensorVersioned, flags), O(DLManagedTensorVersioned, dl_tensor),
  S(xffi_function_cell), O(xffi_function_cell, safe_call), O(xffi_function_cell, cpp_call),
  S(xffi_function_head), O(xffi_function_head, cell), O(xffi_function_head, resource),
  S(xffi_seq_cell), O(xffi_seq_cell, data), O(xffi_seq_cell, size), O(xffi_seq_cell, capacity),
  O(xffi_seq_cell, data_deleter),
  S(xffi_shape_cell), O(xffi_shape_cell, data), O(xffi_shape_cell, size),
  C(XFFI_TENSOR_ALIGNMENT), C(XFFI_DLPACK_MAJOR), C(XFFI_DLPACK_MINOR), C(XFFI_DTYPE_STR_MAX),
  C(XFFI_DEVICE_STR_MAX),
  C(XFFI_OK), C(XFFI_FAIL), C(XFFI_ABI_VERSION), C(XFFI_SMALL_STR_MAX),
  C(XFFI_DELETE_CONTENTS), C(XFFI_DELETE_MEMORY), C(XFFI_DELETE_BOTH),
  C(XFFI_REF_STRONG_ONE), C(XFFI_REF_WEAK_ONE), C(XFFI_REF_INITIAL),
  C(XFFI_BACKTRACE_REPLACE), C(XFFI_BACKTRACE_APPEND),
  C(XFFI_TYPE_ANY), C(XFFI_TYPE_NONE), C(XFFI_TYPE_INT), C(XFFI_TYPE_BOOL), C(XFFI_TYPE_FLOAT),
  C(XFFI_TYPE_OPAQUE_PTR), C(XFFI_TYPE_DTYPE), C(XFFI_TYPE_DEVICE), C(XFFI_TYPE_DLTENSOR_PTR),
  C(XFFI_TYPE_RAW_STR), C(XFFI_TYPE_BYTE_ARRAY_PTR), C(XFFI_TYPE_OBJECT_RVALUE), C(XFFI_TYPE_SMALL_STR),
  C(XFFI_TYPE_SMALL_BYTES), C(XFFI_TYPE_STATIC_OBJECT_BEGIN), C(XFFI_TYPE_OBJECT), C(XFFI_TYPE_STRING),
  C(XFFI_TYPE_BYTES), C(XFFI_TYPE_ERROR), C(XFFI_TYPE_FUNCTION), C(XFFI_TYPE_SHAPE), C(XFFI_TYPE_TENSOR),
  C(XFFI_TYPE_ARRAY), C(XFFI_TYPE_MAP), C(XFFI_TYPE_MODULE), C(XFFI_TYPE_OPAQUE_FOREIGN), C(XFFI_TYPE_LIST),
  C(XFFI_TYPE_DICT), C(XFFI_TYPE_BUILTIN_END), C(XFFI_TYPE_DYNAMIC_BEGIN),
  C(kDLCPU), C(kDLCUDA), C(kDLInt), C(kDLUInt), C(kDLFloat), C(kDLBfloat), C(kDLBool),
  C(DLPACK_FLAG_BITMASK_READ_ONLY), C(DLPACK_FLAG_BITMASK_IS_COPIED),
};

const xffi_probe_entry *xffi_probe_entries(size_t *count);
const xffi_probe_entry *xffi_probe_entries(size_t *count) {
  *count = sizeof(entries) / sizeof(entries[0]);
  return entries;
}

/* The C static inline hot paths, exported for comparison with Rust's. */
void xffi_probe_inc_ref(xffi_object *obj);
void xffi_probe_inc_ref(xffi_object *obj) { xffi_object_inc_ref_inline(obj); }
void xffi_probe_dec_ref(xffi_object *obj);
void xffi_probe_dec_ref(xffi_object *obj) { xffi_object_dec_ref_inline(obj); }
int xffi_probe_is_instance_of(const xffi_object *obj, int32_t type_index);
int xffi_probe_is_instance_of(const xffi_object *obj, int32_t type_index) {
  return xffi_object_is_a_unchecked(obj, type_index);
}
int xffi_probe_is_instance(const xffi_object *obj, int32_t type_index);
int xffi_probe_is_instance(const xffi_object *obj, int32_t type_index) {
  const xffi_type_info *info = NULL;
  if (xffi_type_info_get(&info, type_index) != XFFI_OK) return -1;
  return xffi_object_is_a_type_unchecked(obj, info);
}
xffi_any xffi_probe_any_int(int64_t x);
xffi_any xffi_probe_any_int(int64_t x) { return xffi_any_int(x); }
xffi_any xffi_probe_any_float(double x);
xffi_any xffi_probe_any_float(double x) { return xffi_any_float(x); }
xffi_any xffi_probe_any_bool(int x);
xffi_any xffi_probe_any_bool(int x) { return xffi_any_bool(x); }
