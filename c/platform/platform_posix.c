/* c/platform/platform_posix.c: c/platform/platform.h on POSIX systems (Linux, macOS, the BSDs):
 * dlopen and pthreads. */
#if defined(__APPLE__)
#  define _DARWIN_C_SOURCE /* RTLD_NOLOAD, RTLD_DEFAULT, dladdr */
#else
#  define _GNU_SOURCE /* dlinfo, dladdr, RTLD_NOLOAD, RTLD_DEFAULT, struct link_map, getrandom */
#endif
#include "platform/platform.h"

#if defined(XFFI_PLATFORM_POSIX)

#  include <dlfcn.h>
#  include <sched.h>
#  include <stdio.h>
#  include <stdlib.h>
#  include <string.h>
#  if defined(__APPLE__)
#    include <mach-o/dyld.h>
#  elif defined(__linux__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__)
#    include <link.h>
#    define XFFI_HAVE_DLINFO_LINKMAP 1
#  endif
#  if defined(__linux__) && defined(__has_include)
#    if __has_include(<sys/random.h>)
#      include <sys/random.h>
#      define XFFI_HAVE_GETRANDOM 1
#    endif
#  endif

#  if defined(__APPLE__)
#    define LIBRARY_PREFIX "lib"
#    define LIBRARY_SUFFIX ".dylib"
#  else
#    define LIBRARY_PREFIX "lib"
#    define LIBRARY_SUFFIX ".so"
#  endif

void *xffi_library_open(const char *path, char *why, size_t why_size) {
  dlerror(); /* clear any stale message */
  /* Lazy binding, as tvm-ffi's loader: a library built with tvm-ffi's C++
   * headers may name libtvm_ffi's C++ helpers on paths it never takes. */
  void *library = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  if (!library) {
    const char *message = dlerror();
    snprintf(why, why_size, "%s", message ? message : "unknown dlopen error");
  }
  return library;
}

void xffi_library_close(void *library) { dlclose(library); }

void *xffi_library_symbol(void *library, const char *name) { return dlsym(library, name); }

#  if defined(XFFI_HAVE_DLINFO_LINKMAP)
/* The file the loader opened for library: its link map entry's name. */
static const char *library_file(void *library) {
  struct link_map *map = NULL;
  if (dlinfo(library, RTLD_DI_LINKMAP, &map) != 0 || !map) return NULL;
  return map->l_name;
}
#  elif defined(__APPLE__)
/* macOS has no dlinfo. dyld documents that dlopen with RTLD_NOLOAD of an
 * image's own name returns the handle of that image if it is loaded, so the
 * image whose name gives back the same handle is the library's file. */
static const char *library_file(void *library) {
  uint32_t count = _dyld_image_count();
  for (uint32_t i = 0; i < count; ++i) {
    const char *name = _dyld_get_image_name(i);
    if (!name) continue;
    void *probe = dlopen(name, RTLD_NOLOAD | RTLD_LAZY);
    if (!probe) continue;
    dlclose(probe); /* drops the reference RTLD_NOLOAD took */
    if (probe == library) return name;
  }
  return NULL;
}
#  else
static const char *library_file(void *library) {
  (void)library;
  return NULL;
}
#  endif

void *xffi_library_own_symbol(void *library, const char *name) {
  void *sym = dlsym(library, name);
  if (!sym) return NULL;
  /* dlsym also searched the dependencies: keep sym only if the file that
   * defines it is the library's own. Where neither is known, keep it. */
  const char *file = library_file(library);
  Dl_info info;
  if (!file || dladdr(sym, &info) == 0 || !info.dli_fname) return sym;
  return strcmp(info.dli_fname, file) == 0 ? sym : NULL;
}

void *xffi_loaded_symbol(const char *library_stem, const char *name) {
  /* The named library first, if (and only if) it is loaded: it may have
   * been loaded as a dependency of one opened with RTLD_LOCAL, outside the
   * global scope, and another library may define the same name globally
   * (libxffi itself serves tvm-ffi's names). */
  char file[256];
  if (snprintf(file, sizeof file, "%s%s%s", LIBRARY_PREFIX, library_stem, LIBRARY_SUFFIX) < (int)sizeof file) {
    void *library = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
    if (library) {
      void *sym = dlsym(library, name);
      dlclose(library); /* drops the reference RTLD_NOLOAD took; the library stays */
      if (sym) return sym;
    }
  }
  return dlsym(RTLD_DEFAULT, name);
}

void xffi_library_pin(const void *address) {
  Dl_info info;
  if (dladdr(address, &info) == 0 || !info.dli_fname) return;
  /* RTLD_NOLOAD: only the library already loaded (NULL for the program);
   * RTLD_NODELETE marks it never to be unloaded. The reference stays too. */
  (void)dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}

void *xffi_platform_aligned_alloc(size_t alignment, size_t size) {
  void *p = NULL;
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  return posix_memalign(&p, alignment, size ? size : 1) == 0 ? p : NULL;
}

void xffi_platform_aligned_free(void *ptr) { free(ptr); }

void xffi_mutex_lock(xffi_mutex *mutex) { pthread_mutex_lock(&mutex->mutex); }
void xffi_mutex_unlock(xffi_mutex *mutex) { pthread_mutex_unlock(&mutex->mutex); }
void xffi_call_once(xffi_once *once, void (*init)(void)) { pthread_once(&once->once, init); }

int xffi_thread_key_create(xffi_thread_key *key, void (*on_exit)(void *value)) {
  return pthread_key_create(key, on_exit);
}

void xffi_thread_key_set(xffi_thread_key key, void *value) { pthread_setspecific(key, value); }
void xffi_thread_yield(void) { sched_yield(); }

size_t xffi_os_random(void *buf, size_t size) {
  unsigned char *bytes = buf;
  size_t got = 0;
#  ifdef XFFI_HAVE_GETRANDOM
  while (got < size) {
    ssize_t n = getrandom(bytes + got, size - got, GRND_NONBLOCK);
    if (n <= 0) break; /* no entropy yet, or no such system call (old kernel) */
    got += (size_t)n;
  }
  if (got == size) return got;
#  endif
  FILE *f = fopen("/dev/urandom", "rb");
  if (!f) return got;
  got = fread(bytes, 1, size, f);
  fclose(f);
  return got;
}

#else
typedef int xffi_platform_posix_unused; /* ISO C forbids an empty file */
#endif
