/* layout_probe.c: exports the C static inline hot paths, so the Rust `layout`
 * test can check xffi-sys's reimplementations against them on the same
 * objects. (Sizes, offsets and constants are proven by rust/xffi-systest,
 * generated from the headers.) */
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

/* The C static inline conveniences xffi-sys mirrors, for the same comparison. */
xffi_any xffi_probe_any_ptr(void *p);
xffi_any xffi_probe_any_ptr(void *p) { return xffi_any_ptr(p); }
xffi_any xffi_probe_any_dtype(DLDataType dtype);
xffi_any xffi_probe_any_dtype(DLDataType dtype) { return xffi_any_dtype(dtype); }
xffi_any xffi_probe_any_device(DLDevice device);
xffi_any xffi_probe_any_device(DLDevice device) { return xffi_any_device(device); }
xffi_any xffi_probe_any_dltensor(DLTensor *t);
xffi_any xffi_probe_any_dltensor(DLTensor *t) { return xffi_any_dltensor(t); }
xffi_any xffi_probe_any_c_str(const char *s);
xffi_any xffi_probe_any_c_str(const char *s) { return xffi_any_c_str(s); }
xffi_any xffi_probe_any_byte_array(const xffi_byte_array *b);
xffi_any xffi_probe_any_byte_array(const xffi_byte_array *b) { return xffi_any_byte_array(b); }
size_t xffi_probe_dtype_bytes(DLDataType dtype);
size_t xffi_probe_dtype_bytes(DLDataType dtype) { return xffi_dtype_nbytes(dtype); }
int xffi_probe_arg_int(int64_t *out, const xffi_any *args, int32_t num_args, int32_t index);
int xffi_probe_arg_int(int64_t *out, const xffi_any *args, int32_t num_args, int32_t index) {
  return xffi_arg_to_int_inline(out, args, num_args, index, "probe");
}
int xffi_probe_arg_float(double *out, const xffi_any *args, int32_t num_args, int32_t index);
int xffi_probe_arg_float(double *out, const xffi_any *args, int32_t num_args, int32_t index) {
  return xffi_arg_to_float_inline(out, args, num_args, index, "probe");
}
