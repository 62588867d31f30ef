/* tests/plugins/plugin_tvm_module_dep.c: a library test_tvm_module makes an
 * import of others: twice (with doc and metadata) and an add_one of its own
 * (adds 100), which the importing module's add_one must shadow. */
#include <xffi/function.h>
#include <xffi/module.h>

static int twice(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int64_t x;
  if (xffi_arg_to_int(&x, args, num_args, 0, "twice") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(2 * x);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(twice, twice);

static int add_hundred(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int64_t x;
  if (xffi_arg_to_int(&x, args, num_args, 0, "add_one") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(x + 100);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(add_one, add_hundred);

static int doc_twice(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args;
  static const char doc[] = "Doubles an int; a doc long enough to live on the heap.";
  return xffi_any_from_str(result, doc, sizeof doc - 1);
}
XFFI_EXPORT_FUNCTION(_doc_twice, doc_twice);

static int metadata_twice(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args;
  return xffi_any_from_str(result, "{}", 2);
}
XFFI_EXPORT_FUNCTION(_metadata_twice, metadata_twice);
