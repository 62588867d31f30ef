// C++ object types declared with tvm-ffi's own macros, compiled against the
// wheel's headers and linked with xffi alone: their type indices come from
// TVMFFITypeGetOrAllocIndex, and IsInstance<T> runs tvm-ffi's inline code
// (the child-slot range test, then the walk of TVMFFIGetTypeInfo's
// ancestor records) on xffi's registry.
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>

#include <cstdint>

namespace cxx_types {

// Reserves 2 child slots: Mid (1 slot of its own) fills them, so Sibling overflows.
class BaseObj : public tvm::ffi::Object {
 public:
  static constexpr const uint32_t _type_child_slots = 2;
  TVM_FFI_DECLARE_OBJECT_INFO("test.cxx.Base", BaseObj, tvm::ffi::Object);
};

class MidObj : public BaseObj {
 public:
  static constexpr const uint32_t _type_child_slots = 1;
  TVM_FFI_DECLARE_OBJECT_INFO("test.cxx.Mid", MidObj, BaseObj);
};

class LeafObj : public MidObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.cxx.Leaf", LeafObj, MidObj);
};

class SiblingObj : public BaseObj {
 public:
  static constexpr const uint32_t _type_child_slots = 0;
  TVM_FFI_DECLARE_OBJECT_INFO("test.cxx.Sibling", SiblingObj, BaseObj);
};

// Whether an object header of type index `index` is a T, as C++ code asks.
template <typename T>
int is_instance(int32_t index) {
  TVMFFIObject header{};
  header.type_index = index;
  return reinterpret_cast<const tvm::ffi::Object*>(&header)->IsInstance<T>() ? 1 : 0;
}

}  // namespace cxx_types

extern "C" {

// The indices C++ allocated, in declaration order: Base, Mid, Leaf, Sibling.
void cxx_types_indices(int32_t out[4]) {
  out[0] = cxx_types::BaseObj::RuntimeTypeIndex();
  out[1] = cxx_types::MidObj::RuntimeTypeIndex();
  out[2] = cxx_types::LeafObj::RuntimeTypeIndex();
  out[3] = cxx_types::SiblingObj::RuntimeTypeIndex();
}

// IsInstance<Base>, <Mid>, <Sibling>, <Object>, <String> of index as bits 0..4.
int cxx_types_is_instance(int32_t index) {
  using namespace cxx_types;
  return is_instance<BaseObj>(index) | is_instance<MidObj>(index) << 1 | is_instance<SiblingObj>(index) << 2 |
         is_instance<tvm::ffi::Object>(index) << 3 | is_instance<tvm::ffi::details::StringObj>(index) << 4;
}

}  // extern "C"
