/* bench/bench_harness.c: timing, allocation counting, callgrind runs. */
#define _GNU_SOURCE
#include "bench_harness.h"

#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

/* ---- Allocation counting: this program's malloc family wraps glibc's. ----
 * The wrappers have default visibility so that they land in the executable's
 * dynamic symbol table: the project builds with hidden visibility, and a
 * hidden malloc would count only the calls linked statically into this
 * program (xffi_static), never those made inside libc or the dynamic loader
 * (dlopen), which the header promises to count too. */

#define BENCH_EXPORT __attribute__((visibility("default")))

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);

static _Atomic uint64_t mallocs;

BENCH_EXPORT void *malloc(size_t size) {
  atomic_fetch_add_explicit(&mallocs, 1, memory_order_relaxed);
  return __libc_malloc(size);
}
BENCH_EXPORT void *calloc(size_t count, size_t size) {
  atomic_fetch_add_explicit(&mallocs, 1, memory_order_relaxed);
  return __libc_calloc(count, size);
}
BENCH_EXPORT void *realloc(void *ptr, size_t size) {
  atomic_fetch_add_explicit(&mallocs, 1, memory_order_relaxed);
  return __libc_realloc(ptr, size);
}
BENCH_EXPORT int posix_memalign(void **out, size_t alignment, size_t size) {
  atomic_fetch_add_explicit(&mallocs, 1, memory_order_relaxed);
  void *p = __libc_memalign(alignment, size);
  if (!p) return 12; /* ENOMEM */
  *out = p;
  return 0;
}
BENCH_EXPORT void *aligned_alloc(size_t alignment, size_t size) {
  atomic_fetch_add_explicit(&mallocs, 1, memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
BENCH_EXPORT void free(void *ptr) { __libc_free(ptr); }

/* ---- A fixed hash key under valgrind. ----
 * xffi keys its hash tables with random bytes from getrandom, drawn once per
 * process: probe chains, and so instruction counts, would differ a little from
 * run to run (1-2 % on global lookups). Under valgrind this program's
 * getrandom (it wins over libc's, as malloc above) gives the same bytes every
 * run, so the counts are exact; native (timed) runs keep the system's. */

BENCH_EXPORT ssize_t getrandom(void *buf, size_t size, unsigned int flags) {
  if (!RUNNING_ON_VALGRIND) return syscall(SYS_getrandom, buf, size, flags);
  unsigned char *bytes = buf;
  for (size_t i = 0; i < size; ++i) bytes[i] = (unsigned char)(0x9e + 0x37 * i);
  return (ssize_t)size;
}

uint64_t bench_malloc_count(void) { return atomic_load_explicit(&mallocs, memory_order_relaxed); }

uint64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The CPU time this thread has used, in ns: what the timed rounds measure.
 * Wall time on a loaded machine counts the time the thread waits for a core:
 * under a load average of 20-36 on 2 cores, whole runs of an operation came
 * out 8-10x slower than others (about 19 ns against 150-200 ns for a DLPack
 * import, either runtime), which made ratios between implementations noise. */
static uint64_t cpu_now_ns(void) {
#if defined(CLOCK_THREAD_CPUTIME_ID)
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
  return bench_now_ns();
}

/* ---- State ---- */

typedef struct row {
  char op[64], impl[32], note[96];
  double ns, instructions, mallocs;
  int is_baseline;
  double base_ns, base_instructions;
} row;

static row rows[512];
static int num_rows;
static int use_callgrind = 1, quick, child_mode, instructions_only;
static const char *only, *only_impl;
static const char *child_op, *child_impl;
static uint64_t child_iterations;
static char self_path[4096];

#define CALLGRIND_ITERATIONS 20000
static uint64_t iteration_multiple = 1;

void bench_init(int argc, char **argv) {
  ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
  self_path[n > 0 ? n : 0] = '\0';
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--no-callgrind"))
      use_callgrind = 0;
    else if (!strcmp(argv[i], "--quick"))
      quick = 1;
    else if (!strcmp(argv[i], "--instructions-only"))
      instructions_only = 1;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--impl") && i + 1 < argc)
      only_impl = argv[++i];
    else if (!strcmp(argv[i], "--child") && i + 3 < argc) {
      child_mode = 1;
      child_op = argv[++i];
      child_impl = argv[++i];
      child_iterations = strtoull(argv[++i], NULL, 10);
    } else {
      fprintf(stderr,
              "usage: %s [--no-callgrind] [--quick] [--instructions-only] [--only SUBSTRING] [--impl SUBSTRING]\n",
              argv[0]);
      exit(2);
    }
  }
  if (use_callgrind && !child_mode && system("valgrind --version >/dev/null 2>&1") != 0) {
    fprintf(stderr, "valgrind not found: instruction counts are left out\n");
    use_callgrind = 0;
  }
}

int bench_selected(const char *op) {
  if (child_mode) return strcmp(op, child_op) == 0;
  return !only || strstr(op, only) != NULL;
}

int bench_impl_selected(const char *impl) { return !only_impl || strstr(impl, only_impl) != NULL; }

/* ---- The temporary directory: one per process, made on first use. ---- */

static char temp_dir[PATH_MAX];

/* At exit: removes the directory (empty by then: each user removes its own files). */
static void remove_temp_dir(void) {
  if (temp_dir[0] && rmdir(temp_dir) != 0) fprintf(stderr, "bench: %s was left behind (not empty)\n", temp_dir);
}

const char *bench_temp_dir(void) {
  if (temp_dir[0]) return temp_dir;
  const char *base = getenv("TMPDIR");
  snprintf(temp_dir, sizeof(temp_dir), "%s/xffi-bench-XXXXXX", base && base[0] ? base : "/tmp");
  if (!mkdtemp(temp_dir)) {
    fprintf(stderr, "bench: cannot make a temporary directory %s\n", temp_dir);
    exit(1);
  }
  atexit(remove_temp_dir);
  return temp_dir;
}

void bench_set_iteration_multiple(uint64_t multiple) { iteration_multiple = multiple ? multiple : 1; }

/* n rounded up to a multiple of iteration_multiple (at least one multiple). */
static uint64_t whole_multiples(uint64_t n) {
  uint64_t m = iteration_multiple;
  return n <= m ? m : (n + m - 1) / m * m;
}

/* Runs one case under callgrind in a child process; instructions per iteration. */
static double callgrind_instructions(const char *op, const bench_case *c) {
  char out_file[PATH_MAX + 32];
  snprintf(out_file, sizeof(out_file), "%s/callgrind.out", bench_temp_dir());
  char out_arg[PATH_MAX + 64], iterations[32];
  snprintf(out_arg, sizeof(out_arg), "--callgrind-out-file=%s", out_file);
  uint64_t count = whole_multiples(CALLGRIND_ITERATIONS);
  snprintf(iterations, sizeof(iterations), "%llu", (unsigned long long)count);
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", 1);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execlp("valgrind", "valgrind", "--tool=callgrind", "--collect-atstart=no", out_arg, self_path, "--child", op,
           c->impl, iterations, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  double result = -1;
  FILE *f = fopen(out_file, "r");
  if (f && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    char line[512];
    while (fgets(line, sizeof(line), f)) {
      if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7)) {
        result = strtod(strchr(line, ':') + 1, NULL) / (double)count;
        break;
      }
    }
  }
  if (f) fclose(f);
  unlink(out_file);
  return result;
}

/* Iterations that take about target_ns. */
static uint64_t calibrate(const bench_case *c, uint64_t target_ns) {
  uint64_t iterations = 1;
  for (;;) {
    uint64_t start = cpu_now_ns();
    c->fn(c->ctx, iterations);
    uint64_t elapsed = cpu_now_ns() - start;
    if (elapsed >= target_ns / 4 || iterations >= (UINT64_C(1) << 34)) {
      double per = (double)elapsed / (double)iterations;
      uint64_t want = per > 0 ? (uint64_t)((double)target_ns / per) : iterations * 4;
      return whole_multiples(want ? want : 1);
    }
    iterations *= 4;
  }
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static row *add_row(const char *op, const char *impl) {
  if (num_rows == (int)(sizeof(rows) / sizeof(rows[0]))) {
    fprintf(stderr, "bench: too many rows\n");
    exit(1);
  }
  row *r = &rows[num_rows++];
  memset(r, 0, sizeof(*r));
  snprintf(r->op, sizeof(r->op), "%s", op);
  snprintf(r->impl, sizeof(r->impl), "%s", impl);
  r->instructions = -1;
  r->base_ns = -1;
  r->base_instructions = -1;
  return r;
}

void bench_op(const char *op, const bench_case *cases, int num_cases) {
  if (child_mode) {
    for (int i = 0; i < num_cases; ++i) {
      if (strcmp(op, child_op) || strcmp(cases[i].impl, child_impl)) continue;
      cases[i].fn(cases[i].ctx, 16); /* warm up: lazy set-up is not counted */
      CALLGRIND_TOGGLE_COLLECT;
      cases[i].fn(cases[i].ctx, child_iterations);
      CALLGRIND_TOGGLE_COLLECT;
      exit(0);
    }
    return;
  }
  if (only && !strstr(op, only)) return;
  enum { MAX_CASES = 8, ROUNDS = 7 };
  if (num_cases > MAX_CASES) num_cases = MAX_CASES;
  int timed = !instructions_only;
  uint64_t target = quick ? 2000000u : 20000000u;
  uint64_t iterations[MAX_CASES];
  double samples[MAX_CASES][ROUNDS];
  double allocs[MAX_CASES];
  int selected[MAX_CASES];
  for (int i = 0; i < num_cases; ++i) {
    selected[i] = bench_impl_selected(cases[i].impl);
    if (selected[i] && timed) iterations[i] = calibrate(&cases[i], target);
  }
  for (int round = 0; timed && round < ROUNDS; ++round) {
    for (int i = 0; i < num_cases; ++i) {
      if (!selected[i]) continue;
      uint64_t m0 = bench_malloc_count();
      uint64_t start = cpu_now_ns();
      cases[i].fn(cases[i].ctx, iterations[i]);
      uint64_t elapsed = cpu_now_ns() - start;
      uint64_t m1 = bench_malloc_count();
      samples[i][round] = (double)elapsed / (double)iterations[i];
      if (round == 0) allocs[i] = (double)(m1 - m0) / (double)iterations[i];
    }
  }
  row *base = NULL;
  for (int i = 0; i < num_cases; ++i) {
    if (!selected[i]) continue;
    row *r = add_row(op, cases[i].impl);
    r->ns = -1;
    r->mallocs = -1;
    if (timed) {
      qsort(samples[i], ROUNDS, sizeof(double), compare_double);
      r->ns = samples[i][ROUNDS / 2];
      r->mallocs = allocs[i];
    }
    if (use_callgrind) r->instructions = callgrind_instructions(op, &cases[i]);
    if (i == 0) {
      base = r;
      r->is_baseline = 1;
    }
    if (base) {
      r->base_ns = base->ns;
      r->base_instructions = base->instructions;
    }
  }
}

void bench_record(const char *op, const char *impl, double ns, double instructions, double allocations,
                  const char *note) {
  if (child_mode || (only && !strstr(op, only)) || !bench_impl_selected(impl)) return;
  row *r = add_row(op, impl);
  r->ns = ns;
  r->instructions = instructions;
  r->mallocs = allocations;
  if (note) snprintf(r->note, sizeof(r->note), "%s", note);
}

static void print_number(char *buf, size_t size, double v, const char *format) {
  if (v < 0)
    snprintf(buf, size, "-");
  else
    snprintf(buf, size, format, v);
}

int bench_finish(void) {
  if (child_mode) {
    fprintf(stderr, "bench: no case named %s/%s\n", child_op, child_impl);
    return 1;
  }
  printf("%-40s %-10s %10s %8s %12s %8s %8s  %s\n", "op", "impl", "ns/op", "x base", "instr/op", "x base", "mallocs",
         "note");
  for (int i = 0; i < num_rows; ++i) {
    row *r = &rows[i];
    char ns[32], ratio[32], instr[32], iratio[32], mallocs_text[32];
    print_number(ns, sizeof(ns), r->ns, "%.2f");
    print_number(ratio, sizeof(ratio), r->base_ns > 0 && r->ns >= 0 ? r->ns / r->base_ns : -1, "%.2f");
    print_number(instr, sizeof(instr), r->instructions, "%.1f");
    print_number(iratio, sizeof(iratio),
                 r->base_instructions > 0 && r->instructions >= 0 ? r->instructions / r->base_instructions : -1,
                 "%.2f");
    print_number(mallocs_text, sizeof(mallocs_text), r->mallocs, "%.2f");
    printf("%-40s %-10s %10s %8s %12s %8s %8s  %s\n", r->op, r->impl, ns, ratio, instr, iratio, mallocs_text, r->note);
  }
  printf("\n");
  for (int i = 0; i < num_rows; ++i) {
    row *r = &rows[i];
    printf("{\"op\":\"%s\",\"impl\":\"%s\",\"ns\":", r->op, r->impl);
    if (r->ns >= 0)
      printf("%.3f", r->ns);
    else
      printf("null");
    printf(",\"instructions\":");
    if (r->instructions >= 0)
      printf("%.1f", r->instructions);
    else
      printf("null");
    printf(",\"mallocs\":");
    if (r->mallocs >= 0)
      printf("%.3f", r->mallocs);
    else
      printf("null");
    printf("}\n");
  }
  return 0;
}
