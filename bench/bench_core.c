/* Core benchmarks (issue: C core): ref counting, is-instance, strings, errors.
 * Each operation is measured against a baseline doing the physical minimum
 * of the same work, in the same run. */
#include <stdlib.h>
#include <string.h>
#include <xffi/xffi.h>
#include <xffi/sys/object.h>
#include <xffi/sys/type.h>

#include "bench_harness.h"

/* ---- inc-ref + dec-ref ---- */

typedef struct plain {
  xffi_object header;
} plain;

static void noop_deleter(void *self, int flags) {
  (void)self;
  (void)flags;
}

static plain shared_object;

/* The same two atomic operations written inline, on a plain word (aligned as
 * the header's count is seen, so i386 compares like with like). */
static void __attribute__((noinline)) refpair_baseline(void *ctx, uint64_t n) {
  xffi_ref_counts_word *word = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    __atomic_fetch_add(&word->value, 1, __ATOMIC_RELAXED);
    if (__atomic_fetch_sub(&word->value, 1, __ATOMIC_RELEASE) == 1) abort();
  }
}

static void __attribute__((noinline)) refpair_inline(void *ctx, uint64_t n) {
  xffi_object *obj = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_object_inc_ref_inline(obj);
    xffi_object_dec_ref_inline(obj);
  }
}

static void __attribute__((noinline)) refpair_exported(void *ctx, uint64_t n) {
  xffi_object *obj = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_object_inc_ref(obj);
    xffi_object_dec_ref(obj);
  }
}

/* ---- is-instance on a depth-3 type ---- */

typedef struct instance_ctx {
  xffi_object *obj;
  const xffi_type_info *type;
  int32_t type_index;
} instance_ctx;

static void __attribute__((noinline)) instance_baseline(void *ctx, uint64_t n) {
  instance_ctx *c = ctx;
  int hits = 0;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    hits += c->obj->type_index == c->type_index; /* an exact-type compare */
  }
  BENCH_KEEP(hits);
}

static void __attribute__((noinline)) instance_xffi(void *ctx, uint64_t n) {
  instance_ctx *c = ctx;
  int hits = 0;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    hits += xffi_object_is_a_type_unchecked(c->obj, c->type);
  }
  BENCH_KEEP(hits);
}

/* ---- 32-byte string create + free ---- */

static const char text32[] = "0123456789abcdef0123456789abcdef";

static void __attribute__((noinline)) string_baseline(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    char *p = malloc(40 + 33);
    memcpy(p + 40, text32, 33);
    BENCH_KEEP(p);
    free(p);
  }
}

static void __attribute__((noinline)) string_xffi(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_object *s;
    if (xffi_string_new(&s, text32, 32) != XFFI_OK) abort();
    xffi_object_dec_ref_inline(s);
  }
}

/* ---- a 5-byte string into an Any ---- */

static void __attribute__((noinline)) small_baseline(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any v;
    memcpy(v.v_small, "hello", 6);
    BENCH_KEEP(&v);
  }
}

static void __attribute__((noinline)) small_xffi(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any v;
    if (xffi_any_from_str(&v, "hello", 5) != XFFI_OK) abort();
    BENCH_KEEP(&v);
    xffi_any_release(&v);
  }
}

/* ---- error raise + move out + free ---- */

static void __attribute__((noinline)) error_baseline(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) { /* the one allocation an error needs */
    char *p = malloc(128);
    BENCH_KEEP(p);
    free(p);
  }
}

static void __attribute__((noinline)) error_xffi_str(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_error_raise_str(XFFI_KIND_VALUE, "argument 0: expected int, got str");
    xffi_object_dec_ref_inline(xffi_error_move_raised());
  }
}

static void __attribute__((noinline)) error_xffi_format(void *ctx, uint64_t n) {
  (void)ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_error_raise(XFFI_KIND_VALUE, "argument %d: expected %s, got %s", 0, "int", "str");
    xffi_object_dec_ref_inline(xffi_error_move_raised());
  }
}

int main(int argc, char **argv) {
  bench_init(argc, argv);

  xffi_ref_counts_word word = {1};
  xffi_object_init(&shared_object.header, XFFI_TYPE_OBJECT, noop_deleter);
  bench_case refpair[] = {
      {"baseline", refpair_baseline, &word},
      {"xffi", refpair_inline, &shared_object.header},
      {"xffi-call", refpair_exported, &shared_object.header},
  };
  bench_op("inc-ref + dec-ref", refpair, 3);

  int32_t a, b, c;
  if (xffi_type_register(&a, "bench.A", XFFI_TYPE_OBJECT) || xffi_type_register(&b, "bench.B", a) ||
      xffi_type_register(&c, "bench.C", b))
    abort();
  plain instance;
  xffi_object_init(&instance.header, c, noop_deleter);
  instance_ctx ictx = {&instance.header, NULL, a};
  if (xffi_type_info_get(&ictx.type, a)) abort(); /* a C is an A: the ancestor path */
  bench_case instance_cases[] = {{"baseline", instance_baseline, &ictx}, {"xffi", instance_xffi, &ictx}};
  bench_op("is-instance depth-3 (ancestor)", instance_cases, 2);

  bench_case strings[] = {{"baseline", string_baseline, NULL}, {"xffi", string_xffi, NULL}};
  bench_op("string 32 B create + free", strings, 2);

  bench_case smalls[] = {{"baseline", small_baseline, NULL}, {"xffi", small_xffi, NULL}};
  bench_op("string 5 B into Any", smalls, 2);

  bench_case errors[] = {
      {"baseline", error_baseline, NULL},
      {"xffi", error_xffi_str, NULL},
      {"xffi-printf", error_xffi_format, NULL},
  };
  bench_op("error raise + move out + free", errors, 3);

  return bench_finish();
}
