/* tests/c/runtime/test_release_depth.c: releasing a nesting of any depth uses
 * bounded stack. Each shape is nested 10^6 deep and its last reference is
 * dropped on a thread with a 256 KiB stack; releasing used to recurse once
 * per level and overflowed far sooner (2x10^5 Lists, 10^5 Dicts on the main
 * thread's 8 MiB). LeakSanitizer checks that every level is freed. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include "test_values.h"
#if XFFI_TEST_HAVE_THREADS
#  include <pthread.h>
#endif

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/map.h>

enum { DEPTH = 1000000 };
#define SMALL_STACK_BYTES ((size_t)256 * 1024)

/* ---- Dropping a reference on a thread with a small stack ---- */

typedef struct drop_job {
  xffi_object *obj; /* stolen */
  int use_exported; /* xffi_object_dec_ref rather than the inline form */
} drop_job;

static void *drop_on_this_thread(void *arg) {
  drop_job *job = arg;
  if (job->use_exported)
    xffi_object_dec_ref(job->obj);
  else
    xffi_object_dec_ref_inline(job->obj);
  return NULL;
}

/* Releases obj (stolen) on a new thread whose stack is SMALL_STACK_BYTES
 * (without threads, WASI, on this thread: its stack is small too). */
static void drop_on_small_stack(xffi_object *obj, int use_exported) {
  drop_job job = {obj, use_exported};
#if !XFFI_TEST_HAVE_THREADS
  drop_on_this_thread(&job);
#else
  pthread_attr_t attr;
  pthread_t thread;
  assert_int_equal(pthread_attr_init(&attr), 0);
  assert_int_equal(pthread_attr_setstacksize(&attr, SMALL_STACK_BYTES), 0);
  assert_int_equal(pthread_create(&thread, &attr, drop_on_this_thread, &job), 0);
  assert_int_equal(pthread_join(thread, NULL), 0);
  pthread_attr_destroy(&attr);
#endif
}

/* ---- Builders: each returns a new reference to the outermost level ---- */

/* One more level around inner (stolen): a new reference. */
typedef xffi_object *(*wrap_fn)(xffi_object *inner);

static xffi_object *wrap_in_list(xffi_object *inner) { return list_holding(inner); }

static xffi_object *wrap_in_array(xffi_object *inner) {
  xffi_object *outer = NULL;
  xffi_any item = xffi_any_object(inner);
  assert_int_equal(xffi_array_new(&outer, &item, 1), XFFI_OK);
  xffi_object_dec_ref(inner);
  return outer;
}

static xffi_object *wrap_in_map(xffi_object *inner) {
  xffi_object *outer = NULL;
  xffi_any key = xffi_any_int(7), value = xffi_any_object(inner);
  assert_int_equal(xffi_map_new(&outer, &key, &value, 1), XFFI_OK);
  xffi_object_dec_ref(inner);
  return outer;
}

static xffi_object *wrap_in_dict(xffi_object *inner) {
  xffi_object *outer = NULL;
  xffi_any key = xffi_any_int(7), value = xffi_any_object(inner);
  assert_int_equal(xffi_dict_new(&outer, NULL, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_dict_set(outer, &key, &value), XFFI_OK);
  xffi_object_dec_ref(inner);
  return outer;
}

static xffi_object *wrap_in_owning_function(xffi_object *inner) {
  xffi_object *outer = NULL;
  assert_int_equal(xffi_function_new_with_owner(&outer, test_noop_callback, NULL, NULL, inner), XFFI_OK);
  xffi_object_dec_ref(inner);
  return outer;
}

static long finalized;

/* A finalizer whose resource is another Function (owned): user code that
 * releases an object from inside a deleter. */
static void release_resource_function(void *resource) {
  finalized++;
  xffi_object_dec_ref((xffi_object *)resource);
}

static xffi_object *wrap_in_finalizing_function(xffi_object *inner) {
  xffi_object *outer = NULL;
  assert_int_equal(xffi_function_new(&outer, test_noop_callback, inner, release_resource_function), XFFI_OK);
  return outer; /* inner's reference now belongs to outer's resource */
}

/* A chain of `depth` levels over an empty List: wraps[i % count] makes level i. */
static xffi_object *nest(const wrap_fn *wraps, int count, long depth) {
  xffi_object *obj = NULL;
  assert_int_equal(xffi_list_new(&obj, NULL, 0), XFFI_OK);
  for (long i = 0; i < depth; ++i) obj = wraps[i % count](obj);
  return obj;
}

static void nest_and_drop(wrap_fn wrap) {
  drop_on_small_stack(nest(&wrap, 1, DEPTH), 0);
  assert_nothing_raised();
}

/* ---- Tests ---- */

static void test_deep_list_releases_on_small_stack(void **state) {
  (void)state;
  nest_and_drop(wrap_in_list);
}

static void test_deep_array_releases_on_small_stack(void **state) {
  (void)state;
  nest_and_drop(wrap_in_array);
}

static void test_deep_map_releases_on_small_stack(void **state) {
  (void)state;
  nest_and_drop(wrap_in_map);
}

static void test_deep_dict_releases_on_small_stack(void **state) {
  (void)state;
  nest_and_drop(wrap_in_dict);
}

static void test_deep_function_owner_chain_releases_on_small_stack(void **state) {
  (void)state;
  nest_and_drop(wrap_in_owning_function);
}

static void test_deep_function_finalizer_chain_releases_on_small_stack(void **state) {
  (void)state;
  finalized = 0;
  xffi_object *top = nest((wrap_fn[]){wrap_in_finalizing_function}, 1, DEPTH);
  drop_on_small_stack(top, 1); /* the exported dec_ref, as other languages use */
  assert_int_equal(finalized, DEPTH);
}

static void test_deep_error_cause_chain_releases_on_small_stack(void **state) {
  (void)state;
  xffi_object *top = NULL;
  assert_int_equal(xffi_error_new(&top, XFFI_KIND_RUNTIME, "level 0"), XFFI_OK);
  xffi_object *last = top; /* borrowed: the chain owns every level below top */
  for (long i = 1; i < DEPTH; ++i) {
    xffi_object *next = NULL;
    assert_int_equal(xffi_error_new(&next, XFFI_KIND_RUNTIME, "level"), XFFI_OK);
    assert_int_equal(xffi_error_set_cause(last, next), XFFI_OK);
    last = next;
  }
  /* Dropped through the raised slot, as errors usually are. */
  xffi_error_set_raised(top);
  drop_on_small_stack(xffi_error_move_raised(), 0);
}

/* Every container kind in turn, so the release of each kind runs inside the
 * release of every other. */
static void test_deep_mixed_nesting_releases_on_small_stack(void **state) {
  (void)state;
  finalized = 0;
  const wrap_fn wraps[] = {wrap_in_list,  wrap_in_map,  wrap_in_finalizing_function,
                           wrap_in_array, wrap_in_dict, wrap_in_owning_function};
  drop_on_small_stack(nest(wraps, 6, DEPTH), 1);
  assert_int_equal(finalized, DEPTH / 6 + (DEPTH % 6 > 2));
}

/* Levels that are also weakly referenced lose only their contents when the
 * strong count goes; their memory waits for the weak references. */
static void test_deep_nesting_with_weak_references(void **state) {
  (void)state;
  enum { WEAK_DEPTH = 100000 };
  xffi_weak **weak = calloc(WEAK_DEPTH, sizeof(*weak));
  assert_non_null(weak);
  xffi_object *obj = NULL;
  assert_int_equal(xffi_list_new(&obj, NULL, 0), XFFI_OK);
  for (long i = 0; i < WEAK_DEPTH; ++i) {
    obj = (i % 2 ? wrap_in_dict : wrap_in_list)(obj);
    assert_int_equal(xffi_weak_new(&weak[i], obj), XFFI_OK);
  }
  drop_on_small_stack(obj, 0);
  for (long i = 0; i < WEAK_DEPTH; ++i) {
    xffi_object *locked = (xffi_object *)&locked;
    assert_int_equal(xffi_weak_lock(&locked, weak[i]), XFFI_OK);
    assert_null(locked);
    xffi_weak_release(weak[i]);
  }
  free(weak);
}

/* Releasing shallow objects inside a deep release still works as usual, and
 * the next release on the same thread starts afresh. */
static void test_release_after_deep_release(void **state) {
  (void)state;
  xffi_object *a = nest((wrap_fn[]){wrap_in_list}, 1, 1000);
  xffi_object_dec_ref(a);
  xffi_object *list = NULL;
  assert_int_equal(xffi_list_new(&list, NULL, 0), XFFI_OK);
  xffi_object *weak_target = NULL;
  assert_int_equal(xffi_list_new(&weak_target, NULL, 0), XFFI_OK);
  xffi_weak *weak = NULL;
  assert_int_equal(xffi_weak_new(&weak, weak_target), XFFI_OK);
  xffi_any item = xffi_any_object(weak_target);
  assert_int_equal(xffi_list_push(list, &item), XFFI_OK);
  xffi_object_dec_ref(weak_target);
  xffi_object_dec_ref(list);
  xffi_object *locked = list;
  assert_int_equal(xffi_weak_lock(&locked, weak), XFFI_OK);
  assert_null(locked);
  xffi_weak_release(weak);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_deep_list_releases_on_small_stack),
      cmocka_unit_test(test_deep_array_releases_on_small_stack),
      cmocka_unit_test(test_deep_map_releases_on_small_stack),
      cmocka_unit_test(test_deep_dict_releases_on_small_stack),
      cmocka_unit_test(test_deep_function_owner_chain_releases_on_small_stack),
      cmocka_unit_test(test_deep_function_finalizer_chain_releases_on_small_stack),
      cmocka_unit_test(test_deep_error_cause_chain_releases_on_small_stack),
      cmocka_unit_test(test_deep_mixed_nesting_releases_on_small_stack),
      cmocka_unit_test(test_deep_nesting_with_weak_references),
      cmocka_unit_test(test_release_after_deep_release),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
