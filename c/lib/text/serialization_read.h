/* c/lib/text/serialization_read.h: the node decoder of the JSON graph reader
 * (c/lib/text/serialization_read.c), shared by ffi.FromJSONGraph (nodes as parsed
 * JSON values) and ffi.FromJSONGraphString's text reader
 * (c/lib/text/serialization_read_text.c: nodes as records read straight from the
 * text, with no Map per node). Private to the library. */
#ifndef XFFI_SERIALIZATION_READ_H
#define XFFI_SERIALIZATION_READ_H

#include <xffi/json.h>

#include "runtime/internal.h"

enum {
  XFFI_GRAPH_RECORD_OBJECT = 1,        /* the node was a JSON object; else data holds the whole node */
  XFFI_GRAPH_RECORD_TYPE = 2,          /* it had "type" */
  XFFI_GRAPH_RECORD_DATA = 4,          /* it had "data", in data */
  XFFI_GRAPH_RECORD_DATA_REFS = 8,     /* it had "data", an array of ints, in the reader's refs */
  XFFI_GRAPH_RECORD_TYPE_BORROWED = 16 /* type is borrowed (the text reader's table of type keys) */
};

/* One node of a graph as the text reader read it: its "type" and "data"
 * (the last of each, as a Map keeps them); other keys are dropped. */
typedef struct xffi_graph_record {
  xffi_any type;                  /* owned unless XFFI_GRAPH_RECORD_TYPE_BORROWED */
  xffi_any data;                  /* owned */
  int64_t refs_first, refs_count; /* XFFI_GRAPH_RECORD_DATA_REFS: data is refs[first, first + count) */
  int32_t flags;
} xffi_graph_record;

/* Decodes the graph of count records (borrowed; a record's array data may be
 * made an Array in place) whose array data are in refs (borrowed, ints), from
 * node root (in range: the caller's check): *out receives the root's value (a
 * new reference). Errors are ffi.FromJSONGraph's, naming node, type and field. */
int xffi_graph_decode_records(xffi_any *out, xffi_graph_record *records, const xffi_any *refs, int64_t count,
                              int64_t root) XFFI_INTERNAL;

#endif /* XFFI_SERIALIZATION_READ_H */
