/* xffi/version.h: the library version and the ABI version. */
#ifndef XFFI_VERSION_H
#define XFFI_VERSION_H

#include <stdint.h>
#include <xffi/export.h>

#define XFFI_VERSION_MAJOR 0
#define XFFI_VERSION_MINOR 1
#define XFFI_VERSION_PATCH 0
#define XFFI_VERSION_STRING "0.1.0"

/* The ABI version changes whenever a public layout or the meaning of an
 * exported symbol changes. Libraries built against xffi record the value they
 * were compiled with, and the module loader refuses a library whose ABI
 * version differs from the running one (a clear error instead of a crash). */
#define XFFI_ABI_VERSION 1

XFFI_EXTERN_C_BEGIN

/* The version of the running library, "MAJOR.MINOR.PATCH". Static storage:
 * never free it. */
XFFI_API const char *xffi_version(void);

/* The ABI version of the running library (XFFI_ABI_VERSION it was built with). */
XFFI_API int32_t xffi_abi_version(void);

XFFI_EXTERN_C_END

#endif /* XFFI_VERSION_H */
