/* tests/plugins/plugin_tvm_module.c: a library in tvm-ffi's layout for
 * test_tvm_module: functions (__tvm_ffi_NAME), their docs and metadata
 * (__tvm_ffi__doc_NAME, __tvm_ffi__metadata_NAME), the library context the
 * loader fills (__tvm_ffi__library_ctx), a context symbol the test registers
 * before loading (xffi_test_context_value), and a function that calls
 * another through TVMFFIEnvModLookupFromImports. It links no runtime: the
 * host provides every xffi and TVMFFI symbol. */
#include <xffi/function.h>
#include <xffi/module.h>
#include <xffi/tvm_ffi.h>

XFFI_DLL_EXPORT void *__tvm_ffi__library_ctx = NULL;
XFFI_DLL_EXPORT void *xffi_test_context_value = NULL;

static int add_one(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int64_t x;
  if (xffi_arg_check_signature(args, num_args, "i", "add_one") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int(&x, args, num_args, 0, "add_one") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(x + 1);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(add_one, add_one);

static int doc_add_one(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args;
  return xffi_any_from_str(result, "Adds one to an int.", 19);
}
XFFI_EXPORT_FUNCTION(_doc_add_one, doc_add_one);

static int metadata_add_one(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args;
  return xffi_any_from_str(result, "{\"type_schema\":\"int\"}", 21);
}
XFFI_EXPORT_FUNCTION(_metadata_add_one, metadata_add_one);

/* A metadata getter that returns no String, and a doc getter that fails. */
static int metadata_not_text(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args;
  *result = xffi_any_int(7);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(_metadata_add_one_bad, metadata_not_text);

static int doc_failing(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args, (void)result;
  return xffi_error_raise(XFFI_KIND_VALUE, "doc_failing: no doc today");
}
XFFI_EXPORT_FUNCTION(_doc_add_one_bad, doc_failing);

/* call_imported(name, x): the function name found through the library's
 * imports (then the global registry), called with x. */
static int call_imported(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_byte_array name;
  char buffer[128];
  if (xffi_arg_check_signature(args, num_args, "s*", "call_imported") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_str(&name, args, num_args, 0, "call_imported") != XFFI_OK) return XFFI_FAIL;
  if (name.size >= sizeof buffer) return xffi_error_raise(XFFI_KIND_VALUE, "call_imported: name too long");
  memcpy(buffer, name.data, name.size);
  buffer[name.size] = '\0';
  void *function;
  if (TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, buffer, &function) != 0) return XFFI_FAIL;
  return xffi_function_call(function, &args[1], 1, result); /* function borrowed from the module's cache */
}
XFFI_EXPORT_FUNCTION(call_imported, call_imported);

/* lookup_address(name): the borrowed handle the lookup gives, as an opaque
 * pointer (the same one each time: the module caches it). */
static int lookup_address(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  const char *name = args && num_args == 1 && args[0].type_index == XFFI_TYPE_RAW_STR ? args[0].v_c_str : NULL;
  if (!name) return xffi_error_raise(XFFI_KIND_TYPE, "lookup_address: expected one raw C string");
  void *function;
  if (TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, name, &function) != 0) return XFFI_FAIL;
  *result = xffi_any_ptr(function);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(lookup_address, lookup_address);

static int library_ctx(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args;
  *result = xffi_any_ptr(__tvm_ffi__library_ctx);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(library_ctx, library_ctx);

static int context_value(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args;
  *result = xffi_any_ptr(xffi_test_context_value);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(context_value, context_value);
