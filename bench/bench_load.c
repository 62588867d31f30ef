/* Loading the library: heap allocations and instructions spent by dlopen +
 * dlclose of libxffi, against an empty shared library with the same dynamic
 * dependencies as libxffi (the baseline: what the dynamic loader itself
 * costs for a library of that shape), and against an empty library with no
 * dependencies at all. xffi runs no constructor and allocates nothing at
 * load, so it should allocate the same as the baseline. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_harness.h"

static void __attribute__((noinline)) load_and_unload(void *ctx, uint64_t n) {
  const char *path = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
      exit(1);
    }
    dlclose(lib);
  }
}

int main(int argc, char **argv) {
  bench_init(argc, argv);
  bench_case cases[] = {
      {"baseline", load_and_unload, (void *)XFFI_BENCH_DEPS_LIB},
      {"no-deps", load_and_unload, (void *)XFFI_BENCH_EMPTY_LIB},
      {"xffi", load_and_unload, (void *)XFFI_BENCH_XFFI_LIB},
  };
  bench_op("dlopen + dlclose", cases, 3);
  return bench_finish();
}
