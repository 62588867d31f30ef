/* c/lib/reflection/reflection_construct.h: the generated constructor of c/lib/reflection/auto_init.c, for
 * xffi_object_construct (c/lib/reflection/reflection_construct.c) to call on a type that
 * has no "__ffi_init__" attribute of its own. */
#ifndef XFFI_REFLECTION_CONSTRUCT_H
#define XFFI_REFLECTION_CONSTRUCT_H

#include "runtime/internal.h"

/* *out receives a new reference to the Function tvm-ffi's "__ffi_init__"
 * attribute holds for type_index (c/lib/reflection/auto_init.c, ffi._RegisterFFIInit): it
 * makes an empty object (creator or __ffi_new__), binds its arguments to the
 * fields and gives the others their defaults. function names the caller in
 * errors. Errors: IndexError for an index that is not a registered object
 * type; MemoryError. (The pyclass area declares the same entry point in
 * c/lib/reflection/pyclass.h.) */
int xffi_auto_init_function_new(xffi_object **out, const char *function, int32_t type_index) XFFI_INTERNAL;

/* *out receives a new reference to an empty object of type (borrowed): its
 * fields as the type's creator (else its "__ffi_new__" attribute) leaves
 * them, for a caller that sets them itself (c/lib/text/serialization_read.c).
 * Errors: RuntimeError for a type with neither; what they raise. */
int xffi_reflection_new_empty(xffi_object **out, const xffi_type_info *type) XFFI_INTERNAL;

#endif /* XFFI_REFLECTION_CONSTRUCT_H */
