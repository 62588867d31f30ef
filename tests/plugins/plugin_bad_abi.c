/* tests/plugins/plugin_bad_abi.c: a library claiming another xffi ABI version
 * (as one built against a future, incompatible xffi would). The loader must
 * refuse it with a clear error. */
#include <xffi/module.h>

XFFI_DLL_EXPORT extern const int32_t xffi_library_abi_version;
XFFI_DLL_EXPORT const int32_t xffi_library_abi_version = XFFI_ABI_VERSION + 100;

static int nothing(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args, (void)result;
  return 0;
}
XFFI_EXPORT_FUNCTION(nothing, nothing);
