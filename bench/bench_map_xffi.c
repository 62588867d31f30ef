/* bench/bench_map_xffi.c: the Map benchmark on xffi's C API (the
 * public xffi_map_* functions): lookup and insert at 10, 1,000 and 1,000,000
 * entries, string and int keys. The same work as bench_map_tvm.cc (tvm-ffi's
 * inline C++) and bench_map_hashmap.rs (Rust's HashMap), described in
 * bench_map_keys.h; bench/bench_map_vs_tvm.py runs all three and prints
 * one table with ratios. Run alone:
 *   build/release/bench/bench_map_xffi   (--no-callgrind, --quick, --only SUBSTR) */
#include <stdio.h>
#include <stdlib.h>

#include <xffi/xffi.h>

#include "bench_harness.h"
#include "bench_map_keys.h"

#define CHECK(x)                                                      \
  do {                                                                \
    if (!(x)) {                                                       \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #x); \
      exit(1);                                                        \
    }                                                                 \
  } while (0)

typedef struct map_case {
  xffi_any *keys; /* owned: `size` keys (Strings hold a reference each) */
  uint64_t size, step;
  uint64_t pos;     /* lookup: the next probe; insert: the next key */
  xffi_object *map; /* owned */
} map_case;

static void __attribute__((noinline)) lookup_xffi(void *ctx, uint64_t n) {
  map_case *c = ctx;
  uint64_t pos = c->pos, size = c->size, step = c->step;
  int64_t acc = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const xffi_any *value;
    if (xffi_map_lookup(&value, c->map, &c->keys[pos]) != 0 || !value) abort();
    acc += value->v_int64;
    pos += step;
    if (pos >= size) pos -= size;
  }
  c->pos = pos;
  BENCH_KEEP(acc);
}

static void __attribute__((noinline)) insert_xffi(void *ctx, uint64_t n) {
  map_case *c = ctx;
  for (uint64_t i = 0; i < n; ++i) {
    if (c->pos == c->size) { /* full: free it, start again from empty */
      xffi_object_dec_ref(c->map);
      if (xffi_map_new(&c->map, NULL, NULL, 0) != 0) abort();
      c->pos = 0;
    }
    xffi_any value = xffi_any_int((int64_t)c->pos);
    if (xffi_map_set(&c->map, &c->keys[c->pos], &value) != 0) abort();
    ++c->pos;
  }
}

static xffi_any *make_keys(uint64_t size, int string_keys) {
  xffi_any *keys = calloc(size, sizeof(xffi_any));
  CHECK(keys != NULL);
  for (uint64_t i = 0; i < size; ++i) {
    if (string_keys) {
      char text[BENCH_MAP_KEY_BYTES + 1];
      bench_map_string_key(text, i);
      CHECK(xffi_any_from_str(&keys[i], text, BENCH_MAP_KEY_BYTES) == 0);
    } else {
      keys[i] = xffi_any_int(bench_map_int_key(i));
    }
  }
  return keys;
}

static void free_keys(xffi_any *keys, uint64_t size) {
  for (uint64_t i = 0; i < size; ++i) xffi_any_release(&keys[i]);
  free(keys);
}

static void measure(int size_index, int string_keys) {
  char lookup_op[96], insert_op[96];
  bench_map_op_name(lookup_op, sizeof lookup_op, "lookup", size_index, string_keys);
  bench_map_op_name(insert_op, sizeof insert_op, "insert", size_index, string_keys);
  int want_lookup = bench_selected(lookup_op), want_insert = bench_selected(insert_op);
  if (!want_lookup && !want_insert) return;
  map_case c = {.size = bench_map_sizes[size_index], .step = bench_map_steps[size_index]};
  c.keys = make_keys(c.size, string_keys);
  bench_set_iteration_multiple(c.size);
  if (want_lookup) {
    xffi_any *values = calloc(c.size, sizeof(xffi_any));
    CHECK(values != NULL);
    for (uint64_t i = 0; i < c.size; ++i) values[i] = xffi_any_int((int64_t)i);
    CHECK(xffi_map_new(&c.map, c.keys, values, (int64_t)c.size) == 0);
    free(values);
    bench_case cases[] = {{"xffi", lookup_xffi, &c}};
    bench_op(lookup_op, cases, 1);
    xffi_object_dec_ref(c.map);
  }
  if (want_insert) {
    c.pos = 0;
    CHECK(xffi_map_new(&c.map, NULL, NULL, 0) == 0);
    bench_case cases[] = {{"xffi", insert_xffi, &c}};
    bench_op(insert_op, cases, 1);
    xffi_object_dec_ref(c.map);
  }
  bench_set_iteration_multiple(1);
  free_keys(c.keys, c.size);
}

int main(int argc, char **argv) {
  bench_init(argc, argv);
  for (int size_index = 0; size_index < BENCH_MAP_NUM_SIZES; ++size_index)
    for (int string_keys = 1; string_keys >= 0; --string_keys) measure(size_index, string_keys);
  return bench_finish();
}
