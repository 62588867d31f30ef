/* tests/c/runtime/test_registry_threads.c: a registry writer finishes in bounded
 * time however many threads are busy looking names up, on however few
 * cores: it must never wait for a lookup in flight, since a preempted reader
 * may not run again for a whole scheduling round. Readers call every
 * function they find and check its value, so a function or entry freed while
 * a reader still used it shows up under AddressSanitizer and
 * ThreadSanitizer (label "threads"). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "test_clock.h"
#include "test_util.h"
#include "registry_thread_util.h"

#include <xffi/function.h>
#include <xffi/sys/testing.h>

/* A write takes microseconds; the bound leaves orders of magnitude for a
 * loaded machine and sanitizers. Before the fix one write with 64 busy
 * readers on 2 cores took over 4 s, and with 100 it did not finish. Under
 * an emulator (qemu-user, wine) every thread runs several times slower, and
 * a loaded machine made one write of 128 readers take 3.6 s there: the
 * bound grows with it, still far below a writer that waits for readers. */
enum { STABLE = 8, ROUNDS = 10, CHURN_MAGIC = 7 };
#ifdef XFFI_TEST_UNDER_EMULATOR
static const double WRITE_BOUND_SECONDS = 10.0;
#else
static const double WRITE_BOUND_SECONDS = 2.0;
#endif
/* A write this late means the writer is stuck: fail instead of hanging. */
static const int STUCK_SECONDS = 60;

static atomic_int stop_readers, readers_started;
static atomic_long lookups_done;

static const char CHURN_NAME[] = "test.registry_threads.churn";

/* Looks up and calls: a stable name must be there and return its index;
 * the churned name may be missing, and returns 1000 * CHURN_MAGIC + round. */
static void *busy_reader(void *arg) {
  intptr_t id = (intptr_t)arg;
  char name[64];
  atomic_fetch_add(&readers_started, 1);
  for (long i = 0; !atomic_load_explicit(&stop_readers, memory_order_relaxed); ++i) {
    int index = (int)((id + i) % STABLE);
    snprintf(name, sizeof name, "test.registry_threads.stable.%d", index);
    xffi_object *f = NULL;
    xffi_any result;
    CHECK(xffi_function_global_lookup(&f, name) == XFFI_OK);
    CHECK(f != NULL);
    if (f) {
      CHECK(xffi_function_call(f, NULL, 0, &result) == XFFI_OK);
      CHECK(result.v_int64 == index);
      xffi_object_dec_ref(f);
    }
    CHECK(xffi_function_global_lookup(&f, CHURN_NAME) == XFFI_OK);
    if (f) {
      CHECK(xffi_function_call(f, NULL, 0, &result) == XFFI_OK);
      CHECK(result.v_int64 / 1000 == CHURN_MAGIC);
      xffi_object_dec_ref(f);
    }
    atomic_fetch_add_explicit(&lookups_done, 2, memory_order_relaxed);
  }
  return NULL;
}

/* Fails the whole test (rather than hang ctest) if the writer is stuck. */
static pthread_mutex_t watchdog_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watchdog_cond = PTHREAD_COND_INITIALIZER;
static int writer_done;

static void *watchdog(void *arg) {
  (void)arg;
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += STUCK_SECONDS;
  pthread_mutex_lock(&watchdog_lock);
  int timed_out = 0;
  while (!writer_done && !timed_out) timed_out = pthread_cond_timedwait(&watchdog_cond, &watchdog_lock, &deadline) != 0;
  pthread_mutex_unlock(&watchdog_lock);
  if (timed_out) {
    fprintf(stderr, "the registry writer did not finish its rounds within %d s\n", STUCK_SECONDS);
    _Exit(1);
  }
  return NULL;
}

static void writer_bounded_with_busy_readers(int reader_count) {
  char name[64];
  atomic_store(&created, 0);
  atomic_store(&finalized, 0);
  atomic_store(&failures, 0);
  atomic_store(&stop_readers, 0);
  atomic_store(&readers_started, 0);
  atomic_store(&lookups_done, 0);
  writer_done = 0;
  for (intptr_t i = 0; i < STABLE; ++i) {
    snprintf(name, sizeof name, "test.registry_threads.stable.%d", (int)i);
    xffi_object *f = make(i);
    assert_non_null(f);
    assert_int_equal(xffi_function_global_register(name, f, 0), XFFI_OK);
    xffi_object_dec_ref(f);
  }
  pthread_t dog;
  assert_int_equal(pthread_create(&dog, NULL, watchdog, NULL), 0);
  pthread_t *readers = calloc((size_t)reader_count, sizeof *readers);
  assert_non_null(readers);
  for (intptr_t i = 0; i < reader_count; ++i)
    assert_int_equal(pthread_create(&readers[i], NULL, busy_reader, (void *)i), 0);
  while (atomic_load(&readers_started) < reader_count) sched_yield();

  double slowest = 0;
  size_t most_waiting = 0;
  for (int round = 0; round < ROUNDS; ++round) {
    for (int step = 0; step < 3; ++step) { /* register (or override), override, remove */
      static const char *const steps[] = {"register", "override", "remove"};
      xffi_object *f = NULL;
      if (step < 2) {
        f = make(1000 * CHURN_MAGIC + round);
        assert_non_null(f);
      }
      double started = test_wall_seconds();
      int status = f ? xffi_function_global_register(CHURN_NAME, f, 1) : xffi_function_global_erase(CHURN_NAME);
      double took = test_wall_seconds() - started;
      assert_int_equal(status, XFFI_OK);
      if (took >= WRITE_BOUND_SECONDS)
        fail_msg("%s (round %d) took %.3f s, bound %.1f s", steps[step], round, took, WRITE_BOUND_SECONDS);
      slowest = took > slowest ? took : slowest;
      if (f) xffi_object_dec_ref(f);
    }
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL); /* let preempted readers run */
    size_t waiting = xffi_testing_registry_reclaim();
    most_waiting = waiting > most_waiting ? waiting : most_waiting;
  }
  pthread_mutex_lock(&watchdog_lock);
  writer_done = 1;
  pthread_cond_signal(&watchdog_cond);
  pthread_mutex_unlock(&watchdog_lock);
  pthread_join(dog, NULL);

  atomic_store(&stop_readers, 1);
  for (int i = 0; i < reader_count; ++i) pthread_join(readers[i], NULL);
  free(readers);
  printf("%d busy readers: slowest write %.6f s, at most %zu retired blocks waiting, %ld lookups\n", reader_count,
         slowest, most_waiting, atomic_load(&lookups_done));
  assert_int_equal(atomic_load(&failures), 0);

  /* With no lookup in flight everything retired is freed, and every
   * function made is finalized exactly once. */
  for (int i = 0; i < STABLE; ++i) {
    snprintf(name, sizeof name, "test.registry_threads.stable.%d", i);
    assert_int_equal(xffi_function_global_erase(name), XFFI_OK);
  }
  assert_int_equal(xffi_testing_registry_reclaim(), 0);
  assert_int_equal(atomic_load(&finalized), atomic_load(&created));
}

static void test_writer_bounded_with_64_busy_readers(void **state) {
  (void)state;
  writer_bounded_with_busy_readers(64);
}

static void test_writer_bounded_with_128_busy_readers(void **state) {
  (void)state;
  writer_bounded_with_busy_readers(128);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_writer_bounded_with_64_busy_readers),
      cmocka_unit_test(test_writer_bounded_with_128_busy_readers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
