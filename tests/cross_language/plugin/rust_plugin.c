/* tests/cross_language/plugin/rust_plugin.c: a shared library for the Rust Module
 * test (rust/xffi-tests/tests/module.rs), built by xffi-tests' build.rs. It
 * calls no xffi function (only header inlines), so it loads into a host that
 * does not export the xffi symbols dynamically. */
#include <xffi/module.h>

XFFI_DEFINE_ABI_MARKER(); /* once per library: xffi_module_load checks it */

static int add_one(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (num_args != 1 || args[0].type_index != XFFI_TYPE_INT) return -1;
  *result = xffi_any_int(args[0].v_int64 + 1);
  return 0;
}
XFFI_EXPORT_FUNCTION(add_one, add_one);
