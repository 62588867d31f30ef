/* tests/plugin_matrix/test_unload_runtime.c: a host that unloads the
 * process's tvm-ffi runtime while an xffi plugin bound to it lives. The host
 * loads the runtime (RUNTIME.so: the drop-in's C part, which nothing else
 * keeps loaded, or the wheel's libtvm_ffi.so) with RTLD_GLOBAL, then the
 * matrix's C plugin, which registers matrix.CKernel there at load, and calls
 * dlclose on the runtime. The binding pinned the runtime when it bound to it, so that
 * dlclose unloads nothing: the runtime stays loaded for the life of the
 * process, and the plugin, the types it registered there and the global
 * functions go on working. (Without the pin the runtime's code would be
 * unmapped under the plugin, and its next registry call would crash.)
 *
 *   test_unload_runtime RUNTIME.so libxffi_matrix_c_plugin.so */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <xffi/xffi.h>

#include "../c/helpers/expect.h"

typedef int (*packed_fn)(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result);
typedef int (*key_to_index_fn)(const xffi_byte_array *key, int32_t *out);

static int subtract(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  if (num_args != 2) return xffi_error_raise(XFFI_KIND_TYPE, "subtract: expected 2 arguments, got %d", num_args);
  *result = xffi_any_int(args[0].v_int64 - args[1].v_int64);
  return XFFI_OK;
}

/* The global function name called with (a, b), as an int; -1 on failure. */
static int64_t call_global(const char *name, int64_t a, int64_t b) {
  xffi_object *function = NULL;
  if (xffi_function_global_lookup(&function, name) != XFFI_OK || !function) return -1;
  xffi_any args[2] = {xffi_any_int(a), xffi_any_int(b)}, result = xffi_any_none();
  int status = xffi_function_call(function, args, 2, &result);
  xffi_object_dec_ref(function);
  return status == XFFI_OK && result.type_index == XFFI_TYPE_INT ? result.v_int64 : -1;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s RUNTIME.so PLUGIN.so\n", argv[0]);
    return 2;
  }
  void *runtime = expect_load(argv[1], RTLD_NOW | RTLD_GLOBAL);
  void *plugin = expect_load(argv[2], RTLD_NOW | RTLD_LOCAL);
  union {
    void *p;
    packed_fn f;
  } register_product = {dlsym(plugin, "__tvm_ffi_register_product")}; /* dlsym's object pointer, read as the function */
  union {
    void *p;
    key_to_index_fn f;
  } key_to_index = {dlsym(runtime, "TVMFFITypeKeyToIndex")};
  EXPECT(register_product.p && key_to_index.p);
  if (failures) return 1;

  /* The host lets the runtime go: the only reference it took. */
  EXPECT(dlclose(runtime) == 0);
  void *still = dlopen(argv[1], RTLD_LAZY | RTLD_NOLOAD);
  EXPECT(still != NULL); /* pinned: still loaded */
  if (!still) return 1;  /* the checks below would call into unmapped code */
  dlclose(still);

  /* The plugin's type, registered in that runtime at load: found there and here, by key. */
  const char key[] = "matrix.CKernel";
  xffi_byte_array key_bytes = {key, sizeof key - 1};
  int32_t there = -1;
  EXPECT(key_to_index.f(&key_bytes, &there) == 0 && there >= 128);
  const xffi_type_info *info = NULL;
  EXPECT(xffi_type_info_get_by_key(&info, key) == XFFI_OK && info && info->type_index == there);

  /* Global functions through that runtime's registry: the plugin's and the host's. */
  xffi_any none = xffi_any_none();
  EXPECT(register_product.f(NULL, NULL, 0, &none) == 0);
  EXPECT(call_global("matrix.c.product", 6, 7) == 42);
  xffi_object *function = NULL;
  EXPECT(xffi_function_new(&function, subtract, NULL, NULL) == XFFI_OK);
  EXPECT(xffi_function_global_register("unload.sub", function, 0) == XFFI_OK);
  xffi_object_dec_ref(function);
  EXPECT(call_global("unload.sub", 50, 8) == 42);

  if (!failures) printf("ok\n");
  return failures != 0;
}
