/* c/compat/globals/globals_recursive.c: ffi.DeepCopy and ffi.Recursive{Eq,Lt,Le,Gt,Ge,Hash}
 * (tvm-ffi's dataclass operations), on xffi/recursive.h. Arguments are
 * borrowed; the result is owned by the caller. The Functions are static and
 * immortal (c/compat/globals/builtin_globals.h). */
#include <xffi/recursive.h>

#include "compat/globals/builtin_globals.h"
#include "runtime/global_args.h"

static int call_deep_copy(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_global_check_call("ffi.DeepCopy", args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  return xffi_deep_copy(result, &args[0]);
}

static int call_hash(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_global_check_call("ffi.RecursiveHash", args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  int64_t hash;
  if (xffi_recursive_hash(&hash, &args[0]) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(hash);
  return XFFI_OK;
}

static int call_eq(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_global_check_call("ffi.RecursiveEq", args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  int equal;
  if (xffi_recursive_equal(&equal, &args[0], &args[1]) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_bool(equal);
  return XFFI_OK;
}

/* The orderings: name, and which outcomes of the three-way compare are true. */
static int call_order(const char *name, int if_less, int if_equal, int if_greater, const xffi_any *args,
                      int32_t num_args, xffi_any *result) {
  if (xffi_global_check_call(name, args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  int order;
  if (xffi_recursive_compare(&order, &args[0], &args[1]) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_bool(order < 0 ? if_less : order == 0 ? if_equal : if_greater);
  return XFFI_OK;
}

static int call_lt(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return call_order("ffi.RecursiveLt", 1, 0, 0, args, num_args, result);
}
static int call_le(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return call_order("ffi.RecursiveLe", 1, 1, 0, args, num_args, result);
}
static int call_gt(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return call_order("ffi.RecursiveGt", 0, 0, 1, args, num_args, result);
}
static int call_ge(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return call_order("ffi.RecursiveGe", 0, 1, 1, args, num_args, result);
}

XFFI_BUILTIN_FUNCTION(deep_copy_function, call_deep_copy);
XFFI_BUILTIN_FUNCTION(recursive_hash_function, call_hash);
XFFI_BUILTIN_FUNCTION(recursive_eq_function, call_eq);
XFFI_BUILTIN_FUNCTION(recursive_lt_function, call_lt);
XFFI_BUILTIN_FUNCTION(recursive_le_function, call_le);
XFFI_BUILTIN_FUNCTION(recursive_gt_function, call_gt);
XFFI_BUILTIN_FUNCTION(recursive_ge_function, call_ge);

static const xffi_builtin_global recursive_globals[] = {
    {"ffi.DeepCopy", &deep_copy_function, "Any(Any)"},
    {"ffi.RecursiveHash", &recursive_hash_function, "int(Any)"},
    {"ffi.RecursiveEq", &recursive_eq_function, "bool(Any,Any)"},
    {"ffi.RecursiveLt", &recursive_lt_function, "bool(Any,Any)"},
    {"ffi.RecursiveLe", &recursive_le_function, "bool(Any,Any)"},
    {"ffi.RecursiveGt", &recursive_gt_function, "bool(Any,Any)"},
    {"ffi.RecursiveGe", &recursive_ge_function, "bool(Any,Any)"},
};

const xffi_builtin_table xffi_globals_recursive = {recursive_globals,
                                                   sizeof(recursive_globals) / sizeof(recursive_globals[0])};
