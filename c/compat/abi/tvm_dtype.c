/* c/compat/abi/tvm_dtype.c: tvm-ffi's dtype text functions
 * (TVMFFIDataTypeFromString, TVMFFIDataTypeToString): their argument checks
 * over the library's reader and writer of that text
 * (c/lib/tensor/dtype_tvm_text.c). */
#include <xffi/tvm_ffi.h>

#include "lib/tensor/dtype_tvm_text.h"
#include "runtime/check.h"

int TVMFFIDataTypeFromString(const xffi_byte_array *str, DLDataType *out) {
  XFFI_CHECK_ARG_NOT_NULL(str);
  XFFI_CHECK_ARG_NOT_NULL(out);
  if (!str->data && str->size)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: str->data is NULL but str->size is %zu", __func__, str->size);
  return xffi_dtype_from_tvm_text(str, out);
}

int TVMFFIDataTypeToString(const DLDataType *dtype, xffi_any *out) {
  XFFI_CHECK_ARG_NOT_NULL(dtype);
  XFFI_CHECK_ARG_NOT_NULL(out);
  return xffi_dtype_to_tvm_text(dtype, out);
}
