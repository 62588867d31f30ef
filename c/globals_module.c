/* c/globals_module.c: the runtime's ffi.* global functions of this area
 * (c/builtin_globals.h). Filled in by the one-runtime work. */
#include "builtin_globals.h"

const xffi_builtin_table xffi_globals_module = {NULL, 0};
