/* The type registry under 8 threads: the same keys and different keys
 * registered at once, while lookups and is-instance run without a lock. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>

#include "test_util.h"

enum { THREADS = 8, SHARED_KEYS = 300, OWN_KEYS = 1500 };

static int32_t shared_index[THREADS][SHARED_KEYS];
static int32_t own_index[THREADS][OWN_KEYS];
static _Atomic int failures;
static pthread_barrier_t go;

typedef struct plain {
  xffi_object header;
} plain;

static void *registrar(void *arg) {
  int id = (int)(intptr_t)arg;
  char key[64];
  pthread_barrier_wait(&go);
  for (int i = 0; i < OWN_KEYS; ++i) {
    /* Interleave shared and own registrations so growth happens mid-race. */
    if (i < SHARED_KEYS) {
      snprintf(key, sizeof(key), "race.shared.%d", i);
      int32_t parent = i == 0 ? XFFI_TYPE_OBJECT : shared_index[id][i - 1];
      if (xffi_type_register(&shared_index[id][i], key, parent) != XFFI_OK) atomic_fetch_add(&failures, 1);
    }
    snprintf(key, sizeof(key), "race.own.%d.%d", id, i);
    if (xffi_type_register(&own_index[id][i], key, XFFI_TYPE_OBJECT) != XFFI_OK) atomic_fetch_add(&failures, 1);
    /* Read back at once, lock-free, while others keep growing the tables. */
    const xffi_type_info *info = NULL;
    if (xffi_type_info_get_by_key(&info, key) != XFFI_OK || info->type_index != own_index[id][i])
      atomic_fetch_add(&failures, 1);
    plain p;
    xffi_object_init(&p.header, own_index[id][i], NULL);
    if (!xffi_object_is_a_unchecked(&p.header, XFFI_TYPE_OBJECT) ||
        xffi_object_is_a_unchecked(&p.header, XFFI_TYPE_STRING))
      atomic_fetch_add(&failures, 1);
  }
  return NULL;
}

static void test_concurrent_registration_of_same_and_different_keys(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  pthread_barrier_init(&go, NULL, THREADS);
  /* The registry's first use registers the runtime's own types (ffi.Enum...): done before counting. */
  const xffi_type_info *object_info;
  assert_int_equal(xffi_type_info_get_by_key(&object_info, "ffi.Object"), XFFI_OK);
  int32_t before = xffi_type_count();
  for (int i = 0; i < THREADS; ++i) pthread_create(&threads[i], NULL, registrar, (void *)(intptr_t)i);
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&go);
  assert_int_equal(atomic_load(&failures), 0);
  /* The same key got the same index in every thread. */
  for (int k = 0; k < SHARED_KEYS; ++k)
    for (int t = 1; t < THREADS; ++t) assert_int_equal(shared_index[t][k], shared_index[0][k]);
  /* Different keys got different indices, and no index was lost. */
  assert_int_equal(xffi_type_count() - before, SHARED_KEYS + THREADS * OWN_KEYS);
  unsigned char *seen = calloc((size_t)xffi_type_count(), 1);
  for (int t = 0; t < THREADS; ++t)
    for (int k = 0; k < OWN_KEYS; ++k) {
      assert_false(seen[own_index[t][k]]);
      seen[own_index[t][k]] = 1;
    }
  free(seen);
  /* The shared chain is 300 deep, each link's parent the previous one. */
  const xffi_type_info *last = NULL;
  assert_int_equal(xffi_type_info_get(&last, shared_index[0][SHARED_KEYS - 1]), XFFI_OK);
  assert_int_equal(last->type_depth, SHARED_KEYS);
  assert_int_equal(last->type_ancestors[SHARED_KEYS - 1]->type_index, shared_index[0][SHARED_KEYS - 2]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrent_registration_of_same_and_different_keys),
  };
  return cmocka_run_group_tests_name("type_threads", tests, NULL, NULL);
}
