/* xffi/xffi.h: the umbrella header. Including it gives the whole public C API. */
#ifndef XFFI_XFFI_H
#define XFFI_XFFI_H

#include <xffi/export.h>
#include <xffi/version.h>
#include <xffi/dlpack.h>
#include <xffi/object.h>
#include <xffi/type.h>
#include <xffi/any.h>
#include <xffi/error.h>
#include <xffi/string.h>

#endif /* XFFI_XFFI_H */
