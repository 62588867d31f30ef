/* c/runtime/bigint.h: ffi.BigInt's `__any_hash__` and `__any_equal__`, and its ordering (private).
 * tvm-ffi registers both for type 78 in the native-hook form (an OpaquePtr
 * to `TVMFFIAny (*)(const Any&[, const Any&]) noexcept`); c/runtime/type_attr.c puts
 * these two in its static columns, so equal BigInts are one map key in xffi's
 * maps and in C++ inline code alike. */
#ifndef XFFI_RUNTIME_BIGINT_H
#define XFFI_RUNTIME_BIGINT_H

#include <xffi/any.h>

#include "runtime/internal.h"

/* The integer whose two's-complement 64-bit words (least significant
 * first, native byte order) input holds, normalised: a plain int when it
 * fits, else a new ffi.BigInt reference in *out. Raises ValueError for a
 * size that is not whole words; fn names the caller in errors. */
int xffi_bigint_from_bytes(const char *fn, const xffi_byte_array *input, xffi_any *out) XFFI_INTERNAL;

/* The words of an int (one word, inside *value) or an ffi.BigInt (inside
 * the object): borrowed, valid while value is. {NULL, 0} with TypeError
 * raised (naming fn) for anything else. */
xffi_byte_array xffi_bigint_content(const char *fn, const xffi_any *value) XFFI_INTERNAL;

/* An Int: tvm-ffi's BigInt::hash (StableHashBytes of the words); or an
 * Error (a new reference) when value is not a BigInt. value is borrowed. */
xffi_any xffi_bigint_any_hash(const xffi_any *value) XFFI_INTERNAL;

/* A Bool: whether a and b hold the same integer; or an Error (a new
 * reference) when either is not a BigInt. Both are borrowed. */
xffi_any xffi_bigint_any_equal(const xffi_any *a, const xffi_any *b) XFFI_INTERNAL;

/* *out: -1, 0 or 1 as integer a is less than, equal to or greater than b
 * (both borrowed: an int or an ffi.BigInt, as tvm-ffi's BigInt ordering
 * takes them). Errors: TypeError naming fn for any other value. */
int xffi_bigint_compare(int *out, const xffi_any *a, const xffi_any *b, const char *fn) XFFI_INTERNAL;

#endif /* XFFI_RUNTIME_BIGINT_H */
