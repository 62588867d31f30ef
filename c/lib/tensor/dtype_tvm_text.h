/* c/lib/tensor/dtype_tvm_text.h: dtypes in tvm-ffi's text (private;
 * c/lib/tensor/dtype_tvm_text.c). xffi_dtype_parse and xffi_dtype_to_str
 * (xffi/dtype.h) keep xffi's own, stricter grammar. */
#ifndef XFFI_LIB_TENSOR_DTYPE_TVM_TEXT_H
#define XFFI_LIB_TENSOR_DTYPE_TVM_TEXT_H

#include "runtime/internal.h"

/* *out receives the dtype str (borrowed; str and out not NULL, str->data
 * not NULL unless empty) names in tvm-ffi's grammar; a
 * ValueError naming what was expected otherwise. */
int xffi_dtype_from_tvm_text(const xffi_byte_array *str, DLDataType *out) XFFI_INTERNAL;

/* *out receives (owned) the text tvm-ffi writes for *dtype (borrowed; both
 * not NULL); a
 * ValueError for an unknown type code, or the custom-name lookup's error. */
int xffi_dtype_to_tvm_text(const DLDataType *dtype, xffi_any *out) XFFI_INTERNAL;

#endif /* XFFI_LIB_TENSOR_DTYPE_TVM_TEXT_H */
