/* Reference counts stop before they wrap: an increment that finds the strong
 * (or weak) count at XFFI_REF_COUNT_LIMIT aborts the process, whichever path
 * made it (inline, exported, weak lock, weak new, global function lookup);
 * counts below still work.
 * The tests write the header's count word directly instead of taking 2^31
 * references, and run each increment that must abort in a forked child
 * (where there is no fork, Windows and WASI, only the counts below the
 * limit are tested; docs/portability.md). */
#include "test_util.h"

#if XFFI_TEST_HAVE_FORK
#  include <signal.h>
#  include <sys/wait.h>
#  include <unistd.h>
#endif

static void ignore_deleter(void *self, int flags) {
  (void)self;
  (void)flags;
}

static void set_counts(xffi_object *obj, uint32_t strong, uint32_t weak) {
  __atomic_store_n(XFFI_REF_COUNTS(obj), ((uint64_t)weak << 32) | strong, __ATOMIC_RELAXED);
}

#if XFFI_TEST_HAVE_FORK
/* In a child process, sets obj's counts and runs step(obj); asserts that the
 * child died of SIGABRT. The parent's obj is left as it was. */
static void assert_aborts_on(xffi_object *obj, void (*step)(xffi_object *), uint32_t strong, uint32_t weak) {
  fflush(NULL);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    set_counts(obj, strong, weak);
    step(obj);
    _exit(0); /* the increment returned: the parent sees exit status 0 */
  }
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(WTERMSIG(status), SIGABRT);
}

static void assert_aborts(void (*step)(xffi_object *), uint32_t strong, uint32_t weak) {
  xffi_object obj;
  xffi_object_init(&obj, XFFI_TYPE_OBJECT, ignore_deleter);
  assert_aborts_on(&obj, step, strong, weak);
}

static void inc_inline(xffi_object *obj) { xffi_object_inc_ref_inline(obj); }
static void inc_exported(xffi_object *obj) { xffi_object_inc_ref(obj); }
static void lock_weak(xffi_object *obj) {
  xffi_weak *weak = NULL;
  if (xffi_weak_new(&weak, obj) != XFFI_OK) _exit(2);
  xffi_object *locked = NULL;
  xffi_weak_lock(&locked, weak);
}
static void new_weak(xffi_object *obj) {
  xffi_weak *weak = NULL;
  xffi_weak_new(&weak, obj);
}

static void test_every_strong_increment_aborts_at_the_limit(void **state) {
  (void)state;
  assert_aborts(inc_inline, XFFI_REF_COUNT_LIMIT, 1);
  assert_aborts(inc_exported, XFFI_REF_COUNT_LIMIT, 1);
  assert_aborts(lock_weak, XFFI_REF_COUNT_LIMIT, 1);
  /* Far past the limit too (threads racing past it before one aborts). */
  assert_aborts(inc_inline, UINT32_MAX, 1);
}

static void get_global(xffi_object *func) {
  (void)func;
  xffi_object *found = NULL;
  xffi_function_global_lookup(&found, "test_ref_count_limit.noop");
}

static void test_global_function_lookup_aborts_at_the_limit(void **state) {
  (void)state;
  xffi_object *func = NULL;
  assert_int_equal(xffi_function_new(&func, test_noop_callback, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_global_register("test_ref_count_limit.noop", func, 0), XFFI_OK);
  assert_aborts_on(func, get_global, XFFI_REF_COUNT_LIMIT, 1);
  /* Below the limit the lookup works (in this process, counts untouched). */
  xffi_object *found = NULL;
  assert_int_equal(xffi_function_global_lookup(&found, "test_ref_count_limit.noop"), XFFI_OK);
  assert_ptr_equal(found, func);
  xffi_object_dec_ref(found);
  assert_int_equal(xffi_function_global_erase("test_ref_count_limit.noop"), XFFI_OK);
  xffi_object_dec_ref(func);
}

static void test_weak_new_aborts_at_the_limit(void **state) {
  (void)state;
  assert_aborts(new_weak, 1, XFFI_REF_COUNT_LIMIT);
}

#endif /* XFFI_TEST_HAVE_FORK */

static void test_counts_below_the_limit_still_work(void **state) {
  (void)state;
  xffi_object obj;
  xffi_object_init(&obj, XFFI_TYPE_OBJECT, ignore_deleter);
  set_counts(&obj, XFFI_REF_COUNT_LIMIT - 3, 1);
  xffi_object_inc_ref_inline(&obj);
  xffi_object_inc_ref(&obj);
  xffi_weak *weak = NULL;
  assert_int_equal(xffi_weak_new(&weak, &obj), XFFI_OK);
  xffi_object *locked = NULL;
  assert_int_equal(xffi_weak_lock(&locked, weak), XFFI_OK);
  assert_ptr_equal(locked, &obj);
  assert_int_equal(xffi_object_strong_count(&obj), XFFI_REF_COUNT_LIMIT);
  xffi_object_dec_ref(&obj);
  xffi_object_dec_ref_inline(&obj);
  xffi_object_dec_ref(&obj);
  assert_int_equal(xffi_object_strong_count(&obj), XFFI_REF_COUNT_LIMIT - 3);
  xffi_weak_release(weak);
  /* The weak count just below its limit, too. */
  set_counts(&obj, 1, XFFI_REF_COUNT_LIMIT - 1);
  assert_int_equal(xffi_weak_new(&weak, &obj), XFFI_OK);
  assert_int_equal(xffi_object_weak_count(&obj), XFFI_REF_COUNT_LIMIT);
  xffi_weak_release(weak);
  assert_int_equal(xffi_object_weak_count(&obj), XFFI_REF_COUNT_LIMIT - 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
#if XFFI_TEST_HAVE_FORK
    cmocka_unit_test(test_every_strong_increment_aborts_at_the_limit),
    cmocka_unit_test(test_weak_new_aborts_at_the_limit),
    cmocka_unit_test(test_global_function_lookup_aborts_at_the_limit),
#endif
    cmocka_unit_test(test_counts_below_the_limit_still_work),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
