// tests/interop/lib_list_grow.cc: a library written in C++ against the
// apache-tvm-ffi wheel's headers and libtvm_ffi.so alone (no xffi header).
// It receives a List made by xffi and grows it with tvm-ffi's own inline
// C++ (List::push_back, List::reserve), which moves the elements to a new
// buffer and frees the old one through the list cell's data_deleter, with
// no NULL check: an xffi List must therefore always carry one.
// test_interop_host.c loads it with xffi_module_load and checks the list
// afterwards; the AddressSanitizer build checks the buffers changed hands
// cleanly (no leak, no double free).
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

namespace {

namespace ffi = tvm::ffi;

// Appends n items, alternately the int i and a String made here (a heap
// object, so xffi later releases an object tvm-ffi made); returns the new
// length. Each push_back past the capacity reallocates the storage.
int64_t PushItems(ffi::List<ffi::Any> list, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (i % 2 == 0) {
      list.push_back(ffi::Any(i));
    } else {
      list.push_back(ffi::Any(ffi::String("pushed by tvm-ffi C++ code, item " + std::to_string(i))));
    }
  }
  return static_cast<int64_t>(list.size());
}

// Reserves room for at least n items; returns the capacity.
int64_t Reserve(ffi::List<ffi::Any> list, int64_t n) {
  list.reserve(n);
  return static_cast<int64_t>(list.capacity());
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(push_items, PushItems)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(reserve, Reserve)
