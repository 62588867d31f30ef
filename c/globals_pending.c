/* c/globals_pending.c: ffi.* globals that the tvm_ffi package looks up when
 * it is imported but whose work belongs to later issues (reflection-based
 * dataclasses, #16; structural equality, hashing and visiting, #17).
 *
 * The package binds these names at import (tvm_ffi._ffi_api), so they must
 * exist for `import tvm_ffi` to succeed. Each call fails with a RuntimeError
 * that names the global and the issue that brings it: no result is ever
 * faked. The Functions are static and immortal (c/builtin_globals.h). */
#include "builtin_globals.h"

static int call_pending(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result);

#define PENDING_FUNCTION(var) XFFI_BUILTIN_FUNCTION(var, call_pending)
PENDING_FUNCTION(deep_copy_function);
PENDING_FUNCTION(recursive_eq_function);
PENDING_FUNCTION(recursive_lt_function);
PENDING_FUNCTION(recursive_le_function);
PENDING_FUNCTION(recursive_gt_function);
PENDING_FUNCTION(recursive_ge_function);
PENDING_FUNCTION(recursive_hash_function);

#define REFLECTION_ISSUE "the reflection issue (#16, reflection-based dataclasses)"
#define STRUCTURAL_ISSUE "the structural issue (#17, structural equality, hashing and visiting)"

/* The registry's view: names and Functions, no metadata. */
static const xffi_builtin_global pending_globals[] = {
    {"ffi.DeepCopy", &deep_copy_function, NULL},           {"ffi.RecursiveEq", &recursive_eq_function, NULL},
    {"ffi.RecursiveLt", &recursive_lt_function, NULL},     {"ffi.RecursiveLe", &recursive_le_function, NULL},
    {"ffi.RecursiveGt", &recursive_gt_function, NULL},     {"ffi.RecursiveGe", &recursive_ge_function, NULL},
    {"ffi.RecursiveHash", &recursive_hash_function, NULL},
};
/* What brings each one, in the order of pending_globals. */
static const char *const pending_issues[] = {
    REFLECTION_ISSUE, REFLECTION_ISSUE, REFLECTION_ISSUE, REFLECTION_ISSUE,
    REFLECTION_ISSUE, REFLECTION_ISSUE, REFLECTION_ISSUE,
};
#define PENDING_COUNT (sizeof(pending_globals) / sizeof(pending_globals[0]))
_Static_assert(sizeof(pending_issues) / sizeof(pending_issues[0]) == PENDING_COUNT, "one issue per pending global");

/* Every pending global: raises a RuntimeError naming it (found by its own
 * handle) and leaves *result untouched. args are borrowed and not read. */
static int call_pending(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)args;
  (void)num_args;
  (void)result;
  for (size_t i = 0; i < PENDING_COUNT; ++i)
    if ((void *)pending_globals[i].function == handle)
      return xffi_error_raise(XFFI_KIND_RUNTIME, "%s is not implemented in xffi yet: it comes with %s",
                              pending_globals[i].name, pending_issues[i]);
  return xffi_error_raise(XFFI_KIND_RUNTIME, "a pending ffi.* global is not implemented in xffi yet");
}

const xffi_builtin_table xffi_globals_pending = {pending_globals, sizeof(pending_globals) / sizeof(pending_globals[0])};
