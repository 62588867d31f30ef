/* c/compat/abi/tvm_object.c: tvm-ffi's version, reference counting, opaque objects and
 * the custom allocator protocol (TVMFFIGetVersion, TVMFFIObject*,
 * TVMFFI{Get,Set}CustomAllocator).
 *
 * The allocator protocol: an object the runtime allocates through
 * xffi_runtime_object_alloc has an xffi_object_alloc_header immediately
 * before its body, and its deleter frees it (on the last weak release)
 * through that header's delete_space, so each object goes back to the
 * allocator that made it even after another one was set. Only objects
 * whose deleter is the runtime's are read there: C++ code built against
 * tvm-ffi's headers makes objects with no header. */
#include <string.h>

#include <xffi/tvm_ffi.h>

#include "runtime/check.h"
#include "runtime/internal.h"

void TVMFFIGetVersion(xffi_tvm_version *out) {
  if (!out) return; /* void: nothing to report to */
  out->major = XFFI_TVM_FFI_VERSION_MAJOR;
  out->minor = XFFI_TVM_FFI_VERSION_MINOR;
  out->patch = XFFI_TVM_FFI_VERSION_PATCH;
}

int TVMFFIObjectIncRef(void *obj) {
  XFFI_CHECK_ARG_NOT_NULL(obj);
  xffi_object_inc_ref_inline(obj);
  return 0;
}

/* NULL is a no-op that succeeds, as in tvm-ffi (callers release handles
 * that may be empty). */
int TVMFFIObjectDecRef(void *obj) {
  xffi_object_dec_ref_inline(obj);
  return 0;
}

/* ---- The allocator protocol (see internal.h) ---- */

void xffi_object_space_free_prefixed(void *body) { xffi_free((char *)body - XFFI_OBJECT_SPACE_PREFIX); }

/* Bodies aligned beyond what xffi_alloc guarantees: an aligned block whose
 * prefix is max(16, alignment) bytes and whose first word points at the
 * block, for delete_space. */
static void free_aligned_space(void *body) {
  void *block = *(void **)((char *)body - XFFI_OBJECT_SPACE_PREFIX);
  xffi_free_aligned(block);
}

static void *builtin_allocate(size_t size, size_t alignment, int32_t type_index, void *context) {
  (void)type_index;
  (void)context;
  if (alignment <= _Alignof(max_align_t)) {
    char *block = xffi_object_space_block(size);
    if (!block) {
      xffi_error_raise_out_of_memory();
      return NULL;
    }
    return block + XFFI_OBJECT_SPACE_PREFIX;
  }
  size_t prefix = alignment > XFFI_OBJECT_SPACE_PREFIX ? alignment : XFFI_OBJECT_SPACE_PREFIX;
  char *block = size > SIZE_MAX - prefix ? NULL : xffi_alloc_aligned(prefix, prefix + size);
  if (!block) {
    xffi_error_raise_out_of_memory();
    return NULL;
  }
  char *body = block + prefix;
  *(void **)(body - XFFI_OBJECT_SPACE_PREFIX) = block;
  ((xffi_object_alloc_header *)(void *)(body - sizeof(xffi_object_alloc_header)))->delete_space = free_aligned_space;
  return body;
}

static xffi_custom_allocator builtin_allocator = {builtin_allocate, NULL};
_Atomic(xffi_custom_allocator *) xffi_custom_allocator_set;

/* Internal callers use this, never the exported name, which another
 * runtime loaded globally could interpose. */
static xffi_custom_allocator *allocator_in_use(void) {
  xffi_custom_allocator *a = atomic_load_explicit(&xffi_custom_allocator_set, memory_order_acquire);
  return a ? a : &builtin_allocator;
}

xffi_custom_allocator *TVMFFIGetCustomAllocator(void) { return allocator_in_use(); }

int TVMFFISetCustomAllocator(xffi_custom_allocator *allocator) {
  if (allocator && !allocator->allocate)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: allocator->allocate is NULL", __func__);
  atomic_store_explicit(&xffi_custom_allocator_set, allocator, memory_order_release);
  return 0;
}

void *xffi_runtime_object_alloc_slow(size_t size, size_t alignment, int32_t type_index) {
  xffi_custom_allocator *a = allocator_in_use();
  uint64_t begun = xffi_raise_clock_now();
  void *body = a->allocate(size, alignment, type_index, a->context);
  if (!body) {
    /* The allocator's contract is to raise; one that did not still gets an error. */
    if (!xffi_raised_slot || begun == xffi_raise_clock_now()) xffi_error_raise_out_of_memory();
    return NULL;
  }
  return body;
}

void xffi_runtime_object_free(void *body) {
  if (!body) return;
  xffi_object_alloc_header *header = (xffi_object_alloc_header *)(void *)((char *)body - sizeof(*header));
  if (header->delete_space) header->delete_space(body);
}

/* ---- Opaque objects (ffi.OpaquePyObject) ---- */

typedef struct opaque_object {
  xffi_object header;
  void *handle; /* tvm-ffi's TVMFFIOpaqueObjectCell */
  void (*handle_deleter)(void *handle);
} opaque_object;

static void opaque_deleter(void *self, int flags) {
  opaque_object *obj = self;
  if ((flags & XFFI_DELETE_CONTENTS) && obj->handle_deleter) obj->handle_deleter(obj->handle);
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(obj);
}

int TVMFFIObjectCreateOpaque(void *handle, int32_t type_index, void (*deleter)(void *handle), void **out) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  if (type_index != XFFI_TYPE_OPAQUE_FOREIGN)
    return xffi_error_raise(XFFI_KIND_RUNTIME,
                            "%s: type_index must be %d (ffi.OpaquePyObject), the only opaque type, got %d", __func__,
                            XFFI_TYPE_OPAQUE_FOREIGN, (int)type_index);
  opaque_object *obj = xffi_runtime_object_alloc(sizeof(opaque_object), _Alignof(opaque_object), type_index);
  if (!obj) return XFFI_FAIL;
  xffi_object_init(&obj->header, type_index, opaque_deleter);
  obj->handle = handle;
  obj->handle_deleter = deleter;
  *out = obj;
  return 0;
}
