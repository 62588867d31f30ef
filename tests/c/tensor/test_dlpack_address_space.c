/* DLPack import refuses a tensor whose bytes do not lie within the address
 * space: a byte_offset that wraps data + byte_offset past the end, strides
 * that reach below address 0, or an extent that runs past the end. Such a
 * descriptor is nonsense from the producer, and a consumer doing the usual
 * pointer arithmetic would read memory far from the tensor. Both the
 * versioned and the legacy checked imports, each with a precise ValueError;
 * the producer keeps ownership (its deleter is not called). */
#include "test_util.h"

#include <xffi/dtype.h>
#include <xffi/tensor.h>

typedef struct producer {
  DLManagedTensorVersioned managed;
  DLManagedTensor legacy;
  int64_t shape[2];
  int64_t strides[2];
  int deleted;
} producer;

static void deleter_versioned(DLManagedTensorVersioned *self) { ((producer *)self->manager_ctx)->deleted++; }
static void deleter_legacy(DLManagedTensor *self) { ((producer *)self->manager_ctx)->deleted++; }

/* A 2x3 float32 tensor (24 bytes) at `data`, compact, with explicit strides
 * when `strided`. xffi never reads the data, so any address will do. */
static void producer_init(producer *p, uintptr_t data, uint64_t byte_offset, int strided) {
  memset(p, 0, sizeof(*p));
  p->shape[0] = 2;
  p->shape[1] = 3;
  p->strides[0] = 3;
  p->strides[1] = 1;
  DLTensor dl;
  memset(&dl, 0, sizeof(dl));
  dl.data = (void *)data;
  dl.device = xffi_device_make(kDLCPU, 0);
  dl.ndim = 2;
  dl.dtype = xffi_dtype_make(kDLFloat, 32, 1);
  dl.shape = p->shape;
  dl.strides = strided ? p->strides : NULL;
  dl.byte_offset = byte_offset;
  p->managed.version.major = 1;
  p->managed.manager_ctx = p;
  p->managed.deleter = deleter_versioned;
  p->managed.dl_tensor = dl;
  p->legacy.dl_tensor = dl;
  p->legacy.manager_ctx = p;
  p->legacy.deleter = deleter_legacy;
}

/* Both checked imports refuse p with a ValueError containing fragment. */
static void check_refused(producer *p, const char *fragment) {
  xffi_object *t = (xffi_object *)0x1;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p->managed), XFFI_FAIL);
  assert_null(t);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_from_dlpack: ");
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p->managed), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, fragment);
  t = (xffi_object *)0x1;
  assert_int_equal(xffi_tensor_from_dlpack_legacy(&t, &p->legacy), XFFI_FAIL);
  assert_null(t);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_from_dlpack_legacy: ");
  assert_int_equal(xffi_tensor_from_dlpack_legacy(&t, &p->legacy), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, fragment);
  assert_int_equal(p->deleted, 0);
}

/* Both checked imports accept p; the Tensors keep byte_offset as given. */
static void check_accepted(producer *p) {
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p->managed), XFFI_OK);
  assert_true(xffi_tensor_cell_of_unchecked(t)->byte_offset == p->managed.dl_tensor.byte_offset);
  xffi_object_dec_ref(t);
  assert_int_equal(xffi_tensor_from_dlpack_legacy(&t, &p->legacy), XFFI_OK);
  xffi_object_dec_ref(t);
  assert_int_equal(p->deleted, 2);
}

static void test_byte_offset_that_wraps_is_refused(void **state) {
  (void)state;
  static float data[6];
  producer p;
  for (int strided = 0; strided < 2; strided++) {
    producer_init(&p, (uintptr_t)data, UINT64_MAX, strided);
    check_refused(&p, "byte_offset 18446744073709551615 added to data");
    producer_init(&p, (uintptr_t)data, UINT64_MAX - (uintptr_t)data + 1, strided); /* exactly 2^64: wraps to 0 */
    check_refused(&p, "wraps past the end of the address space");
  }
}

static void test_extent_that_wraps_past_the_end_is_refused(void **state) {
  (void)state;
  producer p;
  for (int strided = 0; strided < 2; strided++) {
    /* 24 bytes from 16 below the top of the address space. */
    producer_init(&p, UINTPTR_MAX - 15, 0, strided);
    check_refused(&p, "the tensor's 24 bytes from data + byte_offset");
    /* A fine data pointer moved there by byte_offset. */
    producer_init(&p, 4096, (uint64_t)(UINTPTR_MAX - 4096 - 15), strided);
    check_refused(&p, "the tensor's 24 bytes from data + byte_offset");
  }
  /* A stride whose extent fits int64 (in bits) yet wraps: one row step of
   * 2^59 bytes from 2^58 bytes below the top. */
  producer_init(&p, UINTPTR_MAX - ((uintptr_t)1 << (sizeof(uintptr_t) * 8 > 32 ? 58 : 26)), 0, 1);
  p.strides[0] = (int64_t)1 << (sizeof(uintptr_t) * 8 > 32 ? 57 : 25);
  check_refused(&p, "wrap past the end of the address space");
}

static void test_negative_strides_below_address_zero_are_refused(void **state) {
  (void)state;
  producer p;
  producer_init(&p, 8, 0, 1);
  p.strides[0] = -3; /* the first row sits 12 bytes below the base, at 8 - 12 */
  check_refused(&p, "negative strides reach 12 bytes below data + byte_offset");
  producer_init(&p, 8, 4, 1);
  p.strides[0] = -3; /* 12 - 12 = 0: addressable (however odd) */
  check_accepted(&p);
}

static void test_tensors_up_to_the_edges_are_accepted(void **state) {
  (void)state;
  producer p;
  for (int strided = 0; strided < 2; strided++) {
    producer_init(&p, UINTPTR_MAX - 24, 0, strided); /* its last byte at UINTPTR_MAX - 1 */
    check_accepted(&p);
    producer_init(&p, 0, 0, strided); /* an empty tensor: NULL data, offset up to the top */
    p.shape[0] = 0;
    p.managed.dl_tensor.byte_offset = p.legacy.dl_tensor.byte_offset = (uint64_t)UINTPTR_MAX;
    check_accepted(&p);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_byte_offset_that_wraps_is_refused),
      cmocka_unit_test(test_extent_that_wraps_past_the_end_is_refused),
      cmocka_unit_test(test_negative_strides_below_address_zero_are_refused),
      cmocka_unit_test(test_tensors_up_to_the_edges_are_accepted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
