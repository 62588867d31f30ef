/* tests/c/runtime/test_allocator.c: an allocator installed with xffi_allocator_install
 * (xffi/sys/allocator.h) gets every allocation and free the core makes,
 * with its context; once installed it cannot be replaced; bad allocators
 * are refused with a clear error. main installs a counting allocator before
 * anything else. */
#include "test_util.h"

#include <xffi/reflection.h>
#include <xffi/sys/allocator.h>
#include <xffi/sys/testing.h>

/* What the counting allocator saw. One thread only: plain counters. */
typedef struct counts {
  int64_t allocate, reallocate, deallocate, allocate_aligned, deallocate_aligned;
  int64_t misaligned; /* aligned blocks not at a multiple of their alignment */
  int64_t wrong_context;
} counts;

static counts seen;
static xffi_allocator system_allocator;

static void check_context(void *context) {
  if (context != &seen) seen.wrong_context++;
}

static void *counting_allocate(void *context, size_t size) {
  check_context(context);
  seen.allocate++;
  return system_allocator.allocate(system_allocator.context, size);
}

static void *counting_reallocate(void *context, void *ptr, size_t size) {
  check_context(context);
  seen.reallocate++;
  if (!ptr) seen.allocate++; /* a new block, which deallocate frees */
  return system_allocator.reallocate(system_allocator.context, ptr, size);
}

static void counting_deallocate(void *context, void *ptr) {
  check_context(context);
  seen.deallocate++;
  system_allocator.deallocate(system_allocator.context, ptr);
}

static void *counting_allocate_aligned(void *context, size_t alignment, size_t size) {
  check_context(context);
  seen.allocate_aligned++;
  void *block = system_allocator.allocate_aligned(system_allocator.context, alignment, size);
  if (block && (uintptr_t)block % alignment) seen.misaligned++;
  return block;
}

static void counting_deallocate_aligned(void *context, void *ptr) {
  check_context(context);
  seen.deallocate_aligned++;
  system_allocator.deallocate_aligned(system_allocator.context, ptr);
}

/* An allocator that must never be called (installing it is refused). */
static int64_t never_calls;
static void *never_allocate(void *context, size_t size) {
  (void)context, (void)size;
  never_calls++;
  return NULL;
}
static void *never_reallocate(void *context, void *ptr, size_t size) {
  (void)context, (void)ptr, (void)size;
  never_calls++;
  return NULL;
}
static void never_deallocate(void *context, void *ptr) {
  (void)context, (void)ptr;
  never_calls++;
}
static void *never_allocate_aligned(void *context, size_t alignment, size_t size) {
  (void)context, (void)alignment, (void)size;
  never_calls++;
  return NULL;
}
static const xffi_allocator never_allocator = {
    NULL, never_allocate, never_reallocate, never_deallocate, never_allocate_aligned, never_deallocate};

static void test_every_allocation_and_free_goes_through_the_installed_allocator(void **state) {
  (void)state;
  /* The registry's table lives as long as the process: made before counting. */
  xffi_object *found = NULL;
  assert_int_equal(xffi_function_global_lookup(&found, "test.allocator.noop"), XFFI_OK);
  assert_null(found);
  xffi_object *func = NULL;
  assert_int_equal(xffi_function_new(&func, test_noop_callback, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_global_register("test.allocator.first", func, 0), XFFI_OK);
  assert_int_equal(xffi_function_global_erase("test.allocator.first"), XFFI_OK);
  assert_int_equal(xffi_testing_registry_reclaim(), 0);
  xffi_object_dec_ref(func);
  counts before = seen;

  xffi_object *text = NULL; /* one allocate */
  assert_int_equal(xffi_string_from_c_str(&text, "a string too long to live inside an Any"), XFFI_OK);
  assert_int_equal(seen.allocate, before.allocate + 1);

  xffi_object *array = NULL; /* growth moves the elements to new buffers */
  assert_int_equal(xffi_array_new(&array, NULL, 0), XFFI_OK);
  counts grown = seen;
  for (int64_t i = 0; i < 100; ++i) {
    xffi_any v = xffi_any_int(i);
    assert_int_equal(xffi_array_push(&array, &v), XFFI_OK);
  }
  assert_true(seen.allocate > grown.allocate + 2);
  assert_true(seen.deallocate > grown.deallocate + 1);

  xffi_object *printed = NULL; /* the printer's text grows in place */
  xffi_any shown = xffi_any_object(array);
  assert_int_equal(xffi_repr(&printed, &shown), XFFI_OK);
  assert_true(seen.reallocate > before.reallocate);
  xffi_object_dec_ref(printed);

  int64_t shape[2] = {3, 5}; /* a Tensor and its data: one aligned block */
  xffi_object *tensor = NULL;
  int64_t aligned_before = seen.allocate_aligned;
  assert_int_equal(xffi_tensor_new(&tensor, shape, 2, (DLDataType){kDLFloat, 32, 1}), XFFI_OK);
  assert_int_equal(seen.allocate_aligned, aligned_before + 1);

  /* The registry's entries are aligned blocks too. */
  assert_int_equal(xffi_function_new(&func, test_noop_callback, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_global_register("test.allocator.noop", func, 0), XFFI_OK);
  assert_int_equal(xffi_error_raise(XFFI_KIND_VALUE, "raised to be freed"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "raised to be freed");

  assert_int_equal(xffi_function_global_erase("test.allocator.noop"), XFFI_OK);
  xffi_object_dec_ref(func);
  xffi_object_dec_ref(tensor);
  xffi_object_dec_ref(array);
  xffi_object_dec_ref(text);
  assert_int_equal(xffi_testing_registry_reclaim(), 0);

  /* Everything went back to the allocator that made it, with its context. */
  assert_int_equal(seen.deallocate - before.deallocate, seen.allocate - before.allocate);
  assert_true(seen.allocate_aligned > aligned_before);
  assert_int_equal(seen.deallocate_aligned - before.deallocate_aligned,
                   seen.allocate_aligned - before.allocate_aligned);
  assert_int_equal(seen.misaligned, 0);
  assert_int_equal(seen.wrong_context, 0);
}

static void test_a_second_install_is_refused_and_changes_nothing(void **state) {
  (void)state;
  assert_int_equal(xffi_allocator_install(&never_allocator), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_allocator_install: the allocator is fixed already");
  int64_t allocations = seen.allocate;
  xffi_object *text = NULL;
  assert_int_equal(xffi_string_from_c_str(&text, "still made by the counting allocator"), XFFI_OK);
  xffi_object_dec_ref(text);
  assert_int_equal(seen.allocate, allocations + 1);
  assert_int_equal(never_calls, 0);
}

static void test_install_refuses_null_and_incomplete_allocators(void **state) {
  (void)state;
  assert_int_equal(xffi_allocator_install(NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_allocator_install: allocator is NULL");
  static const char *const names[] = {"allocate", "reallocate", "deallocate", "allocate_aligned", "deallocate_aligned"};
  for (int i = 0; i < 5; ++i) {
    xffi_allocator incomplete = never_allocator;
    switch (i) {
      case 0: incomplete.allocate = NULL; break;
      case 1: incomplete.reallocate = NULL; break;
      case 2: incomplete.deallocate = NULL; break;
      case 3: incomplete.allocate_aligned = NULL; break;
      default: incomplete.deallocate_aligned = NULL; break;
    }
    assert_int_equal(xffi_allocator_install(&incomplete), XFFI_FAIL);
    char message[160];
    snprintf(message, sizeof message, "xffi_allocator_install: allocator->%s is NULL; every function must be set",
             names[i]);
    expect_error(XFFI_KIND_VALUE, message);
  }
  assert_int_equal(xffi_allocator_default(NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_allocator_default: out is NULL");
  assert_int_equal(never_calls, 0);
}

int main(void) {
  xffi_allocator counting = {&seen,
                             counting_allocate,
                             counting_reallocate,
                             counting_deallocate,
                             counting_allocate_aligned,
                             counting_deallocate_aligned};
  if (xffi_allocator_default(&system_allocator) != XFFI_OK || xffi_allocator_install(&counting) != XFFI_OK) {
    fprintf(stderr, "test_allocator: installing the counting allocator was refused\n");
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_allocation_and_free_goes_through_the_installed_allocator),
      cmocka_unit_test(test_a_second_install_is_refused_and_changes_nothing),
      cmocka_unit_test(test_install_refuses_null_and_incomplete_allocators),
  };
  return cmocka_run_group_tests_name("allocator", tests, NULL, NULL);
}
