/* c/lib/container/bigint_hash.h: ffi.BigInt's `__any_hash__` and `__any_equal__` (private).
 * tvm-ffi registers both for type 78 in the native-hook form (an OpaquePtr
 * to `TVMFFIAny (*)(const Any&[, const Any&]) noexcept`); c/runtime/type_attr.c puts
 * these two in its static columns, so equal BigInts are one map key in xffi's
 * maps and in C++ inline code alike. */
#ifndef XFFI_BIGINT_HASH_H
#define XFFI_BIGINT_HASH_H

#include <xffi/any.h>

#include "runtime/internal.h"

/* An Int: tvm-ffi's BigInt::hash (StableHashBytes of the words); or an
 * Error (a new reference) when value is not a BigInt. value is borrowed. */
xffi_any xffi_bigint_any_hash(const xffi_any *value) XFFI_INTERNAL;

/* A Bool: whether a and b hold the same integer; or an Error (a new
 * reference) when either is not a BigInt. Both are borrowed. */
xffi_any xffi_bigint_any_equal(const xffi_any *a, const xffi_any *b) XFFI_INTERNAL;

#endif /* XFFI_BIGINT_HASH_H */
