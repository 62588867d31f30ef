/* tests/plugins/plugin_registers.c: a plugin that uses the xffi runtime of
 * the process it is loaded into. Linked against the shared libxffi (so there
 * is one registry), and with -z nodelete (it registers a global function
 * whose code lives here, so it must never be unloaded). Where there is no
 * such link flag it pins itself at load instead: on Windows, and where the
 * linker has no -z nodelete (Apple's ld64; built with
 * XFFI_TEST_PLUGIN_PIN_SELF).
 *
 * At load it registers the type "test.plugin.Thing" and the global function
 * "test.plugin.thing_type_index"; it exports add_one, fail and
 * thing_type_index as __tvm_ffi_* symbols. */
#ifdef XFFI_TEST_PLUGIN_PIN_SELF
#  define _GNU_SOURCE /* dladdr, RTLD_NODELETE */
#endif
#include <xffi/error.h>
#include <xffi/function.h>
#include <xffi/module.h>
#include <xffi/type.h>

#if defined(_WIN32)
#  define WIN32_LEAN_AND_MEAN
#  include <windows.h>
#elif defined(XFFI_TEST_PLUGIN_PIN_SELF)
#  include <dlfcn.h>

/* Marks this already loaded library RTLD_NODELETE: no dlclose unloads it
 * (RTLD_NOLOAD | RTLD_NODELETE, documented by glibc and macOS alike). The
 * reference this dlopen takes is never dropped, on purpose. */
static const char pin_anchor; /* some address inside this library */

static void pin_self(void) {
  Dl_info self;
  if (dladdr(&pin_anchor, &self) && self.dli_fname)
    (void)dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}
#endif

static int32_t thing_type_index = -1;

XFFI_DEFINE_ABI_MARKER(); /* once per library: xffi_module_load checks it */

static int get_thing_type_index(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_arg_check_signature(args, num_args, "", "thing_type_index") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(thing_type_index);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(thing_type_index, get_thing_type_index);

static int add_one(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int64_t x;
  if (xffi_arg_check_signature(args, num_args, "i", "add_one") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int_inline(&x, args, num_args, 0, "add_one") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(x + 1);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(add_one, add_one);

static int fail(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args, (void)result;
  return xffi_error_raise(XFFI_KIND_VALUE, "plugin fail: raised inside the plugin");
}
XFFI_EXPORT_FUNCTION(fail, fail);

static int global_impl(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  return get_thing_type_index(resource, args, num_args, result);
}

/* A constructor is fine in a plugin (the no-constructor rule is libxffi's). */
__attribute__((constructor)) static void plugin_load(void) {
#if defined(_WIN32)
  /* Windows' -z nodelete: FreeLibrary never unloads a pinned DLL. */
  HMODULE self;
  GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                     (LPCWSTR)(const void *)&thing_type_index, &self);
#elif defined(XFFI_TEST_PLUGIN_PIN_SELF)
  pin_self();
#endif
  xffi_object *f = NULL;
  if (xffi_type_register(&thing_type_index, "test.plugin.Thing", XFFI_TYPE_OBJECT) != XFFI_OK ||
      xffi_function_new(&f, global_impl, NULL, NULL) != XFFI_OK ||
      xffi_function_global_register("test.plugin.thing_type_index", f, 1) != XFFI_OK) {
    /* Nowhere to report from a constructor: leave the error raised on the
     * loading thread, where the host can find it. */
  }
  xffi_object_dec_ref(f);
}
