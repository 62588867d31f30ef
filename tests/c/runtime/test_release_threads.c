/* tests/c/runtime/test_release_threads.c: the parking of deep releases
 * (xffi_release_begin/end) is per thread, and holds while other threads take
 * and drop strong and weak references to the levels being released. Run
 * under ThreadSanitizer (label "threads") and AddressSanitizer. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include <xffi/array.h>
#include <xffi/map.h>

#include "test_util.h"

enum { DEPTH = 100000, ROUNDS = 4 };
#define SMALL_STACK_BYTES ((size_t)256 * 1024)

typedef struct race {
  xffi_object *top;  /* stolen by the dropping thread */
  xffi_weak **weak;  /* one per level, released by the locking thread */
  int lock_failures; /* cmocka asserts only on the main thread */
} race;

/* Drops the whole nesting. */
static void *drop_top(void *arg) {
  race *r = arg;
  xffi_object_dec_ref(r->top);
  return NULL;
}

/* Locks every level from the innermost out, drops what it got (so this
 * thread may end up releasing part of the nesting), then releases the weak
 * references, some of them while the other thread is still releasing. */
static void *lock_levels(void *arg) {
  race *r = arg;
  for (long i = 0; i < DEPTH; ++i) {
    xffi_object *locked = NULL;
    if (xffi_weak_lock(&locked, r->weak[i]) != XFFI_OK) r->lock_failures++;
    xffi_object_dec_ref_inline(locked);
  }
  for (long i = 0; i < DEPTH; ++i) xffi_weak_release(r->weak[i]);
  return NULL;
}

static pthread_t start_small(void *(*fn)(void *), void *arg) {
  pthread_attr_t attr;
  pthread_t thread;
  assert_int_equal(pthread_attr_init(&attr), 0);
  assert_int_equal(pthread_attr_setstacksize(&attr, SMALL_STACK_BYTES), 0);
  assert_int_equal(pthread_create(&thread, &attr, fn, arg), 0);
  pthread_attr_destroy(&attr);
  return thread;
}

static void test_deep_release_races_with_weak_locks(void **state) {
  (void)state;
  for (int round = 0; round < ROUNDS; ++round) {
    race r = {NULL, calloc(DEPTH, sizeof(xffi_weak *)), 0};
    assert_non_null(r.weak);
    assert_int_equal(xffi_list_new(&r.top, NULL, 0), XFFI_OK);
    for (long i = 0; i < DEPTH; ++i) {
      xffi_object *outer = NULL;
      xffi_any item = xffi_any_object(r.top);
      if (i % 2) {
        xffi_any key = xffi_any_int(i);
        assert_int_equal(xffi_dict_new(&outer, NULL, NULL, 0), XFFI_OK);
        assert_int_equal(xffi_dict_set(outer, &key, &item), XFFI_OK);
      } else {
        assert_int_equal(xffi_list_new(&outer, &item, 1), XFFI_OK);
      }
      xffi_object_dec_ref(r.top);
      r.top = outer;
      assert_int_equal(xffi_weak_new(&r.weak[i], outer), XFFI_OK);
    }
    pthread_t locker = start_small(lock_levels, &r);
    pthread_t dropper = start_small(drop_top, &r);
    assert_int_equal(pthread_join(dropper, NULL), 0);
    assert_int_equal(pthread_join(locker, NULL), 0);
    assert_int_equal(r.lock_failures, 0);
    free(r.weak);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_deep_release_races_with_weak_locks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
