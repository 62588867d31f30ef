/* c/json_write.c: xffi_json_stringify (ffi.json.Stringify), JSON text in
 * tvm-ffi's format: compact or indented, floats that hold an integer with
 * ".0" (so they read back as floats), others with 17 significant digits,
 * NaN/Infinity as Python's json writes them, strings escaped as tvm-ffi's
 * EscapeStringJSON does (bytes >= 0x80 as they are).
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

#include "map_key.h"
#include "recursive_walk.h"
#include "repr_text.h"

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
  repr_text out;
  int indent;
  size_t total_indent;
  xffi_walk_vec frames;   /* write_frame */
  xffi_walk_table active; /* Lists being written */
} json_writer;

static int put(json_writer *w, const char *s, size_t n) { return xffi_repr_put(&w->out, s, n); }

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

static int put_float(json_writer *w, double v) {
  if (isnan(v)) return put(w, "NaN", 3);
  if (isinf(v)) return v < 0 ? put(w, "-Infinity", 9) : put(w, "Infinity", 8);
  char buf[40];
  int n;
  double int_part;
  if (fabs(v) < 9007199254740992.0 && modf(v, &int_part) == 0) {
    n = snprintf(buf, sizeof(buf), "%.1f", int_part);
  } else {
    n = snprintf(buf, sizeof(buf), "%.17g", v);
  }
  /* A locale with a decimal comma must not change the text. */
  for (int i = 0; i < n; ++i)
    if (buf[i] == ',') buf[i] = '.';
  return put(w, buf, (size_t)n);
}

static int put_string(json_writer *w, xffi_byte_array s) {
  if (put(w, "\"", 1) != XFFI_OK) return XFFI_FAIL;
  size_t run = 0; /* start of the bytes not yet written */
  for (size_t i = 0; i < s.size; ++i) {
    unsigned char c = (unsigned char)s.data[i];
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
    if (esc == NULL) continue;
    if (put(w, s.data + run, i - run) != XFFI_OK || put(w, esc, strlen(esc)) != XFFI_OK) return XFFI_FAIL;
    run = i + 1;
  }
  if (put(w, s.data + run, s.size - run) != XFFI_OK) return XFFI_FAIL;
  return put(w, "\"", 1);
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

/* Writes a leaf, or opens a container (its children follow). */
static int write_value(json_writer *w, const xffi_any *v) {
  int32_t t = v->type_index;
  switch (t) {
    case XFFI_TYPE_NONE: return put(w, "null", 4);
    case XFFI_TYPE_BOOL: return v->v_int64 ? put(w, "true", 4) : put(w, "false", 5);
    case XFFI_TYPE_INT: {
      char buf[32];
      int n = snprintf(buf, sizeof(buf), "%lld", (long long)v->v_int64);
      return put(w, buf, (size_t)n);
    }
    case XFFI_TYPE_FLOAT: return put_float(w, v->v_float64);
    case XFFI_TYPE_ARRAY:
    case XFFI_TYPE_LIST:
    case XFFI_TYPE_MAP: return open_container(w, v);
    default:
      if (xffi_walk_is_str(t)) return put_string(w, map_text_of(v));
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: Unsupported type: `%s`", FN, xffi_any_kind_name(v));
  }
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
  if (put_string(w, map_text_of(item.key)) != XFFI_OK) return XFFI_FAIL;
  if (put(w, w->indent != 0 ? ": " : ":", w->indent != 0 ? 2 : 1) != XFFI_OK) return XFFI_FAIL;
  /* The value pointer stays valid: the map is not changed while written. */
  return write_value(w, item.value);
}

int xffi_json_stringify(xffi_object **out, const xffi_any *value, int indent) {
  if (out == NULL || value == NULL)
    return xffi_error_raise(XFFI_KIND_VALUE, "xffi_json_stringify: %s is NULL", out == NULL ? "out" : "value");
  if (indent < 0) return xffi_error_raise(XFFI_KIND_VALUE, "xffi_json_stringify: indent must be >= 0, got %d", indent);
  json_writer w;
  memset(&w, 0, sizeof(w));
  w.out.limit = SIZE_MAX;
  w.indent = indent;
  w.frames.item_size = sizeof(write_frame);
  int status = write_value(&w, value);
  while (status == XFFI_OK && w.frames.count > 0) status = step(&w);
  if (status == XFFI_OK) status = xffi_string_new(out, w.out.data ? w.out.data : "", w.out.size);
  xffi_walk_vec_free(&w.frames);
  xffi_walk_table_free(&w.active);
  xffi_repr_text_free(&w.out);
  return status;
}
