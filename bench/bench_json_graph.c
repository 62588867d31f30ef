/* bench/bench_json_graph.c: the JSON graph writer and readers on the JSON graph text of
 * issue 17's graph shape (containers only: Array, List, Map, Dict in a binary
 * heap of N nodes, each holding an int, a float and a string; every 64th also
 * holds one shared List), for callgrind: xffi_json_parse of the text
 * (ffi.json.Parse), xffi_json_parse + xffi_from_json (ffi.FromJSONGraph of
 * the parsed value), xffi_from_json_text (ffi.FromJSONGraphString) and, the
 * other way, xffi_to_json_text (ffi.ToJSONGraphString, "write", checked
 * byte for byte against the value path) and xffi_to_json then
 * xffi_json_stringify ("write-value"). bench/bench_graph_vs_tvm.py is the
 * side-by-side figure against tvm-ffi (with reflected nodes as well).
 *
 * Usage: bench_json_graph [parse|graph|text|write|write-value] [nodes (100000)] [repeats (1)]
 * Prints the text's size and a check of the result; times nothing itself
 * (run it under `valgrind --tool=callgrind`, or `time`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xffi/array.h>
#include <xffi/json.h>
#include <xffi/map.h>
#include <xffi/string.h>
#include <xffi/structural.h>

static void fail(const char *what) {
  fprintf(stderr, "bench_json_graph: %s failed\n", what);
  exit(1);
}

static xffi_any text(const char *s) {
  xffi_any v;
  if (xffi_any_from_str(&v, s, strlen(s)) != XFFI_OK) fail("xffi_any_from_str");
  return v;
}

/* The graph (a new reference). */
static xffi_any build_graph(int64_t n) {
  xffi_any *nodes = calloc((size_t)n, sizeof(xffi_any));
  xffi_object *shared = NULL;
  xffi_any shared_items[3] = {xffi_any_int(1), xffi_any_float(2.5), text("shared")};
  if (!nodes || xffi_list_new(&shared, shared_items, 3) != XFFI_OK) fail("set-up");
  xffi_any_release(&shared_items[2]);
  for (int64_t i = n - 1; i >= 0; --i) {
    xffi_any kids[3];
    int nk = 0;
    for (int64_t c = 2 * i + 1; c <= 2 * i + 2; ++c)
      if (c < n) kids[nk++] = nodes[c];
    if (i % 64 == 0) kids[nk++] = xffi_any_object(shared);
    char name[32];
    snprintf(name, sizeof(name), "node-%lld", (long long)i);
    xffi_any values[6] = {xffi_any_int(i), xffi_any_float((double)i * 0.25), text(name)};
    memcpy(values + 3, kids, (size_t)nk * sizeof(xffi_any));
    xffi_object *made = NULL;
    int status;
    switch (i % 4) {
      case 0: status = xffi_array_new(&made, values, 3 + nk); break;
      case 1: status = xffi_list_new(&made, values, 3 + nk); break;
      default: {
        static const char *const key_text[] = {"i", "w", "t", "c0", "c1", "c2"};
        xffi_any keys[6];
        for (int k = 0; k < 3 + nk; ++k) keys[k] = text(key_text[k]);
        status = i % 4 == 2 ? xffi_map_new(&made, keys, values, 3 + nk) : xffi_dict_new(&made, keys, values, 3 + nk);
        for (int k = 0; k < 3 + nk; ++k) xffi_any_release(&keys[k]);
      }
    }
    if (status != XFFI_OK) fail("building a node");
    xffi_any_release(&values[2]);
    for (int k = 0; k < nk; ++k)
      if (kids[k].v_obj != shared) xffi_any_release(&kids[k]);
    nodes[i] = xffi_any_object(made);
  }
  xffi_any root = nodes[0];
  free(nodes);
  xffi_object_dec_ref(shared);
  return root;
}

/* The JSON graph text of graph (a new String), as ffi.ToJSONGraphString writes it. */
static xffi_object *write_text(const xffi_any *graph) {
  xffi_object *json_text;
  if (xffi_to_json_text(&json_text, graph, NULL) != XFFI_OK) fail("xffi_to_json_text");
  return json_text;
}

/* The same through the value graph: xffi_to_json then xffi_json_stringify. */
static xffi_object *write_value_then_text(const xffi_any *graph) {
  xffi_any json_graph;
  xffi_object *json_text;
  if (xffi_to_json(&json_graph, graph, NULL) != XFFI_OK) fail("xffi_to_json");
  if (xffi_json_stringify(&json_text, &json_graph, 0) != XFFI_OK) fail("xffi_json_stringify");
  xffi_any_release(&json_graph);
  return json_text;
}

int main(int argc, char **argv) {
  const char *op = argc > 1 ? argv[1] : "graph";
  int64_t n = argc > 2 ? atoll(argv[2]) : 100000;
  int repeats = argc > 3 ? atoi(argv[3]) : 1;
  int writing = strcmp(op, "write") == 0 || strcmp(op, "write-value") == 0;
  if ((strcmp(op, "parse") != 0 && strcmp(op, "graph") != 0 && strcmp(op, "text") != 0 && !writing) || n < 1 ||
      repeats < 1) {
    fprintf(stderr, "usage: bench_json_graph [parse|graph|text|write|write-value] [nodes] [repeats]\n");
    return 2;
  }
  xffi_any graph = build_graph(n);
  xffi_object *json_text = write_value_then_text(&graph);
  xffi_byte_array t;
  if (xffi_string_cell_of(&t, json_text) != XFFI_OK) fail("xffi_string_cell_of");
  int equal = 1;
  for (int r = 0; writing && r < repeats; ++r) {
    xffi_object *again = strcmp(op, "write") == 0 ? write_text(&graph) : write_value_then_text(&graph);
    xffi_byte_array a;
    if (xffi_string_cell_of(&a, again) != XFFI_OK) fail("xffi_string_cell_of");
    equal = equal && a.size == t.size && memcmp(a.data, t.data, t.size) == 0;
    xffi_object_dec_ref(again);
  }
  for (int r = 0; !writing && r < repeats; ++r) {
    xffi_any value = xffi_any_none(), loaded;
    if (strcmp(op, "text") == 0) {
      if (xffi_from_json_text(&loaded, t.data, t.size) != XFFI_OK) fail("xffi_from_json_text");
      if (r == repeats - 1 && xffi_structural_equal(&equal, &graph, &loaded, 0) != XFFI_OK) fail("equal");
      xffi_any_release(&loaded);
      continue;
    }
    if (xffi_json_parse(&value, t.data, t.size) != XFFI_OK) fail("xffi_json_parse");
    if (strcmp(op, "graph") == 0) {
      if (xffi_from_json(&loaded, &value) != XFFI_OK) fail("xffi_from_json");
      if (r == repeats - 1 && xffi_structural_equal(&equal, &graph, &loaded, 0) != XFFI_OK) fail("equal");
      xffi_any_release(&loaded);
    }
    xffi_any_release(&value);
  }
  printf("%s: %lld nodes, %zu bytes of JSON, %d repeats, %s %s\n", op, (long long)n, t.size, repeats,
         writing ? "text again" : "round trip", equal ? "equal" : "DIFFERENT");
  xffi_object_dec_ref(json_text);
  xffi_any_release(&graph);
  return equal ? 0 : 1;
}
