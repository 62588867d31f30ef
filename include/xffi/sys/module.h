/* xffi/sys/module.h: what the export macros of xffi/module.h expand to (extension tier).
 *
 * Private to those macros (trailing underscores): never use them directly. */
#ifndef XFFI_SYS_MODULE_H
#define XFFI_SYS_MODULE_H

#include <xffi/export.h>

XFFI_EXTERN_C_BEGIN

/* Extern "C" for the symbols XFFI_EXPORT_FUNCTION and XFFI_DEFINE_ABI_MARKER
 * define, also when they are written in C++. XFFI_EXPORT_LINKAGE_ starts a
 * definition, XFFI_EXPORT_DECLARATION_ a declaration that defines nothing
 * (extern "C" alone makes a variable a declaration in C++; C needs extern). */
#ifdef __cplusplus
#  define XFFI_EXPORT_LINKAGE_ extern "C"
#  define XFFI_EXPORT_DECLARATION_ extern "C"
#else
#  define XFFI_EXPORT_LINKAGE_
#  define XFFI_EXPORT_DECLARATION_ extern
#endif

/* XFFI_EXPORT_FUNCTION's failure path, xffi_error_forward_to_tvm.
 * Declared weak where the platform allows (outside libxffi itself), so that a
 * library using only this header's inline code still loads where no libxffi
 * is visible; then there is nothing to forward from either. */
#if defined(__GNUC__) && !defined(_WIN32) && !defined(XFFI_BUILDING)
XFFI_API int xffi_export_failed_(void) __attribute__((weak));
#  define XFFI_EXPORT_FAILED_() (xffi_export_failed_ ? (void)xffi_export_failed_() : (void)0)
#else
XFFI_API int xffi_export_failed_(void);
#  define XFFI_EXPORT_FAILED_() ((void)xffi_export_failed_())
#endif

XFFI_EXTERN_C_END

#endif /* XFFI_SYS_MODULE_H */
