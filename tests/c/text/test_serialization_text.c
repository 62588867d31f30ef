/* tests/c/text/test_serialization_text.c: xffi_from_json_text, the JSON graph
 * reader that decodes nodes straight from the text
 * (c/serialization_read_text.c), against the value path it must match
 * (xffi_json_parse then xffi_from_json): for every text here, valid or
 * hostile (truncated anywhere, wrong types, references out of range or
 * cyclic, unknown type keys, repeated and unknown keys, 10^6-deep), both
 * give structurally equal values or the same error (kind and message). */
#include <xffi/xffi.h>

#include "reflection_sensor.h"
#include "test_util.h"

/* The value path's result for text[0, size): its status, and the value or the error. */
static int read_by_value(const char *text, size_t size, xffi_any *out) {
  xffi_any graph = xffi_any_none();
  if (xffi_json_parse(&graph, text, size) != XFFI_OK) return XFFI_FAIL;
  int status = xffi_from_json(out, &graph);
  xffi_any_release(&graph);
  return status;
}

/* Both readers agree on text[0, size); returns the status both gave. */
static int check_same_n(const char *text, size_t size) {
  xffi_any by_value = xffi_any_none(), by_text = xffi_any_none();
  int value_status = read_by_value(text, size, &by_value);
  char *value_kind = NULL, *value_message = NULL;
  if (value_status != XFFI_OK) take_raised_error(&value_kind, &value_message);
  int text_status = xffi_from_json_text(&by_text, text, size);
  if (text_status != value_status) {
    if (text_status != XFFI_OK) xffi_object_dec_ref(xffi_error_move_raised());
    fail_msg("[%.*s]: the value reader %s, the text reader %s (%s)", (int)size, text,
             value_status == XFFI_OK ? "read it" : "failed", text_status == XFFI_OK ? "read it" : "failed",
             value_message ? value_message : "");
  }
  if (value_status == XFFI_OK) {
    int equal = 0;
    assert_int_equal(xffi_structural_equal(&equal, &by_value, &by_text, 0), XFFI_OK);
    if (!equal) fail_msg("[%.*s]: the readers' values differ", (int)size, text);
    xffi_any_release(&by_value);
    xffi_any_release(&by_text);
    return XFFI_OK;
  }
  char *text_kind, *text_message;
  take_raised_error(&text_kind, &text_message);
  if (strcmp(value_kind, text_kind) != 0 || strcmp(value_message, text_message) != 0)
    fail_msg("[%.*s]: the value reader raised %s: %s; the text reader %s: %s", (int)size, text, value_kind,
             value_message, text_kind, text_message);
  free(value_kind);
  free(value_message);
  free(text_kind);
  free(text_message);
  return XFFI_FAIL;
}

static int check_same(const char *text) { return check_same_n(text, strlen(text)); }

#define GRAPH(nodes) "{\"root_index\":0,\"nodes\":[" nodes "]}"

/* ---- Values ---- */

static void test_valid_graphs_read_the_same(void **state) {
  (void)state;
  register_sensor_types();
  static const char *const texts[] = {
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[1,2,1,3]},{\"type\":\"int\",\"data\":7},"
            "{\"type\":\"ffi.String\",\"data\":\"s\\u00e9\\n\"},{\"type\":\"ffi.Map\",\"data\":[2,1]}"),
      GRAPH("{\"type\":\"ffi.List\",\"data\":[1,2,3,4,5,6,7,8]},{\"type\":\"None\"},{\"type\":\"bool\",\"data\":true},"
            "{\"type\":\"float\",\"data\":2},{\"type\":\"ffi.Bytes\",\"data\":\"eHk=\"},"
            "{\"type\":\"ffi.Shape\",\"data\":[2,3]},{\"type\":\"DataType\",\"data\":\"float32\"},"
            "{\"type\":\"Device\",\"data\":[2,1]},{\"type\":\"ffi.Dict\",\"data\":[]}"),
      /* data before type, repeated and unknown keys (the last counts), escaped keys, white space */
      " {\n \"nodes\" : [ { \"data\" : [ 1 , 1 ] , \"x\" : {\"y\":[1,{}]}, \"type\" : \"ffi.Array\" } ,\r\n"
      "{\"type\":\"int\",\"data\":5,\"data\":6,\"typ\\u0065\":\"float\"} ], \"root_index\" : 0 , \"extra\": null}\t",
      "{\"nodes\":3,\"root_index\":0,\"nodes\":[{\"type\":\"ffi.String\",\"data\":\"x\"}]}",
      "{\"root_index\":1,\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Array\",\"data\":[]}],\"root_index\":0}",
      /* array data that is not bare indices: [] for a Shape, floats, nested */
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[1,2]},{\"type\":\"ffi.Shape\",\"data\":[]},"
            "{\"type\":\"ffi.Shape\",\"data\":[-1,0,9223372036854775807]}"),
      /* an unreachable node of any form is never decoded */
      GRAPH("{\"type\":\"int\",\"data\":1},[1,2],{\"type\":\"no.such.Type\"},7,{\"data\":[1.5]}"),
      /* reflected objects: fields in any order, defaults, inline and node fields */
      GRAPH("{\"type\":\"test.reflect.Probe\",\"data\":{\"depth\":7,\"ratio\":0.5,\"count\":3,\"label\":1}},"
            "{\"type\":\"ffi.String\",\"data\":\"on\"}"),
      GRAPH("{\"data\":{\"count\":4,\"ratio\":1},\"type\":\"test.reflect.Sensor\"}"),
  };
  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); ++i)
    if (check_same(texts[i]) != XFFI_OK) fail_msg("[%s] was refused", texts[i]);
}

/* More distinct type keys than the text reader keeps shared: each record then owns its own. */
static void test_many_distinct_type_keys(void **state) {
  (void)state;
  char text[8192] = GRAPH("{\"type\":\"ffi.Array\",\"data\":[1]},{\"type\":\"int\",\"data\":1}");
  size_t n = strlen(text) - 2;
  for (int i = 0; i < 100; ++i) n += (size_t)snprintf(text + n, sizeof(text) - n, ",{\"type\":\"unused.T%d\"}", i);
  snprintf(text + n, sizeof(text) - n, "]}");
  assert_int_equal(check_same(text), XFFI_OK);
}

/* ---- Errors ---- */

static void test_hostile_graphs_fail_the_same(void **state) {
  (void)state;
  register_sensor_types();
  static const char *const texts[] = {
      "",
      " ",
      "[]",
      "null",
      "{}",
      "{\"root_index\":0}",
      "{\"nodes\":[]}",
      "{\"root_index\":0,\"nodes\":{}}",
      "{\"root_index\":0,\"nodes\":[]}",
      "{\"root_index\":1.0,\"nodes\":[{\"type\":\"None\"}]}",
      "{\"root_index\":\"0\",\"nodes\":[{\"type\":\"None\"}]}",
      "{\"root_index\":-1,\"nodes\":[{\"type\":\"None\"}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"None\"}],\"nodes\":\"x\"}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"None\"}]} x",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"None\"},]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"None\"} {\"type\":\"None\"}]}",
      "{\"root_index\":0,,}",
      "{\"root_index\" 0}",
      "{root_index:0}",
      "{\"root_index\":0,\"nodes\":[{\"type\" \"None\"}]}",
      "{\"root_index\":0,\"nodes\":[{type:\"None\"}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"None\",}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"None\"\"data\":1}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"N\\x\"}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"\\ud800\"}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"\xff\"}]}",
      /* a repeated "type" whose second string is bad, after a first one (a String, not
       * inline) shared with another node */
      GRAPH("{\"type\":\"ffi.String\"},{\"type\":\"ffi.String\",\"type\":\"\xff\"}"),
      GRAPH("{\"type\":\"ffi.String\"},{\"type\":\"ffi.String\",\"type\":\"x"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[1,]}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[1 2]}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[01]}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[-]}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[1.]}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[1e999]}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[1"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[1,"),
      /* graph errors: node forms, types, data, references */
      GRAPH("7"),
      GRAPH("[0]"),
      GRAPH("{}"),
      GRAPH("{\"type\":1}"),
      GRAPH("{\"type\":[\"ffi.Array\"]}"),
      GRAPH("{\"type\":\"no.such.Type\"}"),
      GRAPH("{\"type\":\"ffi.Object\"}"),
      GRAPH("{\"type\":\"ffi.Array\"}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":{}}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[0]}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[1]}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[-1]}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[1.5]}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[\"1\"]}"),
      GRAPH("{\"type\":\"ffi.Array\",\"data\":[99999999999999999999]}"),
      GRAPH("{\"type\":\"ffi.List\",\"data\":[1]},{\"type\":\"ffi.Array\",\"data\":[0]}"),
      GRAPH("{\"type\":\"ffi.Map\",\"data\":[1]},{\"type\":\"int\",\"data\":1}"),
      GRAPH("{\"type\":\"ffi.Dict\",\"data\":[1,1,1]},{\"type\":\"int\",\"data\":1}"),
      GRAPH("{\"type\":\"int\",\"data\":1.5}"),
      GRAPH("{\"type\":\"int\"}"),
      GRAPH("{\"type\":\"bool\",\"data\":\"t\"}"),
      GRAPH("{\"type\":\"float\",\"data\":[1]}"),
      GRAPH("{\"type\":\"ffi.String\",\"data\":1}"),
      GRAPH("{\"type\":\"ffi.Bytes\",\"data\":\"abc\"}"),
      GRAPH("{\"type\":\"ffi.Bytes\",\"data\":\"ab!c\"}"),
      GRAPH("{\"type\":\"ffi.Shape\",\"data\":[1.5]}"),
      GRAPH("{\"type\":\"ffi.Shape\",\"data\":7}"),
      GRAPH("{\"type\":\"Device\",\"data\":[1]}"),
      GRAPH("{\"type\":\"Device\",\"data\":[1,4294967296]}"),
      GRAPH("{\"type\":\"DataType\",\"data\":\"floaty\"}"),
      GRAPH("{\"type\":\"DataType\",\"data\":[]}"),
      GRAPH("{\"type\":\"test.reflect.Probe\",\"data\":[1]}"),
      GRAPH("{\"type\":\"test.reflect.Probe\",\"data\":{\"ratio\":1.5}}"),
      GRAPH("{\"type\":\"test.reflect.Probe\",\"data\":{\"count\":\"x\",\"ratio\":1.5}}"),
      GRAPH("{\"type\":\"test.reflect.Probe\",\"data\":{\"count\":1,\"ratio\":1.5,\"label\":5}}"),
      GRAPH("{\"type\":\"test.reflect.Probe\",\"data\":{\"count\":1,\"ratio\":1.5,\"label\":0}}"),
      GRAPH("{\"type\":\"test.reflect.Probe\",\"data\":{\"count\":1,\"ratio\":1.5,\"label\":1}},"
            "{\"type\":\"int\",\"data\":3}"),
  };
  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); ++i)
    if (check_same(texts[i]) != XFFI_FAIL) fail_msg("[%s] was read", texts[i]);
}

/* Every prefix of valid graph texts (truncated anywhere: inside a key, a
 * string, a number, a record, between records) fails the same way. */
static void test_every_truncation_fails_the_same(void **state) {
  (void)state;
  register_sensor_types();
  static const char *const texts[] = {
      "{\"root_index\": 0, \"nodes\": [{\"type\": \"ffi.Array\", \"data\": [1, 2, 1]},\n"
      "{\"type\": \"ffi.String\", \"data\": \"\\u00e9\\ud83d\\ude00x\"}, {\"data\": -12, \"type\": \"int\"}]}",
      GRAPH("{\"type\":\"test.reflect.Probe\",\"data\":{\"count\":3,\"ratio\":0.5e1,\"label\":1,\"depth\":7}},"
            "{\"type\":\"ffi.String\",\"data\":\"on\"}"),
  };
  for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); ++t) {
    size_t size = strlen(texts[t]);
    for (size_t n = 0; n < size; ++n)
      if (check_same_n(texts[t], n) != XFFI_FAIL) fail_msg("a prefix of %zu bytes was read", n);
    assert_int_equal(check_same_n(texts[t], size), XFFI_OK);
  }
}

/* ---- Depth ---- */

/* A text of head, depth times open, depth times close, then tail (malloc'ed). */
static char *nested_text(const char *head, size_t depth, const char *open, const char *close, const char *tail) {
  size_t h = strlen(head), o = strlen(open), c = strlen(close), t = strlen(tail);
  char *s = malloc(h + depth * (o + c) + t + 1);
  assert_non_null(s);
  char *p = s;
  memcpy(p, head, h), p += h;
  for (size_t i = 0; i < depth; ++i) memcpy(p, open, o), p += o;
  for (size_t i = 0; i < depth; ++i) memcpy(p, close, c), p += c;
  memcpy(p, tail, t + 1);
  return s;
}

/* Data nested 10^6 deep in a record, and at json.Parse's depth limit
 * (2^20 containers in all, counting the graph, "nodes" and the record). */
static void test_deep_data_fails_the_same(void **state) {
  (void)state;
  const char *head = "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Array\",\"data\":";
  size_t depths[] = {1000000, ((size_t)1 << 20) - 3, ((size_t)1 << 20) - 2};
  for (size_t i = 0; i < 3; ++i) {
    char *text = nested_text(head, depths[i], "[", "]", "}]}");
    assert_int_equal(check_same(text), XFFI_FAIL);
    free(text);
  }
}

/* A 10^6-deep chain of nodes (each an Array holding the next) reads with
 * bounded stack; a chain whose last node refers back to the first fails. */
/* NULL arguments: a clear error naming the argument, *out untouched; NULL
 * text with size 0 is the empty text, refused as json.Parse refuses it. */
static void test_null_arguments_are_refused(void **state) {
  (void)state;
  xffi_any out = xffi_any_int(7);
  const char *text = GRAPH("{\"type\":\"int\",\"data\":1}");
  assert_int_equal(xffi_from_json_text(NULL, text, strlen(text)), XFFI_FAIL);
  expect_error("ValueError", "ffi.FromJSONGraphString: out is NULL");
  assert_int_equal(xffi_from_json_text(&out, NULL, 3), XFFI_FAIL);
  expect_error("ValueError", "ffi.FromJSONGraphString: text is NULL");
  assert_int_equal(out.type_index, XFFI_TYPE_INT);
  assert_int_equal(check_same_n(NULL, 0), XFFI_FAIL);
}

static void test_million_deep_chain_reads_the_same(void **state) {
  (void)state;
  enum { N = 1000000 };
  size_t capacity = (size_t)N * 48 + 64, n = 0;
  char *text = malloc(capacity);
  assert_non_null(text);
  for (int cyclic = 0; cyclic < 2; ++cyclic) {
    n = (size_t)snprintf(text, capacity, "{\"root_index\":0,\"nodes\":[");
    for (int64_t i = 0; i < N - 1; ++i)
      n += (size_t)snprintf(text + n, capacity - n, "{\"type\":\"ffi.Array\",\"data\":[%lld]},", (long long)i + 1);
    n += (size_t)snprintf(text + n, capacity - n,
                          cyclic ? "{\"type\":\"ffi.List\",\"data\":[0]}]}" : "{\"type\":\"ffi.List\",\"data\":[]}]}");
    assert_int_equal(check_same_n(text, n), cyclic ? XFFI_FAIL : XFFI_OK);
  }
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_graphs_read_the_same),   cmocka_unit_test(test_many_distinct_type_keys),
      cmocka_unit_test(test_hostile_graphs_fail_the_same), cmocka_unit_test(test_every_truncation_fails_the_same),
      cmocka_unit_test(test_deep_data_fails_the_same),     cmocka_unit_test(test_million_deep_chain_reads_the_same),
      cmocka_unit_test(test_null_arguments_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
