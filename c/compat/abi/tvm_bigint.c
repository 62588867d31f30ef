/* c/compat/abi/tvm_bigint.c: tvm-ffi's BigInt functions
 * (TVMFFIBigIntFromByteArray, TVMFFIBigIntGetContentByteArray) over the
 * runtime's ffi.BigInt (c/runtime/bigint.c). */
#include <xffi/tvm_ffi.h>

#include "runtime/bigint.h"

int TVMFFIBigIntFromByteArray(const xffi_byte_array *input, xffi_any *out) {
  return xffi_bigint_from_bytes(__func__, input, out);
}

xffi_byte_array TVMFFIBigIntGetContentByteArray(const xffi_any *value) { return xffi_bigint_content(__func__, value); }
