/* tests/c/container/test_nesting.c: everything nests. An Array of Maps of Functions,
 * Tensors and Lists goes through a function call and comes back inside the
 * result; every function finalizer and every DLPack deleter runs exactly
 * once, when the last reference goes (LeakSanitizer checks the rest). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/map.h>
#include <xffi/tensor.h>
#include <xffi/xffi.h>
#include <xffi/sys/array.h>
#include <xffi/sys/error.h>
#include <xffi/sys/tensor.h>

#define N 3

static int finalized[N];
static int dl_deleted[N];

/* ---- A DLPack producer: each tensor owns a malloc'd block ---- */

typedef struct producer {
  DLManagedTensorVersioned managed;
  int64_t shape[1];
  int64_t strides[1];
  int index;
} producer;

static void producer_deleter(DLManagedTensorVersioned *self) {
  producer *p = (producer *)self->manager_ctx;
  dl_deleted[p->index]++;
  free(self->dl_tensor.data);
  free(p);
}

static xffi_object *imported_tensor(int index, int64_t length) {
  producer *p = calloc(1, sizeof(*p));
  assert_non_null(p);
  float *data = malloc((size_t)length * sizeof(float));
  assert_non_null(data);
  for (int64_t i = 0; i < length; ++i) data[i] = (float)(index + 1);
  p->index = index;
  p->shape[0] = length;
  p->strides[0] = 1;
  p->managed.version.major = DLPACK_MAJOR_VERSION;
  p->managed.version.minor = DLPACK_MINOR_VERSION;
  p->managed.manager_ctx = p;
  p->managed.deleter = producer_deleter;
  p->managed.flags = 0;
  DLTensor *t = &p->managed.dl_tensor;
  t->data = data;
  t->device.device_type = kDLCPU;
  t->device.device_id = 0;
  t->ndim = 1;
  t->dtype.code = kDLFloat;
  t->dtype.bits = 32;
  t->dtype.lanes = 1;
  t->shape = p->shape;
  t->strides = p->strides;
  t->byte_offset = 0;
  xffi_object *tensor = NULL;
  assert_int_equal(xffi_tensor_from_dlpack(&tensor, &p->managed), XFFI_OK);
  return tensor;
}

/* ---- Functions ---- */

/* "scale": returns the sum of the tensor argument's elements times the
 * resource's factor. */
typedef struct scale_resource {
  int index;
  double factor;
} scale_resource;

static void scale_finalizer(void *resource) {
  scale_resource *r = resource;
  finalized[r->index]++;
  free(r);
}

static int scale_call(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  scale_resource *r = resource;
  xffi_object *tensor = NULL;
  if (xffi_arg_to_object(&tensor, args, num_args, 0, XFFI_TYPE_TENSOR, "scale") != XFFI_OK) return XFFI_FAIL;
  const DLTensor *t = xffi_tensor_cell_of_unchecked(tensor);
  double sum = 0;
  for (int64_t i = 0; i < t->shape[0]; ++i) sum += ((const float *)t->data)[i];
  *result = xffi_any_float(sum * r->factor);
  return XFFI_OK;
}

/* "consume": takes an Array of Maps, calls every map's "fn" on its
 * "tensor", and returns a new Map {"total": float, "kept": the first Map,
 * "lists": a List of every map's "list"}. */
static int consume_call(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  xffi_object *array = NULL;
  if (xffi_arg_to_object(&array, args, num_args, 0, XFFI_TYPE_ARRAY, "consume") != XFFI_OK) return XFFI_FAIL;
  double total = 0;
  xffi_object *lists = NULL;
  if (xffi_list_new(&lists, NULL, 0) != XFFI_OK) return XFFI_FAIL;
  const xffi_any *items = xffi_seq_items_unchecked(array);
  for (int64_t i = 0; i < xffi_seq_size_unchecked(array); ++i) {
    xffi_any k_fn = xffi_any_c_str("fn"), k_tensor = xffi_any_c_str("tensor"), k_list = xffi_any_c_str("list");
    const xffi_any *fn = NULL, *tensor = NULL, *list = NULL;
    if (xffi_map_lookup(&fn, items[i].v_obj, &k_fn) != XFFI_OK ||
        xffi_map_lookup(&tensor, items[i].v_obj, &k_tensor) != XFFI_OK ||
        xffi_map_lookup(&list, items[i].v_obj, &k_list) != XFFI_OK || !fn || !tensor || !list) {
      xffi_object_dec_ref(lists);
      return xffi_error_raise(XFFI_KIND_KEY, "consume: map %lld lacks fn, tensor or list", (long long)i);
    }
    xffi_any r = xffi_any_none();
    if (xffi_function_call(fn->v_obj, tensor, 1, &r) != XFFI_OK) {
      xffi_object_dec_ref(lists);
      return XFFI_FAIL;
    }
    total += r.v_float64;
    if (xffi_list_push(lists, list) != XFFI_OK) {
      xffi_object_dec_ref(lists);
      return XFFI_FAIL;
    }
  }
  xffi_any keys[3] = {xffi_any_c_str("total"), xffi_any_c_str("kept"), xffi_any_c_str("lists")};
  xffi_any values[3] = {xffi_any_float(total), items[0], xffi_any_object(lists)};
  xffi_object *out = NULL;
  int rc = xffi_map_new(&out, keys, values, 3);
  xffi_object_dec_ref(lists);
  if (rc != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(out); /* the new reference moves into the result */
  return XFFI_OK;
}

static void an_array_of_maps_of_functions_and_tensors_frees_everything_once(void **state) {
  (void)state;
  memset(finalized, 0, sizeof(finalized));
  memset(dl_deleted, 0, sizeof(dl_deleted));
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new_with_capacity(&array, N), XFFI_OK);
  for (int i = 0; i < N; ++i) {
    scale_resource *r = malloc(sizeof(*r));
    assert_non_null(r);
    r->index = i;
    r->factor = 10.0;
    xffi_object *fn = NULL;
    assert_int_equal(xffi_function_new(&fn, scale_call, r, scale_finalizer), XFFI_OK);
    xffi_object *tensor = imported_tensor(i, 4);
    int64_t shape[2] = {2, 3};
    DLDataType f64 = {kDLFloat, 64, 1};
    xffi_object *own_tensor = NULL;
    assert_int_equal(xffi_tensor_new(&own_tensor, shape, 2, f64), XFFI_OK);
    xffi_any list_items[3] = {xffi_any_object(tensor), xffi_any_object(fn), xffi_any_object(own_tensor)};
    xffi_object *list = NULL;
    assert_int_equal(xffi_list_new(&list, list_items, 3), XFFI_OK);
    xffi_any keys[3] = {xffi_any_c_str("fn"), xffi_any_c_str("tensor"), xffi_any_c_str("list")};
    xffi_any values[3] = {xffi_any_object(fn), xffi_any_object(tensor), xffi_any_object(list)};
    xffi_object *map = NULL;
    assert_int_equal(xffi_map_new(&map, keys, values, 3), XFFI_OK);
    xffi_any mv = xffi_any_object(map);
    assert_int_equal(xffi_array_push(&array, &mv), XFFI_OK);
    /* The containers hold everything now. */
    xffi_object_dec_ref(map);
    xffi_object_dec_ref(list);
    xffi_object_dec_ref(own_tensor);
    xffi_object_dec_ref(tensor);
    xffi_object_dec_ref(fn);
  }
  assert_int_equal(xffi_seq_size_unchecked(array), N);

  xffi_object *consume = NULL;
  assert_int_equal(xffi_function_new(&consume, consume_call, NULL, NULL), XFFI_OK);
  xffi_any arg = xffi_any_object(array), result = xffi_any_none();
  assert_int_equal(xffi_function_call(consume, &arg, 1, &result), XFFI_OK);
  assert_int_equal(result.type_index, XFFI_TYPE_MAP);

  /* 4 elements each of 1, 2, 3, times 10. */
  xffi_any k_total = xffi_any_c_str("total"), got = xffi_any_none();
  assert_int_equal(xffi_map_get(&got, result.v_obj, &k_total), XFFI_OK);
  assert_true(got.v_float64 == 4 * (1 + 2 + 3) * 10.0);
  xffi_any k_lists = xffi_any_c_str("lists");
  assert_int_equal(xffi_map_get(&got, result.v_obj, &k_lists), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(got.v_obj), N);
  xffi_any_release(&got);

  /* Dropping the original Array frees nothing the result still holds. */
  xffi_object_dec_ref(array);
  xffi_object_dec_ref(consume);
  for (int i = 0; i < N; ++i) {
    assert_int_equal(finalized[i], 0);
    assert_int_equal(dl_deleted[i], 0);
  }
  /* The result holds the lists of all three and the first map: dropping it
   * frees everything, each exactly once. */
  xffi_any_release(&result);
  for (int i = 0; i < N; ++i) {
    assert_int_equal(finalized[i], 1);
    assert_int_equal(dl_deleted[i], 1);
  }
}

static void a_failing_call_inside_the_nest_releases_everything(void **state) {
  (void)state;
  memset(finalized, 0, sizeof(finalized));
  memset(dl_deleted, 0, sizeof(dl_deleted));
  /* A map missing its "list": consume fails after calling the first fn. */
  scale_resource *r = malloc(sizeof(*r));
  assert_non_null(r);
  r->index = 0;
  r->factor = 1.0;
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, scale_call, r, scale_finalizer), XFFI_OK);
  xffi_object *tensor = imported_tensor(0, 2);
  xffi_any keys[2] = {xffi_any_c_str("fn"), xffi_any_c_str("tensor")};
  xffi_any values[2] = {xffi_any_object(fn), xffi_any_object(tensor)};
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, keys, values, 2), XFFI_OK);
  xffi_object_dec_ref(fn);
  xffi_object_dec_ref(tensor);
  xffi_any mv = xffi_any_object(map);
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new(&array, &mv, 1), XFFI_OK);
  xffi_object_dec_ref(map);
  xffi_object *consume = NULL;
  assert_int_equal(xffi_function_new(&consume, consume_call, NULL, NULL), XFFI_OK);
  xffi_any arg = xffi_any_object(array), result = xffi_any_none();
  assert_int_equal(xffi_function_call(consume, &arg, 1, &result), XFFI_FAIL);
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  xffi_object *err = xffi_error_move_raised();
  assert_true(xffi_error_is_kind(err, XFFI_KIND_KEY));
  assert_string_equal(xffi_error_cell_of_unchecked(err)->message.data, "consume: map 0 lacks fn, tensor or list");
  xffi_object_dec_ref(err);
  xffi_object_dec_ref(consume);
  assert_int_equal(finalized[0], 0);
  xffi_object_dec_ref(array);
  assert_int_equal(finalized[0], 1);
  assert_int_equal(dl_deleted[0], 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(an_array_of_maps_of_functions_and_tensors_frees_everything_once),
      cmocka_unit_test(a_failing_call_inside_the_nest_releases_everything),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
