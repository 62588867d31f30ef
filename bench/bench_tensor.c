/* Tensor benchmarks (issue: containers and tensors): DLPack import and
 * export, each at most one allocation and no copy of the data, and CPU
 * tensor allocation. Baselines do the physical minimum of the same work in
 * the same run: one malloc of the same size, the same stores, one free.
 * When XFFI_BENCH_TVM_FFI_LIB names tvm-ffi's libtvm_ffi.so (in the
 * apache-tvm-ffi wheel: $(python3 -c 'import tvm_ffi,os;print(os.path.dirname(
 * tvm_ffi.__file__))')/lib/libtvm_ffi.so), tvm-ffi 0.1 is measured too. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xffi/xffi.h>
#include <xffi/dtype.h>
#include <xffi/tensor.h>
#include <xffi/sys/object.h>
#include <xffi/sys/tensor.h>

#include "bench_harness.h"

/* A producer's managed tensor, reused for every import (its deleter does nothing). */
typedef struct producer {
  DLManagedTensorVersioned managed;
  DLManagedTensor legacy;
  int64_t shape[4];
  int64_t strides[4];
  void *data;
} producer;

static void noop_deleter(DLManagedTensorVersioned *self) { (void)self; }
static void noop_legacy_deleter(DLManagedTensor *self) { (void)self; }

static void producer_init(producer *p, void *data, int64_t rows, int64_t cols, int with_strides) {
  memset(p, 0, sizeof(*p));
  p->data = data;
  p->shape[0] = rows;
  p->shape[1] = cols;
  p->strides[0] = cols;
  p->strides[1] = 1;
  DLTensor dl = {data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, p->shape, with_strides ? p->strides : NULL, 0};
  p->managed.version.major = 1;
  p->managed.manager_ctx = p;
  p->managed.deleter = noop_deleter;
  p->managed.dl_tensor = dl;
  p->legacy.dl_tensor = dl;
  p->legacy.manager_ctx = p;
  p->legacy.deleter = noop_legacy_deleter;
}

/* ---- import + release ---- */

/* What an import must at least do: one allocation holding a DLTensor and
 * room for shape and strides, the copies, and a free. */
static void __attribute__((noinline)) import_baseline(void *ctx, uint64_t n) {
  producer *p = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    char *obj = malloc(24 + sizeof(DLTensor) + 16 + 4 * sizeof(int64_t));
    DLTensor *dl = (DLTensor *)(obj + 24);
    *dl = p->managed.dl_tensor;
    memcpy(obj + 24 + sizeof(DLTensor) + 16, p->shape, 4 * sizeof(int64_t));
    BENCH_KEEP(obj);
    p->managed.deleter(&p->managed);
    free(obj);
  }
}

static void __attribute__((noinline)) import_xffi(void *ctx, uint64_t n) {
  producer *p = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_object *t;
    if (xffi_tensor_from_dlpack(&t, &p->managed) != XFFI_OK) abort();
    BENCH_KEEP(t);
    xffi_object_dec_ref(t);
  }
}

static void __attribute__((noinline)) import_legacy_xffi(void *ctx, uint64_t n) {
  producer *p = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_object *t;
    if (xffi_tensor_from_dlpack_legacy(&t, &p->legacy) != XFFI_OK) abort();
    BENCH_KEEP(t);
    xffi_object_dec_ref(t);
  }
}

/* ---- export + consumer's delete ---- */

static void __attribute__((noinline)) export_baseline(void *ctx, uint64_t n) {
  xffi_object *t = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    DLManagedTensorVersioned *m = malloc(sizeof(*m));
    m->version.major = 1;
    m->version.minor = 1;
    m->manager_ctx = t;
    m->flags = 0;
    m->dl_tensor = *xffi_tensor_cell_of_unchecked(t);
    xffi_object_inc_ref_inline(t);
    BENCH_KEEP(m);
    xffi_object_dec_ref_inline(t);
    free(m);
  }
}

static void __attribute__((noinline)) export_xffi(void *ctx, uint64_t n) {
  xffi_object *t = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    DLManagedTensorVersioned *m;
    if (xffi_tensor_to_dlpack(&m, t) != XFFI_OK) abort();
    BENCH_KEEP(m);
    m->deleter(m);
  }
}

static void __attribute__((noinline)) export_legacy_xffi(void *ctx, uint64_t n) {
  xffi_object *t = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    DLManagedTensor *m;
    if (xffi_tensor_to_dlpack_legacy(&m, t) != XFFI_OK) abort();
    BENCH_KEEP(m);
    m->deleter(m);
  }
}

/* Export then import again: the same Tensor comes back, the wrapper is freed. */
static void __attribute__((noinline)) roundtrip_xffi(void *ctx, uint64_t n) {
  xffi_object *t = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    DLManagedTensorVersioned *m;
    xffi_object *back;
    if (xffi_tensor_to_dlpack(&m, t) != XFFI_OK || xffi_tensor_from_dlpack(&back, m) != XFFI_OK || back != t) abort();
    xffi_object_dec_ref(back);
  }
}

/* ---- tvm-ffi 0.1, loaded at run time (optional) ---- */

typedef int (*tvm_from_dlpack_fn)(DLManagedTensorVersioned *from, int32_t align, int32_t contiguous, void **out);
typedef int (*tvm_to_dlpack_fn)(void *from, DLManagedTensorVersioned **out);
typedef int (*tvm_dec_ref_fn)(void *obj);

static tvm_from_dlpack_fn tvm_from_dlpack;
static tvm_to_dlpack_fn tvm_to_dlpack;
static tvm_dec_ref_fn tvm_dec_ref;

static int load_tvm_ffi(void) {
  const char *path = getenv("XFFI_BENCH_TVM_FFI_LIB");
  if (!path || !*path) return 0;
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "bench_tensor: cannot load %s: %s\n", path, dlerror());
    return 0;
  }
  *(void **)&tvm_from_dlpack = dlsym(lib, "TVMFFITensorFromDLPackVersioned");
  *(void **)&tvm_to_dlpack = dlsym(lib, "TVMFFITensorToDLPackVersioned");
  *(void **)&tvm_dec_ref = dlsym(lib, "TVMFFIObjectDecRef");
  return tvm_from_dlpack && tvm_to_dlpack && tvm_dec_ref;
}

static void __attribute__((noinline)) import_tvm(void *ctx, uint64_t n) {
  producer *p = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    void *t;
    if (tvm_from_dlpack(&p->managed, 0, 0, &t) != 0) abort();
    BENCH_KEEP(t);
    tvm_dec_ref(t);
  }
}

static void __attribute__((noinline)) export_tvm(void *ctx, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    DLManagedTensorVersioned *m;
    if (tvm_to_dlpack(ctx, &m) != 0) abort();
    BENCH_KEEP(m);
    m->deleter(m);
  }
}

/* ---- new CPU tensor (64-byte aligned, zero-filled) + free ---- */

static const int64_t new_shape[2] = {16, 16}; /* 1 KiB of float32 */

static void __attribute__((noinline)) new_baseline(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    void *p = NULL;
    if (posix_memalign(&p, 64, 128 + 16 * 16 * 4) != 0) abort();
    memset((char *)p + 128, 0, 16 * 16 * 4);
    BENCH_KEEP(p);
    free(p);
  }
}

static void __attribute__((noinline)) new_xffi(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_object *t;
    if (xffi_tensor_new(&t, new_shape, 2, xffi_dtype_make(kDLFloat, 32, 1)) != XFFI_OK) abort();
    BENCH_KEEP(t);
    xffi_object_dec_ref(t);
  }
}

int main(int argc, char **argv) {
  bench_init(argc, argv);

  /* A small tensor and a 64 MiB one: if import copied the data, the second
   * would cost about a million times more. */
  static float small[6];
  size_t big_bytes = (size_t)64 << 20;
  float *big = malloc(big_bytes);
  if (!big) return 1;
  producer small_p, big_p, nostride_p;
  producer_init(&small_p, small, 2, 3, 1);
  producer_init(&big_p, big, 4096, 4096, 1);
  producer_init(&nostride_p, small, 2, 3, 0);

  /* Zero copy, checked once outside the timing. */
  xffi_object *check;
  if (xffi_tensor_from_dlpack(&check, &big_p.managed) != XFFI_OK || xffi_tensor_cell_of_unchecked(check)->data != big) {
    fprintf(stderr, "bench_tensor: import copied the data\n");
    return 1;
  }
  xffi_object_dec_ref(check);

  int have_tvm = load_tvm_ffi();
  bench_case imports[] = {
      {"baseline", import_baseline, &small_p}, {"xffi", import_xffi, &small_p}, {"tvm-ffi 0.1", import_tvm, &small_p}};
  bench_op("dlpack import + release, 2-d", imports, have_tvm ? 3 : 2);
  bench_case imports_big[] = {{"baseline", import_baseline, &big_p}, {"xffi", import_xffi, &big_p}};
  bench_op("dlpack import + release, 64 MiB (no copy)", imports_big, 2);
  bench_case imports_nostride[] = {{"baseline", import_baseline, &nostride_p},
                                   {"xffi", import_xffi, &nostride_p},
                                   {"xffi legacy", import_legacy_xffi, &nostride_p}};
  bench_op("dlpack import + release, NULL strides", imports_nostride, 3);

  xffi_object *t;
  if (xffi_tensor_from_dlpack(&t, &big_p.managed) != XFFI_OK) return 1;
  void *tvm_tensor = NULL;
  if (have_tvm && tvm_from_dlpack(&big_p.managed, 0, 0, &tvm_tensor) != 0) return 1;
  bench_case exports[] = {{"baseline", export_baseline, t},
                          {"xffi", export_xffi, t},
                          {"xffi legacy", export_legacy_xffi, t},
                          {"tvm-ffi 0.1", export_tvm, tvm_tensor}};
  bench_op("dlpack export + consumer delete", exports, have_tvm ? 4 : 3);
  if (tvm_tensor) tvm_dec_ref(tvm_tensor);
  bench_case roundtrips[] = {{"baseline", export_baseline, t}, {"xffi", roundtrip_xffi, t}};
  bench_op("dlpack export + import back (same tensor)", roundtrips, 2);
  xffi_object_dec_ref(t);

  bench_case news[] = {{"baseline", new_baseline, NULL}, {"xffi", new_xffi, NULL}};
  bench_op("new cpu tensor 16x16 f32 + free", news, 2);

  free(big);
  return bench_finish();
}
