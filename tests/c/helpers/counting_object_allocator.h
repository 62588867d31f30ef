/* tests/c/helpers/counting_object_allocator.h: a custom object allocator
 * (TVMFFISetCustomAllocator) for tests that counts the bodies it gives out
 * and takes back. Like the one tvm_ffi's Python installs, it keeps a private
 * 16-byte prefix {block address; TVMFFIObjectAllocHeader} before each body.
 * Install it with
 *   xffi_custom_allocator mine = {counting_allocate, &counter};
 *   TVMFFISetCustomAllocator(&mine);
 * and restore the built-in one with TVMFFISetCustomAllocator(NULL). */
#ifndef XFFI_TEST_COUNTING_OBJECT_ALLOCATOR_H
#define XFFI_TEST_COUNTING_OBJECT_ALLOCATOR_H

#include <stdint.h>
#include <stdlib.h>

#include <xffi/tvm_ffi.h>

typedef struct counting {
  int allocated, freed, fail_without_raising;
  int32_t last_type_index;
} counting;
static counting counter;

/* delete_space: frees the whole block (its address is 16 bytes before the body). */
static void counting_delete_space(void *body) {
  counter.freed++;
  free(*(void **)((char *)body - 16));
}

/* malloc and align by hand (aligned_alloc is not everywhere): the body is
 * at least 16 bytes into the block, and the block's address sits 16 bytes
 * before the body. context: the counting struct (borrowed). */
static void *counting_allocate(size_t size, size_t alignment, int32_t type_index, void *context) {
  counting *c = context;
  if (c->fail_without_raising) return NULL;
  if (alignment < 16) alignment = 16;
  char *block = malloc(16 + alignment + size);
  if (!block) return NULL;
  char *body = block + 16;
  body += (alignment - (uintptr_t)body % alignment) % alignment;
  *(void **)(body - 16) = block;
  ((xffi_object_alloc_header *)(void *)(body - sizeof(xffi_object_alloc_header)))->delete_space = counting_delete_space;
  c->allocated++;
  c->last_type_index = type_index;
  return body;
}

/* The allocation header of an object the runtime made (borrowed). */
static inline xffi_object_alloc_header *header_of(const void *obj) { return (xffi_object_alloc_header *)obj - 1; }

#endif
