/* Counts the heap allocations a dlopen makes (issue 15: the libtvm_ffi.so
 * drop-in makes none of its own when it loads). The program interposes
 * malloc and its relatives (an executable's definitions win over libc's for
 * every library, the dynamic loader's own allocations included) and forwards
 * them to glibc's __libc_* entry points; it counts only around one dlopen.
 * The definitions must be in the executable's dynamic symbol table (default
 * visibility, linked with ENABLE_EXPORTS, as tests/cmake/tvm_ffi_dropin.cmake
 * does): otherwise they serve only this file's own calls and every load
 * counts 0. The program checks that first: the malloc the dynamic linker
 * finds in the global scope must be this file's, or it exits 1.
 *
 *   load_allocs LIB...   prints "allocations PATH COUNT" for each LIB,
 *                        each loaded with RTLD_NOW | RTLD_LOCAL in turn.
 *
 * The dynamic loader allocates for every object it maps (its link map, the
 * name, scope lists, a TLS slot), so a library is compared with a reference
 * library of the same shape (tests/dropin/reference_lib.c) loaded by the
 * same program: what the drop-in makes beyond it is made by its own code.
 * glibc only (the __libc_* names). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);

#define EXPORTED __attribute__((visibility("default")))

/* Single-threaded program: plain counters are enough. */
static int counting;
static unsigned long allocations;

static void count_one(void) {
  if (counting) {
    allocations++;
  }
}

EXPORTED void *malloc(size_t size) {
  count_one();
  return __libc_malloc(size);
}

EXPORTED void *calloc(size_t count, size_t size) {
  count_one();
  return __libc_calloc(count, size);
}

EXPORTED void *realloc(void *ptr, size_t size) {
  count_one();
  return __libc_realloc(ptr, size);
}

EXPORTED void *memalign(size_t alignment, size_t size) {
  count_one();
  return __libc_memalign(alignment, size);
}

EXPORTED void *aligned_alloc(size_t alignment, size_t size) {
  count_one();
  return __libc_memalign(alignment, size);
}

EXPORTED int posix_memalign(void **out, size_t alignment, size_t size) {
  count_one();
  void *p = __libc_memalign(alignment, size);
  if (!p) {
    return 12; /* ENOMEM */
  }
  *out = p;
  return 0;
}

EXPORTED void free(void *ptr) { __libc_free(ptr); }

/* Whether the malloc every library binds (the first in the global scope) is
 * this file's: a dynamic loader's or a library's call counts only then. */
static int counter_is_the_process_malloc(void) {
  union {
    void *(*function)(size_t);
    void *object;
  } ours = {malloc}, bound;
  bound.object = dlsym(RTLD_DEFAULT, "malloc");
  return bound.object && bound.function == ours.function;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s LIB...\n", argv[0]);
    return 2;
  }
  if (!counter_is_the_process_malloc()) {
    fprintf(stderr,
            "%s: the process's malloc is not this program's (is it exported?): "
            "every load would count 0\n",
            argv[0]);
    return 1;
  }
  for (int i = 1; i < argc; i++) {
    allocations = 0;
    counting = 1;
    void *handle = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    counting = 0;
    if (!handle) {
      fprintf(stderr, "dlopen %s: %s\n", argv[i], dlerror());
      return 1;
    }
    printf("allocations %s %lu\n", argv[i], allocations);
  }
  return 0;
}
