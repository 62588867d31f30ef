/* c/lib/text/serialization_write_text.c: xffi_to_json_text (ffi.ToJSONGraphString):
 * the JSON graph's compact text written straight from the encoder's node
 * records (c/lib/text/serialization_write.h) into one growing buffer, with no Map or
 * Array per node. The bytes are json.Stringify(ToJSONGraph(x)), and so are
 * the errors: an error json.Stringify would raise on a node's data (what a
 * __data_to_json__ returned) is kept until the whole graph is numbered, since
 * on the value path every ToJSONGraph error comes first. */
#include <string.h>

#include <xffi/json.h>
#include <xffi/string.h>

#include "lib/text/json_write.h"
#include "lib/text/serialization_write.h"

/* Room kept before the nodes for {"root_index":R,"nodes":[ (at most 44 bytes). */
enum { PREFIX_ROOM = 48 };

typedef struct text_emitter {
  xffi_graph_emitter base;
  repr_text text;           /* PREFIX_ROOM bytes, then the nodes' text */
  int64_t count;            /* nodes written */
  xffi_object *deferred;    /* owned: json.Stringify's error, raised if the graph has none */
  xffi_walk_table names;    /* the value emitter's names, for an object written as its Map */
  xffi_walk_table repeated; /* (first field, last field) of a FIELDS node -> whether a field name repeats */
} text_emitter;

static int put(text_emitter *e, const char *s, size_t n) { return xffi_json_put(&e->text, s, n); }

/* Whether two of node's fields share a name (then ToJSONGraph's Map keeps
 * one, so the node is written through that Map). Every node of one type has
 * the same fields, so the answer is kept per (first, last) field record. */
static int has_repeated_name(text_emitter *e, const xffi_graph_node *node, int *repeated) {
  const void *first = node->entries[0].field, *last = node->entries[node->count - 1].field;
  xffi_walk_entry *known = xffi_walk_table_find(&e->repeated, first, last);
  if (known != NULL) {
    *repeated = known->state;
    return XFFI_OK;
  }
  int found = 0;
  for (int64_t i = 0; i < node->count && !found; ++i)
    for (int64_t j = i + 1; j < node->count && !found; ++j) {
      xffi_byte_array a = node->entries[i].field->name, b = node->entries[j].field->name;
      found = a.size == b.size && memcmp(a.data, b.data, a.size) == 0;
    }
  known = xffi_walk_table_put(&e->repeated, first, last);
  if (known == NULL) return XFFI_FAIL;
  known->state = found;
  *repeated = found;
  return XFFI_OK;
}

/* An entry's value: a child index or an inlined field value. */
static int put_entry_value(text_emitter *e, const xffi_any *v) {
  if (v->type_index == XFFI_TYPE_INT) return xffi_json_put_int(&e->text, v->v_int64);
  return xffi_json_write(&e->text, v, 0);
}

static int put_data(text_emitter *e, const xffi_graph_node *node) {
  if (node->data_kind == XFFI_GRAPH_DATA_VALUE) return xffi_json_write(&e->text, node->data, 0);
  if (node->data_kind == XFFI_GRAPH_DATA_INTS) {
    if (put(e, "[", 1) != XFFI_OK) return XFFI_FAIL;
    for (int64_t i = 0; i < node->count; ++i)
      if ((i != 0 && put(e, ",", 1) != XFFI_OK) ||
          xffi_json_put_int(&e->text, node->entries[i].value.v_int64) != XFFI_OK)
        return XFFI_FAIL;
    return put(e, "]", 1);
  }
  int repeated = 0;
  if (node->count > 1 && has_repeated_name(e, node, &repeated) != XFFI_OK) return XFFI_FAIL;
  if (repeated) {
    xffi_any map;
    if (xffi_graph_node_data(&map, node, &e->names) != XFFI_OK) return XFFI_FAIL;
    int status = xffi_json_write(&e->text, &map, 0);
    xffi_any_release(&map);
    return status;
  }
  if (put(e, "{", 1) != XFFI_OK) return XFFI_FAIL;
  for (int64_t i = 0; i < node->count; ++i) {
    xffi_byte_array name = node->entries[i].field->name;
    if ((i != 0 && put(e, ",", 1) != XFFI_OK) || xffi_json_put_string(&e->text, name.data, name.size) != XFFI_OK ||
        put(e, ":", 1) != XFFI_OK || put_entry_value(e, &node->entries[i].value) != XFFI_OK)
      return XFFI_FAIL;
  }
  return put(e, "}", 1);
}

/* Writes {"type":...,"data":...}; an error in it is kept (deferred), and
 * nothing more is written after one. */
static int emit_text(xffi_graph_emitter *self, const xffi_graph_node *node) {
  text_emitter *e = (text_emitter *)self;
  if (e->deferred != NULL) return XFFI_OK;
  int status = (e->count == 0 || put(e, ",", 1) == XFFI_OK) && put(e, "{\"type\":", 8) == XFFI_OK &&
                       xffi_json_put_string(&e->text, node->type_key, strlen(node->type_key)) == XFFI_OK
                   ? XFFI_OK
                   : XFFI_FAIL;
  if (status == XFFI_OK && node->data_kind != XFFI_GRAPH_DATA_NONE)
    status = put(e, ",\"data\":", 8) == XFFI_OK ? put_data(e, node) : XFFI_FAIL;
  if (status == XFFI_OK) status = put(e, "}", 1);
  e->count++;
  if (status != XFFI_OK) e->deferred = xffi_error_move_raised();
  return XFFI_OK;
}

/* Writes the graph's text after the prefix room and the nodes: "]", the
 * metadata, "}"; then the prefix just before the nodes. *begin receives
 * where the text starts. */
static int finish(text_emitter *e, int64_t root, const xffi_any *metadata, size_t *begin) {
  if (put(e, "]", 1) != XFFI_OK) return XFFI_FAIL;
  if (metadata != NULL && metadata->type_index != XFFI_TYPE_NONE &&
      (put(e, ",\"metadata\":", 12) != XFFI_OK || xffi_json_write(&e->text, metadata, 0) != XFFI_OK))
    return XFFI_FAIL;
  if (put(e, "}", 1) != XFFI_OK) return XFFI_FAIL;
  repr_text prefix;
  char room[PREFIX_ROOM];
  memset(&prefix, 0, sizeof(prefix));
  prefix.data = room;
  prefix.capacity = sizeof(room);
  prefix.limit = sizeof(room);
  /* Fits: 14 + at most 20 digits + 10 bytes. */
  xffi_json_put(&prefix, "{\"root_index\":", 14);
  xffi_json_put_int(&prefix, root);
  xffi_json_put(&prefix, ",\"nodes\":[", 10);
  *begin = PREFIX_ROOM - prefix.size;
  memcpy(e->text.data + *begin, room, prefix.size);
  return XFFI_OK;
}

int xffi_to_json_text(xffi_object **out, const xffi_any *value, const xffi_any *metadata) {
  if (out == NULL || value == NULL)
    return xffi_error_raise(XFFI_KIND_VALUE, "xffi_to_json_text: %s is NULL", out == NULL ? "out" : "value");
  text_emitter e;
  memset(&e, 0, sizeof(e));
  e.base.emit = emit_text;
  e.text.limit = XFFI_JSON_MAX_TEXT_BYTES;
  static const char zeros[PREFIX_ROOM] = {0};
  int64_t root = 0;
  size_t begin = 0;
  int status = put(&e, zeros, PREFIX_ROOM);
  if (status == XFFI_OK) status = xffi_graph_encode(value, &e.base, &root);
  if (status == XFFI_OK && e.deferred != NULL) {
    xffi_error_set_raised(e.deferred);
    e.deferred = NULL;
    status = XFFI_FAIL;
  }
  if (status == XFFI_OK) status = finish(&e, root, metadata, &begin);
  if (status == XFFI_OK) status = xffi_string_new(out, e.text.data + begin, e.text.size - begin);
  if (e.deferred != NULL) xffi_object_dec_ref(e.deferred);
  xffi_walk_table_free(&e.names);
  xffi_walk_table_free(&e.repeated);
  xffi_repr_text_free(&e.text);
  return status;
}
