/* bench/bench_harness.h: the benchmark harness shared by every bench_*.c.
 *
 * A benchmark is a set of operations, each measured for several
 * implementations: the first one given is the baseline, and every figure is
 * also shown as a ratio to it. For each (op, impl) the harness measures, in
 * the same run:
 * - ns per iteration: the thread's CPU time (not wall time, which on a
 *   loaded machine counts the waits for a core), rounds interleaved across
 *   the implementations, median kept, so a noisy neighbour slows all of
 *   them alike;
 * - heap allocations per iteration (malloc, calloc, realloc, posix_memalign,
 *   aligned_alloc of the whole process are counted by this harness);
 * - instructions per iteration, counted exactly by re-running this program
 *   under `valgrind --tool=callgrind` with collection switched on only
 *   around the measured loop (skipped with --no-callgrind or without valgrind).
 * Output: a table on stdout, then one JSON object per line:
 *   {"op":"...","impl":"...","ns":1.23,"instructions":45.6,"mallocs":0}
 * A program: call bench_init(argc, argv), then bench_op(...) per operation,
 * then return bench_finish(). Options: --no-callgrind, --quick, --only SUBSTR
 * (operations whose name contains SUBSTR), --impl SUBSTR (implementations
 * whose name contains SUBSTR), --instructions-only (no timing: only the
 * callgrind counts, deterministic; what bench/perf_guard.py reads). */
#ifndef XFFI_BENCH_HARNESS_H
#define XFFI_BENCH_HARNESS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* bench_map_tvm.cc, the C++ program, uses this C harness */
#endif

/* Runs the operation `iterations` times. ctx is the case's own state. The
 * function must do the same work for every call (set up in ctx beforehand). */
typedef void (*bench_fn)(void *ctx, uint64_t iterations);

typedef struct bench_case {
  const char *impl; /* "baseline", "xffi", ... */
  bench_fn fn;
  void *ctx;
} bench_case;

void bench_init(int argc, char **argv);

/* Measures every case of one operation; cases[0] is the baseline. */
void bench_op(const char *op, const bench_case *cases, int num_cases);

/* Whether bench_op(op, ...) would measure anything in this process (the
 * --only filter; in a callgrind child, only its own op): lets a program skip
 * an expensive set-up (a map of a million entries) that nothing will use. */
int bench_selected(const char *op);

/* Whether cases of implementation `impl` are measured in this process (the
 * --impl filter): lets a program skip a measurement of its own (bench_record)
 * for an implementation nothing will show. */
int bench_impl_selected(const char *impl);

/* A directory for this process's temporary files, made (mkdtemp, under
 * $TMPDIR or /tmp) on first call and removed at exit: callers remove the
 * files they put there. The string is owned by the harness. */
const char *bench_temp_dir(void);

/* Makes every later bench_op run each case a multiple of `multiple`
 * iterations (timed rounds and the callgrind run; 1: no constraint). An op
 * that cycles through a fixed set of keys (a Map of a million entries, each
 * probed once per cycle) then counts every key equally. */
void bench_set_iteration_multiple(uint64_t multiple);

/* Records a figure measured by the program itself (for example a throughput
 * ratio between thread counts, or bytes per entry). Pass a negative number
 * for a figure that does not apply; `note` (may be NULL) is shown in the table. */
void bench_record(const char *op, const char *impl, double ns, double instructions, double allocations,
                  const char *note);

/* The number of heap allocations so far (counted by the harness). */
uint64_t bench_malloc_count(void);

/* A monotonic clock in nanoseconds. */
uint64_t bench_now_ns(void);

/* Keeps the compiler from deleting a computation whose result is unused. */
#define BENCH_KEEP(value) __asm__ volatile("" : : "r"(value) : "memory")
#define BENCH_CLOBBER() __asm__ volatile("" : : : "memory")

/* Prints the table and the JSON lines; returns the process exit status. */
int bench_finish(void);

#ifdef __cplusplus
}
#endif

#endif /* XFFI_BENCH_HARNESS_H */
