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
#include <xffi/dtype.h>
#include <xffi/shape.h>
#include <xffi/tensor.h>
#include <xffi/array.h>
#include <xffi/map.h>
#include <xffi/function.h>
#include <xffi/module.h>

#endif /* XFFI_XFFI_H */
