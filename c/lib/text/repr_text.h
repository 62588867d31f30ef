/* c/lib/text/repr_text.h: the bounded text buffer of the printer (c/lib/text/repr.c) and the
 * writers of the values that print with no walk (c/lib/text/repr_text.c), in
 * tvm-ffi's ReprPrint format. Private to the library. */
#ifndef XFFI_REPR_TEXT_H
#define XFFI_REPR_TEXT_H

#include "runtime/internal.h"

/* A growable run of bytes that keeps at most `limit` of them: what does not
 * fit is dropped and `truncated` set, so the printer can stop. Owns data. */
typedef struct repr_text {
  char *data;
  size_t size;
  size_t capacity;
  size_t limit;
  int truncated;
} repr_text;

/* Appends n bytes of s (borrowed), or as many as fit under the limit.
 * Returns XFFI_OK (also when cut), or XFFI_FAIL with a MemoryError raised. */
int xffi_repr_put(repr_text *t, const char *s, size_t n) XFFI_INTERNAL;
/* Appends a NUL-terminated string (borrowed). */
int xffi_repr_put_str(repr_text *t, const char *s) XFFI_INTERNAL;
/* Appends text[start, end) of the same buffer again (a shared object's text). */
int xffi_repr_put_again(repr_text *t, const repr_text *from, size_t start, size_t end) XFFI_INTERNAL;
void xffi_repr_text_free(repr_text *t) XFFI_INTERNAL;

/* The leaves. Each appends the value's text and returns XFFI_OK, or
 * XFFI_FAIL with the error raised (MemoryError, or the dtype's). */
int xffi_repr_put_int(repr_text *t, int64_t v) XFFI_INTERNAL;
int xffi_repr_put_float(repr_text *t, double v) XFFI_INTERNAL;              /* C++ ostream's default: %g */
int xffi_repr_put_device(repr_text *t, DLDevice device) XFFI_INTERNAL;      /* "cuda:1", "unknown:3" */
int xffi_repr_put_dtype(repr_text *t, DLDataType dtype) XFFI_INTERNAL;      /* "float32", "int8x4" */
int xffi_repr_put_address(repr_text *t, const void *address) XFFI_INTERNAL; /* "0x7f..." */
/* A Python-style quoted string literal: "a\nb\u00e9". */
int xffi_repr_put_py_string(repr_text *t, const char *data, size_t size) XFFI_INTERNAL;
/* A Python-style bytes literal: b"a\x00". */
int xffi_repr_put_bytes(repr_text *t, const char *data, size_t size) XFFI_INTERNAL;
/* The decimal digits of a BigInt (value borrowed: an ffi.BigInt object). */
int xffi_repr_put_bigint(repr_text *t, const xffi_any *value) XFFI_INTERNAL;

/* Registers the "__ffi_repr__" attributes of ffi.reflection.AccessStep and
 * AccessPath (c/lib/text/repr_access_path.c); part of registering tvm-ffi's
 * runtime-owned types (c/compat/globals/type_runtime.c), after those types.
 * XFFI_FAIL with an error raised when memory runs out (a retry adds only
 * what is missing). */
int xffi_repr_register_runtime_hooks(void) XFFI_INTERNAL;

#endif /* XFFI_REPR_TEXT_H */
