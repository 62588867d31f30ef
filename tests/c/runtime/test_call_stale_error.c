/* A failed call reports the callee's own error, never one left over from
 * before the call: an error still raised when a call begins (a caller
 * ignored an earlier failure, say a KeyError) is released when the call
 * fails, on every call path (xffi_function_call, xffi_function_call_inline,
 * XFFI_CALL, xffi_function_call_unchecked); a successful call leaves it alone. A callee that fails without raising
 * then gets the RuntimeError saying so, and errors passed up through nested
 * calls still arrive. (With tvm-ffi loaded, a tvm-ffi callee's error is
 * adopted instead: tests/interop/test_interop_host.c.) */
#include "test_util.h"

static int fail_silently(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args, (void)result;
  return 7;
}

static int raise_value_error(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args, (void)result;
  return xffi_error_raise(XFFI_KIND_VALUE, "raised by the callee");
}

static int succeed(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args;
  *result = xffi_any_int(1);
  return 0;
}

/* Calls the Function in argument 0 and, when it fails, fails too, leaving
 * its error where it is (a plain pass-through, no frame added). */
static int call_and_fail_with_it(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)num_args;
  return xffi_function_call(args[0].v_obj, NULL, 0, result) != XFFI_OK ? XFFI_FAIL : XFFI_OK;
}

/* Leaves a KeyError raised, as a caller that ignored a failed lookup does;
 * returns it with a reference of the test's own, to see it released. */
static xffi_object *leave_stale_key_error(void) {
  xffi_error_raise(XFFI_KIND_KEY, "left over from an earlier failure");
  xffi_object *stale = xffi_error_peek_raised();
  xffi_object_inc_ref(stale);
  return stale;
}

enum { VIA_CALL, VIA_INLINE, VIA_MACRO, VIA_UNCHECKED, PATHS };

static int call_via(int path, xffi_object *f, xffi_any *result) {
  switch (path) {
    case VIA_CALL: return xffi_function_call(f, NULL, 0, result);
    case VIA_INLINE: return xffi_function_call_inline(f, NULL, 0, result);
    case VIA_MACRO: return XFFI_CALL(f, result, xffi_any_none());
    default: return xffi_function_call_unchecked(f, NULL, 0, result);
  }
}

static void test_silent_failure_is_not_blamed_on_a_stale_error(void **state) {
  (void)state;
  xffi_object *f = NULL;
  assert_int_equal(xffi_function_new(&f, fail_silently, NULL, NULL), XFFI_OK);
  for (int path = 0; path < PATHS; path++) {
    xffi_object *stale = leave_stale_key_error();
    xffi_any result;
    assert_int_equal(call_via(path, f, &result), XFFI_FAIL);
    expect_error(XFFI_KIND_RUNTIME, "xffi_function_call: the callee returned status 7 without raising an error");
    assert_int_equal(xffi_object_strong_count(stale), 1); /* released from the slot */
    xffi_object_dec_ref(stale);
  }
  xffi_object_dec_ref(f);
}

static void test_callee_error_is_reported_not_the_stale_one(void **state) {
  (void)state;
  xffi_object *f = NULL;
  assert_int_equal(xffi_function_new(&f, raise_value_error, NULL, NULL), XFFI_OK);
  for (int path = 0; path < PATHS; path++) {
    xffi_object *stale = leave_stale_key_error();
    xffi_any result;
    assert_int_equal(call_via(path, f, &result), XFFI_FAIL);
    expect_error(XFFI_KIND_VALUE, "raised by the callee");
    assert_int_equal(xffi_object_strong_count(stale), 1);
    xffi_object_dec_ref(stale);
  }
  xffi_object_dec_ref(f);
}

static void test_a_successful_call_leaves_the_slot_alone(void **state) {
  (void)state;
  xffi_object *f = NULL, *silent = NULL;
  assert_int_equal(xffi_function_new(&f, succeed, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_new(&silent, fail_silently, NULL, NULL), XFFI_OK);
  for (int path = 0; path < PATHS; path++) {
    xffi_object *stale = leave_stale_key_error();
    xffi_any result;
    assert_int_equal(call_via(path, f, &result), XFFI_OK);
    assert_int_equal(result.v_int64, 1);
    assert_ptr_equal(xffi_error_peek_raised(), stale); /* a success changes nothing */
    /* The next failing call still knows the error is older than itself. */
    assert_int_equal(call_via(path, silent, &result), XFFI_FAIL);
    expect_error(XFFI_KIND_RUNTIME, "xffi_function_call: the callee returned status 7 without raising an error");
    assert_int_equal(xffi_object_strong_count(stale), 1);
    xffi_object_dec_ref(stale);
  }
  xffi_object_dec_ref(silent);
  xffi_object_dec_ref(f);
}

/* The callee's own error is raised after the call read the clock, so it is
 * kept, call after call (each raise takes a later tick). */
static void test_an_error_raised_during_the_call_is_kept(void **state) {
  (void)state;
  xffi_object *f = NULL;
  assert_int_equal(xffi_function_new(&f, raise_value_error, NULL, NULL), XFFI_OK);
  for (int round = 0; round < 3; round++) {
    xffi_any result;
    assert_int_equal(xffi_function_call_unchecked(f, NULL, 0, &result), XFFI_FAIL);
    expect_error(XFFI_KIND_VALUE, "raised by the callee");
  }
  xffi_object_dec_ref(f);
}

static void test_errors_passed_up_through_nested_calls_arrive(void **state) {
  (void)state;
  xffi_object *outer = NULL, *raises = NULL, *silent = NULL;
  assert_int_equal(xffi_function_new(&outer, call_and_fail_with_it, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_new(&raises, raise_value_error, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_new(&silent, fail_silently, NULL, NULL), XFFI_OK);
  xffi_any result;
  /* The inner callee's error, passed up by the outer one, even with a stale error before. */
  assert_int_equal(XFFI_CALL(outer, &result, xffi_any_object(raises)), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "raised by the callee");
  xffi_object *stale = leave_stale_key_error();
  assert_int_equal(XFFI_CALL(outer, &result, xffi_any_object(raises)), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "raised by the callee");
  assert_int_equal(xffi_object_strong_count(stale), 1);
  xffi_object_dec_ref(stale);
  /* The inner callee failed silently: the RuntimeError raised for it is passed up. */
  stale = leave_stale_key_error();
  assert_int_equal(XFFI_CALL(outer, &result, xffi_any_object(silent)), XFFI_FAIL);
  expect_error(XFFI_KIND_RUNTIME, "xffi_function_call: the callee returned status 7 without raising an error");
  xffi_object_dec_ref(stale);
  xffi_object_dec_ref(silent);
  xffi_object_dec_ref(raises);
  xffi_object_dec_ref(outer);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_silent_failure_is_not_blamed_on_a_stale_error),
      cmocka_unit_test(test_callee_error_is_reported_not_the_stale_one),
      cmocka_unit_test(test_a_successful_call_leaves_the_slot_alone),
      cmocka_unit_test(test_an_error_raised_during_the_call_is_kept),
      cmocka_unit_test(test_errors_passed_up_through_nested_calls_arrive),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
