/* tests/c/helpers/tensor_producer.h: a fake DLPack producer for the Tensor tests: a
 * managed tensor (DLPack 1.x and legacy) on the test's stack whose deleters
 * count their calls. */
#ifndef XFFI_TEST_TENSOR_PRODUCER_H
#define XFFI_TEST_TENSOR_PRODUCER_H

#include "test_util.h"

#include <xffi/dtype.h>
#include <xffi/tensor.h>

typedef struct producer {
  DLManagedTensorVersioned managed;
  DLManagedTensor legacy;
  int64_t shape[4];
  int64_t strides[4];
  float data[64];
  int deleted;        /* times the versioned deleter ran */
  int legacy_deleted; /* times the legacy deleter ran */
} producer;

static inline void producer_deleter(DLManagedTensorVersioned *self) { ((producer *)self->manager_ctx)->deleted++; }
static inline void producer_legacy_deleter(DLManagedTensor *self) { ((producer *)self->manager_ctx)->legacy_deleted++; }

/* A 2x3 float32 tensor, compact, with explicit strides. */
static inline void producer_init(producer *p) {
  memset(p, 0, sizeof(*p));
  for (int i = 0; i < 64; i++) p->data[i] = (float)i;
  p->shape[0] = 2;
  p->shape[1] = 3;
  p->strides[0] = 3;
  p->strides[1] = 1;
  DLTensor dl;
  dl.data = p->data;
  dl.device = xffi_device_make(kDLCPU, 0);
  dl.ndim = 2;
  dl.dtype = (DLDataType){kDLFloat, 32, 1};
  dl.shape = p->shape;
  dl.strides = p->strides;
  dl.byte_offset = 0;
  p->managed.version.major = 1;
  p->managed.version.minor = 0;
  p->managed.manager_ctx = p;
  p->managed.deleter = producer_deleter;
  p->managed.flags = 0;
  p->managed.dl_tensor = dl;
  p->legacy.dl_tensor = dl;
  p->legacy.manager_ctx = p;
  p->legacy.deleter = producer_legacy_deleter;
}

/* Whether a weak reference's object has been destroyed. */
static inline int is_destroyed(xffi_weak *w) {
  xffi_object *o = NULL;
  assert_int_equal(xffi_weak_lock(&o, w), XFFI_OK);
  if (!o) return 1;
  xffi_object_dec_ref(o);
  return 0;
}

#endif /* XFFI_TEST_TENSOR_PRODUCER_H */
