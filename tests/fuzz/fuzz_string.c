/* Fuzz target: String and Bytes creation from arbitrary bytes (embedded
 * NULs, any length), the owned string values of Any, comparison and hashing.
 * Checks: the bytes are kept exactly and NUL-terminated, inline small values
 * up to 7 bytes, compare agrees with a memcmp model, equal runs hash equal. */
#include "fuzz_common.h"

static int sign(int x) { return (x > 0) - (x < 0); }

static int model_compare(const char *a, size_t an, const char *b, size_t bn) {
  size_t n = an < bn ? an : bn;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return sign(c);
  return an < bn ? -1 : an > bn ? 1 : 0;
}

static void check_object(xffi_object *obj, int32_t type_index, const char *data, size_t size) {
  FUZZ_CHECK(obj != NULL && obj->type_index == type_index && xffi_object_strong_count(obj) == 1);
  xffi_byte_array got = {NULL, 0};
  FUZZ_CHECK(xffi_string_cell_of(&got, obj) == XFFI_OK);
  FUZZ_CHECK(got.size == size && (size == 0 || memcmp(got.data, data, size) == 0) && got.data[size] == '\0');
  xffi_byte_array view = xffi_string_cell_of_unchecked(obj);
  FUZZ_CHECK(view.data == got.data && view.size == got.size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  /* The first byte splits the rest into two runs a and b. */
  size_t split = size > 1 ? data[0] % size : 0;
  const char *a = (const char *)data + 1, *b = (const char *)data + 1 + split;
  size_t an = split, bn = size - 1 - split;

  xffi_object *s = NULL, *y = NULL;
  FUZZ_CHECK(xffi_string_new(&s, a, an) == XFFI_OK);
  check_object(s, XFFI_TYPE_STRING, a, an);
  FUZZ_CHECK(xffi_bytes_new(&y, a, an) == XFFI_OK);
  check_object(y, XFFI_TYPE_BYTES, a, an);

  /* From a C string: up to the first NUL. */
  char *c_str = malloc(an + 1);
  FUZZ_CHECK(c_str != NULL);
  memcpy(c_str, a, an);
  c_str[an] = '\0';
  xffi_object *c = NULL;
  FUZZ_CHECK(xffi_string_from_c_str(&c, c_str) == XFFI_OK);
  check_object(c, XFFI_TYPE_STRING, c_str, strlen(c_str));

  /* Owned Any values: inline up to 7 bytes, objects beyond. */
  xffi_any vs = xffi_any_none(), vy = xffi_any_none();
  FUZZ_CHECK(xffi_any_from_str(&vs, a, an) == XFFI_OK);
  FUZZ_CHECK(xffi_any_from_bytes(&vy, a, an) == XFFI_OK);
  FUZZ_CHECK(vs.type_index == (an <= XFFI_SMALL_STR_MAX ? XFFI_TYPE_SMALL_STR : XFFI_TYPE_STRING));
  FUZZ_CHECK(vy.type_index == (an <= XFFI_SMALL_STR_MAX ? XFFI_TYPE_SMALL_BYTES : XFFI_TYPE_BYTES));
  xffi_byte_array t;
  FUZZ_CHECK(xffi_any_to_str(&t, &vs) == XFFI_OK && t.size == an && (an == 0 || memcmp(t.data, a, an) == 0));
  FUZZ_CHECK(t.data[an] == '\0');
  FUZZ_CHECK(xffi_any_to_bytes(&t, &vy) == XFFI_OK && t.size == an && (an == 0 || memcmp(t.data, a, an) == 0));
  FUZZ_CHECK(xffi_any_to_str(&t, &vy) == XFFI_FAIL); /* bytes are not a str */
  fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_any_to_str");
  xffi_any_release(&vs);
  xffi_any_release(&vy);

  /* Compare and hash. */
  xffi_byte_array ra = {a, an}, rb = {b, bn};
  FUZZ_CHECK(sign(xffi_bytes_compare(ra, rb)) == model_compare(a, an, b, bn));
  FUZZ_CHECK(sign(xffi_bytes_compare(rb, ra)) == -model_compare(a, an, b, bn));
  FUZZ_CHECK(xffi_bytes_compare(ra, ra) == 0);
  FUZZ_CHECK(xffi_bytes_equal(ra, rb) == (an == bn && (an == 0 || memcmp(a, b, an) == 0)));
  char *copy = malloc(an ? an : 1);
  FUZZ_CHECK(copy != NULL);
  if (an) memcpy(copy, a, an);
  FUZZ_CHECK(xffi_bytes_hash(copy, an) == xffi_bytes_hash(a, an)); /* by content, not address */
  free(copy);

  /* Refused inputs: NULL data with a size, NULL out. */
  xffi_object *bad = (xffi_object *)0x1;
  if (bn) {
    FUZZ_CHECK(xffi_string_new(&bad, NULL, bn) == XFFI_FAIL);
    fuzz_expect_raised(XFFI_KIND_VALUE, "xffi_string_new");
    FUZZ_CHECK(xffi_bytes_new(&bad, NULL, bn) == XFFI_FAIL);
    fuzz_expect_raised(XFFI_KIND_VALUE, "xffi_bytes_new");
    FUZZ_CHECK(xffi_any_from_str(&vs, NULL, bn) == XFFI_FAIL);
    fuzz_expect_raised(XFFI_KIND_VALUE, "xffi_any_from_str");
  }
  FUZZ_CHECK(xffi_string_new(NULL, a, an) == XFFI_FAIL);
  fuzz_expect_raised(XFFI_KIND_VALUE, "xffi_string_new");

  xffi_object_dec_ref(s);
  xffi_object_dec_ref(y);
  xffi_object_dec_ref(c);
  free(c_str);
  FUZZ_NOTHING_RAISED();
  return 0;
}
