/* c/runtime/object_alloc.c: the object allocator protocol (see
 * c/runtime/internal.h): an object the runtime allocates through
 * xffi_runtime_object_alloc has an xffi_object_alloc_header immediately
 * before its body, and its deleter frees it (on the last weak release)
 * through that header's delete_space, so each object goes back to the
 * allocator that made it even after another one was set. Only objects
 * whose deleter is the runtime's are read there: C++ code built against
 * tvm-ffi's headers makes objects with no header. */
#include <string.h>

#include <xffi/tvm_ffi.h>

#include "runtime/internal.h"

void xffi_object_space_free_prefixed(void *body) {
  void *block = (char *)body - XFFI_OBJECT_SPACE_PREFIX;
  /* xffi_free's fast path in place: every object's release ends here. */
  if (XFFI_LIKELY(xffi_allocator_is_default()))
    free(block);
  else
    xffi_free_slow(block);
}

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

xffi_custom_allocator *xffi_object_allocator_in_use(void) { return allocator_in_use(); }

void xffi_object_allocator_set(xffi_custom_allocator *allocator) {
  atomic_store_explicit(&xffi_custom_allocator_set, allocator, memory_order_release);
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
