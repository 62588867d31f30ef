/* c/lib/tensor/tensor.c: Tensor objects, allocation, DLPack 1.x and legacy import/export.
 *
 * Layout of one Tensor allocation:
 *   xffi_object header | DLTensor | flags | producer | shape[ndim] | strides[ndim]
 * and, for tensors made by xffi_tensor_new, padding to 64 bytes and the data.
 * An unchecked import keeps the producer's shape and strides instead (only
 * computed strides follow the cell).
 * Every Tensor comes from the runtime's object allocator (with the
 * allocation header before it, c/runtime/internal.h). Three deleters: owned data
 * (one allocation, 64-byte aligned), adopted (a DLPack 1.x or, flagged, a
 * legacy producer to release) and view (a source Tensor to release). */
#include <string.h>

#include <xffi/dtype.h>
#include <xffi/shape.h>
#include <xffi/tensor.h>

#include "runtime/check.h"
#include "runtime/internal.h"
#include "lib/tensor/tensor_view.h"

#define TENSOR_READ_ONLY UINT64_C(1)
/* Set once at adoption: the producer is a legacy DLManagedTensor. */
#define TENSOR_PRODUCER_LEGACY UINT64_C(2)

typedef struct tensor_object {
  xffi_object header;
  DLTensor dl;
  uint64_t flags __attribute__((aligned(8))); /* TENSOR_*; atomic, so 8-byte aligned on i386 too */
  void *producer;                             /* the adopted DLManagedTensorVersioned / DLManagedTensor, or NULL */
  int64_t dims[];                             /* shape[ndim] then strides[ndim], or computed strides only */
} tensor_object;

_Static_assert(offsetof(tensor_object, dl) == 24, "the DLTensor follows the 24-byte header");
_Static_assert(sizeof(tensor_object) % 8 == 0, "dims stay 8-byte aligned");

static tensor_object *as_tensor(const xffi_object *obj) { return (tensor_object *)(uintptr_t)obj; }

/* ---- Deleters ---- */

static void deleter_owned(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

/* An adopted tensor: releases the producer (never NULL: adopt is always
 * given one; its deleter may be), a DLManagedTensorVersioned or, with
 * TENSOR_PRODUCER_LEGACY, a DLManagedTensor. */
static void deleter_adopted(void *self, int flags) {
  tensor_object *t = (tensor_object *)self;
  if (flags & XFFI_DELETE_CONTENTS) {
    if (t->flags & TENSOR_PRODUCER_LEGACY) {
      DLManagedTensor *m = (DLManagedTensor *)t->producer;
      if (m->deleter) m->deleter(m);
    } else {
      DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)t->producer;
      if (m->deleter) m->deleter(m);
    }
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

/* ---- Validation ---- */

static int device_ok(const char *fn, DLDevice device) {
  if (!xffi_device_type_name((int32_t)device.device_type))
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: device type %d is unknown (DLPack defines 1..4 and 7..18)", fn,
                            (int)device.device_type);
  if (device.device_id < 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: device id is %d, expected >= 0", fn, (int)device.device_id);
  return XFFI_OK;
}

static int dtype_ok(const char *fn, DLDataType dtype) {
  if (dtype.bits == 0 || dtype.lanes == 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: dtype has %u bits and %u lanes, both must be non-zero", fn,
                            (unsigned)dtype.bits, (unsigned)dtype.lanes);
  return XFFI_OK;
}

/* Checks ndim, shape and dtype and computes the element count. */
static int shape_ok(int64_t *numel, const char *fn, int32_t ndim, const int64_t *shape, DLDataType dtype) {
  if (ndim < 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: ndim is %d, expected >= 0", fn, (int)ndim);
  if (!shape && ndim > 0) return xffi_error_raise(XFFI_KIND_VALUE, "%s: shape is NULL but ndim is %d", fn, (int)ndim);
  if (dtype_ok(fn, dtype) != XFFI_OK) return XFFI_FAIL;
  int has_zero = 0;
  for (int32_t i = 0; i < ndim; i++) {
    if (shape[i] < 0)
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: shape[%d] is %lld, expected >= 0", fn, (int)i, (long long)shape[i]);
    if (shape[i] == 0) has_zero = 1;
  }
  /* An empty tensor holds no bytes, whatever its other dimensions: its
   * count is 0, never an overflow (shape [2^62, 5, 0] is valid). */
  int64_t n = has_zero ? 0 : 1, bits;
  for (int32_t i = 0; i < ndim && n != 0; i++)
    if (__builtin_mul_overflow(n, shape[i], &n)) goto too_big;
  if (__builtin_mul_overflow(n, (int64_t)dtype.bits * dtype.lanes, &bits)) goto too_big;
  *numel = n;
  return XFFI_OK;
too_big:
  return xffi_error_raise(XFFI_KIND_VALUE, "%s: the byte size of shape (%d dimensions) and dtype overflows int64", fn,
                          (int)ndim);
}

/* Checks that the furthest element reachable through the strides has a byte
 * offset that fits in int64. */
static int strides_ok(const char *fn, int32_t ndim, const int64_t *shape, const int64_t *strides, DLDataType dtype,
                      int64_t numel) {
  if (numel == 0) return XFFI_OK;
  int64_t extent = 0;
  for (int32_t i = 0; i < ndim; i++) {
    int64_t s = strides[i];
    int64_t step;
    if (s == INT64_MIN || __builtin_mul_overflow(shape[i] - 1, s < 0 ? -s : s, &step) ||
        __builtin_add_overflow(extent, step, &extent))
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: strides[%d] = %lld makes the extent of the tensor overflow int64",
                              fn, (int)i, (long long)s);
  }
  int64_t bits;
  if (__builtin_add_overflow(extent, 1, &extent) ||
      __builtin_mul_overflow(extent, (int64_t)dtype.bits * dtype.lanes, &bits))
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: the byte extent of the strided tensor overflows int64", fn);
  return XFFI_OK;
}

/* Where the tensor's bytes lie: data + byte_offset is the base; negative
 * strides reach below_bytes under it, and the lowest to the highest element
 * spans span_bytes. Returns 0 when all of it is addressable (no wrap around
 * either end of the address space), else which bound is broken: 1 the base
 * itself, 2 below it, 3 above it. A pointer past these would wrap, and a
 * consumer doing the documented pointer arithmetic would touch memory far
 * from the tensor. */
static inline int address_span_wraps(const DLTensor *src, uint64_t below_bytes, uint64_t span_bytes) {
  uintptr_t data = (uintptr_t)src->data;
  if (XFFI_UNLIKELY(src->byte_offset > (uint64_t)(UINTPTR_MAX - data))) return 1;
  uintptr_t base = data + (uintptr_t)src->byte_offset;
  if (XFFI_UNLIKELY(below_bytes > base)) return 2;
  if (XFFI_UNLIKELY(span_bytes > (uint64_t)(UINTPTR_MAX - (base - (uintptr_t)below_bytes)))) return 3;
  return 0;
}

/* Bytes covered by `elements` elements of elem_bits each, rounded up; the
 * product was checked to fit int64. */
static inline uint64_t bits_to_bytes(uint64_t elements, int64_t elem_bits) {
  return (elements * (uint64_t)elem_bits + 7) / 8;
}

/* The slow path's address check, with a message saying which bound breaks.
 * Shape and strides were validated (their extents fit int64). */
static int address_span_ok(const char *fn, const DLTensor *src, int64_t numel) {
  uint64_t below = 0, span = 0; /* in elements: below the base, lowest to highest + 1 */
  if (numel > 0) {
    uint64_t above = (uint64_t)numel - 1; /* compact strides */
    if (src->strides) {
      above = 0;
      for (int32_t i = 0; i < src->ndim; i++) {
        int64_t stride = src->strides[i];
        uint64_t step = (uint64_t)(src->shape[i] - 1) * (stride < 0 ? 0 - (uint64_t)stride : (uint64_t)stride);
        if (stride < 0)
          below += step;
        else
          above += step;
      }
    }
    span = below + above + 1;
  }
  int64_t elem_bits = (int64_t)src->dtype.bits * src->dtype.lanes;
  uint64_t below_bytes = bits_to_bytes(below, elem_bits), span_bytes = bits_to_bytes(span, elem_bits);
  switch (address_span_wraps(src, below_bytes, span_bytes)) {
    case 1:
      return xffi_error_raise(XFFI_KIND_VALUE,
                              "%s: byte_offset %llu added to data %p wraps past the end of the address space", fn,
                              (unsigned long long)src->byte_offset, src->data);
    case 2:
      return xffi_error_raise(XFFI_KIND_VALUE,
                              "%s: negative strides reach %llu bytes below data + byte_offset (%p + %llu), "
                              "past the start of the address space",
                              fn, (unsigned long long)below_bytes, src->data, (unsigned long long)src->byte_offset);
    case 3:
      return xffi_error_raise(XFFI_KIND_VALUE,
                              "%s: the tensor's %llu bytes from data + byte_offset (%p + %llu) wrap past the end of "
                              "the address space",
                              fn, (unsigned long long)span_bytes, src->data, (unsigned long long)src->byte_offset);
    default: return XFFI_OK;
  }
}

/* Row-major strides. A non-empty tensor's element count was checked, so its
 * products fit; an empty one may have other dimensions whose product does
 * not, and there the strides saturate at INT64_MAX (no element is reachable
 * through them anyway). */
static void compact_strides(int64_t *strides, const int64_t *shape, int32_t ndim) {
  int64_t s = 1;
  for (int32_t i = ndim - 1; i >= 0; i--) {
    strides[i] = s;
    if (__builtin_mul_overflow(s, shape[i] > 1 ? shape[i] : 1, &s)) s = INT64_MAX;
  }
}

/* ---- Allocation ---- */

static size_t header_size(int32_t ndim) { return sizeof(tensor_object) + 2 * (size_t)ndim * sizeof(int64_t); }

int xffi_tensor_new(xffi_object **out, const int64_t *shape, int32_t ndim, DLDataType dtype) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  int64_t numel;
  if (shape_ok(&numel, __func__, ndim, shape, dtype) != XFFI_OK) return XFFI_FAIL;
  uint64_t nbytes = ((uint64_t)numel * dtype.bits * dtype.lanes + 7) / 8;
  size_t data_offset = (header_size(ndim) + XFFI_TENSOR_ALIGNMENT - 1) & ~(size_t)(XFFI_TENSOR_ALIGNMENT - 1);
  if (nbytes > SIZE_MAX - data_offset)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: %llu bytes of data do not fit in memory", __func__,
                            (unsigned long long)nbytes);
  tensor_object *t =
      (tensor_object *)xffi_runtime_object_alloc(data_offset + (size_t)nbytes, XFFI_TENSOR_ALIGNMENT, XFFI_TYPE_TENSOR);
  if (!t) return XFFI_FAIL;
  xffi_object_init(&t->header, XFFI_TYPE_TENSOR, deleter_owned);
  char *data = (char *)t + data_offset;
  memset(data, 0, (size_t)nbytes);
  t->dl.data = data;
  t->dl.device = xffi_device_make(kDLCPU, 0);
  t->dl.ndim = ndim;
  t->dl.dtype = dtype;
  t->dl.shape = t->dims;
  t->dl.strides = t->dims + ndim;
  t->dl.byte_offset = 0;
  t->flags = 0;
  t->producer = NULL;
  if (ndim) memcpy(t->dims, shape, (size_t)ndim * sizeof(int64_t));
  compact_strides(t->dims + ndim, t->dims, ndim);
  *out = &t->header;
  return XFFI_OK;
}

/* A view (TVMFFITensorCreateUnsafeView): producer holds a strong reference
 * to the source Tensor, and the memory comes from the runtime's object
 * allocator (the header protocol of c/compat/abi/tvm_object.c). */
static void deleter_view(void *self, int flags) {
  tensor_object *t = (tensor_object *)self;
  if (flags & XFFI_DELETE_CONTENTS) {
    if (xffi_release_begin(t, flags, deleter_view)) return;
    xffi_object_dec_ref_inline(t->producer);
    xffi_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

int xffi_tensor_view_new(xffi_object **out, xffi_object *source, const DLTensor *prototype) {
  *out = NULL;
  int32_t ndim = prototype->ndim;
  tensor_object *t = xffi_runtime_object_alloc(header_size(ndim), _Alignof(tensor_object), XFFI_TYPE_TENSOR);
  if (!t) return XFFI_FAIL;
  xffi_object_init(&t->header, XFFI_TYPE_TENSOR, deleter_view);
  t->dl = *prototype;
  t->dl.shape = t->dims;
  t->dl.strides = t->dims + ndim;
  t->flags = 0;
  xffi_object_inc_ref_inline(source);
  t->producer = source;
  if (ndim) {
    memcpy(t->dims, prototype->shape, (size_t)ndim * sizeof(int64_t));
    if (prototype->strides)
      memcpy(t->dims + ndim, prototype->strides, (size_t)ndim * sizeof(int64_t));
    else
      compact_strides(t->dims + ndim, t->dims, ndim);
  }
  *out = &t->header;
  return XFFI_OK;
}

/* ---- Import ---- */

/* The deleters of our own exports, to recognise a round trip. */
static void export_deleter_versioned(DLManagedTensorVersioned *self);
static void export_deleter_legacy(DLManagedTensor *self);

/* Whether an exported DLTensor still describes exactly the Tensor it came from. */
static int same_dltensor(const DLTensor *a, const DLTensor *b) {
  return a->data == b->data && a->device.device_type == b->device.device_type &&
         a->device.device_id == b->device.device_id && a->ndim == b->ndim && xffi_dtype_equal(a->dtype, b->dtype) &&
         a->shape == b->shape && a->strides == b->strides && a->byte_offset == b->byte_offset;
}

/* Fills the header and cell of an adopted Tensor, whose shape and strides are
 * (or will be) in t->dims; returns the object. */
static inline xffi_object *adopted_init(tensor_object *t, const DLTensor *src, int32_t ndim, void *producer,
                                        uint64_t flags) {
  xffi_object_init(&t->header, XFFI_TYPE_TENSOR, deleter_adopted);
  t->dl = *src;
  t->dl.shape = t->dims;
  t->dl.strides = t->dims + ndim;
  t->flags = flags;
  t->producer = producer;
  return &t->header;
}

/* The slow path of adopt: validates first, with precise messages, then copies.
 * Out of line: it runs only for malformed or unusual input. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int
adopt_checked(xffi_object **out, const char *fn, const DLTensor *src, void *producer, uint64_t flags) {
  int64_t numel;
  if (shape_ok(&numel, fn, src->ndim, src->shape, src->dtype) != XFFI_OK) return XFFI_FAIL;
  if (device_ok(fn, src->device) != XFFI_OK) return XFFI_FAIL;
  if (src->strides && strides_ok(fn, src->ndim, src->shape, src->strides, src->dtype, numel) != XFFI_OK)
    return XFFI_FAIL;
  if (!src->data && numel > 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: data is NULL but the tensor has %lld elements", fn, (long long)numel);
  if (address_span_ok(fn, src, numel) != XFFI_OK) return XFFI_FAIL;
  int32_t ndim = src->ndim;
  tensor_object *t =
      (tensor_object *)xffi_runtime_object_alloc(header_size(ndim), _Alignof(tensor_object), XFFI_TYPE_TENSOR);
  if (!t) return XFFI_FAIL;
  xffi_object *obj = adopted_init(t, src, ndim, producer, flags);
  if (ndim) {
    memcpy(t->dims, src->shape, (size_t)ndim * sizeof(int64_t));
    if (src->strides)
      memcpy(t->dims + ndim, src->strides, (size_t)ndim * sizeof(int64_t));
    else
      compact_strides(t->dims + ndim, t->dims, ndim);
  }
  *out = obj;
  return XFFI_OK;
}

/* Whether DLPack defines a device type (1..4, 7..18), without a call. */
static inline int device_type_known(int32_t type) {
  return (uint32_t)type < 32 && ((UINT32_C(0x7FF9E) >> type) & 1); /* bits 1..4 and 7..18 */
}

/* Validates a producer's DLTensor and makes a Tensor whose cell copies it
 * (shape and strides copied inline, strides computed when NULL). The common
 * case takes one pass that checks while it copies, leaving at the first
 * thing out of the ordinary; anything unusual (an error, or an overflow that
 * a zero dimension may excuse) is redone by adopt_checked, which says
 * precisely what is wrong. Inlined into each importer, where fn and flags
 * are constants. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
adopt(xffi_object **out, const char *fn, const DLTensor *src, void *producer, uint64_t flags) {
  int32_t ndim = src->ndim;
  if (XFFI_UNLIKELY(ndim < 0)) goto slow;
  if (XFFI_UNLIKELY(!src->shape) && ndim != 0) goto slow;
  if (XFFI_UNLIKELY(src->dtype.bits == 0 || src->dtype.lanes == 0)) goto slow;
  if (XFFI_UNLIKELY(!device_type_known((int32_t)src->device.device_type) || src->device.device_id < 0)) goto slow;
  size_t size = header_size(ndim);
#if defined(__GNUC__)
  if (size == 0) __builtin_unreachable(); /* ndim >= 0: spares xffi_alloc's size-0 test */
#endif
  tensor_object *t = (tensor_object *)xffi_runtime_object_alloc(size, _Alignof(tensor_object), XFFI_TYPE_TENSOR);
  if (XFFI_UNLIKELY(!t)) return XFFI_FAIL;
  const int64_t *shape = src->shape, *strides = src->strides;
  int64_t elem_bits = (int64_t)src->dtype.bits * src->dtype.lanes;
  int64_t *dims = t->dims, *steps = t->dims + ndim;
  int64_t numel = 1, ignored;
  for (int32_t i = 0; i < ndim; i++) {
    int64_t d = shape[i];
    dims[i] = d;
    if (XFFI_UNLIKELY(d < 0 || __builtin_mul_overflow(numel, d, &numel))) goto slow_free;
  }
  if (XFFI_UNLIKELY(__builtin_mul_overflow(numel, elem_bits, &ignored))) goto slow_free;
  uint64_t below = 0, span = (uint64_t)numel; /* elements: under the base, lowest to highest + 1 */
  if (!strides) {
    compact_strides(steps, dims, ndim);
  } else if (XFFI_LIKELY(numel != 0)) {
    /* The furthest element's offset: dims are >= 1 here, so the steps
     * (dims[i] - 1) * |strides[i]| are >= 0 and the sum overflows int64
     * exactly when a partial sum does. |INT64_MIN| is 2^63: the or of the
     * magnitudes keeps its top bit and refuses it. */
    uint64_t extent = 0, magnitudes = 0, step;
    for (int32_t i = 0; i < ndim; i++) {
      int64_t st = strides[i];
      steps[i] = st;
      uint64_t m = st < 0 ? 0 - (uint64_t)st : (uint64_t)st;
      magnitudes |= m;
      if (XFFI_UNLIKELY(__builtin_mul_overflow((uint64_t)dims[i] - 1, m, &step) ||
                        __builtin_add_overflow(extent, step, &extent)))
        goto slow_free;
      below += st < 0 ? step : 0;
    }
    if (XFFI_UNLIKELY((magnitudes >> 63) || extent >= (uint64_t)INT64_MAX ||
                      __builtin_mul_overflow((int64_t)extent + 1, elem_bits, &ignored)))
      goto slow_free;
    span = extent + 1;
  } else if (ndim) {
    memcpy(steps, strides, (size_t)ndim * sizeof(int64_t));
  }
  if (XFFI_UNLIKELY(!src->data && numel != 0)) goto slow_free;
  if (XFFI_UNLIKELY(address_span_wraps(src, bits_to_bytes(below, elem_bits), bits_to_bytes(span, elem_bits))))
    goto slow_free;
  *out = adopted_init(t, src, ndim, producer, flags);
  return XFFI_OK;
slow_free:
  xffi_runtime_object_free(t);
slow:
  return adopt_checked(out, fn, src, producer, flags);
}

/* adopt for a trusted producer: only the checks xffi's own memory depends on
 * (the size of the allocation). The Tensor keeps the producer's shape and
 * strides arrays, which DLPack has the producer keep until its deleter runs,
 * as tvm-ffi's import does: the allocation is the bare cell, plus room for
 * strides when the producer gives none. Sets *out, to NULL on failure. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
adopt_unchecked(xffi_object **out, const char *fn, const DLTensor *src, void *producer, uint64_t flags) {
  int32_t ndim = src->ndim;
  if (XFFI_UNLIKELY(ndim < 0 || (!src->shape && ndim != 0)))
    return *out = NULL, adopt_checked(out, fn, src, producer, flags); /* raises the precise error */
  size_t room = src->strides ? 0 : (size_t)ndim * sizeof(int64_t);
  tensor_object *t = (tensor_object *)xffi_runtime_object_alloc(sizeof(tensor_object) + room, _Alignof(tensor_object),
                                                                XFFI_TYPE_TENSOR);
  if (XFFI_UNLIKELY(!t)) return *out = NULL, XFFI_FAIL;
  xffi_object_init(&t->header, XFFI_TYPE_TENSOR, deleter_adopted);
  t->dl = *src;
  if (!src->strides) {
    compact_strides(t->dims, src->shape, ndim);
    t->dl.strides = t->dims;
  }
  t->flags = flags;
  t->producer = producer;
  *out = &t->header;
  return XFFI_OK;
}

/* The checks and the round trip shared by both versioned imports; returns 1
 * with *status set when the import is finished (an error, or our own export
 * unwrapped), 0 to go on and adopt with *flags. On 0, *out is not written
 * yet: each adopt sets it (to NULL on failure). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
import_prologue(int *status, uint64_t *flags, xffi_object **out, DLManagedTensorVersioned *managed, const char *fn) {
  if (!out) return *status = xffi_raise_null_arg(fn, "out"), 1;
  if (!managed) return *out = NULL, *status = xffi_raise_null_arg(fn, "managed"), 1;
  if (managed->version.major != XFFI_DLPACK_MAJOR)
    return *out = NULL,
           *status =
               xffi_error_raise(XFFI_KIND_VALUE, "%s: managed->version is %u.%u, xffi supports DLPack %d.x", fn,
                                (unsigned)managed->version.major, (unsigned)managed->version.minor, XFFI_DLPACK_MAJOR),
           1;
  *flags = (managed->flags & DLPACK_FLAG_BITMASK_READ_ONLY) ? TENSOR_READ_ONLY : 0;
  if (managed->deleter == export_deleter_versioned) {
    /* One of our own exports coming back unchanged: unwrap it, unless a consumer
     * made it read-only meanwhile. */
    tensor_object *t = (tensor_object *)managed->manager_ctx;
    if (same_dltensor(&managed->dl_tensor, &t->dl) &&
        (!*flags || (__atomic_load_n(&t->flags, __ATOMIC_RELAXED) & TENSOR_READ_ONLY))) {
      *out = &t->header; /* the reference the export held moves to *out */
      xffi_free(managed);
      return *status = XFFI_OK, 1;
    }
  }
  return 0;
}

int xffi_tensor_from_dlpack(xffi_object **out, DLManagedTensorVersioned *managed) {
  int status;
  uint64_t flags;
  if (import_prologue(&status, &flags, out, managed, __func__)) return status;
  *out = NULL;
  return adopt(out, __func__, &managed->dl_tensor, managed, flags);
}

int xffi_tensor_from_dlpack_unchecked(xffi_object **out, DLManagedTensorVersioned *managed) {
  int status;
  uint64_t flags;
  if (import_prologue(&status, &flags, out, managed, __func__)) return status;
  return adopt_unchecked(out, __func__, &managed->dl_tensor, managed, flags);
}

/* import_prologue for both legacy imports (no version, no flags). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
legacy_import_prologue(int *status, xffi_object **out, DLManagedTensor *managed, const char *fn) {
  if (!out) return *status = xffi_raise_null_arg(fn, "out"), 1;
  if (!managed) return *out = NULL, *status = xffi_raise_null_arg(fn, "managed"), 1;
  if (managed->deleter == export_deleter_legacy &&
      same_dltensor(&managed->dl_tensor, &((tensor_object *)managed->manager_ctx)->dl)) {
    *out = (xffi_object *)managed->manager_ctx; /* the export's reference moves to *out */
    xffi_free(managed);
    return *status = XFFI_OK, 1;
  }
  return 0;
}

int xffi_tensor_from_dlpack_legacy(xffi_object **out, DLManagedTensor *managed) {
  int status;
  if (legacy_import_prologue(&status, out, managed, __func__)) return status;
  *out = NULL;
  return adopt(out, __func__, &managed->dl_tensor, managed, TENSOR_PRODUCER_LEGACY);
}

int xffi_tensor_from_dlpack_legacy_unchecked(xffi_object **out, DLManagedTensor *managed) {
  int status;
  if (legacy_import_prologue(&status, out, managed, __func__)) return status;
  return adopt_unchecked(out, __func__, &managed->dl_tensor, managed, TENSOR_PRODUCER_LEGACY);
}

/* ---- Export ---- */

static void export_deleter_versioned(DLManagedTensorVersioned *self) {
  xffi_object_dec_ref((xffi_object *)self->manager_ctx);
  xffi_free(self);
}

static void export_deleter_legacy(DLManagedTensor *self) {
  xffi_object_dec_ref((xffi_object *)self->manager_ctx);
  xffi_free(self);
}

int xffi_tensor_to_dlpack(DLManagedTensorVersioned **out, xffi_object *tensor) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_OBJECT(tensor, XFFI_TYPE_TENSOR);
  DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)xffi_alloc(sizeof(*m));
  if (!m) return xffi_error_raise_out_of_memory();
  tensor_object *t = as_tensor(tensor);
  m->version.major = XFFI_DLPACK_MAJOR;
  m->version.minor = XFFI_DLPACK_MINOR;
  m->manager_ctx = t;
  m->deleter = export_deleter_versioned;
  m->flags = (__atomic_load_n(&t->flags, __ATOMIC_RELAXED) & TENSOR_READ_ONLY) ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  m->dl_tensor = t->dl;
  xffi_object_inc_ref_inline(tensor);
  *out = m;
  return XFFI_OK;
}

int xffi_tensor_to_dlpack_legacy(DLManagedTensor **out, xffi_object *tensor) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_OBJECT(tensor, XFFI_TYPE_TENSOR);
  tensor_object *t = as_tensor(tensor);
  if (__atomic_load_n(&t->flags, __ATOMIC_RELAXED) & TENSOR_READ_ONLY)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "%s: the tensor is read-only and a legacy DLManagedTensor cannot say so "
                            "(use xffi_tensor_to_dlpack)",
                            __func__);
  DLManagedTensor *m = (DLManagedTensor *)xffi_alloc(sizeof(*m));
  if (!m) return xffi_error_raise_out_of_memory();
  m->dl_tensor = t->dl;
  m->manager_ctx = t;
  m->deleter = export_deleter_legacy;
  xffi_object_inc_ref_inline(tensor);
  *out = m;
  return XFFI_OK;
}

/* ---- Queries ---- */

int xffi_tensor_is_read_only(int *out, const xffi_object *tensor) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_OBJECT(tensor, XFFI_TYPE_TENSOR);
  *out = (__atomic_load_n(&as_tensor(tensor)->flags, __ATOMIC_RELAXED) & TENSOR_READ_ONLY) != 0;
  return XFFI_OK;
}

int xffi_tensor_set_read_only(xffi_object *tensor) {
  XFFI_CHECK_ARG_OBJECT(tensor, XFFI_TYPE_TENSOR);
  __atomic_fetch_or(&as_tensor(tensor)->flags, TENSOR_READ_ONLY, __ATOMIC_RELAXED);
  return XFFI_OK;
}

int xffi_tensor_cell_of(DLTensor **out, xffi_object *tensor) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_OBJECT(tensor, XFFI_TYPE_TENSOR);
  *out = xffi_tensor_cell_of_unchecked(tensor);
  return XFFI_OK;
}

static int has_zero_dim(const DLTensor *dl) {
  for (int32_t i = 0; i < dl->ndim; i++)
    if (dl->shape[i] == 0) return 1;
  return 0;
}

static int64_t numel_of(const DLTensor *dl) {
  /* An empty tensor's other dimensions may multiply past int64. */
  if (has_zero_dim(dl)) return 0;
  int64_t n = 1;
  for (int32_t i = 0; i < dl->ndim; i++) n *= dl->shape[i]; /* validated: no overflow */
  return n;
}

int xffi_tensor_numel(int64_t *out, const xffi_object *tensor) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_OBJECT(tensor, XFFI_TYPE_TENSOR);
  *out = numel_of(xffi_tensor_cell_of_unchecked(tensor));
  return XFFI_OK;
}

int xffi_tensor_nbytes(uint64_t *out, const xffi_object *tensor) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_OBJECT(tensor, XFFI_TYPE_TENSOR);
  const DLTensor *dl = xffi_tensor_cell_of_unchecked(tensor);
  *out = ((uint64_t)numel_of(dl) * dl->dtype.bits * dl->dtype.lanes + 7) / 8;
  return XFFI_OK;
}

int xffi_tensor_is_contiguous(int *out, const xffi_object *tensor) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_OBJECT(tensor, XFFI_TYPE_TENSOR);
  const DLTensor *dl = xffi_tensor_cell_of_unchecked(tensor);
  int64_t expected = 1;
  *out = 1;
  if (has_zero_dim(dl)) return XFFI_OK; /* no element, nothing out of place */
  for (int32_t i = dl->ndim - 1; i >= 0; i--) {
    if (dl->shape[i] != 1 && dl->strides[i] != expected) *out = 0;
    expected *= dl->shape[i]; /* validated: no overflow */
  }
  return XFFI_OK;
}

int xffi_tensor_shape(xffi_object **out, const xffi_object *tensor) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_OBJECT(tensor, XFFI_TYPE_TENSOR);
  const DLTensor *dl = xffi_tensor_cell_of_unchecked(tensor);
  return xffi_shape_new(out, dl->shape, dl->ndim);
}
