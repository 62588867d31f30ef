/* Example 3, C host + Rust plugin: a C program loads a Rust cdylib
 * (examples/mixed/rust-plugin) with xffi_module_load and calls the functions
 * it exports as __tvm_ffi_<name>, the same convention C plugins use.
 *
 * The plugin registers the type "rplugin.Counter" and the global function
 * "rplugin.make_counter"; the host registers the type "chost.Tag" and the
 * global function "chost.twice". Each side finds what the other registered
 * under the same names and indices (one runtime), the host holds and stores
 * Rust objects, the plugin calls the host's C function, Rust errors and
 * panics arrive as xffi errors, and at the end every deleter has run
 * exactly once (the plugin's counters and the host's finalizer count).
 *
 * Usage: c-host-rust-plugin PATH/TO/libxffi_mixed_rust_plugin.so
 * Linked two ways by scripts/test-mixed.sh: with the shared libxffi.so, and
 * with libxffi.a whole, its symbols exported (-rdynamic) for the plugin.
 * Exits 1 if any check fails. */
#define _POSIX_C_SOURCE 200809L /* dlopen */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <xffi/xffi.h>

#include "../common/check.h"

static atomic_int twice_finalized = 0;

static int twice(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  int64_t x;
  if (xffi_arg_check_signature(args, num_args, "i", "chost.twice") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int_inline(&x, args, num_args, 0, "chost.twice") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(2 * x);
  return XFFI_OK;
}

static void twice_finalize(void *resource) {
  (void)resource;
  atomic_fetch_add(&twice_finalized, 1);
}

static xffi_object *module_function(xffi_object *module, const char *name) {
  xffi_object *f = NULL;
  CHECK_OK(xffi_module_lookup_function(&f, module, name));
  CHECK(f != NULL, "the plugin exports %s", name);
  return f;
}

/* Calls f with one argument and returns the int result (or -1000). */
static int64_t call_int(xffi_object *f, xffi_any arg) {
  xffi_any r = xffi_any_none();
  int64_t v = -1000;
  CHECK_OK(xffi_function_call(f, &arg, 1, &r));
  CHECK_OK(xffi_any_to_int(&v, &r));
  xffi_any_release(&r);
  return v;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PATH/TO/libxffi_mixed_rust_plugin.so\n", argv[0]);
    return 2;
  }
  xffi_object *module = NULL;
  CHECK_OK(xffi_module_load(&module, argv[1]));
  if (!module) CHECK_SUMMARY("c-host-rust-plugin");
  int32_t abi = 0;
  CHECK_OK(xffi_module_abi_version(&abi, module));
  CHECK(abi == XFFI_ABI_VERSION, "the Rust plugin carries the ABI marker: %d", abi);

  const char *names[] = {"register",         "make_counter", "counter_add", "counter_value", "call_global",
                         "probe_type_index", "stats",        "fail",        "panic"};
  enum { REGISTER, MAKE_COUNTER, COUNTER_ADD, COUNTER_VALUE, CALL_GLOBAL, PROBE_TYPE_INDEX, STATS, FAIL, PANIC, N };
  xffi_object *fn[N];
  for (int i = 0; i < N; ++i) fn[i] = module_function(module, names[i]);
  for (int i = 0; i < N; ++i)
    if (!fn[i]) CHECK_SUMMARY("c-host-rust-plugin");

  /* The host's type and global function. */
  int32_t tag_type = -1;
  CHECK_OK(xffi_type_register(&tag_type, "chost.Tag", XFFI_TYPE_OBJECT));
  xffi_object *twice_fn = NULL;
  CHECK_OK(xffi_function_new(&twice_fn, twice, NULL, twice_finalize));
  CHECK_OK(xffi_function_global_register("chost.twice", twice_fn, 0));
  xffi_object_dec_ref(twice_fn); /* the registry holds it now */

  /* The plugin registers its type and global function. */
  xffi_any r = xffi_any_none();
  CHECK_OK(xffi_function_call(fn[REGISTER], NULL, 0, &r));

  /* One runtime: each side finds the other's names, with one index per key. */
  const xffi_type_info *counter_info = NULL;
  CHECK_OK(xffi_type_info_get_by_key(&counter_info, "rplugin.Counter"));
  int32_t counter_type = counter_info ? counter_info->type_index : -1;
  CHECK(call_int(fn[PROBE_TYPE_INDEX], xffi_any_c_str("rplugin.Counter")) == counter_type,
        "rplugin.Counter has index %d in the host and the same in the plugin", counter_type);
  CHECK(call_int(fn[PROBE_TYPE_INDEX], xffi_any_c_str("chost.Tag")) == tag_type,
        "chost.Tag has index %d in the host and the same in the plugin", tag_type);
  xffi_object *make_counter_global = NULL;
  CHECK_OK(xffi_function_global_lookup(&make_counter_global, "rplugin.make_counter"));
  CHECK(make_counter_global != NULL, "the host finds rplugin.make_counter, registered by the plugin");

  /* Rust objects, made by the plugin, held and stored by C. */
  xffi_object *counter = NULL, *counter2 = NULL;
  CHECK_OK(XFFI_CALL(fn[MAKE_COUNTER], &r, xffi_any_int(10)));
  CHECK_OK(xffi_any_to_object(&counter, &r, counter_type));
  xffi_object_inc_ref(counter);
  xffi_any_release(&r);
  CHECK(counter && strcmp(xffi_type_key(counter->type_index), "rplugin.Counter") == 0, "a Rust Counter");
  CHECK_OK(XFFI_CALL(fn[COUNTER_ADD], &r, xffi_any_object(counter), xffi_any_int(5)));
  CHECK(r.type_index == XFFI_TYPE_INT && r.v_int64 == 15, "10 + 5 = %lld", (long long)r.v_int64);
  CHECK(call_int(fn[COUNTER_VALUE], xffi_any_object(counter)) == 15, "the counter holds 15");

  if (make_counter_global) { /* the plugin's global function, called from C */
    CHECK_OK(XFFI_CALL(make_counter_global, &r, xffi_any_int(100)));
    CHECK_OK(xffi_any_to_object(&counter2, &r, counter_type));
    xffi_object_inc_ref(counter2);
    xffi_any_release(&r);
  }
  xffi_any items[2] = {xffi_any_object(counter), xffi_any_object(counter2)};
  xffi_object *array = NULL, *dict = NULL;
  CHECK_OK(xffi_array_new(&array, items, 2));
  CHECK_OK(xffi_dict_new(&dict, NULL, NULL, 0));
  xffi_any key = xffi_any_c_str("hundred");
  CHECK_OK(xffi_dict_set(dict, &key, &items[1]));
  xffi_any from_dict = xffi_any_none();
  CHECK_OK(xffi_map_get(&from_dict, dict, &key));
  CHECK_FAILS(xffi_function_call(fn[COUNTER_ADD], &from_dict, 1, &r), "TypeError",
              "counter_add: expected 2 arguments, got 1");
  CHECK_OK(XFFI_CALL(fn[COUNTER_ADD], &r, from_dict, xffi_any_int(1)));
  CHECK(r.v_int64 == 101, "the counter from the dict: %lld", (long long)r.v_int64);
  xffi_any_release(&from_dict);

  /* The plugin calls the host's C function through the registry. */
  CHECK_OK(XFFI_CALL(fn[CALL_GLOBAL], &r, xffi_any_c_str("chost.twice"), xffi_any_int(21)));
  CHECK(r.type_index == XFFI_TYPE_INT && r.v_int64 == 42, "chost.twice(21) via the plugin = %lld",
        (long long)r.v_int64);

  /* Errors and panics in Rust arrive as xffi errors. */
  CHECK_FAILS(XFFI_CALL(fn[FAIL], &r, xffi_any_c_str("raised in Rust")), "ValueError", "raised in Rust");
  printf("calling panic(): the Rust plugin prints its panic message, the export turns it into an error\n");
  fflush(stdout);
  CHECK_FAILS(XFFI_CALL(fn[PANIC], &r, xffi_any_c_str("boom")), "RuntimeError", "panic: Rust panic: boom");
  CHECK_FAILS(XFFI_CALL(fn[MAKE_COUNTER], &r, xffi_any_c_str("ten")), "TypeError",
              "make_counter: argument 0: xffi_any_to_int: expected int, got str");
  CHECK_FAILS(xffi_function_call(fn[MAKE_COUNTER], NULL, 0, &r), "TypeError",
              "make_counter: expected 1 arguments, got 0");
  CHECK_FAILS(XFFI_CALL(fn[COUNTER_VALUE], &r, xffi_any_object(array)), "TypeError",
              "counter_value: argument 0: expected rplugin.Counter, got ffi.Array");
  CHECK_FAILS(XFFI_CALL(fn[CALL_GLOBAL], &r, xffi_any_c_str("chost.missing"), xffi_any_int(1)), "KeyError",
              "call_global: no global function named 'chost.missing'");
  CHECK_FAILS(xffi_function_call(fn[REGISTER], NULL, 0, &r), "ValueError", NULL); /* the name is taken */
  CHECK(r.type_index == XFFI_TYPE_NONE, "a failed call leaves None");

  /* The exported symbols themselves check what a direct caller (not
   * xffi_function_call, which checks first) may get wrong. */
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL); /* the same, already loaded library */
  void *sym = lib ? dlsym(lib, "__tvm_ffi_counter_value") : NULL;
  CHECK(sym != NULL, "dlsym __tvm_ffi_counter_value");
  if (sym) {
    xffi_safe_call raw;
    memcpy(&raw, &sym, sizeof raw); /* POSIX: object pointer to function pointer */
    xffi_any arg = xffi_any_object(counter);
    CHECK_FAILS(raw(NULL, &arg, 1, NULL), "ValueError",
                "counter_value: result is NULL (expected a pointer to an xffi_any to receive the result)");
    CHECK_FAILS(raw(NULL, &arg, -1, &r), "ValueError", "counter_value: num_args is -1 (expected 0 or more)");
    CHECK_FAILS(raw(NULL, NULL, 1, &r), "ValueError", "counter_value: args is NULL but num_args is 1");
    CHECK_OK(raw(NULL, &arg, 1, &r));
    CHECK(r.type_index == XFFI_TYPE_INT && r.v_int64 == 15, "a direct call: %lld", (long long)r.v_int64);
  }
  if (lib) dlclose(lib);

  /* Release everything; then every deleter has run exactly once. */
  xffi_object *to_release[] = {counter, counter2, array, dict, make_counter_global};
  for (size_t i = 0; i < sizeof to_release / sizeof to_release[0]; ++i) xffi_object_dec_ref(to_release[i]);
  CHECK_OK(xffi_function_global_erase("rplugin.make_counter"));
  CHECK_OK(xffi_function_global_erase("chost.twice"));
  CHECK_OK(xffi_function_call(fn[STATS], NULL, 0, &r));
  const xffi_any *counts = NULL;
  int64_t n = 0;
  CHECK_OK(xffi_array_items(&counts, &n, r.v_obj));
  CHECK(n == 4 && counts[0].v_int64 == 2 && counts[1].v_int64 == 2,
        "Rust counters: %lld made, %lld dropped (expected 2 and 2)", (long long)(n == 4 ? counts[0].v_int64 : -1),
        (long long)(n == 4 ? counts[1].v_int64 : -1));
  /* Two closures: the registered one, and the one the second register call
   * made and dropped when the registry refused the taken name. */
  CHECK(n == 4 && counts[2].v_int64 == 2 && counts[3].v_int64 == 2,
        "Rust closures: %lld made, %lld dropped (expected 2 and 2)", (long long)(n == 4 ? counts[2].v_int64 : -1),
        (long long)(n == 4 ? counts[3].v_int64 : -1));
  xffi_any_release(&r);
  CHECK(atomic_load(&twice_finalized) == 1, "the host's C function was finalized %d times",
        atomic_load(&twice_finalized));
  for (int i = 0; i < N; ++i) xffi_object_dec_ref(fn[i]);
  xffi_object_dec_ref(module);
  if (check_failures == 0) printf("deleters: 2 Rust counters, 2 Rust closures, 1 C function: each ran once\n");
  CHECK_SUMMARY("c-host-rust-plugin");
}
