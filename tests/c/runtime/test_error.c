/* Errors: objects, the thread-local raised slot, frames, causes, out of memory. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "failing_allocator.h"

#include "test_util.h"

static void test_raise_then_move_out_clears_the_slot(void **state) {
  (void)state;
  assert_null(xffi_error_peek_raised());
  assert_int_equal(xffi_error_raise(XFFI_KIND_VALUE, "bad %s number %d", "lucky", 7), XFFI_FAIL);
  xffi_object *err = xffi_error_peek_raised();
  assert_non_null(err);
  assert_int_equal(err->type_index, XFFI_TYPE_ERROR);
  xffi_object *moved = xffi_error_move_raised();
  assert_ptr_equal(moved, err);
  assert_null(xffi_error_peek_raised());
  assert_null(xffi_error_move_raised());
  const xffi_error_cell *cell = xffi_error_cell_of_unchecked(moved);
  assert_string_equal(cell->kind.data, "ValueError");
  assert_int_equal(cell->kind.size, 10);
  assert_string_equal(cell->message.data, "bad lucky number 7");
  assert_int_equal(cell->message.size, strlen("bad lucky number 7"));
  assert_string_equal(cell->backtrace.data, "");
  assert_true(xffi_error_is_kind(moved, XFFI_KIND_VALUE));
  assert_false(xffi_error_is_kind(moved, XFFI_KIND_TYPE));
  assert_int_equal(xffi_object_strong_count(moved), 1);
  xffi_object_dec_ref(moved);
}

static void test_raising_again_releases_the_previous_error(void **state) {
  (void)state;
  xffi_error_raise_str(XFFI_KIND_RUNTIME, "first");
  xffi_object *first = xffi_error_peek_raised();
  xffi_object_inc_ref(first); /* watch it */
  xffi_error_raise_str(XFFI_KIND_RUNTIME, "second");
  assert_int_equal(xffi_object_strong_count(first), 1); /* the slot let go */
  xffi_object_dec_ref(first);
  assert_raised(XFFI_KIND_RUNTIME, "second");
}

static void test_set_raised_steals_and_null_clears(void **state) {
  (void)state;
  xffi_object *err = NULL;
  assert_int_equal(xffi_error_new(&err, "MyError", "custom"), XFFI_OK);
  xffi_error_set_raised(err);
  assert_ptr_equal(xffi_error_peek_raised(), err);
  assert_int_equal(xffi_object_strong_count(err), 1);
  xffi_error_set_raised(NULL);
  assert_null(xffi_error_peek_raised());
  /* Only Errors go into the slot; anything else is released and reported. */
  xffi_object *s = NULL;
  assert_int_equal(xffi_string_from_c_str(&s, "not an error"), XFFI_OK);
  xffi_object_inc_ref(s);
  xffi_error_set_raised(s);
  assert_raised(XFFI_KIND_TYPE, "xffi_error_set_raised: err expected ffi.Error, got ffi.String");
  assert_int_equal(xffi_object_strong_count(s), 1);
  xffi_object_dec_ref(s);
}

static void test_frames_append_most_recent_first(void **state) {
  (void)state;
  xffi_error_raise_str(XFFI_KIND_RUNTIME, "deep failure");
  assert_int_equal(xffi_error_pass("inner_call at inner.c:10"), XFFI_FAIL);
  assert_int_equal(xffi_error_pass("outer_call at outer.c:20\n"), XFFI_FAIL);
  xffi_object *err = xffi_error_move_raised();
  assert_string_equal(xffi_error_cell_of_unchecked(err)->backtrace.data,
                      "inner_call at inner.c:10\nouter_call at outer.c:20\n");
  /* A long frame (past any stack buffer) is kept whole. */
  char frame[1000];
  memset(frame, 'f', sizeof(frame) - 1);
  frame[sizeof(frame) - 1] = '\0';
  assert_int_equal(xffi_error_append_frame(err, frame), XFFI_OK);
  assert_int_equal(xffi_error_cell_of_unchecked(err)->backtrace.size, 25 + 25 + 999 + 1);
  /* The update function in the cell works for any runtime: replace mode. */
  xffi_byte_array replacement = {"only frame\n", 11};
  xffi_error_cell_of_unchecked(err)->update_backtrace(err, &replacement, XFFI_BACKTRACE_REPLACE);
  assert_string_equal(xffi_error_cell_of_unchecked(err)->backtrace.data, "only frame\n");
  xffi_object_dec_ref(err);
  assert_int_equal(xffi_error_pass("nothing raised"), XFFI_FAIL);
  assert_null(xffi_error_peek_raised());
}

static void test_cause_chain_is_owned(void **state) {
  (void)state;
  xffi_object *outer = NULL, *inner = NULL;
  assert_int_equal(xffi_error_new(&outer, XFFI_KIND_RUNTIME, "outer"), XFFI_OK);
  assert_int_equal(xffi_error_new(&inner, XFFI_KIND_KEY, "inner"), XFFI_OK);
  xffi_object_inc_ref(inner);
  assert_int_equal(xffi_error_set_cause(outer, inner), XFFI_OK); /* steals one */
  assert_ptr_equal(xffi_error_cell_of_unchecked(outer)->cause_chain, inner);
  assert_int_equal(xffi_object_strong_count(inner), 2);
  xffi_object_dec_ref(outer);
  assert_int_equal(xffi_object_strong_count(inner), 1);
  xffi_object_dec_ref(inner);
}

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Each append used to copy the whole backtrace (80,000 frames: 66 s); it
 * grows geometrically now, so 10^5 frames take milliseconds. The limit
 * leaves far more than 10x headroom for sanitizers and a busy machine. */
static void test_appending_many_frames_is_linear(void **state) {
  (void)state;
  enum { FRAMES = 100000 };
  xffi_object *err = NULL;
  assert_int_equal(xffi_error_new(&err, XFFI_KIND_RUNTIME, "deep"), XFFI_OK);
  char frame[64];
  double start = seconds_now();
  for (int i = 0; i < FRAMES; ++i) {
    snprintf(frame, sizeof(frame), "frame_%06d at file.c:%d", i, i);
    assert_int_equal(xffi_error_append_frame(err, frame), XFFI_OK);
  }
  double elapsed = seconds_now() - start;
  assert_true(elapsed < 5.0);
  const xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
  size_t line = strlen("frame_000000 at file.c:0\n");
  assert_true(cell->backtrace.size > (size_t)FRAMES * line);
  assert_int_equal(strlen(cell->backtrace.data), cell->backtrace.size);
  assert_memory_equal(cell->backtrace.data, "frame_000000 at file.c:0\nframe_000001 at file.c:1\n", 2 * line);
  const char *tail = cell->backtrace.data + cell->backtrace.size - strlen("frame_099999 at file.c:99999\n");
  assert_string_equal(tail, "frame_099999 at file.c:99999\n");
  /* Replacing with a piece of the backtrace itself keeps that piece. */
  xffi_byte_array own_tail = {tail, strlen(tail)};
  xffi_error_cell_of_unchecked(err)->update_backtrace(err, &own_tail, XFFI_BACKTRACE_REPLACE);
  assert_string_equal(cell->backtrace.data, "frame_099999 at file.c:99999\n");
  xffi_object_dec_ref(err);
}

/* a -> b -> a used to be accepted: both leaked and any walk of the chain
 * never ended. */
static void test_cause_cycles_are_refused(void **state) {
  (void)state;
  xffi_object *a = NULL, *b = NULL, *c = NULL;
  assert_int_equal(xffi_error_new(&a, XFFI_KIND_RUNTIME, "a"), XFFI_OK);
  assert_int_equal(xffi_error_new(&b, XFFI_KIND_RUNTIME, "b"), XFFI_OK);
  assert_int_equal(xffi_error_new(&c, XFFI_KIND_RUNTIME, "c"), XFFI_OK);
  xffi_object_inc_ref(b);
  assert_int_equal(xffi_error_set_cause(a, b), XFFI_OK); /* a -> b */
  xffi_object_inc_ref(c);
  assert_int_equal(xffi_error_set_cause(b, c), XFFI_OK); /* a -> b -> c */
  xffi_object_inc_ref(a);
  assert_int_equal(xffi_error_set_cause(b, a), XFFI_FAIL); /* b -> a would loop */
  expect_error(XFFI_KIND_VALUE,
               "xffi_error_set_cause: err is already in cause's chain; setting it would close a cycle");
  xffi_object_inc_ref(a);
  assert_int_equal(xffi_error_set_cause(c, a), XFFI_FAIL); /* the longer loop c -> a -> b -> c */
  expect_error(XFFI_KIND_VALUE,
               "xffi_error_set_cause: err is already in cause's chain; setting it would close a cycle");
  /* Nothing changed and the stolen references were released. */
  assert_ptr_equal(xffi_error_cell_of_unchecked(b)->cause_chain, c);
  assert_null(xffi_error_cell_of_unchecked(c)->cause_chain);
  assert_int_equal(xffi_object_strong_count(a), 1);
  /* A chain that already loops (written into the cells directly) is refused
   * too when the chain is walked (err is some error's cause), and the walk
   * that finds it ends. */
  xffi_object *d = NULL, *e = NULL;
  assert_int_equal(xffi_error_new(&d, XFFI_KIND_RUNTIME, "d"), XFFI_OK);
  assert_int_equal(xffi_error_new(&e, XFFI_KIND_RUNTIME, "e"), XFFI_OK);
  xffi_object_inc_ref(d);
  assert_int_equal(xffi_error_set_cause(e, d), XFFI_OK); /* e -> d: d is cited */
  xffi_error_cell_of_unchecked(c)->cause_chain = b;      /* b -> c -> b, borrowed */
  xffi_object_inc_ref(b);
  assert_int_equal(xffi_error_set_cause(d, b), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_error_set_cause: cause's chain already loops");
  xffi_error_cell_of_unchecked(c)->cause_chain = NULL;
  xffi_object_dec_ref(e);
  /* Sharing a cause is no cycle. */
  xffi_object_inc_ref(c);
  assert_int_equal(xffi_error_set_cause(d, c), XFFI_OK);
  xffi_object_dec_ref(d);
  xffi_object_dec_ref(c);
  xffi_object_dec_ref(b);
  xffi_object_dec_ref(a);
}

/* Each new error takes the whole chain so far as its cause. The cycle check
 * used to walk that chain every time (O(N^2): 40,000 links took 11.6 s, a
 * million did not end in two minutes); an error only its caller holds is in
 * no chain, so each link is O(1) now. The size is fixed and large; ctest's
 * timeout is the bound, not a timed assertion. */
static void test_a_million_link_cause_chain_is_built_one_error_at_a_time(void **state) {
  (void)state;
  enum { LINKS = 1000000 };
  xffi_object *chain = NULL;
  for (int i = 0; i < LINKS; ++i) {
    xffi_object *outer = NULL;
    assert_int_equal(xffi_error_new(&outer, XFFI_KIND_RUNTIME, "link"), XFFI_OK);
    if (chain) assert_int_equal(xffi_error_set_cause(outer, chain), XFFI_OK); /* steals chain */
    chain = outer;
  }
  size_t length = 0;
  for (const xffi_object *e = chain; e; e = xffi_error_cell_of_unchecked((xffi_object *)e)->cause_chain) ++length;
  assert_int_equal(length, LINKS);
  /* The far end of the chain is cited: the walk runs and refuses the cycle
   * through it, though the chain is its only holder. */
  const xffi_object *tail = chain;
  while (xffi_error_cell_of_unchecked((xffi_object *)tail)->cause_chain)
    tail = xffi_error_cell_of_unchecked((xffi_object *)tail)->cause_chain;
  xffi_object_inc_ref(chain);
  assert_int_equal(xffi_error_set_cause((xffi_object *)tail, chain), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_error_set_cause: err is already in cause's chain; setting it would close a cycle");
  assert_null(xffi_error_cell_of_unchecked((xffi_object *)tail)->cause_chain);
  assert_int_equal(xffi_object_strong_count(chain), 1);
  xffi_object_dec_ref(chain); /* released with bounded stack */
}

static void test_error_bad_input(void **state) {
  (void)state;
  xffi_object *err = NULL, *s = NULL;
  assert_int_equal(xffi_error_new(NULL, "K", "m"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_error_new: out is NULL");
  assert_int_equal(xffi_error_new(&err, NULL, "m"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_error_new: kind is NULL");
  assert_int_equal(xffi_error_new(&err, "K", NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_error_new: message is NULL");
  xffi_byte_array bad = {NULL, 4}, ok = {"K", 1};
  assert_int_equal(xffi_error_new_bytes(&err, ok, bad), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_error_new_bytes: message.data is NULL");
  assert_null(err);
  assert_int_equal(xffi_string_from_c_str(&s, "not an error"), XFFI_OK);
  assert_int_equal(xffi_error_append_frame(s, "frame"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_error_append_frame: err expected ffi.Error, got ffi.String");
  assert_int_equal(xffi_error_append_frame(NULL, "frame"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_error_append_frame: err is NULL");
  assert_int_equal(xffi_error_new(&err, "K", "m"), XFFI_OK);
  assert_int_equal(xffi_error_append_frame(err, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_error_append_frame: frame is NULL");
  xffi_object_inc_ref(s);
  assert_int_equal(xffi_error_set_cause(err, s), XFFI_FAIL); /* stolen even so */
  assert_raised(XFFI_KIND_TYPE, "xffi_error_set_cause: cause expected ffi.Error, got ffi.String");
  assert_int_equal(xffi_object_strong_count(s), 1);
  xffi_object_inc_ref(err);
  assert_int_equal(xffi_error_set_cause(s, err), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_error_set_cause: err expected ffi.Error, got ffi.String");
  xffi_object_inc_ref(err);
  assert_int_equal(xffi_error_set_cause(err, err), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "an error cannot be its own cause");
  assert_int_equal(xffi_object_strong_count(err), 1);
  assert_int_equal(xffi_error_set_cause(NULL, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_error_set_cause: err is NULL");
  assert_false(xffi_error_is_kind(s, "String"));
  assert_false(xffi_error_is_kind(NULL, "K"));
  xffi_object_dec_ref(err);
  xffi_object_dec_ref(s);
  /* NULL kind or format still raise something meaningful. */
  assert_int_equal(xffi_error_raise(NULL, "%s", "no kind"), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "no kind");
  assert_int_equal(xffi_error_raise_str(XFFI_KIND_VALUE, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "");
}

static void test_out_of_memory_is_reported_without_allocating(void **state) {
  (void)state;
  uint64_t before = failing_allocator_attempts();
  failing_allocator_fail_after(0);
  assert_int_equal(xffi_error_raise(XFFI_KIND_VALUE, "needs %d bytes", 100), XFFI_FAIL);
  xffi_object *err = xffi_error_peek_raised();
  assert_true(xffi_error_is_kind(err, XFFI_KIND_MEMORY));
  /* Appending to the shared MemoryError is a harmless no-op. */
  assert_int_equal(xffi_error_pass("frame"), XFFI_FAIL);
  assert_string_equal(xffi_error_cell_of_unchecked(err)->backtrace.data, "");
  failing_allocator_fail_after(-1);
  assert_int_equal(failing_allocator_attempts(), before + 1); /* the one that failed */
  assert_raised(XFFI_KIND_MEMORY, "out of memory");
  /* A failed frame append keeps the error being passed. */
  xffi_error_raise_str(XFFI_KIND_KEY, "original");
  failing_allocator_fail_after(0);
  char frame[600];
  memset(frame, 'x', sizeof(frame) - 1);
  frame[sizeof(frame) - 1] = '\0';
  xffi_error_pass(frame);
  failing_allocator_fail_after(-1);
  assert_raised(XFFI_KIND_KEY, "original");
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_raise_then_move_out_clears_the_slot),
      cmocka_unit_test(test_raising_again_releases_the_previous_error),
      cmocka_unit_test(test_set_raised_steals_and_null_clears),
      cmocka_unit_test(test_frames_append_most_recent_first),
      cmocka_unit_test(test_cause_chain_is_owned),
      cmocka_unit_test(test_appending_many_frames_is_linear),
      cmocka_unit_test(test_cause_cycles_are_refused),
      cmocka_unit_test(test_a_million_link_cause_chain_is_built_one_error_at_a_time),
      cmocka_unit_test(test_error_bad_input),
      cmocka_unit_test(test_out_of_memory_is_reported_without_allocating),
  };
  return cmocka_run_group_tests_name("error", tests, NULL, NULL);
}
