/* c/compat/globals/globals_repr.c: ffi.ReprPrint (c/compat/globals/builtin_globals.h), the text of any
 * value in tvm-ffi's format: xffi_repr (c/lib/text/repr.c), which also reads
 * TVM_FFI_REPR_WITH_ADDR as tvm-ffi does. */
#include <xffi/reflection.h>

#include "compat/globals/builtin_globals.h"
#include "runtime/global_args.h"

/* One argument (borrowed); *result receives a new String. */
static int global_repr_print(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_global_check_call("ffi.ReprPrint", args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  xffi_object *text;
  if (xffi_repr(&text, &args[0]) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(text);
  return XFFI_OK;
}

XFFI_BUILTIN_FUNCTION(repr_print_function, global_repr_print);

static const xffi_builtin_global repr_globals[] = {
    {"ffi.ReprPrint", &repr_print_function, "ffi.String(Any)"},
};

const xffi_builtin_table xffi_globals_repr = {repr_globals, sizeof(repr_globals) / sizeof(repr_globals[0])};
