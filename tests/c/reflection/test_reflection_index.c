/* The per-type index of field names (c/reflection_index.c) behind
 * xffi_type_find_field and get/set by name: every field of a wide type
 * found across the index's rebuilds, names that differ only late or in
 * length, the nearest ancestor's field winning, and a refused batch leaving
 * the index as it was. */
#include "test_util.h"

#include <xffi/reflection.h>

#include "lib/reflection/reflection_layout.h"

enum { WIDE = 200 };

static xffi_field_info int_field(const char *name, int64_t offset) {
  xffi_field_info f;
  memset(&f, 0, sizeof(f));
  f.name.data = name;
  f.name.size = strlen(name);
  f.size = f.alignment = 8;
  f.offset = offset;
  f.field_static_type_index = XFFI_TYPE_INT;
  assert_int_equal(xffi_field_getter_for_type(&f.getter, XFFI_TYPE_INT), XFFI_OK);
  f.default_value_or_factory = xffi_any_none();
  return f;
}

static char names[WIDE][24];

static void test_every_field_of_a_wide_type_is_found(void **state) {
  (void)state;
  int32_t t = -1;
  assert_int_equal(xffi_type_register(&t, "test.index.Wide", XFFI_TYPE_OBJECT), XFFI_OK);
  /* Batches of growing size: the index is rebuilt after each. */
  int32_t registered = 0;
  for (int32_t batch = 1; registered < WIDE; ++batch) {
    xffi_field_info fields[32];
    int32_t n = batch < 32 ? batch : 32;
    if (n > WIDE - registered) n = WIDE - registered;
    for (int32_t k = 0; k < n; ++k) {
      /* Same prefix, same length: only the end tells them apart. */
      snprintf(names[registered + k], sizeof(names[0]), "field_%05d", (int)(registered + k));
      fields[k] = int_field(names[registered + k], 24 + 8 * (int64_t)(registered + k));
    }
    assert_int_equal(xffi_type_register_fields_in("test", t, fields, n, XFFI_FIELD_RULES_STRICT), XFFI_OK);
    registered += n;
    for (int32_t i = 0; i < registered; ++i) {
      const xffi_field_info *found = NULL;
      assert_int_equal(xffi_type_find_field(&found, t, names[i]), XFFI_OK);
      assert_non_null(found);
      assert_int_equal(found->offset, 24 + 8 * (int64_t)i);
    }
  }
  const xffi_field_info *found = (const xffi_field_info *)1;
  assert_int_equal(xffi_type_find_field(&found, t, "field_99999"), XFFI_OK);
  assert_null(found);
  assert_int_equal(xffi_type_find_field(&found, t, "field_0000"), XFFI_OK); /* a prefix of real names */
  assert_null(found);
  assert_int_equal(xffi_type_find_field(&found, t, "field_000000"), XFFI_OK); /* one byte longer */
  assert_null(found);
  assert_int_equal(xffi_type_find_field(&found, t, ""), XFFI_OK);
  assert_null(found);
}

static void test_the_nearest_ancestors_field_wins(void **state) {
  (void)state;
  int32_t parent = -1, child = -1;
  assert_int_equal(xffi_type_register(&parent, "test.index.Parent", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(xffi_type_register(&child, "test.index.Child", parent), XFFI_OK);
  xffi_field_info a = int_field("a", 24), shared = int_field("shared", 32);
  assert_int_equal(xffi_type_register_field(parent, &a), XFFI_OK);
  assert_int_equal(xffi_type_register_field(parent, &shared), XFFI_OK);
  /* The child registers before it has fields of its own, then one shadowing. */
  const xffi_field_info *found = NULL;
  assert_int_equal(xffi_type_find_field(&found, child, "shared"), XFFI_OK);
  assert_int_equal(found->offset, 32);
  xffi_field_info mine = int_field("shared", 40);
  assert_int_equal(xffi_type_register_field(child, &mine), XFFI_OK);
  assert_int_equal(xffi_type_find_field(&found, child, "shared"), XFFI_OK);
  assert_int_equal(found->offset, 40);
  assert_int_equal(xffi_type_find_field(&found, child, "a"), XFFI_OK);
  assert_int_equal(found->offset, 24);
  assert_int_equal(xffi_type_find_field(&found, parent, "shared"), XFFI_OK);
  assert_int_equal(found->offset, 32);
}

static void test_a_refused_batch_leaves_the_index_alone(void **state) {
  (void)state;
  int32_t t = -1;
  assert_int_equal(xffi_type_register(&t, "test.index.Refused", XFFI_TYPE_OBJECT), XFFI_OK);
  xffi_field_info first = int_field("first", 24);
  assert_int_equal(xffi_type_register_field(t, &first), XFFI_OK);
  xffi_field_info batch[2] = {int_field("second", 32), int_field("third", 33)}; /* misaligned */
  assert_int_equal(xffi_type_register_fields_in("test", t, batch, 2, XFFI_FIELD_RULES_STRICT), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "offset 33 is not a multiple of its alignment 8");
  const xffi_field_info *found = (const xffi_field_info *)1;
  assert_int_equal(xffi_type_find_field(&found, t, "second"), XFFI_OK);
  assert_null(found);
  assert_int_equal(xffi_type_find_field(&found, t, "first"), XFFI_OK);
  assert_non_null(found);
  /* Get and set by name go through the same index. */
  struct {
    xffi_object header;
    int64_t first;
  } obj;
  memset(&obj, 0, sizeof(obj));
  obj.header.type_index = t;
  obj.first = 17;
  xffi_any value;
  assert_int_equal(xffi_object_get_field(&value, &obj.header, "first"), XFFI_OK);
  assert_int_equal(value.v_int64, 17);
  assert_int_equal(xffi_object_get_field(&value, &obj.header, "second"), XFFI_FAIL);
  expect_error(XFFI_KIND_ATTRIBUTE, "xffi_object_get_field: 'test.index.Refused' has no field 'second'");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_field_of_a_wide_type_is_found),
      cmocka_unit_test(test_the_nearest_ancestors_field_wins),
      cmocka_unit_test(test_a_refused_batch_leaves_the_index_alone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
