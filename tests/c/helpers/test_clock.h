/* tests/c/helpers/test_clock.h: clocks for the tests that bound how long the
 * library's own work takes (hash flooding, registry writers). A file that
 * includes it defines _POSIX_C_SOURCE (200809L) before its first include. */
#ifndef XFFI_TEST_CLOCK_H
#define XFFI_TEST_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock: wall time, for bounds that include waiting. */
static inline double test_wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds the calling thread has used: for comparing the cost of two
 * runs of the library's work, since other processes' load (a busy CI
 * machine) does not count. Falls back to wall time where the platform has
 * no thread CPU clock. */
static inline double test_cpu_seconds(void) {
#ifdef CLOCK_THREAD_CPUTIME_ID
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
  return test_wall_seconds();
}

#endif
