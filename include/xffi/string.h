/* xffi/string.h: String and Bytes objects.
 *
 * Both keep their bytes inline after the cell, in the object's single
 * allocation, followed by a NUL so `data` is also a C string. Strings are not
 * checked for UTF-8 validity: String and Bytes differ in meaning, not in layout. */
#ifndef XFFI_STRING_H
#define XFFI_STRING_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* Makes a String from size bytes at data (borrowed, copied). *out receives a
 * new reference. Errors: ValueError for a NULL out, or NULL data with
 * size > 0; MemoryError (then *out is NULL). */
XFFI_API int xffi_string_new(xffi_object **out, const char *data, size_t size);

/* The same from a NUL-terminated string. Errors: as above, ValueError for NULL. */
XFFI_API int xffi_string_from_c_str(xffi_object **out, const char *c_str);

/* Makes a Bytes object (same rules as xffi_string_new). */
XFFI_API int xffi_bytes_new(xffi_object **out, const char *data, size_t size);

/* Checked access to a String's or Bytes' cell: *out borrows the bytes from
 * obj (borrowed), valid while obj lives. The unchecked inline form is
 * xffi_string_cell_of_unchecked (xffi/sys/string.h).
 * Errors: ValueError for NULL arguments, TypeError if obj is neither. */
XFFI_API int xffi_string_cell_of(xffi_byte_array *out, const xffi_object *obj);

/* Three-way byte-wise comparison (like memcmp, shorter first on a tie):
 * negative, zero or positive. Borrowed arguments; NULL data only with size 0. */
XFFI_API int xffi_bytes_compare(xffi_byte_array a, xffi_byte_array b);

/* Whether two byte runs are equal. */
static inline int xffi_bytes_equal(xffi_byte_array a, xffi_byte_array b) {
  return a.size == b.size && (a.size == 0 || xffi_bytes_compare(a, b) == 0);
}

/* A 64-bit hash of size bytes. A multiply-fold hash (64x64->128-bit products
 * folded to 64 bits, as in the wyhash family): a few cycles per 8 bytes,
 * every input bit reaching every output bit. Stable within a process run, not
 * across versions: never store it. */
XFFI_API uint64_t xffi_bytes_hash(const void *data, size_t size);

XFFI_EXTERN_C_END

#endif /* XFFI_STRING_H */
