/* c/lib/walk/structural_region.h: the definition-region kinds that structural
 * equality (c/lib/walk/structural_equal.c) and hashing (c/lib/walk/structural_hash.c) carry
 * down a walk (private). A field flagged as a definition opens a region for
 * its value; a free variable met inside one is bound (mapped, numbered)
 * instead of compared by identity. */
#ifndef XFFI_STRUCTURAL_REGION_H
#define XFFI_STRUCTURAL_REGION_H

#include <xffi/reflection.h>

/* tvm-ffi's TVMFFIDefRegionKind values (hook callbacks receive them). */
enum { XFFI_REGION_NONE = 0, XFFI_REGION_PATTERN = 1, XFFI_REGION_SIMPLE = 2 };

/* The region a child starts in: an opened one (a definition field or a
 * hook's explicit kind) replaces the current, except inside a pattern. */
static inline int32_t xffi_structural_child_region(int32_t current, int32_t opened) {
  if (current == XFFI_REGION_PATTERN) return XFFI_REGION_PATTERN;
  return opened == XFFI_REGION_NONE ? current : opened;
}

/* The region a field (borrowed; NULL: none) opens. */
static inline int32_t xffi_structural_field_region(const xffi_field_info *field) {
  if (!field) return XFFI_REGION_NONE;
  if (field->flags & XFFI_FIELD_SEQ_HASH_DEF_SIMPLE) return XFFI_REGION_SIMPLE;
  if (field->flags & XFFI_FIELD_SEQ_HASH_DEF_PATTERN) return XFFI_REGION_PATTERN;
  return XFFI_REGION_NONE;
}

/* The region an object's own fields start in: a free variable's fields
 * (its name, say) are not themselves inside a simple definition. */
static inline int32_t xffi_structural_own_region(int32_t seq_kind, int32_t entry_region) {
  return seq_kind == XFFI_SEQ_HASH_FREE_VAR && entry_region == XFFI_REGION_SIMPLE ? XFFI_REGION_NONE : entry_region;
}

#endif /* XFFI_STRUCTURAL_REGION_H */
