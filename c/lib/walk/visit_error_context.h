/* c/lib/walk/visit_error_context.h: ffi.VisitErrorContext inside the library
 * (c/lib/walk/visit_error_context.c): the type and the recording the structural
 * walks do as an error passes through them. */
#ifndef XFFI_VISIT_ERROR_CONTEXT_H
#define XFFI_VISIT_ERROR_CONTEXT_H

#include "runtime/internal.h"

/* The type index of ffi.VisitErrorContext, registering the runtime's types
 * when needed; -1 with an error raised when that fails. */
int32_t xffi_visit_error_context_type(void) XFFI_INTERNAL;

/* Whether obj (borrowed; may be NULL) is an ffi.VisitErrorContext. */
int xffi_visit_error_context_is(const xffi_object *obj) XFFI_INTERNAL;

/* *out receives a new ffi.VisitErrorContext as tvm-ffi's default
 * constructor makes it (its __ffi_new__): an empty List as
 * reverse_visit_pattern, no prev_error_context. MemoryError, or the error
 * of registering the type, otherwise. */
int xffi_visit_error_context_new_empty(xffi_object **out) XFFI_INTERNAL;

/* Adds value (borrowed) to the VisitErrorContext of the raised error: at
 * the end of its reverse_visit_pattern, or as the first entry of a new
 * context that becomes the error's extra_context (the old one kept as its
 * prev_error_context). Nothing when value is not an object, no error is
 * raised, or the raised error is the shared MemoryError. Best effort: when
 * recording fails the raised error stays as it was. */
void xffi_visit_error_context_note(const xffi_any *value) XFFI_INTERNAL;

#endif /* XFFI_VISIT_ERROR_CONTEXT_H */
