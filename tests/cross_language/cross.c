/* tests/cross_language/cross.c: the C side of the Rust cross-language ownership tests
 * (rust/xffi-tests/tests/cross.rs) and benchmarks. Each helper does one
 * thing C code would really do with objects Rust made (hold them in C
 * containers, call them from C threads, keep weak references, check the
 * errors they raise), so the tests can prove every deleter runs exactly once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/map.h>
#include <xffi/xffi.h>
#include <xffi/sys/error.h>
#include <xffi/sys/object.h>

#include "cross.h"

/* ---- A C-defined object type with a counting deleter. ---- */

typedef struct cross_node {
  xffi_object header;
  int64_t value;
} cross_node;

static atomic_int contents_deleted;
static atomic_int memory_freed;

static void cross_node_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) atomic_fetch_add(&contents_deleted, 1);
  if (flags & XFFI_DELETE_MEMORY) {
    atomic_fetch_add(&memory_freed, 1);
    free(self);
  }
}

int32_t cross_node_type_index(void) {
  static atomic_int cached;
  int32_t index = atomic_load(&cached);
  if (index) return index;
  if (xffi_type_register(&index, "cross.CNode", XFFI_TYPE_OBJECT) != XFFI_OK) return -1;
  atomic_store(&cached, index);
  return index;
}

int cross_node_new(xffi_object **out, int64_t value) {
  if (!out) return xffi_error_raise(XFFI_KIND_VALUE, "cross_node_new: out is NULL");
  int32_t index = cross_node_type_index();
  if (index < 0) return XFFI_FAIL;
  cross_node *node = malloc(sizeof *node);
  if (!node) return xffi_error_raise_out_of_memory();
  xffi_object_init(&node->header, index, cross_node_deleter);
  node->value = value;
  *out = &node->header;
  return XFFI_OK;
}

int64_t cross_node_value(const xffi_object *node) { return ((const cross_node *)node)->value; }
int cross_node_contents_deleted(void) { return atomic_load(&contents_deleted); }
int cross_node_memory_freed(void) { return atomic_load(&memory_freed); }

/* ---- Containers held by C. ---- */

int cross_array_of_one(xffi_object **out, xffi_object *obj) {
  xffi_any item = xffi_any_object(obj);
  return xffi_array_new(out, &item, 1);
}

void cross_release(xffi_object *obj) { xffi_object_dec_ref(obj); }

int cross_map_put_new_node(xffi_object *map_in, xffi_object **map_out, const char *key, int64_t value) {
  xffi_object *node = NULL;
  if (cross_node_new(&node, value) != XFFI_OK) return XFFI_FAIL;
  xffi_object *map = map_in;
  xffi_object_inc_ref(map); /* our own reference to change copy-on-write */
  xffi_any k = xffi_any_c_str(key), v = xffi_any_object(node);
  int status = xffi_map_set(&map, &k, &v);
  xffi_object_dec_ref(node); /* the map holds its own reference now */
  if (status != XFFI_OK) {
    xffi_object_dec_ref(map);
    return XFFI_FAIL;
  }
  *map_out = map;
  return XFFI_OK;
}

/* ---- Calls from C threads. ---- */

typedef struct call_job {
  xffi_object *func; /* owned by the job: released on the thread */
  int64_t x;
  int64_t out;
  int status;
  char message[256];
} call_job;

static void *call_job_run(void *arg) {
  call_job *job = arg;
  xffi_any result = xffi_any_none();
  xffi_any x = xffi_any_int(job->x);
  job->status = xffi_function_call(job->func, &x, 1, &result);
  if (job->status == XFFI_OK) {
    if (xffi_any_to_int(&job->out, &result) != XFFI_OK) job->status = XFFI_FAIL;
  }
  if (job->status != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    if (err) {
      snprintf(job->message, sizeof job->message, "%s: %s", xffi_error_cell_of_unchecked(err)->kind.data,
               xffi_error_cell_of_unchecked(err)->message.data);
      xffi_object_dec_ref(err);
    }
  }
  xffi_any_release(&result);
  /* Drop the job's reference on this thread: if it is the last one, the
   * function (and the Rust closure in it) is destroyed here. */
  xffi_object_dec_ref(job->func);
  return NULL;
}

int cross_call_in_threads(int64_t *out_sum, xffi_object *func, int num_threads, char *message, size_t message_size) {
  enum { MAX = 16 };
  if (num_threads < 1 || num_threads > MAX)
    return xffi_error_raise(XFFI_KIND_VALUE, "cross_call_in_threads: bad count");
  call_job jobs[MAX];
  pthread_t threads[MAX];
  for (int i = 0; i < num_threads; ++i) {
    memset(&jobs[i], 0, sizeof jobs[i]);
    jobs[i].func = func;
    xffi_object_inc_ref(func);
    jobs[i].x = i + 1;
  }
  int started = 0;
  while (started < num_threads && pthread_create(&threads[started], NULL, call_job_run, &jobs[started]) == 0) ++started;
  int64_t sum = 0;
  int status = XFFI_OK;
  if (started < num_threads) { /* e.g. EAGAIN under a low thread limit: say so, leak nothing */
    for (int i = started; i < num_threads; ++i) xffi_object_dec_ref(jobs[i].func);
    if (message && message_size)
      snprintf(message, message_size, "cross_call_in_threads: could not start thread %d of %d", started + 1,
               num_threads);
    status = XFFI_FAIL;
  }
  for (int i = 0; i < started; ++i) {
    pthread_join(threads[i], NULL);
    if (jobs[i].status != XFFI_OK) {
      status = XFFI_FAIL;
      if (message && message_size) snprintf(message, message_size, "%s", jobs[i].message);
    }
    sum += jobs[i].out;
  }
  *out_sum = sum;
  return status;
}

/* Drops the only reference to obj on a new thread. */
static void *drop_run(void *arg) {
  xffi_object_dec_ref(arg);
  return NULL;
}
int cross_drop_on_thread(xffi_object *obj) {
  pthread_t t;
  if (pthread_create(&t, NULL, drop_run, obj) != 0) {
    xffi_object_dec_ref(obj); /* dropped all the same, but the caller learns it was not on a new thread */
    return -1;
  }
  pthread_join(t, NULL);
  return 0;
}

/* ---- Weak references held by C. ---- */

int cross_weak_is_alive(xffi_weak *weak) {
  xffi_object *obj = NULL;
  if (xffi_weak_lock(&obj, weak) != XFFI_OK) return -1;
  int alive = obj != NULL;
  xffi_object_dec_ref(obj);
  return alive;
}

/* ---- Errors both ways. ---- */

static int c_fail(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  (void)result;
  int64_t x = 0;
  if (xffi_arg_to_int(&x, args, num_args, 0, "cross_c_fail") != XFFI_OK) return XFFI_FAIL;
  return xffi_error_raise(XFFI_KIND_VALUE, "cross_c_fail: argument 0 was %lld", (long long)x);
}

int cross_make_failing_function(xffi_object **out) { return xffi_function_new(out, c_fail, NULL, NULL); }

int cross_call_expect_error(xffi_object *func, char *kind, char *message, size_t size) {
  xffi_any result = xffi_any_none();
  xffi_any arg = xffi_any_int(7);
  if (xffi_function_call(func, &arg, 1, &result) == XFFI_OK) {
    xffi_any_release(&result);
    return 0; /* no error: the test fails on this */
  }
  xffi_object *err = xffi_error_move_raised();
  if (!err) return -1;
  snprintf(kind, size, "%s", xffi_error_cell_of_unchecked(err)->kind.data);
  snprintf(message, size, "%s", xffi_error_cell_of_unchecked(err)->message.data);
  xffi_object_dec_ref(err);
  return 1;
}

/* ---- Benchmark helpers. ---- */

static int c_add(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  int64_t a, b;
  if (xffi_arg_to_int_inline(&a, args, num_args, 0, "c_add") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int_inline(&b, args, num_args, 1, "c_add") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(a + b);
  return XFFI_OK;
}

/* The same callee as a direct function (handle = the Function itself). */
static int c_add_direct(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int64_t a, b;
  if (xffi_arg_to_int_inline(&a, args, num_args, 0, "c_add") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int_inline(&b, args, num_args, 1, "c_add") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(a + b);
  return XFFI_OK;
}

int cross_make_c_add(xffi_object **out) { return xffi_function_new(out, c_add, NULL, NULL); }

int cross_make_c_add_direct(xffi_object **out) { return xffi_function_new_direct(out, c_add_direct, NULL, NULL); }

int cross_call_loop(int64_t *out_sum, xffi_object *func, int64_t iterations) {
  int64_t sum = 0;
  for (int64_t i = 0; i < iterations; ++i) {
    xffi_any args[2] = {xffi_any_int(i), xffi_any_int(1)};
    xffi_any result;
    if (xffi_function_call_inline(func, args, 2, &result) != XFFI_OK) return XFFI_FAIL;
    sum += result.v_int64;
  }
  *out_sum = sum;
  return XFFI_OK;
}
