/* xffi/recursive.h: deep copy, and recursive equality, ordering and hashing
 * of any value: containers (Array, List, Map, Dict) element by element and
 * reflected objects field by field, with tvm-ffi's semantics (the
 * ffi.DeepCopy and ffi.Recursive{Eq,Lt,Le,Gt,Ge,Hash} globals call these).
 *
 * - Strings compare and hash by their bytes whatever their form (small or
 *   String object); so do bytes; a string never equals bytes.
 * - Floats: -0.0 equals 0.0 and hashes alike; NaN equals NaN (and hashes
 *   alike) but cannot be ordered (TypeError).
 * - Objects of user types compare by their fields in order (ancestors'
 *   first), skipping fields flagged XFFI_FIELD_COMPARE_OFF (and, for the
 *   hash, XFFI_FIELD_HASH_OFF); the type attributes `__ffi_eq__`,
 *   `__ffi_compare__` and `__ffi_hash__` (Functions) replace that walk.
 * - Cycles: a pair met again while it is being compared counts as equal (an
 *   ordering raises a ValueError), an object met again while it is being
 *   hashed hashes as its type key's hash.
 * - Ordering values of different kinds, Maps and Dicts, or opaque pointers
 *   that differ is a TypeError; equality just says "not equal".
 * Every walk uses a heap stack (no C recursion): values nested up to 2^20
 * deep work; deeper ones are a ValueError. Thread-safe as long as no other
 * thread changes the values while they are walked. */
#ifndef XFFI_RECURSIVE_H
#define XFFI_RECURSIVE_H

#include <stdint.h>
#include <xffi/any.h>
#include <xffi/export.h>

XFFI_EXTERN_C_BEGIN

/* *out receives a deep copy of value (a view, borrowed; owned by the caller
 * on success, None on failure): Lists, Dicts, Arrays, Maps and reflected
 * objects (through their `__ffi_shallow_copy__` attribute, then field by
 * field) are copied; Strings, Bytes, Shapes, BigInts and ffi.Enum members
 * are shared; plain values are copied. Sharing and cycles are preserved
 * (an object reached twice is copied once). Each copy's fields are set
 * while the walk holds its only reference (so setters that write only into
 * an unshared object accept), except in a cycle back to it: there the copy
 * is shared first, and such a setter's refusal fails the copy.
 * Errors: ValueError for NULL or malformed arguments or a value nested too
 * deep; RuntimeError "Cannot deep copy object of type "<key>" because it is
 * not copy-constructible" for an object of another type (Function, Tensor,
 * a type without `__ffi_shallow_copy__`); what a hook or field setter
 * raises; MemoryError. Nothing is leaked on failure. */
XFFI_API int xffi_deep_copy(xffi_any *out, const xffi_any *value);

/* *out receives 1 when lhs and rhs (views, borrowed) are recursively
 * equal, else 0. Errors: ValueError for NULL or malformed arguments or a
 * value nested too deep; what an `__ffi_eq__`/`__ffi_compare__` hook
 * raises; MemoryError. */
XFFI_API int xffi_recursive_equal(int *out, const xffi_any *lhs, const xffi_any *rhs);

/* *out receives -1, 0 or 1 as lhs is less than, equal to or greater than
 * rhs (views, borrowed): None first; ints, floats, bools, data types and
 * devices by value; strings and bytes by bytes (then length); sequences
 * element by element, then by length; objects of the same type field by
 * field. Errors: TypeError for values that cannot be ordered (different
 * kinds, NaN, Maps/Dicts, objects of different types); ValueError for a
 * cycle or for NULL or malformed arguments; what a hook raises;
 * MemoryError. */
XFFI_API int xffi_recursive_compare(int *out, const xffi_any *lhs, const xffi_any *rhs);

/* *out receives tvm-ffi's RecursiveHash of value (a view, borrowed): the
 * same number tvm-ffi's runtime computes for the same value (consistent
 * with xffi_recursive_equal: equal values hash alike). Errors: ValueError
 * for NULL or malformed arguments, a value nested too deep, or a user type
 * with `__ffi_eq__`/`__ffi_compare__` but no `__ffi_hash__`; what a hook
 * raises; MemoryError. */
XFFI_API int xffi_recursive_hash(int64_t *out, const xffi_any *value);

XFFI_EXTERN_C_END

#endif /* XFFI_RECURSIVE_H */
