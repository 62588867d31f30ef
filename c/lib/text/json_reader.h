/* c/lib/text/json_reader.h: the JSON text scanner of c/lib/text/json_parse.c, shared with the
 * JSON graph text reader (c/lib/text/serialization_read_text.c) so that RFC 8259
 * strictness, UTF-8 checks, \u escapes and numbers have one implementation.
 * Private to the library. Errors are ValueErrors in json.Parse's wording
 * ("ffi.json.Parse: Expecting value: line 1 column 5 (char 4)"). */
#ifndef XFFI_JSON_READER_H
#define XFFI_JSON_READER_H

#include "lib/walk/recursive_walk.h"
#include "lib/text/repr_text.h"

typedef struct xffi_json_reader {
  const char *begin, *cur, *end;
  const char *line_begin;
  int64_t line;
  xffi_walk_vec frames; /* open containers of xffi_json_read_value */
  xffi_walk_vec values; /* xffi_any, owned: the open containers' values, outermost first */
  xffi_walk_vec keys;   /* xffi_any, owned: the open Maps' keys, one per value of theirs */
  repr_text text;       /* scratch for strings with escapes */
  size_t depth_base;    /* containers open around what is read (the depth limit counts them) */
} xffi_json_reader;

/* The length of the valid UTF-8 sequence at p (p < end), or 0: RFC 3629,
 * no overlong forms, surrogates or code points above U+10FFFF. Shared
 * with the writer, which refuses what the reader would. */
size_t xffi_json_utf8_length(const unsigned char *p, const unsigned char *end) XFFI_INTERNAL;
/* Starts reading text[0, size) (borrowed; it must outlive the reader). */
void xffi_json_reader_init(xffi_json_reader *r, const char *text, size_t size) XFFI_INTERNAL;
/* Releases what the reader holds (values of containers left open by an error). */
void xffi_json_reader_free(xffi_json_reader *r) XFFI_INTERNAL;
/* Raises "ffi.json.Parse: <what>: line L column C (char P)" at position at. */
int xffi_json_fail_at(xffi_json_reader *r, const char *at, const char *what) XFFI_INTERNAL;
/* Skips white space (counting lines). */
void xffi_json_skip_space(xffi_json_reader *r) XFFI_INTERNAL;
/* Reads one complete value (r->cur at its first byte, after white space)
 * into *out (a new reference). */
int xffi_json_read_value(xffi_json_reader *r, xffi_any *out) XFFI_INTERNAL;
/* Reads a string (r->cur at its opening quote): *data, *size receive its
 * decoded text, borrowed from the input or the reader's scratch (valid until
 * the next read). */
int xffi_json_read_text(xffi_json_reader *r, const char **data, size_t *size) XFFI_INTERNAL;
/* Reads a number (r->cur at its first byte) into *out (an int or a float). */
int xffi_json_read_number(xffi_json_reader *r, xffi_any *out) XFFI_INTERNAL;

#endif /* XFFI_JSON_READER_H */
