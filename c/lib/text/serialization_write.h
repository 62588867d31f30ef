/* c/lib/text/serialization_write.h: the JSON graph writer's encoder
 * (c/lib/text/serialization_write.c), shared by ffi.ToJSONGraph (each node emitted
 * as a Map value) and ffi.ToJSONGraphString (each node emitted straight as
 * text, c/lib/text/serialization_write_text.c), so that numbering, sharing, object
 * forms and every ToJSONGraph error have one implementation. Private to the
 * library. */
#ifndef XFFI_SERIALIZATION_WRITE_H
#define XFFI_SERIALIZATION_WRITE_H

#include <xffi/json.h>
#include <xffi/reflection.h>

#include "lib/walk/recursive_walk.h"

/* What a node's "data" is. */
enum {
  XFFI_GRAPH_DATA_NONE,   /* no "data" (None) */
  XFFI_GRAPH_DATA_VALUE,  /* data: a value written as JSON (a leaf, or what __data_to_json__ returned) */
  XFFI_GRAPH_DATA_INTS,   /* entries: an array of ints (child indices, a Shape's or Device's numbers) */
  XFFI_GRAPH_DATA_FIELDS, /* entries: an object of field name -> an inlined value or a child index */
};

/* One element of an INTS node, or one field of a FIELDS node. */
typedef struct xffi_graph_entry {
  const xffi_field_info *field; /* FIELDS: the field (its name is the key); NULL for INTS */
  xffi_any value;               /* owned: an int, or an inlined field's value (a dtype as its String) */
} xffi_graph_entry;

/* One node as the encoder gives it to an emitter; everything borrowed, valid
 * during the emitter's call only. */
typedef struct xffi_graph_node {
  const char *type_key; /* NUL-terminated */
  int32_t data_kind;
  const xffi_any *data;            /* XFFI_GRAPH_DATA_VALUE */
  const xffi_graph_entry *entries; /* XFFI_GRAPH_DATA_INTS, XFFI_GRAPH_DATA_FIELDS */
  int64_t count;                   /* entries */
} xffi_graph_node;

/* Receives the nodes in index order (node k is the k-th call). */
typedef struct xffi_graph_emitter {
  int (*emit)(struct xffi_graph_emitter *self, const xffi_graph_node *node);
} xffi_graph_emitter;

/* Numbers the graph of value (borrowed) as tvm-ffi does, calling
 * emitter->emit once per node; *root receives the root's index. Errors are
 * ffi.ToJSONGraph's (and what emit raises); the encoder stops at the first. */
int xffi_graph_encode(const xffi_any *value, xffi_graph_emitter *emitter, int64_t *root) XFFI_INTERNAL;

/* *out receives a new reference to node's "data" as ffi.ToJSONGraph holds it:
 * the value, an Array of ints, or a Map from field names (Strings made once
 * per name in names, an identity table the caller frees) to values. */
int xffi_graph_node_data(xffi_any *out, const xffi_graph_node *node, xffi_walk_table *names) XFFI_INTERNAL;

#endif /* XFFI_SERIALIZATION_WRITE_H */
