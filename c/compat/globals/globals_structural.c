/* c/compat/globals/globals_structural.c: ffi.StructuralEqual, ffi.StructuralHash,
 * ffi.GetFirstStructuralMismatch,
 * ffi.StructuralKey and ffi.StructuralKeyEqual (tvm_ffi.structural), on
 * xffi/structural.h. Arguments are borrowed; the result is owned by the
 * caller. The Functions are static and immortal (c/compat/globals/builtin_globals.h). */
#include <xffi/structural.h>

#include "compat/globals/builtin_globals.h"
#include "runtime/global_args.h"
#include "lib/walk/structural_key.h"

/* The options from the arguments (map_free_vars, skip_tensor_content)
 * starting at index first. */
static int options_of(int32_t *out, const char *fn, const xffi_any *args, int32_t first) {
  int map_free_vars = 0, skip_tensor_content = 0;
  if (xffi_any_to_bool(&map_free_vars, &args[first]) != XFFI_OK ||
      xffi_any_to_bool(&skip_tensor_content, &args[first + 1]) != XFFI_OK)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: map_free_vars and skip_tensor_content must be bools, got %s and %s",
                            fn, xffi_any_kind_name(&args[first]), xffi_any_kind_name(&args[first + 1]));
  *out = (map_free_vars ? XFFI_STRUCTURAL_MAP_FREE_VARS : 0) |
         (skip_tensor_content ? XFFI_STRUCTURAL_SKIP_TENSOR_CONTENT : 0);
  return XFFI_OK;
}

static int call_equal(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.StructuralEqual";
  int32_t options = 0;
  if (xffi_global_check_call(fn, args, num_args, 4, result) != XFFI_OK || options_of(&options, fn, args, 2) != XFFI_OK)
    return XFFI_FAIL;
  int equal;
  if (xffi_structural_equal(&equal, &args[0], &args[1], options) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_bool(equal);
  return XFFI_OK;
}

static int call_hash(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.StructuralHash";
  int32_t options = 0;
  if (xffi_global_check_call(fn, args, num_args, 3, result) != XFFI_OK || options_of(&options, fn, args, 1) != XFFI_OK)
    return XFFI_FAIL;
  int64_t hash;
  if (xffi_structural_hash(&hash, &args[0], options) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(hash);
  return XFFI_OK;
}

static int call_key(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_global_check_call("ffi.StructuralKey", args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  xffi_object *key = NULL;
  if (xffi_structural_key_new(&key, &args[0]) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(key);
  return XFFI_OK;
}

static int call_key_equal(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_global_check_call("ffi.StructuralKeyEqual", args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  int equal = 0;
  if (xffi_structural_key_equal(&equal, &args[0], &args[1]) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_bool(equal);
  return XFFI_OK;
}

static int call_mismatch(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.GetFirstStructuralMismatch";
  int32_t options = 0;
  if (xffi_global_check_call(fn, args, num_args, 4, result) != XFFI_OK || options_of(&options, fn, args, 2) != XFFI_OK)
    return XFFI_FAIL;
  return xffi_structural_first_mismatch(result, &args[0], &args[1], options);
}

XFFI_BUILTIN_FUNCTION(structural_equal_function, call_equal);
XFFI_BUILTIN_FUNCTION(first_mismatch_function, call_mismatch);
XFFI_BUILTIN_FUNCTION(structural_key_function, call_key);
XFFI_BUILTIN_FUNCTION(structural_key_equal_function, call_key_equal);
XFFI_BUILTIN_FUNCTION(structural_hash_function, call_hash);

static const xffi_builtin_global structural_globals[] = {
    {"ffi.StructuralEqual", &structural_equal_function, "bool(Any,Any,bool,bool)"},
    {"ffi.StructuralHash", &structural_hash_function, "int(Any,bool,bool)"},
    {"ffi.GetFirstStructuralMismatch", &first_mismatch_function,
     "Optional<Tuple<ffi.reflection.AccessPath,ffi.reflection.AccessPath>>(Any,Any,bool,bool)"},
    {"ffi.StructuralKey", &structural_key_function, "ffi.StructuralKey(Any)"},
    {"ffi.StructuralKeyEqual", &structural_key_equal_function, "bool(Any,Any)"},
};

const xffi_builtin_table xffi_globals_structural = {structural_globals,
                                                    sizeof(structural_globals) / sizeof(structural_globals[0])};
