/* tests/c/runtime/test_func_threads.c: the global registry under concurrency: 8
 * threads look functions up and call them while 2 others register, replace
 * and remove names. Run under ThreadSanitizer (label "threads") and
 * AddressSanitizer: a function freed between a lookup finding it and taking
 * its reference would show up there. */
#include <pthread.h>
#include <stdatomic.h>

#include "test_util.h"
#include "registry_thread_util.h"

#include <xffi/function.h>
#include "failing_allocator.h"

enum { READERS = 8, WRITERS = 2, STABLE = 8, CHURN = 16, READER_ROUNDS = 4000, WRITER_ROUNDS = 1500 };

/* Churn functions return 1000 * slot + anything: the slot is what we check. */
static void *reader_main(void *arg) {
  intptr_t id = (intptr_t)arg;
  char name[64];
  for (int round = 0; round < READER_ROUNDS; ++round) {
    xffi_object *f = NULL;
    snprintf(name, sizeof name, "test.threads.stable.%ld", (long)((id + round) % STABLE));
    CHECK(xffi_function_global_lookup(&f, name) == XFFI_OK);
    CHECK(f != NULL);
    xffi_any result;
    if (f) {
      CHECK(xffi_function_call(f, NULL, 0, &result) == XFFI_OK);
      CHECK(result.v_int64 == (id + round) % STABLE);
      xffi_object_dec_ref(f);
    }
    int slot = round % CHURN;
    snprintf(name, sizeof name, "test.threads.churn.%d", slot);
    CHECK(xffi_function_global_lookup(&f, name) == XFFI_OK);
    if (f) {
      sched_yield(); /* give a writer the chance to remove it meanwhile */
      CHECK(xffi_function_call(f, NULL, 0, &result) == XFFI_OK);
      CHECK(result.v_int64 / 1000 == slot);
      xffi_object_dec_ref(f);
    }
  }
  return NULL;
}

static void *writer_main(void *arg) {
  intptr_t id = (intptr_t)arg;
  char name[64];
  for (int round = 0; round < WRITER_ROUNDS; ++round) {
    int slot = (int)((round * 7 + id * 3) % CHURN);
    snprintf(name, sizeof name, "test.threads.churn.%d", slot);
    xffi_object *f = make(slot * 1000 + round % 1000);
    CHECK(f != NULL);
    if (!f) continue;
    switch (round % 3) {
      case 0: /* register if free (the other writer may hold it) */
        if (xffi_function_global_register(name, f, 0) != XFFI_OK) xffi_object_dec_ref(xffi_error_move_raised());
        break;
      case 1: /* replace */ CHECK(xffi_function_global_register(name, f, 1) == XFFI_OK); break;
      default: /* remove, if present */
        if (xffi_function_global_erase(name) != XFFI_OK) {
          xffi_object *err = xffi_error_move_raised();
          CHECK(xffi_error_is_kind(err, XFFI_KIND_KEY));
          xffi_object_dec_ref(err);
        }
        break;
    }
    xffi_object_dec_ref(f);
  }
  return NULL;
}

static void test_lookups_and_calls_race_with_register_and_remove(void **state) {
  (void)state;
  char name[64];
  for (intptr_t i = 0; i < STABLE; ++i) {
    snprintf(name, sizeof name, "test.threads.stable.%ld", (long)i);
    xffi_object *f = make(i);
    assert_non_null(f);
    assert_int_equal(xffi_function_global_register(name, f, 0), XFFI_OK);
    xffi_object_dec_ref(f);
  }
  pthread_t readers[READERS], writers[WRITERS];
  for (intptr_t i = 0; i < READERS; ++i) assert_int_equal(pthread_create(&readers[i], NULL, reader_main, (void *)i), 0);
  for (intptr_t i = 0; i < WRITERS; ++i) assert_int_equal(pthread_create(&writers[i], NULL, writer_main, (void *)i), 0);
  for (int i = 0; i < READERS; ++i) pthread_join(readers[i], NULL);
  for (int i = 0; i < WRITERS; ++i) pthread_join(writers[i], NULL);
  assert_int_equal(atomic_load(&failures), 0);

  /* Clean up: every function ever made is finalized exactly once. */
  for (int i = 0; i < STABLE; ++i) {
    snprintf(name, sizeof name, "test.threads.stable.%d", i);
    assert_int_equal(xffi_function_global_erase(name), XFFI_OK);
  }
  for (int i = 0; i < CHURN; ++i) {
    snprintf(name, sizeof name, "test.threads.churn.%d", i);
    if (xffi_function_global_erase(name) != XFFI_OK) assert_raised(XFFI_KIND_KEY, "no global function named");
  }
  assert_int_equal(atomic_load(&finalized), atomic_load(&created));
}

static void *one_lookup(void *arg) {
  xffi_object *f = NULL;
  CHECK(xffi_function_global_lookup(&f, arg) == XFFI_OK);
  CHECK(f != NULL);
  xffi_object_dec_ref(f);
  return NULL;
}

static void test_exited_threads_give_their_reader_record_back(void **state) {
  (void)state;
  xffi_object *f = make(1);
  assert_int_equal(xffi_function_global_register("test.threads.short_lived", f, 0), XFFI_OK);
  xffi_object_dec_ref(f);
  uint64_t before = failing_allocator_attempts();
  for (int i = 0; i < 200; ++i) { /* more threads than static reader records */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, one_lookup, "test.threads.short_lived"), 0);
    pthread_join(t, NULL);
  }
  assert_int_equal(failing_allocator_attempts(), before);
  assert_int_equal(atomic_load(&failures), 0);
  assert_int_equal(xffi_function_global_erase("test.threads.short_lived"), XFFI_OK);
}

static atomic_int release_holders, looked_up;
static void *hold_lookup_thread(void *arg) {
  one_lookup(arg);
  atomic_fetch_add(&looked_up, 1);
  while (!atomic_load(&release_holders)) sched_yield();
  return NULL;
}

static void test_more_concurrent_threads_than_static_records(void **state) {
  (void)state;
  enum { N = 80 };
  xffi_object *f = make(2);
  assert_int_equal(xffi_function_global_register("test.threads.many", f, 0), XFFI_OK);
  xffi_object_dec_ref(f);
  pthread_t threads[N];
  atomic_store(&release_holders, 0);
  for (int i = 0; i < N; ++i)
    assert_int_equal(pthread_create(&threads[i], NULL, hold_lookup_thread, "test.threads.many"), 0);
  while (atomic_load(&looked_up) < N) sched_yield();
  /* Removal must scan the allocated records too. */
  assert_int_equal(xffi_function_global_erase("test.threads.many"), XFFI_OK);
  atomic_store(&release_holders, 1);
  for (int i = 0; i < N; ++i) pthread_join(threads[i], NULL);
  assert_int_equal(atomic_load(&failures), 0);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lookups_and_calls_race_with_register_and_remove),
      cmocka_unit_test(test_exited_threads_give_their_reader_record_back),
      cmocka_unit_test(test_more_concurrent_threads_than_static_records),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
