/* bench/bench_structural.c: structural hash and equality, deep copy and
 * the JSON text codec on issue 17's graph shape, in C alone: N nodes in a
 * binary heap (node i holds nodes 2i+1 and 2i+2), cycling through Array,
 * List, Map, Dict and a reflected tree-kind type (an int, a float, a string,
 * a Shape and an Array of children); every 64th node also holds one shared
 * List and one shared node. bench/bench_graph_vs_tvm.py is the
 * side-by-side figure against tvm-ffi; this program is what callgrind
 * profiles (the harness counts instructions). The baseline of each op is
 * ffi.RecursiveHash's walk of the same graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xffi/array.h>
#include <xffi/json.h>
#include <xffi/map.h>
#include <xffi/recursive.h>
#include <xffi/reflection.h>
#include <xffi/shape.h>
#include <xffi/string.h>
#include <xffi/structural.h>

#include "bench_harness.h"

typedef struct graph_node {
  xffi_object header;
  int64_t value;
  double weight;
  xffi_any name, shape, kids;
} graph_node;

static void graph_node_deleter(void *self, int flags) {
  graph_node *n = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    xffi_any_release(&n->name);
    xffi_any_release(&n->shape);
    xffi_any_release(&n->kids);
  }
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static int32_t node_type = -1;

static xffi_object *graph_node_new(int64_t value, double weight, xffi_any name, xffi_any shape, xffi_any kids) {
  graph_node *n = calloc(1, sizeof(*n));
  if (!n) abort();
  xffi_object_init(&n->header, node_type, graph_node_deleter);
  n->value = value;
  n->weight = weight;
  n->name = name; /* stolen */
  n->shape = shape;
  n->kids = kids;
  return &n->header;
}

static int register_node_type(void) {
  const xffi_reflect_field_spec fields[] = {
      XFFI_FIELD_SPEC(graph_node, value, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL),
      XFFI_FIELD_SPEC(graph_node, weight, XFFI_TYPE_FLOAT, XFFI_FIELD_WRITABLE, NULL),
      XFFI_FIELD_SPEC(graph_node, name, XFFI_TYPE_ANY, XFFI_FIELD_WRITABLE, NULL),
      XFFI_FIELD_SPEC(graph_node, shape, XFFI_TYPE_ANY, XFFI_FIELD_WRITABLE, NULL),
      XFFI_FIELD_SPEC(graph_node, kids, XFFI_TYPE_ANY, XFFI_FIELD_WRITABLE, NULL),
  };
  xffi_type_metadata m = {{"bench node", 10}, NULL, (int32_t)sizeof(graph_node), XFFI_SEQ_HASH_TREE_NODE};
  if (xffi_type_register(&node_type, "bench.structural.GraphNode", XFFI_TYPE_OBJECT) != XFFI_OK) return XFFI_FAIL;
  if (xffi_reflect_fields(node_type, fields, 5) != XFFI_OK) return XFFI_FAIL;
  return xffi_type_register_metadata(node_type, &m);
}

static xffi_any text(const char *s) {
  xffi_any v;
  if (xffi_any_from_str(&v, s, strlen(s)) != XFFI_OK) abort();
  return v;
}

static xffi_any shape2(int64_t a, int64_t b) {
  xffi_object *s = NULL;
  int64_t dims[2] = {a, b};
  if (xffi_shape_new(&s, dims, 2) != XFFI_OK) abort();
  return xffi_any_object(s);
}

/* The graph (a new reference); kinds 5 with reflected nodes, 4 without, 2:
 * Arrays and Maps only (JSON values). */
static xffi_any build_graph(int64_t n, int kinds) {
  xffi_any *nodes = calloc((size_t)n, sizeof(xffi_any));
  xffi_object *shared = NULL, *empty = NULL;
  xffi_any shared_items[3] = {xffi_any_int(1), xffi_any_float(2.5), text("shared")};
  if (!nodes ||
      (kinds == 2 ? xffi_array_new(&shared, shared_items, 3) : xffi_list_new(&shared, shared_items, 3)) != XFFI_OK ||
      xffi_array_new(&empty, NULL, 0) != XFFI_OK)
    abort();
  xffi_any_release(&shared_items[2]);
  xffi_object *shared_node = graph_node_new(-1, 0.5, text("shared"), shape2(1, 2), xffi_any_object(empty));
  for (int64_t i = n - 1; i >= 0; --i) {
    xffi_any kids[4];
    int nk = 0;
    for (int64_t c = 2 * i + 1; c <= 2 * i + 2; ++c)
      if (c < n) kids[nk++] = nodes[c];
    if (i % 64 == 0) {
      kids[nk++] = xffi_any_object(shared);
      if (kinds == 5) kids[nk++] = xffi_any_object(shared_node);
    }
    char name[32];
    snprintf(name, sizeof(name), "node-%lld", (long long)i);
    xffi_any t = text(name);
    double w = (double)i * 0.25;
    xffi_object *made = NULL;
    int kind = kinds == 2 ? (int)(i % 2) * 2 : (int)(i % kinds);
    if (kind <= 1) {
      xffi_any items[7] = {xffi_any_int(i), xffi_any_float(w), t};
      memcpy(items + 3, kids, (size_t)nk * sizeof(xffi_any));
      if ((kind == 0 ? xffi_array_new(&made, items, 3 + nk) : xffi_list_new(&made, items, 3 + nk)) != XFFI_OK) abort();
    } else if (kind <= 3) {
      static const char *const kid_keys[] = {"c0", "c1", "c2", "c3"};
      xffi_any keys[7] = {text("i"), text("w"), text("t")}, values[7] = {xffi_any_int(i), xffi_any_float(w), t};
      for (int k = 0; k < nk; ++k) {
        keys[3 + k] = text(kid_keys[k]);
        values[3 + k] = kids[k];
      }
      if ((kind == 2 ? xffi_map_new(&made, keys, values, 3 + nk) : xffi_dict_new(&made, keys, values, 3 + nk)) !=
          XFFI_OK)
        abort();
      for (int k = 0; k < 3 + nk; ++k) xffi_any_release(&keys[k]);
    } else {
      xffi_object *arr = NULL;
      if (xffi_array_new(&arr, kids, nk) != XFFI_OK) abort();
      xffi_any name_copy;
      if (xffi_any_copy(&name_copy, &t) != XFFI_OK) abort();
      made = graph_node_new(i, w, name_copy, shape2(i, 3), xffi_any_object(arr));
    }
    xffi_any_release(&t);
    for (int64_t c = 2 * i + 1; c <= 2 * i + 2; ++c)
      if (c < n) xffi_any_release(&nodes[c]);
    nodes[i] = xffi_any_object(made);
  }
  xffi_any root = nodes[0];
  free(nodes);
  xffi_object_dec_ref(shared);
  xffi_object_dec_ref(shared_node);
  return root;
}

typedef struct graph_ctx {
  xffi_any graph, twin, containers, json_value; /* containers: the graph without reflected nodes */
  xffi_object *json_text;
} graph_ctx;

static void fail(const char *what) {
  fprintf(stderr, "bench_structural: %s failed\n", what);
  exit(1);
}

static void run_recursive_hash(void *ctx, uint64_t iterations) {
  graph_ctx *g = ctx;
  for (uint64_t i = 0; i < iterations; ++i) {
    int64_t h = 0;
    if (xffi_recursive_hash(&h, &g->graph) != XFFI_OK) fail("xffi_recursive_hash");
    BENCH_KEEP(h);
  }
}

static void run_hash(void *ctx, uint64_t iterations) {
  graph_ctx *g = ctx;
  for (uint64_t i = 0; i < iterations; ++i) {
    int64_t h = 0;
    if (xffi_structural_hash(&h, &g->graph, 0) != XFFI_OK) fail("xffi_structural_hash");
    BENCH_KEEP(h);
  }
}

static void run_equal(void *ctx, uint64_t iterations) {
  graph_ctx *g = ctx;
  for (uint64_t i = 0; i < iterations; ++i) {
    int eq = 0;
    if (xffi_structural_equal(&eq, &g->graph, &g->twin, 0) != XFFI_OK || !eq) fail("xffi_structural_equal");
  }
}

static void run_copy(void *ctx, uint64_t iterations) {
  graph_ctx *g = ctx;
  for (uint64_t i = 0; i < iterations; ++i) {
    xffi_any copy;
    if (xffi_deep_copy(&copy, &g->containers) != XFFI_OK) fail("xffi_deep_copy");
    xffi_any_release(&copy);
  }
}

static void run_parse(void *ctx, uint64_t iterations) {
  graph_ctx *g = ctx;
  xffi_byte_array t;
  if (xffi_string_cell_of(&t, g->json_text) != XFFI_OK) fail("xffi_string_cell_of");
  for (uint64_t i = 0; i < iterations; ++i) {
    xffi_any v;
    if (xffi_json_parse(&v, t.data, t.size) != XFFI_OK) fail("xffi_json_parse");
    xffi_any_release(&v);
  }
}

static void run_stringify(void *ctx, uint64_t iterations) {
  graph_ctx *g = ctx;
  for (uint64_t i = 0; i < iterations; ++i) {
    xffi_object *s = NULL;
    if (xffi_json_stringify(&s, &g->json_value, 0) != XFFI_OK) fail("xffi_json_stringify");
    xffi_object_dec_ref(s);
  }
}

/* The JSON text of a graph of n Arrays and Maps (JSON values). */
static xffi_object *json_text_of(int64_t n) {
  xffi_any g = build_graph(n, 2);
  xffi_object *s = NULL;
  if (xffi_json_stringify(&s, &g, 0) != XFFI_OK) fail("xffi_json_stringify (set-up)");
  xffi_any_release(&g);
  return s;
}

int main(int argc, char **argv) {
  bench_init(argc, argv);
  int64_t n = 100000;
  for (int i = 1; i < argc; ++i)
    if (!strcmp(argv[i], "--quick")) n = 10000;
  if (register_node_type() != XFFI_OK) fail("register_node_type");
  graph_ctx g = {build_graph(n, 5), build_graph(n, 5), build_graph(n, 4), xffi_any_none(), NULL};
  g.json_text = json_text_of(n);
  xffi_byte_array t;
  if (xffi_string_cell_of(&t, g.json_text) != XFFI_OK) fail("xffi_string_cell_of");
  if (xffi_json_parse(&g.json_value, t.data, t.size) != XFFI_OK) fail("xffi_json_parse (set-up)");
  bench_case hash[] = {{"RecursiveHash", run_recursive_hash, &g}, {"xffi", run_hash, &g}};
  bench_op("StructuralHash (100k-node graph)", hash, 2);
  bench_case equal[] = {{"RecursiveHash", run_recursive_hash, &g}, {"xffi", run_equal, &g}};
  bench_op("StructuralEqual (two equal graphs)", equal, 2);
  bench_case copy[] = {{"RecursiveHash", run_recursive_hash, &g}, {"xffi", run_copy, &g}};
  bench_op("DeepCopy (containers only: the C node type has no shallow copy)", copy, 2);
  bench_case parse[] = {{"RecursiveHash", run_recursive_hash, &g}, {"xffi", run_parse, &g}};
  bench_op("json.Parse (the containers' JSON text)", parse, 2);
  bench_case stringify[] = {{"RecursiveHash", run_recursive_hash, &g}, {"xffi", run_stringify, &g}};
  bench_op("json.Stringify (its parsed value)", stringify, 2);
  xffi_any_release(&g.graph);
  xffi_any_release(&g.twin);
  xffi_any_release(&g.containers);
  xffi_any_release(&g.json_value);
  xffi_object_dec_ref(g.json_text);
  return bench_finish();
}
