/* c/alloc.c: the one place the library takes heap memory from, with a test
 * hook that makes allocations fail on demand. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include <xffi/sys/testing.h>

#include "internal.h"

/* Per thread, so counting costs no locked instruction on the hot path. */
_Thread_local uint64_t xffi_alloc_counter;
/* Allocations left before injected failures start; negative means never. */
int64_t xffi_alloc_failure_countdown = -1;

/* Whether the next allocation must fail; also counts it. */
static int injected_failure(void) {
  xffi_alloc_counter++;
  if (XFFI_LIKELY(__atomic_load_n(&xffi_alloc_failure_countdown, __ATOMIC_RELAXED) < 0)) return 0;
  int64_t left = __atomic_fetch_sub(&xffi_alloc_failure_countdown, 1, __ATOMIC_RELAXED);
  if (left > 0) return 0;
  __atomic_store_n(&xffi_alloc_failure_countdown, 0, __ATOMIC_RELAXED);
  return 1;
}

void xffi_testing_fail_alloc_after(int64_t n) {
  __atomic_store_n(&xffi_alloc_failure_countdown, n < 0 ? -1 : n, __ATOMIC_RELAXED);
}

uint64_t xffi_testing_alloc_count(void) { return xffi_alloc_counter; }

void *xffi_alloc_injected(size_t size) {
  if (injected_failure()) return NULL; /* counts it, like the inline path */
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
  if (flags & XFFI_DELETE_MEMORY) free(self);
}
