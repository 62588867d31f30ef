/* tests/c/compat/test_tvm_module.c: tvm-ffi's module side on xffi: the ffi.Module*
 * and ffi.SystemLib globals (called from their static table, c/globals_module.c),
 * TVMFFIEnvModLookupFromImports, TVMFFIEnvModRegisterContextSymbol and
 * TVMFFIEnvModRegisterSystemLibSymbol, and libraries loaded as tvm-ffi
 * loads them (tests/plugins/plugin_tvm_*; tests/cmake/tvm_module.cmake). */
#if defined(__wasi__)
#  define _POSIX_C_SOURCE 200809L /* clock_gettime (tests/c/helpers/test_clock.h) */
#endif
#if !defined(_WIN32) && !defined(__wasi__)
#  define _GNU_SOURCE /* clock_gettime, symlink */
#  include <unistd.h>
#endif
#include <stdlib.h>
#include <time.h>

#include "test_clock.h"
#include "test_util.h"

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/module.h>
#include <xffi/string.h>
#include <xffi/tvm_ffi.h>

#include "compat/globals/builtin_globals.h"
#include "failing_allocator.h"

/* The static Function of a module global, by name (borrowed, immortal). */
static xffi_object *global(const char *name) {
  for (size_t i = 0; i < xffi_globals_module.count; ++i)
    if (strcmp(xffi_globals_module.entries[i].name, name) == 0) return &xffi_globals_module.entries[i].function->header;
  fail_msg("no module global named %s", name);
  return NULL;
}

/* Calls global name with the listed arguments. */
#define CALL_GLOBAL(name, result, ...) XFFI_CALL(global(name), (result), __VA_ARGS__)

static void assert_text(const xffi_any *v, const char *expected) {
  xffi_byte_array s;
  assert_int_equal(xffi_any_to_str(&s, v), XFFI_OK);
  assert_int_equal(s.size, strlen(expected));
  assert_memory_equal(s.data, expected, s.size);
}

static int64_t call_int(xffi_object *function, int64_t x) {
  xffi_any r;
  assert_int_equal(XFFI_CALL(function, &r, xffi_any_int(x)), XFFI_OK);
  assert_int_equal(r.type_index, XFFI_TYPE_INT);
  return r.v_int64;
}

/* ---- The table ---- */

static void test_table_lists_the_sixteen_module_globals(void **state) {
  (void)state;
  static const char *const names[] = {"ffi.ModuleLoadFromFile",
                                      "ffi.Module.load_from_file.so",
                                      "ffi.ModuleGetFunction",
                                      "ffi.ModuleGetFunctionDoc",
                                      "ffi.ModuleGetFunctionMetadata",
                                      "ffi.ModuleImplementsFunction",
                                      "ffi.ModuleGetKind",
                                      "ffi.ModuleGetPropertyMask",
                                      "ffi.ModuleGetWriteFormats",
                                      "ffi.ModuleInspectSource",
                                      "ffi.ModuleWriteToFile",
                                      "ffi.ModuleImportModule",
                                      "ffi.ModuleClearImports",
                                      "ffi.ModuleGlobalsAdd",
                                      "ffi.ModuleGlobalsRemove",
                                      "ffi.SystemLib"};
  assert_int_equal(xffi_globals_module.count, sizeof names / sizeof names[0]);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    xffi_object *f = global(names[i]);
    assert_int_equal(f->type_index, XFFI_TYPE_FUNCTION);
  }
}

/* ---- The system library (no shared library needed) ---- */

static int sys_add_one(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int64_t x;
  if (xffi_arg_to_int(&x, args, num_args, 0, "sys_add_one") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(x + 1);
  return XFFI_OK;
}

static int sys_times_ten(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int64_t x;
  if (xffi_arg_to_int(&x, args, num_args, 0, "sys_times_ten") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(10 * x);
  return XFFI_OK;
}

static int sys_doc(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)args, (void)num_args;
  return xffi_any_from_str(result, "system doc", 10);
}

/* A safe call's address as the void* the system table stores. */
static void *address_of(xffi_function_callback f) {
  void *p;
  memcpy(&p, &f, sizeof p);
  return p;
}

static void test_system_lib_finds_functions_with_and_without_prefix(void **state) {
  (void)state;
  assert_int_equal(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_sys_add_one", address_of(sys_add_one)), 0);
  assert_int_equal(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_pfx_times_ten", address_of(sys_times_ten)), 0);
  assert_int_equal(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi__doc_sys_add_one", address_of(sys_doc)), 0);
  xffi_any lib, lib_again, prefixed, f;
  assert_int_equal(XFFI_CALL(global("ffi.SystemLib"), &lib, xffi_any_c_str("")), XFFI_OK);
  assert_int_equal(lib.type_index, XFFI_TYPE_MODULE);
  /* No argument is the empty prefix: the same module, made once. */
  assert_int_equal(xffi_function_call(global("ffi.SystemLib"), NULL, 0, &lib_again), XFFI_OK);
  assert_ptr_equal(lib.v_obj, lib_again.v_obj);
  xffi_any_release(&lib_again);

  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetFunction", &f, lib, xffi_any_c_str("sys_add_one"), xffi_any_bool(0)),
                   XFFI_OK);
  assert_int_equal(call_int(f.v_obj, 41), 42);
  xffi_any_release(&f);
  xffi_any doc;
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetFunctionDoc", &doc, lib, xffi_any_c_str("sys_add_one"), xffi_any_bool(0)),
                   XFFI_OK);
  assert_text(&doc, "system doc");
  xffi_any_release(&doc);

  /* "pfx_": __tvm_ffi_pfx_NAME first, then __tvm_ffi_NAME. */
  assert_int_equal(CALL_GLOBAL("ffi.SystemLib", &prefixed, xffi_any_c_str("pfx_")), XFFI_OK);
  assert_ptr_not_equal(prefixed.v_obj, lib.v_obj);
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetFunction", &f, prefixed, xffi_any_c_str("times_ten"), xffi_any_bool(0)),
                   XFFI_OK);
  assert_int_equal(call_int(f.v_obj, 4), 40);
  xffi_any_release(&f);
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetFunction", &f, prefixed, xffi_any_c_str("sys_add_one"), xffi_any_bool(0)),
                   XFFI_OK);
  assert_int_equal(call_int(f.v_obj, 1), 2);
  xffi_any_release(&f);
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetFunction", &f, lib, xffi_any_c_str("times_ten"), xffi_any_bool(0)),
                   XFFI_OK);
  assert_int_equal(f.type_index, XFFI_TYPE_NONE);

  /* A later address for a known name wins (as in tvm-ffi). */
  assert_int_equal(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_sys_add_one", address_of(sys_times_ten)), 0);
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetFunction", &f, lib, xffi_any_c_str("sys_add_one"), xffi_any_bool(0)),
                   XFFI_OK);
  assert_int_equal(call_int(f.v_obj, 3), 30);
  xffi_any_release(&f);
  assert_int_equal(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_sys_add_one", address_of(sys_add_one)), 0);
  xffi_any_release(&prefixed);
  xffi_any_release(&lib);
}

/* 300,000 system symbols registered in descending order (each one would go
 * first in a sorted array) and all found again: linear work. */
static void test_system_lib_table_takes_many_symbols(void **state) {
  (void)state;
  enum { SYMBOLS = 300000 };
  char name[64];
  double start = test_cpu_seconds();
  for (int i = SYMBOLS - 1; i >= 0; --i) {
    snprintf(name, sizeof name, "__tvm_ffi_many_%06d", i);
    assert_int_equal(TVMFFIEnvModRegisterSystemLibSymbol(name, address_of(sys_add_one)), 0);
  }
  double registered = test_cpu_seconds();
  xffi_any lib, r;
  assert_int_equal(CALL_GLOBAL("ffi.SystemLib", &lib, xffi_any_c_str("many_")), XFFI_OK);
  for (int i = 0; i < SYMBOLS; ++i) {
    snprintf(name, sizeof name, "%06d", i);
    assert_int_equal(CALL_GLOBAL("ffi.ModuleImplementsFunction", &r, lib, xffi_any_c_str(name), xffi_any_bool(0)),
                     XFFI_OK);
    assert_true(r.v_int64);
  }
  double found = test_cpu_seconds();
  print_message("%d system symbols: registered in %.3f s, found in %.3f s (CPU)\n", SYMBOLS, registered - start,
                found - registered);
  assert_true(registered - start < 3.0); /* 0.2 s; a sorted array took 15 s */
  xffi_any_release(&lib);
}

static void *system_ctx_variable;

static void test_system_lib_fills_its_library_ctx(void **state) {
  (void)state;
  assert_int_equal(TVMFFIEnvModRegisterSystemLibSymbol("ctx___tvm_ffi__library_ctx", &system_ctx_variable), 0);
  xffi_any lib;
  assert_int_equal(CALL_GLOBAL("ffi.SystemLib", &lib, xffi_any_c_str("ctx_")), XFFI_OK);
  assert_ptr_equal(system_ctx_variable, lib.v_obj);
  xffi_any_release(&lib);
}

/* Embedded trees fed through the system library: each prefix its own bin. */
#define U64(x) (x) & 0xff, ((x) >> 8) & 0xff, 0, 0, 0, 0, 0, 0

static void expect_bad_bin(const char *prefix, const unsigned char *bin, const char *fragment) {
  char symbol[128];
  snprintf(symbol, sizeof symbol, "%s__tvm_ffi__library_bin", prefix);
  assert_int_equal(TVMFFIEnvModRegisterSystemLibSymbol(symbol, (void *)bin), 0);
  xffi_any lib;
  assert_int_equal(CALL_GLOBAL("ffi.SystemLib", &lib, xffi_any_c_str(prefix)), XFFI_FAIL);
  assert_int_equal(lib.type_index, XFFI_TYPE_NONE);
  assert_raised(XFFI_KIND_RUNTIME, fragment);
}

static void test_malformed_library_bin_is_a_runtime_error(void **state) {
  (void)state;
  static const unsigned char short_indptr[] = {U64(8), U64(5)}; /* 5 pointers promised, none there */
  expect_bad_bin("bin1_", short_indptr, "the import tree's index pointers");
  static const unsigned char no_module[] = {U64(16), U64(1), U64(0)}; /* one pointer: no module; no children vec */
  expect_bad_bin("bin2_", no_module, "child indices");
  static const unsigned char empty_tree[] = {U64(24), U64(1), U64(0), U64(0)};
  expect_bad_bin("bin3_", empty_tree, "has no module");
  static const unsigned char bad_child[] = {U64(52), U64(2), U64(0), U64(1), U64(1), U64(9),
                                            U64(4),  '_',    'l',    'i',    'b'};
  expect_bad_bin("bin4_", bad_child, "a child index is out of range");
  static const unsigned char bad_order[] = {U64(40), U64(2), U64(1), U64(0), U64(1), U64(0)};
  expect_bad_bin("bin5_", bad_order, "out of order or out of range");
  static const unsigned char short_kind[] = {U64(41), U64(2), U64(0), U64(0), U64(0), U64(100), 'x'};
  expect_bad_bin("bin6_", short_kind, "a module kind");
  static const unsigned char no_loader[] = {U64(51), U64(2), U64(0), U64(0), U64(0), U64(3), 'z', 'z', 'z', U64(0)};
  expect_bad_bin("bin7_", no_loader, "ffi.Module.load_from_bytes.zzz");
  /* A module importing itself. */
  static const unsigned char self_import[] = {U64(52), U64(2), U64(0), U64(1), U64(1), U64(0),
                                              U64(4),  '_',    'l',    'i',    'b'};
  expect_bad_bin("bin8_", self_import, "cyclic dependency");
  /* A well-formed tree of the library alone loads. */
  static const unsigned char lib_only[] = {U64(44), U64(2), U64(0), U64(0), U64(0), U64(4), '_', 'l', 'i', 'b'};
  assert_int_equal(TVMFFIEnvModRegisterSystemLibSymbol("bin9___tvm_ffi__library_bin", (void *)lib_only), 0);
  xffi_any lib;
  assert_int_equal(CALL_GLOBAL("ffi.SystemLib", &lib, xffi_any_c_str("bin9_")), XFFI_OK);
  assert_int_equal(lib.type_index, XFFI_TYPE_MODULE);
  xffi_any_release(&lib);
}

/* ---- The fixed answers of a library module ---- */

static void test_library_module_kind_mask_formats_source_and_write(void **state) {
  (void)state;
  xffi_any lib, r;
  assert_int_equal(xffi_function_call(global("ffi.SystemLib"), NULL, 0, &lib), XFFI_OK);
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetKind", &r, lib), XFFI_OK);
  assert_text(&r, "library");
  xffi_any_release(&r);
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetPropertyMask", &r, lib), XFFI_OK);
  assert_int_equal(r.type_index, XFFI_TYPE_INT);
  assert_int_equal(r.v_int64, 3); /* binary serialisable | runnable */
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetWriteFormats", &r, lib), XFFI_OK);
  assert_int_equal(r.type_index, XFFI_TYPE_ARRAY);
  int64_t n;
  assert_int_equal(xffi_array_length(&n, r.v_obj), XFFI_OK);
  assert_int_equal(n, 0);
  xffi_any_release(&r);
  assert_int_equal(CALL_GLOBAL("ffi.ModuleInspectSource", &r, lib, xffi_any_c_str("asm")), XFFI_OK);
  assert_text(&r, "");
  assert_int_equal(CALL_GLOBAL("ffi.ModuleWriteToFile", &r, lib, xffi_any_c_str("/tmp/x.so"), xffi_any_c_str("so")),
                   XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "Module[library] does not support WriteToFile");
  xffi_any_release(&lib);
}

static uint64_t strong_count(xffi_object *obj) { return obj->ref_counts & 0xffffffffu; }

static void test_module_globals_add_keeps_one_reference(void **state) {
  (void)state;
  xffi_any lib, r;
  assert_int_equal(CALL_GLOBAL("ffi.SystemLib", &lib, xffi_any_c_str("keep_")), XFFI_OK);
  uint64_t before = strong_count(lib.v_obj);
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGlobalsAdd", &r, lib), XFFI_OK);
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGlobalsAdd", &r, lib), XFFI_OK); /* a set: once */
  assert_int_equal(strong_count(lib.v_obj), before + 1);
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGlobalsRemove", &r, lib), XFFI_OK);
  assert_int_equal(strong_count(lib.v_obj), before);
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGlobalsRemove", &r, lib), XFFI_OK); /* absent: nothing */
  assert_int_equal(strong_count(lib.v_obj), before);
  xffi_any_release(&lib);
}

/* ---- Bad input ---- */

/* The deleter of a stack object posing as another runtime's Module. */
static void foreign_deleter(void *self, int flags) { (void)self, (void)flags; }

static void test_env_entry_points_refuse_bad_input(void **state) {
  (void)state;
  void *out = &out;
  assert_int_equal(TVMFFIEnvModLookupFromImports(NULL, "f", &out), -1);
  assert_null(out);
  assert_raised(XFFI_KIND_VALUE, "library_ctx is NULL");
  xffi_any lib;
  assert_int_equal(xffi_function_call(global("ffi.SystemLib"), NULL, 0, &lib), XFFI_OK);
  assert_int_equal(TVMFFIEnvModLookupFromImports(lib.v_obj, NULL, &out), -1);
  assert_raised(XFFI_KIND_VALUE, "func_name is NULL");
  assert_int_equal(TVMFFIEnvModLookupFromImports(lib.v_obj, "", &out), -1);
  assert_raised(XFFI_KIND_VALUE, "func_name is empty");
  assert_int_equal(TVMFFIEnvModLookupFromImports(lib.v_obj, "f", NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "out is NULL");
  /* Not a module; a Module-typed object of another runtime. */
  xffi_object *s;
  assert_int_equal(xffi_string_from_c_str(&s, "not a module, a string long enough for the heap"), XFFI_OK);
  assert_int_equal(TVMFFIEnvModLookupFromImports(s, "f", &out), -1);
  assert_raised(XFFI_KIND_TYPE, "library_ctx is not a library Module of this runtime");
  xffi_object foreign;
  xffi_object_init(&foreign, XFFI_TYPE_MODULE, foreign_deleter);
  assert_int_equal(TVMFFIEnvModLookupFromImports(&foreign, "f", &out), -1);
  assert_raised(XFFI_KIND_TYPE, "library_ctx is not a library Module of this runtime");
  /* Missing everywhere. */
  assert_int_equal(TVMFFIEnvModLookupFromImports(lib.v_obj, "xffi_test.nowhere", &out), -1);
  expect_error(XFFI_KIND_RUNTIME, "Cannot find function xffi_test.nowhere in the imported modules or global registry");

  assert_int_equal(TVMFFIEnvModRegisterContextSymbol(NULL, &out), -1);
  assert_raised(XFFI_KIND_VALUE, "name is NULL");
  assert_int_equal(TVMFFIEnvModRegisterContextSymbol("", &out), -1);
  assert_raised(XFFI_KIND_VALUE, "name is empty");
  assert_int_equal(TVMFFIEnvModRegisterSystemLibSymbol(NULL, &out), -1);
  assert_raised(XFFI_KIND_VALUE, "name is NULL");
  assert_int_equal(TVMFFIEnvModRegisterSystemLibSymbol("", &out), -1);
  assert_raised(XFFI_KIND_VALUE, "name is empty");

  /* The globals: wrong counts, kinds, foreign modules. */
  xffi_any r;
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetFunction", &r, lib, xffi_any_c_str("f")), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "ffi.ModuleGetFunction: expected 3 arguments, got 2");
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetFunction", &r, xffi_any_int(1), xffi_any_c_str("f"), xffi_any_bool(0)),
                   XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "ffi.ModuleGetFunction: argument 0");
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetFunction", &r, lib, xffi_any_int(1), xffi_any_bool(0)), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "ffi.ModuleGetFunction: argument 1");
  assert_int_equal(
      CALL_GLOBAL("ffi.ModuleImplementsFunction", &r, xffi_any_object(s), xffi_any_c_str("f"), xffi_any_bool(1)),
      XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "ffi.ModuleImplementsFunction: argument 0");
  assert_int_equal(
      CALL_GLOBAL("ffi.ModuleGetFunctionDoc", &r, xffi_any_object(&foreign), xffi_any_c_str("f"), xffi_any_bool(1)),
      XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "a Module of another runtime");
  /* Every global taking a Module refuses an int and another runtime's Module there. */
  static const struct {
    const char *name;
    int32_t count;
  } takes_module[] = {
      {"ffi.ModuleGetFunction", 3},        {"ffi.ModuleGetFunctionDoc", 3}, {"ffi.ModuleGetFunctionMetadata", 3},
      {"ffi.ModuleImplementsFunction", 3}, {"ffi.ModuleGetKind", 1},        {"ffi.ModuleGetPropertyMask", 1},
      {"ffi.ModuleGetWriteFormats", 1},    {"ffi.ModuleInspectSource", 2},  {"ffi.ModuleWriteToFile", 3},
      {"ffi.ModuleImportModule", 2},       {"ffi.ModuleClearImports", 1},   {"ffi.ModuleGlobalsAdd", 1},
      {"ffi.ModuleGlobalsRemove", 1}};
  for (size_t i = 0; i < sizeof takes_module / sizeof takes_module[0]; ++i) {
    int lookup = takes_module[i].count == 3 && strstr(takes_module[i].name, "WriteToFile") == NULL;
    xffi_any args[3] = {xffi_any_int(1), xffi_any_c_str("f"), lookup ? xffi_any_bool(1) : xffi_any_c_str("so")};
    if (strcmp(takes_module[i].name, "ffi.ModuleImportModule") == 0) args[1] = lib;
    char expected[96];
    snprintf(expected, sizeof expected, "%s: argument 0", takes_module[i].name);
    assert_int_equal(xffi_function_call(global(takes_module[i].name), args, takes_module[i].count, &r), XFFI_FAIL);
    assert_raised(XFFI_KIND_TYPE, expected);
    args[0] = xffi_any_object(&foreign);
    assert_int_equal(xffi_function_call(global(takes_module[i].name), args, takes_module[i].count, &r), XFFI_FAIL);
    assert_raised(XFFI_KIND_TYPE, "a Module of another runtime");
  }
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetKind", &r, lib, lib), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "ffi.ModuleGetKind: expected 1 argument, got 2");
  assert_int_equal(xffi_function_call(global("ffi.ModuleClearImports"), NULL, 1, &r), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "args is NULL");
  assert_int_equal(CALL_GLOBAL("ffi.ModuleImportModule", &r, lib, xffi_any_none()), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "ffi.ModuleImportModule: argument 1");
  assert_int_equal(CALL_GLOBAL("ffi.ModuleImportModule", &r, lib, lib), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "cyclic dependency detected during import");
  assert_int_equal(CALL_GLOBAL("ffi.SystemLib", &r, xffi_any_int(3)), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "ffi.SystemLib: argument 0");
  assert_int_equal(CALL_GLOBAL("ffi.SystemLib", &r, xffi_any_c_str("a"), xffi_any_c_str("b")), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "ffi.SystemLib: expected 1 argument, got 2");
  static const char with_nul[] = {'a', '\0', 'b'};
  xffi_any nul_prefix;
  assert_int_equal(xffi_any_from_str(&nul_prefix, with_nul, sizeof with_nul), XFFI_OK);
  assert_int_equal(CALL_GLOBAL("ffi.SystemLib", &r, nul_prefix), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "ffi.SystemLib: the symbol prefix holds a NUL character");
  assert_int_equal(CALL_GLOBAL("ffi.ModuleLoadFromFile", &r, xffi_any_c_str("/no/extension")), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "failed to get the file format from '/no/extension'");
  assert_int_equal(CALL_GLOBAL("ffi.ModuleLoadFromFile", &r, xffi_any_c_str("/x/model.xffinothing")), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "ffi.Module.load_from_file.xffinothing");
  assert_int_equal(CALL_GLOBAL("ffi.ModuleLoadFromFile", &r, xffi_any_int(0)), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "ffi.ModuleLoadFromFile: argument 0");
  assert_int_equal(CALL_GLOBAL("ffi.Module.load_from_file.so", &r, xffi_any_c_str(""), xffi_any_c_str("so")),
                   XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "path is empty");
  assert_int_equal(
      CALL_GLOBAL("ffi.Module.load_from_file.so", &r, xffi_any_c_str("/no/such/lib.so"), xffi_any_c_str("so")),
      XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "cannot load '/no/such/lib.so'");
  xffi_object_dec_ref(s);
  xffi_any_release(&lib);
}

/* ---- Libraries (ELF: tests/cmake/tvm_module.cmake) ---- */
#if defined(XFFI_TEST_TVM_MODULE_PLUGINS)
#  include "counting_object_allocator.h"

static xffi_object *load(const char *path) {
  xffi_object *m;
  assert_int_equal(xffi_module_load(&m, path), XFFI_OK);
  return m;
}

/* ffi.ModuleGetFunction(m, name, query_imports): a new reference or NULL. */
static xffi_object *get_function(xffi_object *m, const char *name, int query_imports) {
  xffi_any r;
  assert_int_equal(
      CALL_GLOBAL("ffi.ModuleGetFunction", &r, xffi_any_object(m), xffi_any_c_str(name), xffi_any_bool(query_imports)),
      XFFI_OK);
  return r.type_index == XFFI_TYPE_NONE ? NULL : r.v_obj;
}

static void import_module(xffi_object *m, xffi_object *other) {
  xffi_any r;
  assert_int_equal(CALL_GLOBAL("ffi.ModuleImportModule", &r, xffi_any_object(m), xffi_any_object(other)), XFFI_OK);
}

static int implements(xffi_object *m, const char *name, int query_imports) {
  xffi_any r;
  assert_int_equal(CALL_GLOBAL("ffi.ModuleImplementsFunction", &r, xffi_any_object(m), xffi_any_c_str(name),
                               xffi_any_bool(query_imports)),
                   XFFI_OK);
  assert_int_equal(r.type_index, XFFI_TYPE_BOOL);
  return (int)r.v_int64;
}

/* ffi.ModuleGetFunctionDoc / Metadata: the text, or NULL for None (the
 * caller frees the copy). */
static char *get_text(const char *global_name, xffi_object *m, const char *name, int query_imports) {
  xffi_any r;
  assert_int_equal(CALL_GLOBAL(global_name, &r, xffi_any_object(m), xffi_any_c_str(name), xffi_any_bool(query_imports)),
                   XFFI_OK);
  if (r.type_index == XFFI_TYPE_NONE) return NULL;
  xffi_byte_array s;
  assert_int_equal(xffi_any_to_str(&s, &r), XFFI_OK);
  char *copy = calloc(1, s.size + 1);
  memcpy(copy, s.data, s.size);
  xffi_any_release(&r);
  return copy;
}

static void assert_text_is(char *got, const char *expected) {
  assert_non_null(got);
  assert_string_equal(got, expected);
  free(got);
}

static int context_target;

static void test_loader_writes_context_symbols_and_library_ctx(void **state) {
  (void)state;
  assert_int_equal(TVMFFIEnvModRegisterContextSymbol("xffi_test_context_value", &context_target), 0);
  xffi_object *m = load(XFFI_TEST_PLUGIN_TVM_MODULE);
  xffi_object *ctx = get_function(m, "library_ctx", 0), *value = get_function(m, "context_value", 0);
  xffi_any r;
  assert_int_equal(xffi_function_call(ctx, NULL, 0, &r), XFFI_OK);
  assert_ptr_equal(r.v_ptr, m);
  assert_int_equal(xffi_function_call(value, NULL, 0, &r), XFFI_OK);
  assert_ptr_equal(r.v_ptr, &context_target);
  xffi_object_dec_ref(ctx);
  xffi_object_dec_ref(value);
  xffi_object_dec_ref(m);
}

/* A loaded library's Module and the Functions taken from it come from the
 * object allocator in use when they were made, and go back to it after it
 * was replaced (the allocation header, c/internal.h). */
static void test_loaded_module_goes_back_to_its_allocator(void **state) {
  (void)state;
  memset(&counter, 0, sizeof(counter));
  static xffi_custom_allocator mine = {counting_allocate, &counter}; /* outlives a failed test */
  assert_int_equal(TVMFFISetCustomAllocator(&mine), 0);
  xffi_object *m = load(XFFI_TEST_PLUGIN_TVM_MODULE_DEP);
  assert_int_equal(counter.allocated, 1);
  assert_int_equal(counter.last_type_index, XFFI_TYPE_MODULE);
  xffi_object *twice = get_function(m, "twice", 0);
  assert_int_equal(counter.allocated, 2);
  /* A Module's body is tvm-ffi's C++ ModuleObj: its vtable pointer (padded
   * to 8 bytes) comes before the Object header (c/lib/module/module_cxx.h). */
  assert_ptr_equal(header_of((char *)m - 8)->delete_space, counting_delete_space);
  assert_ptr_equal(header_of(twice)->delete_space, counting_delete_space);
  assert_int_equal(TVMFFISetCustomAllocator(NULL), 0);
  xffi_object_dec_ref(m); /* the function holds the module */
  assert_int_equal(counter.freed, 0);
  xffi_object_dec_ref(twice);
  assert_int_equal(counter.freed, 2);
}

static void test_imports_are_searched_depth_first_after_the_module(void **state) {
  (void)state;
  xffi_object *a = load(XFFI_TEST_PLUGIN_TVM_MODULE), *b = load(XFFI_TEST_PLUGIN_TVM_MODULE_DEP);
  assert_null(get_function(a, "twice", 1));
  import_module(a, b);
  assert_null(get_function(a, "twice", 0));
  xffi_object *f = get_function(a, "twice", 1);
  assert_int_equal(call_int(f, 21), 42);
  xffi_object_dec_ref(f);
  f = get_function(a, "add_one", 1); /* a's own shadows b's */
  assert_int_equal(call_int(f, 1), 2);
  xffi_object_dec_ref(f);
  f = get_function(b, "add_one", 0);
  assert_int_equal(call_int(f, 1), 101);
  xffi_object_dec_ref(f);
  assert_false(implements(a, "twice", 0));
  assert_true(implements(a, "twice", 1));
  assert_true(implements(a, "add_one", 0));
  assert_false(implements(a, "nothing", 1));

  assert_text_is(get_text("ffi.ModuleGetFunctionDoc", a, "add_one", 0), "Adds one to an int.");
  assert_null(get_text("ffi.ModuleGetFunctionDoc", a, "twice", 0));
  assert_text_is(get_text("ffi.ModuleGetFunctionDoc", a, "twice", 1),
                 "Doubles an int; a doc long enough to live on the heap.");
  assert_text_is(get_text("ffi.ModuleGetFunctionMetadata", a, "add_one", 0), "{\"type_schema\":\"int\"}");
  assert_text_is(get_text("ffi.ModuleGetFunctionMetadata", a, "twice", 1), "{}");
  assert_null(get_text("ffi.ModuleGetFunctionMetadata", a, "nothing", 1));

  /* Getters that misbehave: an error, not a crash. */
  xffi_any r;
  assert_int_equal(CALL_GLOBAL("ffi.ModuleGetFunctionMetadata", &r, xffi_any_object(a), xffi_any_c_str("add_one_bad"),
                               xffi_any_bool(0)),
                   XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "__tvm_ffi__metadata_add_one_bad: expected the getter to return a String, got int");
  assert_int_equal(
      CALL_GLOBAL("ffi.ModuleGetFunctionDoc", &r, xffi_any_object(a), xffi_any_c_str("add_one_bad"), xffi_any_bool(0)),
      XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "no doc today");

  /* b importing a would close a cycle. */
  assert_int_equal(CALL_GLOBAL("ffi.ModuleImportModule", &r, xffi_any_object(b), xffi_any_object(a)), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "cyclic dependency detected during import");

  assert_int_equal(CALL_GLOBAL("ffi.ModuleClearImports", &r, xffi_any_object(a)), XFFI_OK);
  assert_null(get_function(a, "twice", 1));
  xffi_object_dec_ref(a);
  xffi_object_dec_ref(b);
}

static int triple(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  int64_t x;
  if (xffi_arg_to_int(&x, args, num_args, 0, "triple") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(3 * x);
  return XFFI_OK;
}

static void test_lookup_from_imports_caches_and_falls_back_to_globals(void **state) {
  (void)state;
  xffi_object *a = load(XFFI_TEST_PLUGIN_TVM_MODULE), *b = load(XFFI_TEST_PLUGIN_TVM_MODULE_DEP);
  xffi_object *call = get_function(a, "call_imported", 0), *address = get_function(a, "lookup_address", 0);
  xffi_any r;
  assert_int_equal(XFFI_CALL(call, &r, xffi_any_c_str("twice"), xffi_any_int(21)), XFFI_FAIL);
  expect_error(XFFI_KIND_RUNTIME, "Cannot find function twice in the imported modules or global registry");
  /* The global registry comes after the imports. */
  xffi_object *g;
  assert_int_equal(xffi_function_new(&g, triple, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_global_register("xffi_test.module_triple", g, 0), XFFI_OK);
  xffi_object_dec_ref(g);
  assert_int_equal(XFFI_CALL(call, &r, xffi_any_c_str("xffi_test.module_triple"), xffi_any_int(5)), XFFI_OK);
  assert_int_equal(r.v_int64, 15);
  import_module(a, b);
  assert_int_equal(XFFI_CALL(call, &r, xffi_any_c_str("twice"), xffi_any_int(21)), XFFI_OK);
  assert_int_equal(r.v_int64, 42);
  /* Borrowed from the module's cache: the same handle every time, also once
   * the imports are gone (tvm-ffi keeps its cache too). */
  xffi_any first, again;
  assert_int_equal(XFFI_CALL(address, &first, xffi_any_c_str("twice")), XFFI_OK);
  assert_int_equal(XFFI_CALL(address, &again, xffi_any_c_str("twice")), XFFI_OK);
  assert_ptr_equal(first.v_ptr, again.v_ptr);
  assert_int_equal(CALL_GLOBAL("ffi.ModuleClearImports", &r, xffi_any_object(a)), XFFI_OK);
  xffi_object_dec_ref(b);
  assert_int_equal(XFFI_CALL(address, &again, xffi_any_c_str("twice")), XFFI_OK);
  assert_ptr_equal(first.v_ptr, again.v_ptr);
  assert_int_equal(call_int(first.v_ptr, 8), 16);
  assert_int_equal(xffi_function_global_erase("xffi_test.module_triple"), XFFI_OK);
  xffi_object_dec_ref(call);
  xffi_object_dec_ref(address);
  xffi_object_dec_ref(a);
}

/* ffi.Module.load_from_bytes.xffitest: checks the payload, gives the dep module. */
static int load_xffitest(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  xffi_byte_array payload;
  if (xffi_arg_check_signature(args, num_args, "y", "load_xffitest") != XFFI_OK) return XFFI_FAIL;
  if (xffi_any_to_bytes(&payload, &args[0]) != XFFI_OK) return XFFI_FAIL;
  if (payload.size != 7 || memcmp(payload.data, "payload", 7) != 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "load_xffitest: wrong payload");
  xffi_object *m;
  if (xffi_module_load(&m, XFFI_TEST_PLUGIN_TVM_MODULE_DEP) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(m);
  return XFFI_OK;
}

static void test_library_bin_builds_the_import_tree(void **state) {
  (void)state;
  xffi_object *m;
  assert_int_equal(xffi_module_load(&m, XFFI_TEST_PLUGIN_TVM_MODULE_BIN), XFFI_FAIL);
  assert_null(m);
  assert_raised(XFFI_KIND_RUNTIME, "(expected the global function ffi.Module.load_from_bytes.xffitest)");
  xffi_object *loader;
  assert_int_equal(xffi_function_new(&loader, load_xffitest, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_global_register("ffi.Module.load_from_bytes.xffitest", loader, 0), XFFI_OK);
  xffi_object_dec_ref(loader);
  m = load(XFFI_TEST_PLUGIN_TVM_MODULE_BIN);
  xffi_object *lookup = get_function(m, "lookup_twice", 0);
  assert_int_equal(call_int(lookup, 4), 8); /* through __tvm_ffi__library_ctx and the embedded import */
  assert_null(get_function(m, "twice", 0));
  xffi_object *f = get_function(m, "twice", 1);
  assert_int_equal(call_int(f, 5), 10);
  xffi_object_dec_ref(f);
  xffi_object_dec_ref(lookup);
  xffi_object_dec_ref(m);
  assert_int_equal(xffi_function_global_erase("ffi.Module.load_from_bytes.xffitest"), XFFI_OK);
}

/* Each allocation of a load (embedded tree, import, context symbols) and of
 * a first LookupFromImports (its cache) failing in turn: a MemoryError, and
 * every block made on the way is freed. */
static void test_allocation_failures_leave_nothing_behind(void **state) {
  (void)state;
  xffi_object *loader;
  assert_int_equal(xffi_function_new(&loader, load_xffitest, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_global_register("ffi.Module.load_from_bytes.xffitest", loader, 0), XFFI_OK);
  xffi_object_dec_ref(loader);
  int64_t live = failing_allocator_live();
  int64_t failures = 0;
  for (int64_t n = 0;; ++n) {
    failing_allocator_fail_after(n);
    xffi_object *m = NULL;
    void *handle = NULL;
    int status = xffi_module_load(&m, XFFI_TEST_PLUGIN_TVM_MODULE_BIN);
    if (status == XFFI_OK) status = TVMFFIEnvModLookupFromImports(m, "twice", &handle);
    failing_allocator_fail_after(-1);
    if (status != XFFI_OK) {
      xffi_object *err = xffi_error_move_raised();
      assert_non_null(err);
      assert_true(xffi_error_is_kind(err, XFFI_KIND_MEMORY));
      xffi_object_dec_ref(err);
      ++failures;
    } else {
      assert_non_null(handle);
    }
    if (m) xffi_object_dec_ref(m);
    assert_int_equal(failing_allocator_live(), live);
    if (status == XFFI_OK) break;
  }
  print_message("%lld allocation points failed in turn\n", (long long)failures);
  assert_true(failures >= 5);
  assert_int_equal(xffi_function_global_erase("ffi.Module.load_from_bytes.xffitest"), XFFI_OK);
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A chain of 100,000 imports: searched and released with bounded stack.
 * 64 modules each importing the next twice: 2^63 paths, searched once each. */
static void test_deep_and_diamond_imports(void **state) {
  (void)state;
  enum { CHAIN = 100000, DIAMOND = 64 };
  double start = now_seconds();
  xffi_object *root = load(XFFI_TEST_PLUGIN_TVM_MODULE_DEP), *last = root;
  xffi_object_inc_ref(root);
  for (int i = 1; i < CHAIN; ++i) {
    xffi_object *next = load(XFFI_TEST_PLUGIN_TVM_MODULE_DEP);
    import_module(last, next);
    xffi_object_dec_ref(last);
    last = next;
  }
  xffi_object_dec_ref(last);
  double built = now_seconds();
  assert_null(get_function(root, "nothing", 1));
  double searched = now_seconds();
  xffi_object_dec_ref(root);
  double released = now_seconds();
  print_message("chain of %d: built %.3f s, searched %.3f s, released %.3f s\n", CHAIN, built - start, searched - built,
                released - searched);

  xffi_object *modules[DIAMOND];
  for (int i = 0; i < DIAMOND; ++i) modules[i] = load(XFFI_TEST_PLUGIN_TVM_MODULE_DEP);
  for (int i = 0; i + 1 < DIAMOND; ++i) {
    import_module(modules[i], modules[i + 1]);
    import_module(modules[i], modules[i + 1]);
  }
  start = now_seconds();
  assert_false(implements(modules[0], "nothing", 1));
  double diamond = now_seconds() - start;
  print_message("diamond of %d: searched in %.6f s\n", DIAMOND, diamond);
  assert_true(diamond < 5.0); /* linear: microseconds; exponential: never */
  for (int i = 0; i < DIAMOND; ++i) xffi_object_dec_ref(modules[i]);
}

/* ffi.ModuleLoadFromFile dispatches to ffi.Module.load_from_file.<ext>
 * through the global registry; until the registry serves the static tables
 * itself, the test puts the .so loader there. */
static void test_load_from_file_dispatches_by_extension(void **state) {
  (void)state;
  const char *so_loader = "ffi.Module.load_from_file.so";
  xffi_object *found;
  assert_int_equal(xffi_function_global_lookup(&found, so_loader), XFFI_OK);
  int registered_here = found == NULL;
  if (found)
    xffi_object_dec_ref(found);
  else
    assert_int_equal(xffi_function_global_register(so_loader, global(so_loader), 0), XFFI_OK);
  xffi_any m;
  assert_int_equal(CALL_GLOBAL("ffi.ModuleLoadFromFile", &m, xffi_any_c_str(XFFI_TEST_PLUGIN_TVM_MODULE)), XFFI_OK);
  assert_int_equal(m.type_index, XFFI_TYPE_MODULE);
  xffi_object *f = get_function(m.v_obj, "add_one", 0);
  assert_int_equal(call_int(f, 9), 10);
  xffi_object_dec_ref(f);
  xffi_any_release(&m);
  /* .dll, .dylib and .dso load as .so. */
  char link_path[128];
  snprintf(link_path, sizeof link_path, "/tmp/xffi_tvm_module_%d.dll", (int)getpid());
  assert_int_equal(symlink(XFFI_TEST_PLUGIN_TVM_MODULE, link_path), 0);
  int status = CALL_GLOBAL("ffi.ModuleLoadFromFile", &m, xffi_any_c_str(link_path));
  unlink(link_path);
  assert_int_equal(status, XFFI_OK);
  assert_int_equal(m.type_index, XFFI_TYPE_MODULE);
  xffi_any_release(&m);
  if (registered_here) assert_int_equal(xffi_function_global_erase(so_loader), XFFI_OK);
}

#  if defined(XFFI_TEST_PLUGIN_TVM_CXX)
/* C++ built against tvm-ffi's headers with TVM_FFI_DLL_EXPORT_TYPED_FUNC,
 * no libtvm_ffi.so in the process: it runs on this runtime. */
static void test_tvm_ffi_cxx_library_runs_on_xffi(void **state) {
  (void)state;
  xffi_object *m = load(XFFI_TEST_PLUGIN_TVM_CXX), *dep = load(XFFI_TEST_PLUGIN_TVM_MODULE_DEP);
  xffi_object *add_one = get_function(m, "add_one", 0), *call = get_function(m, "call_imported", 0);
  assert_int_equal(call_int(add_one, 41), 42);
  assert_int_equal(call_int(call, 21), -1); /* the lookup failed: nothing imported yet */
  assert_raised(XFFI_KIND_RUNTIME, "Cannot find function twice");
  import_module(m, dep);
  assert_int_equal(call_int(call, 21), 42);
  xffi_object_dec_ref(add_one);
  xffi_object_dec_ref(call);
  xffi_object_dec_ref(dep);
  xffi_object_dec_ref(m);
}
#    define TVM_CXX_TEST cmocka_unit_test(test_tvm_ffi_cxx_library_runs_on_xffi),
#  else
#    define TVM_CXX_TEST
#  endif

#  define TVM_MODULE_PLUGIN_TESTS                                                    \
    cmocka_unit_test(test_loader_writes_context_symbols_and_library_ctx),            \
        cmocka_unit_test(test_loaded_module_goes_back_to_its_allocator),             \
        cmocka_unit_test(test_imports_are_searched_depth_first_after_the_module),    \
        cmocka_unit_test(test_lookup_from_imports_caches_and_falls_back_to_globals), \
        cmocka_unit_test(test_library_bin_builds_the_import_tree),                   \
        cmocka_unit_test(test_allocation_failures_leave_nothing_behind),             \
        cmocka_unit_test(test_deep_and_diamond_imports),                             \
        cmocka_unit_test(test_load_from_file_dispatches_by_extension), TVM_CXX_TEST
#else
#  define TVM_MODULE_PLUGIN_TESTS
#endif

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_table_lists_the_sixteen_module_globals),
                                     cmocka_unit_test(test_system_lib_finds_functions_with_and_without_prefix),
                                     cmocka_unit_test(test_system_lib_fills_its_library_ctx),
                                     cmocka_unit_test(test_system_lib_table_takes_many_symbols),
                                     cmocka_unit_test(test_malformed_library_bin_is_a_runtime_error),
                                     cmocka_unit_test(test_library_module_kind_mask_formats_source_and_write),
                                     cmocka_unit_test(test_module_globals_add_keeps_one_reference),
                                     cmocka_unit_test(test_env_entry_points_refuse_bad_input),
                                     TVM_MODULE_PLUGIN_TESTS};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
