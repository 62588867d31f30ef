// bench/bench_map_tvm.cc: the Map benchmark on tvm-ffi's own inline C++
// Map (tvm::ffi::Map from the apache-tvm-ffi wheel's headers, linked to the
// wheel's libtvm_ffi.so): lookup (Map::Get) and insert (Map::Set) at 10,
// 1,000 and 1,000,000 entries, string and int keys; the same work as
// bench_map_xffi.c, described in bench_map_keys.h. The baseline of
// bench/bench_map_vs_tvm.py, which runs both and prints one table.
// Built by bench/tvm.cmake when the wheel and a C++17 compiler exist.
// Run alone: build/release/bench/bench_map_tvm (--no-callgrind, --quick, --only SUBSTR)
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <type_traits>
#include <vector>

#include <tvm/ffi/container/map.h>
#include <tvm/ffi/string.h>

#include "bench_harness.h"
#include "bench_map_keys.h"

namespace {

using tvm::ffi::Map;
using tvm::ffi::String;

template <typename K>
struct MapCase {
  std::vector<K> keys;
  uint64_t size = 0, step = 0;
  uint64_t pos = 0;  // lookup: the next probe; insert: the next key
  Map<K, int64_t> map;
};

template <typename K>
__attribute__((noinline)) void LookupTvm(void* ctx, uint64_t n) {
  auto* c = static_cast<MapCase<K>*>(ctx);
  uint64_t pos = c->pos, size = c->size, step = c->step;
  int64_t acc = 0;
  for (uint64_t i = 0; i < n; ++i) {
    std::optional<int64_t> value = c->map.Get(c->keys[pos]);
    if (!value) std::abort();
    acc += *value;
    pos += step;
    if (pos >= size) pos -= size;
  }
  c->pos = pos;
  BENCH_KEEP(acc);
}

template <typename K>
__attribute__((noinline)) void InsertTvm(void* ctx, uint64_t n) {
  auto* c = static_cast<MapCase<K>*>(ctx);
  for (uint64_t i = 0; i < n; ++i) {
    if (c->pos == c->size) {  // full: free it, start again from empty
      c->map = Map<K, int64_t>();
      c->pos = 0;
    }
    c->map.Set(c->keys[c->pos], static_cast<int64_t>(c->pos));
    ++c->pos;
  }
}

String StringKey(uint64_t i) {
  char text[BENCH_MAP_KEY_BYTES + 1];
  bench_map_string_key(text, i);
  return String(text, BENCH_MAP_KEY_BYTES);
}

template <typename K>
void Measure(int size_index) {
  constexpr bool kStringKeys = std::is_same_v<K, String>;
  char lookup_op[96], insert_op[96];
  bench_map_op_name(lookup_op, sizeof lookup_op, "lookup", size_index, kStringKeys);
  bench_map_op_name(insert_op, sizeof insert_op, "insert", size_index, kStringKeys);
  bool want_lookup = bench_selected(lookup_op), want_insert = bench_selected(insert_op);
  if (!want_lookup && !want_insert) return;
  MapCase<K> c;
  c.size = bench_map_sizes[size_index];
  c.step = bench_map_steps[size_index];
  c.keys.reserve(c.size);
  for (uint64_t i = 0; i < c.size; ++i) {
    if constexpr (kStringKeys) {
      c.keys.push_back(StringKey(i));
    } else {
      c.keys.push_back(bench_map_int_key(i));
    }
  }
  bench_set_iteration_multiple(c.size);
  if (want_lookup) {
    for (uint64_t i = 0; i < c.size; ++i) c.map.Set(c.keys[i], static_cast<int64_t>(i));
    bench_case cases[] = {{"tvm-ffi", LookupTvm<K>, &c}};
    bench_op(lookup_op, cases, 1);
    c.map = Map<K, int64_t>();
  }
  if (want_insert) {
    c.pos = 0;
    bench_case cases[] = {{"tvm-ffi", InsertTvm<K>, &c}};
    bench_op(insert_op, cases, 1);
    c.map = Map<K, int64_t>();
  }
  bench_set_iteration_multiple(1);
}

}  // namespace

int main(int argc, char** argv) {
  // Say which library serves tvm-ffi's C functions (the wheel's, by the build).
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&TVMFFIObjectIncRef), &info) && info.dli_fname)
    std::fprintf(stderr, "bench_map_tvm: TVMFFIObjectIncRef from %s\n", info.dli_fname);
  bench_init(argc, argv);
  for (int size_index = 0; size_index < BENCH_MAP_NUM_SIZES; ++size_index) {
    Measure<String>(size_index);
    Measure<int64_t>(size_index);
  }
  return bench_finish();
}
