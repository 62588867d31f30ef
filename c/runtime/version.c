/* c/runtime/version.c: the running library's version and ABI version. */
#include "runtime/internal.h"

const char *xffi_version(void) { return XFFI_VERSION_STRING; }

int32_t xffi_abi_version(void) { return XFFI_ABI_VERSION; }
