/* tests/c/helpers/thread_check.h: a check any thread of a test may make. cmocka's
 * asserts may only run on the test's own thread, so other threads CHECK:
 * a failed check is printed and counted in `failures` (one counter per
 * test binary), and the test asserts it stayed 0. */
#ifndef XFFI_TEST_THREAD_CHECK_H
#define XFFI_TEST_THREAD_CHECK_H

#include <pthread.h>
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

/* Runs one writer thread beside `readers` (at most 16) reader threads, all
 * with a NULL argument, and joins them, the writer first. Returns 0, or -1
 * if a thread could not be started or joined. */
static inline int run_writer_beside_readers(void *(*writer)(void *), void *(*reader)(void *), int readers) {
  pthread_t threads[16], w;
  if (readers > 16) return -1;
  int started = 0, status = 0;
  while (started < readers && pthread_create(&threads[started], NULL, reader, NULL) == 0) ++started;
  if (started < readers || pthread_create(&w, NULL, writer, NULL) != 0)
    status = -1;
  else if (pthread_join(w, NULL) != 0)
    status = -1;
  for (int i = 0; i < started; ++i)
    if (pthread_join(threads[i], NULL) != 0) status = -1;
  return status;
}

#endif
