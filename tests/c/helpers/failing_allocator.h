/* tests/c/helpers/failing_allocator.h: an allocator (xffi/sys/allocator.h) for
 * tests that makes the library's Nth allocation fail and counts
 * allocations and frees. It wraps the default allocator.
 *
 * A test program calls failing_allocator_install() first thing in main,
 * before anything else allocates through xffi. The state is per thread: a
 * test's injected failures hit only its own thread, and the counts are the
 * calling thread's, so tests may run threads side by side. */
#ifndef XFFI_TEST_FAILING_ALLOCATOR_H
#define XFFI_TEST_FAILING_ALLOCATOR_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <xffi/sys/allocator.h>
#include <xffi/sys/error.h>
#include <xffi/xffi.h>

/* How many more allocations of this thread succeed before every one fails;
 * negative: failure injection is off. */
static _Thread_local int64_t failing_left = -1;
/* Allocation attempts (failed ones included; a reallocation is one) and
 * frees made by this thread, and of the attempts those that succeeded. */
static _Thread_local uint64_t failing_attempts;
static _Thread_local uint64_t failing_successes;
static _Thread_local uint64_t failing_frees;
static xffi_allocator failing_inner; /* the default allocator, wrapped */
static int failing_installed;

/* Counts one attempt; 1 if it must fail. */
static inline int failing_take(void) {
  ++failing_attempts;
  if (failing_left < 0) return 0;
  if (failing_left == 0) return 1;
  --failing_left;
  return 0;
}

static inline void *failing_counted(void *block) {
  if (block) ++failing_successes;
  return block;
}

static inline void *failing_allocate(void *context, size_t size) {
  (void)context;
  if (failing_take()) return NULL;
  return failing_counted(failing_inner.allocate(failing_inner.context, size));
}

static inline void *failing_reallocate(void *context, void *ptr, size_t size) {
  (void)context;
  if (failing_take()) return NULL;
  /* Moves a block: neither a new one nor a freed one. */
  return failing_inner.reallocate(failing_inner.context, ptr, size);
}

static inline void failing_deallocate(void *context, void *ptr) {
  (void)context;
  ++failing_frees;
  failing_inner.deallocate(failing_inner.context, ptr);
}

static inline void *failing_allocate_aligned(void *context, size_t alignment, size_t size) {
  (void)context;
  if (failing_take()) return NULL;
  return failing_counted(failing_inner.allocate_aligned(failing_inner.context, alignment, size));
}

static inline void failing_deallocate_aligned(void *context, void *ptr) {
  (void)context;
  ++failing_frees;
  failing_inner.deallocate_aligned(failing_inner.context, ptr);
}

/* Installs the failing allocator; exits the program if the library refuses
 * (something allocated before it). */
static inline void failing_allocator_install(void) {
  xffi_allocator failing = {NULL,
                            failing_allocate,
                            failing_reallocate,
                            failing_deallocate,
                            failing_allocate_aligned,
                            failing_deallocate_aligned};
  if (xffi_allocator_default(&failing_inner) != XFFI_OK || xffi_allocator_install(&failing) != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    fprintf(stderr, "failing_allocator_install: %s\n",
            err ? xffi_error_cell_of_unchecked(err)->message.data : "(no error)");
    exit(1);
  }
  failing_installed = 1;
}

static inline void failing_allocator_require(void) {
  if (!failing_installed) {
    fprintf(stderr, "failing_allocator: call failing_allocator_install() first thing in main\n");
    exit(1);
  }
}

/* From now on, let n more allocations of the calling thread succeed and fail
 * every one after them (n = 0 fails the very next). A negative n turns
 * failure injection off. Other threads are not affected. */
static inline void failing_allocator_fail_after(int64_t n) {
  failing_allocator_require();
  failing_left = n < 0 ? -1 : n;
}

/* Allocation attempts the library made so far in the calling thread,
 * failed ones and reallocations included. */
static inline uint64_t failing_allocator_attempts(void) {
  failing_allocator_require();
  return failing_attempts;
}

/* Blocks allocated minus blocks freed by the calling thread: unchanged
 * across an operation that leaks nothing (and frees on the same thread). */
static inline int64_t failing_allocator_live(void) {
  failing_allocator_require();
  return (int64_t)(failing_successes - failing_frees);
}

#endif /* XFFI_TEST_FAILING_ALLOCATOR_H */
