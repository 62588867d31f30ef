/* c/platform/platform_unwind.c: the calling thread's native stack, for TVMFFIBacktrace
 * (c/compat/abi/backtrace.c). Where the C library has an unwinder (glibc, macOS and the
 * BSDs: <execinfo.h>) the return addresses come from it and dladdr names
 * their module and nearest exported symbol; elsewhere (musl, Windows, WASI)
 * there are no frames and the backtrace is empty text. The same loader
 * query says whether two addresses lie in one module. */
#if defined(__APPLE__)
#  define _DARWIN_C_SOURCE /* dladdr */
#elif !defined(_WIN32)
#  define _GNU_SOURCE /* dladdr, Dl_info */
#endif
#include "platform/platform.h"

#if defined(XFFI_PLATFORM_POSIX) && defined(__has_include)
#  if __has_include(<execinfo.h>)
#    define XFFI_HAVE_EXECINFO 1
#  endif
#endif

#if defined(XFFI_HAVE_EXECINFO)
#  include <dlfcn.h>
#  include <execinfo.h>

size_t xffi_platform_stack(void **frames, size_t max) {
  int n = backtrace(frames, max > 0x7fffffff ? 0x7fffffff : (int)max);
  return n > 0 ? (size_t)n : 0;
}

int xffi_platform_describe_frame(void *pc, xffi_frame_description *out) {
  Dl_info info;
  out->module = NULL;
  out->symbol = NULL;
  out->offset = 0;
  /* A return address points after its call: look up the byte before it, so
   * that a call ending a function is named after that function. */
  void *inside = (char *)pc - 1;
  if (!dladdr(inside, &info)) return 0;
  out->module = info.dli_fname;
  out->symbol = info.dli_sname;
  out->offset = (size_t)((char *)pc - (char *)(info.dli_sname ? info.dli_saddr : info.dli_fbase));
  return 1;
}

int xffi_platform_same_module(const void *a, const void *b) {
  Dl_info ia, ib;
  if (!dladdr(a, &ia) || !dladdr(b, &ib)) return 0;
  return ia.dli_fbase == ib.dli_fbase;
}

#else

size_t xffi_platform_stack(void **frames, size_t max) {
  (void)frames;
  (void)max;
  return 0;
}

int xffi_platform_describe_frame(void *pc, xffi_frame_description *out) {
  (void)pc;
  out->module = NULL;
  out->symbol = NULL;
  out->offset = 0;
  return 0;
}

/* Without a loader to ask, two addresses are taken to be in one module only
 * when they are equal. */
int xffi_platform_same_module(const void *a, const void *b) { return a == b; }

#endif
