/* tests/c/runtime/test_bad_input_misc.c: bad inputs for the public entry points the
 * concept tests did not cover, for docs/bad-input.md: the remaining argument
 * getters, the byte-run registry lookup, the error-slot functions, and the
 * total functions (which have no failure mode and must accept NULL or
 * out-of-range input without a crash), and an allocator installed too late
 * (this program installs none: the default one is fixed). */
#include "test_util.h"

#include <xffi/sys/allocator.h>

static void test_arg_getters_refuse_null_out_missing_negative_and_wrong_kind(void **state) {
  (void)state;
  xffi_any args[2] = {xffi_any_c_str("text"), xffi_any_int(3)};
  double f = 0.5;
  int b = 7;
  void *p = (void *)0x1;
  xffi_byte_array s = {NULL, 99};

  assert_int_equal(xffi_arg_to_float(NULL, args, 2, 0, "my_fn"), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_arg_to_float: out is NULL");
  assert_int_equal(xffi_arg_to_bool(NULL, args, 2, 0, "my_fn"), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_arg_to_bool: out is NULL");
  assert_int_equal(xffi_arg_to_ptr(NULL, args, 2, 0, "my_fn"), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_arg_to_ptr: out is NULL");
  assert_int_equal(xffi_arg_to_str(NULL, args, 2, 0, "my_fn"), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_arg_to_str: out is NULL");

  assert_int_equal(xffi_arg_to_float(&f, args, 2, 0, "my_fn"), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "my_fn: argument 0: expected float, got str");
  assert_int_equal(xffi_arg_to_bool(&b, args, 2, 0, "my_fn"), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "my_fn: argument 0: expected bool, got str");
  assert_int_equal(xffi_arg_to_ptr(&p, args, 2, 1, "my_fn"), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "my_fn: argument 1: expected void*, got int");
  assert_int_equal(xffi_arg_to_str(&s, args, 2, 1, "my_fn"), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "my_fn: argument 1: expected str, got int");

  assert_int_equal(xffi_arg_to_str(&s, args, 2, 2, "my_fn"), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "my_fn: argument 2: missing (called with 2 arguments)");
  assert_int_equal(xffi_arg_to_float(&f, args, 1, -1, "my_fn"), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "my_fn: argument index is negative (-1)");
  assert_int_equal(xffi_arg_to_bool(&b, args, -2, 0, "my_fn"), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "my_fn: num_args is negative (-2)");
  assert_int_equal(xffi_arg_to_ptr(&p, NULL, 1, 0, "my_fn"), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "my_fn: args is NULL but num_args is 1");
  /* A NULL callee name is replaced, not dereferenced. */
  assert_int_equal(xffi_arg_to_float(&f, args, 2, 0, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "<function>: argument 0: expected float, got str");
  /* Nothing was written on any failure. */
  assert_true(f == 0.5);
  assert_int_equal(b, 7);
  assert_ptr_equal(p, (void *)0x1);
  assert_int_equal(s.size, 99);
}

static void test_global_get_bytes_refuses_null_out_and_null_data_with_size(void **state) {
  (void)state;
  xffi_object *f = (xffi_object *)0x1;
  xffi_byte_array name = {"abc", 3};
  assert_int_equal(xffi_function_global_lookup_bytes(NULL, name), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "out is NULL");
  xffi_byte_array bad = {NULL, 3};
  assert_int_equal(xffi_function_global_lookup_bytes(&f, bad), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "name.data is NULL but name.size is 3");
  /* An absent name, embedded NULs included, is not an error. */
  xffi_byte_array absent = {"no\0such", 7};
  assert_int_equal(xffi_function_global_lookup_bytes(&f, absent), XFFI_OK);
  assert_null(f);
}

static void test_error_slot_functions_on_an_empty_slot_and_bad_errors(void **state) {
  (void)state;
  xffi_error_set_raised(NULL);
  assert_null(xffi_error_peek_raised());
  assert_null(xffi_error_move_raised());
  /* Passing on when nothing was raised: still a failure status, nothing invented. */
  assert_int_equal(xffi_error_pass("frame"), XFFI_FAIL);
  assert_null(xffi_error_peek_raised());
  /* A NULL frame is ignored; the raised error stays. */
  assert_int_equal(xffi_error_raise_str(XFFI_KIND_KEY, "my_fn: no key 'x'"), XFFI_FAIL);
  assert_int_equal(xffi_error_pass(NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_KEY, "my_fn: no key 'x'");
  /* Raising always leaves an error, the pre-made MemoryError included. */
  assert_int_equal(xffi_error_raise_out_of_memory(), XFFI_FAIL);
  assert_raised(XFFI_KIND_MEMORY, "");
  assert_int_equal(xffi_error_raise(XFFI_KIND_RUNTIME, "my_fn: %s %d", "count", 3), XFFI_FAIL);
  expect_error(XFFI_KIND_RUNTIME, "my_fn: count 3");
  /* is_kind is total: NULL error, non-Error object, NULL kind. */
  assert_int_equal(xffi_error_is_kind(NULL, XFFI_KIND_VALUE), 0);
  xffi_object *s = NULL;
  assert_int_equal(xffi_string_from_c_str(&s, "ValueError"), XFFI_OK);
  assert_int_equal(xffi_error_is_kind(s, XFFI_KIND_VALUE), 0);
  xffi_object_dec_ref(s);
  xffi_object *err = NULL;
  assert_int_equal(xffi_error_new(&err, XFFI_KIND_VALUE, "m"), XFFI_OK);
  assert_int_equal(xffi_error_is_kind(err, NULL), 0);
  xffi_object_dec_ref(err);
}

static void test_total_functions_accept_null_and_out_of_range_input(void **state) {
  (void)state;
  xffi_object_inc_ref(NULL);
  xffi_object_dec_ref(NULL);
  xffi_weak_release(NULL);
  assert_string_equal(xffi_any_kind_name(NULL), "NULL");
  xffi_any odd = xffi_any_none();
  odd.type_index = 40; /* a plain-value index no kind uses */
  assert_string_equal(xffi_any_kind_name(&odd), "<unregistered type>");
  assert_string_equal(xffi_type_key(-5), "<unregistered type>");
  assert_string_equal(xffi_type_key(100), "<unregistered type>");
  assert_string_equal(xffi_type_key(INT32_MAX), "<unregistered type>");
  assert_true(xffi_type_count() >= XFFI_TYPE_DYNAMIC_BEGIN);
  assert_null(xffi_device_type_name(0));
  assert_null(xffi_device_type_name(5));
  assert_null(xffi_device_type_name(-1));
  assert_null(xffi_device_type_name(INT32_MAX));
  assert_string_equal(xffi_device_type_name(kDLCPU), "cpu");
  xffi_byte_array empty = {NULL, 0}, a = {"a", 1};
  assert_int_equal(xffi_bytes_compare(empty, empty), 0);
  assert_true(xffi_bytes_compare(empty, a) < 0);
  assert_true(xffi_bytes_compare(a, empty) > 0);
  assert_int_equal(xffi_bytes_hash(NULL, 0), xffi_bytes_hash("", 0));
  assert_string_equal(xffi_version(), XFFI_VERSION_STRING);
  assert_int_equal(xffi_abi_version(), XFFI_ABI_VERSION);
  assert_nothing_raised();
}

static int64_t late_allocator_calls;
static void *late_allocate(void *context, size_t size) {
  (void)context, (void)size;
  late_allocator_calls++;
  return NULL;
}
static void *late_reallocate(void *context, void *ptr, size_t size) {
  (void)context, (void)ptr, (void)size;
  late_allocator_calls++;
  return NULL;
}
static void late_deallocate(void *context, void *ptr) {
  (void)context, (void)ptr;
  late_allocator_calls++;
}
static void *late_allocate_aligned(void *context, size_t alignment, size_t size) {
  (void)context, (void)alignment, (void)size;
  late_allocator_calls++;
  return NULL;
}

static void test_allocator_install_after_the_first_allocation_is_refused(void **state) {
  (void)state;
  xffi_object *text = NULL;
  assert_int_equal(xffi_string_from_c_str(&text, "allocated with the default allocator"), XFFI_OK);
  const xffi_allocator late = {NULL,           late_allocate, late_reallocate, late_deallocate, late_allocate_aligned,
                               late_deallocate};
  assert_int_equal(xffi_allocator_install(&late), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_allocator_install: the allocator is fixed already (the library has "
               "allocated, or an allocator was installed); install it before any other xffi call");
  assert_int_equal(xffi_allocator_install(NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_allocator_install: allocator is NULL");
  xffi_allocator no_free = late;
  no_free.deallocate = NULL;
  assert_int_equal(xffi_allocator_install(&no_free), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_allocator_install: allocator->deallocate is NULL; every function must be set");
  /* The default allocator still serves, and frees what it made. */
  xffi_object_dec_ref(text);
  assert_int_equal(xffi_string_from_c_str(&text, "allocated with the default allocator"), XFFI_OK);
  xffi_object_dec_ref(text);
  assert_int_equal(late_allocator_calls, 0);
  /* The default allocator's functions work whatever is installed. */
  xffi_allocator system;
  assert_int_equal(xffi_allocator_default(&system), XFFI_OK);
  void *block = system.allocate_aligned(system.context, 64, 100);
  assert_non_null(block);
  assert_int_equal((uintptr_t)block % 64, 0);
  system.deallocate_aligned(system.context, block);
  assert_int_equal(xffi_allocator_default(NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_allocator_default: out is NULL");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arg_getters_refuse_null_out_missing_negative_and_wrong_kind),
      cmocka_unit_test(test_global_get_bytes_refuses_null_out_and_null_data_with_size),
      cmocka_unit_test(test_error_slot_functions_on_an_empty_slot_and_bad_errors),
      cmocka_unit_test(test_total_functions_accept_null_and_out_of_range_input),
      cmocka_unit_test(test_allocator_install_after_the_first_allocation_is_refused),
  };
  return cmocka_run_group_tests_name("bad_input_misc", tests, NULL, NULL);
}
