/* tests/c/module/test_module.c: loading shared libraries as Modules, and one runtime
 * per process. This host links the shared libxffi (tests/cmake/module.cmake);
 * the plugins are built there too and their paths come in as macros. */
#if defined(_WIN32)
#  define WIN32_LEAN_AND_MEAN
#  include <windows.h>
#  include <process.h>
#elif !defined(__wasi__)
#  define _GNU_SOURCE
#  include <dlfcn.h>
#  include <unistd.h>
#endif
#include <stdlib.h>

#include "test_util.h"

#include <xffi/function.h>
#include <xffi/module.h>
#include "failing_allocator.h"

#if XFFI_TEST_HAVE_SHARED_LIBRARIES

/* What the system says about a missing file and about a file that is not a
 * shared library (the end of xffi_module_load's message). */
#  if defined(_WIN32)
#    define MISSING_FILE_MESSAGE "error 126: "  /* ERROR_MOD_NOT_FOUND */
#    define NOT_A_LIBRARY_MESSAGE "error 193: " /* ERROR_BAD_EXE_FORMAT */
#  else
#    define MISSING_FILE_MESSAGE "No such file or directory"
#    define NOT_A_LIBRARY_MESSAGE "invalid ELF header"
#  endif

/* Whether the library at path is loaded in this process now. */
static int is_loaded(const char *path) {
#  if defined(_WIN32)
  char native[1024];
  size_t len = strlen(path);
  assert_true(len < sizeof native);
  for (size_t i = 0; i <= len; ++i) native[i] = path[i] == '/' ? '\\' : path[i];
  HMODULE h;
  return GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT, native, &h) != 0;
#  else
  void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (!h) return 0;
  dlclose(h);
  return 1;
#  endif
}

/* Writes a file that is not a shared library; its path goes to path. */
static void write_junk_library(char *path, size_t size) {
  const char junk[] = "this is not a shared library, just text long enough to be read as a header....";
#  if defined(_WIN32)
  snprintf(path, size, "xffi_broken_%d.dll", _getpid());
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(junk, 1, sizeof junk, f), sizeof junk);
  fclose(f);
#  else
  snprintf(path, size, "/tmp/xffi_broken_XXXXXX.so");
  int fd = mkstemps(path, 3);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
  close(fd);
#  endif
}

static int64_t call_int(xffi_object *f, int64_t arg) {
  xffi_any a = xffi_any_int(arg), result;
  assert_int_equal(xffi_function_call(f, &a, 1, &result), XFFI_OK);
  assert_int_equal(result.type_index, XFFI_TYPE_INT);
  return result.v_int64;
}

static void test_plugin_registers_at_load_and_the_host_sees_one_runtime(void **state) {
  (void)state;
  xffi_object *m = NULL, *global = NULL, *exported = NULL;
  assert_int_equal(xffi_module_load(&m, XFFI_TEST_PLUGIN_REGISTERS), XFFI_OK);
  assert_nothing_raised(); /* the plugin's constructor succeeded */
  /* The global function the plugin registered is found by the host. */
  assert_int_equal(xffi_function_global_lookup(&global, "test.plugin.thing_type_index"), XFFI_OK);
  assert_non_null(global);
  xffi_any result;
  assert_int_equal(xffi_function_call(global, NULL, 0, &result), XFFI_OK);
  int64_t index_in_plugin = result.v_int64;
  /* The type the plugin registered has the same index in the host. */
  const xffi_type_info *info = NULL;
  assert_int_equal(xffi_type_info_get_by_key(&info, "test.plugin.Thing"), XFFI_OK);
  assert_true(index_in_plugin >= XFFI_TYPE_DYNAMIC_BEGIN);
  assert_int_equal(info->type_index, index_in_plugin);
  /* And through the exported symbol. */
  assert_int_equal(xffi_module_lookup_function(&exported, m, "thing_type_index"), XFFI_OK);
  assert_non_null(exported);
  assert_int_equal(xffi_function_call(exported, NULL, 0, &result), XFFI_OK);
  assert_int_equal(result.v_int64, index_in_plugin);
  int32_t abi = -1;
  assert_int_equal(xffi_module_abi_version(&abi, m), XFFI_OK);
  assert_int_equal(abi, XFFI_ABI_VERSION);
  const char *path = NULL;
  assert_int_equal(xffi_module_path(&path, m), XFFI_OK);
  assert_string_equal(path, XFFI_TEST_PLUGIN_REGISTERS);
  xffi_object_dec_ref(exported);
  xffi_object_dec_ref(m);
  /* -z nodelete: still loaded, the global still works. */
  assert_true(is_loaded(XFFI_TEST_PLUGIN_REGISTERS));
  assert_int_equal(xffi_function_call(global, NULL, 0, &result), XFFI_OK);
  assert_int_equal(result.v_int64, index_in_plugin);
  xffi_object_dec_ref(global);
}

static void test_exported_functions_are_called_and_their_errors_cross(void **state) {
  (void)state;
  xffi_object *m = NULL, *add_one = NULL, *fail = NULL, *missing = (xffi_object *)1;
  assert_int_equal(xffi_module_load(&m, XFFI_TEST_PLUGIN_REGISTERS), XFFI_OK);
  assert_int_equal(xffi_module_lookup_function(&add_one, m, "add_one"), XFFI_OK);
  assert_int_equal(xffi_module_lookup_function(&fail, m, "fail"), XFFI_OK);
  assert_int_equal(xffi_module_lookup_function(&missing, m, "no_such_function"), XFFI_OK);
  assert_null(missing);
  assert_nothing_raised();
  assert_int_equal(call_int(add_one, 41), 42);
  xffi_any bad = xffi_any_c_str("forty-one"), result;
  assert_int_equal(xffi_function_call(add_one, &bad, 1, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "add_one: argument 0: expected int, got str");
  assert_int_equal(xffi_function_call(add_one, NULL, 0, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "add_one: expected 1 argument, got 0");
  assert_int_equal(xffi_function_call(fail, NULL, 0, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "plugin fail: raised inside the plugin");
  xffi_object_dec_ref(add_one);
  xffi_object_dec_ref(fail);
  xffi_object_dec_ref(m);
}

static void test_functions_keep_the_library_loaded_until_the_last_goes(void **state) {
  (void)state;
  assert_false(is_loaded(XFFI_TEST_PLUGIN_PLAIN));
  xffi_object *m = NULL, *twice = NULL;
  assert_int_equal(xffi_module_load(&m, XFFI_TEST_PLUGIN_PLAIN), XFFI_OK);
  assert_true(is_loaded(XFFI_TEST_PLUGIN_PLAIN));
  assert_int_equal(xffi_module_lookup_function(&twice, m, "twice"), XFFI_OK);
  assert_non_null(twice);
  xffi_object_dec_ref(m); /* the function holds the module */
  assert_true(is_loaded(XFFI_TEST_PLUGIN_PLAIN));
  assert_int_equal(call_int(twice, 21), 42);
  xffi_object_dec_ref(twice);
  assert_false(is_loaded(XFFI_TEST_PLUGIN_PLAIN));
}

static void test_loading_twice_shares_the_library(void **state) {
  (void)state;
  xffi_object *a = NULL, *b = NULL, *fa = NULL, *fb = NULL;
  assert_int_equal(xffi_module_load(&a, XFFI_TEST_PLUGIN_PLAIN), XFFI_OK);
  assert_int_equal(xffi_module_load(&b, XFFI_TEST_PLUGIN_PLAIN), XFFI_OK);
  assert_ptr_not_equal(a, b);
  assert_int_equal(xffi_module_lookup_function(&fa, a, "twice"), XFFI_OK);
  assert_int_equal(xffi_module_lookup_function(&fb, b, "twice"), XFFI_OK);
  xffi_object_dec_ref(a);
  xffi_object_dec_ref(fa);
  assert_true(is_loaded(XFFI_TEST_PLUGIN_PLAIN));
  assert_int_equal(call_int(fb, 5), 10);
  xffi_object_dec_ref(b);
  xffi_object_dec_ref(fb);
  assert_false(is_loaded(XFFI_TEST_PLUGIN_PLAIN));
}

static void test_mismatched_abi_version_is_a_clear_error(void **state) {
  (void)state;
  xffi_object *m = (xffi_object *)1;
  assert_int_equal(xffi_module_load(&m, XFFI_TEST_PLUGIN_BAD_ABI), XFFI_FAIL);
  assert_null(m);
  char expected[512];
  snprintf(expected, sizeof expected,
           "xffi_module_load: '%s' was built for xffi ABI version %d, but this runtime has ABI version %d",
           XFFI_TEST_PLUGIN_BAD_ABI, XFFI_ABI_VERSION + 100, XFFI_ABI_VERSION);
  assert_raised(XFFI_KIND_RUNTIME, expected);
  assert_false(is_loaded(XFFI_TEST_PLUGIN_BAD_ABI));
}

/* The marker is what a library writes with XFFI_DEFINE_ABI_MARKER(), not a
 * side effect of including the headers (which once defined it in every file,
 * host programs included). */
static void test_marker_comes_from_the_macro_only(void **state) {
  (void)state;
  xffi_object *plain = NULL, *unmarked = NULL, *seven = NULL;
  int32_t abi = -1;
  assert_int_equal(xffi_module_load(&plain, XFFI_TEST_PLUGIN_PLAIN), XFFI_OK);
  assert_int_equal(xffi_module_abi_version(&abi, plain), XFFI_OK);
  assert_int_equal(abi, XFFI_ABI_VERSION);
  assert_int_equal(xffi_module_load(&unmarked, XFFI_TEST_PLUGIN_UNMARKED), XFFI_OK);
  abi = -1;
  assert_int_equal(xffi_module_abi_version(&abi, unmarked), XFFI_OK);
  assert_int_equal(abi, 0);
  assert_int_equal(xffi_module_lookup_function(&seven, unmarked, "seven"), XFFI_OK);
  assert_non_null(seven);
  xffi_any result;
  assert_int_equal(xffi_function_call(seven, NULL, 0, &result), XFFI_OK);
  assert_int_equal(result.v_int64, 7);
  xffi_object_dec_ref(seven);
  xffi_object_dec_ref(unmarked);
  xffi_object_dec_ref(plain);
}

static void test_library_without_marker_is_accepted(void **state) {
  (void)state;
  xffi_object *m = NULL, *answer = NULL;
  assert_int_equal(xffi_module_load(&m, XFFI_TEST_PLUGIN_TVM_ONLY), XFFI_OK);
  int32_t abi = -1;
  assert_int_equal(xffi_module_abi_version(&abi, m), XFFI_OK);
  assert_int_equal(abi, 0);
  assert_int_equal(xffi_module_lookup_function(&answer, m, "answer"), XFFI_OK);
  xffi_any result;
  assert_int_equal(xffi_function_call(answer, NULL, 0, &result), XFFI_OK);
  assert_int_equal(result.v_int64, 42); /* called with a NULL handle */
  xffi_object_dec_ref(answer);
  xffi_object_dec_ref(m);
}

static void test_missing_and_broken_files_carry_the_system_message(void **state) {
  (void)state;
  xffi_object *m = (xffi_object *)1;
  assert_int_equal(xffi_module_load(&m, "/nonexistent/libxffi_nope.so"), XFFI_FAIL);
  assert_null(m);
  assert_raised(XFFI_KIND_RUNTIME, "xffi_module_load: cannot load '/nonexistent/libxffi_nope.so': ");
  assert_int_equal(xffi_module_load(&m, "/nonexistent/libxffi_nope.so"), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, MISSING_FILE_MESSAGE);
#  if defined(_WIN32)
  /* Paths are UTF-8; Windows gets them as UTF-16, so bad UTF-8 is named. */
  assert_int_equal(xffi_module_load(&m, "plugin_\xff\xfe.dll"), XFFI_FAIL);
  assert_null(m);
  expect_error(XFFI_KIND_RUNTIME, "xffi_module_load: cannot load 'plugin_\xff\xfe.dll': the path is not valid UTF-8");
#  endif

  char path[64];
  write_junk_library(path, sizeof path);
  assert_int_equal(xffi_module_load(&m, path), XFFI_FAIL);
  char expected[256];
  snprintf(expected, sizeof expected, "xffi_module_load: cannot load '%s': ", path);
  xffi_object *err = xffi_error_move_raised();
  assert_non_null(err);
  const char *message = xffi_error_cell_of_unchecked(err)->message.data;
  assert_non_null(strstr(message, expected));
  assert_non_null(strstr(message, NOT_A_LIBRARY_MESSAGE));
  xffi_object_dec_ref(err);
  remove(path);
}

static void test_bad_input_is_reported(void **state) {
  (void)state;
  xffi_object *m = NULL, *s = NULL, *f = NULL;
  assert_int_equal(xffi_module_load(NULL, XFFI_TEST_PLUGIN_PLAIN), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_load: out is NULL");
  assert_int_equal(xffi_module_load(&m, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_load: path is NULL");
  assert_int_equal(xffi_module_load(&m, ""), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_load: path is empty");

  assert_int_equal(xffi_module_load(&m, XFFI_TEST_PLUGIN_PLAIN), XFFI_OK);
  assert_int_equal(xffi_string_from_c_str(&s, "not a module"), XFFI_OK);
  assert_int_equal(xffi_module_lookup_function(NULL, m, "twice"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_lookup_function: out is NULL");
  assert_int_equal(xffi_module_lookup_function(&f, NULL, "twice"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_lookup_function: module is NULL");
  assert_int_equal(xffi_module_lookup_function(&f, s, "twice"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_module_lookup_function: module expected ffi.Module, got ffi.String");
  assert_int_equal(xffi_module_lookup_function(&f, m, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_lookup_function: name is NULL");
  assert_int_equal(xffi_module_lookup_function(&f, m, ""), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_lookup_function: name is empty");
  const char *path;
  int32_t abi;
  assert_int_equal(xffi_module_path(NULL, m), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_path: out is NULL");
  assert_int_equal(xffi_module_path(&path, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_module_path: module expected ffi.Module, got ffi.String");
  assert_int_equal(xffi_module_abi_version(NULL, m), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_abi_version: out is NULL");
  assert_int_equal(xffi_module_abi_version(&abi, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_abi_version: module is NULL");
  /* A long name takes the allocating path and is simply missing. */
  char long_name[600];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  assert_int_equal(xffi_module_lookup_function(&f, m, long_name), XFFI_OK);
  assert_null(f);
  xffi_object_dec_ref(s);
  xffi_object_dec_ref(m);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plugin_registers_at_load_and_the_host_sees_one_runtime),
      cmocka_unit_test(test_exported_functions_are_called_and_their_errors_cross),
      cmocka_unit_test(test_functions_keep_the_library_loaded_until_the_last_goes),
      cmocka_unit_test(test_loading_twice_shares_the_library),
      cmocka_unit_test(test_mismatched_abi_version_is_a_clear_error),
      cmocka_unit_test(test_library_without_marker_is_accepted),
      cmocka_unit_test(test_marker_comes_from_the_macro_only),
      cmocka_unit_test(test_missing_and_broken_files_carry_the_system_message),
      cmocka_unit_test(test_bad_input_is_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* no shared libraries (wasm32-wasi): loading is compiled out */

static void test_loading_says_it_is_compiled_out_and_leaves_nothing(void **state) {
  (void)state;
  xffi_object *m = (xffi_object *)1;
  uint64_t before = failing_allocator_attempts();
  assert_int_equal(xffi_module_load(&m, "plugin.wasm"), XFFI_FAIL);
  assert_null(m);
  expect_error(XFFI_KIND_RUNTIME,
               "xffi_module_load: cannot load 'plugin.wasm': loading shared libraries is not supported on "
               "WebAssembly (WASI): this build of xffi has module loading compiled out");
  /* The error was all there was (the module is made once the library is open). */
  assert_int_equal(failing_allocator_attempts(), before + 1);
}

static void test_bad_input_is_reported_before_loading(void **state) {
  (void)state;
  xffi_object *m = NULL, *f = NULL;
  assert_int_equal(xffi_module_load(NULL, "plugin.wasm"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_load: out is NULL");
  assert_int_equal(xffi_module_load(&m, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_load: path is NULL");
  assert_int_equal(xffi_module_load(&m, ""), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_load: path is empty");
  assert_int_equal(xffi_module_lookup_function(&f, NULL, "twice"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_module_lookup_function: module is NULL");
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_loading_says_it_is_compiled_out_and_leaves_nothing),
      cmocka_unit_test(test_bad_input_is_reported_before_loading),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
