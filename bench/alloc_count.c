/* bench/alloc_count.c: an LD_PRELOAD shim that counts the calls a process
 * makes to malloc, calloc and realloc (C++'s operator new included: libstdc++
 * implements it with malloc), for bench/bench_tvm_clients.py. It counts in
 * the allocator's entry points rather than inside a runtime, so both tvm-ffi
 * runtimes are counted by the same code and every library in the process
 * (Python, TVM, LLVM, the runtime) is seen alike; the allocator itself is
 * glibc's, reached through its __libc_* entry points (no dlsym, which would
 * allocate while the shim is resolving). Linux with glibc only.
 *
 *   cc -O2 -shared -fPIC bench/alloc_count.c -o alloc_count.so
 *   XFFI_ALLOC_COUNT_FILE=counts LD_PRELOAD=./alloc_count.so PROGRAM
 *
 * At exit each process appends "malloc calloc realloc" (three counts) as one
 * line to XFFI_ALLOC_COUNT_FILE, so the child processes a program starts are
 * counted too (their lines add up). */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t count, size_t size);
void *__libc_realloc(void *ptr, size_t size);

static atomic_ullong malloc_calls, calloc_calls, realloc_calls;

void *malloc(size_t size) {
  atomic_fetch_add_explicit(&malloc_calls, 1, memory_order_relaxed);
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  atomic_fetch_add_explicit(&calloc_calls, 1, memory_order_relaxed);
  return __libc_calloc(count, size);
}

void *realloc(void *ptr, size_t size) {
  atomic_fetch_add_explicit(&realloc_calls, 1, memory_order_relaxed);
  return __libc_realloc(ptr, size);
}

/* One write(2) of the whole line, so lines of processes ending at once do not mix. */
__attribute__((destructor)) static void report_counts(void) {
  const char *path = getenv("XFFI_ALLOC_COUNT_FILE");
  char line[96];
  int fd, length;
  if (path == NULL) return;
  length = snprintf(line, sizeof line, "%llu %llu %llu\n", (unsigned long long)atomic_load(&malloc_calls),
                    (unsigned long long)atomic_load(&calloc_calls), (unsigned long long)atomic_load(&realloc_calls));
  fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return;
  if (write(fd, line, (size_t)length) != length) {
    /* Nothing to do at exit: the benchmark sees a missing line. */
  }
  close(fd);
}
