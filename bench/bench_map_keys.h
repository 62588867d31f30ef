/* bench/bench_map_keys.h: the keys, sizes and probe order of the Map
 * benchmark, shared by its programs so that each measures the same work:
 * bench_map_xffi.c (xffi's C API), bench_map_tvm.cc (tvm-ffi's inline C++)
 * and bench_map_hashmap.rs (Rust's HashMap; it repeats these rules in Rust).
 * bench/bench_map_vs_tvm.py runs them and prints one table.
 *
 * - sizes: 10, 1,000 and 1,000,000 entries;
 * - string key i: "key-%012u" (16 bytes, so never a small inline string);
 *   int key i: i mixed by a bijection (xor-shift, multiply, xor-shift), so
 *   the keys are distinct and look like arbitrary 64-bit ints (a multiple of
 *   a golden-ratio constant would resonate with Fibonacci hashing);
 * - lookup: the map holds every key; probe k reads key (k * step) mod size,
 *   walked as pos += step, pos -= size on overflow: every key once per
 *   `size` probes, in an order unrelated to insertion (no division per probe);
 * - insert: keys 0, 1, 2, ... into a map made empty; after `size` inserts the
 *   map is freed and a new empty one started, so the cost of growing and of
 *   freeing is shared by the inserts that needed it. */
#ifndef XFFI_BENCH_MAP_KEYS_H
#define XFFI_BENCH_MAP_KEYS_H

#include <stdint.h>
#include <stdio.h>

#define BENCH_MAP_NUM_SIZES 3
#define BENCH_MAP_KEY_BYTES 16

static const uint64_t bench_map_sizes[BENCH_MAP_NUM_SIZES] = {10, 1000, 1000000};
/* The probe stride for each size: near size * 0.618 and coprime with it. */
static const uint64_t bench_map_steps[BENCH_MAP_NUM_SIZES] = {7, 619, 618033};
static const char *const bench_map_size_names[BENCH_MAP_NUM_SIZES] = {"10", "1,000", "1,000,000"};

/* Writes string key i < 10^12 (BENCH_MAP_KEY_BYTES characters and a NUL) to out. */
static inline void bench_map_string_key(char out[BENCH_MAP_KEY_BYTES + 1], uint64_t i) {
  static const char prefix[4] = {'k', 'e', 'y', '-'};
  for (int d = 0; d < 4; ++d) out[d] = prefix[d];
  for (int d = BENCH_MAP_KEY_BYTES - 1; d >= 4; --d, i /= 10) out[d] = (char)('0' + i % 10);
  out[BENCH_MAP_KEY_BYTES] = '\0';
}

static inline int64_t bench_map_int_key(uint64_t i) {
  i ^= i >> 33;
  i *= UINT64_C(0xff51afd7ed558ccd);
  i ^= i >> 33;
  return (int64_t)i;
}

/* The op names the driver matches across programs, e.g. "Map lookup, 1,000 string keys". */
static inline void bench_map_op_name(char *out, size_t size, const char *what, int size_index, int string_keys) {
  snprintf(out, size, "Map %s, %s %s keys", what, bench_map_size_names[size_index], string_keys ? "string" : "int");
}

#endif /* XFFI_BENCH_MAP_KEYS_H */
