/* Tensor: allocation, DLPack 1.x and legacy import/export (zero copy, one
 * allocation, deleters exactly once), read-only both ways, validation of every
 * malformed input, queries, and out-of-memory. */
#include "test_util.h"

#include <xffi/dtype.h>
#include <xffi/shape.h>
#include "failing_allocator.h"
#include <xffi/tensor.h>

static const DLDataType f32 = {kDLFloat, 32, 1};

/* ---- A fake producer: a managed tensor on the test's stack with a counting deleter. ---- */

typedef struct producer {
  DLManagedTensorVersioned managed;
  DLManagedTensor legacy;
  int64_t shape[4];
  int64_t strides[4];
  float data[64];
  int deleted;        /* times the versioned deleter ran */
  int legacy_deleted; /* times the legacy deleter ran */
} producer;

static void producer_deleter(DLManagedTensorVersioned *self) { ((producer *)self->manager_ctx)->deleted++; }
static void producer_legacy_deleter(DLManagedTensor *self) { ((producer *)self->manager_ctx)->legacy_deleted++; }

/* A 2x3 float32 tensor, compact, with explicit strides. */
static void producer_init(producer *p) {
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
  dl.dtype = f32;
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
static int is_destroyed(xffi_weak *w) {
  xffi_object *o = NULL;
  assert_int_equal(xffi_weak_lock(&o, w), XFFI_OK);
  if (!o) return 1;
  xffi_object_dec_ref(o);
  return 0;
}

/* ---- xffi_tensor_new ---- */

static void test_new_is_zeroed_aligned_compact_and_one_allocation(void **state) {
  (void)state;
  int64_t shape[3] = {2, 3, 5};
  uint64_t before = failing_allocator_attempts();
  xffi_object *t = NULL;
  assert_int_equal(xffi_tensor_new(&t, shape, 3, f32), XFFI_OK);
  assert_int_equal(failing_allocator_attempts() - before, 1);
  assert_int_equal(t->type_index, XFFI_TYPE_TENSOR);
  DLTensor *dl = xffi_tensor_dltensor(t);
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
  assert_int_equal(xffi_tensor_get(&got, t), XFFI_OK);
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
  assert_int_equal(*(int64_t *)xffi_tensor_dltensor(t)->data, 0);
  xffi_object_dec_ref(t);
  /* A zero dimension: no elements; strides stay meaningful (size 0 counts as 1). */
  int64_t empty[3] = {4, 0, 3};
  assert_int_equal(xffi_tensor_new(&t, empty, 3, f32), XFFI_OK);
  assert_int_equal(xffi_tensor_numel(&numel, t), XFFI_OK);
  assert_int_equal(numel, 0);
  assert_int_equal(xffi_tensor_dltensor(t)->strides[0], 3);
  assert_non_null(xffi_tensor_dltensor(t)->data);
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
  assert_int_equal(xffi_dtype_bytes(xffi_dtype_make(kDLInt, 4, 1)), 1);
  assert_int_equal(xffi_dtype_bytes(xffi_dtype_make(kDLFloat, 32, 4)), 16);
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
  DLTensor *dl = xffi_tensor_dltensor(t);
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
  DLTensor *dl = xffi_tensor_dltensor(t);
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
    DLTensor *dl = xffi_tensor_dltensor(t);
    assert_ptr_equal(dl->data, p.data);
    assert_int_equal(dl->shape[0], 2);
    assert_int_equal(dl->shape[1], 3);
    assert_ptr_not_equal(dl->shape, p.shape);
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

#define BOTH(field, value)           \
  do {                               \
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
  check_bad_import(&p, "xffi_tensor_from_dlpack: dtype has 32 bits and 0 lanes, both must be non-zero",
                   "0 lanes");
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

static void test_unchecked_import_copies_like_the_checked_one_and_deletes_once(void **state) {
  (void)state;
  producer p;
  producer_init(&p);
  p.managed.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  xffi_object *t = import_and_check_copy(xffi_tensor_from_dlpack_unchecked, &p);
  assert_read_only(t, 1);
  xffi_object_dec_ref(t);
  assert_int_equal(p.deleted, 1);

  /* NULL strides are computed, as by the checked import */
  producer_init(&p);
  p.managed.dl_tensor.strides = NULL;
  assert_int_equal(xffi_tensor_from_dlpack_unchecked(&t, &p.managed), XFFI_OK);
  DLTensor *dl = xffi_tensor_dltensor(t);
  assert_int_equal(dl->strides[0], 3);
  assert_int_equal(dl->strides[1], 1);
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
    assert_int_equal(xffi_tensor_dltensor(t)->device.device_type, 99);
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
  ((float *)xffi_tensor_dltensor(t)->data)[11] = 42.0f;
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
  DLTensor *dl = xffi_tensor_dltensor(t);
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
  assert_ptr_equal(legacy->dl_tensor.data, xffi_tensor_dltensor(t)->data);
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
  assert_ptr_equal(xffi_tensor_dltensor(back)->data, xffi_tensor_dltensor(t)->data);
  xffi_object_dec_ref(back); /* runs the export's deleter, which drops its reference */
  /* A consumer that changed the DLTensor (a view) gets a wrapper too. */
  assert_int_equal(xffi_tensor_to_dlpack(&m, t), XFFI_OK);
  m->dl_tensor.byte_offset = 4;
  assert_int_equal(xffi_tensor_from_dlpack(&back, m), XFFI_OK);
  assert_ptr_not_equal(back, t);
  assert_int_equal(xffi_tensor_dltensor(back)->byte_offset, 4);
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
  assert_true(xffi_dims_equal(xffi_shape_view(shape)->data, xffi_shape_view(shape)->size, expect, 2));
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
  assert_string_equal(xffi_any_kind_name(&v), "Tensor");
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
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_is_read_only: tensor expected Tensor, got String");
  assert_int_equal(xffi_tensor_is_read_only(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_is_read_only: out is NULL");
  assert_int_equal(xffi_tensor_set_read_only(s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_set_read_only: tensor expected Tensor, got String");
  assert_int_equal(xffi_tensor_set_read_only(NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_set_read_only: tensor is NULL");
  assert_int_equal(xffi_tensor_get(&dl, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_get: tensor expected Tensor, got String");
  assert_int_equal(xffi_tensor_get(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_get: out is NULL");
  assert_int_equal(xffi_tensor_numel(&n, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_numel: tensor expected Tensor, got String");
  assert_int_equal(xffi_tensor_numel(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_numel: out is NULL");
  assert_int_equal(xffi_tensor_nbytes(&u, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_nbytes: tensor expected Tensor, got String");
  assert_int_equal(xffi_tensor_nbytes(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_nbytes: out is NULL");
  assert_int_equal(xffi_tensor_is_contiguous(&i, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_is_contiguous: tensor expected Tensor, got String");
  assert_int_equal(xffi_tensor_is_contiguous(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_is_contiguous: out is NULL");
  assert_int_equal(xffi_tensor_shape(&o, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_shape: tensor expected Tensor, got String");
  assert_int_equal(xffi_tensor_shape(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_shape: out is NULL");
  assert_int_equal(xffi_tensor_to_dlpack(&m, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_to_dlpack: tensor expected Tensor, got String");
  assert_int_equal(xffi_tensor_to_dlpack(NULL, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_to_dlpack: out is NULL");
  assert_int_equal(xffi_tensor_to_dlpack(&m, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_tensor_to_dlpack: tensor is NULL");
  assert_int_equal(xffi_tensor_to_dlpack_legacy(&lm, s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_tensor_to_dlpack_legacy: tensor expected Tensor, got String");
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
      cmocka_unit_test(test_import_versioned_is_zero_copy_and_deletes_once),
      cmocka_unit_test(test_import_computes_missing_strides_and_keeps_byte_offset),
      cmocka_unit_test(test_import_read_only_flag_and_versions),
      cmocka_unit_test(test_import_null_deleter_is_allowed),
      cmocka_unit_test(test_import_legacy),
      cmocka_unit_test(test_import_deleter_runs_when_strong_refs_go_even_with_weak_refs),
      cmocka_unit_test(test_import_rejects_malformed_tensors),
      cmocka_unit_test(test_import_rejects_null),
      cmocka_unit_test(test_unchecked_import_copies_like_the_checked_one_and_deletes_once),
      cmocka_unit_test(test_unchecked_imports_take_values_as_they_are),
      cmocka_unit_test(test_unchecked_imports_of_exports_are_the_same_tensor),
      cmocka_unit_test(test_unchecked_imports_still_refuse_what_xffi_memory_depends_on),
      cmocka_unit_test(test_import_out_of_memory_leaves_ownership_with_caller),
      cmocka_unit_test(test_export_versioned_keeps_tensor_alive_until_deleter),
      cmocka_unit_test(test_export_legacy_and_read_only_rules),
      cmocka_unit_test(test_export_then_import_gives_back_the_same_tensor),
      cmocka_unit_test(test_export_out_of_memory_is_clean),
      cmocka_unit_test(test_contiguity_and_shape_object),
      cmocka_unit_test(test_queries_reject_null_and_non_tensors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
