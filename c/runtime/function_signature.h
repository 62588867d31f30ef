/* c/runtime/function_signature.h: a built-in global function's signature,
 * written compactly in its table (c/runtime/static_object.h), expanded to the
 * metadata tvm-ffi's registry gives the same function: {"type_schema": "<the
 * signature as a JSON type schema>"}. Tools read it (tvm-ffi-stubgen skips a
 * function without one); the compact form keeps the 100 built-ins' schemas
 * (16 KB as JSON) small in the library.
 *
 * Grammar: "*" for a function whose arguments vary (its schema is only
 * {"type":"ffi.Function"}), else RET(PARAM,...), each a type NAME or
 * NAME<ARG,...>, e.g. "Optional<ffi.Function>(ffi.Module,ffi.String,bool)". */
#ifndef XFFI_FUNCTION_SIGNATURE_H
#define XFFI_FUNCTION_SIGNATURE_H

#include <stddef.h>

#include "runtime/internal.h"

/* Writes signature's metadata JSON, NUL-terminated, to out (capacity bytes).
 * Returns its length, or -1 (out holds nothing usable) when signature does
 * not follow the grammar or the text does not fit. Raises nothing. */
long xffi_signature_metadata(char *out, size_t capacity, const char *signature) XFFI_INTERNAL;

#endif
