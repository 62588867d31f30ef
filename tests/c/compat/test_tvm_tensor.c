/* tvm-ffi's tensor functions: DLPack import with require_alignment and
 * require_contiguous (checked before anything is taken: on failure the
 * caller keeps `from`), export, round trips, unsafe views, bad input. */
#include "failing_allocator.h"

#include "tensor_producer.h"

#include <xffi/tvm_ffi.h>

static void test_from_dlpack_takes_ownership(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  void *t = NULL;
  assert_int_equal(TVMFFITensorFromDLPackVersioned(&p.managed, 4, 1, &t), 0);
  assert_int_equal(((xffi_object *)t)->type_index, XFFI_TYPE_TENSOR);
  const DLTensor *dl = xffi_tensor_cell_of_unchecked(t);
  assert_ptr_equal(dl->data, p.data);
  assert_int_equal(dl->shape[1], 3);
  assert_int_equal(p.deleted, 0);
  TVMFFIObjectDecRef(t);
  assert_int_equal(p.deleted, 1);
  assert_int_equal(TVMFFITensorFromDLPack(&p.legacy, 0, 0, &t), 0);
  TVMFFIObjectDecRef(t);
  assert_int_equal(p.legacy_deleted, 1);
}

static void test_requirements_fail_before_taking_from(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  void *t = (void *)0x1;
  /* Misaligned: data + byte_offset is 4 past a 16-byte boundary at best. */
  p.managed.dl_tensor.byte_offset = 4;
  p.legacy.dl_tensor.byte_offset = 4;
  if ((uintptr_t)p.data % 8 == 0) {
    assert_int_equal(TVMFFITensorFromDLPackVersioned(&p.managed, 8, 0, &t), -1);
    assert_null(t);
    expect_error(XFFI_KIND_RUNTIME, "FromDLPack: Data is not aligned to 8 bytes.");
    assert_int_equal(TVMFFITensorFromDLPack(&p.legacy, 8, 0, &t), -1);
    expect_error(XFFI_KIND_RUNTIME, "FromDLPack: Data is not aligned to 8 bytes.");
  }
  /* Off the host, only byte_offset counts. */
  p.managed.dl_tensor.device = xffi_device_make(kDLVulkan, 0);
  assert_int_equal(TVMFFITensorFromDLPackVersioned(&p.managed, 8, 0, &t), -1);
  expect_error(XFFI_KIND_RUNTIME, "FromDLPack: Data is not aligned to 8 bytes.");
  p.managed.dl_tensor.device = xffi_device_make(kDLCPU, 0);
  p.managed.dl_tensor.byte_offset = 0;
  /* Not contiguous: transposed strides. */
  p.strides[0] = 1;
  p.strides[1] = 2;
  p.managed.dl_tensor.strides = p.strides;
  assert_int_equal(TVMFFITensorFromDLPackVersioned(&p.managed, 0, 1, &t), -1);
  expect_error(XFFI_KIND_RUNTIME, "FromDLPack: Tensor is not contiguous.");
  p.legacy.dl_tensor.byte_offset = 0;
  assert_int_equal(TVMFFITensorFromDLPack(&p.legacy, 0, 1, &t), -1);
  expect_error(XFFI_KIND_RUNTIME, "FromDLPack: Tensor is not contiguous.");
  /* Without the requirement the same tensor is accepted. */
  assert_int_equal(TVMFFITensorFromDLPackVersioned(&p.managed, 0, 0, &t), 0);
  TVMFFIObjectDecRef(t);
  /* Extent-1 dimensions and NULL strides are contiguous whatever their stride. */
  p.shape[0] = 1;
  p.strides[0] = 99;
  p.strides[1] = 1;
  assert_int_equal(TVMFFITensorFromDLPackVersioned(&p.managed, 0, 1, &t), 0);
  TVMFFIObjectDecRef(t);
  p.managed.dl_tensor.strides = NULL;
  assert_int_equal(TVMFFITensorFromDLPackVersioned(&p.managed, 0, 1, &t), 0);
  TVMFFIObjectDecRef(t);
  assert_int_equal(p.deleted, 3); /* the failures above took nothing */
  assert_int_equal(p.legacy_deleted, 0);
}

static void test_from_dlpack_bad_input(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  void *t = NULL;
  assert_int_equal(TVMFFITensorFromDLPackVersioned(NULL, 0, 0, &t), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFITensorFromDLPackVersioned: from is NULL");
  assert_int_equal(TVMFFITensorFromDLPack(&p.legacy, 0, 0, NULL), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFITensorFromDLPack: out is NULL");
  assert_int_equal(TVMFFITensorFromDLPack(&p.legacy, -8, 0, &t), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFITensorFromDLPack: require_alignment is -8, expected >= 0");
  p.managed.flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  assert_int_equal(TVMFFITensorFromDLPackVersioned(&p.managed, 0, 0, &t), -1);
  expect_error(XFFI_KIND_RUNTIME, "TVMFFITensorFromDLPackVersioned: Subbyte type padded is not yet supported");
  p.managed.flags = 0;
  p.managed.dl_tensor.shape = NULL; /* ndim 2 */
  assert_int_equal(TVMFFITensorFromDLPackVersioned(&p.managed, 0, 1, &t), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFITensorFromDLPackVersioned: shape is NULL but ndim is 2");
  assert_int_equal(TVMFFITensorFromDLPackVersioned(&p.managed, 0, 0, &t), -1);
  assert_raised(XFFI_KIND_VALUE, "shape"); /* xffi's validation */
  p.managed.dl_tensor.shape = p.shape;
  p.shape[0] = -1;
  assert_int_equal(TVMFFITensorFromDLPackVersioned(&p.managed, 0, 0, &t), -1);
  assert_raised(XFFI_KIND_VALUE, "shape[0] is -1, expected >= 0");
  assert_int_equal(p.deleted, 0);
  failing_allocator_fail_after(0);
  p.shape[0] = 2;
  assert_int_equal(TVMFFITensorFromDLPackVersioned(&p.managed, 0, 0, &t), -1);
  failing_allocator_fail_after(-1);
  assert_raised(XFFI_KIND_MEMORY, "out of memory");
  assert_int_equal(p.deleted, 0);
}

static void test_to_dlpack_and_back(void **state) {
  (void)state;
  int64_t shape[] = {4, 5};
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_new(&t, shape, 2, (DLDataType){kDLFloat, 32, 1}), XFFI_OK);
  DLManagedTensorVersioned *v = NULL;
  assert_int_equal(TVMFFITensorToDLPackVersioned(t, &v), 0);
  assert_int_equal(xffi_object_strong_count(t), 2); /* the export holds one */
  void *back = NULL;
  assert_int_equal(TVMFFITensorFromDLPackVersioned(v, 64, 1, &back), 0);
  assert_ptr_equal(back, t); /* the same Tensor again */
  TVMFFIObjectDecRef(back);
  DLManagedTensor *legacy = NULL;
  assert_int_equal(TVMFFITensorToDLPack(t, &legacy), 0);
  assert_int_equal(legacy->dl_tensor.shape[1], 5);
  legacy->deleter(legacy);
  assert_int_equal(xffi_object_strong_count(t), 1);
  assert_int_equal(TVMFFITensorToDLPack(t, NULL), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFITensorToDLPack: out is NULL");
  xffi_object *s = NULL;
  assert_int_equal(xffi_string_from_c_str(&s, "not a tensor at all"), XFFI_OK);
  assert_int_equal(TVMFFITensorToDLPackVersioned(s, &v), -1);
  assert_null(v);
  assert_raised(XFFI_KIND_TYPE, "expected ffi.Tensor, got ffi.String");
  assert_int_equal(TVMFFITensorToDLPack(NULL, &legacy), -1);
  assert_raised(XFFI_KIND_VALUE, "is NULL");
  xffi_object_dec_ref(s);
  xffi_object_dec_ref(t);
}

static void test_unsafe_view(void **state) {
  (void)state;
  int64_t shape[] = {4, 6};
  xffi_object *source = NULL;
  assert_int_equal(xffi_tensor_new(&source, shape, 2, (DLDataType){kDLFloat, 32, 1}), XFFI_OK);
  const DLTensor *whole = xffi_tensor_cell_of_unchecked(source);
  /* Column 2 of the 4x6 source: shape {4}, stride 6, offset 8 bytes. */
  int64_t view_shape[] = {4}, view_strides[] = {6};
  DLTensor proto = *whole;
  proto.ndim = 1;
  proto.shape = view_shape;
  proto.strides = view_strides;
  proto.byte_offset = 8;
  void *view = NULL;
  assert_int_equal(TVMFFITensorCreateUnsafeView(source, &proto, &view), 0);
  assert_int_equal(xffi_object_strong_count(source), 2); /* the view keeps the source */
  const DLTensor *v = xffi_tensor_cell_of_unchecked(view);
  assert_ptr_equal(v->data, whole->data);
  assert_int_equal(v->byte_offset, 8);
  assert_int_equal(v->shape[0], 4);
  assert_int_equal(v->strides[0], 6);
  assert_ptr_not_equal(v->shape, view_shape); /* copied into the view */
  view_shape[0] = 99;
  assert_int_equal(v->shape[0], 4);
  /* The view is allocated by the runtime's allocator, with the header. */
  assert_non_null(((xffi_object_alloc_header *)view - 1)->delete_space);
  xffi_object_dec_ref(source);
  assert_int_equal(xffi_object_strong_count(source), 1); /* alive through the view */
  TVMFFIObjectDecRef(view);                              /* frees both */
  /* NULL strides: compact strides are made. */
  assert_int_equal(xffi_tensor_new(&source, shape, 2, (DLDataType){kDLFloat, 32, 1}), XFFI_OK);
  proto = *xffi_tensor_cell_of_unchecked(source);
  proto.strides = NULL;
  assert_int_equal(TVMFFITensorCreateUnsafeView(source, &proto, &view), 0);
  assert_int_equal(xffi_tensor_cell_of_unchecked(view)->strides[0], 6);
  TVMFFIObjectDecRef(view);
  xffi_object_dec_ref(source);
}

static void test_unsafe_view_bad_input(void **state) {
  (void)state;
  int64_t shape[] = {2};
  xffi_object *source = NULL, *s = NULL;
  assert_int_equal(xffi_tensor_new(&source, shape, 1, (DLDataType){kDLFloat, 32, 1}), XFFI_OK);
  DLTensor proto = *xffi_tensor_cell_of_unchecked(source);
  void *view = (void *)0x1;
  assert_int_equal(TVMFFITensorCreateUnsafeView(NULL, &proto, &view), -1);
  assert_null(view);
  expect_error(XFFI_KIND_VALUE, "TVMFFITensorCreateUnsafeView: source is NULL");
  assert_int_equal(xffi_string_from_c_str(&s, "a string, not a tensor"), XFFI_OK);
  assert_int_equal(TVMFFITensorCreateUnsafeView(s, &proto, &view), -1);
  expect_error(XFFI_KIND_TYPE, "TVMFFITensorCreateUnsafeView: source expected ffi.Tensor, got ffi.String");
  assert_int_equal(TVMFFITensorCreateUnsafeView(source, NULL, &view), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFITensorCreateUnsafeView: prototype is NULL");
  assert_int_equal(TVMFFITensorCreateUnsafeView(source, &proto, NULL), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFITensorCreateUnsafeView: out is NULL");
  proto.ndim = -1;
  assert_int_equal(TVMFFITensorCreateUnsafeView(source, &proto, &view), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFITensorCreateUnsafeView: prototype->ndim is -1, expected >= 0");
  proto.ndim = 1;
  proto.shape = NULL;
  assert_int_equal(TVMFFITensorCreateUnsafeView(source, &proto, &view), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFITensorCreateUnsafeView: prototype->shape is NULL but prototype->ndim is 1");
  proto = *xffi_tensor_cell_of_unchecked(source);
  failing_allocator_fail_after(0);
  assert_int_equal(TVMFFITensorCreateUnsafeView(source, &proto, &view), -1);
  failing_allocator_fail_after(-1);
  assert_raised(XFFI_KIND_MEMORY, "out of memory");
  assert_int_equal(xffi_object_strong_count(source), 1); /* nothing kept */
  xffi_object_dec_ref(s);
  xffi_object_dec_ref(source);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_from_dlpack_takes_ownership),
      cmocka_unit_test(test_requirements_fail_before_taking_from),
      cmocka_unit_test(test_from_dlpack_bad_input),
      cmocka_unit_test(test_to_dlpack_and_back),
      cmocka_unit_test(test_unsafe_view),
      cmocka_unit_test(test_unsafe_view_bad_input),
  };
  return cmocka_run_group_tests_name("tvm_tensor", tests, NULL, NULL);
}
