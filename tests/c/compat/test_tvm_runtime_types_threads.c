/* The runtime's own reflected types (c/type_runtime.c) are registered on
 * the registry's first use: 8 threads making that first use at once, by key
 * lookup and by registering types of their own, all see every runtime type
 * with its fields, each exactly once. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>

#include <xffi/tvm_ffi.h>

#include "test_util.h"

enum { THREADS = 8 };

static pthread_barrier_t go;
static _Atomic int failures;
static int32_t seen_index[THREADS];

static void *first_user(void *arg) {
  int id = (int)(intptr_t)arg;
  pthread_barrier_wait(&go);
  if (id % 2) {
    char key[32];
    snprintf(key, sizeof(key), "first.use.%d", id);
    xffi_byte_array k = {key, strlen(key)};
    if (TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, XFFI_TYPE_OBJECT) < XFFI_TYPE_DYNAMIC_BEGIN)
      atomic_fetch_add(&failures, 1);
  }
  xffi_byte_array key = {"ffi.StructuralKey", strlen("ffi.StructuralKey")};
  if (TVMFFITypeKeyToIndex(&key, &seen_index[id]) != 0) {
    atomic_fetch_add(&failures, 1);
    return NULL;
  }
  const xffi_type_info *info = TVMFFIGetTypeInfo(seen_index[id]);
  if (!info || info->num_fields != 2) atomic_fetch_add(&failures, 1); /* key, hash_i64: once each */
  return NULL;
}

static void test_first_use_from_many_threads_registers_each_type_once(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  pthread_barrier_init(&go, NULL, THREADS);
  for (int i = 0; i < THREADS; ++i) pthread_create(&threads[i], NULL, first_user, (void *)(intptr_t)i);
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&go);
  assert_int_equal(atomic_load(&failures), 0);
  for (int i = 1; i < THREADS; ++i) assert_int_equal(seen_index[i], seen_index[0]);
  const xffi_type_info *path = NULL;
  assert_int_equal(xffi_type_info_get_by_key(&path, "ffi.reflection.AccessPath"), XFFI_OK);
  assert_int_equal(path->num_fields, 3);
  assert_int_equal(path->num_methods, 11);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_use_from_many_threads_registers_each_type_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
