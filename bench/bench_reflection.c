/* Reflection benchmarks (issue 16): get and set of an int field by name from
 * C (xffi_object_get_field / xffi_object_set_field) against a direct struct
 * access in the same run, on a type with 3 fields and on one with 32 whose
 * names all have the same length (the last one is looked up: the worst case
 * of a scan). Target: <= 30 ns per get or set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xffi/reflection.h>
#include <xffi/xffi.h>
#include <xffi/sys/object.h>

#include "bench_harness.h"

typedef struct small {
  xffi_object header;
  int64_t a, b, c;
} small;

/* clang-format 14 reflows this list differently on each run: left as written. */
/* clang-format off */
#define WIDE_FIELDS(X) \
  X(f00) X(f01) X(f02) X(f03) X(f04) X(f05) X(f06) X(f07) X(f08) X(f09) X(f10) X(f11) X(f12) X(f13) X(f14) X(f15) \
  X(f16) X(f17) X(f18) X(f19) X(f20) X(f21) X(f22) X(f23) X(f24) X(f25) X(f26) X(f27) X(f28) X(f29) X(f30) X(f31)
/* clang-format on */

typedef struct wide {
  xffi_object header;
#define WIDE_MEMBER(name) int64_t name;
  WIDE_FIELDS(WIDE_MEMBER)
#undef WIDE_MEMBER
} wide;

static void noop_deleter(void *self, int flags) {
  (void)self;
  (void)flags;
}

typedef struct field_ctx {
  xffi_object *obj;
  int64_t *direct; /* the same field, for the baseline */
  const char *name;
} field_ctx;

static void __attribute__((noinline)) get_direct(void *ctx, uint64_t n) {
  field_ctx *c = ctx;
  int64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    sum += *c->direct;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) get_by_name(void *ctx, uint64_t n) {
  field_ctx *c = ctx;
  int64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any out;
    if (xffi_object_get_field(&out, c->obj, c->name) != XFFI_OK) abort();
    sum += out.v_int64;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) set_direct(void *ctx, uint64_t n) {
  field_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    *c->direct = (int64_t)i;
  }
  BENCH_CLOBBER();
}

static void __attribute__((noinline)) set_by_name(void *ctx, uint64_t n) {
  field_ctx *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any value = xffi_any_int((int64_t)i);
    if (xffi_object_set_field(c->obj, c->name, &value) != XFFI_OK) abort();
  }
}

static void measure(const char *what, field_ctx *ctx) {
  char op[96];
  snprintf(op, sizeof(op), "get int field by name, %s", what);
  bench_case get[] = {{"direct read", get_direct, ctx}, {"xffi", get_by_name, ctx}};
  bench_op(op, get, 2);
  snprintf(op, sizeof(op), "set int field by name, %s", what);
  bench_case set[] = {{"direct write", set_direct, ctx}, {"xffi", set_by_name, ctx}};
  bench_op(op, set, 2);
}

int main(int argc, char **argv) {
  bench_init(argc, argv);
  static small s;
  static wide w;
  int32_t small_index = -1, wide_index = -1;
  const xffi_reflect_field_spec small_fields[] = {
      XFFI_FIELD_SPEC(small, a, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL),
      XFFI_FIELD_SPEC(small, b, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL),
      XFFI_FIELD_SPEC(small, c, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL),
  };
  const xffi_reflect_field_spec wide_fields[] = {
#define WIDE_SPEC(name) XFFI_FIELD_SPEC(wide, name, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL),
      WIDE_FIELDS(WIDE_SPEC)
#undef WIDE_SPEC
  };
  if (xffi_type_register(&small_index, "bench.reflection.Small", XFFI_TYPE_OBJECT) != XFFI_OK ||
      xffi_reflect_fields(small_index, small_fields, 3) != XFFI_OK ||
      xffi_type_register(&wide_index, "bench.reflection.Wide", XFFI_TYPE_OBJECT) != XFFI_OK ||
      xffi_reflect_fields(wide_index, wide_fields, 32) != XFFI_OK)
    return 1;
  xffi_object_init(&s.header, small_index, noop_deleter);
  xffi_object_init(&w.header, wide_index, noop_deleter);
  field_ctx small_ctx = {&s.header, &s.c, "c"};
  field_ctx wide_ctx = {&w.header, &w.f31, "f31"};
  measure("3 fields (last)", &small_ctx);
  measure("32 fields (last)", &wide_ctx);
  return bench_finish();
}
