/* Objects under 8 threads: inc-ref/dec-ref and weak-lock racing the last
 * release. Run under ThreadSanitizer by the test command. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>

#include "test_util.h"

enum { THREADS = 8, ROUNDS = 400, PAIRS = 200 };

typedef struct tracked {
  xffi_object header;
  _Atomic int alive; /* 1 until the contents are destroyed */
} tracked;

static _Atomic int contents_destroyed, memory_freed, locked_dead;
static pthread_barrier_t start_round, end_round;
static tracked *current;
static xffi_weak *current_weak[THREADS];

static void tracked_deleter(void *self, int flags) {
  tracked *t = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    atomic_store(&t->alive, 0);
    atomic_fetch_add(&contents_destroyed, 1);
  }
  if (flags & XFFI_DELETE_MEMORY) {
    atomic_fetch_add(&memory_freed, 1);
    free(t);
  }
}

/* Each thread owns one strong reference and one weak reference per round. */
static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  for (int round = 0; round < ROUNDS; ++round) {
    pthread_barrier_wait(&start_round);
    xffi_object *obj = &current->header;
    xffi_weak *weak = current_weak[id];
    for (int i = 0; i < PAIRS; ++i) {
      if (i & 1) {
        xffi_object_inc_ref_inline(obj);
        xffi_object_dec_ref_inline(obj);
      } else {
        xffi_object_inc_ref(obj);
        xffi_object_dec_ref(obj);
      }
    }
    /* Half the threads drop their strong reference first, the others keep
     * locking: some locks race the last release. */
    if (id % 2 == 0) xffi_object_dec_ref(obj);
    for (int i = 0; i < 50; ++i) {
      xffi_object *locked = NULL;
      if (xffi_weak_lock(&locked, weak) != XFFI_OK) abort();
      if (locked) {
        if (!atomic_load(&((tracked *)locked)->alive)) atomic_fetch_add(&locked_dead, 1);
        xffi_object_dec_ref(locked);
      }
    }
    if (id % 2 == 1) xffi_object_dec_ref(obj);
    xffi_weak_release(weak);
    pthread_barrier_wait(&end_round);
  }
  return NULL;
}

static void test_eight_threads_race_ref_counts_and_weak_locks(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  pthread_barrier_init(&start_round, NULL, THREADS + 1);
  pthread_barrier_init(&end_round, NULL, THREADS + 1);
  for (int i = 0; i < THREADS; ++i) pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i);
  for (int round = 0; round < ROUNDS; ++round) {
    tracked *t = malloc(sizeof(tracked));
    xffi_object_init(&t->header, XFFI_TYPE_OBJECT, tracked_deleter);
    atomic_init(&t->alive, 1);
    for (int i = 0; i < THREADS; ++i) {
      if (xffi_weak_new(&current_weak[i], &t->header) != XFFI_OK) fail();
    }
    for (int i = 1; i < THREADS; ++i) xffi_object_inc_ref(&t->header); /* one per thread */
    current = t;
    pthread_barrier_wait(&start_round);
    pthread_barrier_wait(&end_round);
    /* Every round ends with the object gone: contents once, memory once. */
    assert_int_equal(atomic_load(&contents_destroyed), round + 1);
    assert_int_equal(atomic_load(&memory_freed), round + 1);
  }
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  assert_int_equal(atomic_load(&locked_dead), 0); /* a lock never revived dead contents */
  pthread_barrier_destroy(&start_round);
  pthread_barrier_destroy(&end_round);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_eight_threads_race_ref_counts_and_weak_locks),
  };
  return cmocka_run_group_tests_name("object_threads", tests, NULL, NULL);
}
