/* ffi.BigInt (type 78): built from 64-bit words, normalised (a value that
 * fits is an int), tvm-ffi's layout (words right after a size_t count),
 * content read back, bad input raising. */
#include "failing_allocator.h"

#include <stdint.h>

#include "test_util.h"

#include <xffi/tvm_ffi.h>

static xffi_any from_words(const int64_t *words, size_t n) {
  xffi_byte_array in = {(const char *)words, n * sizeof(int64_t)};
  xffi_any out;
  assert_int_equal(TVMFFIBigIntFromByteArray(&in, &out), 0);
  return out;
}

static void test_small_values_are_ints(void **state) {
  (void)state;
  xffi_any v = from_words(NULL, 0);
  assert_int_equal(v.type_index, XFFI_TYPE_INT);
  assert_int_equal(v.v_int64, 0);
  int64_t one[] = {-5};
  v = from_words(one, 1);
  assert_int_equal(v.type_index, XFFI_TYPE_INT);
  assert_int_equal(v.v_int64, -5);
  /* Redundant sign words go: {-5, -1, -1} and {7, 0} fit 64 bits. */
  int64_t neg[] = {-5, -1, -1}, pos[] = {7, 0};
  v = from_words(neg, 3);
  assert_int_equal(v.type_index, XFFI_TYPE_INT);
  assert_int_equal(v.v_int64, -5);
  v = from_words(pos, 2);
  assert_int_equal(v.type_index, XFFI_TYPE_INT);
  assert_int_equal(v.v_int64, 7);
  xffi_byte_array content = TVMFFIBigIntGetContentByteArray(&v);
  assert_int_equal(content.size, 8);
  assert_ptr_equal(content.data, (const char *)&v.v_int64); /* borrowed from the value */
}

static void test_wide_values_are_bigint_objects(void **state) {
  (void)state;
  /* 2^64: {0, 1}; needs two words. {0, 1, 0, 0} normalises to it. */
  int64_t words[] = {0, 1, 0, 0};
  xffi_any v = from_words(words, 4);
  assert_int_equal(v.type_index, XFFI_TYPE_BIGINT);
  assert_int_equal(v.v_obj->type_index, XFFI_TYPE_BIGINT);
  assert_int_equal(xffi_object_strong_count(v.v_obj), 1);
  /* tvm-ffi's layout: size_t count after the header, then the words (on
   * 64-bit targets right after it; 32-bit ones align them to 8). */
  assert_int_equal(*XFFI_OBJECT_CELL(size_t, v.v_obj), 2);
  xffi_byte_array content = TVMFFIBigIntGetContentByteArray(&v);
  assert_int_equal(content.size, 16);
  const int64_t *inline_words = (const int64_t *)(const void *)content.data;
  assert_true(content.data >= (const char *)(XFFI_OBJECT_CELL(size_t, v.v_obj) + 1));
#if UINTPTR_MAX > 0xFFFFFFFFu
  assert_ptr_equal(content.data, (const char *)(XFFI_OBJECT_CELL(size_t, v.v_obj) + 1));
#endif
  assert_int_equal(inline_words[0], 0);
  assert_int_equal(inline_words[1], 1);
  /* A positive value whose top word has the sign bit set keeps a 0 word. */
  int64_t big_positive[] = {0, INT64_MIN, 0};
  xffi_any w = from_words(big_positive, 3);
  assert_int_equal(TVMFFIBigIntGetContentByteArray(&w).size, 24);
  /* -2^64: {0, -1} stays two words ({0} alone would be zero). */
  int64_t minus[] = {0, -1, -1};
  xffi_any m = from_words(minus, 3);
  assert_int_equal(m.type_index, XFFI_TYPE_BIGINT);
  assert_int_equal(TVMFFIBigIntGetContentByteArray(&m).size, 16);
  xffi_any_release(&v);
  xffi_any_release(&w);
  xffi_any_release(&m);
}

static void test_unaligned_input(void **state) {
  (void)state;
  char buffer[25];
  int64_t words[] = {3, 4, 5};
  memcpy(buffer + 1, words, 24);
  xffi_byte_array in = {buffer + 1, 24};
  xffi_any v;
  assert_int_equal(TVMFFIBigIntFromByteArray(&in, &v), 0);
  xffi_byte_array content = TVMFFIBigIntGetContentByteArray(&v);
  assert_memory_equal(content.data, words, 24);
  xffi_any_release(&v);
}

static void test_bad_input(void **state) {
  (void)state;
  xffi_any out;
  char bytes[12] = {0};
  xffi_byte_array odd = {bytes, 12}, broken = {NULL, 8};
  assert_int_equal(TVMFFIBigIntFromByteArray(&odd, &out), -1);
  expect_error(XFFI_KIND_VALUE,
               "TVMFFIBigIntFromByteArray: BigInt content must contain whole 64-bit words, got 12 bytes");
  assert_int_equal(TVMFFIBigIntFromByteArray(&broken, &out), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIBigIntFromByteArray: input->data is NULL but input->size is 8");
  assert_int_equal(TVMFFIBigIntFromByteArray(NULL, &out), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIBigIntFromByteArray: input is NULL");
  assert_int_equal(TVMFFIBigIntFromByteArray(&odd, NULL), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIBigIntFromByteArray: out is NULL");
  xffi_byte_array content = TVMFFIBigIntGetContentByteArray(NULL);
  assert_null(content.data);
  assert_int_equal(content.size, 0);
  expect_error(XFFI_KIND_VALUE, "TVMFFIBigIntGetContentByteArray: value is NULL");
  xffi_any f = xffi_any_float(1.0);
  content = TVMFFIBigIntGetContentByteArray(&f);
  assert_null(content.data);
  assert_raised(XFFI_KIND_TYPE, "TVMFFIBigIntGetContentByteArray: expected int or ffi.BigInt, got float");
  xffi_any hollow = {0};
  hollow.type_index = XFFI_TYPE_BIGINT; /* NULL object */
  content = TVMFFIBigIntGetContentByteArray(&hollow);
  assert_null(content.data);
  assert_raised(XFFI_KIND_TYPE, "expected int or ffi.BigInt");
}

static void test_out_of_memory(void **state) {
  (void)state;
  int64_t words[] = {1, 2, 3};
  xffi_byte_array in = {(const char *)words, sizeof(words)};
  xffi_any out;
  uint64_t live = failing_successes - failing_frees;
  failing_allocator_fail_after(0);
  assert_int_equal(TVMFFIBigIntFromByteArray(&in, &out), -1);
  failing_allocator_fail_after(-1);
  assert_raised(XFFI_KIND_MEMORY, "out of memory");
  assert_int_equal(out.type_index, XFFI_TYPE_INT);
  assert_int_equal(failing_successes - failing_frees, live);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_values_are_ints), cmocka_unit_test(test_wide_values_are_bigint_objects),
      cmocka_unit_test(test_unaligned_input),       cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_out_of_memory),
  };
  return cmocka_run_group_tests_name("bigint", tests, NULL, NULL);
}
