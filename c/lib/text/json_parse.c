/* c/lib/text/json_parse.c: xffi_json_parse (ffi.json.Parse), an RFC 8259 reader
 * with tvm-ffi's value mapping and error messages (Python json's wording:
 * "Expecting value: line 1 column 5 (char 4)").
 *
 * The reader is a loop over a heap stack of open containers, never C
 * recursion; nesting deeper than 2^20 (the walks' bound, c/lib/walk/recursive_walk.h)
 * is a ValueError. Strings are
 * checked to be UTF-8 and \u escapes to be UTF-16 (surrogates in pairs);
 * numbers follow the RFC grammar exactly (tvm-ffi's own reader lets "01"
 * and "1." through; this one does not). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xffi/array.h>
#include <xffi/json.h>
#include <xffi/map.h>
#include <xffi/string.h>

#include "lib/container/map_table.h"
#include "lib/container/array_move.h"
#include "lib/text/json_reader.h"

static const char *const FN = "ffi.json.Parse";

/* One Array or Map being read: its values (and keys) so far wait on the
 * reader's stacks, and the container is made once, at its closing bracket,
 * at its final size (not grown element by element). */
typedef struct parse_frame {
  size_t first_value, first_key; /* where its items start on the stacks */
  int is_map;
} parse_frame;

/* Raises "<what>: line L column C (char P)" at position at. */
int xffi_json_fail_at(xffi_json_reader *r, const char *at, const char *what) {
  /* A position before the current line's start (a number's start never is)
   * cannot happen: columns count from the line's start. */
  return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s: line %lld column %lld (char %lld)", FN, what, (long long)r->line,
                          (long long)(at - r->line_begin + 1), (long long)(at - r->begin));
}

void xffi_json_skip_space(xffi_json_reader *r) {
  /* Compact text has no space between tokens: every byte above ' ' ends it at once. */
  if (XFFI_LIKELY(r->cur < r->end && (unsigned char)*r->cur > ' ')) return;
  while (r->cur < r->end) {
    char c = *r->cur;
    if (c == '\n') {
      r->line++;
      r->line_begin = r->cur + 1;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return;
    }
    r->cur++;
  }
}

static int match(xffi_json_reader *r, const char *literal, size_t n) {
  if ((size_t)(r->end - r->cur) < n || memcmp(r->cur, literal, n) != 0) return 0;
  r->cur += n;
  return 1;
}

/* ---- Strings ---- */

size_t xffi_json_utf8_length(const unsigned char *p, const unsigned char *end) {
  unsigned char c = p[0];
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0; /* no overlong forms */
    if (c == 0xED) hi = 0x9F; /* no surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F; /* nothing above U+10FFFF */
  } else {
    return 0;
  }
  if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < n; ++i)
    if ((p[i] & 0xC0) != 0x80) return 0;
  return n;
}

static int hex4(const char *p, const char *end, uint32_t *out) {
  if (end - p < 4) return 0;
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (uint32_t)(c - 'A' + 10);
    else
      return 0;
  }
  *out = v;
  return 1;
}

static int put_code_point(xffi_json_reader *r, uint32_t cp) {
  char b[4];
  size_t n;
  if (cp < 0x80) {
    b[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    b[0] = (char)(0xC0 | (cp >> 6));
    b[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    b[0] = (char)(0xE0 | (cp >> 12));
    b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    b[0] = (char)(0xF0 | (cp >> 18));
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  return xffi_repr_put(&r->text, b, n);
}

/* One \u escape (r->cur at the 'u'), a surrogate pair taken whole. */
static int read_unicode_escape(xffi_json_reader *r) {
  const char *at = r->cur; /* the 'u', where tvm-ffi places these errors */
  uint32_t first, second;
  if (!hex4(r->cur + 1, r->end, &first)) return xffi_json_fail_at(r, at, "Invalid \\uXXXX escape");
  r->cur += 5;
  if (first >= 0xDC00 && first <= 0xDFFF) return xffi_json_fail_at(r, at, "Invalid surrogate pair of \\uXXXX escapes");
  if (first < 0xD800 || first > 0xDBFF) return put_code_point(r, first);
  if (!match(r, "\\u", 2)) return xffi_json_fail_at(r, at, "Invalid surrogate pair of \\uXXXX escapes");
  if (!hex4(r->cur, r->end, &second)) return xffi_json_fail_at(r, r->cur, "Invalid \\uXXXX escape");
  if (second < 0xDC00 || second > 0xDFFF)
    return xffi_json_fail_at(r, r->cur, "Invalid surrogate pair of \\uXXXX escapes");
  r->cur += 4;
  return put_code_point(r, ((first - 0xD800) << 10) + (second - 0xDC00) + 0x10000);
}

int xffi_json_read_text(xffi_json_reader *r, const char **data, size_t *size) {
  const char *start = r->cur++;
  const char *run = r->cur; /* bytes not yet copied to the scratch */
  r->text.size = 0;
  int escaped = 0;
  while (r->cur < r->end) {
    /* The plain ASCII run up to the next quote, escape or special byte. */
    const char *p = r->cur;
    while (p < r->end && (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x80 && *p != '"' && *p != '\\') ++p;
    r->cur = p;
    if (p == r->end) break;
    unsigned char c = (unsigned char)*p;
    if (c == '"') {
      if (!escaped) {
        *data = run;
        *size = (size_t)(r->cur - run);
      } else {
        if (xffi_repr_put(&r->text, run, (size_t)(r->cur - run)) != XFFI_OK) return XFFI_FAIL;
        *data = r->text.data;
        *size = r->text.size;
      }
      r->cur++;
      return XFFI_OK;
    }
    if (c < 0x20) return xffi_json_fail_at(r, r->cur, "Invalid control character at");
    if (c >= 0x80) {
      size_t n = xffi_json_utf8_length((const unsigned char *)r->cur, (const unsigned char *)r->end);
      if (n == 0) return xffi_json_fail_at(r, r->cur, "Invalid UTF-8 byte at");
      r->cur += n;
      continue;
    }
    escaped = 1; /* c is the backslash of an escape */
    if (xffi_repr_put(&r->text, run, (size_t)(r->cur - run)) != XFFI_OK) return XFFI_FAIL;
    r->cur++;
    if (r->cur == r->end) break;
    char e = *r->cur, plain = 0;
    switch (e) {
      case '"': plain = '"'; break;
      case '\\': plain = '\\'; break;
      case '/': plain = '/'; break;
      case 'b': plain = '\b'; break;
      case 'f': plain = '\f'; break;
      case 'n': plain = '\n'; break;
      case 'r': plain = '\r'; break;
      case 't': plain = '\t'; break;
      case 'u':
        if (read_unicode_escape(r) != XFFI_OK) return XFFI_FAIL;
        run = r->cur;
        continue;
      default: return xffi_json_fail_at(r, r->cur, "Invalid \\escape");
    }
    if (xffi_repr_put(&r->text, &plain, 1) != XFFI_OK) return XFFI_FAIL;
    run = ++r->cur;
  }
  return xffi_json_fail_at(r, start, "Unterminated string starting at");
}

/* Reads a string (r->cur at its opening quote) into *out (a new value). */
static int read_string(xffi_json_reader *r, xffi_any *out) {
  const char *data;
  size_t size;
  if (xffi_json_read_text(r, &data, &size) != XFFI_OK) return XFFI_FAIL;
  return xffi_any_from_str(out, data, size);
}

/* ---- Numbers and literals ---- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* A decimal [digits][.digits][e[+-]digits] (checked by the caller, from
 * p to end) whose digits make an integer m < 2^53 and whose power of ten e
 * is within +-22 is m * 10^e or m / 10^|e| exactly rounded: both operands
 * are exact doubles and IEEE 754 rounds one operation correctly (Clinger's
 * fast path). 1 with *out, 0 for strtod to decide (other numbers, or
 * arithmetic not done in plain double precision). */
static int exact_decimal(const char *p, const char *end, int negative, xffi_any *out) {
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
  static const double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  uint64_t m = 0;
  int64_t e = 0;
  int digits = 0;
  for (; p < end && is_digit(*p); ++p, ++digits) m = m * 10 + (uint64_t)(*p - '0');
  if (p < end && *p == '.')
    for (++p; p < end && is_digit(*p); ++p, ++digits, --e) m = m * 10 + (uint64_t)(*p - '0');
  if (digits > 15) return 0; /* m might pass 2^53 (or wrap) */
  if (p < end) {             /* an exponent: e, an optional sign, digits */
    int minus = *++p == '-';
    if (*p == '-' || *p == '+') ++p;
    int64_t x = 0;
    for (; p < end && is_digit(*p); ++p)
      if ((x = x * 10 + (*p - '0')) > 400) return 0;
    e += minus ? -x : x;
  }
  if (e < -22 || e > 22) return 0;
  double d = (double)m;
  d = e < 0 ? d / powers[-e] : d * powers[e];
  *out = xffi_any_float(negative ? -d : d);
  return 1;
#else
  (void)p, (void)end, (void)negative, (void)out;
  return 0;
#endif
}

int xffi_json_read_number(xffi_json_reader *r, xffi_any *out) {
  const char *start = r->cur, *p = r->cur, *end = r->end;
  int negative = 0;
  if (p < end && *p == '-') {
    negative = 1;
    p++;
  }
  if (p < end && *p == 'I') {
    r->cur = p;
    if (!match(r, "Infinity", 8)) return xffi_json_fail_at(r, start, "Expecting value");
    *out = xffi_any_float(negative ? -HUGE_VAL : HUGE_VAL);
    return XFFI_OK;
  }
  if (!negative && p < end && *p == 'N') {
    if (!match(r, "NaN", 3)) return xffi_json_fail_at(r, start, "Expecting value");
    *out = xffi_any_float(NAN);
    return XFFI_OK;
  }
  /* int: 0 or a non-zero digit and more digits. Up to 19 digits cannot
   * pass 2^64, so they are summed with no check; a longer run is an int
   * only while it stays within 2^64 (then within int64_t, below), and reads
   * as a float otherwise. */
  if (p == end || !is_digit(*p)) return xffi_json_fail_at(r, start, "Expecting value");
  uint64_t u = 0;
  int overflow = 0;
  if (*p == '0') {
    p++;
  } else {
    const char *first = p;
    for (; p < end && is_digit(*p) && p - first < 19; ++p) u = u * 10 + (uint64_t)(*p - '0');
    for (; p < end && is_digit(*p); ++p) {
      uint64_t d = (uint64_t)(*p - '0');
      if (u > (UINT64_MAX - d) / 10) overflow = 1;
      if (!overflow) u = u * 10 + d;
    }
  }
  int integral = 1;
  if (p < end && *p == '.') {
    integral = 0;
    p++;
    if (p == end || !is_digit(*p)) return xffi_json_fail_at(r, start, "Expecting value");
    while (p < end && is_digit(*p)) p++;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    integral = 0;
    p++;
    if (p < end && (*p == '+' || *p == '-')) p++;
    if (p == end || !is_digit(*p)) return xffi_json_fail_at(r, start, "Expecting value");
    while (p < end && is_digit(*p)) p++;
  }
  r->cur = p;
  if (integral) {
    const uint64_t int64_min_magnitude = (uint64_t)1 << 63;
    if (!overflow && u <= int64_min_magnitude - (negative ? 0 : 1)) {
      /* -2^63 is INT64_MIN: its magnitude does not fit int64_t, so it is formed below it. */
      int64_t v = u == int64_min_magnitude ? INT64_MIN : negative ? -(int64_t)u : (int64_t)u;
      *out = xffi_any_int(v);
      return XFFI_OK;
    }
  }
  if (exact_decimal(start + negative, p, negative, out)) return XFFI_OK;
  /* strtod needs a NUL-terminated copy; numbers are short, but any length is taken. */
  size_t n = (size_t)(p - start);
  char small[64];
  char *copy = n < sizeof(small) ? small : (char *)xffi_alloc(n + 1);
  if (copy == NULL) return xffi_error_raise_out_of_memory();
  memcpy(copy, start, n);
  copy[n] = '\0';
  double d = strtod(copy, NULL);
  if (copy != small) xffi_free(copy);
  /* A finite literal too large for a double is refused, as tvm-ffi does
   * (an underflow reads as the nearest double, as Python does). */
  if (isinf(d)) return xffi_json_fail_at(r, start, "Expecting value");
  *out = xffi_any_float(d);
  return XFFI_OK;
}

/* Reads a value that is not a container (r->cur at its first byte). */
static int read_leaf(xffi_json_reader *r, xffi_any *out) {
  switch (*r->cur) {
    case '"': return read_string(r, out);
    case 't':
      if (!match(r, "true", 4)) break;
      *out = xffi_any_bool(1);
      return XFFI_OK;
    case 'f':
      if (!match(r, "false", 5)) break;
      *out = xffi_any_bool(0);
      return XFFI_OK;
    case 'n':
      if (!match(r, "null", 4)) break;
      *out = xffi_any_none();
      return XFFI_OK;
    default: return xffi_json_read_number(r, out);
  }
  return xffi_json_fail_at(r, r->cur, "Expecting value");
}

/* ---- Containers ---- */

/* Pushes value (stolen: released on failure) onto stack. */
static int push_value(xffi_walk_vec *stack, xffi_any *value) {
  xffi_any *slot = xffi_walk_vec_push_unset(stack);
  if (!slot) {
    xffi_any_release(value);
    return XFFI_FAIL;
  }
  *slot = *value;
  return XFFI_OK;
}

/* Releases the stack's values from index first on, and drops them. */
static void drop_values(xffi_walk_vec *stack, size_t first) {
  for (size_t i = first; i < stack->count; ++i) xffi_any_release(xffi_walk_vec_at(stack, i));
  stack->count = first;
}

/* Reads a map key and its ':' (r->cur at what should be the key's quote)
 * onto the key stack. */
static int read_key(xffi_json_reader *r) {
  if (r->cur == r->end || *r->cur != '"')
    return xffi_json_fail_at(r, r->cur, "Expecting property name enclosed in double quotes");
  xffi_any key = xffi_any_none();
  if (read_string(r, &key) != XFFI_OK || push_value(&r->keys, &key) != XFFI_OK) return XFFI_FAIL;
  xffi_json_skip_space(r);
  if (r->cur == r->end || *r->cur != ':') return xffi_json_fail_at(r, r->cur, "Expecting ':' delimiter");
  r->cur++;
  return XFFI_OK;
}

/* Opens a container (r->cur at its bracket). *closed is set when it is
 * empty and already complete, in *value. */
static int open_container(xffi_json_reader *r, int is_map, xffi_any *value, int *closed) {
  /* The writer and the recursive walks stop at the same depth: what is read
   * can be written. */
  if (r->frames.count + r->depth_base >= XFFI_WALK_MAX_DEPTH) return xffi_walk_raise_too_deep(FN);
  r->cur++;
  xffi_json_skip_space(r);
  if (r->cur < r->end && *r->cur == (is_map ? '}' : ']')) {
    r->cur++;
    xffi_object *container;
    int status = is_map ? xffi_map_new(&container, NULL, NULL, 0) : xffi_array_new(&container, NULL, 0);
    if (status != XFFI_OK) return XFFI_FAIL;
    *value = xffi_any_object(container);
    *closed = 1;
    return XFFI_OK;
  }
  parse_frame *f = (parse_frame *)xffi_walk_vec_push_unset(&r->frames);
  if (f == NULL) return XFFI_FAIL;
  f->first_value = r->values.count;
  f->first_key = r->keys.count;
  f->is_map = is_map;
  *closed = 0;
  return is_map ? read_key(r) : XFFI_OK;
}

/* Makes the top frame's container from its items on the stacks (released
 * from there) and drops the frame: *value receives it. */
static int close_top(xffi_json_reader *r, xffi_any *value) {
  const parse_frame *f = (const parse_frame *)xffi_walk_vec_top(&r->frames);
  size_t first_value = f->first_value, first_key = f->first_key;
  int64_t n = (int64_t)(r->values.count - first_value);
  const xffi_any *values = xffi_walk_vec_at(&r->values, first_value);
  xffi_object *container = NULL;
  int status;
  if (f->is_map) {
    /* The pairs move into the Map, sized once (a repeated key gets its last
     * value, as setting each in turn does): consumed even on failure. */
    status = xffi_map_do_build(FN, XFFI_TYPE_MAP, &container, xffi_walk_vec_at(&r->keys, first_key),
                               xffi_walk_vec_at(&r->values, first_value), n, 0);
    r->values.count = first_value;
    r->keys.count = first_key;
  } else {
    /* The items move into the Array (released on failure). */
    status = xffi_array_new_moved(&container, (xffi_any *)values, n);
    r->values.count = first_value;
  }
  r->frames.count--;
  if (status != XFFI_OK) return XFFI_FAIL;
  *value = xffi_any_object(container);
  return XFFI_OK;
}

/* Adds value (stolen) to the top frame; then reads its ',' (and the next
 * key) or its closing bracket. *value receives the closed container, and
 * *closed is set, when the frame ends. */
static int add_to_top(xffi_json_reader *r, xffi_any *value, int *closed) {
  int is_map = ((const parse_frame *)xffi_walk_vec_top(&r->frames))->is_map;
  if (push_value(&r->values, value) != XFFI_OK) return XFFI_FAIL;
  *value = xffi_any_none();
  xffi_json_skip_space(r);
  *closed = 0;
  if (r->cur < r->end && *r->cur == ',') {
    r->cur++;
    xffi_json_skip_space(r);
    return is_map ? read_key(r) : XFFI_OK;
  }
  if (r->cur < r->end && *r->cur == (is_map ? '}' : ']')) {
    r->cur++;
    *closed = 1;
    return close_top(r, value);
  }
  return xffi_json_fail_at(r, r->cur, "Expecting ',' delimiter");
}

/* Reads values until the outermost one is complete, in *out. */
int xffi_json_read_value(xffi_json_reader *r, xffi_any *out) {
  for (;;) {
    xffi_json_skip_space(r);
    if (r->cur == r->end) return xffi_json_fail_at(r, r->cur, "Expecting value");
    xffi_any value = xffi_any_none();
    int closed = 1;
    char c = *r->cur;
    int status = c == '[' || c == '{' ? open_container(r, c == '{', &value, &closed) : read_leaf(r, &value);
    if (status != XFFI_OK) return XFFI_FAIL;
    if (!closed) continue; /* the new container's first value comes next */
    /* A complete value: hand it up through every frame it closes. */
    while (r->frames.count > 0) {
      if (add_to_top(r, &value, &closed) != XFFI_OK) return XFFI_FAIL;
      if (!closed) break;
    }
    if (r->frames.count == 0 && closed) {
      *out = value;
      return XFFI_OK;
    }
  }
}

void xffi_json_reader_init(xffi_json_reader *r, const char *text, size_t size) {
  memset(r, 0, sizeof(*r));
  r->begin = r->cur = r->line_begin = text ? text : "";
  r->end = r->begin + size;
  r->line = 1;
  r->frames.item_size = sizeof(parse_frame);
  r->values.item_size = r->keys.item_size = sizeof(xffi_any);
  r->text.limit = SIZE_MAX;
}

void xffi_json_reader_free(xffi_json_reader *r) {
  /* What open containers had read is released with the heap-safe release
   * of nested objects (bounded stack, c/runtime/object.c). */
  drop_values(&r->values, 0);
  drop_values(&r->keys, 0);
  xffi_walk_vec_free(&r->values);
  xffi_walk_vec_free(&r->keys);
  xffi_walk_vec_free(&r->frames);
  xffi_repr_text_free(&r->text);
}

int xffi_json_parse(xffi_any *out, const char *text, size_t size) {
  if (out == NULL || (text == NULL && size > 0))
    return xffi_error_raise(XFFI_KIND_VALUE, "xffi_json_parse: %s is NULL", out == NULL ? "out" : "text");
  xffi_json_reader r;
  xffi_json_reader_init(&r, text, size);
  xffi_any value = xffi_any_none();
  int status = xffi_json_read_value(&r, &value);
  if (status == XFFI_OK) {
    xffi_json_skip_space(&r);
    if (r.cur != r.end) {
      xffi_any_release(&value);
      status = xffi_json_fail_at(&r, r.cur, "Extra data");
    }
  }
  xffi_json_reader_free(&r);
  if (status == XFFI_OK) *out = value;
  return status;
}
