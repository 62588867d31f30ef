/* tests/c/container/test_map_hash_threads.c: Dicts built by several threads at once,
 * their first maps in the process included, find their own keys when other
 * threads look them up: the map hash (tvm-ffi's AnyHash, c/map_hash.c) is
 * the same on every thread. Run under ThreadSanitizer too (label threads). */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include <xffi/map.h>
#include <xffi/string.h>
#include <xffi/xffi.h>

enum { THREADS = 8, KEYS = 500 };

typedef struct builder {
  pthread_barrier_t *start;
  xffi_object *dict;
  int ok;
} builder;

static void key_text(char *buf, size_t cap, int k) { snprintf(buf, cap, "key-%d-of-the-dict", k); }

/* Waits for the others, then creates the process's first maps (all threads
 * at once) and fills one with int, short string and String keys. */
static void *build(void *arg) {
  builder *b = arg;
  pthread_barrier_wait(b->start);
  b->ok = xffi_dict_new(&b->dict, NULL, NULL, 0) == XFFI_OK;
  for (int k = 0; b->ok && k < KEYS; ++k) {
    char text[32];
    key_text(text, sizeof(text), k);
    xffi_any keys[3] = {xffi_any_int(k), xffi_any_none(), xffi_any_c_str(text)};
    b->ok = xffi_any_from_str(&keys[1], text, 6) == XFFI_OK;
    for (int i = 0; b->ok && i < 3; ++i) {
      xffi_any value = xffi_any_int(k);
      b->ok = xffi_dict_set(b->dict, &keys[i], &value) == XFFI_OK;
    }
  }
  return NULL;
}

static void first_maps_made_by_many_threads_share_one_hash_key(void **state) {
  (void)state;
  pthread_barrier_t start;
  assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
  builder builders[THREADS];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    builders[t] = (builder){&start, NULL, 0};
    assert_int_equal(pthread_create(&threads[t], NULL, build, &builders[t]), 0);
  }
  for (int t = 0; t < THREADS; ++t) assert_int_equal(pthread_join(threads[t], NULL), 0);
  pthread_barrier_destroy(&start);
  /* This thread finds every key of every Dict, String keys included (their
   * hash is computed here, with this thread's view of the key). */
  for (int t = 0; t < THREADS; ++t) {
    assert_true(builders[t].ok);
    for (int k = 0; k < KEYS; ++k) {
      char text[32];
      key_text(text, sizeof(text), k);
      xffi_object *s = NULL;
      assert_int_equal(xffi_string_new(&s, text, strlen(text)), XFFI_OK);
      xffi_any small;
      assert_int_equal(xffi_any_from_str(&small, text, 6), XFFI_OK);
      xffi_any keys[3] = {xffi_any_int(k), small, xffi_any_object(s)};
      for (int i = 0; i < 3; ++i) {
        const xffi_any *found = NULL;
        assert_int_equal(xffi_map_lookup(&found, builders[t].dict, &keys[i]), XFFI_OK);
        assert_non_null(found);
      }
      xffi_object_dec_ref(s);
    }
    xffi_object_dec_ref(builders[t].dict);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(first_maps_made_by_many_threads_share_one_hash_key),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
