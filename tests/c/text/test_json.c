/* tests/c/text/test_json.c: xffi_json_parse and xffi_json_stringify
 * (c/json_parse.c, c/json_write.c) and the ffi.json.Parse/Stringify globals
 * (c/globals_serialization.c): tvm-ffi's value mapping and text (the
 * expected strings were written by tvm-ffi 0.1.15's own ffi.json.*), its
 * error messages and positions, RFC 8259 strictness, 10^6-deep nesting on a
 * heap stack, and bad input. */
#include <math.h>
#include <stdlib.h>

#include <xffi/xffi.h>

#include "test_globals_util.h"

/* ---- Helpers ---- */

static xffi_any parse_ok(const char *text) {
  xffi_any v = xffi_any_none();
  if (xffi_json_parse(&v, text, strlen(text)) != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    fail_msg("parse [%s] failed: %s", text, err ? xffi_error_cell_of_unchecked(err)->message.data : "(nothing)");
  }
  return v;
}

/* Asserts that stringifying value (borrowed) with indent gives expected. */
static void check_text(const xffi_any *value, int indent, const char *expected) {
  xffi_object *text = NULL;
  if (xffi_json_stringify(&text, value, indent) != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    fail_msg("stringify failed: %s", err ? xffi_error_cell_of_unchecked(err)->message.data : "(nothing)");
  }
  xffi_byte_array s;
  xffi_any view = xffi_any_object(text);
  assert_int_equal(xffi_any_to_str(&s, &view), XFFI_OK);
  if (s.size != strlen(expected) || memcmp(s.data, expected, s.size) != 0)
    fail_msg("stringify: expected [%s], got [%.*s]", expected, (int)s.size, s.data);
  xffi_object_dec_ref(text);
}

/* Parses text and writes it back with indent: expected. */
static void check_round(const char *text, int indent, const char *expected) {
  xffi_any v = parse_ok(text);
  check_text(&v, indent, expected);
  xffi_any_release(&v);
}

/* Parsing text fails with a ValueError saying exactly "ffi.json.Parse: " + message. */
static void check_parse_error(const char *text, size_t size, const char *message) {
  xffi_any v = xffi_any_int(7);
  assert_int_equal(xffi_json_parse(&v, text, size), XFFI_FAIL);
  assert_int_equal(v.type_index, XFFI_TYPE_INT); /* untouched */
  char full[256];
  snprintf(full, sizeof(full), "ffi.json.Parse: %s", message);
  expect_error(XFFI_KIND_VALUE, full);
}
#define PARSE_ERROR(text, message) check_parse_error((text), strlen(text), (message))

/* ---- Values and text ---- */

static void test_values_map_as_tvm_ffi_does(void **state) {
  (void)state;
  xffi_any v = parse_ok(" {\"a\" : [1, 2.5, true, false, null, \"x\"], \"b\": {}}\n");
  assert_int_equal(v.type_index, XFFI_TYPE_MAP);
  xffi_any key = xffi_any_c_str("a"), a = xffi_any_none();
  assert_int_equal(xffi_map_get(&a, v.v_obj, &key), XFFI_OK);
  assert_int_equal(a.type_index, XFFI_TYPE_ARRAY);
  const xffi_any *items;
  int64_t n;
  assert_int_equal(xffi_array_items(&items, &n, a.v_obj), XFFI_OK);
  assert_int_equal(n, 6);
  assert_int_equal(items[0].type_index, XFFI_TYPE_INT);
  assert_int_equal(items[1].type_index, XFFI_TYPE_FLOAT);
  assert_true(items[1].v_float64 == 2.5);
  assert_int_equal(items[2].type_index, XFFI_TYPE_BOOL);
  assert_int_equal(items[4].type_index, XFFI_TYPE_NONE);
  check_text(&v, 0, "{\"a\":[1,2.5,true,false,null,\"x\"],\"b\":{}}");
  check_text(&v, 2,
             "{\n  \"a\": [\n    1,\n    2.5,\n    true,\n    false,\n    null,\n    \"x\"\n  ],\n  \"b\": {\n  }\n}");
  xffi_any_release(&a);
  xffi_any_release(&v);
  check_round("[]", 0, "[]");
  check_round("[]", 2, "[\n]");
  check_round("{}", 2, "{\n}");
  /* Duplicate keys: the last value wins. */
  check_round("{\"a\":1,\"a\":2,\"b\":3}", 0, "{\"a\":2,\"b\":3}");
  /* From 4 pairs on the Map is a dense table, built at its final size:
   * a repeated key moves to the end, as setting each pair in turn does. */
  check_round("{\"a\":1,\"b\":2,\"c\":3,\"a\":4,\"d\":5}", 0, "{\"b\":2,\"c\":3,\"a\":4,\"d\":5}");
  check_round("{\"key-a\":[1],\"key-b\":{\"x\":1,\"x\":[2]},\"key-a\":{}}", 0, "{\"key-a\":{},\"key-b\":{\"x\":[2]}}");
}

static void test_numbers_as_tvm_ffi_writes_them(void **state) {
  (void)state;
  const char *in =
      "[Infinity,-Infinity,NaN,1.0,0.1,-0.0,1e16,9223372036854775808,-9223372036854775808,1e300,123456789012345678]";
  check_round(in, 0,
              "[Infinity,-Infinity,NaN,1.0,0.10000000000000001,-0.0,10000000000000000,9.2233720368547758e+18,"
              "-9223372036854775808,1.0000000000000001e+300,123456789012345678]");
  check_round(in, 1,
              "[\n Infinity,\n -Infinity,\n NaN,\n 1.0,\n 0.10000000000000001,\n -0.0,\n 10000000000000000,\n "
              "9.2233720368547758e+18,\n -9223372036854775808,\n 1.0000000000000001e+300,\n 123456789012345678\n]");
  xffi_any v = parse_ok("-0");
  assert_int_equal(v.type_index, XFFI_TYPE_INT);
  assert_int_equal(v.v_int64, 0);
  v = parse_ok("-9223372036854775808");
  assert_int_equal(v.type_index, XFFI_TYPE_INT);
  assert_true(v.v_int64 == INT64_MIN);
  v = parse_ok("1E+2");
  assert_int_equal(v.type_index, XFFI_TYPE_FLOAT);
  assert_true(v.v_float64 == 100.0);
  v = parse_ok("1e-400"); /* underflow reads as 0, as Python's json */
  assert_true(v.type_index == XFFI_TYPE_FLOAT && v.v_float64 == 0.0);
}

/* Integers are ints while they fit int64_t, whatever their digit count
 * (leading digits are summed unchecked up to 19), floats beyond. */
static void test_integer_bounds(void **state) {
  (void)state;
  static const struct {
    const char *text;
    int is_int;
    int64_t value;
    double as_float;
  } cases[] = {
      {"9223372036854775807", 1, INT64_MAX, 0},
      {"-9223372036854775807", 1, -INT64_MAX, 0},
      {"-9223372036854775808", 1, INT64_MIN, 0},
      {"9223372036854775808", 0, 0, 9223372036854775808.0},
      {"-9223372036854775809", 0, 0, -9223372036854775809.0},
      {"1000000000000000000", 1, 1000000000000000000, 0},
      {"9999999999999999999", 0, 0, 9999999999999999999.0},
      {"18446744073709551615", 0, 0, 18446744073709551615.0},
      {"18446744073709551616", 0, 0, 18446744073709551616.0},
      {"123456789012345678901234567890", 0, 0, 123456789012345678901234567890.0},
      {"-0000", 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    if (strcmp(cases[i].text, "-0000") == 0) {
      xffi_any v = xffi_any_none();
      assert_int_equal(xffi_json_parse(&v, cases[i].text, strlen(cases[i].text)), XFFI_FAIL);
      assert_raised(XFFI_KIND_VALUE, "Extra data");
      continue;
    }
    xffi_any v = parse_ok(cases[i].text);
    if (cases[i].is_int) {
      if (v.type_index != XFFI_TYPE_INT || v.v_int64 != cases[i].value) fail_msg("%s: not that int", cases[i].text);
    } else if (v.type_index != XFFI_TYPE_FLOAT || v.v_float64 != cases[i].as_float) {
      fail_msg("%s: not that float", cases[i].text);
    }
  }
}

static void test_strings_escape_as_tvm_ffi_does(void **state) {
  (void)state;
  xffi_any s;
  assert_int_equal(xffi_any_from_str(&s, "a\"\\/\b\f\n\r\t\x01\x7f\xc3\xa9", 13), XFFI_OK);
  check_text(&s, 0, "\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u007f\xc3\xa9\"");
  xffi_any_release(&s);
  /* Escapes read back, a surrogate pair as one 4-byte character. */
  xffi_any v = parse_ok("\"\\ud83d\\ude00\\u00e9\\n\\/x\"");
  xffi_byte_array b;
  assert_int_equal(xffi_any_to_str(&b, &v), XFFI_OK);
  assert_int_equal(b.size, 9);
  assert_memory_equal(b.data, "\xf0\x9f\x98\x80\xc3\xa9\n/x", 9);
  xffi_any_release(&v);
  /* A long string with no escapes, and raw UTF-8. */
  check_round("\"0123456789abcdef\xe2\x82\xac\"", 0, "\"0123456789abcdef\xe2\x82\xac\"");
}

/* ---- Errors: tvm-ffi's messages and positions ---- */

static void test_syntax_errors_say_where(void **state) {
  (void)state;
  PARSE_ERROR("[1,]", "Expecting value: line 1 column 4 (char 3)");
  PARSE_ERROR("{\"a\" 1}", "Expecting ':' delimiter: line 1 column 6 (char 5)");
  PARSE_ERROR("[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)");
  PARSE_ERROR("1 2", "Extra data: line 1 column 3 (char 2)");
  PARSE_ERROR("", "Expecting value: line 1 column 1 (char 0)");
  PARSE_ERROR("\n  [\n x]", "Expecting value: line 3 column 2 (char 6)");
  PARSE_ERROR("\"abc", "Unterminated string starting at: line 1 column 1 (char 0)");
  PARSE_ERROR("\"a\\q\"", "Invalid \\escape: line 1 column 4 (char 3)");
  PARSE_ERROR("\"\x01\"", "Invalid control character at: line 1 column 2 (char 1)");
  PARSE_ERROR("{1:2}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)");
  PARSE_ERROR("{\"a\":1,}", "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)");
  PARSE_ERROR("[-]", "Expecting value: line 1 column 2 (char 1)");
  PARSE_ERROR("Infinityx", "Extra data: line 1 column 9 (char 8)");
  PARSE_ERROR("1e400", "Expecting value: line 1 column 1 (char 0)");
  PARSE_ERROR("[1", "Expecting ',' delimiter: line 1 column 3 (char 2)");
  PARSE_ERROR("{\"a\":", "Expecting value: line 1 column 6 (char 5)");
  PARSE_ERROR("tru", "Expecting value: line 1 column 1 (char 0)");
}

static void test_unicode_is_checked(void **state) {
  (void)state;
  PARSE_ERROR("\"\\ud800\"", "Invalid surrogate pair of \\uXXXX escapes: line 1 column 3 (char 2)");
  PARSE_ERROR("\"\\udc00\"", "Invalid surrogate pair of \\uXXXX escapes: line 1 column 3 (char 2)");
  PARSE_ERROR("\"\\ud800\\u0041\"", "Invalid surrogate pair of \\uXXXX escapes: line 1 column 10 (char 9)");
  PARSE_ERROR("\"\\u12\"", "Invalid \\uXXXX escape: line 1 column 3 (char 2)");
  PARSE_ERROR("\"\\ud800\\uzz00\"", "Invalid \\uXXXX escape: line 1 column 10 (char 9)");
  /* UTF-8: a stray continuation byte, an overlong form, an encoded
   * surrogate, a code point above U+10FFFF, a truncated sequence. */
  PARSE_ERROR("\"a\x80\"", "Invalid UTF-8 byte at: line 1 column 3 (char 2)");
  PARSE_ERROR("\"\xc0\xaf\"", "Invalid UTF-8 byte at: line 1 column 2 (char 1)");
  PARSE_ERROR("\"\xed\xa0\x80\"", "Invalid UTF-8 byte at: line 1 column 2 (char 1)");
  PARSE_ERROR("\"\xf4\x90\x80\x80\"", "Invalid UTF-8 byte at: line 1 column 2 (char 1)");
  PARSE_ERROR("\"\xe2\x82", "Invalid UTF-8 byte at: line 1 column 2 (char 1)");
}

/* RFC 8259's number grammar, strictly (tvm-ffi's reader takes "01" as 1). */
static void test_numbers_follow_the_rfc_grammar(void **state) {
  (void)state;
  const char *bad[] = {"01", "-01", "1.", ".5", "+1", "1e", "1e+", "-", "--1", "1.e5", "0x10", "-NaN", "Inf"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    xffi_any v = xffi_any_none();
    if (xffi_json_parse(&v, bad[i], strlen(bad[i])) != XFFI_FAIL) fail_msg("[%s] was accepted", bad[i]);
    assert_raised(XFFI_KIND_VALUE, "ffi.json.Parse: ");
  }
  /* Text need not be NUL-terminated: only size bytes are read. */
  check_parse_error("12", 0, "Expecting value: line 1 column 1 (char 0)");
  xffi_any v = xffi_any_none();
  assert_int_equal(xffi_json_parse(&v, "12", 1), XFFI_OK);
  assert_int_equal(v.v_int64, 1);
}

/* ---- Depth ---- */

static char *nested_text(size_t depth, int closed) {
  char *text = malloc(2 * depth + 1);
  assert_non_null(text);
  memset(text, '[', depth);
  if (closed) memset(text + depth, ']', depth);
  text[closed ? 2 * depth : depth] = '\0';
  return text;
}

/* Decimals read to the double strtod gives, bit for bit: those a short
 * exact computation decides (few digits, a small power of ten) and those
 * it leaves to strtod (many digits, large exponents, tiny values). */
static void test_decimals_read_as_strtod_does(void **state) {
  (void)state;
  static const char *const texts[] = {"0.25",
                                      "1234.25",
                                      "-0.0",
                                      "0.1",
                                      "0.3",
                                      "-2.5e3",
                                      "1e22",
                                      "1e23",
                                      "9e-22",
                                      "3.14159e-23",
                                      "123456789012345.6",
                                      "1234567890.12345",
                                      "999999999999999.9",
                                      "9007199254740993.0",
                                      "0.000001",
                                      "1.7976931348623157e308",
                                      "5e-324",
                                      "2.2250738585072014e-308",
                                      "1E+2",
                                      "7.0e-1",
                                      "0.1e1",
                                      "4.35",
                                      "17.0000000000001"};
  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); ++i) {
    xffi_any v = parse_ok(texts[i]);
    assert_int_equal(v.type_index, XFFI_TYPE_FLOAT);
    double expected = strtod(texts[i], NULL);
    if (memcmp(&v.v_float64, &expected, sizeof(double)) != 0)
      fail_msg("%s read as %.17g, strtod gives %.17g", texts[i], v.v_float64, expected);
  }
}

static void test_million_deep_nesting_uses_no_c_recursion(void **state) {
  (void)state;
  const size_t depth = 1000000;
  char *text = nested_text(depth, 1);
  xffi_any v = xffi_any_none();
  assert_int_equal(xffi_json_parse(&v, text, 2 * depth), XFFI_OK);
  xffi_object *out = NULL;
  assert_int_equal(xffi_json_stringify(&out, &v, 0), XFFI_OK);
  xffi_byte_array s;
  xffi_any view = xffi_any_object(out);
  assert_int_equal(xffi_any_to_str(&s, &view), XFFI_OK);
  assert_int_equal(s.size, 2 * depth);
  assert_memory_equal(s.data, text, s.size);
  xffi_object_dec_ref(out);
  xffi_any_release(&v);
  /* Truncated: an error, and the open containers are released (ASan checks). */
  assert_int_equal(xffi_json_parse(&v, text, depth + 10), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "Expecting ',' delimiter: line 1 column 1000011 (char 1000010)");
  free(text);
  text = nested_text(depth, 0);
  assert_int_equal(xffi_json_parse(&v, text, depth), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "Expecting value: line 1 column 1000001 (char 1000000)");
  free(text);
  /* Past the walks' bound, 2^20: a clear error, whether closed or not. */
  const size_t too_deep = ((size_t)1 << 20) + 1;
  text = nested_text(too_deep, 1);
  assert_int_equal(xffi_json_parse(&v, text, 2 * too_deep), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "ffi.json.Parse: maximum stack depth (1048576) exceeded");
  free(text);
}

/* ---- Writing what JSON cannot hold ---- */

static void test_unwritable_values_are_errors(void **state) {
  (void)state;
  xffi_object *out = NULL;
  xffi_any bytes;
  assert_int_equal(xffi_any_from_bytes(&bytes, "x", 1), XFFI_OK);
  assert_int_equal(xffi_json_stringify(&out, &bytes, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "ffi.json.Stringify: Unsupported type: `");
  /* Nested in an array: the partial text is dropped. */
  xffi_object *array;
  assert_int_equal(xffi_array_new(&array, &bytes, 1), XFFI_OK);
  xffi_any array_view = xffi_any_object(array);
  assert_int_equal(xffi_json_stringify(&out, &array_view, 2), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "Unsupported type");
  xffi_object_dec_ref(array);
  xffi_any_release(&bytes);

  xffi_any key = xffi_any_int(1), value = xffi_any_int(2);
  xffi_object *map;
  assert_int_equal(xffi_map_new(&map, &key, &value, 1), XFFI_OK);
  xffi_any map_view = xffi_any_object(map);
  assert_int_equal(xffi_json_stringify(&out, &map_view, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "ffi.json.Stringify: Expect key to be string, got `int`");
  xffi_object_dec_ref(map);

  /* A List inside itself; the same List twice side by side is fine. */
  xffi_object *list, *outer;
  assert_int_equal(xffi_list_new(&list, NULL, 0), XFFI_OK);
  xffi_any list_view = xffi_any_object(list);
  xffi_any pair[2] = {list_view, list_view};
  assert_int_equal(xffi_array_new(&outer, pair, 2), XFFI_OK);
  xffi_any outer_view = xffi_any_object(outer);
  check_text(&outer_view, 0, "[[],[]]");
  assert_int_equal(xffi_list_push(list, &list_view), XFFI_OK);
  assert_int_equal(xffi_json_stringify(&out, &list_view, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "ffi.json.Stringify: Cycle detected: List contains itself");
  assert_int_equal(xffi_list_clear(list), XFFI_OK); /* break the cycle */
  xffi_object_dec_ref(outer);
  xffi_object_dec_ref(list);

  xffi_any none = xffi_any_none();
  assert_int_equal(xffi_json_stringify(&out, &none, -1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_json_stringify: indent must be >= 0, got -1");
  assert_int_equal(xffi_json_stringify(NULL, &none, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_json_stringify: out is NULL");
  assert_int_equal(xffi_json_parse(NULL, "1", 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_json_parse: out is NULL");
  xffi_any v;
  assert_int_equal(xffi_json_parse(&v, NULL, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_json_parse: text is NULL");
}

/* ---- The globals ---- */

static void test_json_globals(void **state) {
  (void)state;
  xffi_any text = xffi_any_c_str("[1, {\"k\": \"v\"}]");
  xffi_any parsed = call_builtin_ok("ffi.json.Parse", &text, 1);
  assert_int_equal(parsed.type_index, XFFI_TYPE_ARRAY);
  xffi_any args[2] = {parsed, xffi_any_none()};
  xffi_any s = call_builtin_ok("ffi.json.Stringify", args, 2);
  xffi_byte_array b;
  assert_int_equal(xffi_any_to_str(&b, &s), XFFI_OK);
  assert_int_equal(b.size, strlen("[1,{\"k\":\"v\"}]"));
  assert_memory_equal(b.data, "[1,{\"k\":\"v\"}]", b.size);
  xffi_any_release(&s);
  args[1] = xffi_any_int(1);
  s = call_builtin_ok("ffi.json.Stringify", args, 2);
  assert_int_equal(xffi_any_to_str(&b, &s), XFFI_OK);
  assert_memory_equal(b.data, "[\n 1,\n {\n  \"k\": \"v\"\n }\n]", b.size);
  xffi_any_release(&s);
  args[1] = xffi_any_int(-2);
  xffi_any result = xffi_any_none();
  assert_int_equal(call_builtin("ffi.json.Stringify", args, 2, &result), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "ffi.json.Stringify: argument 1 (indent): expected 0 to 1024, got -2");
  xffi_any_release(&parsed);
  xffi_any number = xffi_any_int(3);
  assert_int_equal(call_builtin("ffi.json.Parse", &number, 1, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "ffi.json.Parse");
  xffi_any bad = xffi_any_c_str("[");
  assert_int_equal(call_builtin("ffi.json.Parse", &bad, 1, &result), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "ffi.json.Parse: Expecting value: line 1 column 2 (char 1)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values_map_as_tvm_ffi_does),
      cmocka_unit_test(test_numbers_as_tvm_ffi_writes_them),
      cmocka_unit_test(test_integer_bounds),
      cmocka_unit_test(test_strings_escape_as_tvm_ffi_does),
      cmocka_unit_test(test_syntax_errors_say_where),
      cmocka_unit_test(test_unicode_is_checked),
      cmocka_unit_test(test_numbers_follow_the_rfc_grammar),
      cmocka_unit_test(test_decimals_read_as_strtod_does),
      cmocka_unit_test(test_million_deep_nesting_uses_no_c_recursion),
      cmocka_unit_test(test_unwritable_values_are_errors),
      cmocka_unit_test(test_json_globals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
