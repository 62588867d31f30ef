/* tests/c/compat/test_tvm_env_threads.c: the environment's per-thread state and
 * init-once handles under concurrency (run under ThreadSanitizer with the
 * `threads` label): each thread sees only its own streams and DLPack
 * allocator; racing initialisers run init once and all see its handle;
 * an init that initialises another handle while other threads wait on
 * both does not deadlock; built-in globals are found from many threads. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "test_util.h"

#include <xffi/tvm_ffi.h>

enum { THREADS = 8, ROUNDS = 20000 };

/* ---- Streams and allocators are per thread ---- */

static int stream_values[THREADS][4];
static atomic_int threads_failed;

static int dummy_allocator(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                           void (*set_error)(void *, const char *, const char *)) {
  (void)prototype, (void)out, (void)error_ctx, (void)set_error;
  return -1;
}

static void *stream_thread(void *arg) {
  intptr_t me = (intptr_t)arg;
  int bad = 0;
  /* A fresh thread starts with nothing set, whatever the others do. */
  if (TVMFFIEnvGetStream(kDLCUDA, 0) != NULL) bad = 1;
  if (me % 2 == 0) TVMFFIEnvSetDLPackManagedTensorAllocator(dummy_allocator, 0, NULL);
  for (int round = 0; round < ROUNDS && !bad; ++round) {
    for (int id = 0; id < 4; ++id) {
      void *prev = NULL;
      if (TVMFFIEnvSetStream(kDLCUDA, id, &stream_values[me][id], &prev) != 0) bad = 1;
      if (round > 0 && prev != &stream_values[me][id]) bad = 1;
    }
    for (int id = 0; id < 4; ++id)
      if (TVMFFIEnvGetStream(kDLCUDA, id) != &stream_values[me][id]) bad = 1;
    DLPackManagedTensorAllocator mine = TVMFFIEnvGetDLPackManagedTensorAllocator();
    if ((me % 2 == 0) != (mine == dummy_allocator)) bad = 1;
  }
  if (bad) atomic_fetch_add(&threads_failed, 1);
  return NULL;
}

static void test_streams_and_allocators_are_per_thread(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  atomic_store(&threads_failed, 0);
  for (intptr_t i = 0; i < THREADS; ++i)
    assert_int_equal(pthread_create(&threads[i], NULL, stream_thread, (void *)i), 0);
  for (int i = 0; i < THREADS; ++i) assert_int_equal(pthread_join(threads[i], NULL), 0);
  assert_int_equal(atomic_load(&threads_failed), 0);
  assert_null(TVMFFIEnvGetStream(kDLCUDA, 0)); /* the main thread's own, untouched */
  assert_null(TVMFFIEnvGetDLPackManagedTensorAllocator());
}

/* ---- Init-once ---- */

static atomic_int init_runs;
static int the_value, inner_value;
static void *outer_handle, *inner_handle;
static atomic_int start_line;

static void wait_for_start(void) {
  while (!atomic_load(&start_line)) sched_yield();
}

static int init_inner(void **result) {
  atomic_fetch_add(&init_runs, 1);
  *result = &inner_value;
  return 0;
}

/* Initialises inner_handle inside outer_handle's init, while other threads
 * race for both. */
static int init_outer(void **result) {
  atomic_fetch_add(&init_runs, 1);
  for (int i = 0; i < 100; ++i) sched_yield(); /* let the others pile up waiting */
  if (TVMFFIHandleInitOnce(&inner_handle, init_inner) != 0) return -1;
  *result = &the_value;
  return 0;
}

static void *init_thread(void *arg) {
  intptr_t me = (intptr_t)arg;
  wait_for_start();
  int bad = 0;
  /* Half go for the outer handle first, half for the inner one. */
  if (me % 2) {
    if (TVMFFIHandleInitOnce(&inner_handle, init_inner) != 0) bad = 1;
    if (TVMFFIHandleInitOnce(&outer_handle, init_outer) != 0) bad = 1;
  } else {
    if (TVMFFIHandleInitOnce(&outer_handle, init_outer) != 0) bad = 1;
  }
  void *outer = outer_handle, *inner = inner_handle; /* published: plain reads after a successful init */
  if (outer != &the_value || inner != &inner_value) bad = 1;
  if (bad) atomic_fetch_add(&threads_failed, 1);
  return NULL;
}

static void test_racing_init_runs_each_once_and_nesting_does_not_deadlock(void **state) {
  (void)state;
  for (int trial = 0; trial < 20; ++trial) {
    pthread_t threads[THREADS];
    atomic_store(&threads_failed, 0);
    atomic_store(&init_runs, 0);
    atomic_store(&start_line, 0);
    outer_handle = inner_handle = NULL;
    for (intptr_t i = 0; i < THREADS; ++i)
      assert_int_equal(pthread_create(&threads[i], NULL, init_thread, (void *)i), 0);
    atomic_store(&start_line, 1);
    for (int i = 0; i < THREADS; ++i) assert_int_equal(pthread_join(threads[i], NULL), 0);
    assert_int_equal(atomic_load(&threads_failed), 0);
    assert_int_equal(atomic_load(&init_runs), 2); /* outer once, inner once */
  }
}

/* ---- Built-in globals from many threads ---- */

static void *builtin_thread(void *arg) {
  (void)arg;
  int bad = 0;
  xffi_byte_array name = {"ffi.FunctionListGlobalNamesFunctor", 34};
  for (int i = 0; i < ROUNDS && !bad; ++i) {
    void *f = NULL;
    if (TVMFFIFunctionGetGlobal(&name, &f) != 0 || !f) bad = 1;
    xffi_object_dec_ref(f);
  }
  if (bad) atomic_fetch_add(&threads_failed, 1);
  return NULL;
}

static void test_builtins_from_many_threads(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  atomic_store(&threads_failed, 0);
  for (intptr_t i = 0; i < THREADS; ++i)
    assert_int_equal(pthread_create(&threads[i], NULL, builtin_thread, (void *)i), 0);
  for (int i = 0; i < THREADS; ++i) assert_int_equal(pthread_join(threads[i], NULL), 0);
  assert_int_equal(atomic_load(&threads_failed), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_streams_and_allocators_are_per_thread),
      cmocka_unit_test(test_racing_init_runs_each_once_and_nesting_does_not_deadlock),
      cmocka_unit_test(test_builtins_from_many_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
