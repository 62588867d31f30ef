/* Loading libxffi does no work: no heap allocation while the dynamic loader
 * maps it and runs its initialisers, and the first calls initialise lazily. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>

#include "test_util.h"

/* This program's malloc family counts calls, then defers to glibc. A
 * constructor in libxffi calling malloc would land here. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
static _Atomic long allocations;
void *malloc(size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_malloc(size);
}
void *calloc(size_t count, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_calloc(count, size);
}
void *realloc(void *ptr, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_realloc(ptr, size);
}

static void test_dlopen_allocates_nothing_beyond_an_empty_library(void **state) {
  (void)state;
  /* The loader's own bookkeeping is measured on an empty library first. */
  long before = atomic_load(&allocations);
  void *empty = dlopen(XFFI_TEST_EMPTY_LIB, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(empty);
  long loader_cost = atomic_load(&allocations) - before;
  dlclose(empty);

  before = atomic_load(&allocations);
  void *lib = dlopen(XFFI_TEST_SHARED_LIB, RTLD_NOW | RTLD_LOCAL);
  if (!lib) fail_msg("dlopen: %s", dlerror());
  long xffi_cost = atomic_load(&allocations) - before;
  assert_int_equal(xffi_cost, loader_cost);

  /* Built-in types need no initialisation at all: looking one up allocates nothing. */
  int (*info_get)(const xffi_type_info **, int32_t) = NULL;
  void *symbol = dlsym(lib, "xffi_type_info_get");
  assert_non_null(symbol);
  memcpy(&info_get, &symbol, sizeof(symbol)); /* POSIX: object to function pointer */
  const xffi_type_info *info = NULL;
  before = atomic_load(&allocations);
  assert_int_equal(info_get(&info, XFFI_TYPE_STRING), XFFI_OK);
  assert_string_equal(info->type_key.data, "String");
  assert_int_equal(atomic_load(&allocations) - before, 0);
  dlclose(lib);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dlopen_allocates_nothing_beyond_an_empty_library),
  };
  return cmocka_run_group_tests_name("load", tests, NULL, NULL);
}
