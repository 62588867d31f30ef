/* c/alloc.c: the one place the library takes heap memory from, with a test
 * hook that makes allocations fail on demand. */
#include <stdlib.h>

#include <xffi/sys/testing.h>

#include "internal.h"
#include "platform.h"

/* Per thread: checking and counting cost no locked instruction, and a test's
 * injected failures hit only the thread that asked for them. */
_Thread_local int64_t xffi_alloc_budget = INT64_MAX;
/* The budget as last set, and the allocations counted before that: the count
 * is counted_before + (budget_start - xffi_alloc_budget). */
static _Thread_local int64_t budget_start = INT64_MAX;
static _Thread_local uint64_t counted_before;
static _Thread_local int injection_on;

static void set_budget(int64_t budget) {
  counted_before += (uint64_t)(budget_start - xffi_alloc_budget);
  budget_start = xffi_alloc_budget = budget;
}

/* The budget ran out for the allocation being made (it is counted already):
 * 1 if it must fail. Without injection that takes 2^63 allocations; the
 * budget is then refilled. */
static int budget_exhausted(void) {
  if (injection_on) return 1;
  set_budget(INT64_MAX);
  xffi_alloc_budget--;
  return 0;
}

/* Whether the next allocation must fail; also counts it. */
static int injected_failure(void) {
  if (XFFI_LIKELY(!xffi_alloc_budget_take())) return 0;
  return budget_exhausted();
}

void xffi_testing_fail_alloc_after(int64_t n) {
  injection_on = n >= 0;
  set_budget(n >= 0 ? n : INT64_MAX);
}

uint64_t xffi_testing_alloc_count(void) { return counted_before + (uint64_t)(budget_start - xffi_alloc_budget); }

void *xffi_alloc_over_budget(size_t size) {
  if (budget_exhausted()) return NULL;
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
  return xffi_platform_aligned_alloc(alignment, size);
}

void xffi_free_aligned(void *ptr) { xffi_platform_aligned_free(ptr); }

void xffi_deleter_plain(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) free(self);
}
