/* Plugin code on the process's runtime (docs/plugin-runtime.md): what xffi's
 * C API costs a plugin when it is bound to another tvm-ffi runtime in the
 * process (the apache-tvm-ffi wheel's libtvm_ffi.so) against the same with
 * xffi's bundled runtime alone.
 *
 * The side is chosen when the program is built: bench_plugin_runtime_bound
 * is this file compiled with XFFI_BENCH_BIND_TO, the path of the wheel's
 * libtvm_ffi.so (bench/CMakeLists.txt), which it loads globally before its
 * first xffi call, as Python has loaded the wheel's runtime before it loads
 * a plugin; it checks that xffi bound to it (the dynamic types below have the
 * indices that runtime gave their keys). bench_plugin_runtime is the bundled
 * side and checks that no libtvm_ffi.so is loaded. The implementation names
 * the side ("xffi bundled", "xffi bound to the wheel");
 * bench/bench_plugin_runtime.py runs both in rounds and prints each row's
 * ratio to the bundled one.
 *
 * Operations: a field read by name (xffi_object_get_field, the last of 3);
 * is-instance of a dynamic type (xffi_object_is_a of an object of a dynamic
 * type derived from another, against the base); a Map lookup (xffi_map_get,
 * one of 100 string keys); an error raised and fetched
 * (xffi_error_raise_str, xffi_error_move_raised); a call of a callback
 * Function that fails, its error fetched; and, for scale, a call of a
 * callback Function that succeeds. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xffi/reflection.h>
#include <xffi/xffi.h>
#include <xffi/sys/error.h>
#include <xffi/sys/object.h>

#include "bench_harness.h"

typedef struct point {
  xffi_object header;
  int64_t x, y, z;
} point;

static void noop_deleter(void *self, int flags) {
  (void)self;
  (void)flags;
}

typedef struct state {
  point base_object;    /* of type bench.plugin.Point */
  point derived_object; /* of type bench.plugin.Point3, derived from Point */
  int32_t base_index, derived_index;
  xffi_object *map; /* 100 string keys -> int */
  xffi_any key;     /* one of them */
  xffi_object *failing, *adding;
} state;

static void __attribute__((noinline)) field_by_name(void *ctx, uint64_t n) {
  state *s = ctx;
  int64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any out;
    if (xffi_object_get_field(&out, &s->base_object.header, "z") != XFFI_OK) abort();
    sum += out.v_int64;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) is_instance(void *ctx, uint64_t n) {
  state *s = ctx;
  int64_t hits = 0;
  for (uint64_t i = 0; i < n; ++i) {
    int yes = 0;
    if (xffi_object_is_a(&yes, &s->derived_object.header, s->base_index) != XFFI_OK) abort();
    hits += yes;
  }
  BENCH_KEEP(hits);
}

static void __attribute__((noinline)) map_lookup(void *ctx, uint64_t n) {
  state *s = ctx;
  int64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any out;
    if (xffi_map_get(&out, s->map, &s->key) != XFFI_OK) abort();
    sum += out.v_int64;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) raise_and_fetch(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    if (xffi_error_raise_str(XFFI_KIND_VALUE, "bench: a value out of range") == XFFI_OK) abort();
    xffi_object *err = xffi_error_move_raised();
    if (!err) abort();
    xffi_object_dec_ref(err);
  }
}

static int fail(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args, (void)result;
  return xffi_error_raise_str(XFFI_KIND_VALUE, "bench: a value out of range");
}

static int add(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)num_args;
  *result = xffi_any_int(args[0].v_int64 + args[1].v_int64);
  return XFFI_OK;
}

static void __attribute__((noinline)) call_failing(void *ctx, uint64_t n) {
  state *s = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any result = xffi_any_none();
    if (xffi_function_call(s->failing, NULL, 0, &result) == XFFI_OK) abort();
    xffi_object *err = xffi_error_move_raised();
    if (!err) abort();
    xffi_object_dec_ref(err);
  }
}

static void __attribute__((noinline)) call_adding(void *ctx, uint64_t n) {
  state *s = ctx;
  xffi_any args[2] = {xffi_any_int(40), xffi_any_int(2)};
  int64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any result;
    if (xffi_function_call(s->adding, args, 2, &result) != XFFI_OK) abort();
    sum += result.v_int64;
  }
  BENCH_KEEP(sum);
}

/* Loads the runtime XFFI_BENCH_BIND_TO names (globally), or checks that there
 * is none; returns the library handle or NULL, and sets *side. */
static void *choose_side(const char **side) {
#ifdef XFFI_BENCH_BIND_TO
  void *runtime = dlopen(XFFI_BENCH_BIND_TO, RTLD_NOW | RTLD_GLOBAL);
  if (!runtime) {
    fprintf(stderr, "bench_plugin_runtime: cannot load %s: %s\n", XFFI_BENCH_BIND_TO, dlerror());
    exit(1);
  }
  *side = "xffi bound to the wheel";
  return runtime;
#else
  if (dlopen("libtvm_ffi.so", RTLD_LAZY | RTLD_NOLOAD)) {
    fprintf(stderr, "bench_plugin_runtime: a libtvm_ffi.so is loaded, but the bundled side needs none\n");
    exit(1);
  }
  *side = "xffi bundled";
  return NULL;
#endif
}

typedef struct byte_view {
  const char *data;
  size_t size;
} byte_view;

/* With a runtime loaded, the key's index there must be the one xffi gave it. */
static void check_bound(void *runtime, const char *key, int32_t index) {
  if (!runtime) return;
  union {
    void *p;
    int (*f)(const byte_view *key, int32_t *out);
  } key_to_index = {dlsym(runtime, "TVMFFITypeKeyToIndex")};
  int32_t theirs = -1;
  byte_view view = {key, strlen(key)};
  if (!key_to_index.p || key_to_index.f(&view, &theirs) != 0 || theirs != index) {
    fprintf(stderr, "bench_plugin_runtime: xffi did not bind: '%s' is %d here and %d in the loaded runtime\n", key,
            (int)index, (int)theirs);
    exit(1);
  }
}

static void set_up(state *s, void *runtime) {
  const xffi_reflect_field_spec fields[] = {
      XFFI_FIELD_SPEC(point, x, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL),
      XFFI_FIELD_SPEC(point, y, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL),
      XFFI_FIELD_SPEC(point, z, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL),
  };
  if (xffi_type_register(&s->base_index, "bench.plugin.Point", XFFI_TYPE_OBJECT) != XFFI_OK ||
      xffi_reflect_fields(s->base_index, fields, 3) != XFFI_OK ||
      xffi_type_register(&s->derived_index, "bench.plugin.Point3", s->base_index) != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    fprintf(stderr, "bench_plugin_runtime: registering the types failed: %s\n",
            err ? xffi_error_cell_of_unchecked(err)->message.data : "no error raised");
    exit(1);
  }
  check_bound(runtime, "bench.plugin.Point", s->base_index);
  check_bound(runtime, "bench.plugin.Point3", s->derived_index);
  xffi_object_init(&s->base_object.header, s->base_index, noop_deleter);
  xffi_object_init(&s->derived_object.header, s->derived_index, noop_deleter);
  s->base_object.z = 7;

  xffi_any keys[100], values[100];
  for (int i = 0; i < 100; ++i) {
    char key[32];
    int size = snprintf(key, sizeof key, "parameter_%03d", i);
    if (xffi_any_from_str(&keys[i], key, (size_t)size) != XFFI_OK) exit(1);
    values[i] = xffi_any_int(i);
  }
  if (xffi_map_new(&s->map, keys, values, 100) != XFFI_OK || xffi_any_copy(&s->key, &keys[42]) != XFFI_OK) exit(1);
  for (int i = 0; i < 100; ++i) xffi_any_release(&keys[i]);

  /* Made after the binding, as a plugin's Functions are. */
  if (xffi_function_new(&s->failing, fail, NULL, NULL) != XFFI_OK ||
      xffi_function_new(&s->adding, add, NULL, NULL) != XFFI_OK)
    exit(1);
}

int main(int argc, char **argv) {
  bench_init(argc, argv);
  const char *side = NULL;
  void *runtime = choose_side(&side);
  static state s;
  set_up(&s, runtime);
  struct {
    const char *op;
    bench_fn fn;
  } ops[] = {
      {"field read by name (last of 3 fields)", field_by_name},
      {"is-instance of a dynamic type (derived of base)", is_instance},
      {"Map lookup (1 of 100 string keys)", map_lookup},
      {"error raise and fetch", raise_and_fetch},
      {"failing callback Function call, error fetched", call_failing},
      {"callback Function call, 2 int args", call_adding},
  };
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; ++i) {
    bench_case one[] = {{side, ops[i].fn, &s}};
    bench_op(ops[i].op, one, 1);
  }
  int status = bench_finish();
  xffi_any_release(&s.key);
  xffi_object_dec_ref(s.map);
  xffi_object_dec_ref(s.failing);
  xffi_object_dec_ref(s.adding);
  return status;
}
