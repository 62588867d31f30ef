/* tests/one_runtime/test_one_runtime_c_host.c: a C host on xffi's runtime
 * alone (linked to the shared libxffi, which defines the TVMFFI* functions)
 * loads a kernel library built against tvm-ffi's headers with tvm-ffi's C++
 * export macros (kernel_lib.cc, not linked to any libtvm_ffi.so) through
 * xffi_module_load and calls it. One runtime serves both: the kernel's
 * TVMFFI* imports bind to libxffi, its errors arrive in xffi's slot, it finds
 * a global the host registered with xffi_function_global_register, and no
 * tvm-ffi library is mapped (the wheel's libtvm_ffi.so is compared by inode).
 * docs/tvm-ffi.md, "Which runtime serves". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "test_util.h"

/* What kernel_lib.cc imports from its runtime (nm -D --undefined-only). */
static const char *const kernel_imports[] = {"TVMFFIBacktrace", "TVMFFIErrorMoveFromRaised", "TVMFFIErrorSetRaised",
                                             "TVMFFIFunctionGetGlobal", "TVMFFIGetTypeInfo"};

static xffi_object *kernel;

/* Mappings of /proc/self/maps whose file is `path` (same device and inode,
 * whatever name it is mapped under). */
static int mappings_of(const char *path) {
  struct stat target;
  if (stat(path, &target) != 0) {
    return 0;
  }
  FILE *maps = fopen("/proc/self/maps", "r");
  assert_non_null(maps);
  char line[4096];
  int found = 0;
  while (fgets(line, sizeof line, maps)) {
    char *file = strchr(line, '/');
    struct stat st;
    if (!file) {
      continue;
    }
    file[strcspn(file, "\n")] = '\0';
    if (stat(file, &st) == 0 && st.st_dev == target.st_dev && st.st_ino == target.st_ino) {
      found++;
    }
  }
  fclose(maps);
  return found;
}

/* A mapping whose file name is libtvm_ffi.so (any tvm-ffi runtime). */
/* Whether a libtvm_ffi.so other than xffi's drop-in (XFFI_ARRANGEMENT_DROPIN,
 * which this host links) is mapped: compared by file identity, not path. */
static int foreign_tvm_ffi_runtime_mapped(void) {
  struct stat dropin;
  assert_int_equal(stat(XFFI_ARRANGEMENT_DROPIN, &dropin), 0);
  FILE *maps = fopen("/proc/self/maps", "r");
  assert_non_null(maps);
  char line[4096];
  int found = 0;
  while (fgets(line, sizeof line, maps)) {
    char *path = strchr(line, '/');
    if (!path || !strstr(path, "/libtvm_ffi.so\n")) continue;
    path[strcspn(path, "\n")] = '\0';
    struct stat mapped;
    if (stat(path, &mapped) != 0 || mapped.st_dev != dropin.st_dev || mapped.st_ino != dropin.st_ino) found = 1;
  }
  fclose(maps);
  return found;
}

static xffi_object *kernel_fn(const char *name) {
  xffi_object *f = NULL;
  assert_int_equal(xffi_module_lookup_function(&f, kernel, name), XFFI_OK);
  assert_non_null(f);
  return f;
}

/* Without a TVMFFI* the kernel imports, loading it would fail with the
 * loader's "undefined symbol": say which area's function is missing instead. */
static void test_runtime_defines_what_the_kernel_imports(void **state) {
  (void)state;
  int missing = 0;
  for (size_t i = 0; i < sizeof kernel_imports / sizeof kernel_imports[0]; i++) {
    if (!dlsym(RTLD_DEFAULT, kernel_imports[i])) {
      fprintf(stderr, "xffi's runtime does not define %s\n", kernel_imports[i]);
      missing++;
    }
  }
  assert_int_equal(missing, 0);
}

static void test_kernel_loads_and_calls_on_xffi(void **state) {
  (void)state;
  assert_int_equal(xffi_module_load(&kernel, XFFI_ARRANGEMENT_KERNEL), XFFI_OK);
  xffi_object *add_one = kernel_fn("add_one");
  xffi_any r;
  assert_int_equal(XFFI_CALL(add_one, &r, xffi_any_int(41)), XFFI_OK);
  int64_t n = 0;
  assert_int_equal(xffi_any_to_int(&n, &r), XFFI_OK);
  assert_int_equal(n, 42);
  xffi_object_dec_ref(add_one);

  xffi_object *greet = kernel_fn("greet");
  assert_int_equal(XFFI_CALL(greet, &r, xffi_any_c_str("xffi")), XFFI_OK);
  xffi_byte_array text;
  assert_int_equal(xffi_any_to_str(&text, &r), XFFI_OK);
  const char *expected = "hello xffi, from a kernel built against tvm-ffi's headers";
  assert_int_equal(text.size, strlen(expected));
  assert_memory_equal(text.data, expected, text.size);
  xffi_any_release(&r);
  xffi_object_dec_ref(greet);
}

static void test_kernel_errors_arrive_in_xffis_slot(void **state) {
  (void)state;
  xffi_object *refuse = kernel_fn("refuse");
  xffi_any r;
  assert_int_not_equal(XFFI_CALL(refuse, &r, xffi_any_int(7)), XFFI_OK);
  xffi_object *err = xffi_error_move_raised();
  assert_non_null(err);
  assert_true(xffi_error_is_kind(err, "ValueError"));
  assert_non_null(strstr(xffi_error_cell_of_unchecked(err)->message.data, "the kernel refuses 7"));
  assert_null(xffi_error_move_raised());
  xffi_object_dec_ref(err);
  xffi_object_dec_ref(refuse);
}

static int twice(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  int64_t x;
  if (xffi_arg_to_int(&x, args, num_args, 0, "twice")) {
    return -1;
  }
  *result = xffi_any_int(2 * x);
  return 0;
}

static void test_kernel_finds_the_hosts_globals(void **state) {
  (void)state;
  xffi_object *f = NULL;
  assert_int_equal(xffi_function_new(&f, twice, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_global_register("arrangements.twice", f, 1), XFFI_OK);
  xffi_object_dec_ref(f);
  xffi_object *call_global = kernel_fn("call_global");
  xffi_any r;
  assert_int_equal(XFFI_CALL(call_global, &r, xffi_any_c_str("arrangements.twice"), xffi_any_int(21)), XFFI_OK);
  int64_t n = 0;
  assert_int_equal(xffi_any_to_int(&n, &r), XFFI_OK);
  assert_int_equal(n, 42);
  xffi_object_dec_ref(call_global);
  assert_int_equal(xffi_function_global_erase("arrangements.twice"), XFFI_OK);
}

static void test_no_tvm_ffi_library_is_mapped(void **state) {
  (void)state;
  assert_int_equal(mappings_of(XFFI_ARRANGEMENT_WHEEL_RUNTIME), 0);
  assert_false(foreign_tvm_ffi_runtime_mapped());
  /* The kernel's imports resolve to the drop-in. */
  Dl_info info;
  assert_true(dladdr(dlsym(RTLD_DEFAULT, "TVMFFIFunctionCall"), &info) != 0);
  struct stat served, dropin;
  assert_int_equal(stat(info.dli_fname, &served), 0);
  assert_int_equal(stat(XFFI_ARRANGEMENT_DROPIN, &dropin), 0);
  assert_true(served.st_ino == dropin.st_ino && served.st_dev == dropin.st_dev);
}

static int teardown(void **state) {
  (void)state;
  if (kernel) {
    xffi_object_dec_ref(kernel);
  }
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runtime_defines_what_the_kernel_imports),
      cmocka_unit_test(test_kernel_loads_and_calls_on_xffi),
      cmocka_unit_test(test_kernel_errors_arrive_in_xffis_slot),
      cmocka_unit_test(test_kernel_finds_the_hosts_globals),
      cmocka_unit_test(test_no_tvm_ffi_library_is_mapped),
  };
  return cmocka_run_group_tests(tests, NULL, teardown);
}
