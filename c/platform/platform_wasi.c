/* c/platform/platform_wasi.c: c/platform/platform.h on WebAssembly with WASI, built without
 * threads: one thread, so locks and once-flags are plain flags, and no
 * shared libraries, so module loading fails with a clear error. */
#include "platform/platform.h"

#if defined(XFFI_PLATFORM_WASI)

#  include <stdio.h>
#  include <stdlib.h>
#  include <wasi/api.h> /* __wasi_random_get */

void *xffi_library_open(const char *path, char *why, size_t why_size) {
  (void)path;
  snprintf(why, why_size,
           "loading shared libraries is not supported on WebAssembly (WASI): "
           "this build of xffi has module loading compiled out");
  return NULL;
}

void xffi_library_close(void *library) { (void)library; }

void *xffi_library_symbol(void *library, const char *name) {
  (void)library, (void)name;
  return NULL;
}

void *xffi_library_own_symbol(void *library, const char *name) {
  (void)library, (void)name;
  return NULL;
}

void *xffi_loaded_symbol(const char *library_stem, const char *name) {
  (void)library_stem, (void)name;
  return NULL;
}

void xffi_library_pin(const void *address) { (void)address; }

void *xffi_platform_aligned_alloc(size_t alignment, size_t size) {
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  /* aligned_alloc wants the size to be a multiple of the alignment. */
  size_t rounded = (size + alignment - 1) / alignment * alignment;
  if (rounded < size) return NULL;
  return aligned_alloc(alignment, rounded ? rounded : alignment);
}

void xffi_platform_aligned_free(void *ptr) { free(ptr); }

void xffi_mutex_lock(xffi_mutex *mutex) { (void)mutex; }
void xffi_mutex_unlock(xffi_mutex *mutex) { (void)mutex; }

void xffi_call_once(xffi_once *once, void (*init)(void)) {
  if (once->done) return;
  once->done = 1;
  init();
}

/* The one thread never exits before the program does: nothing to call. */
int xffi_thread_key_create(xffi_thread_key *key, void (*on_exit)(void *value)) {
  (void)on_exit;
  *key = 0;
  return 0;
}

void xffi_thread_key_set(xffi_thread_key key, void *value) { (void)key, (void)value; }
void xffi_thread_yield(void) {}

/* WASI's random_get: the host's random source. */
size_t xffi_os_random(void *buf, size_t size) {
  return __wasi_random_get((uint8_t *)buf, (__wasi_size_t)size) == 0 ? size : 0;
}

#else
typedef int xffi_platform_wasi_unused; /* ISO C forbids an empty file */
#endif
