/* tests/c/runtime/test_function.c: Function objects, calls, errors across calls and
 * argument checking. */

#include "test_util.h"

#include <xffi/function.h>
#include "failing_allocator.h"

/* ---- Callees used by the tests ---- */

static int add_ints(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  int64_t a, b;
  if (xffi_arg_check_signature(args, num_args, "ii", "add_ints") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int_inline(&a, args, num_args, 0, "add_ints") ||
      xffi_arg_to_int_inline(&b, args, num_args, 1, "add_ints"))
    return XFFI_FAIL;
  *result = xffi_any_int(a + b);
  return XFFI_OK;
}

static int count_calls(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)args;
  int *counter = resource;
  ++*counter;
  *result = xffi_any_int(num_args);
  return XFFI_OK;
}

static int finalized;
static void count_finalizer(void *resource) {
  (void)resource;
  ++finalized;
}

static int raise_value_error(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args, (void)result;
  return xffi_error_raise(XFFI_KIND_VALUE, "inner: bad value %d", 42);
}

/* Calls the function given as argument 0 and passes its error on with a frame. */
static int call_and_pass(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  xffi_object *inner;
  if (xffi_arg_to_object(&inner, args, num_args, 0, XFFI_TYPE_FUNCTION, "call_and_pass") != XFFI_OK) return XFFI_FAIL;
  if (xffi_function_call(inner, NULL, 0, result) != XFFI_OK) return xffi_error_pass("  at call_and_pass (outer)");
  return XFFI_OK;
}

static int fail_silently(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args, (void)result;
  return 7;
}

/* Stores an owned object (the resource, a Function) in result, then fails. */
static int fail_after_setting_result(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)args, (void)num_args;
  *result = xffi_any_object_new_ref(resource);
  return xffi_error_raise(XFFI_KIND_RUNTIME, "failing after setting a result");
}

/* ---- Creation and calls ---- */

static void test_call_with_zero_and_two_int_arguments(void **state) {
  (void)state;
  int counter = 0;
  xffi_object *f = NULL, *add = NULL;
  assert_int_equal(xffi_function_new(&f, count_calls, &counter, NULL), XFFI_OK);
  assert_int_equal(f->type_index, XFFI_TYPE_FUNCTION);
  xffi_any result = xffi_any_int(99);
  assert_int_equal(xffi_function_call(f, NULL, 0, &result), XFFI_OK);
  assert_int_equal(result.type_index, XFFI_TYPE_INT);
  assert_int_equal(result.v_int64, 0);
  assert_int_equal(counter, 1);

  assert_int_equal(xffi_function_new(&add, add_ints, NULL, NULL), XFFI_OK);
  xffi_any args[2] = {xffi_any_int(40), xffi_any_int(2)};
  assert_int_equal(xffi_function_call(add, args, 2, &result), XFFI_OK);
  assert_int_equal(result.v_int64, 42);
  assert_int_equal(xffi_function_call_inline(add, args, 2, &result), XFFI_OK);
  assert_int_equal(result.v_int64, 42);
  assert_int_equal(XFFI_CALL(add, &result, xffi_any_int(5), xffi_any_bool(1)), XFFI_OK);
  assert_int_equal(result.v_int64, 6);
  assert_int_equal(XFFI_CALL(f, &result, xffi_any_c_str("x"), xffi_any_none(), xffi_any_float(1.5)), XFFI_OK);
  assert_int_equal(result.v_int64, 3);
  xffi_object_dec_ref(f);
  xffi_object_dec_ref(add);
}

static void test_cell_matches_the_tvm_ffi_layout_and_handle_convention(void **state) {
  (void)state;
  int counter = 0;
  xffi_object *f;
  assert_int_equal(xffi_function_new(&f, count_calls, &counter, NULL), XFFI_OK);
  /* The cell starts at byte 24; safe_call is called with the object itself
   * as handle, as a tvm-ffi runtime does; cpp_call is NULL. */
  xffi_function_cell *cell = (xffi_function_cell *)((char *)f + 24);
  assert_null(cell->cpp_call);
  xffi_any args[1] = {xffi_any_int(1)};
  xffi_any result = xffi_any_none();
  assert_int_equal(cell->safe_call(f, args, 1, &result), 0);
  assert_int_equal(result.v_int64, 1);
  assert_int_equal(counter, 1);
  xffi_object_dec_ref(f);
}

static void test_function_travels_in_an_any_and_as_an_argument(void **state) {
  (void)state;
  xffi_object *inner, *outer;
  assert_int_equal(xffi_function_new(&inner, add_ints, NULL, NULL), XFFI_OK);
  xffi_any held = xffi_any_object_new_ref(inner);
  assert_int_equal(held.type_index, XFFI_TYPE_FUNCTION);
  assert_int_equal(xffi_object_strong_count(inner), 2);
  xffi_object_dec_ref(inner);

  assert_int_equal(xffi_function_new(&outer, call_and_pass, NULL, NULL), XFFI_OK);
  xffi_any result;
  /* inner needs two ints and gets none: its error crosses both calls. */
  assert_int_equal(xffi_function_call(outer, &held, 1, &result), XFFI_FAIL);
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  assert_raised(XFFI_KIND_TYPE, "add_ints: expected 2 arguments, got 0");
  xffi_any_release(&held);
  assert_int_equal(held.type_index, XFFI_TYPE_NONE);
  xffi_object_dec_ref(outer);
}

/* ---- Finalizers ---- */

static void test_finalizer_runs_once_when_the_last_reference_goes(void **state) {
  (void)state;
  finalized = 0;
  xffi_object *f;
  assert_int_equal(xffi_function_new(&f, count_calls, NULL, count_finalizer), XFFI_OK);
  xffi_object_inc_ref(f);
  xffi_object_dec_ref(f);
  assert_int_equal(finalized, 0);
  xffi_object_dec_ref(f);
  assert_int_equal(finalized, 1);
}

static void test_finalizer_runs_once_with_weak_references_left(void **state) {
  (void)state;
  finalized = 0;
  xffi_object *f, *locked = (xffi_object *)1;
  xffi_weak *weak;
  assert_int_equal(xffi_function_new(&f, count_calls, NULL, count_finalizer), XFFI_OK);
  assert_int_equal(xffi_weak_new(&weak, f), XFFI_OK);
  xffi_object_dec_ref(f);
  assert_int_equal(finalized, 1);
  assert_int_equal(xffi_weak_lock(&locked, weak), XFFI_OK);
  assert_null(locked);
  xffi_weak_release(weak);
  assert_int_equal(finalized, 1);
}

#if XFFI_TEST_HAVE_THREADS
#  include <pthread.h>

static void *drop_on_thread(void *arg) {
  xffi_object_dec_ref(arg);
  return NULL;
}

static void test_finalizer_runs_on_the_thread_that_drops_the_last_reference(void **state) {
  (void)state;
  finalized = 0;
  xffi_object *f;
  assert_int_equal(xffi_function_new(&f, count_calls, NULL, count_finalizer), XFFI_OK);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, drop_on_thread, f), 0);
  assert_int_equal(pthread_join(t, NULL), 0);
  assert_int_equal(finalized, 1);
}
#endif

static void test_owner_is_kept_alive_and_released_after_the_finalizer(void **state) {
  (void)state;
  finalized = 0;
  xffi_object *owner, *f;
  assert_int_equal(xffi_function_new(&owner, count_calls, NULL, count_finalizer), XFFI_OK);
  assert_int_equal(xffi_function_new_with_owner(&f, count_calls, NULL, count_finalizer, owner), XFFI_OK);
  assert_int_equal(xffi_object_strong_count(owner), 2);
  xffi_object_dec_ref(owner);
  assert_int_equal(finalized, 0);
  xffi_object_dec_ref(f);
  assert_int_equal(finalized, 2);
}

static void test_creation_out_of_memory_leaves_the_resource_to_the_caller(void **state) {
  (void)state;
  finalized = 0;
  xffi_object *f = (xffi_object *)1;
  failing_allocator_fail_after(0);
  int status = xffi_function_new(&f, count_calls, NULL, count_finalizer);
  failing_allocator_fail_after(-1);
  assert_int_equal(status, XFFI_FAIL);
  assert_null(f);
  assert_int_equal(finalized, 0);
  assert_raised(XFFI_KIND_MEMORY, "");
}

/* ---- Direct functions ---- */

/* A direct callee: handle is its Function; the resource counts the calls. */
static void *seen_handle;
static int direct_count_calls(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)args;
  seen_handle = handle;
  int *counter = xffi_function_resource_unchecked(handle);
  ++*counter;
  *result = xffi_any_int(num_args);
  return XFFI_OK;
}

static int direct_raise(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args, (void)result;
  return xffi_error_raise(XFFI_KIND_VALUE, "direct: bad value %d", 7);
}

static void test_direct_function_gets_its_object_and_resource_and_finalizes_once(void **state) {
  (void)state;
  int counter = 0;
  finalized = 0;
  xffi_object *f;
  assert_int_equal(xffi_function_new_direct(&f, direct_count_calls, &counter, count_finalizer), XFFI_OK);
  assert_int_equal(f->type_index, XFFI_TYPE_FUNCTION);
  assert_ptr_equal(xffi_function_resource_unchecked(f), &counter);
  /* The cell holds the callee itself: a tvm-ffi caller reaches it directly. */
  xffi_function_cell *cell = (xffi_function_cell *)((char *)f + 24);
  assert_ptr_equal(cell->safe_call, direct_count_calls);
  assert_null(cell->cpp_call);
  xffi_any result = xffi_any_int(99);
  assert_int_equal(XFFI_CALL(f, &result, xffi_any_int(1), xffi_any_int(2)), XFFI_OK);
  assert_int_equal(result.v_int64, 2);
  assert_ptr_equal(seen_handle, f);
  assert_int_equal(xffi_function_call(f, NULL, 0, &result), XFFI_OK);
  assert_int_equal(xffi_function_call_unchecked(f, NULL, 0, &result), XFFI_OK);
  assert_int_equal(counter, 3);
  assert_int_equal(finalized, 0);
  xffi_object_dec_ref(f);
  assert_int_equal(finalized, 1);
}

static void test_callback_function_resource_is_readable_too(void **state) {
  (void)state;
  int counter = 0;
  xffi_object *f;
  assert_int_equal(xffi_function_new(&f, count_calls, &counter, NULL), XFFI_OK);
  assert_ptr_equal(xffi_function_resource_unchecked(f), &counter);
  xffi_object_dec_ref(f);
}

static void test_unchecked_call_passes_errors_and_releases_a_failed_result(void **state) {
  (void)state;
  xffi_object *f, *payload, *g;
  assert_int_equal(xffi_function_new_direct(&f, direct_raise, NULL, NULL), XFFI_OK);
  xffi_any result = xffi_any_int(5);
  assert_int_equal(xffi_function_call_unchecked(f, NULL, 0, &result), XFFI_FAIL);
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  expect_error(XFFI_KIND_VALUE, "direct: bad value 7");
  assert_int_equal(xffi_function_new(&payload, count_calls, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_new(&g, fail_after_setting_result, payload, NULL), XFFI_OK);
  assert_int_equal(xffi_function_call_unchecked(g, NULL, 0, &result), XFFI_FAIL);
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  assert_raised(XFFI_KIND_RUNTIME, "failing after setting a result");
  assert_int_equal(xffi_object_strong_count(payload), 1);
  xffi_object_dec_ref(g);
  xffi_object_dec_ref(payload);
  xffi_object_dec_ref(f);
}

static void test_direct_creation_out_of_memory_leaves_the_resource_to_the_caller(void **state) {
  (void)state;
  finalized = 0;
  xffi_object *f = (xffi_object *)1;
  failing_allocator_fail_after(0);
  int status = xffi_function_new_direct(&f, direct_count_calls, NULL, count_finalizer);
  failing_allocator_fail_after(-1);
  assert_int_equal(status, XFFI_FAIL);
  assert_null(f);
  assert_int_equal(finalized, 0);
  assert_raised(XFFI_KIND_MEMORY, "");
}

/* ---- Errors across calls ---- */

static void test_callee_error_is_moved_out_by_the_caller_with_frames(void **state) {
  (void)state;
  xffi_object *inner, *outer;
  assert_int_equal(xffi_function_new(&inner, raise_value_error, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_new(&outer, call_and_pass, NULL, NULL), XFFI_OK);
  xffi_any arg = xffi_any_object(inner), result;
  assert_int_not_equal(xffi_function_call(outer, &arg, 1, &result), XFFI_OK);
  xffi_object *err = xffi_error_move_raised();
  assert_non_null(err);
  assert_null(xffi_error_peek_raised());
  const xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
  assert_string_equal(cell->kind.data, "ValueError");
  assert_string_equal(cell->message.data, "inner: bad value 42");
  assert_non_null(strstr(cell->backtrace.data, "at call_and_pass (outer)"));
  xffi_object_dec_ref(err);
  xffi_object_dec_ref(inner);
  xffi_object_dec_ref(outer);
}

static void test_callee_failing_without_raising_gets_a_runtime_error(void **state) {
  (void)state;
  xffi_object *f;
  assert_int_equal(xffi_function_new(&f, fail_silently, NULL, NULL), XFFI_OK);
  xffi_any result;
  assert_int_equal(xffi_function_call(f, NULL, 0, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "xffi_function_call: the callee returned status 7 without raising an error");
  assert_int_equal(xffi_function_call_inline(f, NULL, 0, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "returned status 7");
  xffi_object_dec_ref(f);
}

static void test_result_left_by_a_failing_callee_is_released(void **state) {
  (void)state;
  finalized = 0;
  xffi_object *payload, *f;
  assert_int_equal(xffi_function_new(&payload, count_calls, NULL, count_finalizer), XFFI_OK);
  assert_int_equal(xffi_function_new(&f, fail_after_setting_result, payload, NULL), XFFI_OK);
  xffi_any result;
  assert_int_equal(xffi_function_call(f, NULL, 0, &result), XFFI_FAIL);
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  assert_raised(XFFI_KIND_RUNTIME, "failing after setting a result");
  assert_int_equal(xffi_object_strong_count(payload), 1);
  xffi_object_dec_ref(f);
  xffi_object_dec_ref(payload);
  assert_int_equal(finalized, 1);
}

/* ---- Bad input ---- */

static void test_new_rejects_null_out_and_null_callback(void **state) {
  (void)state;
  xffi_object *f = (xffi_object *)1;
  assert_int_equal(xffi_function_new(NULL, count_calls, NULL, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_new: out is NULL");
  assert_int_equal(xffi_function_new(&f, NULL, NULL, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_new: callback is NULL");
  assert_null(f);
  assert_int_equal(xffi_function_new_with_owner(&f, NULL, NULL, NULL, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_new_with_owner: callback is NULL");
  assert_int_equal(xffi_function_new_direct(NULL, direct_count_calls, NULL, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_function_new_direct: out is NULL");
  f = (xffi_object *)1;
  assert_int_equal(xffi_function_new_direct(&f, NULL, NULL, count_finalizer), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_function_new_direct: call is NULL");
  assert_null(f);
}

typedef int (*call_fn)(xffi_object *, const xffi_any *, int32_t, xffi_any *);

static void check_bad_calls(call_fn call) {
  xffi_object *f, *s;
  assert_int_equal(xffi_function_new(&f, add_ints, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_string_from_c_str(&s, "not a function"), XFFI_OK);
  xffi_any args[2] = {xffi_any_int(1), xffi_any_int(2)};
  xffi_any result = xffi_any_int(5);

  assert_int_equal(call(s, args, 2, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_function_call: func expected ffi.Function, got ffi.String");
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  assert_int_equal(call(NULL, args, 2, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_call: func is NULL");
  assert_int_equal(call(f, NULL, 2, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_call: args is NULL but num_args is 2");
  assert_int_equal(call(f, args, -1, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_call: num_args is negative (-1)");
  assert_int_equal(call(f, args, 2, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_call: result is NULL");
  /* Wrong argument types reach the callee's check. */
  xffi_any wrong[2] = {xffi_any_int(1), xffi_any_c_str("two")};
  assert_int_equal(call(f, wrong, 2, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "add_ints: argument 1: expected int, got str");
  xffi_object_dec_ref(f);
  xffi_object_dec_ref(s);
}

static int call_inline_wrapper(xffi_object *f, const xffi_any *args, int32_t n, xffi_any *r) {
  return xffi_function_call_inline(f, args, n, r);
}

static void test_call_rejects_bad_input(void **state) {
  (void)state;
  check_bad_calls(xffi_function_call);
  check_bad_calls(call_inline_wrapper);
}

/* ---- Argument checking ---- */

static void test_arg_helpers_convert_and_name_position_expected_and_got(void **state) {
  (void)state;
  xffi_object *s, *f;
  assert_int_equal(xffi_string_from_c_str(&s, "a String object"), XFFI_OK);
  assert_int_equal(xffi_function_new(&f, add_ints, NULL, NULL), XFFI_OK);
  int dummy;
  xffi_any args[6] = {xffi_any_int(3),    xffi_any_float(2.5),  xffi_any_bool(1),
                      xffi_any_object(s), xffi_any_ptr(&dummy), xffi_any_object(f)};
  int64_t i = 0;
  double d = 0;
  int b = 0;
  void *p = NULL;
  xffi_byte_array str = {0};
  xffi_object *o = NULL;
  assert_int_equal(xffi_arg_to_int_inline(&i, args, 6, 0, "my_func"), XFFI_OK);
  assert_int_equal(i, 3);
  assert_int_equal(xffi_arg_to_int_inline(&i, args, 6, 2, "my_func"), XFFI_OK); /* bool is an int */
  assert_int_equal(i, 1);
  assert_int_equal(xffi_arg_to_float_inline(&d, args, 6, 1, "my_func"), XFFI_OK);
  assert_true(d == 2.5);
  assert_int_equal(xffi_arg_to_float_inline(&d, args, 6, 0, "my_func"), XFFI_OK); /* int is a float */
  assert_true(d == 3.0);
  assert_int_equal(xffi_arg_to_bool(&b, args, 6, 0, "my_func"), XFFI_OK);
  assert_int_equal(b, 1);
  assert_int_equal(xffi_arg_to_str(&str, args, 6, 3, "my_func"), XFFI_OK);
  assert_int_equal(str.size, strlen("a String object"));
  assert_int_equal(xffi_arg_to_ptr(&p, args, 6, 4, "my_func"), XFFI_OK);
  assert_ptr_equal(p, &dummy);
  assert_int_equal(xffi_arg_to_object(&o, args, 6, 5, XFFI_TYPE_FUNCTION, "my_func"), XFFI_OK);
  assert_ptr_equal(o, f);
  assert_int_equal(xffi_arg_to_object(&o, args, 6, 3, XFFI_TYPE_OBJECT, "my_func"), XFFI_OK);
  assert_ptr_equal(o, s);

  assert_int_equal(xffi_arg_to_int_inline(&i, args, 6, 3, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "my_func: argument 3: expected int, got ffi.String");
  assert_int_equal(xffi_arg_to_float_inline(&d, args, 6, 5, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "my_func: argument 5: expected float, got ffi.Function");
  assert_int_equal(xffi_arg_to_bool(&b, args, 6, 1, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "my_func: argument 1: expected bool, got float");
  assert_int_equal(xffi_arg_to_str(&str, args, 6, 0, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "my_func: argument 0: expected str, got int");
  assert_int_equal(xffi_arg_to_ptr(&p, args, 6, 3, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "my_func: argument 3: expected void*, got ffi.String");
  assert_int_equal(xffi_arg_to_object(&o, args, 6, 3, XFFI_TYPE_FUNCTION, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "my_func: argument 3: expected ffi.Function, got ffi.String");
  assert_int_equal(xffi_arg_to_object(&o, args, 6, 0, XFFI_TYPE_OBJECT, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "my_func: argument 0: expected ffi.Object, got int");
  assert_int_equal(xffi_arg_to_int_inline(&i, args, 2, 2, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "my_func: argument 2: missing (called with 2 arguments)");
  assert_int_equal(xffi_arg_to_int_inline(&i, args, 6, -1, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "my_func: argument index is negative (-1)");
  assert_int_equal(xffi_arg_to_int_inline(&i, NULL, 3, 0, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "my_func: args is NULL but num_args is 3");
  assert_int_equal(xffi_arg_to_int(NULL, args, 6, 0, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_arg_to_int: out is NULL");
  assert_int_equal(xffi_arg_to_object(&o, args, 6, 0, XFFI_TYPE_INT, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_arg_to_object: type_index 1 is not a registered object type");
  assert_int_equal(xffi_arg_to_object(&o, args, 6, 0, 100000, "my_func"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_arg_to_object: type_index 100000 is not a registered object type");
  assert_nothing_raised();
  xffi_object_dec_ref(s);
  xffi_object_dec_ref(f);
}

static void test_args_check_matches_counts_and_kinds(void **state) {
  (void)state;
  xffi_object *f;
  assert_int_equal(xffi_function_new(&f, add_ints, NULL, NULL), XFFI_OK);
  int dummy;
  xffi_any args[9] = {xffi_any_int(1),     xffi_any_float(2),       xffi_any_bool(0),
                      xffi_any_c_str("s"), xffi_any_c_str("bytes"), xffi_any_ptr(&dummy),
                      xffi_any_object(f),  xffi_any_object(f),      xffi_any_none()};
  assert_int_equal(xffi_arg_check_signature(args, 9, "ifbsypoF*", "g"), XFFI_OK);
  assert_int_equal(xffi_arg_check_signature(NULL, 0, "", "g"), XFFI_OK);
  assert_int_equal(xffi_arg_check_signature(args, 2, "i", "g"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "g: expected 1 argument, got 2");
  assert_int_equal(xffi_arg_check_signature(args, 1, "ii", "g"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "g: expected 2 arguments, got 1");
  assert_int_equal(xffi_arg_check_signature(args, 2, "ii", "g"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "g: argument 1: expected int, got float");
  assert_int_equal(xffi_arg_check_signature(args + 3, 1, "F", "g"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "g: argument 0: expected ffi.Function, got str");
  assert_int_equal(xffi_arg_check_signature(args + 8, 1, "o", "g"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "g: argument 0: expected ffi.Object, got None");
  assert_int_equal(xffi_arg_check_signature(args, 1, "q", "g"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_arg_check_signature: signature \"q\": unknown character 'q' at 0");
  assert_int_equal(xffi_arg_check_signature(args, 1, NULL, "g"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_arg_check_signature: signature is NULL");
  assert_int_equal(xffi_arg_check_signature(args, 1, "i", NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_arg_check_signature: fn is NULL");
  assert_int_equal(xffi_arg_check_signature(NULL, 1, "i", "g"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "g: args is NULL but num_args is 1");
  assert_int_equal(xffi_arg_check_signature(args, -3, "i", "g"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "g: num_args is negative (-3)");
  xffi_object_dec_ref(f);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_call_with_zero_and_two_int_arguments),
    cmocka_unit_test(test_cell_matches_the_tvm_ffi_layout_and_handle_convention),
    cmocka_unit_test(test_function_travels_in_an_any_and_as_an_argument),
    cmocka_unit_test(test_finalizer_runs_once_when_the_last_reference_goes),
    cmocka_unit_test(test_finalizer_runs_once_with_weak_references_left),
#if XFFI_TEST_HAVE_THREADS
    cmocka_unit_test(test_finalizer_runs_on_the_thread_that_drops_the_last_reference),
#endif
    cmocka_unit_test(test_owner_is_kept_alive_and_released_after_the_finalizer),
    cmocka_unit_test(test_creation_out_of_memory_leaves_the_resource_to_the_caller),
    cmocka_unit_test(test_direct_function_gets_its_object_and_resource_and_finalizes_once),
    cmocka_unit_test(test_callback_function_resource_is_readable_too),
    cmocka_unit_test(test_unchecked_call_passes_errors_and_releases_a_failed_result),
    cmocka_unit_test(test_direct_creation_out_of_memory_leaves_the_resource_to_the_caller),
    cmocka_unit_test(test_callee_error_is_moved_out_by_the_caller_with_frames),
    cmocka_unit_test(test_callee_failing_without_raising_gets_a_runtime_error),
    cmocka_unit_test(test_result_left_by_a_failing_callee_is_released),
    cmocka_unit_test(test_new_rejects_null_out_and_null_callback),
    cmocka_unit_test(test_call_rejects_bad_input),
    cmocka_unit_test(test_arg_helpers_convert_and_name_position_expected_and_got),
    cmocka_unit_test(test_args_check_matches_counts_and_kinds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
