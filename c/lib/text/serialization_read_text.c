/* c/lib/text/serialization_read_text.c: ffi.FromJSONGraphString's reader, the JSON
 * graph straight from its text. json.Parse then ffi.FromJSONGraph would build
 * a Map {"type", "data"} per node (and an Array of node indices per
 * container) only to look them up once and free them; here each element of
 * "nodes" becomes a record (c/lib/text/serialization_read.h): its "type" text is kept
 * once per distinct key, and "data" that is an array of ints is kept as bare
 * indices. Every other value is read by json.Parse's own reader
 * (c/lib/text/json_reader.h), and the records are decoded by ffi.FromJSONGraph's
 * decoder: the same values, and the same errors in the same order (the
 * whole text is read, so a syntax error comes before any graph error). */
#include <string.h>

#include <xffi/json.h>
#include <xffi/string.h>
#include <xffi/sys/error.h>

#include "lib/text/json_reader.h"
#include "lib/container/map_key.h"
#include "lib/text/serialization_read.h"

static const char *const FN = "ffi.FromJSONGraph";

/* Distinct "type" texts kept once each; past this many, each record owns its own. */
enum { MAX_SHARED_TYPE_KEYS = 64 };

typedef struct text_graph {
  xffi_json_reader json;
  xffi_walk_vec records;   /* xffi_graph_record: the last "nodes" array read */
  xffi_walk_vec refs;      /* xffi_any (ints): the records' array data */
  xffi_walk_vec type_keys; /* xffi_any, owned: the distinct "type" strings */
  int has_records;         /* the last "nodes" was an array (records holds it) */
  xffi_any nodes;          /* owned: the last "nodes" when not an array */
  xffi_any root_index;     /* owned: the last "root_index" */
} text_graph;

static int text_is(const char *data, size_t size, const char *literal) {
  return strlen(literal) == size && memcmp(data, literal, size) == 0;
}

static void release_record(xffi_graph_record *record) {
  if (!(record->flags & XFFI_GRAPH_RECORD_TYPE_BORROWED)) xffi_any_release(&record->type);
  xffi_any_release(&record->data);
}

static void drop_records(text_graph *g) {
  for (size_t i = 0; i < g->records.count; ++i) release_record((xffi_graph_record *)xffi_walk_vec_at(&g->records, i));
  g->records.count = 0;
  g->refs.count = 0;
  g->has_records = 0;
}

/* A record's key when it is exactly "type" or "data" as the writers write
 * it (no escapes): 1 and r->cur past it; else 0, nothing read. */
static int match_key(xffi_json_reader *r, const char *quoted) {
  if (r->end - r->cur < 6 || memcmp(r->cur, quoted, 6) != 0) return 0;
  r->cur += 6;
  return 1;
}

/* After a key (r->cur past its closing quote): its ':'. */
static int read_colon(xffi_json_reader *r) {
  xffi_json_skip_space(r);
  if (r->cur == r->end || *r->cur != ':') return xffi_json_fail_at(r, r->cur, "Expecting ':' delimiter");
  r->cur++;
  xffi_json_skip_space(r);
  return XFFI_OK;
}

/* Reads a key and its ':' (r->cur at what should be the key's quote):
 * *data, *size receive its text (valid until the next read). */
static int read_key(xffi_json_reader *r, const char **data, size_t *size) {
  if (r->cur == r->end || *r->cur != '"')
    return xffi_json_fail_at(r, r->cur, "Expecting property name enclosed in double quotes");
  if (xffi_json_read_text(r, data, size) != XFFI_OK) return XFFI_FAIL;
  return read_colon(r);
}

/* After a member of an object or array: its ',' (then *more is set) or
 * its closing bracket. */
static int read_separator(xffi_json_reader *r, char closing, int *more) {
  xffi_json_skip_space(r);
  *more = r->cur < r->end && *r->cur == ',';
  if (*more || (r->cur < r->end && *r->cur == closing)) {
    r->cur++;
    xffi_json_skip_space(r);
    return XFFI_OK;
  }
  return xffi_json_fail_at(r, r->cur, "Expecting ',' delimiter");
}

/* Reads a value at nesting depth depth (so that the depth limit is the one
 * json.Parse applies to the whole text) into *out (a new reference). */
static int read_value_at(xffi_json_reader *r, size_t depth, xffi_any *out) {
  r->depth_base = depth;
  int status = xffi_json_read_value(r, out);
  r->depth_base = 0;
  return status;
}

/* A record's "data" that is not an array (r->cur at its first byte): a
 * string or a number read at once, anything else by json.Parse's reader. */
static int read_data_value(xffi_json_reader *r, xffi_any *out) {
  char c = *r->cur;
  if (c == '"') {
    const char *data;
    size_t size;
    if (xffi_json_read_text(r, &data, &size) != XFFI_OK) return XFFI_FAIL;
    return xffi_any_from_str(out, data, size);
  }
  if ((c >= '0' && c <= '9') || c == '-') return xffi_json_read_number(r, out);
  return read_value_at(r, 3, out);
}

/* A record's "type" string (r->cur at its quote), shared with the records
 * of the same type when the table has room. */
static int read_type(text_graph *g, xffi_graph_record *record) {
  const char *data;
  size_t size;
  if (xffi_json_read_text(&g->json, &data, &size) != XFFI_OK) return XFFI_FAIL;
  for (size_t i = 0; i < g->type_keys.count; ++i) {
    const xffi_any *key = (const xffi_any *)xffi_walk_vec_at(&g->type_keys, i);
    xffi_byte_array text = map_text_of(key);
    if (text.size == size && memcmp(text.data, data, size) == 0) {
      record->type = *key;
      record->flags |= XFFI_GRAPH_RECORD_TYPE | XFFI_GRAPH_RECORD_TYPE_BORROWED;
      return XFFI_OK;
    }
  }
  xffi_any key;
  if (xffi_any_from_str(&key, data, size) != XFFI_OK) return XFFI_FAIL;
  if (g->type_keys.count < MAX_SHARED_TYPE_KEYS) {
    xffi_any *slot = (xffi_any *)xffi_walk_vec_push_unset(&g->type_keys);
    if (slot == NULL) {
      xffi_any_release(&key);
      return XFFI_FAIL;
    }
    *slot = key;
    record->flags |= XFFI_GRAPH_RECORD_TYPE_BORROWED;
  }
  record->type = key;
  record->flags |= XFFI_GRAPH_RECORD_TYPE;
  return XFFI_OK;
}

/* A record's "data" when it is an array of ints only (r->cur at its '['):
 * the ints go to refs and *done is set; otherwise the reader is back where
 * it was, nothing raised, for json.Parse's reader to read (or refuse) it. */
static int read_refs(text_graph *g, xffi_graph_record *record, int *done) {
  xffi_json_reader *r = &g->json;
  const char *cur = r->cur, *line_begin = r->line_begin;
  int64_t line = r->line;
  size_t first = g->refs.count;
  *done = 0;
  r->cur++;
  xffi_json_skip_space(r);
  int more = r->cur == r->end || *r->cur != ']'; /* not empty: a value or an error comes */
  if (!more) r->cur++;
  while (more) {
    xffi_any v;
    if (r->cur == r->end || !((*r->cur >= '0' && *r->cur <= '9') || *r->cur == '-')) goto not_refs;
    if (xffi_json_read_number(r, &v) != XFFI_OK) {
      xffi_object *err = xffi_error_move_raised();
      if (err) xffi_object_dec_ref(err);
      goto not_refs;
    }
    if (v.type_index != XFFI_TYPE_INT) goto not_refs;
    xffi_any *slot = (xffi_any *)xffi_walk_vec_push_unset(&g->refs);
    if (slot == NULL) return XFFI_FAIL;
    *slot = v;
    xffi_json_skip_space(r);
    if (r->cur < r->end && *r->cur == ']') {
      r->cur++;
      break;
    }
    if (r->cur == r->end || *r->cur != ',') goto not_refs;
    r->cur++;
    xffi_json_skip_space(r);
  }
  record->refs_first = (int64_t)first;
  record->refs_count = (int64_t)(g->refs.count - first);
  record->flags |= XFFI_GRAPH_RECORD_DATA_REFS;
  *done = 1;
  return XFFI_OK;
not_refs:
  r->cur = cur;
  r->line_begin = line_begin;
  r->line = line;
  g->refs.count = first;
  return XFFI_OK;
}

/* One element of "nodes" (r->cur at its first byte) as a new record. */
static int read_record(text_graph *g) {
  xffi_json_reader *r = &g->json;
  xffi_graph_record *record = (xffi_graph_record *)xffi_walk_vec_push(&g->records);
  if (record == NULL) return XFFI_FAIL;
  record->type = record->data = xffi_any_none();
  if (*r->cur != '{') return read_value_at(r, 2, &record->data); /* not an object: kept whole for the error */
  record->flags = XFFI_GRAPH_RECORD_OBJECT;
  r->cur++;
  xffi_json_skip_space(r);
  int more = r->cur == r->end || *r->cur != '}'; /* not empty: a value or an error comes */
  if (!more) r->cur++;
  while (more) {
    int is_type = match_key(r, "\"type\""), is_data = !is_type && match_key(r, "\"data\"");
    if (is_type || is_data) {
      if (read_colon(r) != XFFI_OK) return XFFI_FAIL;
    } else {
      const char *key;
      size_t size;
      if (read_key(r, &key, &size) != XFFI_OK) return XFFI_FAIL;
      is_type = text_is(key, size, "type");
      is_data = !is_type && text_is(key, size, "data");
    }
    if (r->cur == r->end) return xffi_json_fail_at(r, r->cur, "Expecting value");
    if (is_type) { /* the last "type" counts, as in a Map */
      if (!(record->flags & XFFI_GRAPH_RECORD_TYPE_BORROWED)) xffi_any_release(&record->type);
      record->type = xffi_any_none(); /* a borrowed one is dropped, not released */
      record->flags &= ~(XFFI_GRAPH_RECORD_TYPE | XFFI_GRAPH_RECORD_TYPE_BORROWED);
      int status = *r->cur == '"' ? read_type(g, record) : read_value_at(r, 3, &record->type);
      if (status != XFFI_OK) return XFFI_FAIL;
      record->flags |= XFFI_GRAPH_RECORD_TYPE;
    } else if (is_data) {
      xffi_any_release(&record->data);
      record->flags &= ~(XFFI_GRAPH_RECORD_DATA | XFFI_GRAPH_RECORD_DATA_REFS);
      int done = 0;
      if (*r->cur == '[' && read_refs(g, record, &done) != XFFI_OK) return XFFI_FAIL;
      if (!done) {
        if (read_data_value(r, &record->data) != XFFI_OK) return XFFI_FAIL;
        record->flags |= XFFI_GRAPH_RECORD_DATA;
      }
    } else {
      xffi_any ignored = xffi_any_none();
      if (read_value_at(r, 3, &ignored) != XFFI_OK) return XFFI_FAIL;
      xffi_any_release(&ignored);
    }
    if (read_separator(r, '}', &more) != XFFI_OK) return XFFI_FAIL;
  }
  return XFFI_OK;
}

/* "nodes" that is an array (r->cur at its '['): its elements as records. */
static int read_records(text_graph *g) {
  xffi_json_reader *r = &g->json;
  drop_records(g);
  g->has_records = 1;
  r->cur++;
  xffi_json_skip_space(r);
  int more = r->cur == r->end || *r->cur != ']'; /* not empty: a value or an error comes */
  if (!more) r->cur++;
  while (more) {
    if (r->cur == r->end) return xffi_json_fail_at(r, r->cur, "Expecting value");
    if (read_record(g) != XFFI_OK) return XFFI_FAIL;
    if (read_separator(r, ']', &more) != XFFI_OK) return XFFI_FAIL;
  }
  return XFFI_OK;
}

/* The graph object (r->cur at its '{'), up to its closing brace. */
static int read_graph_object(text_graph *g) {
  xffi_json_reader *r = &g->json;
  r->cur++;
  xffi_json_skip_space(r);
  int more = r->cur == r->end || *r->cur != '}'; /* not empty: a value or an error comes */
  if (!more) r->cur++;
  while (more) {
    const char *key;
    size_t size;
    if (read_key(r, &key, &size) != XFFI_OK) return XFFI_FAIL;
    int is_nodes = text_is(key, size, "nodes"), is_root = !is_nodes && text_is(key, size, "root_index");
    if (is_nodes && r->cur < r->end && *r->cur == '[') {
      xffi_any_release(&g->nodes);
      if (read_records(g) != XFFI_OK) return XFFI_FAIL;
    } else {
      xffi_any value = xffi_any_none();
      if (read_value_at(r, 1, &value) != XFFI_OK) return XFFI_FAIL;
      xffi_any *slot = is_nodes ? &g->nodes : is_root ? &g->root_index : NULL;
      if (is_nodes) drop_records(g);
      if (slot) xffi_any_release(slot);
      if (slot)
        *slot = value;
      else
        xffi_any_release(&value);
    }
    if (read_separator(r, '}', &more) != XFFI_OK) return XFFI_FAIL;
  }
  return XFFI_OK;
}

/* Reads the whole text, then checks the graph as xffi_from_json does and decodes it. */
static int read_graph(text_graph *g, xffi_any *out) {
  if (read_graph_object(g) != XFFI_OK) return XFFI_FAIL;
  xffi_json_skip_space(&g->json);
  if (g->json.cur != g->json.end) return xffi_json_fail_at(&g->json, g->json.cur, "Extra data");
  if (g->root_index.type_index != XFFI_TYPE_INT)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: Invalid JSON Object Graph, expected `root_index` integer field", FN);
  if (!g->has_records)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: Invalid JSON Object Graph, expected `nodes` array field", FN);
  int64_t count = (int64_t)g->records.count, root = g->root_index.v_int64;
  if (root < 0 || root >= count)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: root_index %lld out of range (%lld nodes)", FN, (long long)root,
                            (long long)count);
  return xffi_graph_decode_records(out, (xffi_graph_record *)g->records.data, (const xffi_any *)g->refs.data, count,
                                   root);
}

int xffi_from_json_text(xffi_any *out, const char *text, size_t size) {
  if (out == NULL || (text == NULL && size > 0))
    return xffi_error_raise(XFFI_KIND_VALUE, "ffi.FromJSONGraphString: %s is NULL", out == NULL ? "out" : "text");
  text_graph g;
  memset(&g, 0, sizeof(g));
  xffi_json_reader_init(&g.json, text, size);
  xffi_json_skip_space(&g.json);
  if (g.json.cur == g.json.end || *g.json.cur != '{') { /* not a graph: as the value path has it */
    xffi_json_reader_free(&g.json);
    xffi_any graph = xffi_any_none();
    if (xffi_json_parse(&graph, text, size) != XFFI_OK) return XFFI_FAIL;
    int status = xffi_from_json(out, &graph);
    xffi_any_release(&graph);
    return status;
  }
  g.records.item_size = sizeof(xffi_graph_record);
  g.refs.item_size = g.type_keys.item_size = sizeof(xffi_any);
  g.nodes = g.root_index = xffi_any_none();
  int status = read_graph(&g, out);
  drop_records(&g);
  xffi_walk_vec_free(&g.records);
  xffi_walk_vec_free(&g.refs);
  for (size_t i = 0; i < g.type_keys.count; ++i) xffi_any_release((xffi_any *)xffi_walk_vec_at(&g.type_keys, i));
  xffi_walk_vec_free(&g.type_keys);
  xffi_any_release(&g.nodes);
  xffi_any_release(&g.root_index);
  xffi_json_reader_free(&g.json);
  return status;
}
