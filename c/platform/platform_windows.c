/* c/platform/platform_windows.c: c/platform/platform.h on Windows: LoadLibrary and
 * GetProcAddress, _aligned_malloc, SRW locks, one-time initialisation and
 * fiber-local storage (whose callback runs when a thread exits). */
#define _CRT_RAND_S /* rand_s */
#include "platform/platform.h"

#if defined(XFFI_PLATFORM_WINDOWS)

#  ifndef WIN32_LEAN_AND_MEAN
#    define WIN32_LEAN_AND_MEAN
#  endif
#  include <windows.h>

#  include <malloc.h>
#  include <stdio.h>
#  include <stdlib.h>
#  include <string.h>

#  include "platform/platform.h"

_Static_assert(sizeof(xffi_mutex) == sizeof(SRWLOCK), "xffi_mutex holds an SRWLOCK");
_Static_assert(sizeof(xffi_once) == sizeof(INIT_ONCE), "xffi_once holds an INIT_ONCE");
_Static_assert(sizeof(xffi_thread_key) == sizeof(DWORD), "xffi_thread_key holds an FLS index");

/* The system's message for error code, without its trailing line break. */
static void system_message(DWORD code, char *why, size_t why_size) {
  int n = snprintf(why, why_size, "error %lu: ", (unsigned long)code);
  if (n < 0 || (size_t)n >= why_size) return;
  DWORD len = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, why + n,
                             (DWORD)(why_size - (size_t)n), NULL);
  if (len == 0) {
    snprintf(why + n, why_size - (size_t)n, "the library could not be loaded");
    return;
  }
  while (len > 0 && (why[n + len - 1] == '\n' || why[n + len - 1] == '\r' || why[n + len - 1] == ' '))
    why[n + --len] = '\0';
}

/* ISO C has no conversion between function and object pointers: copy the bits. */
static void *address_of(FARPROC proc) {
  void *address;
  _Static_assert(sizeof address == sizeof proc, "function and object pointers have the same size");
  memcpy(&address, &proc, sizeof address);
  return address;
}

void *xffi_library_open(const char *path, char *why, size_t why_size) {
  /* Paths are UTF-8, as everywhere else in xffi; Windows wants UTF-16. */
  int wide_len = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
  if (wide_len <= 0) {
    snprintf(why, why_size, "the path is not valid UTF-8");
    return NULL;
  }
  /* From the C library: the platform sits below the library's allocator
   * (c/runtime/alloc.c), and the buffer lives only for this call. */
  wchar_t *wide = malloc((size_t)wide_len * sizeof(wchar_t));
  if (!wide) {
    snprintf(why, why_size, "out of memory converting the path");
    return NULL;
  }
  MultiByteToWideChar(CP_UTF8, 0, path, -1, wide, wide_len);
  /* A path with a directory: the library's own dependencies are searched
   * for next to it first, as a plugin directory expects. A bare name is
   * searched for the standard way. */
  DWORD flags = (strchr(path, '/') || strchr(path, '\\')) ? LOAD_WITH_ALTERED_SEARCH_PATH : 0;
  HMODULE library = LoadLibraryExW(wide, NULL, flags);
  DWORD code = GetLastError();
  free(wide);
  if (!library) system_message(code, why, why_size);
  return (void *)library;
}

void xffi_library_close(void *library) { FreeLibrary((HMODULE)library); }

void *xffi_library_symbol(void *library, const char *name) {
  return address_of(GetProcAddress((HMODULE)library, name));
}

/* GetProcAddress looks in the module's own export table only. */
void *xffi_library_own_symbol(void *library, const char *name) { return xffi_library_symbol(library, name); }

void *xffi_loaded_symbol(const char *library_stem, const char *name) {
  /* The named library first (only if already loaded; the count is not
   * changed), then the program. */
  char file[256];
  HMODULE library = NULL;
  if (snprintf(file, sizeof file, "%s.dll", library_stem) < (int)sizeof file &&
      GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT, file, &library)) {
    void *sym = address_of(GetProcAddress(library, name));
    if (sym) return sym;
  }
  return address_of(GetProcAddress(GetModuleHandleW(NULL), name));
}

void xffi_library_pin(const void *address) {
  HMODULE library = NULL;
  (void)GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN, (LPCSTR)address,
                           &library);
}

void *xffi_platform_aligned_alloc(size_t alignment, size_t size) {
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  return _aligned_malloc(size ? size : 1, alignment);
}

void xffi_platform_aligned_free(void *ptr) { _aligned_free(ptr); }

void xffi_mutex_lock(xffi_mutex *mutex) { AcquireSRWLockExclusive((PSRWLOCK)mutex); }
void xffi_mutex_unlock(xffi_mutex *mutex) { ReleaseSRWLockExclusive((PSRWLOCK)mutex); }

typedef struct once_call {
  void (*init)(void);
} once_call;

static BOOL CALLBACK run_once(PINIT_ONCE once, PVOID parameter, PVOID *context) {
  (void)once, (void)context;
  ((once_call *)parameter)->init();
  return TRUE;
}

void xffi_call_once(xffi_once *once, void (*init)(void)) {
  once_call call = {init};
  InitOnceExecuteOnce((PINIT_ONCE)once, run_once, &call, NULL);
}

/* The FLS callback has the system's calling convention and no context, so
 * one trampoline serves the one exit callback the library uses. */
static void (*fls_exit_callback)(void *value);

static void NTAPI fls_exit(PVOID value) {
  if (value && fls_exit_callback) fls_exit_callback(value);
}

int xffi_thread_key_create(xffi_thread_key *key, void (*on_exit)(void *value)) {
  if (fls_exit_callback && fls_exit_callback != on_exit) return -1; /* one callback only */
  fls_exit_callback = on_exit;
  DWORD index = FlsAlloc(fls_exit);
  if (index == FLS_OUT_OF_INDEXES) return -1;
  /* Threads that exit later call fls_exit, so the module holding it (the
   * DLL, or whatever linked the static library) must never be unloaded. */
  HMODULE self;
  GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                     (LPCWSTR)(const void *)&fls_exit_callback, &self);
  *key = index;
  return 0;
}

void xffi_thread_key_set(xffi_thread_key key, void *value) { FlsSetValue(key, value); }
void xffi_thread_yield(void) { SwitchToThread(); }

/* rand_s draws from the system's RtlGenRandom, 4 bytes at a time. */
size_t xffi_os_random(void *buf, size_t size) {
  unsigned char *bytes = buf;
  size_t got = 0;
  while (got < size) {
    unsigned int word;
    if (rand_s(&word) != 0) break;
    size_t take = size - got < sizeof word ? size - got : sizeof word;
    memcpy(bytes + got, &word, take);
    got += take;
  }
  return got;
}

#else
typedef int xffi_platform_windows_unused; /* ISO C forbids an empty file */
#endif
