// An object file for orcjit's README usage: two exported functions, one of
// which raises a ValueError.
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

static int64_t Add(int64_t a, int64_t b) { return a + b; }
static int64_t Fail(int64_t a) { TVM_FFI_THROW(ValueError) << "bad value " << a; }
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add, Add);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fail, Fail);
