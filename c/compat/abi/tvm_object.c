/* c/compat/abi/tvm_object.c: tvm-ffi's version, reference counting, opaque objects and
 * the custom allocator protocol (TVMFFIGetVersion, TVMFFIObject*,
 * TVMFFI{Get,Set}CustomAllocator over the runtime's object allocator,
 * c/runtime/object_alloc.c). */
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

/* ---- The custom allocator (c/runtime/object_alloc.c) ---- */

xffi_custom_allocator *TVMFFIGetCustomAllocator(void) { return xffi_object_allocator_in_use(); }

int TVMFFISetCustomAllocator(xffi_custom_allocator *allocator) {
  if (allocator && !allocator->allocate)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: allocator->allocate is NULL", __func__);
  xffi_object_allocator_set(allocator);
  return 0;
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
