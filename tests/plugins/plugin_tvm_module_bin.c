/* tests/plugins/plugin_tvm_module_bin.c: a library embedding an import tree
 * (__tvm_ffi__library_bin) as tvm-ffi writes it: module 0 is the library
 * itself ("_lib") and imports module 1, of kind "xffitest" with the payload
 * "payload", which the global ffi.Module.load_from_bytes.xffitest (the test
 * registers it) turns into a Module. lookup_twice reaches that import's
 * twice through TVMFFIEnvModLookupFromImports. */
#include <xffi/function.h>
#include <xffi/module.h>
#include <xffi/tvm_ffi.h>

XFFI_DLL_EXPORT void *__tvm_ffi__library_ctx = NULL;

#define U64(x) (x) & 0xff, ((x) >> 8) & 0xff, 0, 0, 0, 0, 0, 0
XFFI_DLL_EXPORT const unsigned char __tvm_ffi__library_bin[] = {
    U64(91),                                                  /* bytes that follow */
    U64(3),  U64(0), U64(1), U64(1),                          /* indptr: module 0 has child [0, 1), module 1 none */
    U64(1),  U64(1),                                          /* child indices: 1 */
    U64(4),  '_',    'l',    'i',    'b',                     /* module 0: the library */
    U64(8),  'x',    'f',    'f',    'i', 't', 'e', 's', 't', /* module 1: kind */
    U64(7),  'p',    'a',    'y',    'l', 'o', 'a', 'd',      /* and its payload */
};

static int lookup_twice(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  void *function;
  if (TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, "twice", &function) != 0) return XFFI_FAIL;
  return xffi_function_call(function, args, num_args, result);
}
XFFI_EXPORT_FUNCTION(lookup_twice, lookup_twice);
