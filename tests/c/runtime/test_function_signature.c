/* A built-in's compact signature expands to the metadata JSON tvm-ffi's
 * registry gives (c/runtime/function_signature.h): plain, nested and empty
 * parameter lists, the variadic "*"; a malformed signature or a buffer too
 * small gives -1. (tests/dropin/test_global_metadata.py compares every
 * built-in's text with the wheel's.) */
#include <string.h>

#include "test_util.h"
#include "runtime/function_signature.h"

static void assert_expands(const char *signature, const char *expected) {
  char out[512];
  long len = xffi_signature_metadata(out, sizeof out, signature);
  assert_string_equal(out, expected);
  assert_int_equal(len, (long)strlen(expected));
}

static void test_signatures_expand_to_type_schemas(void **state) {
  (void)state;
  assert_expands("int(ffi.Array)",
                 "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":{\\\"return\\\":"
                 "[{\\\"type\\\":\\\"int\\\"}],\\\"params\\\":[{\\\"type\\\":\\\"ffi.Array\\\"}]}}\"}");
  assert_expands("ffi.Object()",
                 "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":{\\\"return\\\":"
                 "[{\\\"type\\\":\\\"ffi.Object\\\"}],\\\"params\\\":[]}}\"}");
  assert_expands("Optional<Tuple<A,B>>(ffi.List<Any>,int)",
                 "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":{\\\"return\\\":"
                 "[{\\\"type\\\":\\\"Optional\\\",\\\"args\\\":[{\\\"type\\\":\\\"Tuple\\\",\\\"args\\\":"
                 "[{\\\"type\\\":\\\"A\\\"},{\\\"type\\\":\\\"B\\\"}]}]}],\\\"params\\\":[{\\\"type\\\":"
                 "\\\"ffi.List\\\",\\\"args\\\":[{\\\"type\\\":\\\"Any\\\"}]},{\\\"type\\\":\\\"int\\\"}]}}\"}");
  assert_expands("*", "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\"}\"}");
}

static void test_malformed_or_too_long_gives_minus_one(void **state) {
  (void)state;
  char out[512];
  const char *malformed[] = {"",        "int",      "int(",     "int(a",    "int(a,)", "(a)",
                             "int(a))", "int(a<b)", "int(a<>)", "int(a) x", "**"};
  for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; ++i) {
    assert_int_equal(xffi_signature_metadata(out, sizeof out, malformed[i]), -1);
  }
  char small[40];
  assert_int_equal(xffi_signature_metadata(small, sizeof small, "int(ffi.Array)"), -1);
  assert_int_equal(xffi_signature_metadata(small, 0, "*"), -1);
  /* Exactly enough room: the text and its NUL. */
  char exact[sizeof "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\"}\"}"];
  assert_int_equal(xffi_signature_metadata(exact, sizeof exact, "*"), (long)sizeof exact - 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_signatures_expand_to_type_schemas),
      cmocka_unit_test(test_malformed_or_too_long_gives_minus_one),
  };
  return cmocka_run_group_tests_name("function_signature", tests, NULL, NULL);
}
