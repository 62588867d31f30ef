/* tests/c/helpers/expect.h: checks for the standalone test programs that
 * run beside another runtime (tests/plugin_matrix, tests/wheel_runtime),
 * where cmocka's longjmp-based asserts would leave half-loaded libraries:
 * each failed EXPECT is printed and counted, and main returns the count's
 * verdict. Include once per program (it defines the counter). */
#ifndef XFFI_TEST_EXPECT_H
#define XFFI_TEST_EXPECT_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

#define EXPECT(cond)                                         \
  do {                                                       \
    if (!(cond)) {                                           \
      fprintf(stderr, "%d: expected %s\n", __LINE__, #cond); \
      ++failures;                                            \
    }                                                        \
  } while (0)

/* dlopen(path, flags), or exit status 2 with the loader's reason: a program
 * that cannot load what it tests has nothing to check. */
static inline void *expect_load(const char *path, int flags) {
  void *handle = dlopen(path, flags);
  if (!handle) {
    fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    exit(2);
  }
  return handle;
}

#endif /* XFFI_TEST_EXPECT_H */
