/* tests/interop/lib_tvm_exports.c: a library written for tvm-ffi alone,
 * against the apache-tvm-ffi wheel's C API (tvm/ffi/c_api.h) and linked to
 * its libtvm_ffi.so: no xffi header, no xffi marker. It exports functions in
 * tvm-ffi's convention (__tvm_ffi_NAME, safe-call signature, NULL handle);
 * test_interop_host.c loads it with xffi_module_load and calls it with xffi
 * values. Errors it raises go to tvm-ffi's slot (TVMFFIErrorSetRaisedFromCStr),
 * as any tvm-ffi library's do. Counters (deleter_runs) let the host prove that
 * objects made here and dropped by xffi are destroyed exactly once. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#define EXPORT __attribute__((visibility("default")))
#define DEFINE_EXPORT(name)                                                                              \
  EXPORT int __tvm_ffi_##name(void *handle, const TVMFFIAny *args, int32_t num_args, TVMFFIAny *result); \
  EXPORT int __tvm_ffi_##name(void *handle, const TVMFFIAny *args, int32_t num_args, TVMFFIAny *result)

static atomic_int deleter_count;

/* The object header is 24 bytes; a cell follows it. */
#define CELL(type, obj) ((type *)(void *)((char *)(obj) + sizeof(TVMFFIObject)))

static int raise_error(const char *kind, const char *message) {
  TVMFFIErrorSetRaisedFromCStr(kind, message);
  return -1;
}

static int expect_args(int32_t num_args, int32_t expected, const char *message) {
  return num_args == expected ? 0 : raise_error("TypeError", message);
}

/* A string argument in any of its forms. */
static int get_str(TVMFFIByteArray *out, const TVMFFIAny *arg) {
  switch (arg->type_index) {
    case kTVMFFIStr: *out = *CELL(TVMFFIByteArray, arg->v_obj); return 0;
    case kTVMFFISmallStr:
      out->data = arg->v_bytes;
      out->size = arg->small_str_len;
      return 0;
    case kTVMFFIRawStr:
      out->data = arg->v_c_str;
      out->size = strlen(arg->v_c_str);
      return 0;
    default: return raise_error("TypeError", "tvm_lib: expected a string argument");
  }
}

/* concat(a: str, b: str) -> str, made by tvm-ffi. */
DEFINE_EXPORT(concat) {
  (void)handle;
  TVMFFIByteArray a, b;
  char buffer[512];
  if (expect_args(num_args, 2, "concat: expected 2 arguments") || get_str(&a, &args[0]) || get_str(&b, &args[1]))
    return -1;
  if (a.size + b.size > sizeof buffer) return raise_error("ValueError", "concat: strings too long");
  memcpy(buffer, a.data, a.size);
  memcpy(buffer + a.size, b.data, b.size);
  TVMFFIByteArray joined = {buffer, a.size + b.size};
  return TVMFFIStringFromByteArray(&joined, result);
}

static const DLTensor *get_tensor(const TVMFFIAny *arg) {
  if (arg->type_index == kTVMFFIDLTensorPtr) return (const DLTensor *)arg->v_ptr;
  if (arg->type_index == kTVMFFITensor) return CELL(const DLTensor, arg->v_obj);
  return NULL;
}

/* tensor_sum(t: contiguous float64 cpu tensor) -> float */
DEFINE_EXPORT(tensor_sum) {
  (void)handle;
  if (expect_args(num_args, 1, "tensor_sum: expected 1 argument")) return -1;
  const DLTensor *t = get_tensor(&args[0]);
  if (!t || t->dtype.code != kDLFloat || t->dtype.bits != 64)
    return raise_error("TypeError", "tensor_sum: expected a float64 tensor");
  int64_t n = 1;
  for (int32_t d = 0; d < t->ndim; d++) n *= t->shape[d];
  const double *data = (const double *)(const void *)((const char *)t->data + t->byte_offset);
  double sum = 0;
  for (int64_t i = 0; i < n; i++) sum += data[i];
  result->type_index = kTVMFFIFloat;
  result->zero_padding = 0;
  result->v_float64 = sum;
  return 0;
}

typedef struct owned_tensor {
  DLManagedTensorVersioned managed;
  int64_t shape[1];
  double data[];
} owned_tensor;

static void owned_tensor_delete(DLManagedTensorVersioned *managed) {
  atomic_fetch_add(&deleter_count, 1);
  free(managed->manager_ctx);
}

/* tensor_full(n, value) -> a tvm-ffi Tensor of n float64 values, whose memory
 * this library frees (counted). */
DEFINE_EXPORT(tensor_full) {
  (void)handle;
  if (expect_args(num_args, 2, "tensor_full: expected 2 arguments")) return -1;
  if (args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIFloat)
    return raise_error("TypeError", "tensor_full: expected (int, float)");
  int64_t n = args[0].v_int64;
  if (n < 0 || n > (1 << 20)) return raise_error("ValueError", "tensor_full: bad size");
  owned_tensor *o = calloc(1, sizeof *o + (size_t)n * sizeof(double));
  if (!o) return raise_error("MemoryError", "tensor_full: out of memory");
  for (int64_t i = 0; i < n; i++) o->data[i] = args[1].v_float64;
  o->shape[0] = n;
  o->managed.version.major = DLPACK_MAJOR_VERSION;
  o->managed.version.minor = DLPACK_MINOR_VERSION;
  o->managed.manager_ctx = o;
  o->managed.deleter = owned_tensor_delete;
  o->managed.dl_tensor.data = o->data;
  o->managed.dl_tensor.device.device_type = kDLCPU;
  o->managed.dl_tensor.ndim = 1;
  o->managed.dl_tensor.dtype.code = kDLFloat;
  o->managed.dl_tensor.dtype.bits = 64;
  o->managed.dl_tensor.dtype.lanes = 1;
  o->managed.dl_tensor.shape = o->shape;
  TVMFFIObjectHandle tensor = NULL;
  if (TVMFFITensorFromDLPackVersioned(&o->managed, 0, 0, &tensor) != 0) {
    free(o);
    return -1;
  }
  result->type_index = kTVMFFITensor;
  result->zero_padding = 0;
  result->v_obj = (TVMFFIObject *)tensor;
  return 0;
}

/* array_sum(a: Array of ints) -> int, reading the shared sequence cell. */
DEFINE_EXPORT(array_sum) {
  (void)handle;
  if (expect_args(num_args, 1, "array_sum: expected 1 argument")) return -1;
  if (args[0].type_index != kTVMFFIArray) return raise_error("TypeError", "array_sum: expected an Array");
  const TVMFFISeqCell *seq = CELL(const TVMFFISeqCell, args[0].v_obj);
  const TVMFFIAny *items = (const TVMFFIAny *)seq->data;
  int64_t sum = 0;
  for (int64_t i = 0; i < seq->size; i++) {
    if (items[i].type_index != kTVMFFIInt) return raise_error("TypeError", "array_sum: expected int elements");
    sum += items[i].v_int64;
  }
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = sum;
  return 0;
}

/* array_of(*values) -> a tvm-ffi Array, made by its global "ffi.Array". */
DEFINE_EXPORT(array_of) {
  (void)handle;
  static const char name[] = "ffi.Array";
  TVMFFIByteArray key = {name, sizeof name - 1};
  TVMFFIObjectHandle make = NULL;
  if (TVMFFIFunctionGetGlobal(&key, &make) != 0) return -1;
  if (!make) return raise_error("RuntimeError", "array_of: no global function ffi.Array");
  int status = TVMFFIFunctionCall(make, (TVMFFIAny *)args, num_args, result);
  TVMFFIObjectDecRef(make);
  return status;
}

/* apply(f, *rest) -> f(*rest) through tvm-ffi's call; f may be an xffi
 * Function. A failure is passed on as it is (the error stays in whatever
 * slot the callee used). */
DEFINE_EXPORT(apply) {
  (void)handle;
  if (num_args < 1 || args[0].type_index != kTVMFFIFunction)
    return raise_error("TypeError", "apply: expected a Function");
  return TVMFFIFunctionCall(args[0].v_obj, (TVMFFIAny *)args + 1, num_args - 1, result);
}

static int add_k(void *self, const TVMFFIAny *args, int32_t num_args, TVMFFIAny *result) {
  if (expect_args(num_args, 1, "adder: expected 1 argument")) return -1;
  if (args[0].type_index != kTVMFFIInt) return raise_error("TypeError", "adder: expected an int");
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = args[0].v_int64 + *(int64_t *)self;
  return 0;
}

static void adder_delete(void *self) {
  atomic_fetch_add(&deleter_count, 1);
  free(self);
}

/* make_adder(k) -> a tvm-ffi Function x -> x + k, whose resource's deleter is counted. */
DEFINE_EXPORT(make_adder) {
  (void)handle;
  if (expect_args(num_args, 1, "make_adder: expected 1 argument")) return -1;
  if (args[0].type_index != kTVMFFIInt) return raise_error("TypeError", "make_adder: expected an int");
  int64_t *k = malloc(sizeof *k);
  if (!k) return raise_error("MemoryError", "make_adder: out of memory");
  *k = args[0].v_int64;
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(k, add_k, adder_delete, &f) != 0) {
    free(k);
    return -1;
  }
  result->type_index = kTVMFFIFunction;
  result->zero_padding = 0;
  result->v_obj = (TVMFFIObject *)f;
  return 0;
}

/* fail(message): raises a ValueError with that message in tvm-ffi's slot. */
DEFINE_EXPORT(fail) {
  (void)handle, (void)result;
  TVMFFIByteArray message;
  char buffer[256];
  if (expect_args(num_args, 1, "fail: expected 1 argument") || get_str(&message, &args[0])) return -1;
  size_t n = message.size < sizeof buffer - 1 ? message.size : sizeof buffer - 1;
  memcpy(buffer, message.data, n);
  buffer[n] = 0;
  return raise_error("ValueError", buffer);
}

/* fail_silently(): fails without raising anything (a broken callee). */
DEFINE_EXPORT(fail_silently) {
  (void)handle, (void)args, (void)num_args, (void)result;
  return -1;
}

/* deleter_runs() -> how many tensors and adders this library has freed. */
DEFINE_EXPORT(deleter_runs) {
  (void)handle, (void)args, (void)num_args;
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = atomic_load(&deleter_count);
  return 0;
}
