/* c/lib/text/bigint_text.h: an integer as decimal text and back (private;
 * c/lib/text/bigint_text.c), as ffi.BigInt's `__data_to_json__` and
 * `__data_from_json__` write and read it in tvm-ffi's JSON graph. */
#ifndef XFFI_BIGINT_TEXT_H
#define XFFI_BIGINT_TEXT_H

#include "runtime/internal.h"

/* *out receives the decimal digits of value (borrowed: an int or an
 * ffi.BigInt), "-" first when negative, as a new String object (also
 * when short). Errors: TypeError naming fn for any other value;
 * MemoryError. */
int xffi_bigint_to_decimal(xffi_any *out, const xffi_any *value, const char *fn) XFFI_INTERNAL;

/* *out receives the integer text[0..size) spells: an optional sign (+ or
 * -), then one or more decimal digits, nothing else; a plain int when it
 * fits in 64 bits, else a new ffi.BigInt. Errors: ValueError "Invalid
 * decimal string for ffi.BigInt" (tvm-ffi's text) for anything else;
 * MemoryError. */
int xffi_bigint_from_decimal(xffi_any *out, const char *text, size_t size, const char *fn) XFFI_INTERNAL;

#endif /* XFFI_BIGINT_TEXT_H */
