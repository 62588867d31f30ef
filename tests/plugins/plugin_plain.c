/* tests/plugins/plugin_plain.c: a plugin that only exports functions (no
 * load-time registration), so it may be unloaded when its Module and every
 * function taken from it are gone. */
#include <xffi/function.h>
#include <xffi/module.h>

XFFI_DEFINE_ABI_MARKER(); /* once per library: xffi_module_load checks it */

static int twice(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int64_t x;
  if (xffi_arg_check_signature(args, num_args, "i", "twice") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int_inline(&x, args, num_args, 0, "twice") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(2 * x);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(twice, twice);
