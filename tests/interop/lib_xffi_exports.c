/* tests/interop/lib_xffi_exports.c: a library written with xffi (its headers,
 * its runtime, its export macro) for tvm-ffi's loader to load:
 * tvm_ffi.load_module(path) in Python (test_tvm_loads_xffi.py), or tvm-ffi's
 * C API in the C host (test_interop_host.c).
 *
 * Every function is exported with plain XFFI_EXPORT_FUNCTION, which moves an
 * error it raises into tvm-ffi's slot when tvm-ffi is in the process.
 * Functions it is given by tvm-ffi are called with plain xffi_function_call,
 * which takes their errors from tvm-ffi's slot.
 * Counters (finalizer_runs, tensor_deleter_runs) let the tests prove that
 * objects made here and dropped by tvm-ffi are destroyed exactly once. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <xffi/xffi.h>

XFFI_DEFINE_ABI_MARKER(); /* once per library: xffi_module_load checks it */

static atomic_int finalizer_count;
static atomic_int tensor_deleter_count;

static int add_int(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int64_t a, b;
  if (xffi_arg_check_signature(args, num_args, "ii", "add_int") != XFFI_OK) return XFFI_FAIL;
  xffi_arg_to_int_inline(&a, args, num_args, 0, "add_int");
  xffi_arg_to_int_inline(&b, args, num_args, 1, "add_int");
  *result = xffi_any_int(a + b);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(add_int, add_int);

static int scale(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  double x, k;
  if (xffi_arg_check_signature(args, num_args, "ff", "scale") != XFFI_OK) return XFFI_FAIL;
  xffi_arg_to_float_inline(&x, args, num_args, 0, "scale");
  xffi_arg_to_float_inline(&k, args, num_args, 1, "scale");
  *result = xffi_any_float(x * k);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(scale, scale);

static int logical_not(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int b;
  if (xffi_arg_check_signature(args, num_args, "b", "logical_not") != XFFI_OK ||
      xffi_arg_to_bool(&b, args, num_args, 0, "logical_not") != XFFI_OK)
    return XFFI_FAIL;
  *result = xffi_any_bool(!b);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(logical_not, logical_not);

/* greet(name) -> "hello, <name>" (a new xffi String, or a small string). */
static int greet(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_byte_array name;
  if (xffi_arg_check_signature(args, num_args, "s", "greet") != XFFI_OK ||
      xffi_arg_to_str(&name, args, num_args, 0, "greet") != XFFI_OK)
    return XFFI_FAIL;
  char buffer[256];
  static const char prefix[] = "hello, ";
  size_t n = sizeof prefix - 1;
  if (name.size > sizeof buffer - n)
    return xffi_error_raise(XFFI_KIND_VALUE, "greet: argument 0: expected at most %zu bytes, got %zu",
                            sizeof buffer - n, name.size);
  memcpy(buffer, prefix, n);
  memcpy(buffer + n, name.data, name.size);
  return xffi_any_from_str(result, buffer, n + name.size);
}
XFFI_EXPORT_FUNCTION(greet, greet);

/* The DLTensor of a tensor argument: a Tensor object or a borrowed DLTensor*. */
static int tensor_arg(DLTensor **out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn) {
  if (index < num_args && args[index].type_index == XFFI_TYPE_DLTENSOR_PTR) {
    *out = args[index].v_dltensor;
    return XFFI_OK;
  }
  xffi_object *tensor;
  if (xffi_arg_to_object(&tensor, args, num_args, index, XFFI_TYPE_TENSOR, fn) != XFFI_OK) return XFFI_FAIL;
  return xffi_tensor_cell_of(out, tensor);
}

static int check_float64(const DLTensor *t, const char *fn) {
  if (t->dtype.code != kDLFloat || t->dtype.bits != 64 || t->dtype.lanes != 1)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: argument 0: expected a float64 tensor, got code %d bits %d", fn,
                            (int)t->dtype.code, (int)t->dtype.bits);
  if (t->device.device_type != kDLCPU)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: argument 0: expected a cpu tensor, got device type %d", fn,
                            (int)t->device.device_type);
  return XFFI_OK;
}

/* The address of element `flat` (row-major order) of a float64 tensor of any
 * rank, with or without strides. */
static double *element(const DLTensor *t, int64_t flat) {
  int64_t offset = 0, compact_stride = 1;
  for (int32_t d = t->ndim - 1; d >= 0; d--) {
    int64_t i = flat % t->shape[d];
    flat /= t->shape[d];
    offset += i * (t->strides ? t->strides[d] : compact_stride);
    compact_stride *= t->shape[d];
  }
  return (double *)(void *)((char *)t->data + t->byte_offset) + offset;
}

static int64_t numel(const DLTensor *t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

/* tensor_sum(t: float64 cpu tensor) -> float */
static int tensor_sum(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  DLTensor *t;
  if (num_args != 1) return xffi_error_raise(XFFI_KIND_TYPE, "tensor_sum: expected 1 argument, got %d", (int)num_args);
  if (tensor_arg(&t, args, num_args, 0, "tensor_sum") != XFFI_OK || check_float64(t, "tensor_sum") != XFFI_OK)
    return XFFI_FAIL;
  double sum = 0;
  int64_t n = numel(t);
  for (int64_t i = 0; i < n; i++) sum += *element(t, i);
  *result = xffi_any_float(sum);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(tensor_sum, tensor_sum);

/* tensor_scale_inplace(t: float64 cpu tensor, k: float) -> None: writes into
 * the caller's memory (no copy crossed). */
static int tensor_scale_inplace(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)result;
  DLTensor *t;
  double k;
  if (num_args != 2)
    return xffi_error_raise(XFFI_KIND_TYPE, "tensor_scale_inplace: expected 2 arguments, got %d", (int)num_args);
  if (tensor_arg(&t, args, num_args, 0, "tensor_scale_inplace") != XFFI_OK ||
      check_float64(t, "tensor_scale_inplace") != XFFI_OK ||
      xffi_arg_to_float_inline(&k, args, num_args, 1, "tensor_scale_inplace") != XFFI_OK)
    return XFFI_FAIL;
  int64_t n = numel(t);
  for (int64_t i = 0; i < n; i++) *element(t, i) *= k;
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(tensor_scale_inplace, tensor_scale_inplace);

/* A DLPack tensor owned by this library, with a counted deleter. */
typedef struct owned_tensor {
  DLManagedTensorVersioned managed;
  int64_t shape[1];
  int64_t strides[1];
  double data[];
} owned_tensor;

static void owned_tensor_delete(DLManagedTensorVersioned *managed) {
  atomic_fetch_add(&tensor_deleter_count, 1);
  free(managed->manager_ctx);
}

/* tensor_arange(n) -> Tensor [0, 1, ..., n-1] (float64), whose memory this
 * library frees (tensor_deleter_runs counts it). */
static int tensor_arange(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int64_t n;
  if (xffi_arg_check_signature(args, num_args, "i", "tensor_arange") != XFFI_OK) return XFFI_FAIL;
  xffi_arg_to_int_inline(&n, args, num_args, 0, "tensor_arange");
  if (n < 0 || n > (1 << 20))
    return xffi_error_raise(XFFI_KIND_VALUE, "tensor_arange: argument 0: expected 0..%d, got %lld", 1 << 20,
                            (long long)n);
  owned_tensor *o = calloc(1, sizeof *o + (size_t)n * sizeof(double));
  if (!o) return xffi_error_raise_out_of_memory();
  for (int64_t i = 0; i < n; i++) o->data[i] = (double)i;
  o->shape[0] = n;
  o->strides[0] = 1;
  o->managed.version.major = DLPACK_MAJOR_VERSION;
  o->managed.version.minor = DLPACK_MINOR_VERSION;
  o->managed.manager_ctx = o;
  o->managed.deleter = owned_tensor_delete;
  o->managed.dl_tensor = (DLTensor){.data = o->data,
                                    .device = {kDLCPU, 0},
                                    .ndim = 1,
                                    .dtype = {kDLFloat, 64, 1},
                                    .shape = o->shape,
                                    .strides = o->strides};
  xffi_object *tensor;
  if (xffi_tensor_from_dlpack(&tensor, &o->managed) != XFFI_OK) {
    free(o);
    return XFFI_FAIL;
  }
  *result = xffi_any_object(tensor);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(tensor_arange, tensor_arange);

/* array_sum(a: Array of ints) -> int, reading the array through xffi's API
 * whoever made it. */
static int array_sum(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_object *array;
  if (xffi_arg_check_signature(args, num_args, "o", "array_sum") != XFFI_OK ||
      xffi_arg_to_object(&array, args, num_args, 0, XFFI_TYPE_ARRAY, "array_sum") != XFFI_OK)
    return XFFI_FAIL;
  int64_t size, sum = 0, x;
  const xffi_any *items;
  if (xffi_array_items(&items, &size, array) != XFFI_OK) return XFFI_FAIL;
  for (int64_t i = 0; i < size; i++) {
    if (xffi_any_to_int(&x, &items[i]) != XFFI_OK) return xffi_error_pass("array_sum: an element");
    sum += x;
  }
  *result = xffi_any_int(sum);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(array_sum, array_sum);

/* array_of(*values) -> an xffi Array holding the arguments (objects among
 * them gain a reference held by the Array). */
static int array_of(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_object *array;
  if (xffi_array_new(&array, args, num_args) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(array);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(array_of, array_of);

/* echo(x) -> x (an object comes back as the same object, one more reference). */
static int echo(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_arg_check_signature(args, num_args, "*", "echo") != XFFI_OK) return XFFI_FAIL;
  return xffi_any_copy(result, &args[0]);
}
XFFI_EXPORT_FUNCTION(echo, echo);

/* make_multiplier(k) -> an xffi Function x -> k * x whose finalizer is counted. */
/* A Function object handed to tvm-ffi is called by tvm-ffi directly, so its
 * errors must go to tvm-ffi's slot too (xffi_error_forward_to_tvm); xffi code
 * calling it with xffi_function_call takes them back. */
static int multiply(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  int64_t x;
  if (xffi_arg_check_signature(args, num_args, "i", "multiplier") != XFFI_OK) return xffi_error_forward_to_tvm();
  xffi_arg_to_int_inline(&x, args, num_args, 0, "multiplier");
  *result = xffi_any_int(*(int64_t *)resource * x);
  return XFFI_OK;
}

static void multiplier_finalize(void *resource) {
  atomic_fetch_add(&finalizer_count, 1);
  free(resource);
}

static int make_multiplier(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int64_t k;
  if (xffi_arg_check_signature(args, num_args, "i", "make_multiplier") != XFFI_OK) return XFFI_FAIL;
  xffi_arg_to_int_inline(&k, args, num_args, 0, "make_multiplier");
  int64_t *resource = malloc(sizeof *resource);
  if (!resource) return xffi_error_raise_out_of_memory();
  *resource = k;
  xffi_object *f;
  if (xffi_function_new(&f, multiply, resource, multiplier_finalize) != XFFI_OK) {
    free(resource);
    return XFFI_FAIL;
  }
  *result = xffi_any_object(f);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(make_multiplier, make_multiplier);

/* call_with(f, *rest) -> f(*rest): f may be a tvm-ffi Function (a Python
 * callable, say); its errors come back to xffi and go on to the caller. */
static int call_with(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_object *f;
  if (xffi_arg_to_object(&f, args, num_args, 0, XFFI_TYPE_FUNCTION, "call_with") != XFFI_OK) return XFFI_FAIL;
  if (xffi_function_call(f, args + 1, num_args - 1, result) != XFFI_OK)
    return xffi_error_pass("call_with: calling argument 0");
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(call_with, call_with);

/* fail(kind, message): raises an error of that kind with that message. */
static int fail(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)result;
  xffi_byte_array kind, message;
  if (xffi_arg_check_signature(args, num_args, "ss", "fail") != XFFI_OK ||
      xffi_arg_to_str(&kind, args, num_args, 0, "fail") != XFFI_OK ||
      xffi_arg_to_str(&message, args, num_args, 1, "fail") != XFFI_OK)
    return XFFI_FAIL;
  xffi_object *err;
  if (xffi_error_new_bytes(&err, kind, message) != XFFI_OK) return XFFI_FAIL;
  xffi_error_set_raised(err);
  return XFFI_FAIL;
}
XFFI_EXPORT_FUNCTION(fail, fail);

static int finalizer_runs(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_arg_check_signature(args, num_args, "", "finalizer_runs") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(atomic_load(&finalizer_count));
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(finalizer_runs, finalizer_runs);

static int tensor_deleter_runs(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_arg_check_signature(args, num_args, "", "tensor_deleter_runs") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(atomic_load(&tensor_deleter_count));
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(tensor_deleter_runs, tensor_deleter_runs);
