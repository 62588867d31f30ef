/* tests/c/runtime/test_fuzz_regressions.c: every crash the fuzzers of tests/fuzz/
 * found, as a plain test that runs in every build (and under the sanitizers).
 * Each test names the target that found it and what went wrong. */
#include "test_util.h"

typedef struct foreign_object {
  xffi_object header;
} foreign_object;

static void never_deleted(void *self, int flags) {
  (void)self, (void)flags;
  fail_msg("the foreign object's deleter ran");
}

/* An object from another runtime whose header carries a type index no type
 * has (index 100: above the built-ins, below the dynamic types).
 * Found by fuzz_any: xffi_arg_to_object checked the index against
 * xffi_type_count() but not for a missing record, and read through the NULL
 * record of index 100 (segfault; UBSan "member access within null pointer"). */
static void test_arg_get_object_refuses_object_of_unregistered_type_index(void **state) {
  (void)state;
  foreign_object foreign;
  xffi_object_init(&foreign.header, 100, never_deleted);
  xffi_any arg = xffi_any_object(&foreign.header);
  xffi_object *out = (xffi_object *)0x1;
  int32_t base = 0;
  assert_int_equal(xffi_type_register(&base, "fuzz_regressions.Base", XFFI_TYPE_OBJECT), XFFI_OK);

  assert_int_equal(xffi_arg_to_object(&out, &arg, 1, 0, base, "my_fn"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "my_fn: argument 0: expected fuzz_regressions.Base, got <unregistered type>");
  assert_int_equal(xffi_arg_to_object(&out, &arg, 1, 0, XFFI_TYPE_STRING, "my_fn"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "my_fn: argument 0: expected ffi.String");
  assert_ptr_equal(out, (xffi_object *)0x1);

  /* The same index in the dynamic range beyond the last registered type. */
  foreign.header.type_index = xffi_type_count() + 5;
  arg = xffi_any_object(&foreign.header);
  assert_int_equal(xffi_arg_to_object(&out, &arg, 1, 0, base, "my_fn"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "my_fn: argument 0: expected fuzz_regressions.Base");

  /* The other checked conversions agree. */
  foreign.header.type_index = 100;
  arg = xffi_any_object(&foreign.header);
  assert_int_equal(xffi_any_to_object(&out, &arg, base), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_any_to_object: expected fuzz_regressions.Base");
  int is = -1;
  assert_int_equal(xffi_object_is_a(&is, &foreign.header, base), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_object_is_a: obj has type index 100");
  assert_int_equal(is, -1);
  assert_int_equal(xffi_object_strong_count(&foreign.header), 1);
}

/* An empty tensor (one dimension 0) whose other dimensions multiply past
 * int64. Its element count is 0, so it is valid, but found by fuzz_dlpack:
 * the compact strides computed for NULL strides (tensor.c compact_strides),
 * xffi_tensor_numel and xffi_tensor_is_contiguous multiplied the other
 * dimensions with signed overflow (undefined behaviour; UBSan "signed
 * integer overflow"). */
static int empty_deleter_calls;
static void count_legacy_deleter(DLManagedTensor *self) {
  (void)self;
  empty_deleter_calls++;
}

static void check_empty_huge(xffi_object *t) {
  int64_t numel = -1;
  assert_int_equal(xffi_tensor_numel(&numel, t), XFFI_OK);
  assert_int_equal(numel, 0);
  uint64_t nbytes = 1;
  assert_int_equal(xffi_tensor_nbytes(&nbytes, t), XFFI_OK);
  assert_int_equal(nbytes, 0);
  int contiguous = -1;
  assert_int_equal(xffi_tensor_is_contiguous(&contiguous, t), XFFI_OK);
  assert_int_equal(contiguous, 1);
  const DLTensor *dl = xffi_tensor_cell_of_unchecked(t);
  assert_non_null(dl->strides);
  assert_int_equal(dl->strides[dl->ndim - 1], 1);
}

static void test_empty_tensor_with_huge_other_dimensions_has_no_overflow(void **state) {
  (void)state;
  const int64_t shapes[][3] = {{0, INT64_C(1) << 62, 4}, {4, INT64_C(1) << 62, 0}, {INT64_MAX, 0, INT64_MAX}};
  DLDataType f32 = xffi_dtype_make(kDLFloat, 32, 1);
  for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); ++k) {
    int64_t shape[3];
    memcpy(shape, shapes[k], sizeof(shape));
    xffi_object *t = NULL;
    assert_int_equal(xffi_tensor_new(&t, shape, 3, f32), XFFI_OK);
    check_empty_huge(t);
    xffi_object_dec_ref(t);

    empty_deleter_calls = 0;
    DLManagedTensor m;
    memset(&m, 0, sizeof(m));
    m.dl_tensor.ndim = 3;
    m.dl_tensor.shape = shape;
    m.dl_tensor.strides = NULL;
    m.dl_tensor.dtype = f32;
    m.dl_tensor.device = xffi_device_make(kDLCPU, 0);
    m.deleter = count_legacy_deleter;
    assert_int_equal(xffi_tensor_from_dlpack_legacy(&t, &m), XFFI_OK);
    check_empty_huge(t);
    xffi_object_dec_ref(t);
    assert_int_equal(empty_deleter_calls, 1);
  }
}

/* Slices of an empty List made with capacity 0 (new or with_capacity).
 * Found by fuzz_containers on a work-in-progress of issue 12 (Lists in a
 * separate buffer), which left such a List's data NULL: xffi_list_slice
 * offset it by begin (UBSan "applying zero offset to null pointer"). Lists
 * now always have a buffer, and slicing indexes instead of offsetting. */
static void test_slice_of_empty_list_offsets_no_null_pointer(void **state) {
  (void)state;
  xffi_object *lists[2] = {NULL, NULL}, *slice = NULL;
  assert_int_equal(xffi_list_new(&lists[0], NULL, 0), XFFI_OK);
  assert_int_equal(xffi_list_new_with_capacity(&lists[1], 0), XFFI_OK);
  for (int i = 0; i < 2; i++) {
    assert_non_null(xffi_seq_items_unchecked(lists[i]));
    assert_int_equal(xffi_list_slice(&slice, lists[i], 0, 0), XFFI_OK);
    assert_int_equal(xffi_seq_size_unchecked(slice), 0);
    xffi_object_dec_ref(slice);
    xffi_object_dec_ref(lists[i]);
  }
}

/* A Device whose type is outside the enum, as tvm-ffi's JSON graph reads
 * [-2, 1]. Found by fuzz_json_graph (read, write, read again failed): both
 * graph writers widened the type as an unsigned C enum and wrote
 * 4294967294, which no reader takes as an int32. They now write the int32,
 * as tvm-ffi does. */
static void test_negative_device_type_writes_back_as_int32(void **state) {
  (void)state;
  static const char text[] = "{\"root_index\":0,\"nodes\":[{\"type\":\"Device\",\"data\":[-2,1]}]}";
  xffi_any value = xffi_any_none(), graph = xffi_any_none();
  assert_int_equal(xffi_from_json_text(&value, text, strlen(text)), XFFI_OK);
  assert_int_equal(value.type_index, XFFI_TYPE_DEVICE);
  assert_int_equal((int32_t)value.v_device.device_type, -2);
  xffi_object *by_text = NULL, *by_value = NULL;
  assert_int_equal(xffi_to_json_text(&by_text, &value, NULL), XFFI_OK);
  assert_string_equal(xffi_string_cell_of_unchecked(by_text).data, text);
  assert_int_equal(xffi_to_json(&graph, &value, NULL), XFFI_OK);
  assert_int_equal(xffi_json_stringify(&by_value, &graph, 0), XFFI_OK);
  assert_string_equal(xffi_string_cell_of_unchecked(by_value).data, text);
  xffi_object_dec_ref(by_text);
  xffi_object_dec_ref(by_value);
  xffi_any_release(&graph);
}

/* An empty Dict hashed as the first Map of a walk.
 * Found by fuzz_walk_callbacks: StructuralHash took a pointer to the Map's
 * entries in the walk's entry buffer before it had one (UBSan "applying
 * zero offset to null pointer"). */
static void test_hash_of_empty_dict_takes_no_pointer_into_no_buffer(void **state) {
  (void)state;
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  xffi_any v = xffi_any_object(dict);
  int64_t h = 0, again = 1;
  assert_int_equal(xffi_structural_hash(&h, &v, 0), XFFI_OK);
  assert_int_equal(xffi_structural_hash(&again, &v, 0), XFFI_OK);
  assert_int_equal(h, again);
  xffi_object_dec_ref(dict);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arg_get_object_refuses_object_of_unregistered_type_index),
      cmocka_unit_test(test_empty_tensor_with_huge_other_dimensions_has_no_overflow),
      cmocka_unit_test(test_slice_of_empty_list_offsets_no_null_pointer),
      cmocka_unit_test(test_negative_device_type_writes_back_as_int32),
      cmocka_unit_test(test_hash_of_empty_dict_takes_no_pointer_into_no_buffer),
  };
  return cmocka_run_group_tests_name("fuzz_regressions", tests, NULL, NULL);
}
