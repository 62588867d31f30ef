// A kernel library as tvm-ffi's users write it: C++ against the
// apache-tvm-ffi wheel's headers, functions exported with tvm-ffi's export
// macro, and NOT linked to any libtvm_ffi.so. Its only imports from a runtime
// are TVMFFI* C functions, bound at load time to whichever runtime the
// process holds (docs/tvm-ffi.md, "Which runtime serves"). Loaded by the C
// host (test_one_runtime_c_host.c) and the Rust host
// (rust/xffi-tests/tests/one_runtime.rs), both on xffi's runtime alone.
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>

namespace {

int64_t AddOne(int64_t x) { return x + 1; }

// Long enough to be a heap String (not a small string).
tvm::ffi::String Greet(tvm::ffi::String name) {
  return tvm::ffi::String("hello " + std::string(name) + ", from a kernel built against tvm-ffi's headers");
}

// Raised through the runtime's error slot (TVMFFIErrorSetRaised).
int64_t Refuse(int64_t x) {
  TVM_FFI_THROW(ValueError) << "the kernel refuses " << x;
  return x;
}

// Calls a global of the runtime the host registered (TVMFFIFunctionGetGlobal).
int64_t CallGlobal(tvm::ffi::String name, int64_t x) {
  tvm::ffi::Function f = tvm::ffi::Function::GetGlobalRequired(name);
  return f(x).cast<int64_t>();
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(greet, Greet);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(refuse, Refuse);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_global, CallGlobal);
