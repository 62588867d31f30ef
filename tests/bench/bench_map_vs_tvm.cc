// tests/bench/bench_map_vs_tvm.cc: Map insert and lookup, xffi (its C API)
// against tvm-ffi's own inline C++ Map compiled here against the wheel's
// headers, side by side in one run, at 10, 1,000 and 1,000,000 entries.
// Keys: the same 16-byte strings as String objects of each runtime; lookups
// hit, in a fixed shuffled order, with the stored String object as probe.
// Each case alternates xffi and tvm-ffi for several rounds and reports the
// median ns per operation. Rust's HashMap on the same keys:
// tests/bench/map_hashmap.rs (docs/map.md says how to run both).
//
//   build/.../tests/bench/bench_map_vs_tvm [--quick] [--size 10|1000|1000000]
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/string.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include <xffi/xffi.h>
}

namespace {

namespace ffi = tvm::ffi;

double NowNs() {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

std::vector<std::string> KeyNames(int64_t n) {
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    char buf[32];
    snprintf(buf, sizeof buf, "key-%011lld", static_cast<long long>(i * 7919 % 100000000000LL));
    names.emplace_back(buf);
  }
  return names;
}

// A fixed permutation of 0..n-1 repeated to `count` probes.
std::vector<int64_t> ProbeOrder(int64_t n, int64_t count) {
  std::vector<int64_t> order(static_cast<size_t>(count));
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (int64_t i = 0; i < count; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    order[static_cast<size_t>(i)] = static_cast<int64_t>(state % static_cast<uint64_t>(n));
  }
  return order;
}

struct Case {
  int64_t n, builds, lookups;
};

int64_t sink = 0;

double XffiInsert(const std::vector<xffi_object*>& keys, int64_t builds) {
  double t0 = NowNs();
  for (int64_t b = 0; b < builds; ++b) {
    xffi_object* map = nullptr;
    if (xffi_map_new(&map, nullptr, nullptr, 0) != XFFI_OK) abort();
    for (size_t i = 0; i < keys.size(); ++i) {
      xffi_any k = xffi_any_object(keys[i]), v = xffi_any_int(static_cast<int64_t>(i));
      if (xffi_map_set(&map, &k, &v) != XFFI_OK) abort();
    }
    int64_t len = 0;
    xffi_map_length(&len, map);
    sink += len;
    xffi_object_dec_ref(map);
  }
  return (NowNs() - t0) / static_cast<double>(builds * static_cast<int64_t>(keys.size()));
}

double TvmInsert(const std::vector<ffi::String>& keys, int64_t builds) {
  double t0 = NowNs();
  for (int64_t b = 0; b < builds; ++b) {
    ffi::Map<ffi::String, int64_t> map;
    for (size_t i = 0; i < keys.size(); ++i) map.Set(keys[i], static_cast<int64_t>(i));
    sink += static_cast<int64_t>(map.size());
  }
  return (NowNs() - t0) / static_cast<double>(builds * static_cast<int64_t>(keys.size()));
}

double XffiLookup(const xffi_object* map, const std::vector<xffi_object*>& keys, const std::vector<int64_t>& order) {
  double t0 = NowNs();
  for (int64_t i : order) {
    xffi_any k = xffi_any_object(keys[static_cast<size_t>(i)]);
    const xffi_any* found = nullptr;
    xffi_map_lookup(&found, map, &k);
    sink += found->v_int64;
  }
  return (NowNs() - t0) / static_cast<double>(order.size());
}

double TvmLookup(const ffi::Map<ffi::String, int64_t>& map, const std::vector<ffi::String>& keys,
                 const std::vector<int64_t>& order) {
  double t0 = NowNs();
  for (int64_t i : order) sink += (*map.find(keys[static_cast<size_t>(i)])).second;
  return (NowNs() - t0) / static_cast<double>(order.size());
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int64_t only = 0;
  for (int a = 1; a < argc; ++a) {
    if (strcmp(argv[a], "--quick") == 0) quick = true;
    if (strcmp(argv[a], "--size") == 0 && a + 1 < argc) only = atoll(argv[++a]);
  }
  const int rounds = quick ? 3 : 7;
  const Case cases[] = {{10, 200000, 4000000}, {1000, 2000, 4000000}, {1000000, 2, 4000000}};
  printf("| operation | entries | xffi ns/op | tvm-ffi C++ ns/op | xffi / tvm-ffi |\n|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    if (only && c.n != only) continue;
    int64_t builds = quick ? std::max<int64_t>(1, c.builds / 10) : c.builds;
    int64_t lookups = quick ? c.lookups / 10 : c.lookups;
    std::vector<std::string> names = KeyNames(c.n);
    std::vector<xffi_object*> xkeys;
    std::vector<ffi::String> tkeys;
    for (const std::string& s : names) {
      xffi_object* o = nullptr;
      if (xffi_string_new(&o, s.data(), s.size()) != XFFI_OK) abort();
      xkeys.push_back(o);
      tkeys.emplace_back(s);
    }
    std::vector<double> xi, ti, xl, tl;
    for (int r = 0; r < rounds; ++r) {
      xi.push_back(XffiInsert(xkeys, builds));
      ti.push_back(TvmInsert(tkeys, builds));
    }
    xffi_object* xmap = nullptr;
    xffi_map_new(&xmap, nullptr, nullptr, 0);
    ffi::Map<ffi::String, int64_t> tmap;
    for (size_t i = 0; i < names.size(); ++i) {
      xffi_any k = xffi_any_object(xkeys[i]), v = xffi_any_int(static_cast<int64_t>(i));
      xffi_map_set(&xmap, &k, &v);
      tmap.Set(tkeys[i], static_cast<int64_t>(i));
    }
    std::vector<int64_t> order = ProbeOrder(c.n, lookups);
    for (int r = 0; r < rounds; ++r) {
      xl.push_back(XffiLookup(xmap, xkeys, order));
      tl.push_back(TvmLookup(tmap, tkeys, order));
    }
    printf("| insert (per entry, building the map) | %lld | %.1f | %.1f | %.2f |\n", static_cast<long long>(c.n),
           Median(xi), Median(ti), Median(xi) / Median(ti));
    printf("| lookup hit | %lld | %.1f | %.1f | %.2f |\n", static_cast<long long>(c.n), Median(xl), Median(tl),
           Median(xl) / Median(tl));
    fflush(stdout);
    xffi_object_dec_ref(xmap);
    for (xffi_object* o : xkeys) xffi_object_dec_ref(o);
  }
  return sink == 42 ? 1 : 0;
}
