/* Fuzz target: the JSON reader and writer (c/json_parse.c, c/json_write.c)
 * on arbitrary bytes. Checks: the reader either gives a value or raises a
 * ValueError from ffi.json.Parse (never crashes, leaks or recurses); what it
 * reads always writes, compact and indented, and the written text reads
 * back to a value that writes the same text again (a fixed point). The
 * input's bytes as a String either write and read back to the same bytes,
 * or are refused as not UTF-8 (the writer writes nothing the reader
 * refuses). */
#include "fuzz_common.h"

/* The text of value (borrowed) with indent: a new String, which must exist. */
static xffi_object *write_ok(const xffi_any *value, int indent) {
  xffi_object *text = NULL;
  FUZZ_CHECK(xffi_json_stringify(&text, value, indent) == XFFI_OK);
  return text;
}

/* Reads text back and checks it writes the same with indent. */
static void check_fixed_point(xffi_object *text, int indent) {
  xffi_byte_array s = xffi_string_cell_of_unchecked(text);
  xffi_any again = xffi_any_none();
  FUZZ_CHECK(xffi_json_parse(&again, s.data, s.size) == XFFI_OK);
  xffi_object *text2 = write_ok(&again, indent);
  xffi_byte_array s2 = xffi_string_cell_of_unchecked(text2);
  FUZZ_CHECK(s.size == s2.size && memcmp(s.data, s2.data, s.size) == 0);
  xffi_object_dec_ref(text2);
  xffi_any_release(&again);
}

/* The bytes as a String: written and read back whole, or refused. */
static void check_string_round_trip(const uint8_t *data, size_t size) {
  xffi_any s = xffi_any_none(), back = xffi_any_none();
  FUZZ_CHECK(xffi_any_from_str(&s, (const char *)data, size) == XFFI_OK);
  xffi_object *text = NULL;
  if (xffi_json_stringify(&text, &s, 0) != XFFI_OK) {
    fuzz_expect_raised(XFFI_KIND_VALUE, "ffi.json.Stringify"); /* not UTF-8 */
    xffi_any_release(&s);
    return;
  }
  xffi_byte_array written = xffi_string_cell_of_unchecked(text), read;
  FUZZ_CHECK(xffi_json_parse(&back, written.data, written.size) == XFFI_OK);
  FUZZ_CHECK(xffi_any_to_str(&read, &back) == XFFI_OK);
  FUZZ_CHECK(read.size == size && (size == 0 || memcmp(read.data, data, size) == 0));
  xffi_any_release(&back);
  xffi_object_dec_ref(text);
  xffi_any_release(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  check_string_round_trip(data, size);
  xffi_any value = xffi_any_none();
  if (xffi_json_parse(&value, (const char *)data, size) != XFFI_OK) {
    fuzz_expect_raised(XFFI_KIND_VALUE, "ffi.json.Parse");
    return 0;
  }
  xffi_object *compact = write_ok(&value, 0);
  check_fixed_point(compact, 0);
  xffi_object *indented = write_ok(&value, 2);
  check_fixed_point(indented, 2);
  xffi_object_dec_ref(indented);
  xffi_object_dec_ref(compact);
  xffi_any_release(&value);
  return 0;
}
