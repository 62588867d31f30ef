/* c/alloc.c: the one place the library takes heap memory from, with a test
 * hook that makes allocations fail on demand. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdlib.h>

#include <xffi/sys/testing.h>

#include "internal.h"

/* Allocations left before injected failures start; negative means never. */
static _Atomic int64_t allocs_before_failure = -1;
static _Atomic uint64_t alloc_count;

/* Whether the next allocation must fail; also counts it. */
static int injected_failure(void) {
  atomic_fetch_add_explicit(&alloc_count, 1, memory_order_relaxed);
  if (XFFI_LIKELY(atomic_load_explicit(&allocs_before_failure, memory_order_relaxed) < 0)) return 0;
  int64_t left = atomic_fetch_sub_explicit(&allocs_before_failure, 1, memory_order_relaxed);
  if (left > 0) return 0;
  atomic_store_explicit(&allocs_before_failure, 0, memory_order_relaxed);
  return 1;
}

void xffi_testing_fail_alloc_after(int64_t n) {
  atomic_store_explicit(&allocs_before_failure, n < 0 ? -1 : n, memory_order_relaxed);
}

uint64_t xffi_testing_alloc_count(void) {
  return atomic_load_explicit(&alloc_count, memory_order_relaxed);
}

void *xffi_alloc(size_t size) {
  if (injected_failure()) return NULL;
  return malloc(size ? size : 1);
}

void *xffi_alloc_zeroed(size_t count, size_t size) {
  if (injected_failure()) return NULL;
  return calloc(count ? count : 1, size ? size : 1);
}

void *xffi_realloc(void *ptr, size_t size) {
  if (injected_failure()) return NULL;
  return realloc(ptr, size ? size : 1);
}

void xffi_free(void *ptr) { free(ptr); }

void *xffi_alloc_aligned(size_t alignment, size_t size) {
  if (injected_failure()) return NULL;
  void *p = NULL;
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  if (posix_memalign(&p, alignment, size ? size : 1) != 0) return NULL;
  return p;
}

void xffi_free_aligned(void *ptr) { free(ptr); }

void xffi_deleter_plain(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) xffi_free(self);
}
