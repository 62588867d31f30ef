/* c/lib/reflection/type_reflection.h: registering a type's fields, methods
 * and metadata by records whose names are byte arrays (private;
 * c/lib/reflection/type_reflection.c), for the registrations of tvm-ffi's
 * ABI and of the runtime's own types. function names the caller in
 * messages; the records are borrowed (the registry copies what it keeps). */
#ifndef XFFI_LIB_REFLECTION_TYPE_REFLECTION_H
#define XFFI_LIB_REFLECTION_TYPE_REFLECTION_H

#include "runtime/type_internal.h"

int xffi_type_register_field_in(const char *function, int32_t type_index, const xffi_field_info *info) XFFI_INTERNAL;
int xffi_type_register_method_in(const char *function, int32_t type_index, const xffi_method_info *info) XFFI_INTERNAL;
int xffi_type_register_metadata_in(const char *function, int32_t type_index,
                                   const xffi_type_metadata *metadata) XFFI_INTERNAL;

#endif /* XFFI_LIB_REFLECTION_TYPE_REFLECTION_H */
