// c/compat/cxx/extra_functions.cc: the free C++ functions of tvm-ffi's extra/
// headers that its clients import from libtvm_ffi.so (JSON, the JSON graph,
// structural equality and hashing, the error context of a walk, deep copy,
// repr, recursive comparison), each a call of the ffi.* global function
// that does the work (c/compat/globals/), with tvm-ffi's arguments and
// results; errors come back as thrown ffi::Error. Also the type info of
// ffi::Error, which clients catch by type.
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/serialization.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/extra/visit_error_context.h>

#include <typeinfo>

#include "compat/cxx/cxx_half.h"

namespace tvm {
namespace ffi {

using xffi_cxx::CallGlobal;

namespace json {

Value Parse(const String &json_str, String *error_msg) {
  if (error_msg == nullptr) return CallGlobal("ffi.json.Parse", json_str);
  try {
    return CallGlobal("ffi.json.Parse", json_str);
  } catch (const Error &error) {
    *error_msg = error.message();
    return Value();
  }
}

String Stringify(const Value &value, const Optional<int> &indent) {
  return CallGlobal("ffi.json.Stringify", value, indent).cast<String>();
}

}  // namespace json

json::Value ToJSONGraph(const Any &value, const Any &metadata) {
  return CallGlobal("ffi.ToJSONGraph", value, metadata);
}

Any FromJSONGraph(const json::Value &value) { return CallGlobal("ffi.FromJSONGraph", value); }

bool StructuralEqual::Equal(const Any &lhs, const Any &rhs, bool map_free_vars, bool skip_tensor_content) {
  return CallGlobal("ffi.StructuralEqual", lhs, rhs, map_free_vars, skip_tensor_content).cast<bool>();
}

Optional<reflection::AccessPathPair> StructuralEqual::GetFirstMismatch(const Any &lhs, const Any &rhs,
                                                                       bool map_free_vars, bool skip_tensor_content) {
  return CallGlobal("ffi.GetFirstStructuralMismatch", lhs, rhs, map_free_vars, skip_tensor_content)
      .cast<Optional<reflection::AccessPathPair>>();
}

uint64_t StructuralHash::Hash(const Any &value, bool map_free_vars, bool skip_tensor_content) {
  return static_cast<uint64_t>(
      CallGlobal("ffi.StructuralHash", value, map_free_vars, skip_tensor_content).cast<int64_t>());
}

Array<reflection::AccessPath> VisitErrorContext::FindAccessPaths(const ObjectRef &root,
                                                                 const VisitErrorContext &visit_context,
                                                                 bool allow_prefix_match) {
  return CallGlobal("ffi.VisitErrorContext.FindAccessPaths", root, visit_context, allow_prefix_match)
      .cast<Array<reflection::AccessPath>>();
}

Any DeepCopy(const Any &value) { return CallGlobal("ffi.DeepCopy", value); }

String ReprPrint(const Any &value) { return CallGlobal("ffi.ReprPrint", value).cast<String>(); }

int64_t RecursiveHash(const Any &value) { return CallGlobal("ffi.RecursiveHash", value).cast<int64_t>(); }

bool RecursiveEq(const Any &lhs, const Any &rhs) { return CallGlobal("ffi.RecursiveEq", lhs, rhs).cast<bool>(); }
bool RecursiveLt(const Any &lhs, const Any &rhs) { return CallGlobal("ffi.RecursiveLt", lhs, rhs).cast<bool>(); }
bool RecursiveLe(const Any &lhs, const Any &rhs) { return CallGlobal("ffi.RecursiveLe", lhs, rhs).cast<bool>(); }
bool RecursiveGt(const Any &lhs, const Any &rhs) { return CallGlobal("ffi.RecursiveGt", lhs, rhs).cast<bool>(); }
bool RecursiveGe(const Any &lhs, const Any &rhs) { return CallGlobal("ffi.RecursiveGe", lhs, rhs).cast<bool>(); }

}  // namespace ffi
}  // namespace tvm

namespace xffi_cxx {
// Error's members are all inline, so its vtable and type info are emitted
// where it is used; this reference keeps one exported copy in the library,
// as clients that catch ffi::Error import it.
const std::type_info &kErrorType = typeid(ffi::Error);
}  // namespace xffi_cxx
