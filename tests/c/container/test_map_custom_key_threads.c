/* ffi.BigInt's __any_hash__/__any_equal__ entries are copied into their
 * static columns at the first column lookup: 8 threads making that first
 * use at once (map keys, column lookups, and registrations that grow the
 * columns past their static arrays) all find the hooks, and equal BigInts
 * are one key in every thread's map. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>

#include <xffi/map.h>
#include <xffi/tvm_ffi.h>

#include "test_util.h"

enum { THREADS = 8, ROUNDS = 200 };

static pthread_barrier_t go;
static _Atomic int failures;

static int one_key_for_equal_bigints(void) {
  int64_t words[2] = {0, 1};
  xffi_byte_array b = {(const char *)words, sizeof(words)};
  xffi_any a, a2, one = xffi_any_int(1);
  if (TVMFFIBigIntFromByteArray(&b, &a) != 0) return 0;
  if (TVMFFIBigIntFromByteArray(&b, &a2) != 0) {
    xffi_any_release(&a);
    return 0;
  }
  xffi_object *map = NULL;
  int64_t length = -1;
  int ok = xffi_map_new(&map, NULL, NULL, 0) == XFFI_OK && xffi_map_set(&map, &a, &one) == XFFI_OK &&
           xffi_map_set(&map, &a2, &one) == XFFI_OK && xffi_map_length(&length, map) == XFFI_OK && length == 1;
  if (map) xffi_object_dec_ref(map);
  xffi_any_release(&a);
  xffi_any_release(&a2);
  return ok;
}

static void *first_user(void *arg) {
  int id = (int)(intptr_t)arg;
  pthread_barrier_wait(&go);
  xffi_byte_array hash_name = {"__any_hash__", strlen("__any_hash__")};
  if (id % 2) {
    /* Grow the column while the others read it. */
    char key[48];
    snprintf(key, sizeof(key), "test.custom_key_threads.T%d", id);
    xffi_byte_array k = {key, strlen(key)};
    int32_t t = TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, XFFI_TYPE_OBJECT);
    xffi_any value = xffi_any_int(id);
    if (t < XFFI_TYPE_DYNAMIC_BEGIN || TVMFFITypeRegisterAttr(t, &hash_name, &value) != 0)
      atomic_fetch_add(&failures, 1);
  }
  for (int r = 0; r < ROUNDS; ++r) {
    if (!one_key_for_equal_bigints()) atomic_fetch_add(&failures, 1);
    const xffi_type_attr_column *c = TVMFFIGetTypeAttrColumn(&hash_name);
    if (!c || __atomic_load_n(&c->size, __ATOMIC_ACQUIRE) <= XFFI_TYPE_BIGINT ||
        __atomic_load_n(&c->data, __ATOMIC_ACQUIRE)[XFFI_TYPE_BIGINT].type_index != XFFI_TYPE_OPAQUE_PTR)
      atomic_fetch_add(&failures, 1);
  }
  return NULL;
}

static void test_first_use_of_the_hook_columns_from_many_threads(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  pthread_barrier_init(&go, NULL, THREADS);
  for (int i = 0; i < THREADS; ++i) pthread_create(&threads[i], NULL, first_user, (void *)(intptr_t)i);
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&go);
  assert_int_equal(atomic_load(&failures), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_use_of_the_hook_columns_from_many_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
