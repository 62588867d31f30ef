/* tests/c/text/test_serialization.c: xffi_to_json, xffi_from_json and the
 * ffi.{To,From}JSONGraph{,String} globals (c/serialization_write.c,
 * c/serialization_read.c, c/globals_serialization.c): tvm-ffi's JSON graph text, byte for byte (the
 * expected strings were written by tvm-ffi 0.1.15's own
 * ffi.ToJSONGraphString for the same values), node sharing, deep nesting on
 * a heap stack, and the errors. */
#include <xffi/xffi.h>

#include "test_globals_util.h"

/* ---- Helpers ---- */

static xffi_any str(const char *s) {
  xffi_any v;
  assert_int_equal(xffi_any_from_str(&v, s, strlen(s)), XFFI_OK);
  return v;
}

static xffi_any array_of(const xffi_any *items, int64_t n) {
  xffi_object *a;
  assert_int_equal(xffi_array_new(&a, items, n), XFFI_OK);
  return xffi_any_object(a);
}

/* Asserts that the graph text of value (borrowed) with metadata is expected. */
static void check_graph(const xffi_any *value, const xffi_any *metadata, const char *expected) {
  xffi_any args[2] = {*value, metadata ? *metadata : xffi_any_none()};
  xffi_any text = call_builtin_ok("ffi.ToJSONGraphString", args, 2);
  xffi_byte_array s;
  assert_int_equal(xffi_any_to_str(&s, &text), XFFI_OK);
  if (s.size != strlen(expected) || memcmp(s.data, expected, s.size) != 0)
    fail_msg("graph: expected\n[%s], got\n[%.*s]", expected, (int)s.size, s.data);
  xffi_any_release(&text);
}

/* ---- tvm-ffi's text ---- */

static void test_every_plain_kind_writes_as_tvm_ffi(void **state) {
  (void)state;
  int64_t dims[2] = {2, 3};
  xffi_object *shape;
  assert_int_equal(xffi_shape_new(&shape, dims, 2), XFFI_OK);
  xffi_any inner_items[1] = {xffi_any_int(1)};
  xffi_any inner = array_of(inner_items, 1);
  xffi_any k = str("k");
  xffi_object *map;
  assert_int_equal(xffi_map_new(&map, &k, &inner, 1), XFFI_OK);
  xffi_any bytes;
  assert_int_equal(xffi_any_from_bytes(&bytes, "xy", 2), XFFI_OK);
  DLDataType f32 = {kDLFloat, 32, 1};
  DLDevice cuda1 = {kDLCUDA, 1};
  xffi_any items[11] = {
      xffi_any_int(1),       str("a"), xffi_any_int(1),      xffi_any_bool(1),       xffi_any_none(),
      xffi_any_float(2.5),   bytes,    xffi_any_object(map), xffi_any_object(shape), xffi_any_dtype(f32),
      xffi_any_device(cuda1)};
  xffi_any root = array_of(items, 11);
  check_graph(&root, NULL,
              "{\"root_index\":12,\"nodes\":[{\"type\":\"int\",\"data\":1},{\"type\":\"ffi.String\",\"data\":\"a\"},"
              "{\"type\":\"bool\",\"data\":true},{\"type\":\"None\"},{\"type\":\"float\",\"data\":2.5},"
              "{\"type\":\"ffi.Bytes\",\"data\":\"eHk=\"},{\"type\":\"ffi.String\",\"data\":\"k\"},"
              "{\"type\":\"ffi.Array\",\"data\":[0]},{\"type\":\"ffi.Map\",\"data\":[6,7]},"
              "{\"type\":\"ffi.Shape\",\"data\":[2,3]},{\"type\":\"DataType\",\"data\":\"float32\"},"
              "{\"type\":\"Device\",\"data\":[2,1]},{\"type\":\"ffi.Array\",\"data\":[0,1,0,2,3,4,5,8,9,10,11]}]}");
  xffi_any_release(&root);
  xffi_any_release(&items[1]);
  xffi_any_release(&bytes);
  xffi_any_release(&k);
  xffi_any_release(&inner);
  xffi_object_dec_ref(map);
  xffi_object_dec_ref(shape);
  xffi_any none = xffi_any_none();
  check_graph(&none, NULL, "{\"root_index\":0,\"nodes\":[{\"type\":\"None\"}]}");
}

static void test_shared_values_are_one_node(void **state) {
  (void)state;
  xffi_any shared = str("shared");
  xffi_any pair[2] = {xffi_any_int(7), shared};
  xffi_any a = array_of(pair, 2);
  xffi_any empty_bytes, abcd;
  assert_int_equal(xffi_any_from_bytes(&empty_bytes, "", 0), XFFI_OK);
  assert_int_equal(xffi_any_from_bytes(&abcd, "abcd", 4), XFFI_OK);
  xffi_any items[9] = {
      a, a, shared, xffi_any_float(1.0), xffi_any_float(-0.0), xffi_any_bool(0), xffi_any_int(0), empty_bytes, abcd};
  xffi_any root = array_of(items, 9);
  check_graph(
      &root, NULL,
      "{\"root_index\":9,\"nodes\":[{\"type\":\"int\",\"data\":7},{\"type\":\"ffi.String\",\"data\":\"shared\"},"
      "{\"type\":\"ffi.Array\",\"data\":[0,1]},{\"type\":\"float\",\"data\":1.0},{\"type\":\"float\",\"data\":-0.0},"
      "{\"type\":\"bool\",\"data\":false},{\"type\":\"int\",\"data\":0},{\"type\":\"ffi.Bytes\",\"data\":\"\"},"
      "{\"type\":\"ffi.Bytes\",\"data\":\"YWJjZA==\"},{\"type\":\"ffi.Array\",\"data\":[2,2,1,3,4,5,6,7,8]}]}");
  xffi_any_release(&root);
  xffi_any_release(&a);
  xffi_any_release(&shared);
  xffi_any_release(&empty_bytes);
  xffi_any_release(&abcd);

  /* A Dict reached twice, and metadata. */
  xffi_any x = str("x"), none = xffi_any_none();
  xffi_object *dict, *map;
  assert_int_equal(xffi_dict_new(&dict, &x, &none, 1), XFFI_OK);
  xffi_any keys[2] = {str("a"), str("b")};
  xffi_any values[2] = {xffi_any_object(dict), xffi_any_object(dict)};
  assert_int_equal(xffi_map_new(&map, keys, values, 2), XFFI_OK);
  xffi_any map_view = xffi_any_object(map), meta = str("meta");
  check_graph(
      &map_view, &meta,
      "{\"root_index\":5,\"nodes\":[{\"type\":\"ffi.String\",\"data\":\"a\"},{\"type\":\"ffi.String\",\"data\":"
      "\"x\"},{\"type\":\"None\"},{\"type\":\"ffi.Dict\",\"data\":[1,2]},{\"type\":\"ffi.String\",\"data\":\"b\"},"
      "{\"type\":\"ffi.Map\",\"data\":[0,3,4,3]}],\"metadata\":\"meta\"}");
  xffi_object_dec_ref(map);
  xffi_object_dec_ref(dict);
  xffi_any_release(&x);
  xffi_any_release(&keys[0]);
  xffi_any_release(&keys[1]);
  xffi_any_release(&meta);
}

/* ---- Depth and errors ---- */

static void test_million_deep_lists_use_no_c_recursion(void **state) {
  (void)state;
  const int64_t depth = 1000000;
  xffi_object *root;
  assert_int_equal(xffi_list_new(&root, NULL, 0), XFFI_OK);
  xffi_object *cur = root;
  for (int64_t i = 0; i < depth; ++i) {
    xffi_object *next;
    assert_int_equal(xffi_list_new(&next, NULL, 0), XFFI_OK);
    xffi_any next_view = xffi_any_object(next);
    assert_int_equal(xffi_list_push(cur, &next_view), XFFI_OK);
    xffi_object_dec_ref(next);
    cur = next;
  }
  xffi_any root_view = xffi_any_object(root), graph = xffi_any_none();
  assert_int_equal(xffi_to_json(&graph, &root_view, NULL), XFFI_OK);
  xffi_any key = xffi_any_c_str("root_index"), root_index = xffi_any_none();
  assert_int_equal(xffi_map_get(&root_index, graph.v_obj, &key), XFFI_OK);
  assert_int_equal(root_index.v_int64, depth);
  xffi_any_release(&graph);
  xffi_object_dec_ref(root);
}

static void test_unwritable_values_are_errors(void **state) {
  (void)state;
  xffi_any graph = xffi_any_int(5);
  xffi_object *list;
  assert_int_equal(xffi_list_new(&list, NULL, 0), XFFI_OK);
  xffi_any list_view = xffi_any_object(list);
  assert_int_equal(xffi_list_push(list, &list_view), XFFI_OK);
  assert_int_equal(xffi_to_json(&graph, &list_view, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "ffi.ToJSONGraph: Cycle detected during serialization: a List contains itself");
  assert_int_equal(graph.type_index, XFFI_TYPE_INT); /* untouched */
  assert_int_equal(xffi_list_clear(list), XFFI_OK);
  xffi_object_dec_ref(list);

  xffi_object *fn = builtin("ffi.json.Parse");
  xffi_any fn_view = xffi_any_object(fn);
  xffi_any items[2] = {xffi_any_int(1), fn_view};
  xffi_any array = array_of(items, 2);
  assert_int_equal(xffi_to_json(&graph, &array, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "ffi.ToJSONGraph: Type `ffi.Function` does not support ToJSONGraph");
  xffi_any_release(&array);
  xffi_any ptr = xffi_any_ptr(&graph);
  assert_int_equal(xffi_to_json(&graph, &ptr, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "it has no JSON graph form");

  assert_int_equal(xffi_to_json(NULL, &ptr, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_to_json: out is NULL");
  xffi_any result = xffi_any_none();
  assert_int_equal(call_builtin("ffi.ToJSONGraph", NULL, 0, &result), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "ffi.ToJSONGraph: expected 1 or 2 arguments, got 0");
}

/* ---- Reading ---- */

/* Reads graph text and writes it again: the same bytes (tvm-ffi's texts
 * above are canonical: nodes numbered as the writer numbers them). */
static void check_round_trip(const char *text) {
  xffi_any arg = xffi_any_c_str(text);
  xffi_any value = call_builtin_ok("ffi.FromJSONGraphString", &arg, 1);
  check_graph(&value, NULL, text);
  xffi_any_release(&value);
}

static void test_tvm_ffi_graphs_read_back(void **state) {
  (void)state;
  check_round_trip(
      "{\"root_index\":12,\"nodes\":[{\"type\":\"int\",\"data\":1},{\"type\":\"ffi.String\",\"data\":\"a\"},"
      "{\"type\":\"bool\",\"data\":true},{\"type\":\"None\"},{\"type\":\"float\",\"data\":2.5},"
      "{\"type\":\"ffi.Bytes\",\"data\":\"eHk=\"},{\"type\":\"ffi.String\",\"data\":\"k\"},"
      "{\"type\":\"ffi.Array\",\"data\":[0]},{\"type\":\"ffi.Map\",\"data\":[6,7]},"
      "{\"type\":\"ffi.Shape\",\"data\":[2,3]},{\"type\":\"DataType\",\"data\":\"float32\"},"
      "{\"type\":\"Device\",\"data\":[2,1]},{\"type\":\"ffi.Array\",\"data\":[0,1,0,2,3,4,5,8,9,10,11]}]}");
  check_round_trip(
      "{\"root_index\":9,\"nodes\":[{\"type\":\"int\",\"data\":7},{\"type\":\"ffi.String\",\"data\":\"shared\"},"
      "{\"type\":\"ffi.Array\",\"data\":[0,1]},{\"type\":\"float\",\"data\":1.0},{\"type\":\"float\",\"data\":-0.0},"
      "{\"type\":\"bool\",\"data\":false},{\"type\":\"int\",\"data\":0},{\"type\":\"ffi.Bytes\",\"data\":\"\"},"
      "{\"type\":\"ffi.Bytes\",\"data\":\"YWJjZA==\"},{\"type\":\"ffi.Array\",\"data\":[2,2,1,3,4,5,6,7,8]}]}");
  /* Sharing is kept: node 2 read twice is one Array. */
  xffi_any arg = xffi_any_c_str(
      "{\"root_index\":2,\"nodes\":[{\"type\":\"ffi.List\",\"data\":[]},{\"type\":\"int\",\"data\":3},"
      "{\"type\":\"ffi.Array\",\"data\":[0,0,1]}]}");
  xffi_any value = call_builtin_ok("ffi.FromJSONGraphString", &arg, 1);
  const xffi_any *items;
  int64_t n;
  assert_int_equal(xffi_array_items(&items, &n, value.v_obj), XFFI_OK);
  assert_int_equal(n, 3);
  assert_int_equal(items[0].type_index, XFFI_TYPE_LIST);
  assert_ptr_equal(items[0].v_obj, items[1].v_obj);
  assert_int_equal(items[2].v_int64, 3);
  xffi_any_release(&value);
}

/* Maps and Dicts are read as tvm-ffi's reader makes them, setting each pair
 * in turn on an empty map (the reader builds each once, from its decoded
 * pairs): a repeated key takes the last value and keeps its place while the
 * map has at most 4 keys (small), and moves to the end once it is dense. */
static void test_repeated_map_keys_read_as_set_in_turn(void **state) {
  (void)state;
  static const char *const kinds[] = {"ffi.Map", "ffi.Dict"};
  for (int k = 0; k < 2; ++k) {
    char text[1024];
    snprintf(text, sizeof(text),
             "{\"root_index\":10,\"nodes\":[{\"type\":\"ffi.String\",\"data\":\"a\"},"
             "{\"type\":\"ffi.String\",\"data\":\"b\"},{\"type\":\"ffi.String\",\"data\":\"c\"},"
             "{\"type\":\"ffi.String\",\"data\":\"d\"},{\"type\":\"ffi.String\",\"data\":\"e\"},"
             "{\"type\":\"int\",\"data\":1},{\"type\":\"int\",\"data\":2},{\"type\":\"int\",\"data\":3},"
             "{\"type\":\"%s\",\"data\":[0,5,1,6,0,7,2,5,3,5,4,5]},"
             "{\"type\":\"%s\",\"data\":[0,5,1,5,2,5,3,5,4,5,0,7]},"
             "{\"type\":\"ffi.Array\",\"data\":[8,9]}]}",
             kinds[k], kinds[k]);
    xffi_any arg = xffi_any_c_str(text);
    xffi_any value = call_builtin_ok("ffi.FromJSONGraphString", &arg, 1);
    const xffi_any *items;
    int64_t n;
    assert_int_equal(xffi_array_items(&items, &n, value.v_obj), XFFI_OK);
    assert_int_equal(n, 2);
    const char *expected[2] = {"abcde", "bcdea"};
    for (int m = 0; m < 2; ++m) {
      assert_int_equal(items[m].type_index, k == 0 ? XFFI_TYPE_MAP : XFFI_TYPE_DICT);
      char order[8] = {0};
      int64_t cursor = 0, count = 0;
      xffi_map_item item;
      while (xffi_map_next(&item, items[m].v_obj, &cursor) == XFFI_OK && item.key) {
        assert_true(count < 7);
        order[count++] = item.key->v_small[0];
        char key = item.key->v_small[0];
        assert_int_equal(item.value->v_int64, key == 'a' ? 3 : key == 'b' && m == 0 ? 2 : 1);
      }
      assert_string_equal(order, expected[m]);
    }
    xffi_any_release(&value);
  }
}

/* Reading text fails with kind and a message containing fragment. */
static void check_read_error(const char *text, const char *kind, const char *fragment) {
  xffi_any arg = xffi_any_c_str(text), result = xffi_any_none();
  if (call_builtin("ffi.FromJSONGraphString", &arg, 1, &result) != XFFI_FAIL) fail_msg("[%s] was read", text);
  check_raised(kind, fragment, 0, __FILE__, __LINE__);
}

static void test_hostile_graphs_are_clear_errors(void **state) {
  (void)state;
  check_read_error("[1]", XFFI_KIND_VALUE, "Invalid JSON Object Graph, expected an object");
  check_read_error("{\"nodes\":[]}", XFFI_KIND_VALUE, "expected `root_index` integer field");
  check_read_error("{\"root_index\":0}", XFFI_KIND_VALUE, "expected `nodes` array field");
  check_read_error("{\"root_index\":1,\"nodes\":[{\"type\":\"None\"}]}", XFFI_KIND_VALUE,
                   "root_index 1 out of range (1 nodes)");
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Array\",\"data\":[0,5]}]}", XFFI_KIND_VALUE,
                   "ffi.FromJSONGraph: node 0 (ffi.Array): data[0] refers back to node 0, which contains it");
  check_read_error(
      "{\"root_index\":1,\"nodes\":[{\"type\":\"int\",\"data\":1},{\"type\":\"ffi.List\",\"data\":[0,7]}]}",
      XFFI_KIND_VALUE, "node 1 (ffi.List): data[1]: node index 7 out of range (2 nodes)");
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"no.SuchType\"}]}", XFFI_KIND_VALUE,
                   "node 0: unknown type key `no.SuchType`");
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"int\",\"data\":\"1\"}]}", XFFI_KIND_TYPE,
                   "node 0 (int): \"data\" must be an int, got");
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Map\",\"data\":[0]}]}", XFFI_KIND_VALUE,
                   "must hold key, value pairs, got 1 entries (odd)");
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Array\",\"data\":[\"x\"]}]}", XFFI_KIND_TYPE,
                   "node 0 (ffi.Array): data[0] must be a node index, got");
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Bytes\",\"data\":\"ab=c\"}]}", XFFI_KIND_VALUE,
                   "invalid base64 character at 2");
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"DataType\",\"data\":\"floaty\"}]}", XFFI_KIND_VALUE,
                   "\"data\" `floaty` is not a dtype");
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"Device\",\"data\":[1]}]}", XFFI_KIND_TYPE,
                   "[device_type, device_id]");
  check_read_error("{\"root_index\":0,\"nodes\":[7]}", XFFI_KIND_TYPE, "node 0 must be an object, got int");
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Function\"}]}", XFFI_KIND_RUNTIME,
                   "node 0 (ffi.Function): Type `ffi.Function` does not support reflection creation");
  /* An error deep inside: the containers opened so far are released (ASan). */
  check_read_error(
      "{\"root_index\":2,\"nodes\":[{\"type\":\"int\",\"data\":true},{\"type\":\"ffi.Dict\",\"data\":[0,0]},"
      "{\"type\":\"ffi.List\",\"data\":[1]}]}",
      XFFI_KIND_TYPE, "node 0 (int)");
  /* Errors while Maps are open, some of their pairs decoded (ASan: released). */
  check_read_error(
      "{\"root_index\":3,\"nodes\":[{\"type\":\"ffi.String\",\"data\":\"k\"},{\"type\":\"int\",\"data\":\"x\"},"
      "{\"type\":\"ffi.Dict\",\"data\":[0,0,0,1]},{\"type\":\"ffi.Map\",\"data\":[0,0,0,2]}]}",
      XFFI_KIND_TYPE, "node 1 (int)");
  check_read_error(
      "{\"root_index\":2,\"nodes\":[{\"type\":\"ffi.String\",\"data\":\"a-long-key\"},"
      "{\"type\":\"ffi.List\",\"data\":[0]},{\"type\":\"ffi.Map\",\"data\":[0,1,1,9]}]}",
      XFFI_KIND_VALUE, "node 2 (ffi.Map): data[3]: node index 9 out of range");
  xffi_any v;
  assert_int_equal(xffi_from_json(&v, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_from_json: graph is NULL");
}

static void test_million_deep_graph_reads_without_c_recursion(void **state) {
  (void)state;
  /* Node i is a List holding node i - 1; node 0 is an empty List. */
  const int64_t depth = 1000000;
  xffi_object *nodes;
  assert_int_equal(xffi_array_new_with_capacity(&nodes, depth + 1), XFFI_OK);
  for (int64_t i = 0; i <= depth; ++i) {
    xffi_any child = xffi_any_int(i - 1);
    xffi_object *data;
    assert_int_equal(xffi_array_new(&data, &child, i == 0 ? 0 : 1), XFFI_OK);
    xffi_any keys[2] = {xffi_any_c_str("type"), xffi_any_c_str("data")};
    xffi_any values[2] = {xffi_any_c_str("ffi.List"), xffi_any_object(data)};
    xffi_object *node;
    assert_int_equal(xffi_map_new(&node, keys, values, 2), XFFI_OK);
    xffi_object_dec_ref(data);
    xffi_any node_view = xffi_any_object(node);
    assert_int_equal(xffi_array_push(&nodes, &node_view), XFFI_OK);
    xffi_object_dec_ref(node);
  }
  xffi_any keys[2] = {xffi_any_c_str("root_index"), xffi_any_c_str("nodes")};
  xffi_any values[2] = {xffi_any_int(depth), xffi_any_object(nodes)};
  xffi_object *graph;
  assert_int_equal(xffi_map_new(&graph, keys, values, 2), XFFI_OK);
  xffi_object_dec_ref(nodes);
  xffi_any graph_view = xffi_any_object(graph), value = xffi_any_none();
  assert_int_equal(xffi_from_json(&value, &graph_view), XFFI_OK);
  assert_int_equal(value.type_index, XFFI_TYPE_LIST);
  xffi_any_release(&value);
  xffi_object_dec_ref(graph);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_plain_kind_writes_as_tvm_ffi),
      cmocka_unit_test(test_shared_values_are_one_node),
      cmocka_unit_test(test_million_deep_lists_use_no_c_recursion),
      cmocka_unit_test(test_unwritable_values_are_errors),
      cmocka_unit_test(test_tvm_ffi_graphs_read_back),
      cmocka_unit_test(test_repeated_map_keys_read_as_set_in_turn),
      cmocka_unit_test(test_hostile_graphs_are_clear_errors),
      cmocka_unit_test(test_million_deep_graph_reads_without_c_recursion),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
