/* Shape: creation, layout of the cell, product, equality and every bad input. */
#include "test_util.h"

#include <xffi/shape.h>
#include <xffi/string.h>
#include "failing_allocator.h"

static void test_new_copies_dims_inline_in_one_allocation(void **state) {
  (void)state;
  int64_t dims[3] = {2, 3, 4};
  uint64_t before = failing_allocator_attempts();
  xffi_object *s = NULL;
  assert_int_equal(xffi_shape_new(&s, dims, 3), XFFI_OK);
  assert_int_equal(failing_allocator_attempts() - before, 1);
  assert_int_equal(s->type_index, XFFI_TYPE_SHAPE);
  dims[0] = 99; /* the Shape has its own copy */
  const xffi_shape_cell *cell = xffi_shape_cell_of_unchecked(s);
  assert_int_equal(cell->size, 3);
  assert_int_equal(cell->data[0], 2);
  assert_int_equal(cell->data[1], 3);
  assert_int_equal(cell->data[2], 4);
  /* Dims live right after the 16-byte cell, in the same allocation. */
  assert_ptr_equal((const char *)cell->data, (const char *)s + sizeof(xffi_object) + sizeof(xffi_shape_cell));
  xffi_shape_cell got;
  assert_int_equal(xffi_shape_cell_of(&got, s), XFFI_OK);
  assert_ptr_equal(got.data, cell->data);
  assert_int_equal(got.size, 3);
  xffi_object_dec_ref(s);
}

static void test_empty_shape_has_non_null_data_and_product_one(void **state) {
  (void)state;
  xffi_object *s = NULL;
  assert_int_equal(xffi_shape_new(&s, NULL, 0), XFFI_OK);
  assert_non_null(xffi_shape_cell_of_unchecked(s)->data);
  assert_int_equal(xffi_shape_cell_of_unchecked(s)->size, 0);
  int64_t n = -1;
  assert_int_equal(xffi_shape_product(&n, s), XFFI_OK);
  assert_int_equal(n, 1);
  xffi_object_dec_ref(s);
}

static void test_product(void **state) {
  (void)state;
  int64_t dims[4] = {2, 3, 4, 5};
  xffi_object *s = NULL;
  assert_int_equal(xffi_shape_new(&s, dims, 4), XFFI_OK);
  int64_t n = 0;
  assert_int_equal(xffi_shape_product(&n, s), XFFI_OK);
  assert_int_equal(n, 120);
  xffi_object_dec_ref(s);
  assert_int_equal(xffi_dims_product(&n, dims, 2), XFFI_OK);
  assert_int_equal(n, 6);
  assert_int_equal(xffi_dims_product(&n, NULL, 0), XFFI_OK);
  assert_int_equal(n, 1);
  /* A zero dimension wins even when the other factors would overflow. */
  int64_t big[3] = {INT64_MAX, INT64_MAX, 0};
  assert_int_equal(xffi_dims_product(&n, big, 3), XFFI_OK);
  assert_int_equal(n, 0);
  int64_t edge[2] = {INT64_MAX, 1};
  assert_int_equal(xffi_dims_product(&n, edge, 2), XFFI_OK);
  assert_int_equal(n, INT64_MAX);
}

static void test_product_rejects_negative_and_overflow(void **state) {
  (void)state;
  int64_t n = 7;
  int64_t neg[3] = {2, -1, 4};
  xffi_object *s = NULL;
  assert_int_equal(xffi_shape_new(&s, neg, 3), XFFI_OK); /* a Shape may hold -1 */
  assert_int_equal(xffi_shape_product(&n, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_shape_product: dimension 1 is -1, expected >= 0");
  assert_int_equal(n, 7);
  xffi_object_dec_ref(s);
  int64_t big[3] = {INT64_C(1) << 32, INT64_C(1) << 32, 1};
  assert_int_equal(xffi_dims_product(&n, big, 3), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_dims_product: the product of the 3 dimensions overflows int64");
  assert_int_equal(xffi_dims_product(&n, NULL, 2), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_dims_product: dims is NULL but ndim is 2");
  assert_int_equal(xffi_dims_product(NULL, big, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_dims_product: out is NULL");
}

static void test_equal(void **state) {
  (void)state;
  int64_t a_dims[2] = {2, 3}, b_dims[2] = {2, 3}, c_dims[2] = {3, 2}, d_dims[3] = {2, 3, 1};
  xffi_object *a, *b, *c, *d;
  assert_int_equal(xffi_shape_new(&a, a_dims, 2), XFFI_OK);
  assert_int_equal(xffi_shape_new(&b, b_dims, 2), XFFI_OK);
  assert_int_equal(xffi_shape_new(&c, c_dims, 2), XFFI_OK);
  assert_int_equal(xffi_shape_new(&d, d_dims, 3), XFFI_OK);
  int eq = -1;
  assert_int_equal(xffi_shape_equal(&eq, a, b), XFFI_OK);
  assert_int_equal(eq, 1);
  assert_int_equal(xffi_shape_equal(&eq, a, a), XFFI_OK);
  assert_int_equal(eq, 1);
  assert_int_equal(xffi_shape_equal(&eq, a, c), XFFI_OK);
  assert_int_equal(eq, 0);
  assert_int_equal(xffi_shape_equal(&eq, a, d), XFFI_OK);
  assert_int_equal(eq, 0);
  assert_true(xffi_dims_equal(a_dims, 2, b_dims, 2));
  assert_false(xffi_dims_equal(a_dims, 2, d_dims, 3));
  xffi_object_dec_ref(a);
  xffi_object_dec_ref(b);
  xffi_object_dec_ref(c);
  xffi_object_dec_ref(d);
}

static void test_shape_in_any_round_trip(void **state) {
  (void)state;
  int64_t dims[1] = {5};
  xffi_object *s;
  assert_int_equal(xffi_shape_new(&s, dims, 1), XFFI_OK);
  xffi_any v = xffi_any_object(s); /* the Any takes over the reference */
  assert_int_equal(v.type_index, XFFI_TYPE_SHAPE);
  xffi_object *back = NULL;
  assert_int_equal(xffi_any_to_object(&back, &v, XFFI_TYPE_SHAPE), XFFI_OK);
  assert_ptr_equal(back, s);
  assert_string_equal(xffi_any_kind_name(&v), "ffi.Shape");
  xffi_any_release(&v);
}

static void test_bad_inputs(void **state) {
  (void)state;
  int64_t dims[1] = {1};
  xffi_object *s = (xffi_object *)0x1;
  assert_int_equal(xffi_shape_new(NULL, dims, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_shape_new: out is NULL");
  assert_int_equal(xffi_shape_new(&s, NULL, 2), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_shape_new: dims is NULL but ndim is 2");
  assert_null(s);
  assert_int_equal(xffi_shape_new(&s, dims, -1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_shape_new: ndim is negative (-1)");
  int64_t product = 0;
  assert_int_equal(xffi_dims_product(&product, dims, -2), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_dims_product: ndim is negative (-2)");

  xffi_object *str;
  assert_int_equal(xffi_string_from_c_str(&str, "not a shape"), XFFI_OK);
  xffi_shape_cell cell;
  int64_t n;
  int eq;
  assert_int_equal(xffi_shape_cell_of(&cell, str), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_shape_cell_of: shape expected ffi.Shape, got ffi.String");
  assert_int_equal(xffi_shape_cell_of(NULL, str), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_shape_cell_of: out is NULL");
  assert_int_equal(xffi_shape_cell_of(&cell, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_shape_cell_of: shape is NULL");
  assert_int_equal(xffi_shape_product(&n, str), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_shape_product: shape expected ffi.Shape, got ffi.String");
  assert_int_equal(xffi_shape_product(NULL, str), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_shape_product: out is NULL");
  assert_int_equal(xffi_shape_new(&s, dims, 1), XFFI_OK);
  assert_int_equal(xffi_shape_equal(&eq, s, str), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_shape_equal: b expected ffi.Shape, got ffi.String");
  assert_int_equal(xffi_shape_equal(&eq, str, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_shape_equal: a expected ffi.Shape, got ffi.String");
  assert_int_equal(xffi_shape_equal(&eq, s, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_shape_equal: b is NULL");
  assert_int_equal(xffi_shape_equal(NULL, s, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_shape_equal: out is NULL");
  xffi_object_dec_ref(s);
  xffi_object_dec_ref(str);
}

static void test_out_of_memory_is_clean(void **state) {
  (void)state;
  int64_t dims[2] = {1, 2};
  xffi_object *s = (xffi_object *)0x1;
  failing_allocator_fail_after(0);
  int status = xffi_shape_new(&s, dims, 2);
  failing_allocator_fail_after(-1);
  assert_int_equal(status, XFFI_FAIL);
  assert_null(s);
  assert_raised(XFFI_KIND_MEMORY, "");
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_new_copies_dims_inline_in_one_allocation),
      cmocka_unit_test(test_empty_shape_has_non_null_data_and_product_one),
      cmocka_unit_test(test_product),
      cmocka_unit_test(test_product_rejects_negative_and_overflow),
      cmocka_unit_test(test_equal),
      cmocka_unit_test(test_shape_in_any_round_trip),
      cmocka_unit_test(test_bad_inputs),
      cmocka_unit_test(test_out_of_memory_is_clean),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
