/* tvm-ffi's C++ headers on xffi's type registry: types declared in C++ with
 * tvm-ffi's macros (cxx_types.cc) take their indices from xffi as tvm-ffi
 * would place them, types xffi registers are seen by C++ IsInstance, and no
 * tvm-ffi library is linked. */
#include "test_util.h"

#include <xffi/tvm_ffi.h>

void cxx_types_indices(int32_t out[4]);
int cxx_types_is_instance(int32_t index);

enum { BASE = 1, MID = 2, SIBLING = 4, OBJECT = 8, STRING = 16 };

static void test_cxx_types_are_placed_in_child_slots_then_overflow(void **state) {
  (void)state;
  int32_t idx[4];
  cxx_types_indices(idx);
  int32_t base = idx[0], mid = idx[1], leaf = idx[2], sibling = idx[3];
  assert_true(base >= XFFI_TYPE_DYNAMIC_BEGIN);
  assert_int_equal(mid, base + 1); /* inside Base's 2 reserved slots */
  assert_int_equal(leaf, mid + 1); /* inside Mid's 1 reserved slot */
  assert_true(sibling > leaf);     /* Base's range is full: overflow */
  const xffi_type_info *info = TVMFFIGetTypeInfo(leaf);
  assert_int_equal(info->type_depth, 3);
  assert_string_equal(info->type_ancestors[1]->type_key.data, "test.cxx.Base");
  assert_string_equal(info->type_ancestors[2]->type_key.data, "test.cxx.Mid");
  assert_int_equal(cxx_types_is_instance(leaf), BASE | MID | OBJECT);
  assert_int_equal(cxx_types_is_instance(mid), BASE | MID | OBJECT);
  /* Sibling sits outside Base's range: IsInstance<Base> walks the ancestor records. */
  assert_int_equal(cxx_types_is_instance(sibling), BASE | SIBLING | OBJECT);
  assert_int_equal(cxx_types_is_instance(XFFI_TYPE_STRING), OBJECT | STRING);
}

static void test_types_made_by_xffi_are_seen_by_cxx(void **state) {
  (void)state;
  int32_t idx[4];
  cxx_types_indices(idx);
  /* A C type under the C++ Sibling (overflow, so the ancestor walk again),
   * registered both ways. */
  int32_t under_sibling = -1;
  assert_int_equal(xffi_type_register(&under_sibling, "test.cxx.FromC", idx[3]), XFFI_OK);
  assert_int_equal(cxx_types_is_instance(under_sibling), BASE | SIBLING | OBJECT);
  xffi_byte_array key = {"test.cxx.FromTvmEntry", 21};
  int32_t plain = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, XFFI_TYPE_OBJECT);
  assert_int_equal(cxx_types_is_instance(plain), OBJECT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cxx_types_are_placed_in_child_slots_then_overflow),
      cmocka_unit_test(test_types_made_by_xffi_are_seen_by_cxx),
  };
  return cmocka_run_group_tests_name("tvm_type_cxx", tests, NULL, NULL);
}
