/* c/compat/globals/globals_registry.c: the global function registry's own ffi.* global
 * functions (c/compat/globals/builtin_globals.h), with tvm-ffi's names and conventions:
 *   ffi.FunctionListGlobalNamesFunctor() -> a functor f over a snapshot of
 *     the names: f(-1) (any negative) is their count, f(i) the i-th name;
 *   ffi.FunctionRemoveGlobal(name) -> whether a function had that name;
 *   ffi.GetGlobalFuncMetadata(name) -> its metadata (JSON text, "" if none);
 *   ffi.FunctionFromExternC(self, safe_call, deleter) -> a Function, as
 *     TVMFFIFunctionCreate makes from these three pointers. */
#include <string.h>

#include <xffi/function.h>
#include <xffi/string.h>

#include "compat/globals/builtin_globals.h"
#include "runtime/func_registry.h"

/* ---- ffi.FunctionListGlobalNamesFunctor ---- */

/* The functor's resource: the names when it was made (new references). */
typedef struct name_snapshot {
  int64_t count;
  xffi_object *names[];
} name_snapshot;

static void name_snapshot_free(void *resource) {
  name_snapshot *snapshot = resource;
  for (int64_t i = 0; i < snapshot->count; ++i) xffi_object_dec_ref(snapshot->names[i]);
  xffi_free(snapshot);
}

static int name_at(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  static const char fn[] = "ffi.FunctionListGlobalNamesFunctor(...)";
  const name_snapshot *snapshot = resource;
  if (xffi_arg_check_signature(args, num_args, "i", fn) != XFFI_OK) return XFFI_FAIL;
  int64_t i = args[0].v_int64;
  if (i < 0) {
    *result = xffi_any_int(snapshot->count);
    return XFFI_OK;
  }
  if (i >= snapshot->count)
    return xffi_error_raise(XFFI_KIND_INDEX, "%s: index %lld out of bounds %lld", fn, (long long)i,
                            (long long)snapshot->count);
  *result = xffi_any_object_new_ref(snapshot->names[i]);
  return XFFI_OK;
}

static int list_global_names(void *self, const xffi_any *args, int32_t num_args, xffi_any *result) {
  static const char fn[] = "ffi.FunctionListGlobalNamesFunctor";
  (void)self;
  if (xffi_arg_check_signature(args, num_args, "", fn) != XFFI_OK) return XFFI_FAIL;
  /* Names registered between sizing and filling are left for the next snapshot. */
  int64_t total = 0;
  if (xffi_function_global_names(NULL, &total, 0) != XFFI_OK) return XFFI_FAIL;
  total += 8;
  name_snapshot *snapshot = xffi_alloc(sizeof(name_snapshot) + (size_t)total * sizeof(xffi_object *));
  if (!snapshot) return xffi_error_raise_out_of_memory();
  int64_t count = 0;
  if (xffi_function_global_names(snapshot->names, &count, total) != XFFI_OK) {
    xffi_free(snapshot);
    return XFFI_FAIL;
  }
  snapshot->count = count < total ? count : total;
  xffi_object *functor = NULL;
  if (xffi_function_new(&functor, name_at, snapshot, name_snapshot_free) != XFFI_OK) {
    name_snapshot_free(snapshot);
    return XFFI_FAIL;
  }
  *result = xffi_any_object(functor);
  return XFFI_OK;
}

/* ---- ffi.FunctionRemoveGlobal ---- */

static int remove_global(void *self, const xffi_any *args, int32_t num_args, xffi_any *result) {
  static const char fn[] = "ffi.FunctionRemoveGlobal";
  (void)self;
  xffi_byte_array name;
  if (xffi_arg_check_signature(args, num_args, "s", fn) != XFFI_OK ||
      xffi_arg_to_str(&name, args, num_args, 0, fn) != XFFI_OK)
    return XFFI_FAIL;
  int removed = 0;
  if (xffi_registry_remove(name, &removed) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_bool(removed);
  return XFFI_OK;
}

/* ---- ffi.GetGlobalFuncMetadata ---- */

static int global_metadata(void *self, const xffi_any *args, int32_t num_args, xffi_any *result) {
  static const char fn[] = "ffi.GetGlobalFuncMetadata";
  (void)self;
  xffi_byte_array name;
  if (xffi_arg_check_signature(args, num_args, "s", fn) != XFFI_OK ||
      xffi_arg_to_str(&name, args, num_args, 0, fn) != XFFI_OK)
    return XFFI_FAIL;
  int found = 0;
  if (xffi_function_global_info(NULL, result, &found, name) != XFFI_OK) return XFFI_FAIL;
  if (!found)
    return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: global function is not found: %.*s", fn, (int)name.size, name.data);
  return XFFI_OK;
}

/* ---- ffi.FunctionFromExternC ---- */

static int function_from_extern_c(void *self, const xffi_any *args, int32_t num_args, xffi_any *result) {
  static const char fn[] = "ffi.FunctionFromExternC";
  (void)self;
  void *resource = NULL, *call = NULL, *deleter = NULL;
  if (xffi_arg_check_signature(args, num_args, "ppp", fn) != XFFI_OK ||
      xffi_arg_to_ptr(&resource, args, num_args, 0, fn) != XFFI_OK ||
      xffi_arg_to_ptr(&call, args, num_args, 1, fn) != XFFI_OK ||
      xffi_arg_to_ptr(&deleter, args, num_args, 2, fn) != XFFI_OK)
    return XFFI_FAIL;
  if (!call) return xffi_error_raise(XFFI_KIND_VALUE, "%s: argument 1 (safe_call) is NULL", fn);
  /* The pointers arrive as data pointers (void*), as in tvm-ffi; POSIX and
   * Windows guarantee the round trip to function pointers. */
  xffi_safe_call safe_call;
  void (*release)(void *);
  memcpy(&safe_call, &call, sizeof safe_call);
  memcpy(&release, &deleter, sizeof release);
  if (!deleter) release = NULL;
  xffi_object *f = NULL;
  if (xffi_function_from_extern_c(&f, resource, safe_call, release) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(f);
  return XFFI_OK;
}

/* ---- The table ---- */

XFFI_BUILTIN_FUNCTION(list_global_names_function, list_global_names);
XFFI_BUILTIN_FUNCTION(remove_global_function, remove_global);
XFFI_BUILTIN_FUNCTION(global_metadata_function, global_metadata);
XFFI_BUILTIN_FUNCTION(function_from_extern_c_function, function_from_extern_c);

static const xffi_builtin_global registry_globals[] = {
    {"ffi.FunctionListGlobalNamesFunctor", &list_global_names_function, "ffi.Function()"},
    {"ffi.FunctionRemoveGlobal", &remove_global_function, "bool(ffi.String)"},
    {"ffi.GetGlobalFuncMetadata", &global_metadata_function, "ffi.String(ffi.String)"},
    {"ffi.FunctionFromExternC", &function_from_extern_c_function, "ffi.Function(void*,void*,void*)"},
};

const xffi_builtin_table xffi_globals_registry = {registry_globals,
                                                  sizeof(registry_globals) / sizeof(registry_globals[0])};
