/* c/lib/text/json_write.c: xffi_json_stringify (ffi.json.Stringify), JSON text in
 * tvm-ffi's format: compact or indented, floats that hold an integer with
 * ".0" (so they read back as floats), others with 17 significant digits
 * (printf's "%.17g", with the common exact cases written without printf),
 * NaN/Infinity as Python's json writes them, strings escaped as tvm-ffi's
 * EscapeStringJSON does (UTF-8 as it is). A string that is not UTF-8 is
 * refused (tvm-ffi writes its bytes as they are, which no reader accepts).
 *
 * Containers are walked with a heap stack of frames (no C recursion), and
 * the Lists being written sit in an identity table, so a List that contains
 * itself is an error rather than endless output. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <xffi/array.h>
#include <xffi/json.h>
#include <xffi/map.h>
#include <xffi/string.h>

#include "lib/text/json_reader.h" /* xffi_json_utf8_length */
#include "lib/text/json_write.h"
#include "lib/container/map_key.h"
#include "lib/walk/recursive_walk.h"

static const char *const FN = "ffi.json.Stringify";

/* One Array/List or Map being written. */
typedef struct write_frame {
  const xffi_object *container; /* borrowed: the root value holds it */
  int is_map;
  int is_list;
  const xffi_any *items; /* Array/List: its elements (borrowed) */
  int64_t size, position;
  int64_t map_cursor;
} write_frame;

typedef struct json_writer {
  repr_text *out; /* borrowed: the text appended to */
  int indent;
  size_t total_indent;
  xffi_walk_vec frames;   /* write_frame */
  xffi_walk_table active; /* Lists being written */
} json_writer;

int xffi_json_put(repr_text *t, const char *s, size_t n) {
  /* The many short pieces of a JSON text fit in the room already there
   * (the buffer never grows past the limit). */
  if (t->capacity - t->size >= n && !t->truncated) {
    char *to = t->data + t->size;
    /* Most pieces are a few bytes: a plain loop, since for a memcpy of
     * unknown size -Os emits a string instruction that is slow to start. */
    if (n <= 16)
      for (size_t i = 0; i < n; ++i) to[i] = s[i];
    else
      memcpy(to, s, n);
    t->size += n;
    return XFFI_OK;
  }
  if (n > t->limit - t->size)
    return xffi_error_raise(XFFI_KIND_MEMORY, "%s: the JSON text would be longer than %zu bytes, the writer's bound",
                            FN, t->limit);
  return xffi_repr_put(t, s, n);
}

static int put(json_writer *w, const char *s, size_t n) { return xffi_json_put(w->out, s, n); }

int xffi_json_put_int(repr_text *t, int64_t v) {
  char buf[24];
  char *end = buf + sizeof(buf), *p = end;
  /* Digits of the magnitude as unsigned, so INT64_MIN needs no case. */
  uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do {
    *--p = (char)('0' + m % 10);
    m /= 10;
  } while (m != 0);
  if (v < 0) *--p = '-';
  return xffi_json_put(t, p, (size_t)(end - p));
}

/* v exactly, when v = n / 2^k (k >= 1 minimal) has at most 17 significant
 * decimal digits and 0.001 <= |v| < 2^53: then "%.17g" prints exactly those
 * digits in fixed notation, ending in 5 (no zeros to strip), and they come
 * without printf. Returns 0 (nothing written) for any other v. */
static int put_short_fraction(repr_text *t, double v, int *status) {
  double a = fabs(v);
  if (!(a >= 0.001 && a < 9007199254740992.0)) return 0;
  uint64_t pow5 = 1, pow10 = 1;
  double m = a;
  /* digits < 10^17 and |v| >= 10^-3 bound k by 19, so 10^k fits in 64 bits. */
  for (int k = 1; k <= 19; ++k) {
    m *= 2; /* exact: a power of two */
    pow5 *= 5;
    pow10 *= 10;
    double whole_part;
    if (modf(m, &whole_part) != 0) continue;
    if (m > (double)(UINT64_C(99999999999999999) / pow5)) return 0;
    uint64_t digits = (uint64_t)m * pow5; /* v's digits: |v| = digits / 10^k */
    char buf[48];
    char *end = buf + sizeof(buf), *p = end;
    uint64_t frac = digits % pow10, whole = digits / pow10;
    for (int i = 0; i < k; ++i, frac /= 10) *--p = (char)('0' + frac % 10);
    *--p = '.';
    do {
      *--p = (char)('0' + whole % 10);
      whole /= 10;
    } while (whole != 0);
    if (v < 0) *--p = '-';
    *status = xffi_json_put(t, p, (size_t)(end - p));
    return 1;
  }
  return 0;
}

/* A newline and the current level's spaces. */
static int put_indent(json_writer *w) {
  if (put(w, "\n", 1) != XFFI_OK) return XFFI_FAIL;
  static const char spaces[] = "                                ";
  size_t left = w->total_indent;
  while (left > 0) {
    size_t n = left < sizeof(spaces) - 1 ? left : sizeof(spaces) - 1;
    if (put(w, spaces, n) != XFFI_OK) return XFFI_FAIL;
    left -= n;
  }
  return XFFI_OK;
}

static int put_float(repr_text *t, double v) {
  if (isnan(v)) return xffi_json_put(t, "NaN", 3);
  if (isinf(v)) return v < 0 ? xffi_json_put(t, "-Infinity", 9) : xffi_json_put(t, "Infinity", 8);
  double int_part;
  if (fabs(v) < 9007199254740992.0 && modf(v, &int_part) == 0) {
    /* "%.1f" of an integer below 2^53: its digits and ".0" ("-0.0" keeps its sign). */
    if (int_part == 0 && signbit(int_part)) return xffi_json_put(t, "-0.0", 4);
    if (xffi_json_put_int(t, (int64_t)int_part) != XFFI_OK) return XFFI_FAIL;
    return xffi_json_put(t, ".0", 2);
  }
  int status;
  if (put_short_fraction(t, v, &status)) return status;
  char buf[40];
  int n = snprintf(buf, sizeof(buf), "%.17g", v);
  /* A locale with a decimal comma must not change the text. */
  for (int i = 0; i < n; ++i)
    if (buf[i] == ',') buf[i] = '.';
  return xffi_json_put(t, buf, (size_t)n);
}

int xffi_json_put_string(repr_text *t, const char *data, size_t size) {
  if (xffi_json_put(t, "\"", 1) != XFFI_OK) return XFFI_FAIL;
  size_t run = 0; /* start of the bytes not yet written */
  for (size_t i = 0; i < size; ++i) {
    unsigned char c = (unsigned char)data[i];
    if (c >= 0x20 && c != '"' && c != '\\' && c != '/' && c < 0x7f) continue; /* most bytes: as they are */
    if (c >= 0x80) {
      size_t n = xffi_json_utf8_length((const unsigned char *)data + i, (const unsigned char *)data + size);
      if (n == 0)
        return xffi_error_raise(XFFI_KIND_VALUE,
                                "%s: a string is not valid UTF-8 at byte %zu of %zu (0x%02x); JSON text must be UTF-8",
                                FN, i, size, (unsigned)c);
      i += n - 1;
      continue;
    }
    const char *esc = NULL;
    char buf[8];
    switch (c) {
      case '"': esc = "\\\""; break;
      case '\\': esc = "\\\\"; break;
      case '/': esc = "\\/"; break;
      case '\b': esc = "\\b"; break;
      case '\f': esc = "\\f"; break;
      case '\n': esc = "\\n"; break;
      case '\r': esc = "\\r"; break;
      case '\t': esc = "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          snprintf(buf, sizeof(buf), "\\u%04x", (unsigned)c);
          esc = buf;
        }
    }
    if (xffi_json_put(t, data + run, i - run) != XFFI_OK || xffi_json_put(t, esc, strlen(esc)) != XFFI_OK)
      return XFFI_FAIL;
    run = i + 1;
  }
  if (xffi_json_put(t, data + run, size - run) != XFFI_OK) return XFFI_FAIL;
  return xffi_json_put(t, "\"", 1);
}

/* Opens a container: writes its bracket and pushes its frame. */
static int open_container(json_writer *w, const xffi_any *v) {
  const xffi_object *obj = v->v_obj;
  int is_map = v->type_index == XFFI_TYPE_MAP;
  int is_list = v->type_index == XFFI_TYPE_LIST;
  if (w->frames.count >= XFFI_WALK_MAX_DEPTH) return xffi_walk_raise_too_deep(FN);
  if (is_list) {
    if (xffi_walk_table_find(&w->active, obj, NULL) != NULL)
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: Cycle detected: List contains itself", FN);
    if (xffi_walk_table_put(&w->active, obj, NULL) == NULL) return XFFI_FAIL;
  }
  write_frame *f = (write_frame *)xffi_walk_vec_push(&w->frames);
  if (f == NULL) {
    if (is_list) xffi_walk_table_remove(&w->active, obj, NULL);
    return XFFI_FAIL;
  }
  f->container = obj;
  f->is_map = is_map;
  f->is_list = is_list;
  if (is_map) {
    if (xffi_map_length(&f->size, obj) != XFFI_OK) return XFFI_FAIL;
  } else if (xffi_array_items(&f->items, &f->size, obj) != XFFI_OK) {
    return XFFI_FAIL;
  }
  if (w->indent != 0) w->total_indent += (size_t)w->indent;
  return put(w, is_map ? "{" : "[", 1);
}

static int is_json_container(int32_t t) { return t == XFFI_TYPE_ARRAY || t == XFFI_TYPE_LIST || t == XFFI_TYPE_MAP; }

/* Writes v, which is not a container (an error for what JSON cannot hold). */
static int put_scalar(repr_text *out, const xffi_any *v) {
  int32_t t = v->type_index;
  switch (t) {
    case XFFI_TYPE_NONE: return xffi_json_put(out, "null", 4);
    case XFFI_TYPE_BOOL: return v->v_int64 ? xffi_json_put(out, "true", 4) : xffi_json_put(out, "false", 5);
    case XFFI_TYPE_INT: return xffi_json_put_int(out, v->v_int64);
    case XFFI_TYPE_FLOAT: return put_float(out, v->v_float64);
    default:
      if (xffi_walk_is_str(t)) {
        xffi_byte_array s = map_text_of(v);
        return xffi_json_put_string(out, s.data, s.size);
      }
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: Unsupported type: `%s`", FN, xffi_any_kind_name(v));
  }
}

/* Writes a leaf, or opens a container (its children follow). */
static int write_value(json_writer *w, const xffi_any *v) {
  return is_json_container(v->type_index) ? open_container(w, v) : put_scalar(w->out, v);
}

/* Advances the top frame: writes its next child, or closes it. */
static int step(json_writer *w) {
  write_frame *f = (write_frame *)xffi_walk_vec_top(&w->frames);
  if (f->position == f->size) {
    int is_map = f->is_map;
    if (f->is_list) xffi_walk_table_remove(&w->active, f->container, NULL);
    w->frames.count--;
    if (w->indent != 0) {
      w->total_indent -= (size_t)w->indent;
      if (put_indent(w) != XFFI_OK) return XFFI_FAIL;
    }
    return put(w, is_map ? "}" : "]", 1);
  }
  if (f->position != 0 && put(w, ",", 1) != XFFI_OK) return XFFI_FAIL;
  if (w->indent != 0 && put_indent(w) != XFFI_OK) return XFFI_FAIL;
  f->position++;
  if (!f->is_map) return write_value(w, &f->items[f->position - 1]);
  xffi_map_item item;
  if (xffi_map_next(&item, f->container, &f->map_cursor) != XFFI_OK) return XFFI_FAIL;
  if (item.key == NULL) return xffi_error_raise(XFFI_KIND_VALUE, "%s: map changed while written", FN);
  if (!xffi_walk_is_str(item.key->type_index))
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: Expect key to be string, got `%s`", FN, xffi_any_kind_name(item.key));
  xffi_byte_array key = map_text_of(item.key);
  if (xffi_json_put_string(w->out, key.data, key.size) != XFFI_OK) return XFFI_FAIL;
  if (put(w, w->indent != 0 ? ": " : ":", w->indent != 0 ? 2 : 1) != XFFI_OK) return XFFI_FAIL;
  /* The value pointer stays valid: the map is not changed while written. */
  return write_value(w, item.value);
}

int xffi_json_write(repr_text *t, const xffi_any *value, int indent) {
  if (!is_json_container(value->type_index)) return put_scalar(t, value); /* no walk to set up */
  json_writer w;
  memset(&w, 0, sizeof(w));
  w.out = t;
  w.indent = indent;
  w.frames.item_size = sizeof(write_frame);
  int status = write_value(&w, value);
  while (status == XFFI_OK && w.frames.count > 0) status = step(&w);
  xffi_walk_vec_free(&w.frames);
  xffi_walk_table_free(&w.active);
  return status;
}

int xffi_json_stringify(xffi_object **out, const xffi_any *value, int indent) {
  if (out == NULL || value == NULL)
    return xffi_error_raise(XFFI_KIND_VALUE, "xffi_json_stringify: %s is NULL", out == NULL ? "out" : "value");
  if (indent < 0) return xffi_error_raise(XFFI_KIND_VALUE, "xffi_json_stringify: indent must be >= 0, got %d", indent);
  repr_text text;
  memset(&text, 0, sizeof(text));
  text.limit = XFFI_JSON_MAX_TEXT_BYTES;
  int status = xffi_json_write(&text, value, indent);
  if (status == XFFI_OK) status = xffi_string_new(out, text.data ? text.data : "", text.size);
  xffi_repr_text_free(&text);
  return status;
}
