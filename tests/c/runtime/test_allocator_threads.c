/* tests/c/runtime/test_allocator_threads.c: xffi_allocator_install racing with the
 * library's first allocations on other threads (xffi/sys/allocator.h).
 * Whichever comes first fixes the allocator: either the install succeeds
 * and every block of every thread is made and freed by the installed
 * allocator, or it is refused and the installed one is never called. No
 * block is freed by an allocator that did not make it either way (and
 * ThreadSanitizer sees no race in the threads label's sanitizer run). */
#include <pthread.h>
#include <stdatomic.h>

#include "test_util.h"

#include <xffi/sys/allocator.h>

enum { THREADS = 4, STRINGS_PER_THREAD = 2000 };

static xffi_allocator system_allocator;
static atomic_long made, freed; /* blocks of the installed allocator */
static atomic_int go;

static void *racing_allocate(void *context, size_t size) {
  (void)context;
  void *block = system_allocator.allocate(system_allocator.context, size);
  if (block) atomic_fetch_add(&made, 1);
  return block;
}

static void *racing_reallocate(void *context, void *ptr, size_t size) {
  (void)context;
  return system_allocator.reallocate(system_allocator.context, ptr, size);
}

static void racing_deallocate(void *context, void *ptr) {
  (void)context;
  atomic_fetch_add(&freed, 1);
  system_allocator.deallocate(system_allocator.context, ptr);
}

static void *racing_allocate_aligned(void *context, size_t alignment, size_t size) {
  (void)context;
  void *block = system_allocator.allocate_aligned(system_allocator.context, alignment, size);
  if (block) atomic_fetch_add(&made, 1);
  return block;
}

static void racing_deallocate_aligned(void *context, void *ptr) {
  (void)context;
  atomic_fetch_add(&freed, 1);
  system_allocator.deallocate_aligned(system_allocator.context, ptr);
}

static void *make_and_release_strings(void *arg) {
  (void)arg;
  while (!atomic_load(&go)) {
  }
  for (int i = 0; i < STRINGS_PER_THREAD; ++i) {
    xffi_object *s = NULL;
    if (xffi_string_from_c_str(&s, "a string too long to live inside an Any") != XFFI_OK) return (void *)1;
    xffi_object_dec_ref(s);
  }
  return NULL;
}

static void test_install_racing_with_first_allocations_fixes_one_allocator(void **state) {
  (void)state;
  /* The default allocator's functions never allocate through xffi. */
  assert_int_equal(xffi_allocator_default(&system_allocator), XFFI_OK);
  xffi_allocator racing = {
      NULL, racing_allocate, racing_reallocate, racing_deallocate, racing_allocate_aligned, racing_deallocate_aligned};
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; ++i)
    assert_int_equal(pthread_create(&threads[i], NULL, make_and_release_strings, NULL), 0);
  atomic_store(&go, 1);
  int status = xffi_allocator_install(&racing);
  for (int i = 0; i < THREADS; ++i) {
    void *result = (void *)1;
    assert_int_equal(pthread_join(threads[i], &result), 0);
    assert_null(result);
  }
  if (status == XFFI_OK) {
    print_message("the install came first: %ld blocks made and freed by it\n", atomic_load(&made));
    assert_true(atomic_load(&made) >= THREADS * STRINGS_PER_THREAD);
    assert_int_equal(atomic_load(&freed), atomic_load(&made));
  } else {
    print_message("an allocation came first: the install was refused\n");
    assert_raised(XFFI_KIND_VALUE, "xffi_allocator_install: the allocator is fixed already");
    assert_int_equal(atomic_load(&made), 0);
    assert_int_equal(atomic_load(&freed), 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_install_racing_with_first_allocations_fixes_one_allocator),
  };
  return cmocka_run_group_tests_name("allocator_threads", tests, NULL, NULL);
}
