/* c/lib/container/container_equal.h: the equality of values that ffi.ArrayContains and
 * ffi.ListContains use (private). */
#ifndef XFFI_CONTAINER_EQUAL_H
#define XFFI_CONTAINER_EQUAL_H

#include "runtime/internal.h"

/* Whether two well-formed values (borrowed views) are equal in tvm-ffi's
 * AnyEqual sense: strings by bytes whatever their form (small, String
 * object, borrowed C string), bytes likewise, a string never equal to bytes;
 * every other kind by type index and 8 payload bits (so int 1 and bool true
 * differ, floats compare by bits, objects by identity). Returns 1 or 0;
 * raises nothing. Not yet: the __any_equal__ type-attribute column (BigInt's
 * equality by value), which the type registry will provide. */
int xffi_container_values_equal(const xffi_any *a, const xffi_any *b);

#endif /* XFFI_CONTAINER_EQUAL_H */
