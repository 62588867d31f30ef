// c/compat/cxx/cxx_half.h: what the C++ half's files share: moving values
// between xffi's C side (c/lib/module/module_cxx.h: xffi_object, xffi_any)
// and tvm-ffi's C++ types, which have the same layouts (TVMFFIObject,
// TVMFFIAny), and calling an ffi.* global function from C++.
#ifndef XFFI_COMPAT_CXX_HALF_H
#define XFFI_COMPAT_CXX_HALF_H

#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>

#include <cstring>
#include <utility>

#include "lib/module/module_cxx.h"

namespace xffi_cxx {

namespace ffi = ::tvm::ffi;

static_assert(sizeof(TVMFFIAny) == 16, "an Any is 16 bytes, as xffi_any");

// The C side's object pointer is the Object header's address (borrowed).
inline ffi::Object *AsObject(xffi_object *object) { return reinterpret_cast<ffi::Object *>(object); }

// Gives up ref's reference as the C side's object pointer (a new reference
// for the caller; NULL for a null ref).
inline xffi_object *ReleaseToC(ffi::ObjectRef ref) {
  return reinterpret_cast<xffi_object *>(ffi::detail::ObjectUnsafe::MoveObjectRefToTVMFFIObjectPtr(std::move(ref)));
}

// Moves value into *out (an xffi_any, which takes the reference).
inline void ReleaseToC(xffi_any *out, ffi::Any value) {
  TVMFFIAny raw = ffi::detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(value));
  std::memcpy(static_cast<void *>(out), &raw, sizeof raw);
}

// Values the C side lends (borrowed for the call), as an array.
inline const ffi::AnyView *ViewOf(const xffi_any *values) { return reinterpret_cast<const ffi::AnyView *>(values); }

// The C side's view of a TVMFFIAny, for it to fill.
inline xffi_any *AsCAny(TVMFFIAny *value) { return reinterpret_cast<xffi_any *>(value); }

// Takes the reference in *value (filled by the C side) into an Any.
inline ffi::Any TakeFromC(TVMFFIAny *value) { return ffi::detail::AnyUnsafe::MoveTVMFFIAnyToAny(value); }

// Calls the ffi.* global function name with args; throws its error.
template <typename... Args>
ffi::Any CallGlobal(const char *name, Args &&...args) {
  return ffi::Function::GetGlobalRequired(std::string_view(name))(std::forward<Args>(args)...);
}

}  // namespace xffi_cxx

#endif  // XFFI_COMPAT_CXX_HALF_H
