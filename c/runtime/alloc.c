/* c/runtime/alloc.c: the one place the library takes heap memory from, through the
 * allocator of include/xffi/sys/allocator.h.
 *
 * allocator_state says which allocator is in use. It starts UNFIXED; the
 * first allocation fixes the default (DEFAULT), or xffi_allocator_install
 * fixes the installed one (INSTALLED). Both changes are made under
 * fix_lock, once, so an allocation racing with an install waits for it and
 * never sees a half-copied allocator. Once fixed it never changes again. */
#include <stdlib.h>
#include <string.h>

#include <xffi/sys/allocator.h>

#include "runtime/check.h"
#include "runtime/internal.h"
#include "platform/platform.h"

atomic_int xffi_allocator_state = XFFI_ALLOCATOR_UNFIXED;
/* Written once, under fix_lock, before the state becomes INSTALLED (a
 * release store); read only after an acquire load saw INSTALLED. */
static xffi_allocator installed;
static xffi_mutex fix_lock = XFFI_MUTEX_INITIALIZER;

/* ---- The default allocator: the C library's ---- */

static void *default_allocate(void *context, size_t size) {
  (void)context;
  return malloc(size);
}

static void *default_reallocate(void *context, void *ptr, size_t size) {
  (void)context;
  return realloc(ptr, size);
}

static void default_deallocate(void *context, void *ptr) {
  (void)context;
  free(ptr);
}

static void *default_allocate_aligned(void *context, size_t alignment, size_t size) {
  (void)context;
  return xffi_platform_aligned_alloc(alignment, size);
}

static void default_deallocate_aligned(void *context, void *ptr) {
  (void)context;
  xffi_platform_aligned_free(ptr);
}

static const xffi_allocator default_allocator = {NULL,
                                                 default_allocate,
                                                 default_reallocate,
                                                 default_deallocate,
                                                 default_allocate_aligned,
                                                 default_deallocate_aligned};

/* ---- Fixing the allocator ---- */

/* The allocator in use (borrowed, valid for the rest of the process); fixes
 * the default one if nothing was fixed yet. */
static const xffi_allocator *allocator_in_use(void) {
  int state = atomic_load_explicit(&xffi_allocator_state, memory_order_acquire);
  if (state == XFFI_ALLOCATOR_UNFIXED) {
    xffi_mutex_lock(&fix_lock);
    state = atomic_load_explicit(&xffi_allocator_state, memory_order_acquire);
    if (state == XFFI_ALLOCATOR_UNFIXED) {
      state = XFFI_ALLOCATOR_DEFAULT;
      atomic_store_explicit(&xffi_allocator_state, state, memory_order_release);
    }
    xffi_mutex_unlock(&fix_lock);
  }
  return state == XFFI_ALLOCATOR_INSTALLED ? &installed : &default_allocator;
}

/* The names of the functions an allocator must have, for the error message. */
static const char *missing_function(const xffi_allocator *a) {
  if (!a->allocate) return "allocate";
  if (!a->reallocate) return "reallocate";
  if (!a->deallocate) return "deallocate";
  if (!a->allocate_aligned) return "allocate_aligned";
  if (!a->deallocate_aligned) return "deallocate_aligned";
  return NULL;
}

int xffi_allocator_install(const xffi_allocator *allocator) {
  int fixed_already = 1;
  const char *missing = allocator ? missing_function(allocator) : NULL;
  xffi_mutex_lock(&fix_lock);
  if (allocator && !missing &&
      atomic_load_explicit(&xffi_allocator_state, memory_order_relaxed) == XFFI_ALLOCATOR_UNFIXED) {
    installed = *allocator;
    atomic_store_explicit(&xffi_allocator_state, XFFI_ALLOCATOR_INSTALLED, memory_order_release);
    fixed_already = 0;
  }
  xffi_mutex_unlock(&fix_lock);
  /* Raised after the lock is dropped: raising allocates, and the first
   * allocation fixes the default allocator under that lock. */
  XFFI_CHECK_ARG_NOT_NULL(allocator);
  if (missing)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: allocator->%s is NULL; every function must be set", __func__,
                            missing);
  if (fixed_already)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "%s: the allocator is fixed already (the library has allocated, or an allocator was "
                            "installed); install it before any other xffi call",
                            __func__);
  return XFFI_OK;
}

int xffi_allocator_default(xffi_allocator *out) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = default_allocator;
  return XFFI_OK;
}

/* ---- What the library calls ---- */

void *xffi_alloc_slow(size_t size) {
  const xffi_allocator *a = allocator_in_use();
  return a->allocate(a->context, size ? size : 1);
}

/* The installed allocator, for a block it made: a free or a resize comes
 * after its block's allocation, so the allocator is fixed, and not the
 * default one (else the caller's fast path would have been taken). The
 * acquire load pairs with the install's release store. */
static const xffi_allocator *installed_allocator(void) {
  int state = atomic_load_explicit(&xffi_allocator_state, memory_order_acquire);
  return state == XFFI_ALLOCATOR_INSTALLED ? &installed : &default_allocator;
}

void xffi_free_slow(void *ptr) {
  /* NULL may come before anything was allocated: it must not fix the allocator. */
  if (!ptr) return;
  const xffi_allocator *a = installed_allocator();
  a->deallocate(a->context, ptr);
}

void *xffi_alloc_zeroed(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  size_t bytes = count * size;
  void *block = xffi_alloc(bytes);
  if (block) memset(block, 0, bytes);
  return block;
}

void *xffi_realloc_slow(void *ptr, size_t size) {
  if (!ptr) return xffi_alloc_slow(size);
  const xffi_allocator *a = installed_allocator();
  return a->reallocate(a->context, ptr, size ? size : 1);
}

void *xffi_alloc_aligned_slow(size_t alignment, size_t size) {
  const xffi_allocator *a = allocator_in_use();
  return a->allocate_aligned(a->context, alignment < sizeof(void *) ? sizeof(void *) : alignment, size ? size : 1);
}

void xffi_free_aligned_slow(void *ptr) {
  if (!ptr) return; /* as in xffi_free_slow */
  const xffi_allocator *a = installed_allocator();
  a->deallocate_aligned(a->context, ptr);
}

void *xffi_realloc(void *ptr, size_t size) {
  if (XFFI_LIKELY(xffi_allocator_is_default())) return realloc(ptr, size ? size : 1);
  return xffi_realloc_slow(ptr, size);
}

void xffi_free(void *ptr) {
  if (XFFI_LIKELY(xffi_allocator_is_default())) {
    free(ptr);
    return;
  }
  xffi_free_slow(ptr);
}

void *xffi_alloc_aligned(size_t alignment, size_t size) {
  if (XFFI_LIKELY(xffi_allocator_is_default())) return xffi_platform_aligned_alloc(alignment, size);
  return xffi_alloc_aligned_slow(alignment, size);
}

void xffi_free_aligned(void *ptr) {
  if (XFFI_LIKELY(xffi_allocator_is_default())) {
    xffi_platform_aligned_free(ptr);
    return;
  }
  xffi_free_aligned_slow(ptr);
}
