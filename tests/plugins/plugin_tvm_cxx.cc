// tests/plugins/plugin_tvm_cxx.cc: a kernel library written against
// tvm-ffi's own headers (the apache-tvm-ffi wheel) with its C++ export
// macro, linked to no runtime: loaded by xffi_module_load in
// test_tvm_module, it runs on xffi alone.
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

extern "C" {
TVM_FFI_DLL_EXPORT void* __tvm_ffi__library_ctx = nullptr;
}

static int64_t AddOne(int64_t x) { return x + 1; }
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);

// Calls `name` found through this library's imports (then the global
// registry) with x, by the bare C ABI: the handle is borrowed.
static int64_t CallImported(int64_t x) {
  TVMFFIObjectHandle f = nullptr;
  if (TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, "twice", &f) != 0) return -1;
  TVMFFIAny arg;
  arg.type_index = kTVMFFIInt;
  arg.zero_padding = 0;
  arg.v_int64 = x;
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  if (TVMFFIFunctionGetCellPtr(f)->safe_call(f, &arg, 1, &result) != 0) return -2;
  return result.type_index == kTVMFFIInt ? result.v_int64 : -3;
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_imported, CallImported);
