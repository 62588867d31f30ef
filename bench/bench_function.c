/* Function benchmarks (issue: functions, global registry, modules).
 * - calls with 0 and 2 int arguments (the callee checks both) against a
 *   direct call through a function pointer to the same callee;
 * - global lookup of an 18-byte name (+ release) against hashing and
 *   comparing the name alone;
 * - lookup throughput from 2 threads against 1;
 * - an error raised in a callee and moved out (and freed) by the caller. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xffi/xffi.h>
#include <xffi/function.h>
#include <xffi/sys/object.h>

#include "bench_harness.h"

typedef int (*callee_fn)(void *, const xffi_any *, int32_t, xffi_any *);

/* ---- Callees ---- */

static int __attribute__((noinline)) nullary(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args;
  *result = xffi_any_int(1);
  return 0;
}

static int __attribute__((noinline)) add2(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  int64_t a, b;
  if (xffi_arg_to_int_inline(&a, args, num_args, 0, "add2") || xffi_arg_to_int_inline(&b, args, num_args, 1, "add2"))
    return -1;
  if (num_args != 2) return xffi_arg_check_signature(args, num_args, "ii", "add2");
  *result = xffi_any_int(a + b);
  return 0;
}

static int __attribute__((noinline)) raises(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args, (void)result;
  return xffi_error_raise_str(XFFI_KIND_VALUE, "raises: argument 0: expected int, got str");
}

/* ---- Calls ---- */

typedef struct call_ctx {
  callee_fn direct; /* read through memory: the call stays indirect */
  xffi_object *func;
} call_ctx;

static void __attribute__((noinline)) call0_baseline(void *ctx, uint64_t n) {
  call_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    xffi_any result = xffi_any_none();
    if (c->direct(NULL, NULL, 0, &result)) abort();
    BENCH_KEEP(result.v_int64);
  }
}

static void __attribute__((noinline)) call0_xffi(void *ctx, uint64_t n) {
  call_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    xffi_any result;
    if (xffi_function_call_inline(c->func, NULL, 0, &result)) abort();
    BENCH_KEEP(result.v_int64);
  }
}

static void __attribute__((noinline)) call0_exported(void *ctx, uint64_t n) {
  call_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    xffi_any result;
    if (xffi_function_call(c->func, NULL, 0, &result)) abort();
    BENCH_KEEP(result.v_int64);
  }
}

static void __attribute__((noinline)) call2_baseline(void *ctx, uint64_t n) {
  call_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    xffi_any args[2] = {xffi_any_int((int64_t)i), xffi_any_int(2)};
    xffi_any result = xffi_any_none();
    if (c->direct(NULL, args, 2, &result)) abort();
    BENCH_KEEP(result.v_int64);
  }
}

static void __attribute__((noinline)) call2_xffi(void *ctx, uint64_t n) {
  call_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    xffi_any args[2] = {xffi_any_int((int64_t)i), xffi_any_int(2)};
    xffi_any result;
    if (xffi_function_call_inline(c->func, args, 2, &result)) abort();
    BENCH_KEEP(result.v_int64);
  }
}

static void __attribute__((noinline)) call2_exported(void *ctx, uint64_t n) {
  call_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    xffi_any args[2] = {xffi_any_int((int64_t)i), xffi_any_int(2)};
    xffi_any result;
    if (xffi_function_call(c->func, args, 2, &result)) abort();
    BENCH_KEEP(result.v_int64);
  }
}

/* ---- Errors across a call ---- */

static void __attribute__((noinline)) error_baseline(void *ctx, uint64_t n) {
  call_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) { /* the same raise, no function object */
    xffi_any result = xffi_any_none();
    if (c->direct(NULL, NULL, 0, &result) == 0) abort();
    xffi_object_dec_ref_inline(xffi_error_move_raised());
  }
}

static void __attribute__((noinline)) error_xffi(void *ctx, uint64_t n) {
  call_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any result;
    if (xffi_function_call_inline(c->func, NULL, 0, &result) == 0) abort();
    xffi_object_dec_ref_inline(xffi_error_move_raised());
  }
}

/* A realistic failure: the callee's argument check formats the message. */
static void __attribute__((noinline)) error_xffi_argcheck(void *ctx, uint64_t n) {
  call_ctx *c = ctx;
  xffi_any args[2] = {xffi_any_int(1), xffi_any_c_str("two")};
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any result;
    if (xffi_function_call_inline(c->func, args, 2, &result) == 0) abort();
    xffi_object_dec_ref_inline(xffi_error_move_raised());
  }
}

/* ---- Global lookup ---- */

/* 16 registered names of 18 bytes, looked up in turn: where a name lands in
 * the table (alone, or in a cluster) varies, so one name alone would measure
 * luck. */
enum { LOOKUP_NAMES = 16 };
static char lookup_names[LOOKUP_NAMES][19];
static char missing_names[LOOKUP_NAMES][19];
static const char *lookup_ptrs[LOOKUP_NAMES], *missing_ptrs[LOOKUP_NAMES];

/* The physical minimum of a hashed lookup: measure the name, hash it and
 * compare it with the stored key once. */
static void __attribute__((noinline)) lookup_baseline(void *ctx, uint64_t n) {
  (void)ctx;
  size_t hits = 0;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    const char *name = lookup_ptrs[i % LOOKUP_NAMES];
    size_t len = strlen(name);
    uint64_t h = xffi_bytes_hash(name, len);
    BENCH_KEEP(h);
    hits += memcmp(lookup_ptrs[(i + 1) % LOOKUP_NAMES], name, len) == 0;
  }
  BENCH_KEEP(hits);
}

static void __attribute__((noinline)) lookup_xffi(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    xffi_object *f;
    if (xffi_function_global_lookup(&f, lookup_ptrs[i % LOOKUP_NAMES]) || !f) abort();
    xffi_object_dec_ref_inline(f);
  }
}

static void __attribute__((noinline)) lookup_missing_xffi(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    xffi_object *f;
    if (xffi_function_global_lookup(&f, missing_ptrs[i % LOOKUP_NAMES]) || f) abort();
  }
}

/* ---- Lookup throughput, 1 vs 2 threads ---- */

typedef struct thread_ctx {
  const char *name;
  atomic_int *go, *stop;
  uint64_t count;
  double cpu_seconds;
} thread_ctx;

static double thread_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *lookup_thread(void *arg) {
  thread_ctx *t = arg;
  while (!atomic_load_explicit(t->go, memory_order_acquire)) {
  }
  uint64_t count = 0;
  double cpu0 = thread_cpu_seconds();
  while (!atomic_load_explicit(t->stop, memory_order_relaxed)) {
    for (int i = 0; i < 256; ++i) {
      xffi_object *f;
      if (xffi_function_global_lookup(&f, t->name) || !f) abort();
      xffi_object_dec_ref_inline(f);
    }
    count += 256;
  }
  t->count = count;
  t->cpu_seconds = thread_cpu_seconds() - cpu0;
  return NULL;
}

/* Lookups per second with n threads (each on its own name, or all on one):
 * by the wall clock, and per CPU-second of each thread, summed (what n free
 * cores would give: on a machine shared with other work the wall-clock
 * figure also measures the neighbours). */
static void lookups_per_second(int n, int same_name, uint64_t duration_ns, double *wall, double *per_cpu,
                               double *cores) {
  const char *names[2] = {lookup_names[0], lookup_names[1]};
  atomic_int go = 0, stop = 0;
  pthread_t threads[2];
  thread_ctx ctx[2];
  for (int i = 0; i < n; ++i) {
    ctx[i] = (thread_ctx){same_name ? names[0] : names[i], &go, &stop, 0, 0};
    pthread_create(&threads[i], NULL, lookup_thread, &ctx[i]);
  }
  uint64_t start = bench_now_ns();
  atomic_store_explicit(&go, 1, memory_order_release);
  struct timespec pause = {(time_t)(duration_ns / 1000000000u), (long)(duration_ns % 1000000000u)};
  nanosleep(&pause, NULL); /* sleep: a spinning main thread would steal a core */
  atomic_store(&stop, 1);
  uint64_t total = 0;
  double cpu_seconds = 0;
  *per_cpu = 0;
  for (int i = 0; i < n; ++i) {
    pthread_join(threads[i], NULL);
    total += ctx[i].count;
    cpu_seconds += ctx[i].cpu_seconds;
    *per_cpu += (double)ctx[i].count / ctx[i].cpu_seconds;
  }
  double seconds = (double)(bench_now_ns() - start) / 1e9;
  *wall = (double)total / seconds;
  *cores = cpu_seconds / seconds; /* about 2 if the threads ran side by side, 1 if they took turns */
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void thread_scaling(int same_name, uint64_t duration_ns) {
  enum { ROUNDS = 5 };
  double wall_ratio[ROUNDS], cpu_ratio[ROUNDS], one_ns[ROUNDS], busy[ROUNDS];
  for (int r = 0; r < ROUNDS; ++r) { /* interleaved, medians kept */
    double wall1, cpu1, wall2, cpu2, cores1;
    lookups_per_second(1, same_name, duration_ns, &wall1, &cpu1, &cores1);
    lookups_per_second(2, same_name, duration_ns, &wall2, &cpu2, &busy[r]);
    wall_ratio[r] = wall2 / wall1;
    cpu_ratio[r] = cpu2 / cpu1;
    one_ns[r] = 1e9 / cpu1;
  }
  qsort(wall_ratio, ROUNDS, sizeof(double), compare_double);
  qsort(cpu_ratio, ROUNDS, sizeof(double), compare_double);
  qsort(one_ns, ROUNDS, sizeof(double), compare_double);
  qsort(busy, ROUNDS, sizeof(double), compare_double);
  /* "cores" is the CPU time of the 2 threads over the wall time: near 1 the
   * machine gave them one core between them (the per-CPU-s ratio then says
   * nothing about contention), near 2 they really ran side by side. */
  char note[96];
  snprintf(note, sizeof note, "2 thr: %.2fx per CPU-s, %.2fx wall, %.2f cores (%s)", cpu_ratio[ROUNDS / 2],
           wall_ratio[ROUNDS / 2], busy[ROUNDS / 2], same_name ? "same name" : "a name each");
  bench_record(same_name ? "global lookup, 2 threads, same name" : "global lookup, 2 threads", "xffi",
               one_ns[ROUNDS / 2], -1, 0, note);
}

int main(int argc, char **argv) {
  bench_init(argc, argv);
  int quick = 0, skip_threads = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) quick = 1;
    if (!strcmp(argv[i], "--only") && i + 1 < argc && !strstr("global lookup, 2 threads", argv[i + 1]))
      skip_threads = 1;
  }

  call_ctx c0 = {nullary, NULL}, c2 = {add2, NULL}, ce = {raises, NULL}, ca = {add2, NULL};
  if (xffi_function_new(&c0.func, nullary, NULL, NULL) || xffi_function_new(&c2.func, add2, NULL, NULL) ||
      xffi_function_new(&ce.func, raises, NULL, NULL) || xffi_function_new(&ca.func, add2, NULL, NULL))
    return 1;
  bench_case call0[] = {
      {"baseline", call0_baseline, &c0}, {"xffi", call0_xffi, &c0}, {"exported", call0_exported, &c0}};
  bench_op("call, 0 args", call0, 3);
  bench_case call2[] = {
      {"baseline", call2_baseline, &c2}, {"xffi", call2_xffi, &c2}, {"exported", call2_exported, &c2}};
  bench_op("call, 2 int args (callee checks)", call2, 3);

  /* A registry of realistic size: 200 names, then the measured ones. */
  char name[64];
  for (int i = 0; i < 200; ++i) {
    snprintf(name, sizeof name, "bench.filler.function_%d", i);
    if (xffi_function_global_register(name, c0.func, 0)) return 1;
  }
  /* Each measured name has its own Function: the 2-thread run "a name each"
   * must not share a reference count between the threads (a lookup takes a
   * reference to what it finds), or it measures that cache line bouncing
   * between the cores and not the registry; "same name" measures it. */
  for (int i = 0; i < LOOKUP_NAMES; ++i) {
    snprintf(lookup_names[i], sizeof lookup_names[i], "bench.lookup.nm_%02d", i);
    snprintf(missing_names[i], sizeof missing_names[i], "bench.absent.nm_%02d", i);
    lookup_ptrs[i] = lookup_names[i];
    missing_ptrs[i] = missing_names[i];
    xffi_object *own;
    if (xffi_function_new(&own, nullary, NULL, NULL)) return 1;
    if (strlen(lookup_names[i]) != 18 || xffi_function_global_register(lookup_names[i], own, 0)) return 1;
    xffi_object_dec_ref(own); /* the registry keeps its own reference */
  }
  bench_case lookups[] = {
      {"baseline", lookup_baseline, NULL}, {"xffi", lookup_xffi, NULL}, {"xffi-miss", lookup_missing_xffi, NULL}};
  bench_op("global lookup 18 B + release", lookups, 3);

  bench_case errors[] = {
      {"baseline", error_baseline, &ce}, {"xffi", error_xffi, &ce}, {"xffi-arg", error_xffi_argcheck, &ca}};
  bench_op("error raised in callee, moved out", errors, 3);

  /* Child processes (callgrind runs) have exited inside bench_op by now. */
  if (!skip_threads) {
    uint64_t duration = quick ? 20000000u : 100000000u;
    thread_scaling(0, duration);
    thread_scaling(1, duration);
  }
  return bench_finish();
}
