// tests/interop/lib_map_cross.cc: a library written in C++ against the
// apache-tvm-ffi wheel's headers and libtvm_ffi.so alone (no xffi header).
// Map and Dict have no exported C function in tvm-ffi: this code reads,
// builds and grows them with the headers' inline C++ (hashing, probing,
// rehashing, in-place switching and freeing through data_deleter). The xffi
// host (test_interop_map.c) hands it maps xffi made and reads the ones made
// here; the AddressSanitizer build checks every buffer changes hands once.
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <string>

namespace {

namespace ffi = tvm::ffi;

// Key i of the shared key set: short ones (held inline as small strings)
// and long ones (String objects) alternate.
std::string KeyName(int64_t i) {
  return i % 2 == 0 ? "k" + std::to_string(i) : "a longer key, number " + std::to_string(i);
}

// Int key i of the shared key set: small ints and mixed 64-bit ones
// alternate (test_interop_map.c's int_key), so that chains form at every size.
int64_t IntKey(int64_t i) {
  if (i % 2 == 0) return i;
  uint64_t x = static_cast<uint64_t>(i);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return static_cast<int64_t>(x);
}

// Key i of type K: each function below runs over string keys and int keys.
template <typename K>
K Key(int64_t i);
template <>
ffi::String Key<ffi::String>(int64_t i) {
  return ffi::String(KeyName(i));
}
template <>
int64_t Key<int64_t>(int64_t i) {
  return IntKey(i);
}

// A key no map of keys 0..n-1 has.
template <typename K>
K AbsentKey(int64_t n);
template <>
ffi::String AbsentKey<ffi::String>(int64_t) {
  return ffi::String("absent key");
}
template <>
int64_t AbsentKey<int64_t>(int64_t n) {
  return IntKey(n + 1);
}

// Finds keys 0..n-1 in a Map made elsewhere with C++'s own find; returns the
// sum of the values found plus 1,000,000 per key missing, and checks that
// iteration visits exactly size() pairs and that AbsentKey is absent.
template <typename K>
int64_t SumFound(ffi::Map<K, int64_t> map, int64_t n) {
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    auto it = map.find(Key<K>(i));
    sum += it == map.end() ? 1000000 : (*it).second;
  }
  int64_t seen = 0;
  for (auto kv : map) {
    (void)kv;
    ++seen;
  }
  if (seen != static_cast<int64_t>(map.size())) sum = -1;
  if (map.find(AbsentKey<K>(n)) != map.end()) sum = -2;
  return sum;
}

// Makes a Map of keys 0..n-1, value i * 10.
template <typename K>
ffi::Map<K, int64_t> MakeMap(int64_t n) {
  ffi::Map<K, int64_t> map;
  for (int64_t i = 0; i < n; ++i) map.Set(Key<K>(i), i * 10);
  return map;
}

// Sets keys from..to-1 (value i * 10) in a Dict made elsewhere: Dict::Set
// switches grown storage into the same object, so the caller sees them.
template <typename K>
int64_t DictSetRange(ffi::Dict<K, int64_t> dict, int64_t from, int64_t to) {
  for (int64_t i = from; i < to; ++i) dict.Set(Key<K>(i), i * 10);
  return static_cast<int64_t>(dict.size());
}

// Sets key i (value i * 10 + 1) in a Map made elsewhere, copy-on-write:
// returns the new map; the argument is left as it was.
template <typename K>
ffi::Map<K, int64_t> MapWith(ffi::Map<K, int64_t> map, int64_t i) {
  map.Set(Key<K>(i), i * 10 + 1);
  return map;
}

// Erases every `step`-th key from..to-1 of a Dict made elsewhere, in place
// (tvm-ffi moves each chain's last element into the hole); returns the size.
template <typename K>
int64_t DictEraseEvery(ffi::Dict<K, int64_t> dict, int64_t from, int64_t to, int64_t step) {
  for (int64_t i = from; i < to; i += step) dict.erase(Key<K>(i));
  return static_cast<int64_t>(dict.size());
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum_found, SumFound<ffi::String>)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_map, MakeMap<ffi::String>)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(dict_set_range, DictSetRange<ffi::String>)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_with, MapWith<ffi::String>)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(dict_erase_every, DictEraseEvery<ffi::String>)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum_found_int, SumFound<int64_t>)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_map_int, MakeMap<int64_t>)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(dict_set_range_int, DictSetRange<int64_t>)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_with_int, MapWith<int64_t>)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(dict_erase_every_int, DictEraseEvery<int64_t>)
