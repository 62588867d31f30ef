/* c/lib/reflection/reflection_layout.h: the checks a field record passes before the
 * registry keeps it (c/lib/reflection/reflection_layout.c), shared by every way of
 * registering a field (TVMFFITypeRegisterField, xffi_type_register_field,
 * the XFFI_REFLECT_* macros). */
#ifndef XFFI_REFLECTION_LAYOUT_H
#define XFFI_REFLECTION_LAYOUT_H

#include <xffi/reflection.h>

#include "runtime/internal.h"

/* Which rules apply. A read-only field has a setter in tvm-ffi's records
 * too (construction and copies write it; writes by name refuse it), so
 * that is never refused; a writable field without one is, from xffi's
 * forms. */
typedef enum xffi_field_rules {
  XFFI_FIELD_RULES_TVM_FFI = 0, /* what tvm-ffi's registrations legitimately send */
  XFFI_FIELD_RULES_STRICT = 1,  /* xffi's forms: also a setter on every writable field */
  XFFI_FIELD_RULES_RUNTIME = 2  /* the runtime's own records (c/type_runtime.c): its own types take them */
} xffi_field_rules;

/* Checks info (borrowed) as a new field of type (borrowed): a non-empty
 * name, a getter, an offset past the object header (or, by
 * XFFI_FIELD_RULES_TVM_FFI, a field wholly before it, as tvm-ffi accepts:
 * the members of a C++ class's polymorphic first base), a
 * positive power-of-two alignment that the offset is a multiple of, a size
 * that is not negative and, when type has metadata with a total size,
 * offset + size within it. ValueError "<function>: field 'name' of T: ..."
 * otherwise. Raises nothing else, allocates nothing. */
int xffi_field_layout_check(const char *function, const xffi_type_info *type, const xffi_field_info *info,
                            xffi_field_rules rules) XFFI_INTERNAL;

/* Checks that info (a new field of type, borrowed) shares no byte with
 * other, a field of other_type (type itself, an ancestor or a descendant):
 * a write through one would corrupt what the other reads (an integer over
 * an object pointer). An exact alias of another type's field (same offset,
 * size, static type, getter and setter) shares its storage safely and
 * passes; tvm-ffi's runtime has two (ffi.IntEnum.value is ffi.Enum's
 * _int_index). Zero-size fields overlap nothing; offsets may be negative
 * (tvm-ffi's offsets are from the object header, which a C++ class with
 * a polymorphic base places after that base's members). ValueError naming
 * both fields otherwise. */
int xffi_field_overlap_check(const char *function, const xffi_type_info *type, const xffi_field_info *info,
                             const xffi_type_info *other_type, const xffi_field_info *other) XFFI_INTERNAL;

/* Checks that every field type has (its own, not its ancestors') lies within
 * total_size, for metadata registered after the fields: ValueError naming
 * the first field outside. total_size <= 0 (unknown) passes. */
int xffi_field_layout_check_total_size(const char *function, const xffi_type_info *type,
                                       int32_t total_size) XFFI_INTERNAL;

/* Registers the count records infos[0..count) (borrowed) as new fields of
 * type_index, all or none: under one lock hold every record is checked
 * (a type the runtime defines takes records only by XFFI_FIELD_RULES_RUNTIME;
 * names new to the type and to the batch, xffi_field_layout_check by rules,
 * no overlap with the type's, the batch's, its ancestors' or its
 * descendants' fields: xffi_field_overlap_check) and copied as
 * xffi_type_register_field documents, then the count grows once. function
 * names the caller in messages (c/lib/reflection/type_reflection.c). */
int xffi_type_register_fields_in(const char *function, int32_t type_index, const xffi_field_info *infos, int32_t count,
                                 xffi_field_rules rules) XFFI_INTERNAL;

/* xffi_type_register_method_in, and when unique is set, a name the type
 * already has among its own methods is refused (ValueError "<function>:
 * name 'm' is already a method of T"), checked under the registry lock. */
/* Marks type_index as one the runtime defines (c/type_runtime.c): from then
 * on only XFFI_FIELD_RULES_RUNTIME adds fields to it. The built-in types are
 * marked from the start. Errors: IndexError for an unregistered index. */
int xffi_type_mark_runtime_owned(const char *function, int32_t type_index) XFFI_INTERNAL;

int xffi_type_register_method_checked_in(const char *function, int32_t type_index, const xffi_method_info *info,
                                         int unique) XFFI_INTERNAL;

#endif /* XFFI_REFLECTION_LAYOUT_H */
