/* tests/c/module/test_abi_marker.c: XFFI_DEFINE_ABI_MARKER() on every platform the
 * suite runs on (Linux, Windows/mingw, wasm32-wasi, ...). This program writes
 * the macro as a library would and reads the constant it defines. Whether a
 * loaded library's marker is seen (and that including the headers defines
 * none) is test_module's part, where there are shared libraries. */
#include "test_util.h"
#include <xffi/module.h>

XFFI_DEFINE_ABI_MARKER();

static void test_the_macro_defines_the_marker_with_the_abi_version(void **state) {
  (void)state;
  assert_int_equal(xffi_library_abi_version, XFFI_ABI_VERSION);
  assert_int_equal(xffi_library_abi_version, xffi_abi_version());
  assert_string_equal(XFFI_ABI_MARKER_SYMBOL, "xffi_library_abi_version");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_the_macro_defines_the_marker_with_the_abi_version),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
