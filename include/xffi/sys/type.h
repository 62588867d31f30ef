/* xffi/sys/type.h: the type table and inline is-instance (extension tier).
 *
 * O(1) type tests with no call and no check, for hot paths that already know
 * their object is live. A type the table has not met (one only the process's
 * other tvm-ffi runtime knows) takes one call, the first time. The checked forms are
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

/* The same table with its size (trailing underscore: private to the inline
 * functions below): rows[0..size), those past the last type NULL. Published
 * as one pointer, so a size is never read with a smaller table. */
typedef struct xffi_type_rows_ {
  int64_t size;
  const xffi_type_info *const *rows;
} xffi_type_rows_;
XFFI_API extern const xffi_type_rows_ *xffi_type_sized_table_;

/* The record of a type the table has no row for yet (trailing underscore:
 * private to the inline functions below): a type only the process's other
 * tvm-ffi runtime knows, recorded here on first use; NULL when no runtime
 * has type_index. The record is borrowed: it lives as long as the process.
 * Raises nothing. */
XFFI_API const xffi_type_info *xffi_type_info_find_slow_(int32_t type_index);

#if defined(XFFI_BUILDING) && defined(XFFI_NO_FOREIGN_RUNTIME)
/* Inside the drop-in libtvm_ffi.so, the process's runtime (never bound to
 * another): every live object's type is in its table, read with no size. */
static inline const xffi_type_info *xffi_object_type_info_unchecked(const xffi_object *obj) {
  return __atomic_load_n(&xffi_type_table_, __ATOMIC_ACQUIRE)[obj->type_index];
}
static inline int xffi_object_is_a_type_unchecked(const xffi_object *obj, const xffi_type_info *type) {
  int32_t index = obj->type_index, target = type->type_index;
  if (index == target) return 1;
  const xffi_type_record_ *record = (const xffi_type_record_ *)xffi_object_type_info_unchecked(obj);
  int32_t depth = type->type_depth;
  return record->info.type_depth > depth && record->ancestor_indices_[depth] == target;
}
static inline int xffi_object_is_a_unchecked(const xffi_object *obj, int32_t type_index) {
  if (obj->type_index == type_index) return 1;
  const xffi_type_info *const *table = __atomic_load_n(&xffi_type_table_, __ATOMIC_ACQUIRE);
  const xffi_type_record_ *record = (const xffi_type_record_ *)table[obj->type_index];
  int32_t depth = table[type_index]->type_depth;
  return record->info.type_depth > depth && record->ancestor_indices_[depth] == type_index;
}
#else
/* The sized table, loaded with acquire ordering. */
static inline const xffi_type_rows_ *xffi_type_rows_load_(void) {
#  if defined(__GNUC__) || defined(__clang__)
  return __atomic_load_n(&xffi_type_sized_table_, __ATOMIC_ACQUIRE);
#  else
  return xffi_type_sized_table_;
#  endif
}

/* The stored record of type_index in table, or from the call above for a
 * type the table has not met; NULL when no runtime has it. */
static inline const xffi_type_record_ *xffi_type_record_in_(const xffi_type_rows_ *table, int32_t type_index) {
  const xffi_type_info *info = (uint64_t)(uint32_t)type_index < (uint64_t)table->size ? table->rows[type_index] : NULL;
  if (!info) info = xffi_type_info_find_slow_(type_index);
  return (const xffi_type_record_ *)info;
}

/* The record of an object's own type, with no lock. obj is borrowed and must
 * be a live object; NULL when no runtime in the process has its type. */
static inline const xffi_type_info *xffi_object_type_info_unchecked(const xffi_object *obj) {
  return (const xffi_type_info *)xffi_type_record_in_(xffi_type_rows_load_(),
                                                      obj->type_index); /* the record starts with it */
}

/* Whether obj is an instance of type (or of a type derived from it), in O(1)
 * with no call for a type the table has: equal index, or type stands at its
 * depth among obj's ancestors. obj and type are borrowed; obj must not be
 * NULL. 0 when no runtime in the process has obj's type. */
static inline int xffi_object_is_a_type_unchecked(const xffi_object *obj, const xffi_type_info *type) {
  int32_t index = obj->type_index, target = type->type_index;
  if (index == target) return 1;
  const xffi_type_record_ *record = xffi_type_record_in_(xffi_type_rows_load_(), index);
  int32_t depth = type->type_depth;
  return record && record->info.type_depth > depth && record->ancestor_indices_[depth] == target;
}

/* The same test by type index, for callers that do not keep a record.
 * 0 when no runtime in the process has either type. */
static inline int xffi_object_is_a_unchecked(const xffi_object *obj, int32_t type_index) {
  if (obj->type_index == type_index) return 1;
  const xffi_type_rows_ *table = xffi_type_rows_load_();
  const xffi_type_record_ *record = xffi_type_record_in_(table, obj->type_index);
  const xffi_type_record_ *target = xffi_type_record_in_(table, type_index);
  if (!record || !target) return 0;
  int32_t depth = target->info.type_depth;
  return record->info.type_depth > depth && record->ancestor_indices_[depth] == type_index;
}
#endif

XFFI_EXTERN_C_END

#endif /* XFFI_SYS_TYPE_H */
