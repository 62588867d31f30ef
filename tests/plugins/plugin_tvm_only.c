/* tests/plugins/plugin_tvm_only.c: a library written for tvm-ffi alone: no
 * xffi header, no xffi ABI marker, its own copy of the 16-byte value layout.
 * xffi loads it (no marker is allowed) and calls it. */
#include <stdint.h>

typedef struct value {
  int32_t type_index;
  uint32_t small_len;
  int64_t v_int64;
} value;

__attribute__((visibility("default"))) int __tvm_ffi_answer(void *handle, const value *args, int32_t num_args,
                                                            value *result);
__attribute__((visibility("default"))) int __tvm_ffi_answer(void *handle, const value *args, int32_t num_args,
                                                            value *result) {
  (void)args, (void)num_args;
  result->type_index = 1; /* int */
  result->small_len = 0;
  result->v_int64 = handle == 0 ? 42 : -1; /* the handle must be NULL */
  return 0;
}
