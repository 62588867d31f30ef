/* Fuzz target: DLPack import of arbitrary tensor descriptors (versioned and
 * legacy): any ndim, shape, strides, dtype, device, byte offset, version,
 * flags and NULL pointers. An accepted tensor must describe exactly what was
 * given, survive an export/import round trip as the same Tensor, and call the
 * producer's deleter exactly once, and be described the same by the
 * unchecked import, and lie within the address space (data, byte offset and
 * extent never wrap); a refused one must raise a ValueError and leave the
 * producer's tensor alone (deleter not called). xffi_tensor_new
 * gets the same shapes and dtypes (when small enough to allocate). */
#include "fuzz_common.h"

enum { MAX_DIMS = 12 };

static int deleter_calls;
static void versioned_deleter(DLManagedTensorVersioned *m) {
  (void)m;
  deleter_calls++;
}
static void legacy_deleter(DLManagedTensor *m) {
  (void)m;
  deleter_calls++;
}

static int64_t fuzz_dim(fuzz_input *in) {
  uint8_t pick = fuzz_u8(in);
  if (pick < 160) return pick % 6; /* mostly small: 0..5 */
  return fuzz_i64(in);
}

/* What must make any import fail, whatever the rest (the checks that do not
 * depend on overflow arithmetic). */
static int surely_invalid(const DLTensor *dl) {
  if (dl->ndim < 0 || (dl->ndim > 0 && !dl->shape)) return 1;
  if (dl->dtype.bits == 0 || dl->dtype.lanes == 0) return 1;
  if (!xffi_device_type_name((int32_t)dl->device.device_type) || dl->device.device_id < 0) return 1;
  for (int32_t i = 0; i < dl->ndim; ++i)
    if (dl->shape[i] < 0) return 1;
  return 0;
}

/* The reference model of the address check, in 128-bit arithmetic: whether
 * some byte the tensor reaches lies outside the address space (data +
 * byte_offset wraps, negative strides reach below 0, or the span runs past
 * the top). Only meaningful for a tensor whose other checks pass. */
__extension__ typedef unsigned __int128 fuzz_u128;
static int reaches_outside_address_space(const DLTensor *dl) {
  fuzz_u128 base = (fuzz_u128)(uintptr_t)dl->data + dl->byte_offset;
  if (base > UINTPTR_MAX) return 1;
  fuzz_u128 numel = 1, below = 0, above = 0;
  for (int32_t i = 0; i < dl->ndim; ++i) numel *= (fuzz_u128)dl->shape[i];
  if (numel == 0) return 0;
  if (!dl->strides) above = numel - 1;
  for (int32_t i = 0; dl->strides && i < dl->ndim; ++i) {
    int64_t s = dl->strides[i];
    fuzz_u128 step = (fuzz_u128)(dl->shape[i] - 1) * (s < 0 ? 0 - (fuzz_u128)s : (fuzz_u128)s);
    if (s < 0)
      below += step;
    else
      above += step;
  }
  fuzz_u128 bits = (fuzz_u128)dl->dtype.bits * dl->dtype.lanes;
  fuzz_u128 below_bytes = (below * bits + 7) / 8, span_bytes = ((below + above + 1) * bits + 7) / 8;
  return below_bytes > base || base - below_bytes + span_bytes > UINTPTR_MAX;
}

static void check_accepted(xffi_object *t, const DLTensor *dl, int read_only) {
  FUZZ_CHECK(t->type_index == XFFI_TYPE_TENSOR && xffi_object_strong_count(t) == 1);
  const DLTensor *got = xffi_tensor_cell_of_unchecked(t);
  FUZZ_CHECK(got->data == dl->data && got->ndim == dl->ndim && got->byte_offset == dl->byte_offset);
  FUZZ_CHECK(xffi_dtype_equal(got->dtype, dl->dtype));
  FUZZ_CHECK(got->device.device_type == dl->device.device_type && got->device.device_id == dl->device.device_id);
  FUZZ_CHECK(!surely_invalid(dl));
  FUZZ_CHECK(!reaches_outside_address_space(dl));
  FUZZ_CHECK(got->shape != NULL && got->strides != NULL);
  FUZZ_CHECK(xffi_dims_equal(got->shape, got->ndim, dl->shape, dl->ndim));
  int64_t numel = 1;
  for (int32_t i = 0; i < dl->ndim; ++i)
    if (dl->shape[i] == 0) numel = 0;
  for (int32_t i = 0; numel && i < dl->ndim; ++i) FUZZ_CHECK(!__builtin_mul_overflow(numel, dl->shape[i], &numel));
  int64_t n = -1;
  FUZZ_CHECK(xffi_tensor_numel(&n, t) == XFFI_OK && n == numel);
  if (numel > 0) FUZZ_CHECK(dl->data != NULL);
  uint64_t nbytes = 0;
  FUZZ_CHECK(xffi_tensor_nbytes(&nbytes, t) == XFFI_OK);
  FUZZ_CHECK(nbytes == ((uint64_t)numel * dl->dtype.bits * dl->dtype.lanes + 7) / 8);
  /* Strides: given ones are kept; missing ones are the compact row-major ones. */
  int64_t compact[MAX_DIMS], s = 1;
  int compact_overflows = 0; /* possible only for an empty tensor: then its strides are unspecified */
  for (int32_t i = dl->ndim - 1; i >= 0; --i) {
    compact[i] = s;
    if (dl->shape[i] > 1 && __builtin_mul_overflow(s, dl->shape[i], &s)) compact_overflows = 1;
  }
  FUZZ_CHECK(!compact_overflows || numel == 0);
  if (dl->strides) {
    FUZZ_CHECK(xffi_dims_equal(got->strides, (size_t)got->ndim, dl->strides, (size_t)dl->ndim));
  } else if (!compact_overflows) {
    FUZZ_CHECK(xffi_dims_equal(got->strides, (size_t)got->ndim, compact, (size_t)dl->ndim));
  }
  int contiguous = -1, expect = 1;
  for (int32_t i = 0; i < dl->ndim; ++i)
    if (dl->shape[i] != 1 && got->strides[i] != compact[i]) expect = 0;
  FUZZ_CHECK(xffi_tensor_is_contiguous(&contiguous, t) == XFFI_OK);
  if (!dl->strides) FUZZ_CHECK(contiguous == 1);
  if (numel > 0) FUZZ_CHECK(contiguous == expect);
  int ro = -1;
  FUZZ_CHECK(xffi_tensor_is_read_only(&ro, t) == XFFI_OK && ro == read_only);
  xffi_object *shape = NULL;
  FUZZ_CHECK(xffi_tensor_shape(&shape, t) == XFFI_OK);
  const xffi_shape_cell *cell = xffi_shape_cell_of_unchecked(shape);
  FUZZ_CHECK(xffi_dims_equal(cell->data, cell->size, dl->shape, (size_t)dl->ndim));
  xffi_object_dec_ref(shape);

  /* Export and import back: the same Tensor, and the producer untouched. */
  DLManagedTensorVersioned *exported = NULL;
  FUZZ_CHECK(xffi_tensor_to_dlpack(&exported, t) == XFFI_OK);
  FUZZ_CHECK(xffi_object_strong_count(t) == 2);
  FUZZ_CHECK(((exported->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0) == read_only);
  xffi_object *again = NULL;
  FUZZ_CHECK(xffi_tensor_from_dlpack(&again, exported) == XFFI_OK && again == t);
  xffi_object_dec_ref(again);
  DLManagedTensor *legacy = NULL;
  if (read_only) {
    FUZZ_CHECK(xffi_tensor_to_dlpack_legacy(&legacy, t) == XFFI_FAIL && legacy == NULL);
    fuzz_expect_raised(XFFI_KIND_VALUE, "xffi_tensor_to_dlpack_legacy");
  } else {
    FUZZ_CHECK(xffi_tensor_to_dlpack_legacy(&legacy, t) == XFFI_OK);
    FUZZ_CHECK(xffi_tensor_from_dlpack_legacy(&again, legacy) == XFFI_OK && again == t);
    xffi_object_dec_ref(again);
  }
  FUZZ_CHECK(xffi_object_strong_count(t) == 1);
  FUZZ_CHECK(deleter_calls == 0);
}

/* The unchecked import (versioned m, or legacy lm when not NULL) of a
 * descriptor the checked import accepted as checked: the same tensor
 * described, the deleter called once when it goes. */
static void check_unchecked_agrees(xffi_object *checked, DLManagedTensorVersioned *m, DLManagedTensor *lm) {
  xffi_object *u = NULL;
  int before = deleter_calls;
  if (lm)
    FUZZ_CHECK(xffi_tensor_from_dlpack_legacy_unchecked(&u, lm) == XFFI_OK);
  else
    FUZZ_CHECK(xffi_tensor_from_dlpack_unchecked(&u, m) == XFFI_OK);
  FUZZ_CHECK(u != checked);
  const DLTensor *a = xffi_tensor_cell_of_unchecked(checked), *b = xffi_tensor_cell_of_unchecked(u);
  FUZZ_CHECK(a->data == b->data && a->ndim == b->ndim && a->byte_offset == b->byte_offset);
  FUZZ_CHECK(xffi_dtype_equal(a->dtype, b->dtype));
  FUZZ_CHECK(a->device.device_type == b->device.device_type && a->device.device_id == b->device.device_id);
  FUZZ_CHECK(xffi_dims_equal(a->shape, (size_t)a->ndim, b->shape, (size_t)b->ndim));
  FUZZ_CHECK(xffi_dims_equal(a->strides, (size_t)a->ndim, b->strides, (size_t)b->ndim));
  int ro_a = -1, ro_b = -2;
  FUZZ_CHECK(xffi_tensor_is_read_only(&ro_a, checked) == XFFI_OK && xffi_tensor_is_read_only(&ro_b, u) == XFFI_OK);
  FUZZ_CHECK(ro_a == ro_b);
  xffi_object_dec_ref(u);
  FUZZ_CHECK(deleter_calls == before + 1);
  deleter_calls = before; /* the checked Tensor's own release is counted next */
}

static void check_tensor_new(const DLTensor *dl) {
  /* Only sizes that are cheap to allocate (or surely refused before allocating). */
  int64_t numel = 1;
  int big = 0;
  if (dl->ndim < 0 || dl->ndim > MAX_DIMS || (dl->ndim > 0 && !dl->shape)) {
    big = dl->ndim > MAX_DIMS;
  } else {
    for (int32_t i = 0; i < dl->ndim; ++i)
      if (dl->shape[i] >= 0 && __builtin_mul_overflow(numel, dl->shape[i], &numel)) big = 1;
    int64_t bits;
    if (!big && (__builtin_mul_overflow(numel, (int64_t)dl->dtype.bits * dl->dtype.lanes, &bits) ||
                 bits > (int64_t)8 << 20)) /* 1 MiB */
      big = 1;
  }
  int refused = dl->ndim < 0 || (dl->ndim > 0 && !dl->shape) || dl->dtype.bits == 0 || dl->dtype.lanes == 0;
  for (int32_t i = 0; !refused && i < dl->ndim; ++i) refused = dl->shape[i] < 0;
  if (big && !refused) return;
  xffi_object *t = (xffi_object *)0x1;
  int status = xffi_tensor_new(&t, dl->shape, dl->ndim, dl->dtype);
  if (refused) {
    FUZZ_CHECK(status == XFFI_FAIL && t == NULL);
    fuzz_expect_raised(XFFI_KIND_VALUE, "xffi_tensor_new");
    return;
  }
  FUZZ_CHECK(status == XFFI_OK);
  const DLTensor *got = xffi_tensor_cell_of_unchecked(t);
  FUZZ_CHECK(got->ndim == dl->ndim && xffi_dims_equal(got->shape, (size_t)got->ndim, dl->shape, (size_t)dl->ndim));
  FUZZ_CHECK(((uintptr_t)got->data % XFFI_TENSOR_ALIGNMENT) == 0 && got->device.device_type == kDLCPU);
  uint64_t nbytes = 0;
  FUZZ_CHECK(xffi_tensor_nbytes(&nbytes, t) == XFFI_OK);
  const unsigned char *bytes = got->data;
  for (uint64_t i = 0; i < nbytes; ++i) FUZZ_CHECK(bytes[i] == 0); /* zero-filled, all of it addressable */
  xffi_object_dec_ref(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char buffer[64];
  fuzz_input in = {data, size};
  uint8_t mode = fuzz_u8(&in);
  int legacy = mode & 1, with_strides = mode & 2, null_shape = (mode & 0x0c) == 0x0c, null_data = (mode & 0x30) == 0x30,
      read_only_flag = (mode & 0x40) != 0;
  int64_t shape[MAX_DIMS], strides[MAX_DIMS];
  DLTensor dl;
  memset(&dl, 0, sizeof(dl));
  dl.ndim = (int32_t)(fuzz_u8(&in) % (MAX_DIMS + 4)) - 3; /* -3 .. 12 */
  if (mode & 0x80) dl.ndim = (int32_t)fuzz_i64(&in);
  if (dl.ndim > MAX_DIMS) dl.ndim = MAX_DIMS; /* the arrays hold MAX_DIMS: a larger ndim would be a lie */
  for (int i = 0; i < MAX_DIMS; ++i) {
    shape[i] = fuzz_dim(&in);
    strides[i] = with_strides ? fuzz_i64(&in) : 0;
  }
  dl.shape = null_shape ? NULL : shape;
  dl.strides = with_strides ? strides : NULL;
  dl.data = null_data ? NULL : buffer; /* xffi never reads the data */
  dl.dtype = xffi_dtype_make(fuzz_u8(&in) % 8, fuzz_u8(&in), (uint16_t)(fuzz_u8(&in) < 200 ? 1 : fuzz_u16(&in)));
  dl.device = xffi_device_make(fuzz_u8(&in) % 21, (int32_t)fuzz_dim(&in));
  dl.byte_offset = fuzz_u8(&in) < 128 ? 0 : (uint64_t)fuzz_i64(&in);
  uint8_t version_pick = fuzz_u8(&in);
  uint32_t major = version_pick < 220 ? 1 : version_pick - 220;
  /* Sometimes data is an arbitrary address, or one near the top of the
   * address space, for the checks that the tensor's bytes do not wrap. */
  uint8_t data_pick = fuzz_u8(&in);
  if (!null_data && data_pick >= 224)
    dl.data = (void *)(UINTPTR_MAX - fuzz_u16(&in));
  else if (!null_data && data_pick >= 192)
    dl.data = (void *)(uintptr_t)fuzz_u64(&in);

  deleter_calls = 0;
  xffi_object *t = (xffi_object *)0x1;
  int status, read_only;
  /* The producer's structs live until the Tensor is released (it calls their deleter). */
  DLManagedTensor lm = {dl, NULL, legacy_deleter};
  DLManagedTensorVersioned m;
  if (legacy) {
    status = xffi_tensor_from_dlpack_legacy(&t, &lm);
    read_only = 0;
    if (status != XFFI_OK)
      fuzz_expect_raised(XFFI_KIND_VALUE, "xffi_tensor_from_dlpack_legacy");
    else
      check_accepted(t, &dl, read_only), check_unchecked_agrees(t, NULL, &lm);
    FUZZ_CHECK(memcmp(&lm.dl_tensor, &dl, sizeof(dl)) == 0); /* the producer's descriptor is never written */
  } else {
    memset(&m, 0, sizeof(m));
    m.version.major = major;
    m.version.minor = fuzz_u8(&in);
    m.deleter = versioned_deleter;
    m.flags = read_only_flag ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
    m.dl_tensor = dl;
    status = xffi_tensor_from_dlpack(&t, &m);
    read_only = read_only_flag;
    if (status != XFFI_OK) {
      fuzz_expect_raised(XFFI_KIND_VALUE, "xffi_tensor_from_dlpack");
    } else {
      FUZZ_CHECK(major == 1);
      check_accepted(t, &dl, read_only);
      check_unchecked_agrees(t, &m, NULL);
    }
    FUZZ_CHECK(memcmp(&m.dl_tensor, &dl, sizeof(dl)) == 0);
  }
  if (status == XFFI_OK) {
    xffi_object_dec_ref(t);
    FUZZ_CHECK(deleter_calls == 1);
  } else {
    FUZZ_CHECK(t == NULL && deleter_calls == 0);
  }
  if (surely_invalid(&dl) || (!legacy && major != 1)) FUZZ_CHECK(status == XFFI_FAIL);
  if ((uint64_t)(UINTPTR_MAX - (uintptr_t)dl.data) < dl.byte_offset) FUZZ_CHECK(status == XFFI_FAIL);
  FUZZ_NOTHING_RAISED();
  check_tensor_new(&dl);
  FUZZ_NOTHING_RAISED();
  return 0;
}
