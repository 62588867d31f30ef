/* What the JSON writers (c/json_write.c, c/serialization_write_text.c)
 * refuse to write: a String that is not UTF-8, which the reader would refuse
 * (a ValueError naming the byte; everything written reads back), and a text
 * past XFFI_JSON_MAX_TEXT_BYTES (a MemoryError before the memory is used),
 * which a deeply indented or widely shared value reaches from a small input. */
#include <stdlib.h>

#include <xffi/xffi.h>

#include "lib/text/json_write.h"
#include "test_util.h"
#include "test_values.h"

static xffi_any string_of(const char *data, size_t size) {
  xffi_any v;
  assert_int_equal(xffi_any_from_str(&v, data, size), XFFI_OK);
  return v;
}

static void test_strings_that_are_not_utf8_are_refused(void **state) {
  (void)state;
  static const struct {
    const char *bytes;
    size_t size;
    const char *message;
  } bad[] = {
      {"a\xff"
       "b",
       3, "ffi.json.Stringify: a string is not valid UTF-8 at byte 1 of 3 (0xff); JSON text must be UTF-8"},
      {"\xc3\x28", 2, "ffi.json.Stringify: a string is not valid UTF-8 at byte 0 of 2 (0xc3); JSON text must be UTF-8"},
      {"ok\xe2\x82", 4,
       "ffi.json.Stringify: a string is not valid UTF-8 at byte 2 of 4 (0xe2); JSON text must be UTF-8"},
      {"\xed\xa0\x80", 3,
       "ffi.json.Stringify: a string is not valid UTF-8 at byte 0 of 3 (0xed); JSON text must be UTF-8"},
      {"\xf4\x90\x80\x80", 4,
       "ffi.json.Stringify: a string is not valid UTF-8 at byte 0 of 4 (0xf4); JSON text must be UTF-8"},
      {"\xc0\xaf", 2, "ffi.json.Stringify: a string is not valid UTF-8 at byte 0 of 2 (0xc0); JSON text must be UTF-8"},
      {"0123456789abcdefghij\x80", 21,
       "ffi.json.Stringify: a string is not valid UTF-8 at byte 20 of 21 (0x80); JSON text must be UTF-8"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    xffi_any s = string_of(bad[i].bytes, bad[i].size), one = xffi_any_int(1);
    xffi_object *out = NULL;
    assert_int_equal(xffi_json_stringify(&out, &s, 0), XFFI_FAIL);
    expect_error(XFFI_KIND_VALUE, bad[i].message);
    assert_null(out);
    /* In an Array, as a Map key, and in a graph's text: the same refusal. */
    xffi_any array = array_of(&s, 1), map = map_of(&s, &one, 1);
    assert_int_equal(xffi_json_stringify(&out, &array, 2), XFFI_FAIL);
    expect_error(XFFI_KIND_VALUE, bad[i].message);
    assert_int_equal(xffi_json_stringify(&out, &map, 0), XFFI_FAIL);
    expect_error(XFFI_KIND_VALUE, bad[i].message);
    assert_int_equal(xffi_to_json_text(&out, &array, NULL), XFFI_FAIL);
    expect_error(XFFI_KIND_VALUE, bad[i].message);
    xffi_any all[] = {s, array, map};
    release(all, 3);
  }
}

static void test_what_is_written_reads_back(void **state) {
  (void)state;
  /* Every 1- to 4-byte UTF-8 form, escapes, and DEL. */
  const char text[] = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf\"\\/\n\x01\x7f";
  xffi_any s = string_of(text, sizeof(text) - 1), back = xffi_any_none();
  xffi_object *out = NULL;
  assert_int_equal(xffi_json_stringify(&out, &s, 0), XFFI_OK);
  xffi_byte_array written = xffi_string_cell_of_unchecked(out);
  assert_int_equal(xffi_json_parse(&back, written.data, written.size), XFFI_OK);
  xffi_byte_array read;
  assert_int_equal(xffi_any_to_str(&read, &back), XFFI_OK);
  assert_int_equal(read.size, sizeof(text) - 1);
  assert_memory_equal(read.data, text, read.size);
  xffi_object_dec_ref(out);
  xffi_any all[] = {s, back};
  release(all, 2);
}

/* An Array of one Array of ... depth levels, innermost empty. */
static xffi_any nested_arrays(int64_t depth) {
  xffi_any v = array_of(NULL, 0);
  for (int64_t i = 1; i < depth; ++i) {
    xffi_any outer = array_of(&v, 1);
    xffi_any_release(&v);
    v = outer;
  }
  return v;
}

/* levels Arrays, each holding the one below twice: 2^levels paths. */
static xffi_any doubling_dag(int levels) {
  xffi_any v = array_of(NULL, 0);
  for (int i = 0; i < levels; ++i) {
    xffi_any pair[2] = {v, v}, outer = array_of(pair, 2);
    xffi_any_release(&v);
    v = outer;
  }
  return v;
}

/* Writes value with indent into a text bounded by limit: the writer's error. */
static void write_bounded(const xffi_any *value, int indent, size_t limit) {
  repr_text t;
  memset(&t, 0, sizeof(t));
  t.limit = limit;
  assert_int_equal(xffi_json_write(&t, value, indent), XFFI_FAIL);
  assert_true(t.size <= limit);
  assert_true(t.capacity <= limit);
  xffi_repr_text_free(&t);
  char message[160];
  snprintf(message, sizeof(message),
           "ffi.json.Stringify: the JSON text would be longer than %zu bytes, the writer's bound", limit);
  expect_error(XFFI_KIND_MEMORY, message);
}

static void test_the_writer_stops_at_its_bound(void **state) {
  (void)state;
  /* 10^6 levels indented by 2 would be about 10^12 bytes. */
  xffi_any deep = nested_arrays(1000000), dag = doubling_dag(64);
  write_bounded(&deep, 2, (size_t)1 << 20);
  /* 2^64 copies of the innermost Array, compact or not. */
  write_bounded(&dag, 0, (size_t)1 << 20);
  write_bounded(&dag, 4, 4096);
  /* Compact, the deep one is 2 * 10^6 bytes: within a bound that allows it. */
  repr_text t;
  memset(&t, 0, sizeof(t));
  t.limit = 2000000;
  assert_int_equal(xffi_json_write(&t, &deep, 0), XFFI_OK);
  assert_int_equal(t.size, 2000000);
  xffi_repr_text_free(&t);
  /* The public writers use the same text with XFFI_JSON_MAX_TEXT_BYTES as
   * its limit; reaching it here would write 2^30 bytes first, too slow for
   * the emulated and 32-bit targets this suite also runs on. */
  xffi_any all[] = {deep, dag};
  release(all, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_strings_that_are_not_utf8_are_refused),
      cmocka_unit_test(test_what_is_written_reads_back),
      cmocka_unit_test(test_the_writer_stops_at_its_bound),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
