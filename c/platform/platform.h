/* c/platform/platform.h: the few things the library needs from the operating system,
 * in one place: loading shared libraries, aligned allocation, a mutex, a
 * once-flag, a per-thread value with an exit callback, yielding, and random
 * bytes.
 *
 * Implementations: c/platform/platform_posix.c (Linux, macOS and other POSIX systems:
 * dlopen and pthreads), c/platform/platform_windows.c (LoadLibrary, SRW locks, fiber
 * local storage), c/platform/platform_wasi.c (WebAssembly with WASI: one thread, no
 * shared libraries). Each compiles to nothing on the other platforms. */
#ifndef XFFI_PLATFORM_H
#define XFFI_PLATFORM_H

#include <stddef.h>

#if defined(_WIN32)
#  define XFFI_PLATFORM_WINDOWS 1
#elif defined(__wasi__) && !defined(_REENTRANT)
/* wasm32-wasi without the threads proposal: one thread, no dlopen. */
#  define XFFI_PLATFORM_WASI 1
#else
#  define XFFI_PLATFORM_POSIX 1
#endif

/* ---- Shared libraries ----
 * Handles are opaque. xffi_library_open returns NULL on failure and writes
 * the system's reason (NUL-terminated, truncated to why_size) into why. */
void *xffi_library_open(const char *path, char *why, size_t why_size);
void xffi_library_close(void *library);
/* The address of name in library, or NULL. POSIX also searches the
 * library's dependencies; Windows searches the library alone. */
void *xffi_library_symbol(void *library, const char *name);
/* The address of name only if library itself defines it (not one of its
 * dependencies), or NULL. */
void *xffi_library_own_symbol(void *library, const char *name);
/* name in the library already loaded under library_stem (the platform's
 * prefix and suffix are added: "tvm_ffi" is libtvm_ffi.so, libtvm_ffi.dylib
 * or tvm_ffi.dll), else in the program's global scope; never loads
 * anything. NULL if absent. */
void *xffi_loaded_symbol(const char *library_stem, const char *name);
/* Keeps the loaded library that defines address loaded for the life of the
 * process: a later dlclose (FreeLibrary) of it by anyone unloads nothing.
 * Does nothing for the program itself, or where libraries cannot be pinned. */
void xffi_library_pin(const void *address);

/* ---- Aligned allocation (alignment: a power of two) ----
 * Memory from xffi_platform_aligned_alloc goes back through
 * xffi_platform_aligned_free, never free(): Windows keeps them apart. */
void *xffi_platform_aligned_alloc(size_t alignment, size_t size);
void xffi_platform_aligned_free(void *ptr);

/* ---- Threads ---- */
#if defined(XFFI_PLATFORM_WINDOWS)
/* An SRWLOCK and an INIT_ONCE are one pointer each, statically initialised
 * to zero; declared as such here so that <windows.h> stays out of the
 * library's other sources. c/platform/platform_windows.c checks the sizes. */
typedef struct xffi_mutex {
  void *opaque;
} xffi_mutex;
typedef struct xffi_once {
  void *opaque;
} xffi_once;
typedef unsigned long xffi_thread_key;
#  define XFFI_MUTEX_INITIALIZER \
    { 0 }
#  define XFFI_ONCE_INITIALIZER \
    { 0 }
#elif defined(XFFI_PLATFORM_WASI)
typedef struct xffi_mutex {
  int unused;
} xffi_mutex;
typedef struct xffi_once {
  int done;
} xffi_once;
typedef int xffi_thread_key;
#  define XFFI_MUTEX_INITIALIZER \
    { 0 }
#  define XFFI_ONCE_INITIALIZER \
    { 0 }
#else
#  include <pthread.h>
typedef struct xffi_mutex {
  pthread_mutex_t mutex;
} xffi_mutex;
typedef struct xffi_once {
  pthread_once_t once;
} xffi_once;
typedef pthread_key_t xffi_thread_key;
#  define XFFI_MUTEX_INITIALIZER \
    { PTHREAD_MUTEX_INITIALIZER }
#  define XFFI_ONCE_INITIALIZER \
    { PTHREAD_ONCE_INIT }
#endif

void xffi_mutex_lock(xffi_mutex *mutex);
void xffi_mutex_unlock(xffi_mutex *mutex);
/* Runs init exactly once across all threads; callers return after it ran. */
void xffi_call_once(xffi_once *once, void (*init)(void));
/* A per-thread value; on_exit(value) runs when a thread that set a non-NULL
 * value exits. 0 on success. */
int xffi_thread_key_create(xffi_thread_key *key, void (*on_exit)(void *value));
void xffi_thread_key_set(xffi_thread_key key, void *value);
/* Lets other threads run (a spin-wait's back-off). */
void xffi_thread_yield(void);

/* ---- Randomness ----
 * Fills buf with size bytes from the operating system's random source
 * (getrandom or /dev/urandom, rand_s, WASI's random_get); returns how many
 * bytes it got, fewer than size when there is no such source. */
size_t xffi_os_random(void *buf, size_t size);

/* ---- The native stack (c/platform/platform_unwind.c) ----
 * xffi_platform_stack writes up to max return addresses of the calling
 * thread, innermost first (its own frame included), and returns how many:
 * 0 where no unwinder exists. xffi_platform_describe_frame names the module
 * (a path) and the nearest exported symbol of pc, with pc's offset from the
 * symbol (or the module's base when there is no symbol); the texts are the
 * loader's (borrowed, valid while the module stays loaded), each NULL when
 * unknown. Returns 1 if the module is known, else 0. */
typedef struct xffi_frame_description {
  const char *module;
  const char *symbol;
  size_t offset;
} xffi_frame_description;
size_t xffi_platform_stack(void **frames, size_t max);
int xffi_platform_describe_frame(void *pc, xffi_frame_description *out);
/* Whether addresses a and b lie in the same loaded module (where the loader
 * cannot say: whether they are equal). */
int xffi_platform_same_module(const void *a, const void *b);

#endif /* XFFI_PLATFORM_H */
