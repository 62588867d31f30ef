/* libxffi works when it is loaded with dlopen into a process whose static
 * TLS surplus is used up, as when it is the dependency of a Python
 * extension or a plugin loaded late. Thread-local storage of the
 * initial-exec model makes a library need room in the static TLS block, and
 * dlopen then fails with "cannot allocate memory in static TLS block".
 *
 * The test first loads filler libraries (tls_filler.c) of 64 KiB down to 8
 * bytes of initial-exec TLS each, largest first, keeping those that fit:
 * after each size k the free surplus is below k (it was below 2k), so after
 * the last one fewer than 8 bytes are left, less than any thread-local
 * variable of libxffi. Then it loads libxffi and calls, on the main thread
 * and on a new one, functions that touch every thread-local variable of the
 * library: the raised-error slot (c/error.c) and the registry's reader
 * record (c/func_registry.c). (Allocation keeps no thread-local state.) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>

#include "test_util.h"

static const char *const fillers[] = {XFFI_TLS_FILLER_LIBS};
enum { FILLER_COUNT = sizeof fillers / sizeof fillers[0] };

/* The library's functions this test calls, found with dlsym. */
typedef struct xffi_api {
  int (*error_raise)(const char *kind, const char *format, ...);
  xffi_object *(*error_move_raised)(void);
  xffi_object *(*error_peek_raised)(void);
  void (*object_dec_ref)(xffi_object *obj);
  int (*string_new)(xffi_object **out, const char *data, size_t size);
  int (*func_global_get)(xffi_object **out, const char *name);
} xffi_api;

static void *find(void *library, const char *name) {
  void *symbol = dlsym(library, name);
  if (!symbol) fail_msg("dlsym %s: %s", name, dlerror());
  return symbol;
}

/* Uses every thread-local variable of libxffi on the calling thread and
 * checks what each one holds; returns 0 or the number of the failed check. */
static int touch_every_thread_local(const xffi_api *api) {
  /* The raised slot: raise, peek, move out. */
  if (api->error_raise("ValueError", "raised from %s", "test_tls_dlopen") != XFFI_FAIL) return 1;
  xffi_object *err = api->error_peek_raised();
  if (!err) return 2;
  if (api->error_move_raised() != err || api->error_peek_raised()) return 3;
  api->object_dec_ref(err);
  /* The registry's reader record: a lookup (of a name nobody registered). */
  xffi_object *found = (xffi_object *)&found;
  if (api->func_global_get(&found, "test.tls_dlopen.missing") != XFFI_OK || found) return 4;
  /* An allocation and its release. */
  xffi_object *text = NULL;
  if (api->string_new(&text, "a string long enough to need the heap", 37) != XFFI_OK || !text) return 5;
  api->object_dec_ref(text);
  return 0;
}

static void *touch_on_new_thread(void *api) { return (void *)(intptr_t)touch_every_thread_local(api); }

static void test_dlopen_works_with_the_static_tls_surplus_used_up(void **state) {
  (void)state;
  int loaded = 0;
  for (int i = 0; i < FILLER_COUNT; ++i) {
    void *filler = dlopen(fillers[i], RTLD_NOW | RTLD_LOCAL);
    if (filler) {
      long (*touch)(void);
      *(void **)&touch = find(filler, "xffi_tls_filler_touch");
      assert_true(touch() > 0);
      ++loaded;
    } else if (i == 0) {
      print_message("the largest filler did not fit, as expected: %s\n", dlerror());
    } else {
      (void)dlerror();
    }
  }
  /* The largest did not fit, or the surplus was not used up (see above). */
  assert_true(loaded < FILLER_COUNT);
  assert_true(loaded > 0);
  print_message("%d of %d filler libraries fit in the static TLS surplus\n", loaded, FILLER_COUNT);

  void *library = dlopen(XFFI_TEST_SHARED_LIB, RTLD_NOW | RTLD_LOCAL);
  if (!library) fail_msg("dlopen libxffi with the static TLS surplus used up: %s", dlerror());
  xffi_api api;
  *(void **)&api.error_raise = find(library, "xffi_error_raise");
  *(void **)&api.error_move_raised = find(library, "xffi_error_move_raised");
  *(void **)&api.error_peek_raised = find(library, "xffi_error_peek_raised");
  *(void **)&api.object_dec_ref = find(library, "xffi_object_dec_ref");
  *(void **)&api.string_new = find(library, "xffi_string_new");
  *(void **)&api.func_global_get = find(library, "xffi_function_global_lookup");

  assert_int_equal(touch_every_thread_local(&api), 0);
  pthread_t thread;
  void *result = NULL;
  assert_int_equal(pthread_create(&thread, NULL, touch_on_new_thread, &api), 0);
  assert_int_equal(pthread_join(thread, &result), 0);
  assert_int_equal((intptr_t)result, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dlopen_works_with_the_static_tls_surplus_used_up),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
