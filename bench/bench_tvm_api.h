/* bench/bench_tvm_api.h: the tvm-ffi C functions bench_vs_tvm calls,
 * taken from the wheel's libtvm_ffi.so itself (dlsym on its handle) and
 * called through pointers.
 *
 * Why: once xffi defines the TVMFFI* functions too (issue 15), a program
 * linked to both xffi_static and the wheel binds these names, at link time,
 * to xffi's definitions, and its "tvm-ffi" rows would silently measure xffi.
 * (The executable also keeps xffi_static's symbols out of its dynamic symbol
 * table, -Wl,--exclude-libs,ALL in tvm.cmake, so that the wheel's own
 * internal calls are not interposed by xffi's.) A call through a pointer is
 * one indirect call, one instruction less than a call through the PLT (a call
 * to the stub, then its indirect jump).
 *
 * Include after every header that declares TVMFFI* names, in one file; call
 * bench_tvm_api_load(path of the wheel's libtvm_ffi.so) before using them. */
#ifndef XFFI_BENCH_TVM_API_H
#define XFFI_BENCH_TVM_API_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench_tvm_api {
  void (*ErrorMoveFromRaised)(TVMFFIObjectHandle *result);
  void (*ErrorSetRaisedFromCStr)(const char *kind, const char *message);
  int (*FunctionCall)(TVMFFIObjectHandle func, TVMFFIAny *args, int32_t num_args, TVMFFIAny *result);
  int (*FunctionCreate)(void *self, TVMFFISafeCallType safe_call, void (*deleter)(void *self), TVMFFIObjectHandle *out);
  int (*FunctionGetGlobal)(const TVMFFIByteArray *name, TVMFFIObjectHandle *out);
  int (*FunctionSetGlobal)(const TVMFFIByteArray *name, TVMFFIObjectHandle f, int allow_override);
  const TVMFFITypeInfo *(*GetTypeInfo)(int32_t type_index);
  int (*ObjectDecRef)(TVMFFIObjectHandle obj);
  int (*ObjectIncRef)(TVMFFIObjectHandle obj);
  int (*StringFromByteArray)(const TVMFFIByteArray *input, TVMFFIAny *out);
  int (*TensorFromDLPackVersioned)(DLManagedTensorVersioned *from, int32_t require_alignment,
                                   int32_t require_contiguous, TVMFFIObjectHandle *out);
  int32_t (*TypeGetOrAllocIndex)(const TVMFFIByteArray *type_key, int32_t static_type_index, int32_t type_depth,
                                 int32_t num_child_slots, int32_t child_slots_can_overflow, int32_t parent_type_index);
} bench_tvm_api;

static bench_tvm_api bench_tvm;

/* The address of `name` in the loaded libtvm_ffi.so (library), which must
 * come from a file named libtvm_ffi.so; exits with a message otherwise. */
static void *bench_tvm_symbol(void *library, const char *name) {
  void *symbol = dlsym(library, name);
  Dl_info info;
  const char *file = symbol && dladdr(symbol, &info) && info.dli_fname ? info.dli_fname : "";
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  if (strcmp(base, "libtvm_ffi.so") != 0) {
    fprintf(stderr, "bench_vs_tvm: %s comes from '%s', not from the wheel's libtvm_ffi.so\n", name, file);
    exit(1);
  }
  return symbol;
}

/* Fills bench_tvm from the wheel's libtvm_ffi.so at `path`, loaded here
 * (RTLD_LOCAL: its names do not join the global scope). A function pointer
 * is read from dlsym's void * with memcpy, as POSIX allows. */
static void bench_tvm_api_load(const char *path) {
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "bench_vs_tvm: cannot load the wheel's library: %s\n", dlerror());
    exit(1);
  }
#define BENCH_TVM_LOAD(field)                                  \
  do {                                                         \
    void *symbol = bench_tvm_symbol(library, "TVMFFI" #field); \
    memcpy(&bench_tvm.field, &symbol, sizeof bench_tvm.field); \
  } while (0)
  BENCH_TVM_LOAD(ErrorMoveFromRaised);
  BENCH_TVM_LOAD(ErrorSetRaisedFromCStr);
  BENCH_TVM_LOAD(FunctionCall);
  BENCH_TVM_LOAD(FunctionCreate);
  BENCH_TVM_LOAD(FunctionGetGlobal);
  BENCH_TVM_LOAD(FunctionSetGlobal);
  BENCH_TVM_LOAD(GetTypeInfo);
  BENCH_TVM_LOAD(ObjectDecRef);
  BENCH_TVM_LOAD(ObjectIncRef);
  BENCH_TVM_LOAD(StringFromByteArray);
  BENCH_TVM_LOAD(TensorFromDLPackVersioned);
  BENCH_TVM_LOAD(TypeGetOrAllocIndex);
#undef BENCH_TVM_LOAD
}

#define TVMFFIErrorMoveFromRaised (bench_tvm.ErrorMoveFromRaised)
#define TVMFFIErrorSetRaisedFromCStr (bench_tvm.ErrorSetRaisedFromCStr)
#define TVMFFIFunctionCall (bench_tvm.FunctionCall)
#define TVMFFIFunctionCreate (bench_tvm.FunctionCreate)
#define TVMFFIFunctionGetGlobal (bench_tvm.FunctionGetGlobal)
#define TVMFFIFunctionSetGlobal (bench_tvm.FunctionSetGlobal)
#define TVMFFIGetTypeInfo (bench_tvm.GetTypeInfo)
#define TVMFFIObjectDecRef (bench_tvm.ObjectDecRef)
#define TVMFFIObjectIncRef (bench_tvm.ObjectIncRef)
#define TVMFFIStringFromByteArray (bench_tvm.StringFromByteArray)
#define TVMFFITensorFromDLPackVersioned (bench_tvm.TensorFromDLPackVersioned)
#define TVMFFITypeGetOrAllocIndex (bench_tvm.TypeGetOrAllocIndex)

#endif /* XFFI_BENCH_TVM_API_H */
