/* c/compat/globals/globals.c: the list of the runtime's tables of ffi.* global functions
 * (c/compat/globals/builtin_globals.h). */
#include "compat/globals/builtin_globals.h"

const xffi_builtin_table *const xffi_builtin_tables[] = {
    &xffi_globals_registry, &xffi_globals_misc,       &xffi_globals_container,     &xffi_globals_module,
    &xffi_globals_type,     &xffi_globals_auto_init,  &xffi_globals_recursive,     &xffi_globals_repr,
    &xffi_globals_pyclass,  &xffi_globals_structural, &xffi_globals_serialization, &xffi_globals_structural_visit,
};
const size_t xffi_builtin_table_count = sizeof(xffi_builtin_tables) / sizeof(xffi_builtin_tables[0]);
