/* The checks every field registration passes (c/reflection_layout.c,
 * c/type_reflection.c): a field twice, an offset outside the object or in
 * its header, a misaligned offset, a missing getter, a writable field
 * without a setter (xffi's forms only), metadata that comes after fields too
 * small for them, and a batch that is kept whole or not at all. */
#include "test_util.h"

#include <xffi/reflection.h>
#include <xffi/tvm_ffi.h>

static int32_t new_type(const char *key) {
  int32_t index = -1;
  assert_int_equal(xffi_type_register(&index, key, XFFI_TYPE_OBJECT), XFFI_OK);
  return index;
}

static xffi_field_info int_field(const char *name, int64_t offset) {
  xffi_field_info f;
  memset(&f, 0, sizeof(f));
  f.name.data = name;
  f.name.size = strlen(name);
  f.size = 8;
  f.alignment = 8;
  f.offset = offset;
  f.field_static_type_index = XFFI_TYPE_INT;
  assert_int_equal(xffi_field_getter_for_type(&f.getter, XFFI_TYPE_INT), XFFI_OK);
  f.default_value_or_factory = xffi_any_none();
  return f;
}

static const xffi_type_info *info_of(int32_t type_index) {
  const xffi_type_info *info = NULL;
  assert_int_equal(xffi_type_info_get(&info, type_index), XFFI_OK);
  return info;
}

static int32_t num_fields(int32_t type_index) { return info_of(type_index)->num_fields; }

static void test_layout_errors_name_the_field_and_keep_nothing(void **state) {
  (void)state;
  int32_t t = new_type("test.validate.Layout");
  xffi_field_info f = int_field("x", 24);
  f.offset = 8;
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  expect_error(XFFI_KIND_VALUE,
               "TVMFFITypeRegisterField: field 'x' of test.validate.Layout: offset 8 lies in the "
               "object header (the first 24 bytes)");
  f.offset = 28;
  assert_int_equal(xffi_type_register_field(t, &f), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_type_register_field: field 'x' of test.validate.Layout: offset 28 is not a multiple of its "
               "alignment 8");
  f.offset = 24;
  f.alignment = 3;
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  assert_raised(XFFI_KIND_VALUE, "field 'x' of test.validate.Layout: alignment 3 is not a positive power of two");
  f.alignment = 0;
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  assert_raised(XFFI_KIND_VALUE, "alignment 0 is not a positive power of two");
  f.alignment = 8;
  f.size = -1;
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  assert_raised(XFFI_KIND_VALUE, "field 'x' of test.validate.Layout: size -1 is negative");
  f.size = 8;
  f.getter = NULL;
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  assert_raised(XFFI_KIND_VALUE, "field 'x' of test.validate.Layout: info->getter is NULL");
  xffi_field_info unnamed = int_field("", 24);
  assert_int_equal(TVMFFITypeRegisterField(t, &unnamed), -1);
  assert_raised(XFFI_KIND_VALUE, "info->name is empty: a field of test.validate.Layout needs a name");
  assert_int_equal(num_fields(t), 0);
}

static void test_a_field_twice_is_refused(void **state) {
  (void)state;
  int32_t t = new_type("test.validate.Twice");
  xffi_field_info f = int_field("x", 24);
  assert_int_equal(xffi_type_register_field(t, &f), XFFI_OK);
  f.offset = 32;
  assert_int_equal(xffi_type_register_field(t, &f), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_type_register_field: info->name 'x' is already a field of test.validate.Twice");
  assert_int_equal(num_fields(t), 1);
}

static void test_offset_outside_the_total_size_either_order(void **state) {
  (void)state;
  /* Metadata first: a field past its total size is refused. */
  int32_t t = new_type("test.validate.SizedFirst");
  xffi_type_metadata md = {{NULL, 0}, NULL, 40, XFFI_SEQ_HASH_UNSUPPORTED};
  assert_int_equal(xffi_type_register_metadata(t, &md), XFFI_OK);
  xffi_field_info inside = int_field("a", 32), past = int_field("b", 40);
  assert_int_equal(TVMFFITypeRegisterField(t, &inside), 0);
  assert_int_equal(TVMFFITypeRegisterField(t, &past), -1);
  expect_error(XFFI_KIND_VALUE,
               "TVMFFITypeRegisterField: field 'b' of test.validate.SizedFirst: offset 40 + size 8 "
               "lies outside the object's total size 40");
  past.offset = (INT64_MAX / 8) * 8; /* offset + size would overflow: still refused */
  assert_int_equal(TVMFFITypeRegisterField(t, &past), -1);
  assert_raised(XFFI_KIND_VALUE, "lies outside the object's total size 40");
  assert_int_equal(num_fields(t), 1);
  /* Fields first: metadata too small for them is refused, and can come again. */
  int32_t u = new_type("test.validate.SizedLater");
  xffi_field_info late = int_field("c", 48);
  assert_int_equal(TVMFFITypeRegisterField(u, &late), 0);
  assert_int_equal(TVMFFITypeRegisterMetadata(u, &md), -1);
  expect_error(XFFI_KIND_VALUE,
               "TVMFFITypeRegisterMetadata: total_size 40 of test.validate.SizedLater is too small: "
               "its field 'c' lies at offset 48, size 8");
  assert_null(info_of(u)->metadata);
  md.total_size = 56;
  assert_int_equal(TVMFFITypeRegisterMetadata(u, &md), 0);
  /* A total size of 0 says nothing about the layout: no check. */
  int32_t v = new_type("test.validate.Unsized");
  md.total_size = 0;
  assert_int_equal(TVMFFITypeRegisterMetadata(v, &md), 0);
  xffi_field_info far = int_field("d", 4096);
  assert_int_equal(TVMFFITypeRegisterField(v, &far), 0);
}

/* A read-only field with a setter is what tvm-ffi's C++ registration sends
 * (construction sets it): accepted. A writable field without a setter is
 * refused from xffi's form, accepted from TVMFFITypeRegisterField. */
static void test_setters_and_the_writable_flag(void **state) {
  (void)state;
  int32_t t = new_type("test.validate.ReadOnly");
  xffi_field_info f = int_field("x", 24);
  xffi_field_setter setter;
  assert_int_equal(xffi_field_setter_for_type(&setter, XFFI_TYPE_INT), XFFI_OK);
  memcpy(&f.setter, &setter, sizeof(setter));
  assert_int_equal(xffi_type_register_field(t, &f), XFFI_OK);
  xffi_field_info g = int_field("y", 32);
  g.flags = XFFI_FIELD_WRITABLE;
  assert_int_equal(xffi_type_register_field(t, &g), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_type_register_field: field 'y' of test.validate.ReadOnly: is writable "
               "(XFFI_FIELD_WRITABLE) but info->setter is NULL");
  assert_int_equal(num_fields(t), 1);
  assert_int_equal(TVMFFITypeRegisterField(t, &g), 0);
  assert_int_equal(num_fields(t), 2);
}

/* A refused field's default is released: nothing leaks. */
static void test_refused_field_releases_its_default(void **state) {
  (void)state;
  int32_t t = new_type("test.validate.Default");
  xffi_object *def = NULL;
  const char text[] = "a default long enough for the heap";
  assert_int_equal(xffi_string_new(&def, text, sizeof(text) - 1), XFFI_OK);
  xffi_field_info f = int_field("x", 12);
  f.flags = XFFI_FIELD_HAS_DEFAULT;
  f.default_value_or_factory = xffi_any_object(def);
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  assert_raised(XFFI_KIND_VALUE, "lies in the object header");
  assert_int_equal(xffi_object_strong_count(def), 1);
  xffi_object_dec_ref(def);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_layout_errors_name_the_field_and_keep_nothing),
      cmocka_unit_test(test_a_field_twice_is_refused),
      cmocka_unit_test(test_offset_outside_the_total_size_either_order),
      cmocka_unit_test(test_setters_and_the_writable_flag),
      cmocka_unit_test(test_refused_field_releases_its_default),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
