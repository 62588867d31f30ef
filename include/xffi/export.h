/* xffi/export.h: symbol visibility and inline helpers shared by every public header. */
#ifndef XFFI_EXPORT_H
#define XFFI_EXPORT_H

/* XFFI_API marks the stable, exported C ABI. The library is built with hidden
 * visibility, so only functions carrying this macro leave the shared object.
 * On Windows the DLL exports them and its users import them; users of the
 * static library (xffi.lib, libxffi.a) define XFFI_STATIC before including
 * any xffi header (the CMake target xffi::static does it for them), since
 * there is nothing to import from. */
#if defined(_WIN32) && defined(XFFI_STATIC)
#  define XFFI_API
#elif defined(_WIN32)
#  if defined(XFFI_BUILDING)
#    define XFFI_API __declspec(dllexport)
#  else
#    define XFFI_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define XFFI_API __attribute__((visibility("default")))
#else
#  define XFFI_API
#endif

/* printf checking: MinGW's runtime (with __USE_MINGW_ANSI_STDIO, which
 * <stdio.h> turns on for C99 and later) and xffi's own formatting follow C99
 * (%zu, %lld), which gcc calls gnu_printf there; plain printf would mean the
 * old msvcrt flavour and reject them. */
#if defined(__GNUC__) && defined(__MINGW32__)
#  define XFFI_LIKELY(x) __builtin_expect(!!(x), 1)
#  define XFFI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define XFFI_PRINTF(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#elif defined(__GNUC__)
#  define XFFI_LIKELY(x) __builtin_expect(!!(x), 1)
#  define XFFI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define XFFI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#  define XFFI_LIKELY(x) (x)
#  define XFFI_UNLIKELY(x) (x)
#  define XFFI_PRINTF(fmt, args)
#endif

#ifdef __cplusplus
#  define XFFI_EXTERN_C_BEGIN extern "C" {
#  define XFFI_EXTERN_C_END }
#else
#  define XFFI_EXTERN_C_BEGIN
#  define XFFI_EXTERN_C_END
#endif

/* Status codes. Every function that can fail returns one; the detail of a
 * failure is an Error object in the calling thread's raised slot (xffi/error.h). */
#define XFFI_OK 0
#define XFFI_FAIL (-1)

#endif /* XFFI_EXPORT_H */
