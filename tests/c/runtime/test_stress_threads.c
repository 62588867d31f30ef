/* tests/c/runtime/test_stress_threads.c: 8 threads at once on what is shared
 * process-wide, with counts that prove nothing was lost or done twice.
 *
 * - Library objects (Functions with finalizers, Strings) shared by 8 threads
 *   that inc-ref/dec-ref them and lock weak references while the last strong
 *   reference goes on whichever thread: every finalizer runs exactly once, a
 *   lock never returns an object whose contents were destroyed.
 * - The global function registry under concurrent register, lookup and
 *   remove of shared names: per name, successful registrations minus
 *   successful removals equal its final presence; every function created is
 *   finalized exactly once after the registry lets it go.
 * - The type registry under concurrent registration and lookup: every key
 *   gets exactly one index, indices are unique, the count grows by exactly
 *   the number of keys.
 * - One Function called concurrently from 8 threads: every result right, the
 *   callee's call count exact, and each thread's raised errors its own.
 * Run under ThreadSanitizer by the test command (label "threads") and under
 * AddressSanitizer with the rest of the suite. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>

#include "test_util.h"

enum { THREADS = 8 };

static void run_threads(void *(*body)(void *)) {
  pthread_t threads[THREADS];
  for (intptr_t i = 0; i < THREADS; ++i) assert_int_equal(pthread_create(&threads[i], NULL, body, (void *)i), 0);
  for (int i = 0; i < THREADS; ++i) assert_int_equal(pthread_join(threads[i], NULL), 0);
}

/* ---- Objects: references and weak locks racing the last release ---- */

enum { OBJECT_ROUNDS = 300 };

static atomic_long finalized, alive_locks, dead_locks;
static pthread_barrier_t round_start, round_end;
static xffi_object *round_objects[2];     /* a Function and a String, fresh each round */
static xffi_weak *round_weak[THREADS][2]; /* each thread's own weak references */
static _Atomic int function_alive;        /* 1 while the round's Function has not been finalized */

static void finalize_function(void *resource) {
  (void)resource;
  atomic_store(&function_alive, 0);
  atomic_fetch_add(&finalized, 1);
}

static int answer(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args;
  *result = xffi_any_int(42);
  return XFFI_OK;
}

static void *object_worker(void *arg) {
  int id = (int)(intptr_t)arg;
  for (int round = 0; round < OBJECT_ROUNDS; ++round) {
    pthread_barrier_wait(&round_start);
    /* Each thread owns one strong reference to each object. */
    for (int i = 0; i < 100; ++i) {
      xffi_object_inc_ref(round_objects[i & 1]);
      xffi_object_dec_ref(round_objects[i & 1]);
    }
    /* Threads drop their strong references at different points of the lock loop. */
    int drop_at = (id * 7 + round) % 24;
    for (int i = 0; i < 24; ++i) {
      if (i == drop_at) {
        xffi_object_dec_ref(round_objects[0]);
        xffi_object_dec_ref(round_objects[1]);
      }
      xffi_object *locked = NULL;
      if (xffi_weak_lock(&locked, round_weak[id][i & 1]) != XFFI_OK) abort();
      if (locked) {
        if ((i & 1) == 0) {
          /* A locked Function is whole: it can be called. */
          if (!atomic_load(&function_alive)) atomic_fetch_add(&dead_locks, 1);
          xffi_any result = xffi_any_none();
          if (xffi_function_call(locked, NULL, 0, &result) != XFFI_OK || result.v_int64 != 42)
            atomic_fetch_add(&dead_locks, 1);
        } else {
          xffi_byte_array text;
          if (xffi_string_cell_of(&text, locked) != XFFI_OK || strcmp(text.data, "a String shared by 8 threads") != 0)
            atomic_fetch_add(&dead_locks, 1);
        }
        atomic_fetch_add(&alive_locks, 1);
        xffi_object_dec_ref(locked);
      }
    }
    xffi_weak_release(round_weak[id][0]);
    xffi_weak_release(round_weak[id][1]);
    pthread_barrier_wait(&round_end);
  }
  return NULL;
}

static void test_weak_locks_race_the_last_release_of_library_objects(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  pthread_barrier_init(&round_start, NULL, THREADS + 1);
  pthread_barrier_init(&round_end, NULL, THREADS + 1);
  for (intptr_t i = 0; i < THREADS; ++i)
    assert_int_equal(pthread_create(&threads[i], NULL, object_worker, (void *)i), 0);
  for (int round = 0; round < OBJECT_ROUNDS; ++round) {
    atomic_store(&function_alive, 1);
    assert_int_equal(xffi_function_new(&round_objects[0], answer, NULL, finalize_function), XFFI_OK);
    assert_int_equal(xffi_string_from_c_str(&round_objects[1], "a String shared by 8 threads"), XFFI_OK);
    for (int t = 0; t < THREADS; ++t) {
      assert_int_equal(xffi_weak_new(&round_weak[t][0], round_objects[0]), XFFI_OK);
      assert_int_equal(xffi_weak_new(&round_weak[t][1], round_objects[1]), XFFI_OK);
    }
    for (int t = 1; t < THREADS; ++t) { /* one strong reference per thread */
      xffi_object_inc_ref(round_objects[0]);
      xffi_object_inc_ref(round_objects[1]);
    }
    pthread_barrier_wait(&round_start);
    pthread_barrier_wait(&round_end);
    assert_int_equal(atomic_load(&finalized), round + 1); /* exactly once, by whichever thread was last */
  }
  for (int i = 0; i < THREADS; ++i) assert_int_equal(pthread_join(threads[i], NULL), 0);
  assert_int_equal(atomic_load(&dead_locks), 0);
  assert_true(atomic_load(&alive_locks) > 0); /* locks did succeed before the last release */
  pthread_barrier_destroy(&round_start);
  pthread_barrier_destroy(&round_end);
}

/* ---- The global function registry: register / lookup / remove ---- */

enum { NAMES = 12, REGISTRY_ROUNDS = 1500 };

static atomic_long registry_created, registry_finalized;
static atomic_long registered_ok[NAMES], removed_ok[NAMES], lookups_found;

static void finalize_registry(void *resource) {
  (void)resource;
  atomic_fetch_add(&registry_finalized, 1);
}

static int return_name_index(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)args, (void)num_args;
  *result = xffi_any_int((int64_t)(intptr_t)resource);
  return XFFI_OK;
}

static void registry_name(char *buf, size_t size, int k) { snprintf(buf, size, "stress.shared.%d", k); }

static void *registry_worker(void *arg) {
  unsigned seed = (unsigned)(intptr_t)arg * 2654435761u + 1;
  char name[64];
  for (int round = 0; round < REGISTRY_ROUNDS; ++round) {
    seed = seed * 1103515245u + 12345u;
    int k = (int)((seed >> 16) % NAMES);
    registry_name(name, sizeof(name), k);
    switch ((seed >> 8) % 3) {
      case 0: { /* register without override: one winner while the name is free */
        xffi_object *f = NULL;
        if (xffi_function_new(&f, return_name_index, (void *)(intptr_t)k, finalize_registry) != XFFI_OK) abort();
        atomic_fetch_add(&registry_created, 1);
        if (xffi_function_global_register(name, f, 0) == XFFI_OK) {
          atomic_fetch_add(&registered_ok[k], 1);
        } else {
          xffi_object *err = xffi_error_move_raised();
          if (!xffi_error_is_kind(err, XFFI_KIND_VALUE)) abort(); /* "already registered" */
          xffi_object_dec_ref(err);
        }
        xffi_object_dec_ref(f);
        break;
      }
      case 1: /* remove: one winner while the name is taken */
        if (xffi_function_global_erase(name) == XFFI_OK) {
          atomic_fetch_add(&removed_ok[k], 1);
        } else {
          xffi_object *err = xffi_error_move_raised();
          if (!xffi_error_is_kind(err, XFFI_KIND_KEY)) abort();
          xffi_object_dec_ref(err);
        }
        break;
      default: { /* lookup and call: a found function is whole and is the one for its name */
        xffi_object *f = NULL;
        if (xffi_function_global_lookup(&f, name) != XFFI_OK) abort();
        if (f) {
          xffi_any result = xffi_any_none();
          if (xffi_function_call(f, NULL, 0, &result) != XFFI_OK || result.v_int64 != k) abort();
          atomic_fetch_add(&lookups_found, 1);
          xffi_object_dec_ref(f);
        }
        break;
      }
    }
  }
  return NULL;
}

static void test_registry_counts_balance_under_concurrent_register_lookup_remove(void **state) {
  (void)state;
  run_threads(registry_worker);
  char name[64];
  for (int k = 0; k < NAMES; ++k) {
    registry_name(name, sizeof(name), k);
    xffi_object *f = NULL;
    assert_int_equal(xffi_function_global_lookup(&f, name), XFFI_OK);
    long balance = atomic_load(&registered_ok[k]) - atomic_load(&removed_ok[k]);
    assert_int_equal(balance, f ? 1 : 0); /* no registration or removal lost or doubled */
    if (f) {
      xffi_object_dec_ref(f);
      assert_int_equal(xffi_function_global_erase(name), XFFI_OK);
    }
  }
  /* With every name removed, every function ever created has been finalized once. */
  assert_int_equal(atomic_load(&registry_finalized), atomic_load(&registry_created));
  assert_true(atomic_load(&lookups_found) > 0);
}

/* ---- The type registry: concurrent registration and lookup ---- */

enum { KEYS_PER_THREAD = 40 };

static int32_t type_indices[THREADS][KEYS_PER_THREAD][2]; /* [thread][key][first, second registration] */

static void *type_worker(void *arg) {
  int id = (int)(intptr_t)arg;
  char key[64];
  for (int k = 0; k < KEYS_PER_THREAD; ++k) {
    /* Every thread registers every key of two "owners": its own and its neighbour's, racing it. */
    for (int pass = 0; pass < 2; ++pass) {
      int owner = (id + pass) % THREADS;
      snprintf(key, sizeof(key), "stress.type.%d.%d", owner, k);
      int32_t index = -1;
      if (xffi_type_register(&index, key, XFFI_TYPE_OBJECT) != XFFI_OK) abort();
      if (pass == 0)
        type_indices[owner][k][0] = index;
      else
        type_indices[owner][k][1] = index;
      const xffi_type_info *info = NULL;
      if (xffi_type_info_get_by_key(&info, key) != XFFI_OK || info->type_index != index) abort();
      if (xffi_type_info_get(&info, index) != XFFI_OK || strcmp(info->type_key.data, key) != 0) abort();
    }
  }
  return NULL;
}

static void test_type_registry_gives_each_key_one_index_under_concurrency(void **state) {
  (void)state;
  /* The registry's first use registers the runtime's own types (ffi.Enum...): done before counting. */
  const xffi_type_info *object_info;
  assert_int_equal(xffi_type_info_get_by_key(&object_info, "ffi.Object"), XFFI_OK);
  int32_t before = xffi_type_count();
  run_threads(type_worker);
  assert_int_equal(xffi_type_count(), before + THREADS * KEYS_PER_THREAD); /* nothing registered twice */
  static int32_t seen[THREADS * KEYS_PER_THREAD];
  for (int t = 0; t < THREADS; ++t) {
    for (int k = 0; k < KEYS_PER_THREAD; ++k) {
      int32_t index = type_indices[t][k][0];
      assert_int_equal(index, type_indices[t][k][1]); /* both racers got the same index */
      assert_true(index >= before && index < before + THREADS * KEYS_PER_THREAD);
      assert_int_equal(seen[index - before], 0); /* unique */
      seen[index - before] = 1;
    }
  }
}

/* ---- One Function called from 8 threads ---- */

enum { CALLS = 20000 };

static atomic_long calls_made;

/* add(a, b) -> a + b; with a negative a it raises a ValueError naming b. */
static int add(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  atomic_long *counter = resource;
  atomic_fetch_add(counter, 1);
  int64_t a, b;
  if (xffi_arg_check_signature(args, num_args, "ii", "add") != XFFI_OK) return XFFI_FAIL;
  a = args[0].v_int64;
  b = args[1].v_int64;
  if (a < 0) return xffi_error_raise(XFFI_KIND_VALUE, "add: negative a for b=%lld", (long long)b);
  *result = xffi_any_int(a + b);
  return XFFI_OK;
}

static xffi_object *shared_add;
static atomic_long wrong_results;

static void *call_worker(void *arg) {
  int64_t id = (int64_t)(intptr_t)arg;
  char expected[64];
  for (int64_t i = 0; i < CALLS; ++i) {
    xffi_any result = xffi_any_none();
    int64_t b = id * 1000000 + i;
    if (i % 16 == 15) { /* a failing call: the error raised in this thread is this call's own */
      if (XFFI_CALL(shared_add, &result, xffi_any_int(-1), xffi_any_int(b)) != XFFI_FAIL) {
        atomic_fetch_add(&wrong_results, 1);
        continue;
      }
      xffi_object *err = xffi_error_move_raised();
      snprintf(expected, sizeof(expected), "add: negative a for b=%lld", (long long)b);
      if (!err || strcmp(xffi_error_cell_of_unchecked(err)->message.data, expected) != 0 ||
          result.type_index != XFFI_TYPE_NONE)
        atomic_fetch_add(&wrong_results, 1);
      xffi_object_dec_ref(err);
      continue;
    }
    int rc = (i & 1) ? XFFI_CALL(shared_add, &result, xffi_any_int(i), xffi_any_int(b))
                     : xffi_function_call(shared_add, (const xffi_any[]){xffi_any_int(i), xffi_any_int(b)}, 2, &result);
    if (rc != XFFI_OK || result.type_index != XFFI_TYPE_INT || result.v_int64 != i + b)
      atomic_fetch_add(&wrong_results, 1);
  }
  return NULL;
}

static void test_function_called_from_eight_threads_counts_every_call(void **state) {
  (void)state;
  atomic_store(&calls_made, 0);
  assert_int_equal(xffi_function_new(&shared_add, add, &calls_made, NULL), XFFI_OK);
  run_threads(call_worker);
  assert_int_equal(atomic_load(&wrong_results), 0);
  assert_int_equal(atomic_load(&calls_made), (long)THREADS * CALLS);
  assert_int_equal(xffi_object_strong_count(shared_add), 1);
  xffi_object_dec_ref(shared_add);
  assert_nothing_raised();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_weak_locks_race_the_last_release_of_library_objects),
      cmocka_unit_test(test_registry_counts_balance_under_concurrent_register_lookup_remove),
      cmocka_unit_test(test_type_registry_gives_each_key_one_index_under_concurrency),
      cmocka_unit_test(test_function_called_from_eight_threads_counts_every_call),
  };
  return cmocka_run_group_tests_name("stress_threads", tests, NULL, NULL);
}
