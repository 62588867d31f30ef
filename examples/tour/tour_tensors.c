/* The tour: dtypes and devices as text, Shapes, Tensors, and DLPack 1.x
 * exchange with a (pretend) framework, zero copy both ways. */
#include <stdlib.h>
#include <xffi/xffi.h>
#include <xffi/dtype.h>
#include <xffi/shape.h>
#include <xffi/tensor.h>
#include <xffi/sys/object.h>
#include <xffi/sys/shape.h>
#include <xffi/sys/tensor.h>

#include "tour.h"

/* A one-line description of a Tensor: dtype, device, shape, strides. */
static void describe(const char *label, xffi_object *tensor) {
  const DLTensor *dl = xffi_tensor_cell_of_unchecked(tensor);
  char dtype[XFFI_DTYPE_STR_MAX], device[XFFI_DEVICE_STR_MAX];
  xffi_dtype_to_str(dtype, sizeof dtype, dl->dtype);
  xffi_device_to_str(device, sizeof device, dl->device);
  int read_only = 0;
  xffi_tensor_is_read_only(&read_only, tensor);
  printf("  %-12s %s on %s, shape (", label, dtype, device);
  for (int i = 0; i < dl->ndim; i++) printf("%s%lld", i ? ", " : "", (long long)dl->shape[i]);
  printf("), strides (");
  for (int i = 0; i < dl->ndim; i++) printf("%s%lld", i ? ", " : "", (long long)dl->strides[i]);
  printf(")%s\n", read_only ? ", read-only" : "");
}

/* A pretend framework that hands out a 2x3 float32 buffer through DLPack. */
typedef struct framework_buffer {
  DLManagedTensorVersioned managed;
  int64_t shape[2];
  float data[6];
} framework_buffer;

static int framework_frees;

static void framework_deleter(DLManagedTensorVersioned *self) {
  framework_frees++;
  free(self->manager_ctx);
}

static DLManagedTensorVersioned *framework_export(void) {
  framework_buffer *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  for (int i = 0; i < 6; i++) b->data[i] = (float)i * 1.5f;
  b->shape[0] = 2;
  b->shape[1] = 3;
  b->managed.version.major = 1;
  b->managed.manager_ctx = b;
  b->managed.deleter = framework_deleter;
  b->managed.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  DLTensor dl = {b->data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, b->shape, NULL, 0}; /* NULL strides: compact */
  b->managed.dl_tensor = dl;
  return &b->managed;
}

void tour_tensors(void) {
  tour_heading("Tensors: dtypes, Shapes, DLPack 1.x");

  /* dtype and device text, both ways. */
  const char *names[] = {"float32", "int8x4", "bfloat16", "float8_e4m3fn"};
  for (int i = 0; i < 4; i++) {
    DLDataType t;
    xffi_dtype_parse(&t, names[i]);
    printf("  dtype %-14s = code %u, %u bits, %u lanes\n", names[i], (unsigned)t.code, (unsigned)t.bits,
           (unsigned)t.lanes);
  }
  DLDevice dev;
  xffi_device_parse(&dev, "cuda:1");
  printf("  device \"cuda:1\" = type %d, id %d\n", (int)dev.device_type, (int)dev.device_id);
  DLDataType bad;
  if (xffi_dtype_parse(&bad, "float31") != XFFI_OK) tour_show_error("xffi_dtype_parse(\"float31\")", 30);

  /* A Shape: int64 dims inline in one object. */
  int64_t dims[3] = {2, 3, 4};
  xffi_object *shape = NULL;
  int64_t numel = 0;
  xffi_shape_new(&shape, dims, 3);
  xffi_shape_product(&numel, shape);
  printf("  Shape (2, 3, 4): %zu dims, %lld elements\n", xffi_shape_cell_of_unchecked(shape)->size, (long long)numel);
  xffi_object_dec_ref(shape);

  /* A new CPU tensor: zero-filled, 64-byte aligned, strides filled in. */
  xffi_object *t = NULL;
  xffi_tensor_new(&t, dims, 3, xffi_dtype_make(kDLFloat, 32, 1));
  describe("new:", t);
  printf("  %-12s data %% 64 = %u, first element %.1f\n", "",
         (unsigned)((uintptr_t)xffi_tensor_cell_of_unchecked(t)->data % 64),
         ((float *)xffi_tensor_cell_of_unchecked(t)->data)[0]);

  /* Export it: the consumer gets the same memory and keeps the tensor alive. */
  DLManagedTensorVersioned *out = NULL;
  xffi_tensor_to_dlpack(&out, t);
  printf("  exported:    same data pointer: %s; tensor strong count now %u\n",
         out->dl_tensor.data == xffi_tensor_cell_of_unchecked(t)->data ? "yes" : "no", xffi_object_strong_count(t));
  xffi_object_dec_ref(t); /* our reference goes first; the consumer's keeps it */
  ((float *)out->dl_tensor.data)[0] = 7.0f;
  out->deleter(out); /* the consumer is done: now the tensor is freed */
  printf("  the consumer wrote 7.0 after we let go, then called the deleter: tensor freed\n");

  /* Import from a framework: zero copy; its deleter runs once, at the end. */
  DLManagedTensorVersioned *in = framework_export();
  xffi_object *imported = NULL;
  if (!in || xffi_tensor_from_dlpack(&imported, in) != XFFI_OK) {
    tour_show_error("xffi_tensor_from_dlpack", 30);
    return;
  }
  describe("imported:", imported);
  printf("  %-12s element [1][2] = %.1f, read straight from the framework's buffer\n", "",
         ((float *)xffi_tensor_cell_of_unchecked(imported)->data)[5]);
  DLManagedTensor *legacy = NULL;
  if (xffi_tensor_to_dlpack_legacy(&legacy, imported) != XFFI_OK) tour_show_error("export read-only as legacy", 30);
  xffi_any held = xffi_any_object(imported); /* a Tensor travels in an Any like any object */
  printf("  in an Any it is a %s; framework frees so far: %d\n", xffi_any_kind_name(&held), framework_frees);
  xffi_any_release(&held);
  printf("  after the last release, framework frees: %d\n", framework_frees);

  /* Malformed input is a clear error, never a crash. */
  int64_t negative[2] = {2, -3};
  if (xffi_tensor_new(&t, negative, 2, xffi_dtype_make(kDLFloat, 32, 1)) != XFFI_OK)
    tour_show_error("xffi_tensor_new(shape (2, -3))", 30);
}
