/* tests/c/container/test_container_threads.c: Arrays and Maps shared between threads.
 * Readers need no lock; copy-on-write changes made through each thread's own
 * reference never disturb the other threads (run under ThreadSanitizer). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <xffi/array.h>
#include <xffi/map.h>
#include <xffi/xffi.h>
#include <xffi/sys/array.h>
#include <xffi/sys/object.h>

#define THREADS 4
#define ROUNDS 300
#define KEYS 64

static xffi_object *shared_map;
static xffi_object *shared_array;

static void *map_worker(void *arg) {
  int id = (int)(intptr_t)arg;
  int bad = 0;
  for (int round = 0; round < ROUNDS; ++round) {
    /* Read the shared map. */
    for (int k = 0; k < KEYS; ++k) {
      char name[32];
      snprintf(name, sizeof(name), "shared key number %d", k);
      xffi_any key = xffi_any_c_str(name);
      const xffi_any *v = NULL;
      if (xffi_map_lookup(&v, shared_map, &key) != XFFI_OK || !v || v->v_int64 != k) bad++;
    }
    /* Change a private reference: copy-on-write gives this thread its own map. */
    xffi_object *mine = shared_map;
    xffi_object_inc_ref(mine);
    xffi_any key = xffi_any_int(1000 + id), value = xffi_any_int(round);
    if (xffi_map_set(&mine, &key, &value) != XFFI_OK || mine == shared_map) bad++;
    int64_t n = 0;
    if (xffi_map_length(&n, mine) != XFFI_OK || n != KEYS + 1) bad++;
    xffi_object_dec_ref(mine);
  }
  return (void *)(intptr_t)bad;
}

static void *array_worker(void *arg) {
  int id = (int)(intptr_t)arg;
  int bad = 0;
  for (int round = 0; round < ROUNDS; ++round) {
    xffi_object *mine = shared_array;
    xffi_object_inc_ref(mine);
    xffi_any v = xffi_any_int(id);
    if (xffi_array_push(&mine, &v) != XFFI_OK || mine == shared_array) bad++;
    if (xffi_array_set(&mine, 0, &v) != XFFI_OK) bad++; /* now unique: in place */
    if (xffi_seq_size_unchecked(mine) != 9 || xffi_seq_items_unchecked(mine)[0].v_int64 != id) bad++;
    /* Element 1 is a Map shared by every copy: reading it is safe. */
    int64_t n = 0;
    if (xffi_map_length(&n, xffi_seq_items_unchecked(mine)[1].v_obj) != XFFI_OK || n != KEYS) bad++;
    xffi_object_dec_ref(mine);
  }
  return (void *)(intptr_t)bad;
}

static void run(void *(*worker)(void *)) {
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; ++i) assert_int_equal(pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i), 0);
  for (int i = 0; i < THREADS; ++i) {
    void *bad = NULL;
    assert_int_equal(pthread_join(threads[i], &bad), 0);
    assert_int_equal((intptr_t)bad, 0);
  }
}

static void readers_and_copy_on_write_writers_share_a_map(void **state) {
  (void)state;
  assert_int_equal(xffi_map_new(&shared_map, NULL, NULL, 0), XFFI_OK);
  for (int k = 0; k < KEYS; ++k) {
    char name[32];
    snprintf(name, sizeof(name), "shared key number %d", k);
    xffi_any key = xffi_any_c_str(name), value = xffi_any_int(k);
    assert_int_equal(xffi_map_set(&shared_map, &key, &value), XFFI_OK);
  }
  run(map_worker);
  int64_t n = 0;
  assert_int_equal(xffi_map_length(&n, shared_map), XFFI_OK);
  assert_int_equal(n, KEYS);
  assert_int_equal(xffi_object_strong_count(shared_map), 1);
}

static void copy_on_write_arrays_across_threads(void **state) {
  (void)state;
  xffi_any items[8];
  for (int i = 0; i < 8; ++i) items[i] = xffi_any_int(-1);
  items[1] = xffi_any_object(shared_map);
  assert_int_equal(xffi_array_new(&shared_array, items, 8), XFFI_OK);
  run(array_worker);
  assert_int_equal(xffi_seq_size_unchecked(shared_array), 8);
  assert_int_equal(xffi_seq_items_unchecked(shared_array)[0].v_int64, -1);
  assert_int_equal(xffi_object_strong_count(shared_array), 1);
  assert_int_equal(xffi_object_strong_count(shared_map), 2);
  xffi_object_dec_ref(shared_array);
  xffi_object_dec_ref(shared_map);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(readers_and_copy_on_write_writers_share_a_map),
      cmocka_unit_test(copy_on_write_arrays_across_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
