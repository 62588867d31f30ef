/* xffi/sys/allocator.h: where the library takes its heap memory from
 * (extension tier).
 *
 * Every heap allocation the library makes, and every free, goes through one
 * allocator. By default that is the C library's (malloc, realloc, free, and
 * the platform's aligned allocation). A program may install its own instead:
 * a pool, an accounting wrapper, or a test's allocator that makes the Nth
 * allocation fail (tests/c/helpers/failing_allocator.h).
 *
 * When. The allocator is fixed once per process, by whichever comes first:
 * the library's first allocation (the default allocator is then fixed), or a
 * call of xffi_allocator_install. An install after that is refused with a
 * ValueError and changes nothing. So no block is ever freed by an allocator
 * other than the one that made it, and there is no uninstall. Call it at the
 * start of main (or the host's initialisation), before any other xffi call
 * and before other threads use the library. A refused first install (a bad
 * argument) fixes the default allocator: the error it raises is the
 * library's first allocation.
 *
 * Threads. Installing is safe against allocations racing with it (they wait
 * for it, then use the installed allocator), but the rule above is what
 * makes the outcome predictable. The installed functions are called from any
 * thread, at the same time, and a block may be freed on another thread than
 * the one that allocated it: they must be thread-safe. They must not call
 * back into xffi.
 *
 * Ownership. xffi_allocator_install copies the struct: the caller's copy may
 * go away. context is borrowed for the rest of the process and passed, as
 * it is, to every function; the library never releases it. A block returned
 * by allocate, reallocate or allocate_aligned belongs to the library until
 * it hands it to deallocate (or deallocate_aligned).
 *
 * Objects. Objects the runtime allocates come from tvm-ffi's object
 * allocator (TVMFFISetCustomAllocator, xffi/tvm_ffi.h) with its allocation
 * header before the body; its built-in allocator, in use until one is set,
 * takes its blocks from this allocator.
 *
 * Not from here: the element buffer tvm-ffi's C++ code (List::push_back,
 * List::reserve) puts into a List xffi made. That buffer comes from C++'s
 * ::operator new and keeps the list's deleter, so xffi gives it back with the
 * C library's free (what the default ::operator delete does), never to this
 * allocator, and moves the elements to a buffer of its own before growing. */
#ifndef XFFI_SYS_ALLOCATOR_H
#define XFFI_SYS_ALLOCATOR_H

#include <stddef.h>
#include <xffi/export.h>

XFFI_EXTERN_C_BEGIN

typedef struct xffi_allocator {
  /* Passed to every function below (borrowed; may be NULL). */
  void *context;
  /* A block of size bytes (size >= 1), suitably aligned for any object type
   * (as malloc), or NULL when out of memory. */
  void *(*allocate)(void *context, size_t size);
  /* Resizes ptr (never NULL, from allocate or reallocate) to size bytes
   * (size >= 1), keeping its contents up to the smaller size: the block, or
   * NULL when out of memory, in which case ptr is unchanged and still owned
   * by the library (as realloc). */
  void *(*reallocate)(void *context, void *ptr, size_t size);
  /* Releases ptr (never NULL, from allocate or reallocate). Not named
   * free: some debug C libraries define free as a macro. */
  void (*deallocate)(void *context, void *ptr);
  /* A block of size bytes (size >= 1, not necessarily a multiple of
   * alignment) whose address is a multiple of alignment (a power of two, at
   * least sizeof(void *)), or NULL when out of memory. The library uses it
   * for Tensors with their data (XFFI_TENSOR_ALIGNMENT) and for the global
   * function registry's tables. */
  void *(*allocate_aligned)(void *context, size_t alignment, size_t size);
  /* Releases ptr (never NULL, from allocate_aligned). */
  void (*deallocate_aligned)(void *context, void *ptr);
} xffi_allocator;

/* Makes *allocator (read, not kept: the struct is copied) the library's
 * allocator for the rest of the process. Every function pointer must be
 * set. Returns XFFI_OK, or XFFI_FAIL with a ValueError raised when allocator
 * or one of its functions is NULL, or when the allocator was fixed already
 * (see "When" above); the allocator in use is then unchanged. */
XFFI_API int xffi_allocator_install(const xffi_allocator *allocator);

/* Fills *out with the C library's allocator (context NULL), the default: an
 * allocator that wraps it (counting, failing) delegates to these. Its
 * functions work whatever allocator the library uses. Returns XFFI_OK,
 * or XFFI_FAIL with a ValueError raised when out is NULL. */
XFFI_API int xffi_allocator_default(xffi_allocator *out);

XFFI_EXTERN_C_END

#endif /* XFFI_SYS_ALLOCATOR_H */
