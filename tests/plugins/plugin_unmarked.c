/* tests/plugins/plugin_unmarked.c: a library that includes every xffi header
 * and exports a function, but does not write XFFI_DEFINE_ABI_MARKER(). Including
 * the headers must define no marker, so the loader sees none (ABI version 0). */
#include <xffi/module.h>
#include <xffi/xffi.h>

static int seven(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args;
  *result = xffi_any_int(7);
  return 0;
}
XFFI_EXPORT_FUNCTION(seven, seven);
