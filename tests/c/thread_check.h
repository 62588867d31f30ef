/* tests/c/thread_check.h: a check any thread of a test may make. cmocka's
 * asserts may only run on the test's own thread, so other threads CHECK:
 * a failed check is printed and counted in `failures` (one counter per
 * test binary), and the test asserts it stayed 0. */
#ifndef XFFI_TEST_THREAD_CHECK_H
#define XFFI_TEST_THREAD_CHECK_H

#include <stdatomic.h>
#include <stdio.h>

static atomic_int failures;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      atomic_fetch_add(&failures, 1);                                          \
    }                                                                          \
  } while (0)

#endif
