/* xffi/export.h: symbol visibility and inline helpers shared by every public header. */
#ifndef XFFI_EXPORT_H
#define XFFI_EXPORT_H

/* XFFI_API marks the stable, exported C ABI. The library is built with hidden
 * visibility, so only functions carrying this macro leave the shared object. */
#if defined(_WIN32)
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

#if defined(__GNUC__)
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
