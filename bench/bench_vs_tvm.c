/* bench/bench_vs_tvm.c: xffi against tvm-ffi 0.1 (the apache-tvm-ffi
 * wheel's C library, through its public C API) and a physical baseline, in
 * one run, interleaved by the harness: calls, global lookups, strings,
 * reference counts, errors, is-instance, Map lookup, Array get, DLPack
 * import; then library facts (stripped size, dynamic dependencies, and the
 * heap allocations and instructions of a first load, each measured in a
 * fresh child process).
 *
 * Built only with the wheel (bench/tvm.cmake). Run:
 *   build/bench/bench_vs_tvm        (the harness's options: --no-callgrind, --quick,
 *                                          --instructions-only, --only SUBSTR, --impl SUBSTR;
 *                                          --dropin PATH: another libtvm_ffi.so drop-in to measure)
 * The table goes to docs/tvm-ffi.md. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_harness.h"

#ifdef BENCH_VS_TVM_LOADER_ONLY
/* bench_vs_tvm_loader PATH: dlopen PATH once (a first load, in a process
 * linked to neither runtime); prints heap allocations and ns. */
int __attribute__((noinline)) load_once(const char *path);
int __attribute__((noinline)) load_once(const char *path) {
  uint64_t m0 = bench_malloc_count(), t0 = bench_now_ns();
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  uint64_t t1 = bench_now_ns(), m1 = bench_malloc_count();
  if (!lib) {
    fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
    return 1;
  }
  printf("%llu %llu\n", (unsigned long long)(m1 - m0), (unsigned long long)(t1 - t0));
  return 0;
}

int main(int argc, char **argv) { return argc == 2 ? load_once(argv[1]) : 2; }
#else

#  include <tvm/ffi/c_api.h>
#  include <xffi/xffi.h>
#  include <xffi/sys/function.h>
#  include <xffi/sys/object.h>
#  include <xffi/sys/type.h>

/* last, after every header that may declare TVMFFI* (c_api.h, and xffi's own
 * since issue 15): these names then call the wheel's library through pointers */
#  include "bench_tvm_api.h"

#  define CHECK(x)                                                      \
    do {                                                                \
      if (!(x)) {                                                       \
        fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #x); \
        exit(1);                                                        \
      }                                                                 \
    } while (0)

/* ---- calls ----
 * Like for like: a tvm-ffi function made with a NULL self gets the function
 * object as handle and is called with no forwarding step, so it is compared
 * with an xffi direct function (xffi_function_new_direct); functions that carry a
 * resource go through one forwarding step in both runtimes. The argument
 * count is a constant at each call site, as with XFFI_CALL. */

static int __attribute__((noinline)) plain_add(int64_t a, int64_t b, int64_t *out) {
  *out = a + b;
  return 0;
}

static int xffi_nop(void *handle, const xffi_any *args, int32_t n, xffi_any *result) {
  (void)handle, (void)args, (void)n, (void)result;
  return 0;
}
static int xffi_add(void *handle, const xffi_any *args, int32_t n, xffi_any *result) {
  (void)handle, (void)n;
  result->type_index = XFFI_TYPE_INT;
  result->v_int64 = args[0].v_int64 + args[1].v_int64;
  return 0;
}
static int tvm_nop(void *self, const TVMFFIAny *args, int32_t n, TVMFFIAny *result) {
  (void)self, (void)args, (void)n, (void)result;
  return 0;
}
static int tvm_add(void *self, const TVMFFIAny *args, int32_t n, TVMFFIAny *result) {
  (void)self, (void)n;
  result->type_index = kTVMFFIInt;
  result->v_int64 = args[0].v_int64 + args[1].v_int64;
  return 0;
}

static void __attribute__((noinline)) call_baseline(void *ctx, uint64_t n) {
  int (*volatile fp)(int64_t, int64_t, int64_t *) = plain_add;
  (void)ctx;
  int64_t out = 0, acc = 0;
  for (uint64_t i = 0; i < n; ++i) {
    fp((int64_t)i, 2, &out);
    acc += out;
  }
  BENCH_KEEP(acc);
}

/* One loop per runtime, argument count and (for xffi) call form; ctx points
 * to the function, reloaded every iteration as a caller holding it would. */
#  define XFFI_CALL_LOOP(name, nargs, call)                             \
    static void __attribute__((noinline)) name(void *ctx, uint64_t n) { \
      xffi_object *const *func = ctx;                                   \
      xffi_any args[2] = {xffi_any_int(1), xffi_any_int(2)}, r;         \
      int64_t acc = 0;                                                  \
      for (uint64_t i = 0; i < n; ++i) {                                \
        args[0].v_int64 = (int64_t)i;                                   \
        if (call(*func, args, nargs, &r) != 0) abort();                 \
        acc += r.v_int64;                                               \
      }                                                                 \
      BENCH_KEEP(acc);                                                  \
    }
XFFI_CALL_LOOP(call_xffi_0, 0, xffi_function_call_unchecked)
XFFI_CALL_LOOP(call_xffi_2, 2, xffi_function_call_unchecked)
XFFI_CALL_LOOP(call_xffi_checked_2, 2, xffi_function_call_inline)

#  define TVM_CALL_LOOP(name, nargs)                                                                               \
    static void __attribute__((noinline)) name(void *ctx, uint64_t n) {                                            \
      void *const *func = ctx;                                                                                     \
      TVMFFIAny args[2] = {{.type_index = kTVMFFIInt, .v_int64 = 1}, {.type_index = kTVMFFIInt, .v_int64 = 2}}, r; \
      int64_t acc = 0;                                                                                             \
      for (uint64_t i = 0; i < n; ++i) {                                                                           \
        args[0].v_int64 = (int64_t)i;                                                                              \
        r.type_index = kTVMFFINone;                                                                                \
        r.zero_padding = 0;                                                                                        \
        r.v_int64 = 0;                                                                                             \
        if (TVMFFIFunctionCall(*func, args, nargs, &r) != 0) abort();                                              \
        acc += r.v_int64;                                                                                          \
      }                                                                                                            \
      BENCH_KEEP(acc);                                                                                             \
    }
TVM_CALL_LOOP(call_tvm_0, 0)
TVM_CALL_LOOP(call_tvm_2, 2)

/* ---- global lookup ---- */

static uint64_t fnv1a(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

typedef struct lookup_ctx {
  const char *name;
  size_t size;
  uint64_t stored_hash;
  const char *stored_name;
  uint64_t refcount;
} lookup_ctx;

/* The physical minimum: hash the name, compare it with the stored one, take
 * and drop a reference. */
static void __attribute__((noinline)) lookup_baseline(void *ctx, uint64_t n) {
  lookup_ctx *c = ctx;
  int hits = 0;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    hits += fnv1a(c->name, c->size) == c->stored_hash && memcmp(c->name, c->stored_name, c->size) == 0;
    __atomic_fetch_add(&c->refcount, 1, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&c->refcount, 1, __ATOMIC_RELEASE);
  }
  BENCH_KEEP(hits);
}
static void __attribute__((noinline)) lookup_xffi(void *ctx, uint64_t n) {
  lookup_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_object *f;
    BENCH_CLOBBER();
    if (xffi_function_global_lookup(&f, c->name) != 0 || !f) abort();
    xffi_object_dec_ref_inline(f);
  }
}
static void __attribute__((noinline)) lookup_tvm(void *ctx, uint64_t n) {
  lookup_ctx *c = ctx;
  TVMFFIByteArray name = {c->name, c->size};
  for (uint64_t i = 0; i < n; ++i) {
    TVMFFIObjectHandle f = NULL;
    BENCH_CLOBBER();
    if (TVMFFIFunctionGetGlobal(&name, &f) != 0 || !f) abort();
    TVMFFIObjectDecRef(f);
  }
}

/* ---- string create + free ---- */

typedef struct string_ctx {
  const char *text;
  size_t size;
} string_ctx;

static void __attribute__((noinline)) string_baseline(void *ctx, uint64_t n) {
  string_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    char *p = malloc(c->size + 1);
    memcpy(p, c->text, c->size);
    p[c->size] = 0;
    BENCH_KEEP(p);
    free(p);
  }
}
static void __attribute__((noinline)) string_xffi(void *ctx, uint64_t n) {
  string_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any s;
    if (xffi_any_from_str(&s, c->text, c->size) != 0) abort();
    BENCH_KEEP(s.v_int64);
    xffi_any_release(&s);
  }
}
static void __attribute__((noinline)) string_tvm(void *ctx, uint64_t n) {
  string_ctx *c = ctx;
  TVMFFIByteArray bytes = {c->text, c->size};
  for (uint64_t i = 0; i < n; ++i) {
    TVMFFIAny s;
    if (TVMFFIStringFromByteArray(&bytes, &s) != 0) abort();
    BENCH_KEEP(s.v_int64);
    if (s.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(s.v_obj);
  }
}

/* ---- inc-ref + dec-ref ---- */

static void noop_deleter(void *self, int flags) { (void)self, (void)flags; }
static struct {
  xffi_object header;
  int64_t payload;
} ref_object;

static void __attribute__((noinline)) ref_baseline(void *ctx, uint64_t n) {
  uint64_t *word = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    __atomic_fetch_add(word, 1, __ATOMIC_RELAXED);
    if (__atomic_fetch_sub(word, 1, __ATOMIC_RELEASE) == 0) abort();
  }
}
/* The forms C and Rust code use: the header's inline functions. */
static void __attribute__((noinline)) ref_xffi_inline(void *ctx, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    xffi_object_inc_ref_inline(ctx);
    xffi_object_dec_ref_inline(ctx);
  }
}
/* The exported functions, for other languages' FFIs. */
static void __attribute__((noinline)) ref_xffi(void *ctx, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    xffi_object_inc_ref(ctx);
    xffi_object_dec_ref(ctx);
  }
}
static void __attribute__((noinline)) ref_tvm(void *ctx, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    TVMFFIObjectIncRef(ctx);
    TVMFFIObjectDecRef(ctx);
  }
}

/* ---- error round trip: raise (kind, fixed message), fetch, free ---- */

static _Thread_local const char *baseline_slot;
static void __attribute__((noinline)) error_baseline(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    baseline_slot = "ValueError: bad value";
    BENCH_CLOBBER();
    const char *got = baseline_slot;
    baseline_slot = NULL;
    BENCH_KEEP(got);
  }
}
static void __attribute__((noinline)) error_xffi(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_error_raise_str(XFFI_KIND_VALUE, "bad value");
    xffi_object *err = xffi_error_move_raised();
    if (!err) abort();
    xffi_object_dec_ref_inline(err);
  }
}
static void __attribute__((noinline)) error_tvm(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "bad value");
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    if (!err) abort();
    TVMFFIObjectDecRef(err);
  }
}

/* ---- is-instance: an object of type C (A <- B <- C) checked against A ---- */

typedef struct instance_ctx {
  xffi_object *obj;
  int32_t ancestor;
  const xffi_type_info *xffi_ancestor;
} instance_ctx;

static void __attribute__((noinline)) instance_baseline(void *ctx, uint64_t n) {
  instance_ctx *c = ctx;
  int hits = 0;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    hits += c->obj->type_index == c->ancestor;
  }
  BENCH_KEEP(hits);
}
static void __attribute__((noinline)) instance_xffi(void *ctx, uint64_t n) {
  instance_ctx *c = ctx;
  int hits = 0;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    hits += xffi_object_is_a_type_unchecked(c->obj, c->xffi_ancestor);
  }
  BENCH_KEEP(hits);
}
/* tvm-ffi's C API way: the object's type info, then its ancestor at A's depth. */
static void __attribute__((noinline)) instance_tvm(void *ctx, uint64_t n) {
  instance_ctx *c = ctx;
  int hits = 0;
  const TVMFFITypeInfo *target = TVMFFIGetTypeInfo(c->ancestor);
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    int32_t index = ((TVMFFIObject *)c->obj)->type_index;
    const TVMFFITypeInfo *info = TVMFFIGetTypeInfo(index);
    hits += index == c->ancestor || (info->type_depth > target->type_depth &&
                                     info->type_ancestors[target->type_depth]->type_index == c->ancestor);
  }
  BENCH_KEEP(hits);
}

/* ---- Map lookup, 1,000 string keys ---- */

#  define MAP_KEYS 1000
static char key_text[MAP_KEYS][24];

typedef struct map_ctx {
  xffi_object *xffi_map;
  void *tvm_map;
  void *tvm_get_item;
  xffi_any keys[MAP_KEYS]; /* String objects (the same ones in every map) */
  /* baseline: open addressing, FNV-1a, 2,048 slots */
  int16_t slots[2048];
} map_ctx;

static void __attribute__((noinline)) map_baseline(void *ctx, uint64_t n) {
  map_ctx *c = ctx;
  int64_t acc = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const char *k = key_text[i % MAP_KEYS];
    size_t len = strlen(k);
    uint64_t h = fnv1a(k, len);
    for (size_t s = h & 2047;; s = (s + 1) & 2047) {
      int16_t e = c->slots[s];
      if (e < 0) abort();
      if (memcmp(key_text[e], k, len + 1) == 0) {
        acc += e;
        break;
      }
    }
  }
  BENCH_KEEP(acc);
}
static void __attribute__((noinline)) map_xffi(void *ctx, uint64_t n) {
  map_ctx *c = ctx;
  int64_t acc = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const xffi_any *v;
    if (xffi_map_lookup(&v, c->xffi_map, &c->keys[i % MAP_KEYS]) != 0 || !v) abort();
    acc += v->v_int64;
  }
  BENCH_KEEP(acc);
}
static void __attribute__((noinline)) map_tvm(void *ctx, uint64_t n) {
  map_ctx *c = ctx;
  int64_t acc = 0;
  TVMFFIAny args[2] = {{.type_index = kTVMFFIMap, .v_obj = c->tvm_map}};
  for (uint64_t i = 0; i < n; ++i) {
    TVMFFIAny r = {.type_index = kTVMFFINone};
    memcpy(&args[1], &c->keys[i % MAP_KEYS], sizeof(TVMFFIAny));
    if (TVMFFIFunctionCall(c->tvm_get_item, args, 2, &r) != 0) abort();
    acc += r.v_int64;
  }
  BENCH_KEEP(acc);
}

/* ---- Array get ---- */

typedef struct array_ctx {
  xffi_object *array; /* made by xffi; read by both (the layout is shared) */
  void *tvm_array;    /* made by tvm-ffi's ffi.Array */
  void *tvm_get_item;
  int64_t plain[64];
} array_ctx;

static void __attribute__((noinline)) array_baseline(void *ctx, uint64_t n) {
  array_ctx *c = ctx;
  int64_t acc = 0;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    acc += c->plain[i & 63];
  }
  BENCH_KEEP(acc);
}
static void __attribute__((noinline)) array_xffi(void *ctx, uint64_t n) {
  array_ctx *c = ctx;
  int64_t acc = 0;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any v;
    if (xffi_array_get(&v, c->array, (int64_t)(i & 63)) != 0) abort();
    acc += v.v_int64;
    xffi_any_release(&v);
  }
  BENCH_KEEP(acc);
}
/* tvm-ffi's C API has no Array accessor: its global ffi.ArrayGetItem. */
static void __attribute__((noinline)) array_tvm(void *ctx, uint64_t n) {
  array_ctx *c = ctx;
  int64_t acc = 0;
  TVMFFIAny args[2] = {{.type_index = kTVMFFIArray, .v_obj = c->tvm_array}, {.type_index = kTVMFFIInt}};
  for (uint64_t i = 0; i < n; ++i) {
    TVMFFIAny r = {.type_index = kTVMFFINone};
    args[1].v_int64 = (int64_t)(i & 63);
    if (TVMFFIFunctionCall(c->tvm_get_item, args, 2, &r) != 0) abort();
    acc += r.v_int64;
    if (r.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(r.v_obj);
  }
  BENCH_KEEP(acc);
}

/* ---- DLPack import (2-d float32, strides given) + release ---- */

typedef struct producer {
  DLManagedTensorVersioned managed;
  int64_t shape[2], strides[2];
  float data[16];
} producer;

static void noop_dlpack_deleter(DLManagedTensorVersioned *self) { (void)self; }

static void __attribute__((noinline)) import_baseline(void *ctx, uint64_t n) {
  producer *p = ctx;
  int64_t acc = 0;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    const DLTensor *t = &p->managed.dl_tensor; /* read what an importer must check */
    acc += t->ndim + t->shape[0] + t->shape[1] + t->strides[0] + t->dtype.bits + (t->data != NULL);
    p->managed.deleter(&p->managed);
  }
  BENCH_KEEP(acc);
}
static void __attribute__((noinline)) import_xffi(void *ctx, uint64_t n) {
  producer *p = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_object *t;
    if (xffi_tensor_from_dlpack(&t, &p->managed) != 0) abort();
    xffi_object_dec_ref_inline(t);
  }
}
/* For a trusted producer, as tvm-ffi imports: no per-dimension checks. */
static void __attribute__((noinline)) import_xffi_unchecked(void *ctx, uint64_t n) {
  producer *p = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_object *t;
    if (xffi_tensor_from_dlpack_unchecked(&t, &p->managed) != 0) abort();
    xffi_object_dec_ref_inline(t);
  }
}
static void __attribute__((noinline)) import_tvm(void *ctx, uint64_t n) {
  producer *p = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    TVMFFIObjectHandle t = NULL;
    if (TVMFFITensorFromDLPackVersioned(&p->managed, 0, 0, &t) != 0) abort();
    TVMFFIObjectDecRef(t);
  }
}

/* ---- library facts ---- */

/* The directory of this executable (build/bench). */
static char self_dir[1024];

static int run_capture(const char *command, char *out, size_t size) {
  FILE *f = popen(command, "r");
  if (!f) return -1;
  size_t got = fread(out, 1, size - 1, f);
  out[got] = 0;
  return pclose(f);
}

typedef struct lib_facts {
  double stripped_kb;
  char needed[512];
  double allocations, ns, instructions;
} lib_facts;

/* Measures one library; timed: the median of 5 first loads (else ns is -1). */
static void measure_library(lib_facts *facts, const char path[1200], int use_callgrind, int timed) {
  char cmd[24576], out[4096], temp[4200]; /* temp: bench_temp_dir() (at most PATH_MAX) + a name */
  memset(facts, 0, sizeof *facts);
  facts->instructions = -1;
  facts->ns = -1;
  snprintf(temp, sizeof temp, "%s/library", bench_temp_dir());
  snprintf(cmd, sizeof cmd, "strip -o '%s' '%s' && stat -c %%s '%s'; rm -f '%s'", temp, path, temp, temp);
  if (run_capture(cmd, out, sizeof out) == 0) facts->stripped_kb = atof(out) / 1024.0;
  snprintf(cmd, sizeof cmd, "readelf -d '%s' | sed -n 's/.*(NEEDED).*\\[\\(.*\\)\\]/\\1/p' | tr '\\n' ' '", path);
  if (run_capture(cmd, out, sizeof out) == 0) snprintf(facts->needed, sizeof facts->needed, "%.500s", out);
  /* median of 5 fresh processes for time; allocations are the same each time */
  enum { LOADS = 5 };
  double times[LOADS];
  int loads = timed ? LOADS : 1;
  for (int i = 0; i < loads; i++) {
    snprintf(cmd, sizeof cmd, "'%s/bench_vs_tvm_loader' '%s'", self_dir, path);
    unsigned long long a = 0, t = 0;
    CHECK(run_capture(cmd, out, sizeof out) == 0 && sscanf(out, "%llu %llu", &a, &t) == 2);
    facts->allocations = (double)a;
    times[i] = (double)t;
  }
  for (int i = 0; i < loads; i++)
    for (int j = i + 1; j < loads; j++)
      if (times[j] < times[i]) {
        double x = times[i];
        times[i] = times[j];
        times[j] = x;
      }
  if (timed) facts->ns = times[LOADS / 2];
  if (use_callgrind) {
    snprintf(cmd, sizeof cmd,
             "valgrind --tool=callgrind --callgrind-out-file='%s' --toggle-collect=load_once "
             "'%s/bench_vs_tvm_loader' '%s' >/dev/null 2>&1 && sed -n 's/^totals: *\\([0-9]*\\).*/\\1/p' "
             "'%s'; rm -f '%s'",
             temp, self_dir, path, temp, temp);
    if (run_capture(cmd, out, sizeof out) == 0 && out[0]) facts->instructions = atof(out);
  }
}

/* The libraries measured, each in a fresh process: the empty library, libxffi,
 * the wheel's libtvm_ffi.so, the empty library with libxffi's dependencies,
 * and xffi's libtvm_ffi.so drop-in (dropin: NULL when there is none). */
static void library_facts(int use_callgrind, int timed, const char *dropin) {
  enum { NUM_LIBRARIES = 5 };
  char path[NUM_LIBRARIES][1200];
  static const char *impls[NUM_LIBRARIES] = {"baseline", "xffi", "tvm-ffi", "baseline+deps", "xffi drop-in"};
  Dl_info info;
  snprintf(path[0], sizeof path[0], "%s/libbench_empty_lib.so", self_dir);
#  ifdef XFFI_BENCH_XFFI_LIB
  snprintf(path[1], sizeof path[1], "%s", XFFI_BENCH_XFFI_LIB);
#  else
  snprintf(path[1], sizeof path[1], "%s/../libxffi.so", self_dir);
#  endif
  union {
    int (*f)(TVMFFIObjectHandle);
    void *p;
  } tvm_symbol = {TVMFFIObjectIncRef};
  CHECK(dladdr(tvm_symbol.p, &info) && info.dli_fname);
  snprintf(path[2], sizeof path[2], "%s", info.dli_fname);
  /* an empty library with libxffi's dependencies (libc, ld-linux): the
   * loader allocates for a dependency list, whoever the library is */
  snprintf(path[3], sizeof path[3], "%s/libbench_deps_lib.so", self_dir);
  snprintf(path[4], sizeof path[4], "%s", dropin ? dropin : "");
  for (int i = 0; i < NUM_LIBRARIES; i++) {
    if (!bench_impl_selected(impls[i])) continue;
    if (!path[i][0]) {
      bench_record("library: first load (dlopen)", impls[i], -1, -1, -1,
                   "not built (no CMake target with OUTPUT_NAME tvm_ffi; or pass --dropin PATH)");
      continue;
    }
    lib_facts f;
    measure_library(&f, path[i], use_callgrind, timed);
    char note[700];
    snprintf(note, sizeof note, "%.1f KB stripped; needs: %s", f.stripped_kb, f.needed);
    bench_record("library: first load (dlopen)", impls[i], f.ns, f.instructions, f.allocations, note);
  }
}

int main(int argc, char **argv) {
  bench_tvm_api_load(XFFI_BENCH_TVM_LIB); /* before any TVMFFI* call: the wheel's own functions */
  /* --dropin PATH (this program's own option, removed before the harness's) */
  const char *dropin = NULL;
#  ifdef XFFI_BENCH_DROPIN_LIB
  dropin = XFFI_BENCH_DROPIN_LIB;
#  endif
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--dropin") == 0) {
      dropin = argv[i + 1];
      memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 1) * sizeof argv[0]); /* keeps argv[argc] */
      argc -= 2;
      break;
    }
  ssize_t len = readlink("/proc/self/exe", self_dir, sizeof self_dir - 1);
  CHECK(len > 0);
  self_dir[len] = 0;
  *strrchr(self_dir, '/') = 0;
  int use_callgrind = system("valgrind --version >/dev/null 2>&1") == 0;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--no-callgrind") == 0) use_callgrind = 0;
  int only = 0, timed = 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--only") == 0) only = 1;
    if (strcmp(argv[i], "--instructions-only") == 0) timed = 0;
  }
  bench_init(argc, argv);

  /* calls */
  int self_resource = 0;
  xffi_object *xf0, *xf2, *xf2_res;
  void *tf0 = NULL, *tf2 = NULL, *tf2_res = NULL;
  CHECK(xffi_function_new_direct(&xf0, xffi_nop, NULL, NULL) == 0 &&
        xffi_function_new_direct(&xf2, xffi_add, NULL, NULL) == 0);
  CHECK(xffi_function_new(&xf2_res, xffi_add, &self_resource, NULL) == 0);
  CHECK(TVMFFIFunctionCreate(NULL, tvm_nop, NULL, &tf0) == 0 && TVMFFIFunctionCreate(NULL, tvm_add, NULL, &tf2) == 0);
  CHECK(TVMFFIFunctionCreate(&self_resource, tvm_add, NULL, &tf2_res) == 0);
  bench_case call0[] = {{"baseline", call_baseline, NULL}, {"xffi", call_xffi_0, &xf0}, {"tvm-ffi", call_tvm_0, &tf0}};
  bench_op("call, 0 args", call0, 3);
  bench_case call2[] = {{"baseline", call_baseline, NULL}, {"xffi", call_xffi_2, &xf2}, {"tvm-ffi", call_tvm_2, &tf2}};
  bench_op("call, 2 int args", call2, 3);
  bench_case call2_checked[] = {
      {"baseline", call_baseline, NULL}, {"xffi", call_xffi_checked_2, &xf2}, {"tvm-ffi", call_tvm_2, &tf2}};
  bench_op("call, 2 int args, xffi checked (XFFI_CALL)", call2_checked, 3);
  bench_case call2_res[] = {
      {"baseline", call_baseline, NULL}, {"xffi", call_xffi_2, &xf2_res}, {"tvm-ffi", call_tvm_2, &tf2_res}};
  bench_op("call, 2 int args, function with a resource", call2_res, 3);

  /* global lookup: the same names registered in both registries */
  static const char *names[2] = {"bench", "bench.lookup.name1"};
  for (int i = 0; i < 2; i++) {
    CHECK(xffi_function_global_register(names[i], xf2, 1) == 0);
    TVMFFIByteArray name = {names[i], strlen(names[i])};
    CHECK(TVMFFIFunctionSetGlobal(&name, tf2, 1) == 0);
    lookup_ctx lc = {names[i], strlen(names[i]), fnv1a(names[i], strlen(names[i])), names[i], 1};
    bench_case cases[] = {{"baseline", lookup_baseline, &lc}, {"xffi", lookup_xffi, &lc}, {"tvm-ffi", lookup_tvm, &lc}};
    bench_op(i == 0 ? "global lookup, 5-byte name" : "global lookup, 18-byte name", cases, 3);
  }

  /* strings */
  string_ctx s5 = {"hello", 5}, s32 = {"0123456789abcdef0123456789abcdef", 32};
  bench_case str5[] = {{"baseline", string_baseline, &s5}, {"xffi", string_xffi, &s5}, {"tvm-ffi", string_tvm, &s5}};
  bench_op("string create + free, 5 B", str5, 3);
  bench_case str32[] = {
      {"baseline", string_baseline, &s32}, {"xffi", string_xffi, &s32}, {"tvm-ffi", string_tvm, &s32}};
  bench_op("string create + free, 32 B", str32, 3);

  /* reference counts: one object, each runtime's own entry points */
  uint64_t word = 1;
  xffi_object_init(&ref_object.header, XFFI_TYPE_OBJECT, noop_deleter);
  bench_case refs[] = {{"baseline", ref_baseline, &word},
                       {"xffi", ref_xffi, &ref_object.header},
                       {"tvm-ffi", ref_tvm, &ref_object.header}};
  bench_op("inc-ref + dec-ref, exported functions", refs, 3);
  bench_case refs_inline[] = {{"baseline", ref_baseline, &word},
                              {"xffi", ref_xffi_inline, &ref_object.header},
                              {"tvm-ffi", ref_tvm, &ref_object.header}};
  /* tvm-ffi's C API has no inline form: its row is the same exported pair. */
  bench_op("inc-ref + dec-ref, xffi inline", refs_inline, 3);

  bench_case errors[] = {{"baseline", error_baseline, NULL}, {"xffi", error_xffi, NULL}, {"tvm-ffi", error_tvm, NULL}};
  bench_op("error round trip (raise, fetch, free)", errors, 3);

  /* is-instance: the chain registered in both registries; one object per runtime */
  int32_t a, b, c;
  CHECK(xffi_type_register(&a, "bench.vs.A", XFFI_TYPE_OBJECT) == 0 && xffi_type_register(&b, "bench.vs.B", a) == 0 &&
        xffi_type_register(&c, "bench.vs.C", b) == 0);
  TVMFFIByteArray ka = {"bench.vs.A", 10}, kb = {"bench.vs.B", 10}, kc = {"bench.vs.C", 10};
  int32_t ta = TVMFFITypeGetOrAllocIndex(&ka, -1, 1, 0, 1, kTVMFFIObject);
  int32_t tb = TVMFFITypeGetOrAllocIndex(&kb, -1, 2, 0, 1, ta);
  int32_t tc = TVMFFITypeGetOrAllocIndex(&kc, -1, 3, 0, 1, tb);
  CHECK(ta >= 128 && tb >= 128 && tc >= 128);
  static struct { xffi_object header; } xobj, tobj;
  xffi_object_init(&xobj.header, c, noop_deleter);
  xffi_object_init(&tobj.header, tc, noop_deleter);
  instance_ctx xi = {&xobj.header, a, NULL}, ti = {&tobj.header, ta, NULL};
  CHECK(xffi_type_info_get(&xi.xffi_ancestor, a) == 0);
  CHECK(xffi_object_is_a_type_unchecked(xi.obj, xi.xffi_ancestor));
  bench_case inst[] = {
      {"baseline", instance_baseline, &xi}, {"xffi", instance_xffi, &xi}, {"tvm-ffi", instance_tvm, &ti}};
  bench_op("is-instance, depth 3 against depth 1", inst, 3);

  /* Map: 1,000 String keys -> int, built in each runtime */
  static map_ctx mc;
  memset(mc.slots, -1, sizeof mc.slots);
  xffi_any *flat = calloc(2 * MAP_KEYS, sizeof(xffi_any)), values[MAP_KEYS];
  CHECK(flat != NULL);
  for (int i = 0; i < MAP_KEYS; i++) {
    snprintf(key_text[i], sizeof key_text[i], "key-number-%05d", i); /* 16 bytes: a String object */
    CHECK(xffi_any_from_str(&mc.keys[i], key_text[i], strlen(key_text[i])) == 0);
    values[i] = xffi_any_int(i);
    flat[2 * i] = mc.keys[i];
    flat[2 * i + 1] = values[i];
    size_t s = fnv1a(key_text[i], strlen(key_text[i])) & 2047;
    while (mc.slots[s] >= 0) s = (s + 1) & 2047;
    mc.slots[s] = (int16_t)i;
  }
  CHECK(xffi_map_new(&mc.xffi_map, mc.keys, values, MAP_KEYS) == 0);
  TVMFFIByteArray map_name = {"ffi.Map", 7}, map_get = {"ffi.MapGetItem", 14};
  void *make_map = NULL;
  CHECK(TVMFFIFunctionGetGlobal(&map_name, &make_map) == 0 && make_map);
  CHECK(TVMFFIFunctionGetGlobal(&map_get, &mc.tvm_get_item) == 0 && mc.tvm_get_item);
  TVMFFIAny made = {.type_index = kTVMFFINone};
  CHECK(TVMFFIFunctionCall(make_map, (TVMFFIAny *)flat, 2 * MAP_KEYS, &made) == 0 && made.type_index == kTVMFFIMap);
  mc.tvm_map = made.v_obj;
  free(flat);
  bench_case maps[] = {{"baseline", map_baseline, &mc}, {"xffi", map_xffi, &mc}, {"tvm-ffi", map_tvm, &mc}};
  bench_op("Map lookup, 1,000 string keys", maps, 3);

  /* Array of 64 ints */
  static array_ctx ac;
  xffi_any items[64];
  for (int i = 0; i < 64; i++) {
    ac.plain[i] = i;
    items[i] = xffi_any_int(i);
  }
  CHECK(xffi_array_new(&ac.array, items, 64) == 0);
  TVMFFIByteArray arr_name = {"ffi.Array", 9}, arr_get = {"ffi.ArrayGetItem", 16};
  void *make_array = NULL;
  CHECK(TVMFFIFunctionGetGlobal(&arr_name, &make_array) == 0 && make_array);
  CHECK(TVMFFIFunctionGetGlobal(&arr_get, &ac.tvm_get_item) == 0 && ac.tvm_get_item);
  made.type_index = kTVMFFINone;
  CHECK(TVMFFIFunctionCall(make_array, (TVMFFIAny *)items, 64, &made) == 0 && made.type_index == kTVMFFIArray);
  ac.tvm_array = made.v_obj;
  bench_case arrays[] = {{"baseline", array_baseline, &ac}, {"xffi", array_xffi, &ac}, {"tvm-ffi", array_tvm, &ac}};
  bench_op("Array get (64 ints)", arrays, 3);

  static producer p;
  p.shape[0] = 4;
  p.shape[1] = 4;
  p.strides[0] = 4;
  p.strides[1] = 1;
  p.managed.version.major = DLPACK_MAJOR_VERSION;
  p.managed.version.minor = DLPACK_MINOR_VERSION;
  p.managed.deleter = noop_dlpack_deleter;
  p.managed.dl_tensor.data = p.data;
  p.managed.dl_tensor.device.device_type = kDLCPU;
  p.managed.dl_tensor.ndim = 2;
  p.managed.dl_tensor.dtype.code = kDLFloat;
  p.managed.dl_tensor.dtype.bits = 32;
  p.managed.dl_tensor.dtype.lanes = 1;
  p.managed.dl_tensor.shape = p.shape;
  p.managed.dl_tensor.strides = p.strides;
  bench_case imports[] = {{"baseline", import_baseline, &p}, {"xffi", import_xffi, &p}, {"tvm-ffi", import_tvm, &p}};
  bench_op("DLPack import + release (2-d, strided)", imports, 3);
  bench_case imports_unchecked[] = {
      {"baseline", import_baseline, &p}, {"xffi", import_xffi_unchecked, &p}, {"tvm-ffi", import_tvm, &p}};
  bench_op("DLPack import + release, xffi unchecked", imports_unchecked, 3);

  /* library facts, each library loaded for the first time in a fresh process */
  if (!only) library_facts(use_callgrind, timed, dropin);

  xffi_object_dec_ref(xf0);
  xffi_object_dec_ref(xf2);
  xffi_object_dec_ref(xf2_res);
  TVMFFIObjectDecRef(tf0);
  TVMFFIObjectDecRef(tf2);
  TVMFFIObjectDecRef(tf2_res);
  return bench_finish();
}
#endif /* BENCH_VS_TVM_LOADER_ONLY */
