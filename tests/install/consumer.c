/* Uses the installed headers and library: fails (exit 1) on any surprise. */
#include <stdio.h>
#include <string.h>
#include <xffi/xffi.h>
#include <xffi/sys/string.h>

int main(void) {
  xffi_object *s = NULL;
  if (xffi_string_from_c_str(&s, "installed and working") != XFFI_OK) return 1;
  int ok = strcmp(xffi_string_cell_of_unchecked(s).data, "installed and working") == 0 &&
           strcmp(xffi_version(), XFFI_VERSION_STRING) == 0 && xffi_abi_version() == XFFI_ABI_VERSION;
  xffi_object_dec_ref(s);
  printf("consumer: xffi %s %s\n", xffi_version(), ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
