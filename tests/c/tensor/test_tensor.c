/* tests/c/tensor/test_tensor.c: making Tensors (xffi_tensor_new: zeroed, aligned,
 * compact, one allocation; every malformed input refused; out-of-memory) and
 * querying them (contiguity, shape, read-only, type checks). DLPack exchange
 * is in test_tensor_dlpack.c. */
#include "tensor_producer.h"
#include "test_util.h"

#include <xffi/dtype.h>
#include <xffi/shape.h>
#include "failing_allocator.h"
#include <xffi/tensor.h>

static const DLDataType f32 = {kDLFloat, 32, 1};

/* ---- xffi_tensor_new ---- */

static void test_new_is_zeroed_aligned_compact_and_one_allocation(void **state) {
  (void)state;
  int64_t shape[3] = {2, 3, 5};
  uint64_t before = failing_allocator_attempts();
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_new(&t, shape, 3, f32), XFFI_OK);
  assert_int_equal(failing_allocator_attempts() - before, 1);
  assert_int_equal(t->type_index, XFFI_TYPE_TENSOR);
  DLTensor *dl = xffi_tensor_cell_of_unchecked(t);
  assert_ptr_equal((char *)dl, (char *)t + 24); /* the cell follows the header */
  assert_int_equal((uintptr_t)dl->data % XFFI_TENSOR_ALIGNMENT, 0);
  assert_int_equal(dl->device.device_type, kDLCPU);
  assert_int_equal(dl->device.device_id, 0);
  assert_int_equal(dl->ndim, 3);
  assert_true(xffi_dtype_equal(dl->dtype, f32));
  assert_int_equal(dl->byte_offset, 0);
  assert_int_equal(dl->shape[0], 2);
  assert_int_equal(dl->shape[1], 3);
  assert_int_equal(dl->shape[2], 5);
  assert_int_equal(dl->strides[0], 15);
  assert_int_equal(dl->strides[1], 5);
  assert_int_equal(dl->strides[2], 1);
  const unsigned char *bytes = (const unsigned char *)dl->data;
  for (int i = 0; i < 30 * 4; i++) assert_int_equal(bytes[i], 0);
  ((float *)dl->data)[29] = 1.5f; /* the whole data is writable */
  int64_t numel = 0;
  uint64_t nbytes = 0;
  int flag = -1;
  assert_int_equal(xffi_tensor_numel(&numel, t), XFFI_OK);
  assert_int_equal(numel, 30);
  assert_int_equal(xffi_tensor_nbytes(&nbytes, t), XFFI_OK);
  assert_int_equal(nbytes, 120);
  assert_int_equal(xffi_tensor_is_contiguous(&flag, t), XFFI_OK);
  assert_int_equal(flag, 1);
  assert_int_equal(xffi_tensor_is_read_only(&flag, t), XFFI_OK);
  assert_int_equal(flag, 0);
  DLTensor *got = NULL;
  assert_int_equal(xffi_tensor_cell_of(&got, t), XFFI_OK);
  assert_ptr_equal(got, dl);
  xffi_object_dec_ref(t);
}

static void test_new_scalar_empty_and_sub_byte(void **state) {
  (void)state;
  xffi_object *t = NULL;
  int64_t numel;
  uint64_t nbytes;
  /* ndim 0: one element. */
  assert_int_equal(xffi_tensor_new(&t, NULL, 0, xffi_dtype_make(kDLInt, 64, 1)), XFFI_OK);
  assert_int_equal(xffi_tensor_numel(&numel, t), XFFI_OK);
  assert_int_equal(numel, 1);
  assert_int_equal(*(int64_t *)xffi_tensor_cell_of_unchecked(t)->data, 0);
  xffi_object_dec_ref(t);
  /* A zero dimension: no elements; strides stay meaningful (size 0 counts as 1). */
  int64_t empty[3] = {4, 0, 3};
  assert_int_equal(xffi_tensor_new(&t, empty, 3, f32), XFFI_OK);
  assert_int_equal(xffi_tensor_numel(&numel, t), XFFI_OK);
  assert_int_equal(numel, 0);
  assert_int_equal(xffi_tensor_cell_of_unchecked(t)->strides[0], 3);
  assert_non_null(xffi_tensor_cell_of_unchecked(t)->data);
  xffi_object_dec_ref(t);
  /* Still empty when the other dimensions' product overflows int64. */
  int64_t empty_huge[3] = {INT64_C(1) << 62, 5, 0};
  assert_int_equal(xffi_tensor_new(&t, empty_huge, 3, f32), XFFI_OK);
  assert_int_equal(xffi_tensor_numel(&numel, t), XFFI_OK);
  assert_int_equal(numel, 0);
  xffi_object_dec_ref(t);
  /* int4: 5 elements take 3 bytes; int8x4 takes 4 bytes per element. */
  int64_t five[1] = {5};
  assert_int_equal(xffi_tensor_new(&t, five, 1, xffi_dtype_make(kDLInt, 4, 1)), XFFI_OK);
  assert_int_equal(xffi_tensor_nbytes(&nbytes, t), XFFI_OK);
  assert_int_equal(nbytes, 3);
  xffi_object_dec_ref(t);
  assert_int_equal(xffi_tensor_new(&t, five, 1, xffi_dtype_make(kDLInt, 8, 4)), XFFI_OK);
  assert_int_equal(xffi_tensor_nbytes(&nbytes, t), XFFI_OK);
  assert_int_equal(nbytes, 20);
  xffi_object_dec_ref(t);
  assert_int_equal(xffi_dtype_nbytes(xffi_dtype_make(kDLInt, 4, 1)), 1);
  assert_int_equal(xffi_dtype_nbytes(xffi_dtype_make(kDLFloat, 32, 4)), 16);
}

static void test_new_rejects_malformed_input(void **state) {
  (void)state;
  xffi_object *t = (xffi_object *)0x1;
  int64_t shape[2] = {2, 3};
  int64_t neg[2] = {2, -3};
  int64_t huge[2] = {INT64_C(1) << 40, INT64_C(1) << 30};
  assert_int_equal(xffi_tensor_new(NULL, shape, 2, f32), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_new: out is NULL");
  assert_int_equal(xffi_tensor_new(&t, shape, -1, f32), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_new: ndim is -1, expected >= 0");
  assert_null(t);
  assert_int_equal(xffi_tensor_new(&t, NULL, 2, f32), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_new: shape is NULL but ndim is 2");
  assert_int_equal(xffi_tensor_new(&t, neg, 2, f32), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_new: shape[1] is -3, expected >= 0");
  assert_int_equal(xffi_tensor_new(&t, shape, 2, xffi_dtype_make(kDLFloat, 0, 1)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_new: dtype has 0 bits and 1 lanes, both must be non-zero");
  assert_int_equal(xffi_tensor_new(&t, shape, 2, xffi_dtype_make(kDLFloat, 32, 0)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_new: dtype has 32 bits and 0 lanes, both must be non-zero");
  assert_int_equal(xffi_tensor_new(&t, huge, 2, f32), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_new: the byte size of shape (2 dimensions) and dtype overflows int64");
  assert_null(t);
}

static void test_new_out_of_memory_is_clean(void **state) {
  (void)state;
  int64_t shape[1] = {8};
  xffi_object *t = (xffi_object *)0x1;
  failing_allocator_fail_after(0);
  int status = xffi_tensor_new(&t, shape, 1, f32);
  failing_allocator_fail_after(-1);
  assert_int_equal(status, XFFI_FAIL);
  assert_null(t);
  assert_raised(XFFI_KIND_MEMORY, "");
}

/* ---- Queries and type checks ---- */

static void test_contiguity_and_shape_object(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  /* A transposed 3x2 view of the 2x3 data. */
  p.shape[0] = 3;
  p.shape[1] = 2;
  p.strides[0] = 1;
  p.strides[1] = 3;
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p.managed), XFFI_OK);
  int c = -1;
  assert_int_equal(xffi_tensor_is_contiguous(&c, t), XFFI_OK);
  assert_int_equal(c, 0);
  xffi_object *shape = NULL;
  assert_int_equal(xffi_tensor_shape(&shape, t), XFFI_OK);
  int64_t expect[2] = {3, 2};
  assert_true(xffi_dims_equal(xffi_shape_cell_of_unchecked(shape)->data,
                              (int32_t)xffi_shape_cell_of_unchecked(shape)->size, expect, 2));
  xffi_object_dec_ref(shape);
  xffi_object_dec_ref(t);
  /* Dimensions of size 1 may have any stride. */
  producer_init(&p);
  p.shape[0] = 1;
  p.strides[0] = 999;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p.managed), XFFI_OK);
  assert_int_equal(xffi_tensor_is_contiguous(&c, t), XFFI_OK);
  assert_int_equal(c, 1);
  xffi_any v = xffi_any_object(t);
  assert_string_equal(xffi_any_kind_name(&v), "ffi.Tensor");
  xffi_any_release(&v);
  assert_int_equal(p.deleted, 1); /* the second producer's deleter */
}

static void test_queries_reject_null_and_non_tensors(void **state) {
  (void)state;
  xffi_object *s = NULL;
  assert_int_equal(xffi_string_from_c_str(&s, "a string"), XFFI_OK);
  int i;
  int64_t n;
  uint64_t u;
  DLTensor *dl;
  xffi_object *o;
  DLManagedTensorVersioned *m;
  DLManagedTensor *lm;
  assert_int_equal(xffi_tensor_is_read_only(&i, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_is_read_only: tensor expected ffi.Tensor, got ffi.String");
  assert_int_equal(xffi_tensor_is_read_only(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_is_read_only: out is NULL");
  assert_int_equal(xffi_tensor_set_read_only(s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_set_read_only: tensor expected ffi.Tensor, got ffi.String");
  assert_int_equal(xffi_tensor_set_read_only(NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_set_read_only: tensor is NULL");
  assert_int_equal(xffi_tensor_cell_of(&dl, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_cell_of: tensor expected ffi.Tensor, got ffi.String");
  assert_int_equal(xffi_tensor_cell_of(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_cell_of: out is NULL");
  assert_int_equal(xffi_tensor_numel(&n, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_numel: tensor expected ffi.Tensor, got ffi.String");
  assert_int_equal(xffi_tensor_numel(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_numel: out is NULL");
  assert_int_equal(xffi_tensor_nbytes(&u, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_nbytes: tensor expected ffi.Tensor, got ffi.String");
  assert_int_equal(xffi_tensor_nbytes(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_nbytes: out is NULL");
  assert_int_equal(xffi_tensor_is_contiguous(&i, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_is_contiguous: tensor expected ffi.Tensor, got ffi.String");
  assert_int_equal(xffi_tensor_is_contiguous(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_is_contiguous: out is NULL");
  assert_int_equal(xffi_tensor_shape(&o, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_shape: tensor expected ffi.Tensor, got ffi.String");
  assert_int_equal(xffi_tensor_shape(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_shape: out is NULL");
  assert_int_equal(xffi_tensor_to_dlpack(&m, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_to_dlpack: tensor expected ffi.Tensor, got ffi.String");
  assert_int_equal(xffi_tensor_to_dlpack(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_to_dlpack: out is NULL");
  assert_int_equal(xffi_tensor_to_dlpack(&m, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_to_dlpack: tensor is NULL");
  assert_int_equal(xffi_tensor_to_dlpack_legacy(&lm, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_to_dlpack_legacy: tensor expected ffi.Tensor, got ffi.String");
  assert_int_equal(xffi_tensor_to_dlpack_legacy(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_to_dlpack_legacy: out is NULL");
  xffi_object_dec_ref(s);
  assert_nothing_raised();
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_new_is_zeroed_aligned_compact_and_one_allocation),
      cmocka_unit_test(test_new_scalar_empty_and_sub_byte),
      cmocka_unit_test(test_new_rejects_malformed_input),
      cmocka_unit_test(test_new_out_of_memory_is_clean),
      cmocka_unit_test(test_contiguity_and_shape_object),
      cmocka_unit_test(test_queries_reject_null_and_non_tensors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
