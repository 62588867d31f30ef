/* xffi/structural.h: structural equality and hashing with tvm-ffi's
 * semantics (ffi.StructuralEqual, ffi.StructuralHash).
 *
 * Unlike xffi/recursive.h (value equality of dataclasses), structural
 * comparison follows each type's structural kind (xffi_type_metadata's
 * structural_eq_hash_kind, XFFI_SEQ_HASH_*):
 * - TREE_NODE: fields compared in order (ancestors' first), fields flagged
 *   XFFI_FIELD_SEQ_HASH_IGNORE skipped; CONST_TREE_NODE also short-cuts on
 *   the same object; UNIQUE_INSTANCE: equal only to itself; UNSUPPORTED
 *   (or no metadata): TypeError.
 * - DAG_NODE: fields compared, and a successful pair is remembered both
 *   ways, so sharing must match (a DAG never equals the same tree).
 * - FREE_VAR: equal to itself, or mapped to the other side inside a
 *   definition region (fields flagged XFFI_FIELD_SEQ_HASH_DEF_PATTERN or
 *   _DEF_SIMPLE, or everywhere with XFFI_STRUCTURAL_MAP_FREE_VARS); the
 *   mapping is a bijection.
 * - A type attribute `__s_equal__` (a Function (lhs, rhs, fn) -> bool)
 *   replaces the field walk; fn(lhs, rhs, def_region_kind, field_name)
 *   recurses.
 * Containers: Arrays and Lists element by element, Maps and Dicts by key
 * (object keys mapped through the pairs found so far), Shapes by dims,
 * Tensors by shape, dtype and (unless skipped) bytes of contiguous CPU data.
 * Strings and bytes by content whatever their form; other plain values by
 * their bits (NaN equals NaN). Walks use a heap stack: 10^6-deep values
 * work; past 2^20 levels a ValueError. */
#ifndef XFFI_STRUCTURAL_H
#define XFFI_STRUCTURAL_H

#include <stdint.h>
#include <xffi/any.h>
#include <xffi/export.h>

XFFI_EXTERN_C_BEGIN

/* Options (bits) of the structural functions. */
enum {
  XFFI_STRUCTURAL_MAP_FREE_VARS = 1 << 0,      /* free variables may map anywhere (a pattern region) */
  XFFI_STRUCTURAL_SKIP_TENSOR_CONTENT = 1 << 1 /* tensors compare by shape and dtype only */
};

/* *out receives 1 if lhs and rhs (views, borrowed) are structurally equal,
 * else 0 (0 on failure too). options: XFFI_STRUCTURAL_* bits.
 * Errors: ValueError for NULL or malformed arguments, unknown option bits
 * or a value nested too deep; TypeError for an object whose type has no
 * structural kind; RuntimeError for a tensor not on the CPU or not
 * contiguous when its content is compared; whatever a `__s_equal__` hook
 * raises. */
XFFI_API int xffi_structural_equal(int *out, const xffi_any *lhs, const xffi_any *rhs, int32_t options);

/* *out receives None when lhs and rhs (views, borrowed) are structurally
 * equal, else a new Array [lhs_path, rhs_path] of two
 * ffi.reflection.AccessPath objects (owned by the caller) leading to the
 * first difference found (tvm-ffi's GetFirstStructuralMismatch: a missing
 * element or key is an *_missing step on the side that lacks it).
 * Errors: as xffi_structural_equal (then *out is None). */
XFFI_API int xffi_structural_first_mismatch(xffi_any *out, const xffi_any *lhs, const xffi_any *rhs, int32_t options);

/* *out receives value's (a view, borrowed) structural hash, tvm-ffi's
 * StructuralHash number for the same value (0 on failure): structurally
 * equal values hash alike, except that small bytes hash by their payload
 * and free variables outside a definition region by their address, as in
 * tvm-ffi. options: XFFI_STRUCTURAL_* bits. Errors: as
 * xffi_structural_equal, and whatever a `__s_hash__` hook (a Function
 * (obj, init_hash, fn) -> int; fn(value, init, def_region_kind) -> int)
 * raises. A cycle of objects is a ValueError (the depth bound). */
XFFI_API int xffi_structural_hash(int64_t *out, const xffi_any *value, int32_t options);

XFFI_EXTERN_C_END

#endif /* XFFI_STRUCTURAL_H */
