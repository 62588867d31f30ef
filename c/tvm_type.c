/* c/tvm_type.c: tvm-ffi's type registry entry points (xffi/tvm_ffi.h).
 * Placeholder until the types area lands: no attribute column exists yet. */
#include <xffi/tvm_ffi.h>

#include "check.h"

const xffi_type_attr_column *TVMFFIGetTypeAttrColumn(const xffi_byte_array *attr_name) {
  (void)attr_name;
  return NULL;
}
