/* xffi/sys/type.h: the type table and inline is-instance (extension tier).
 *
 * O(1) type tests with no call and no check, for hot paths that already know
 * their object is live and its type registered. The checked forms are
 * xffi_object_is_a and xffi_type_info_get (xffi/type.h). */
#ifndef XFFI_SYS_TYPE_H
#define XFFI_SYS_TYPE_H

#include <stdint.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* The lock-free table of type records, indexed by type index. Private to the
 * inline functions below (trailing underscore: never use it directly; call
 * xffi_type_info_get). */
XFFI_API extern const xffi_type_info *const *xffi_type_table_;

/* How the registry stores every record it hands out (trailing underscore:
 * private to the inline functions below): the public record, then the
 * indices of its ancestors (ancestor_indices_[d] is
 * info.type_ancestors[d]->type_index), so that is-instance reads an index
 * with no load through the ancestor's record. */
typedef struct xffi_type_record_ {
  xffi_type_info info;
  const int32_t *ancestor_indices_;
} xffi_type_record_;

/* The record of an object's own type, with no call and no lock. obj is borrowed
 * and must be a live object created by a registered type. */
static inline const xffi_type_info *xffi_object_type_info_unchecked(const xffi_object *obj) {
#if defined(__GNUC__) || defined(__clang__)
  const xffi_type_info *const *table = __atomic_load_n(&xffi_type_table_, __ATOMIC_ACQUIRE);
#else
  const xffi_type_info *const *table = xffi_type_table_;
#endif
  return table[obj->type_index];
}

/* Whether obj is an instance of type (or of a type derived from it), in O(1)
 * with no call: equal index, or type stands at its depth among obj's
 * ancestors. obj and type are borrowed; obj must not be NULL. */
static inline int xffi_object_is_a_type_unchecked(const xffi_object *obj, const xffi_type_info *type) {
  /* Each field is read once, into a register: 12 instructions on x86-64. */
  int32_t index = obj->type_index, target = type->type_index;
  if (index == target) return 1;
  const xffi_type_record_ *record = (const xffi_type_record_ *)xffi_object_type_info_unchecked(obj);
  int32_t depth = type->type_depth;
  return record->info.type_depth > depth && record->ancestor_indices_[depth] == target;
}

/* The same test by type index, for callers that do not keep a record.
 * type_index must be a registered object type index. */
static inline int xffi_object_is_a_unchecked(const xffi_object *obj, int32_t type_index) {
  if (obj->type_index == type_index) return 1;
#if defined(__GNUC__) || defined(__clang__)
  const xffi_type_info *const *table = __atomic_load_n(&xffi_type_table_, __ATOMIC_ACQUIRE);
#else
  const xffi_type_info *const *table = xffi_type_table_;
#endif
  const xffi_type_record_ *record = (const xffi_type_record_ *)table[obj->type_index];
  int32_t depth = table[type_index]->type_depth;
  return record->info.type_depth > depth && record->ancestor_indices_[depth] == type_index;
}

XFFI_EXTERN_C_END

#endif /* XFFI_SYS_TYPE_H */
