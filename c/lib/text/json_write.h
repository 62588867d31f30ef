/* c/lib/text/json_write.h: the JSON text writer of c/lib/text/json_write.c (ffi.json.Stringify),
 * shared with the JSON graph text emitter (c/lib/text/serialization_write_text.c) so
 * that numbers, string escapes and nested values have one implementation.
 * Private to the library. All append to a repr_text (c/lib/text/repr_text.h), whose
 * limit bounds the text (XFFI_JSON_MAX_TEXT_BYTES for the public writers):
 * a piece that would pass it is a MemoryError, never a cut text. They
 * return XFFI_OK or XFFI_FAIL with the error raised. */
#ifndef XFFI_JSON_WRITE_H
#define XFFI_JSON_WRITE_H

#include "lib/text/repr_text.h"

/* Appends s[0, n) (borrowed). */
int xffi_json_put(repr_text *t, const char *s, size_t n) XFFI_INTERNAL;

/* The decimal digits of v ("-12"). */
int xffi_json_put_int(repr_text *t, int64_t v) XFFI_INTERNAL;
/* data[0, size) (borrowed) as a quoted, escaped JSON string; a ValueError
 * naming the byte where data is not UTF-8 (the reader would refuse it). */
int xffi_json_put_string(repr_text *t, const char *data, size_t size) XFFI_INTERNAL;
/* The JSON text of value (borrowed), as xffi_json_stringify writes it with
 * indent (>= 0); its errors, word for word ("ffi.json.Stringify: ..."). */
int xffi_json_write(repr_text *t, const xffi_any *value, int indent) XFFI_INTERNAL;

#endif /* XFFI_JSON_WRITE_H */
