/* tests/c/tensor/test_tensor_dlpack.c: Tensors over DLPack: importing 1.x and
 * legacy managed tensors (zero copy, one allocation, the producer's deleter
 * exactly once, read-only both ways, every malformed input refused, the
 * unchecked imports), exporting them, round trips, and out-of-memory. */
#include "tensor_producer.h"
#include "failing_allocator.h"
#include "test_util.h"

#include <xffi/dtype.h>
#include <xffi/shape.h>
#include <xffi/tensor.h>

static const DLDataType f32 = {kDLFloat, 32, 1};

/* ---- Import ---- */

/* Asserts that tensor (borrowed) is read-only (1) or writable (0). */
static void assert_read_only(xffi_object *tensor, int expected) {
  int ro = -1;
  assert_int_equal(xffi_tensor_is_read_only(&ro, tensor), XFFI_OK);
  assert_int_equal(ro, expected);
}

/* Imports the producer's 2x3 float tensor with import: one allocation, the
 * producer's data (no copy), and shape and strides copied into the Tensor,
 * since the producer may change its arrays. Returns the new reference. */
typedef int (*import_fn)(xffi_object **, DLManagedTensorVersioned *);
static xffi_object *import_and_check_copy(import_fn import, producer *p) {
  uint64_t before = failing_allocator_attempts();
  xffi_object *t = NULL;
  assert_int_equal(import(&t, &p->managed), XFFI_OK);
  assert_int_equal(failing_allocator_attempts() - before, 1);
  DLTensor *dl = xffi_tensor_cell_of_unchecked(t);
  assert_ptr_equal(dl->data, p->data);
  assert_int_equal(dl->ndim, 2);
  assert_int_equal(dl->shape[0], 2);
  assert_int_equal(dl->shape[1], 3);
  assert_int_equal(dl->strides[0], 3);
  assert_int_equal(dl->strides[1], 1);
  assert_ptr_not_equal(dl->shape, p->shape);
  assert_ptr_not_equal(dl->strides, p->strides);
  return t;
}

static void test_import_versioned_is_zero_copy_and_deletes_once(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  xffi_object *t = import_and_check_copy(xffi_tensor_from_dlpack, &p);
  assert_read_only(t, 0);
  xffi_object_inc_ref(t);
  xffi_object_dec_ref(t);
  assert_int_equal(p.deleted, 0);
  xffi_object_dec_ref(t);
  assert_int_equal(p.deleted, 1);
  assert_int_equal(p.legacy_deleted, 0);
}

static void test_import_computes_missing_strides_and_keeps_byte_offset(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  p.managed.dl_tensor.strides = NULL;
  p.managed.dl_tensor.byte_offset = 8;
  p.shape[0] = 4;
  p.shape[1] = 1;
  p.managed.dl_tensor.ndim = 3;
  p.shape[2] = 5;
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p.managed), XFFI_OK);
  DLTensor *dl = xffi_tensor_cell_of_unchecked(t);
  assert_non_null(dl->strides);
  assert_int_equal(dl->strides[0], 5);
  assert_int_equal(dl->strides[1], 5);
  assert_int_equal(dl->strides[2], 1);
  assert_int_equal(dl->byte_offset, 8);
  int c = -1;
  assert_int_equal(xffi_tensor_is_contiguous(&c, t), XFFI_OK);
  assert_int_equal(c, 1);
  xffi_object_dec_ref(t);
  assert_int_equal(p.deleted, 1);
}

static void test_import_read_only_flag_and_versions(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  p.managed.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  p.managed.version.minor = 7; /* a newer minor version is fine */
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p.managed), XFFI_OK);
  assert_read_only(t, 1);
  xffi_object_dec_ref(t);
  assert_int_equal(p.deleted, 1);

  producer_init(&p);
  p.managed.version.major = 2;
  t = (xffi_object *)0x1;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p.managed), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_from_dlpack: managed->version is 2.0, xffi supports DLPack 1.x");
  assert_null(t);
  p.managed.version.major = 0;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p.managed), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "managed->version is 0.0, xffi supports DLPack 1.x");
  assert_int_equal(p.deleted, 0); /* a refused tensor still belongs to the caller */
}

static void test_import_null_deleter_is_allowed(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  p.managed.deleter = NULL;
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p.managed), XFFI_OK);
  xffi_object_dec_ref(t);
}

typedef int (*legacy_import_fn)(xffi_object **out, DLManagedTensor *managed);

static void test_import_legacy(void **state) {
  (void)state;
  const legacy_import_fn imports[] = {xffi_tensor_from_dlpack_legacy, xffi_tensor_from_dlpack_legacy_unchecked};
  for (size_t k = 0; k < sizeof imports / sizeof imports[0]; ++k) {
    producer p;
    producer_init(&p);
    p.legacy.dl_tensor.strides = NULL;
    uint64_t before = failing_allocator_attempts();
    xffi_object *t = NULL;
    assert_int_equal(imports[k](&t, &p.legacy), XFFI_OK);
    assert_int_equal(failing_allocator_attempts() - before, 1);
    DLTensor *dl = xffi_tensor_cell_of_unchecked(t);
    assert_ptr_equal(dl->data, p.data);
    assert_int_equal(dl->shape[0], 2);
    assert_int_equal(dl->shape[1], 3);
    if (k == 0)
      assert_ptr_not_equal(dl->shape, p.shape); /* the checked import copies */
    else
      assert_ptr_equal(dl->shape, p.shape); /* the unchecked one keeps the producer's */
    assert_int_equal(dl->strides[0], 3);
    assert_int_equal(dl->strides[1], 1);
    assert_read_only(t, 0);
    xffi_object_dec_ref(t);
    assert_int_equal(p.legacy_deleted, 1);
    assert_int_equal(p.deleted, 0);
  }
}

static void test_import_deleter_runs_when_strong_refs_go_even_with_weak_refs(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p.managed), XFFI_OK);
  xffi_weak *w = NULL;
  assert_int_equal(xffi_weak_new(&w, t), XFFI_OK);
  xffi_object_dec_ref(t);
  assert_int_equal(p.deleted, 1); /* the data is released with the last strong reference */
  assert_true(is_destroyed(w));
  xffi_weak_release(w);
  assert_int_equal(p.deleted, 1);

  /* The same for a legacy producer: its own deleter, once, none of the 1.x one. */
  producer_init(&p);
  assert_int_equal(xffi_tensor_from_dlpack_legacy(&t, &p.legacy), XFFI_OK);
  assert_int_equal(xffi_weak_new(&w, t), XFFI_OK);
  xffi_object_dec_ref(t);
  assert_int_equal(p.legacy_deleted, 1);
  assert_int_equal(p.deleted, 0);
  assert_true(is_destroyed(w));
  xffi_weak_release(w);
  assert_int_equal(p.legacy_deleted, 1);
}

/* Imports p.managed (versioned) and p.legacy and expects both to fail with fragment. */
static void check_bad_import(producer *p, const char *fragment_versioned, const char *fragment_legacy) {
  xffi_object *t = (xffi_object *)0x1;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p->managed), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, fragment_versioned);
  assert_null(t);
  t = (xffi_object *)0x1;
  assert_int_equal(xffi_tensor_from_dlpack_legacy(&t, &p->legacy), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, fragment_legacy);
  assert_null(t);
  assert_int_equal(p->deleted, 0);
  assert_int_equal(p->legacy_deleted, 0);
}

#define BOTH(field, value)             \
  do {                                 \
    p.managed.dl_tensor.field = value; \
    p.legacy.dl_tensor.field = value;  \
  } while (0)

static void test_import_rejects_malformed_tensors(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  BOTH(ndim, -2);
  check_bad_import(&p, "xffi_tensor_from_dlpack: ndim is -2, expected >= 0",
                   "xffi_tensor_from_dlpack_legacy: ndim is -2, expected >= 0");
  producer_init(&p);
  BOTH(shape, NULL);
  check_bad_import(&p, "xffi_tensor_from_dlpack: shape is NULL but ndim is 2",
                   "xffi_tensor_from_dlpack_legacy: shape is NULL but ndim is 2");
  producer_init(&p);
  p.shape[0] = -1;
  check_bad_import(&p, "xffi_tensor_from_dlpack: shape[0] is -1, expected >= 0", "shape[0] is -1, expected >= 0");
  producer_init(&p);
  BOTH(dtype, xffi_dtype_make(kDLFloat, 0, 1));
  check_bad_import(&p, "xffi_tensor_from_dlpack: dtype has 0 bits and 1 lanes, both must be non-zero",
                   "dtype has 0 bits");
  producer_init(&p);
  BOTH(dtype, xffi_dtype_make(kDLFloat, 32, 0));
  check_bad_import(&p, "xffi_tensor_from_dlpack: dtype has 32 bits and 0 lanes, both must be non-zero", "0 lanes");
  producer_init(&p);
  p.shape[0] = INT64_C(1) << 40;
  p.shape[1] = INT64_C(1) << 40;
  check_bad_import(&p, "xffi_tensor_from_dlpack: the byte size of shape (2 dimensions) and dtype overflows int64",
                   "overflows int64");
  producer_init(&p);
  p.shape[0] = INT64_C(1) << 58; /* elements fit, bytes do not */
  p.shape[1] = 1;
  check_bad_import(&p, "the byte size of shape (2 dimensions) and dtype overflows int64", "overflows int64");
  producer_init(&p);
  p.strides[1] = INT64_MAX / 2 + 1; /* (3 - 1) * 2^62 overflows */
  check_bad_import(&p, "xffi_tensor_from_dlpack: strides[1] = 4611686018427387904 makes the extent",
                   "makes the extent of the tensor overflow int64");
  producer_init(&p);
  p.strides[0] = INT64_MAX / 2; /* the extent fits in elements, not in bits */
  check_bad_import(&p, "xffi_tensor_from_dlpack: the byte extent of the strided tensor overflows int64",
                   "the byte extent of the strided tensor overflows int64");
  producer_init(&p);
  p.strides[0] = INT64_MIN;
  check_bad_import(&p, "strides[0] = -9223372036854775808 makes the extent", "makes the extent");
  producer_init(&p);
  BOTH(device, xffi_device_make(99, 0));
  check_bad_import(&p, "xffi_tensor_from_dlpack: device type 99 is unknown (DLPack defines 1..4 and 7..18)",
                   "device type 99 is unknown");
  producer_init(&p);
  BOTH(device, xffi_device_make(5, 0));
  check_bad_import(&p, "device type 5 is unknown", "device type 5 is unknown");
  producer_init(&p);
  BOTH(device, xffi_device_make(kDLCUDA, -1));
  check_bad_import(&p, "xffi_tensor_from_dlpack: device id is -1, expected >= 0", "device id is -1");
  producer_init(&p);
  BOTH(data, NULL);
  check_bad_import(&p, "xffi_tensor_from_dlpack: data is NULL but the tensor has 6 elements",
                   "data is NULL but the tensor has 6 elements");
  /* NULL data is fine for an empty tensor, and negative strides are fine. */
  producer_init(&p);
  BOTH(data, NULL);
  p.shape[0] = 0;
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p.managed), XFFI_OK);
  xffi_object_dec_ref(t);
  producer_init(&p);
  p.strides[0] = -3;
  p.managed.dl_tensor.byte_offset = 12;
  assert_int_equal(xffi_tensor_from_dlpack(&t, &p.managed), XFFI_OK);
  int c = -1;
  assert_int_equal(xffi_tensor_is_contiguous(&c, t), XFFI_OK);
  assert_int_equal(c, 0);
  xffi_object_dec_ref(t);
  assert_int_equal(p.deleted, 1);
}

static void test_import_rejects_null(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  xffi_object *t;
  assert_int_equal(xffi_tensor_from_dlpack(NULL, &p.managed), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_from_dlpack: out is NULL");
  assert_int_equal(xffi_tensor_from_dlpack(&t, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_from_dlpack: managed is NULL");
  assert_int_equal(xffi_tensor_from_dlpack_legacy(NULL, &p.legacy), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_from_dlpack_legacy: out is NULL");
  assert_int_equal(xffi_tensor_from_dlpack_legacy(&t, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_from_dlpack_legacy: managed is NULL");
}

/* ---- Unchecked import: the same Tensor, without the value checks ---- */

/* The unchecked import keeps the producer's arrays, as tvm-ffi's does, in one
 * allocation; strides it computes follow the cell. */
static void test_unchecked_import_keeps_the_producers_arrays_and_deletes_once(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  p.managed.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  uint64_t before = failing_allocator_attempts();
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_from_dlpack_unchecked(&t, &p.managed), XFFI_OK);
  assert_int_equal(failing_allocator_attempts() - before, 1);
  DLTensor *dl = xffi_tensor_cell_of_unchecked(t);
  assert_ptr_equal(dl->data, p.data);
  assert_int_equal(dl->ndim, 2);
  assert_ptr_equal(dl->shape, p.shape);
  assert_ptr_equal(dl->strides, p.strides);
  assert_read_only(t, 1);
  xffi_object_dec_ref(t);
  assert_int_equal(p.deleted, 1);

  /* NULL strides are computed, as by the checked import */
  producer_init(&p);
  p.managed.dl_tensor.strides = NULL;
  assert_int_equal(xffi_tensor_from_dlpack_unchecked(&t, &p.managed), XFFI_OK);
  dl = xffi_tensor_cell_of_unchecked(t);
  assert_ptr_equal(dl->shape, p.shape);
  assert_int_equal(dl->strides[0], 3);
  assert_int_equal(dl->strides[1], 1);
  int c = -1;
  assert_int_equal(xffi_tensor_is_contiguous(&c, t), XFFI_OK);
  assert_int_equal(c, 1);
  /* exported and imported back: the same Tensor */
  DLManagedTensorVersioned *exported = NULL;
  assert_int_equal(xffi_tensor_to_dlpack(&exported, t), XFFI_OK);
  xffi_object *back = NULL;
  assert_int_equal(xffi_tensor_from_dlpack_unchecked(&back, exported), XFFI_OK);
  assert_ptr_equal(back, t);
  xffi_object_dec_ref(back);
  xffi_object_dec_ref(t);
  assert_int_equal(p.deleted, 1);

  /* a 0-d tensor needs no shape */
  producer_init(&p);
  p.managed.dl_tensor.ndim = 0;
  p.managed.dl_tensor.shape = NULL;
  p.managed.dl_tensor.strides = NULL;
  assert_int_equal(xffi_tensor_from_dlpack_unchecked(&t, &p.managed), XFFI_OK);
  assert_int_equal(xffi_tensor_cell_of_unchecked(t)->ndim, 0);
  xffi_object_dec_ref(t);
  assert_int_equal(p.deleted, 1);
}

/* Each import through one signature: p's versioned or legacy managed tensor
 * (NULL when p is NULL). */
static int import_versioned(xffi_object **out, producer *p) {
  return xffi_tensor_from_dlpack(out, p ? &p->managed : NULL);
}
static int import_versioned_unchecked(xffi_object **out, producer *p) {
  return xffi_tensor_from_dlpack_unchecked(out, p ? &p->managed : NULL);
}
static int import_legacy(xffi_object **out, producer *p) {
  return xffi_tensor_from_dlpack_legacy(out, p ? &p->legacy : NULL);
}
static int import_legacy_unchecked(xffi_object **out, producer *p) {
  return xffi_tensor_from_dlpack_legacy_unchecked(out, p ? &p->legacy : NULL);
}

/* The unchecked import of each format, its name and its checked twin. */
static const struct {
  const char *fn;
  int (*import)(xffi_object **out, producer *p);
  int (*checked)(xffi_object **out, producer *p);
} unchecked_forms[] = {
    {"xffi_tensor_from_dlpack_unchecked", import_versioned_unchecked, import_versioned},
    {"xffi_tensor_from_dlpack_legacy_unchecked", import_legacy_unchecked, import_legacy},
};

static void test_unchecked_imports_take_values_as_they_are(void **state) {
  (void)state;
  for (size_t k = 0; k < sizeof unchecked_forms / sizeof unchecked_forms[0]; ++k) {
    producer p;
    producer_init(&p);
    /* the checked imports refuse it */
    p.managed.dl_tensor.device.device_type = p.legacy.dl_tensor.device.device_type = (DLDeviceType)99;
    xffi_object *t = NULL;
    assert_int_equal(unchecked_forms[k].checked(&t, &p), XFFI_FAIL);
    assert_raised(XFFI_KIND_VALUE, "device type 99 is unknown");
    assert_int_equal(unchecked_forms[k].import(&t, &p), XFFI_OK);
    assert_int_equal(xffi_tensor_cell_of_unchecked(t)->device.device_type, 99);
    xffi_object_dec_ref(t);
    assert_int_equal(p.deleted + p.legacy_deleted, 1);
  }
}

static void test_unchecked_imports_of_exports_are_the_same_tensor(void **state) {
  (void)state;
  int64_t shape[2] = {2, 2};
  xffi_object *t = NULL, *back = NULL, *back_legacy = NULL;
  DLManagedTensorVersioned *m = NULL;
  DLManagedTensor *m_legacy = NULL;
  assert_int_equal(xffi_tensor_new(&t, shape, 2, f32), XFFI_OK);
  assert_int_equal(xffi_tensor_to_dlpack(&m, t), XFFI_OK);
  assert_int_equal(xffi_tensor_to_dlpack_legacy(&m_legacy, t), XFFI_OK);
  assert_int_equal(xffi_tensor_from_dlpack_unchecked(&back, m), XFFI_OK);
  assert_int_equal(xffi_tensor_from_dlpack_legacy_unchecked(&back_legacy, m_legacy), XFFI_OK);
  assert_ptr_equal(back, t);
  assert_ptr_equal(back_legacy, t);
  assert_int_equal(xffi_object_strong_count(t), 3); /* each export's reference moved to its import */
  xffi_object_dec_ref(back);
  xffi_object_dec_ref(back_legacy);
  xffi_object_dec_ref(t);
}

static void test_unchecked_imports_still_refuse_what_xffi_memory_depends_on(void **state) {
  (void)state;
  char message[160];
  for (size_t k = 0; k < sizeof unchecked_forms / sizeof unchecked_forms[0]; ++k) {
    producer p;
    producer_init(&p);
    xffi_object *t = (xffi_object *)0x1;
    assert_int_equal(unchecked_forms[k].import(NULL, &p), XFFI_FAIL);
    snprintf(message, sizeof message, "%s: out is NULL", unchecked_forms[k].fn);
    expect_error(XFFI_KIND_VALUE, message);
    assert_int_equal(unchecked_forms[k].import(&t, NULL), XFFI_FAIL);
    snprintf(message, sizeof message, "%s: managed is NULL", unchecked_forms[k].fn);
    expect_error(XFFI_KIND_VALUE, message);
    assert_null(t);
    p.managed.dl_tensor.ndim = p.legacy.dl_tensor.ndim = -2;
    t = (xffi_object *)0x1;
    assert_int_equal(unchecked_forms[k].import(&t, &p), XFFI_FAIL);
    snprintf(message, sizeof message, "%s: ndim is -2, expected >= 0", unchecked_forms[k].fn);
    expect_error(XFFI_KIND_VALUE, message);
    assert_null(t);
    producer_init(&p);
    p.managed.dl_tensor.shape = p.legacy.dl_tensor.shape = NULL;
    assert_int_equal(unchecked_forms[k].import(&t, &p), XFFI_FAIL);
    snprintf(message, sizeof message, "%s: shape is NULL but ndim is 2", unchecked_forms[k].fn);
    expect_error(XFFI_KIND_VALUE, message);
    assert_null(t);
    /* out of memory: nothing taken, nothing leaked */
    producer_init(&p);
    t = (xffi_object *)0x1;
    failing_allocator_fail_after(0);
    int status = unchecked_forms[k].import(&t, &p);
    failing_allocator_fail_after(-1);
    assert_int_equal(status, XFFI_FAIL);
    assert_raised(XFFI_KIND_MEMORY, "");
    assert_null(t);
    /* a refused tensor still belongs to the caller */
    assert_int_equal(p.deleted + p.legacy_deleted, 0);
  }
  /* the versioned form also checks the major version */
  producer p;
  producer_init(&p);
  p.managed.version.major = 2;
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_from_dlpack_unchecked(&t, &p.managed), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_tensor_from_dlpack_unchecked: managed->version is 2.0, xffi supports DLPack 1.x");
  assert_null(t);
  assert_int_equal(p.deleted, 0);
}

static void test_import_out_of_memory_leaves_ownership_with_caller(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  xffi_object *t = (xffi_object *)0x1;
  failing_allocator_fail_after(0);
  int status = xffi_tensor_from_dlpack(&t, &p.managed);
  int status_legacy = xffi_tensor_from_dlpack_legacy(&t, &p.legacy);
  failing_allocator_fail_after(-1);
  assert_int_equal(status, XFFI_FAIL);
  assert_int_equal(status_legacy, XFFI_FAIL);
  assert_null(t);
  assert_raised(XFFI_KIND_MEMORY, "");
  assert_int_equal(p.deleted, 0);
  assert_int_equal(p.legacy_deleted, 0);
}

/* ---- Export ---- */

static void test_export_versioned_keeps_tensor_alive_until_deleter(void **state) {
  (void)state;
  int64_t shape[2] = {3, 4};
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_new(&t, shape, 2, f32), XFFI_OK);
  ((float *)xffi_tensor_cell_of_unchecked(t)->data)[11] = 42.0f;
  xffi_weak *w = NULL;
  assert_int_equal(xffi_weak_new(&w, t), XFFI_OK);
  uint64_t before = failing_allocator_attempts();
  DLManagedTensorVersioned *m = NULL;
  assert_int_equal(xffi_tensor_to_dlpack(&m, t), XFFI_OK);
  assert_int_equal(failing_allocator_attempts() - before, 1);
  assert_int_equal(xffi_object_strong_count(t), 2);
  assert_int_equal(m->version.major, 1);
  assert_int_equal(m->version.minor, XFFI_DLPACK_MINOR);
  assert_int_equal(m->flags, 0);
  DLTensor *dl = xffi_tensor_cell_of_unchecked(t);
  assert_ptr_equal(m->dl_tensor.data, dl->data);
  assert_ptr_equal(m->dl_tensor.shape, dl->shape);
  assert_ptr_equal(m->dl_tensor.strides, dl->strides);
  assert_int_equal(m->dl_tensor.ndim, 2);
  assert_true(xffi_dtype_equal(m->dl_tensor.dtype, f32));
  assert_int_equal(m->dl_tensor.device.device_type, kDLCPU);
  xffi_object_dec_ref(t); /* the producer lets go first */
  assert_false(is_destroyed(w));
  assert_true(((float *)m->dl_tensor.data)[11] == 42.0f);
  m->deleter(m);
  assert_true(is_destroyed(w));
  xffi_weak_release(w);
}

static void test_export_legacy_and_read_only_rules(void **state) {
  (void)state;
  int64_t shape[1] = {4};
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_new(&t, shape, 1, f32), XFFI_OK);
  DLManagedTensor *legacy = NULL;
  assert_int_equal(xffi_tensor_to_dlpack_legacy(&legacy, t), XFFI_OK);
  assert_ptr_equal(legacy->dl_tensor.data, xffi_tensor_cell_of_unchecked(t)->data);
  assert_int_equal(xffi_object_strong_count(t), 2);
  legacy->deleter(legacy);
  assert_int_equal(xffi_object_strong_count(t), 1);

  assert_int_equal(xffi_tensor_set_read_only(t), XFFI_OK);
  assert_read_only(t, 1);
  DLManagedTensorVersioned *m = NULL;
  assert_int_equal(xffi_tensor_to_dlpack(&m, t), XFFI_OK);
  assert_int_equal(m->flags & DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_FLAG_BITMASK_READ_ONLY);
  m->deleter(m);
  legacy = (DLManagedTensor *)0x1;
  assert_int_equal(xffi_tensor_to_dlpack_legacy(&legacy, t), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE,
                "xffi_tensor_to_dlpack_legacy: the tensor is read-only and a legacy DLManagedTensor cannot say so");
  assert_null(legacy);
  assert_int_equal(xffi_object_strong_count(t), 1);
  xffi_object_dec_ref(t);
}

static void test_export_then_import_gives_back_the_same_tensor(void **state) {
  (void)state;
  int64_t shape[2] = {2, 2};
  xffi_object *t = NULL, *back = NULL;
  assert_int_equal(xffi_tensor_new(&t, shape, 2, f32), XFFI_OK);
  DLManagedTensorVersioned *m = NULL;
  assert_int_equal(xffi_tensor_to_dlpack(&m, t), XFFI_OK);
  uint64_t before = failing_allocator_attempts();
  assert_int_equal(xffi_tensor_from_dlpack(&back, m), XFFI_OK);
  assert_int_equal(failing_allocator_attempts() - before, 0);
  assert_ptr_equal(back, t);
  assert_int_equal(xffi_object_strong_count(t), 2);
  xffi_object_dec_ref(back);

  DLManagedTensor *legacy = NULL;
  assert_int_equal(xffi_tensor_to_dlpack_legacy(&legacy, t), XFFI_OK);
  assert_int_equal(xffi_tensor_from_dlpack_legacy(&back, legacy), XFFI_OK);
  assert_ptr_equal(back, t);
  xffi_object_dec_ref(back);

  /* A consumer that marked the export read-only gets a read-only wrapper, and
   * the original stays writable. */
  assert_int_equal(xffi_tensor_to_dlpack(&m, t), XFFI_OK);
  m->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  assert_int_equal(xffi_tensor_from_dlpack(&back, m), XFFI_OK);
  assert_ptr_not_equal(back, t);
  assert_read_only(back, 1);
  assert_read_only(t, 0);
  assert_ptr_equal(xffi_tensor_cell_of_unchecked(back)->data, xffi_tensor_cell_of_unchecked(t)->data);
  xffi_object_dec_ref(back); /* runs the export's deleter, which drops its reference */
  /* A consumer that changed the DLTensor (a view) gets a wrapper too. */
  assert_int_equal(xffi_tensor_to_dlpack(&m, t), XFFI_OK);
  m->dl_tensor.byte_offset = 4;
  assert_int_equal(xffi_tensor_from_dlpack(&back, m), XFFI_OK);
  assert_ptr_not_equal(back, t);
  assert_int_equal(xffi_tensor_cell_of_unchecked(back)->byte_offset, 4);
  xffi_object_dec_ref(back);
  assert_int_equal(xffi_object_strong_count(t), 1);
  xffi_object_dec_ref(t);
}

static void test_export_out_of_memory_is_clean(void **state) {
  (void)state;
  int64_t shape[1] = {4};
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_new(&t, shape, 1, f32), XFFI_OK);
  DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)0x1;
  DLManagedTensor *legacy = (DLManagedTensor *)0x1;
  failing_allocator_fail_after(0);
  int s1 = xffi_tensor_to_dlpack(&m, t);
  int s2 = xffi_tensor_to_dlpack_legacy(&legacy, t);
  failing_allocator_fail_after(-1);
  assert_int_equal(s1, XFFI_FAIL);
  assert_int_equal(s2, XFFI_FAIL);
  assert_null(m);
  assert_null(legacy);
  assert_raised(XFFI_KIND_MEMORY, "");
  assert_int_equal(xffi_object_strong_count(t), 1);
  xffi_object_dec_ref(t);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_import_versioned_is_zero_copy_and_deletes_once),
      cmocka_unit_test(test_import_computes_missing_strides_and_keeps_byte_offset),
      cmocka_unit_test(test_import_read_only_flag_and_versions),
      cmocka_unit_test(test_import_null_deleter_is_allowed),
      cmocka_unit_test(test_import_legacy),
      cmocka_unit_test(test_import_deleter_runs_when_strong_refs_go_even_with_weak_refs),
      cmocka_unit_test(test_import_rejects_malformed_tensors),
      cmocka_unit_test(test_import_rejects_null),
      cmocka_unit_test(test_unchecked_import_keeps_the_producers_arrays_and_deletes_once),
      cmocka_unit_test(test_unchecked_imports_take_values_as_they_are),
      cmocka_unit_test(test_unchecked_imports_of_exports_are_the_same_tensor),
      cmocka_unit_test(test_unchecked_imports_still_refuse_what_xffi_memory_depends_on),
      cmocka_unit_test(test_import_out_of_memory_leaves_ownership_with_caller),
      cmocka_unit_test(test_export_versioned_keeps_tensor_alive_until_deleter),
      cmocka_unit_test(test_export_legacy_and_read_only_rules),
      cmocka_unit_test(test_export_then_import_gives_back_the_same_tensor),
      cmocka_unit_test(test_export_out_of_memory_is_clean),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
