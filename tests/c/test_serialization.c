/* tests/c/test_serialization.c: xffi_to_json and the ffi.ToJSONGraph /
 * ffi.ToJSONGraphString globals (c/serialization_write.c,
 * c/globals_serialization.c): tvm-ffi's JSON graph text, byte for byte (the
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
  assert_raised(XFFI_KIND_TYPE, "ffi.ToJSONGraph: cannot write a value of type `");
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_plain_kind_writes_as_tvm_ffi),
      cmocka_unit_test(test_shared_values_are_one_node),
      cmocka_unit_test(test_million_deep_lists_use_no_c_recursion),
      cmocka_unit_test(test_unwritable_values_are_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
