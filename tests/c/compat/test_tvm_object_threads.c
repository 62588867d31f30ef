/* tests/c/compat/test_tvm_object_threads.c: TVMFFISetCustomAllocator switching
 * allocators while other threads make and release objects, and
 * TVMFFIBacktrace on several threads at once. Every object goes back to
 * the allocator that made it (its allocation header says which), so each
 * allocator's frees equal its allocations once the threads are done; each
 * thread's backtrace text stays its own (ThreadSanitizer sees no race in the
 * threads label's sanitizer run). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "test_util.h"

#include <xffi/tvm_ffi.h>

enum { THREADS = 4, OBJECTS_PER_THREAD = 3000, SWITCHES = 200 };

typedef struct tracked {
  atomic_long made, freed;
} tracked;

static tracked counts[2];
static atomic_int go;

static void free_space_0(void *body) {
  atomic_fetch_add(&counts[0].freed, 1);
  free((char *)body - 16);
}
static void free_space_1(void *body) {
  atomic_fetch_add(&counts[1].freed, 1);
  free((char *)body - 16);
}

static void *allocate(size_t size, size_t alignment, int32_t type_index, void *context) {
  (void)type_index;
  if (alignment > 16) return NULL; /* not asked for by what this test makes */
  int which = (int)(intptr_t)context;
  char *block = malloc(16 + size);
  if (!block) return NULL;
  ((xffi_object_alloc_header *)(void *)(block + 16 - sizeof(xffi_object_alloc_header)))->delete_space =
      which ? free_space_1 : free_space_0;
  atomic_fetch_add(&counts[which].made, 1);
  return block + 16;
}

static xffi_custom_allocator allocators[2] = {{allocate, (void *)(intptr_t)0}, {allocate, (void *)(intptr_t)1}};

static void *make_objects(void *arg) {
  (void)arg;
  while (!atomic_load(&go)) {
  }
  for (int i = 0; i < OBJECTS_PER_THREAD; ++i) {
    xffi_object *s = NULL, *e = NULL;
    if (xffi_string_from_c_str(&s, "a string that is not small at all") != XFFI_OK) return (void *)1;
    if (xffi_error_new(&e, "ValueError", "made while allocators switch") != XFFI_OK) return (void *)1;
    xffi_object_dec_ref(s);
    xffi_object_dec_ref(e);
  }
  return NULL;
}

static void test_objects_return_to_their_allocator_while_it_switches(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; ++i) assert_int_equal(pthread_create(&threads[i], NULL, make_objects, NULL), 0);
  atomic_store(&go, 1);
  for (int i = 0; i < SWITCHES; ++i) {
    /* 0, 1, then the built-in one, in turn. */
    xffi_custom_allocator *next = i % 3 == 2 ? NULL : &allocators[i % 3];
    assert_int_equal(TVMFFISetCustomAllocator(next), 0);
  }
  for (int i = 0; i < THREADS; ++i) {
    void *result = (void *)1;
    assert_int_equal(pthread_join(threads[i], &result), 0);
    assert_null(result);
  }
  assert_int_equal(TVMFFISetCustomAllocator(NULL), 0);
  for (int k = 0; k < 2; ++k) assert_int_equal(atomic_load(&counts[k].made), atomic_load(&counts[k].freed));
}

static void *take_backtraces(void *arg) {
  char name[32];
  snprintf(name, sizeof(name), "thread_%d", (int)(intptr_t)arg);
  for (int i = 0; i < 200; ++i) {
    const xffi_byte_array *bt = TVMFFIBacktrace("t.c", i, name, 0);
    char expect[64];
    int n = snprintf(expect, sizeof(expect), "  File \"t.c\", line %d, in %s\n", i, name);
    if (bt->size < (size_t)n || memcmp(bt->data, expect, (size_t)n) != 0) return (void *)1;
  }
  return NULL;
}

static void test_backtraces_on_many_threads_stay_apart(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; ++i)
    assert_int_equal(pthread_create(&threads[i], NULL, take_backtraces, (void *)(intptr_t)i), 0);
  for (int i = 0; i < THREADS; ++i) {
    void *result = (void *)1;
    assert_int_equal(pthread_join(threads[i], &result), 0);
    assert_null(result);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_objects_return_to_their_allocator_while_it_switches),
      cmocka_unit_test(test_backtraces_on_many_threads_stay_apart),
  };
  return cmocka_run_group_tests_name("tvm_object_threads", tests, NULL, NULL);
}
