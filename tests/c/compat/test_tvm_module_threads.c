/* tests/c/compat/test_tvm_module_threads.c: the module side under threads (run
 * under ThreadSanitizer with the "threads" label): imports changing while
 * other threads search them, TVMFFIEnvModLookupFromImports filling one
 * module's cache from many threads (each gets the same borrowed handle),
 * and ffi.SystemLib making one module per prefix however many ask at once.
 * Plugins and linking as test_tvm_module (tests/cmake/tvm_module.cmake). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "test_util.h"
#include "thread_check.h"

#include <xffi/function.h>
#include <xffi/module.h>
#include <xffi/tvm_ffi.h>

#include "compat/globals/builtin_globals.h"

enum { THREADS = 4, ROUNDS = 300 };

static xffi_object *global(const char *name) {
  for (size_t i = 0; i < xffi_globals_module.count; ++i)
    if (strcmp(xffi_globals_module.entries[i].name, name) == 0) return &xffi_globals_module.entries[i].function->header;
  return NULL;
}

static xffi_object *system_modules[THREADS];

static void *ask_system_lib(void *arg) {
  intptr_t i = (intptr_t)arg;
  xffi_any r;
  CHECK(XFFI_CALL(global("ffi.SystemLib"), &r, xffi_any_c_str("threads_")) == XFFI_OK);
  system_modules[i] = r.v_obj;
  return NULL;
}

static void test_system_lib_is_one_module_per_prefix(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  for (intptr_t i = 0; i < THREADS; ++i)
    assert_int_equal(pthread_create(&threads[i], NULL, ask_system_lib, (void *)i), 0);
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  assert_int_equal(atomic_load(&failures), 0);
  for (int i = 0; i < THREADS; ++i) {
    assert_ptr_equal(system_modules[i], system_modules[0]);
    xffi_object_dec_ref(system_modules[i]);
  }
}

#if defined(XFFI_TEST_TVM_MODULE_PLUGINS)
static xffi_object *root, *dep;
static void *handles[THREADS];

/* Searches root's imports and looks "twice" up for its library, again and again. */
static void *searcher(void *arg) {
  intptr_t i = (intptr_t)arg;
  xffi_any r;
  for (int round = 0; round < ROUNDS; ++round) {
    CHECK(XFFI_CALL(global("ffi.ModuleGetFunction"), &r, xffi_any_object(root), xffi_any_c_str("twice"),
                    xffi_any_bool(1)) == XFFI_OK);
    xffi_any_release(&r); /* None or a Function: imports come and go */
    void *handle;
    if (TVMFFIEnvModLookupFromImports(root, "twice", &handle) == 0) {
      if (!handles[i]) handles[i] = handle;
      CHECK(handles[i] == handle);
    } else {
      xffi_object *err = xffi_error_move_raised();
      CHECK(err != NULL);
      xffi_object_dec_ref(err);
    }
  }
  return NULL;
}

/* Imports dep into root and clears root's imports, again and again. */
static void *importer(void *arg) {
  (void)arg;
  xffi_any r;
  for (int round = 0; round < ROUNDS; ++round) {
    CHECK(XFFI_CALL(global("ffi.ModuleImportModule"), &r, xffi_any_object(root), xffi_any_object(dep)) == XFFI_OK);
    if (round % 3 == 2) CHECK(XFFI_CALL(global("ffi.ModuleClearImports"), &r, xffi_any_object(root)) == XFFI_OK);
  }
  return NULL;
}

static void test_imports_change_while_searched(void **state) {
  (void)state;
  assert_int_equal(xffi_module_load(&root, XFFI_TEST_PLUGIN_TVM_MODULE), XFFI_OK);
  assert_int_equal(xffi_module_load(&dep, XFFI_TEST_PLUGIN_TVM_MODULE_DEP), XFFI_OK);
  pthread_t threads[THREADS];
  assert_int_equal(pthread_create(&threads[0], NULL, importer, NULL), 0);
  for (intptr_t i = 1; i < THREADS; ++i) assert_int_equal(pthread_create(&threads[i], NULL, searcher, (void *)i), 0);
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  assert_int_equal(atomic_load(&failures), 0);
  /* Once cached, the handle is the same for every thread. */
  void *handle;
  xffi_any r;
  assert_int_equal(XFFI_CALL(global("ffi.ModuleImportModule"), &r, xffi_any_object(root), xffi_any_object(dep)),
                   XFFI_OK);
  assert_int_equal(TVMFFIEnvModLookupFromImports(root, "twice", &handle), 0);
  for (int i = 1; i < THREADS; ++i)
    if (handles[i]) assert_ptr_equal(handles[i], handle);
  xffi_object_dec_ref(root);
  xffi_object_dec_ref(dep);
}
#  define PLUGIN_TESTS cmocka_unit_test(test_imports_change_while_searched),
#else
#  define PLUGIN_TESTS
#endif

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_system_lib_is_one_module_per_prefix), PLUGIN_TESTS};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
