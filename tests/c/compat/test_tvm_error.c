/* tvm-ffi's error functions (TVMFFIError*, TVMFFIBacktrace) on xffi's one
 * raised slot: ownership (SetRaised borrows, Create returns a new reference,
 * CreateWithCause borrows both objects), messages from parts, backtraces in
 * the format tvm_ffi's Python parses, and bad input raising, never aborting. */
#define _POSIX_C_SOURCE 200809L
#include "failing_allocator.h"
#include "test_clock.h"

#include "test_util.h"

#include <xffi/tvm_ffi.h>

static xffi_byte_array text(const char *s) { return (xffi_byte_array){s, strlen(s)}; }

static const xffi_error_cell *cell(void *err) { return xffi_error_cell_of_unchecked(err); }

/* One slot: what xffi raises TVMFFIErrorMoveFromRaised takes, and the reverse. */
static void test_one_slot_for_both_apis(void **state) {
  (void)state;
  xffi_error_raise(XFFI_KIND_KEY, "from xffi");
  void *err = (void *)0x1;
  TVMFFIErrorMoveFromRaised(&err);
  assert_non_null(err);
  assert_string_equal(cell(err)->message.data, "from xffi");
  assert_int_equal(xffi_object_strong_count(err), 1); /* the slot's reference moved out */
  TVMFFIObjectDecRef(err);
  TVMFFIErrorMoveFromRaised(&err);
  assert_null(err); /* empty slot: NULL, not an error */

  TVMFFIErrorSetRaisedFromCStr("IndexError", "from tvm");
  expect_error("IndexError", "from tvm");
  TVMFFIErrorMoveFromRaised(NULL); /* nowhere to put it: nothing happens */
}

/* TVMFFIErrorSetRaised takes a reference of its own: the caller still owns its. */
static void test_set_raised_borrows(void **state) {
  (void)state;
  void *err = NULL;
  assert_int_equal(TVMFFIErrorCreate(&(xffi_byte_array){"ValueError", 10}, &(xffi_byte_array){"m", 1}, NULL, &err), 0);
  assert_int_equal(xffi_object_strong_count(err), 1);
  TVMFFIErrorSetRaised(err);
  assert_int_equal(xffi_object_strong_count(err), 2);
  assert_ptr_equal(xffi_error_peek_raised(), err);
  TVMFFIErrorSetRaised(err); /* again: the old reference is released, a new one taken */
  assert_int_equal(xffi_object_strong_count(err), 2);
  TVMFFIObjectDecRef(err); /* the caller's */
  expect_error("ValueError", "m");
}

static void test_set_raised_bad_input(void **state) {
  (void)state;
  /* NULL empties the slot, as in tvm-ffi. */
  xffi_error_raise(XFFI_KIND_KEY, "to be cleared");
  TVMFFIErrorSetRaised(NULL);
  assert_null(xffi_error_peek_raised());
  xffi_object *s = NULL;
  assert_int_equal(xffi_string_from_c_str(&s, "not an error"), XFFI_OK);
  TVMFFIErrorSetRaised(s);
  assert_raised(XFFI_KIND_TYPE, "expected ffi.Error, got ffi.String");
  assert_int_equal(xffi_object_strong_count(s), 1); /* borrowed: untouched */
  xffi_object_dec_ref(s);
}

static void test_set_raised_from_parts_concatenates_and_skips_null(void **state) {
  (void)state;
  const char *parts[] = {"index ", NULL, "7", " out of range"};
  TVMFFIErrorSetRaisedFromCStrParts("IndexError", parts, 4);
  expect_error("IndexError", "index 7 out of range");
  TVMFFIErrorSetRaisedFromCStrParts("IndexError", NULL, 0);
  expect_error("IndexError", "");
  TVMFFIErrorSetRaisedFromCStrParts("IndexError", NULL, 2);
  expect_error(XFFI_KIND_VALUE, "TVMFFIErrorSetRaisedFromCStrParts: message_parts is NULL but num_parts is 2");
  TVMFFIErrorSetRaisedFromCStrParts("IndexError", parts, -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIErrorSetRaisedFromCStrParts: num_parts is -1, expected >= 0");
  TVMFFIErrorSetRaisedFromCStrParts(NULL, parts, 1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIErrorSetRaisedFromCStrParts: kind is NULL (message: index )");
  TVMFFIErrorSetRaisedFromCStr(NULL, "lost kind");
  expect_error(XFFI_KIND_VALUE, "TVMFFIErrorSetRaisedFromCStr: kind is NULL (message: lost kind)");
  TVMFFIErrorSetRaisedFromCStr("RuntimeError", NULL);
  expect_error("RuntimeError", "");
}

/* Each line as tvm_ffi's Python parses it: '  File "<f>", line <n>, in <func>'. */
static void assert_backtrace_format(const char *bt, size_t size) {
  assert_int_equal(strlen(bt), size);
  const char *line = bt;
  while (*line) {
    const char *end = strchr(line, '\n');
    assert_non_null(end); /* every frame ends its line */
    assert_int_equal(strncmp(line, "  File \"", 8), 0);
    const char *close = strstr(line + 8, "\", line ");
    assert_non_null(close);
    assert_true(close < end);
    char *after = NULL;
    (void)strtol(close + 8, &after, 10);
    assert_true(after > close + 8);
    assert_int_equal(strncmp(after, ", in ", 5), 0);
    assert_true(after + 5 < end); /* a function name follows */
    line = end + 1;
  }
}

static void test_backtrace_format_and_caller_frame(void **state) {
  (void)state;
  const xffi_byte_array *bt = TVMFFIBacktrace("my_file.py", 42, "my_func", 0);
  assert_non_null(bt);
  assert_backtrace_format(bt->data, bt->size);
  /* The given location replaces the caller's frame and comes first. */
  assert_int_equal(strncmp(bt->data, "  File \"my_file.py\", line 42, in my_func\n", 41), 0);
  bt = TVMFFIBacktrace(NULL, 0, NULL, 1);
  assert_backtrace_format(bt->data, bt->size);
  /* The runtime's own frames are left out. */
  assert_null(strstr(bt->data, "in TVMFFIBacktrace"));
#if defined(__GLIBC__)
  /* glibc has an unwinder: this test's frames are there, in this binary. */
  assert_true(bt->size > 0);
  assert_non_null(strstr(bt->data, "test_tvm_error"));
#endif
#if !defined(_WIN32)
  /* TVM_TRACEBACK_LIMIT 1: the given location alone. */
  setenv("TVM_TRACEBACK_LIMIT", "1", 1);
  bt = TVMFFIBacktrace("f.py", 1, "g", 1);
  assert_string_equal(bt->data, "  File \"f.py\", line 1, in g\n");
  unsetenv("TVM_TRACEBACK_LIMIT");
#endif
}

/* A raised error carries the native backtrace; xffi's own raises do not pay for one. */
static void test_set_raised_from_cstr_carries_a_backtrace(void **state) {
  (void)state;
  TVMFFIErrorSetRaisedFromCStr("ValueError", "with trace");
  xffi_object *err = xffi_error_move_raised();
  assert_backtrace_format(cell(err)->backtrace.data, cell(err)->backtrace.size);
  assert_null(strstr(cell(err)->backtrace.data, "TVMFFIErrorSetRaisedFromCStr"));
#if defined(__GLIBC__)
  assert_true(cell(err)->backtrace.size > 0);
#endif
  xffi_object_dec_ref(err);
  xffi_error_raise(XFFI_KIND_VALUE, "cheap");
  err = xffi_error_move_raised();
  assert_int_equal(cell(err)->backtrace.size, 0);
  xffi_object_dec_ref(err);
}

/* Capturing is cheap: 1,000 backtraces well within a generous bound. */
static void test_backtrace_is_cheap(void **state) {
  (void)state;
  double start = test_cpu_seconds();
  for (int i = 0; i < 1000; ++i) TVMFFIBacktrace(NULL, 0, NULL, 0);
  double seconds = test_cpu_seconds() - start;
  if (getenv("XFFI_TEST_VERBOSE")) printf("1000 backtraces: %.3f ms\n", seconds * 1e3);
  assert_true(seconds < 2.0); /* about 30 ms measured: 60x headroom */
}

static void test_create_copies_texts_and_returns_a_new_reference(void **state) {
  (void)state;
  void *err = NULL;
  xffi_byte_array kind = text("TypeError"), msg = text("bad type"), bt = text("  File \"x\", line 1, in f\n");
  assert_int_equal(TVMFFIErrorCreate(&kind, &msg, &bt, &err), 0);
  assert_null(xffi_error_peek_raised());
  assert_string_equal(cell(err)->kind.data, "TypeError");
  assert_string_equal(cell(err)->message.data, "bad type");
  assert_string_equal(cell(err)->backtrace.data, bt.data);
  assert_ptr_not_equal(cell(err)->backtrace.data, bt.data);
  assert_null(cell(err)->cause_chain);
  assert_int_equal(xffi_object_strong_count(err), 1);
  TVMFFIObjectDecRef(err);
}

static void test_create_with_cause_and_context_borrows_both(void **state) {
  (void)state;
  xffi_byte_array kind = text("RuntimeError"), msg = text("outer"), inner_msg = text("inner");
  void *cause = NULL, *err = NULL;
  assert_int_equal(TVMFFIErrorCreate(&kind, &inner_msg, NULL, &cause), 0);
  xffi_object *context = NULL;
  assert_int_equal(xffi_string_from_c_str(&context, "context text"), XFFI_OK);
  assert_int_equal(TVMFFIErrorCreateWithCauseAndExtraContext(&kind, &msg, NULL, cause, context, &err), 0);
  assert_ptr_equal(cell(err)->cause_chain, cause);
  assert_ptr_equal(cell(err)->extra_context, context);
  assert_int_equal(xffi_object_strong_count(cause), 2);
  assert_int_equal(xffi_object_strong_count(context), 2);
  TVMFFIObjectDecRef(err); /* releases its references */
  assert_int_equal(xffi_object_strong_count(cause), 1);
  assert_int_equal(xffi_object_strong_count(context), 1);
  /* NULL cause and context are allowed. */
  assert_int_equal(TVMFFIErrorCreateWithCauseAndExtraContext(&kind, &msg, NULL, NULL, NULL, &err), 0);
  TVMFFIObjectDecRef(err);
  /* A cause that is not an Error is a TypeError. */
  err = (void *)0x1;
  assert_int_equal(TVMFFIErrorCreateWithCauseAndExtraContext(&kind, &msg, NULL, context, NULL, &err), -1);
  assert_null(err);
  expect_error(XFFI_KIND_TYPE,
               "TVMFFIErrorCreateWithCauseAndExtraContext: cause_chain expected ffi.Error or NULL, got ffi.String");
  assert_int_equal(xffi_object_strong_count(context), 1);
  TVMFFIObjectDecRef(cause);
  xffi_object_dec_ref(context);
}

static void test_create_bad_input(void **state) {
  (void)state;
  void *err = NULL;
  xffi_byte_array kind = text("E"), msg = text("m"), broken = {NULL, 3};
  assert_int_equal(TVMFFIErrorCreate(NULL, &msg, NULL, &err), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIErrorCreate: kind is NULL");
  assert_int_equal(TVMFFIErrorCreate(&kind, NULL, NULL, &err), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIErrorCreate: message is NULL");
  assert_int_equal(TVMFFIErrorCreate(&kind, &msg, NULL, NULL), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIErrorCreate: out is NULL");
  assert_int_equal(TVMFFIErrorCreate(&kind, &broken, NULL, &err), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIErrorCreate: message->data is NULL but message->size is 3");
  assert_int_equal(TVMFFIErrorCreate(&kind, &msg, &broken, &err), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIErrorCreate: backtrace->data is NULL but backtrace->size is 3");
}

/* Out of memory: ErrorCreate fails without raising (tvm-ffi's contract) and
 * leaks nothing; SetRaisedFromCStr(Parts) raise the pre-made MemoryError. */
static void test_out_of_memory(void **state) {
  (void)state;
  xffi_byte_array kind = text("E"), msg = text("m"), bt = text("  File \"x\", line 1, in f\n");
  TVMFFIBacktrace(NULL, 0, NULL, 0); /* the thread's backtrace buffer exists */
  /* An error already raised is still there after a failed ErrorCreate. */
  xffi_error_raise(XFFI_KIND_KEY, "raised before");
  failing_allocator_fail_after(0);
  void *none = (void *)0x1;
  assert_int_equal(TVMFFIErrorCreate(&kind, &msg, NULL, &none), -1);
  failing_allocator_fail_after(-1);
  assert_null(none);
  expect_error(XFFI_KIND_KEY, "raised before");
  for (int n = 0;; ++n) {
    uint64_t before = failing_successes - failing_frees;
    void *err = NULL;
    failing_allocator_fail_after(n);
    int status = TVMFFIErrorCreate(&kind, &msg, &bt, &err);
    failing_allocator_fail_after(-1);
    if (status == 0) {
      assert_true(n >= 2); /* the error and its backtrace */
      TVMFFIObjectDecRef(err);
      break;
    }
    assert_null(err);
    assert_null(xffi_error_peek_raised());
    assert_int_equal(failing_successes - failing_frees, before);
  }
  const char *parts[] = {"a", "b"};
  for (int n = 0; n < 3; ++n) {
    failing_allocator_fail_after(n);
    TVMFFIErrorSetRaisedFromCStrParts("E", parts, 2);
    failing_allocator_fail_after(-1);
    xffi_object *err = xffi_error_move_raised();
    assert_non_null(err);
    assert_true(strcmp(cell(err)->message.data, "ab") == 0 || strcmp(cell(err)->kind.data, XFFI_KIND_MEMORY) == 0);
    xffi_object_dec_ref(err);
  }
}

/* xffi_error_forward_to_tvm keeps the raised error in the one slot, and
 * raises one when a failure raised none. */
static void test_forward_to_tvm_keeps_or_raises(void **state) {
  (void)state;
  xffi_error_raise(XFFI_KIND_VALUE, "stays %s", "here");
  assert_int_equal(xffi_error_forward_to_tvm(), XFFI_FAIL);
  void *err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  assert_string_equal(cell(err)->message.data, "stays here");
  TVMFFIObjectDecRef(err);
  assert_int_equal(xffi_error_forward_to_tvm(), XFFI_FAIL);
  expect_error(XFFI_KIND_RUNTIME, "an xffi function failed without raising an error");
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_slot_for_both_apis),
      cmocka_unit_test(test_set_raised_borrows),
      cmocka_unit_test(test_set_raised_bad_input),
      cmocka_unit_test(test_set_raised_from_parts_concatenates_and_skips_null),
      cmocka_unit_test(test_backtrace_format_and_caller_frame),
      cmocka_unit_test(test_set_raised_from_cstr_carries_a_backtrace),
      cmocka_unit_test(test_backtrace_is_cheap),
      cmocka_unit_test(test_create_copies_texts_and_returns_a_new_reference),
      cmocka_unit_test(test_create_with_cause_and_context_borrows_both),
      cmocka_unit_test(test_create_bad_input),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_forward_to_tvm_keeps_or_raises),
  };
  return cmocka_run_group_tests_name("tvm_error", tests, NULL, NULL);
}
