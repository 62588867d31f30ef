/* Reflecting a C struct (c/reflection_register.c): the XFFI_REFLECT_*
 * macros derive each field's record from the struct and its static type,
 * methods come from C callbacks, metadata from the struct; every call keeps
 * all it is given or nothing, and bad input is a clear error. */
#include <stdio.h>

#include "reflection_sensor.h"
#include "runtime/internal.h"

static const xffi_type_info *info_of(int32_t type_index) {
  const xffi_type_info *info = NULL;
  assert_int_equal(xffi_type_info_get(&info, type_index), XFFI_OK);
  return info;
}

static int32_t new_type(const char *key) {
  int32_t index = -1;
  assert_int_equal(xffi_type_register(&index, key, XFFI_TYPE_OBJECT), XFFI_OK);
  return index;
}

static void test_macros_take_the_layout_from_the_struct(void **state) {
  (void)state;
  register_sensor_types();
  const xffi_type_info *info = info_of(sensor_index);
  assert_int_equal(info->num_fields, 3);
  const xffi_field_info *count = &info->fields[0], *ratio = &info->fields[1], *label = &info->fields[2];
  assert_string_equal(count->name.data, "count");
  assert_string_equal(count->doc.data, "readings");
  assert_int_equal(count->offset, offsetof(sensor, count));
  assert_int_equal(count->size, 8);
  assert_int_equal(count->alignment, _Alignof(int64_t));
  assert_int_equal(count->flags, XFFI_FIELD_WRITABLE);
  assert_non_null(count->getter);
  assert_non_null(count->setter);
  assert_int_equal(ratio->offset, offsetof(sensor, ratio));
  assert_int_equal(ratio->flags, 0);
  assert_non_null(ratio->setter); /* read-only for writes by name; construction sets it */
  assert_int_equal(label->field_static_type_index, XFFI_TYPE_STRING);
  assert_int_equal(label->flags, XFFI_FIELD_WRITABLE | XFFI_FIELD_HAS_DEFAULT);
  xffi_byte_array text;
  assert_int_equal(xffi_any_to_str(&text, &label->default_value_or_factory), XFFI_OK);
  assert_int_equal(text.size, 4);
  assert_memory_equal(text.data, "idle", 4);
  assert_non_null(info->metadata);
  assert_int_equal(info->metadata->total_size, sizeof(sensor));
  assert_ptr_equal(info->metadata->creator, sensor_create);
  assert_int_equal(info->metadata->structural_eq_hash_kind, XFFI_SEQ_HASH_TREE_NODE);
  assert_string_equal(info->metadata->doc.data, "a sensor");

  /* The records work: get and set by name, and read-only stays so. */
  void *made = NULL;
  assert_int_equal(sensor_create(&made), XFFI_OK);
  sensor *s = made;
  s->ratio = 0.5;
  xffi_any value = xffi_any_int(42);
  assert_int_equal(xffi_object_set_field(&s->header, "count", &value), XFFI_OK);
  assert_int_equal(s->count, 42);
  assert_int_equal(xffi_object_get_field(&value, &s->header, "ratio"), XFFI_OK);
  assert_true(value.type_index == XFFI_TYPE_FLOAT && value.v_float64 == 0.5);
  assert_int_equal(xffi_object_set_field(&s->header, "ratio", &value), XFFI_FAIL);
  expect_error(XFFI_KIND_ATTRIBUTE, "xffi_object_set_field: field 'ratio' of 'test.reflect.Sensor' is read-only");
  xffi_object_dec_ref(&s->header);
}

static void test_table_form_registers_all_or_nothing(void **state) {
  (void)state;
  typedef struct pair {
    xffi_object header;
    int64_t a;
    int32_t b; /* not an int field's storage: the table is refused whole */
    double c;
  } pair;
  int32_t t = new_type("test.reflect.Pair");
  xffi_reflect_field_spec bad[] = {
      XFFI_FIELD_SPEC(pair, a, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, "first"),
      XFFI_FIELD_SPEC(pair, b, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, "second"),
  };
  assert_int_equal(xffi_reflect_fields(t, bad, 2), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_reflect_fields: field 'b': the member is 4 bytes, but int is stored in 8");
  assert_int_equal(info_of(t)->num_fields, 0);
  /* A name twice in one table: refused whole as well. */
  xffi_reflect_field_spec twice[] = {
      XFFI_FIELD_SPEC(pair, a, XFFI_TYPE_INT, 0, NULL),
      XFFI_FIELD_SPEC(pair, c, XFFI_TYPE_FLOAT, 0, NULL),
      XFFI_FIELD_SPEC(pair, a, XFFI_TYPE_INT, 0, NULL),
  };
  assert_int_equal(xffi_reflect_fields(t, twice, 3), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_reflect_fields: info->name 'a' is already a field of test.reflect.Pair");
  assert_int_equal(info_of(t)->num_fields, 0);
  assert_int_equal(xffi_reflect_fields(t, twice, 2), XFFI_OK);
  assert_int_equal(info_of(t)->num_fields, 2);
  assert_string_equal(info_of(t)->fields[1].name.data, "c");
}

static void test_bad_specs_are_clear_errors(void **state) {
  (void)state;
  int32_t t = new_type("test.reflect.Bad");
  assert_int_equal(xffi_reflect_fields(t, NULL, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_reflect_fields: specs is NULL");
  xffi_reflect_field_spec spec = XFFI_FIELD_SPEC(sensor, count, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL);
  assert_int_equal(xffi_reflect_fields(t, &spec, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_reflect_fields: count is 0 (expected 1 to 64)");
  assert_int_equal(xffi_reflect_fields(999999, &spec, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_reflect_fields: type_index 999999 is not a registered type");
  xffi_reflect_field_spec copy = spec;
  copy.name = NULL;
  assert_int_equal(xffi_reflect_fields(t, &copy, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_reflect_fields: specs [0].name is NULL");
  copy = spec;
  copy.static_type_index = XFFI_TYPE_RAW_STR;
  assert_int_equal(xffi_reflect_fields(t, &copy, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_reflect_fields: field 'count': static type 8 (");
  copy = spec;
  copy.flags |= XFFI_FIELD_SETTER_IS_FUNCTION;
  assert_int_equal(xffi_reflect_fields(t, &copy, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "field 'count': XFFI_FIELD_SETTER_IS_FUNCTION is not for specs");
  copy = spec;
  copy.offset = 4; /* inside the header */
  assert_int_equal(xffi_reflect_fields(t, &copy, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_reflect_fields: field 'count' of test.reflect.Bad: offset 4 lies in the object header (the "
               "first 24 bytes)");
  copy = spec;
  copy.offset = 27; /* misaligned on every target */
  assert_int_equal(xffi_reflect_fields(t, &copy, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "offset 27 is not a multiple of its alignment");
  assert_int_equal(info_of(t)->num_fields, 0);
  /* The type's metadata bounds the fields registered after it. */
  assert_int_equal(XFFI_REFLECT_TYPE(t, sensor, NULL, XFFI_SEQ_HASH_UNSUPPORTED, NULL), XFFI_OK);
  copy = spec;
  copy.offset = sizeof(sensor);
  assert_int_equal(xffi_reflect_fields(t, &copy, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "lies outside the object's total size");
  assert_int_equal(XFFI_REFLECT_FIELD(t, sensor, count, XFFI_TYPE_INT, 0, NULL), XFFI_OK);
  /* The name again with another record (here: writable). */
  assert_int_equal(XFFI_REFLECT_FIELD(t, sensor, count, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_reflect_fields: info->name 'count' is already a field of test.reflect.Bad, registered with flags "
               "0, not 1");
  assert_int_equal(xffi_reflect_field_with_default(t, NULL, xffi_any_none()), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_reflect_field_with_default: spec is NULL");
  assert_int_equal(info_of(t)->num_fields, 1);
}

/* A refused field with a default keeps no reference to it. */
static void test_refused_default_is_not_kept(void **state) {
  (void)state;
  int32_t t = new_type("test.reflect.BadDefault");
  xffi_object *text = NULL;
  const char long_text[] = "a default long enough for the heap";
  assert_int_equal(xffi_string_new(&text, long_text, sizeof(long_text) - 1), XFFI_OK);
  xffi_reflect_field_spec spec = XFFI_FIELD_SPEC(sensor, label, XFFI_TYPE_STRING, XFFI_FIELD_WRITABLE, NULL);
  spec.offset = 12;
  assert_int_equal(xffi_reflect_field_with_default(t, &spec, xffi_any_object(text)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "offset 12");
  assert_int_equal(xffi_object_strong_count(text), 1);
  spec.offset = offsetof(sensor, label);
  assert_int_equal(xffi_reflect_field_with_default(t, &spec, xffi_any_object(text)), XFFI_OK);
  /* The record's own; and the record's of the process's tvm-ffi runtime when
   * this library is bound to one (told of the field and its default). */
  assert_int_equal(xffi_object_strong_count(text), 2 + xffi_foreign_runtime_present());
  xffi_object_dec_ref(text);
}

/* An instance method: args[0] is the sensor; returns count + args[1]. */
static int sensor_add(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  if (num_args != 2 || args[0].type_index < XFFI_TYPE_STATIC_OBJECT_BEGIN || args[1].type_index != XFFI_TYPE_INT)
    return xffi_error_raise(XFFI_KIND_TYPE, "add(self, int)");
  *result = xffi_any_int(((const sensor *)args[0].v_obj)->count + args[1].v_int64);
  return XFFI_OK;
}

/* A static method: returns the resource's number. */
static int sensor_version(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)args, (void)num_args;
  *result = xffi_any_int(*(const int *)resource);
  return XFFI_OK;
}

static void test_methods_from_c_callbacks(void **state) {
  (void)state;
  register_sensor_types();
  static int version = 7;
  assert_int_equal(XFFI_REFLECT_METHOD(sensor_index, "add", sensor_add, "count plus n"), XFFI_OK);
  assert_int_equal(
      xffi_reflect_method(sensor_index, "version", sensor_version, &version, XFFI_FIELD_IS_STATIC_METHOD, NULL),
      XFFI_OK);
  const xffi_method_info *add = NULL, *ver = NULL;
  assert_int_equal(xffi_type_find_method(&add, probe_index, "add"), XFFI_OK); /* inherited */
  assert_int_equal(xffi_type_find_method(&ver, sensor_index, "version"), XFFI_OK);
  assert_non_null(add);
  assert_non_null(ver);
  assert_int_equal(add->flags, 0);
  assert_string_equal(add->doc.data, "count plus n");
  assert_int_equal(ver->flags, XFFI_FIELD_IS_STATIC_METHOD);
  void *made = NULL;
  assert_int_equal(probe_create(&made), XFFI_OK);
  ((sensor *)made)->count = 40;
  xffi_any args[2] = {xffi_any_object(made), xffi_any_int(2)}, result = xffi_any_none();
  assert_int_equal(xffi_function_call(add->method.v_obj, args, 2, &result), XFFI_OK);
  assert_int_equal(result.v_int64, 42);
  assert_int_equal(xffi_function_call(ver->method.v_obj, NULL, 0, &result), XFFI_OK);
  assert_int_equal(result.v_int64, 7);
  xffi_object_dec_ref(made);

  /* The name again as a static method: refused (the same kind again is a no-op:
   * test_a_matching_second_registration_keeps_the_first_records). */
  assert_int_equal(XFFI_REFLECT_STATIC_METHOD(sensor_index, "add", sensor_add, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_reflect_method: name 'add' is already a method of test.reflect.Sensor, registered with flags 0, "
               "not 4");
  assert_int_equal(XFFI_REFLECT_METHOD(sensor_index, NULL, sensor_add, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_reflect_method: name is NULL");
  assert_int_equal(XFFI_REFLECT_METHOD(sensor_index, "none", NULL, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_reflect_method: callback is NULL");
  assert_int_equal(xffi_reflect_method(sensor_index, "odd", sensor_add, NULL, 3, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_reflect_method: flags is 3 (expected 0 or XFFI_FIELD_IS_STATIC_METHOD)");
  assert_int_equal(XFFI_REFLECT_METHOD(999999, "add", sensor_add, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_reflect_method: type_index 999999 is not a registered type");
  assert_int_equal(info_of(sensor_index)->num_methods, 2);
}

static void test_type_metadata_bad_input(void **state) {
  (void)state;
  int32_t t = new_type("test.reflect.Meta");
  assert_int_equal(xffi_reflect_type(t, 8, NULL, XFFI_SEQ_HASH_UNSUPPORTED, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_reflect_type: total_size is 8 (expected the object's size: 24 to 2147483647 bytes, header "
               "included)");
  assert_int_equal(xffi_reflect_type(t, 32, NULL, 9, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_reflect_type: structural_eq_hash_kind is 9 (expected an XFFI_SEQ_HASH_* kind, "
               "0 to 5)");
  assert_int_equal(xffi_reflect_type(999999, 32, NULL, 0, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_INDEX, "type_index 999999 is not a registered type");
  /* Fields first, then metadata too small for them: refused, and may come again. */
  assert_int_equal(XFFI_REFLECT_FIELD(t, sensor, label, XFFI_TYPE_STRING, 0, NULL), XFFI_OK);
  assert_int_equal(xffi_reflect_type(t, offsetof(sensor, label), NULL, 0, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE,
                "xffi_reflect_type: total_size 40 of test.reflect.Meta is too small: its field "
                "'label' lies at offset 40, size"); /* the pointer size follows */
  assert_null(info_of(t)->metadata);
  assert_int_equal(XFFI_REFLECT_TYPE(t, sensor, NULL, XFFI_SEQ_HASH_UNIQUE_INSTANCE, NULL), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_TYPE(t, sensor, NULL, XFFI_SEQ_HASH_TREE_NODE, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, ") is already registered, with structural kind 5, not 1");
}

/* A second copy of a library (the same plugin loaded from two paths, both
 * on one libxffi) registers its type again: every record that matches the
 * type's is a no-op that keeps the first's (docs, creator, method Function);
 * the first difference is refused by name, and nothing is kept. */
static void test_a_matching_second_registration_keeps_the_first_records(void **state) {
  (void)state;
  int32_t t = new_type("test.reflect.Copied"), again = -1;
  assert_int_equal(xffi_type_register(&again, "test.reflect.Copied", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(again, t);
  for (int copy = 0; copy < 2; ++copy) {
    const char *doc = copy ? "the copy's doc" : "the first's doc";
    /* Each copy has its own creator: the first's stays. */
    assert_int_equal(XFFI_REFLECT_TYPE(t, sensor, copy ? sensor_create : NULL, XFFI_SEQ_HASH_TREE_NODE, doc), XFFI_OK);
    assert_int_equal(XFFI_REFLECT_FIELD(t, sensor, count, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, doc), XFFI_OK);
    assert_int_equal(XFFI_REFLECT_FIELD(t, sensor, ratio, XFFI_TYPE_FLOAT, 0, doc), XFFI_OK);
    assert_int_equal(XFFI_REFLECT_METHOD(t, "add", sensor_add, doc), XFFI_OK);
  }
  const xffi_type_info *info = info_of(t);
  assert_int_equal(info->num_fields, 2);
  assert_int_equal(info->num_methods, 1);
  assert_string_equal(info->metadata->doc.data, "the first's doc");
  assert_null(info->metadata->creator);
  assert_string_equal(info->fields[0].doc.data, "the first's doc");
  assert_string_equal(info->methods[0].doc.data, "the first's doc");

  /* A batch is the same records again or new ones, not both: a known field
   * beside a new one is refused, the whole batch. */
  xffi_reflect_field_spec known_and_new[] = {
      XFFI_FIELD_SPEC(sensor, count, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL),
      XFFI_FIELD_SPEC(sensor, label, XFFI_TYPE_STRING, 0, NULL),
  };
  assert_int_equal(xffi_reflect_fields(t, known_and_new, 2), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_reflect_fields: info->name 'count' is already a field of test.reflect.Copied");
  assert_int_equal(xffi_reflect_fields(t, &known_and_new[1], 1), XFFI_OK);
  assert_int_equal(xffi_reflect_fields(t, known_and_new, 2), XFFI_OK); /* both known now */
  assert_int_equal(info->num_fields, 3);
  assert_string_equal(info->fields[0].doc.data, "the first's doc"); /* count keeps the first's record */
  assert_string_equal(info->fields[2].name.data, "label");

  /* Each difference, named; the type keeps its records. */
  xffi_reflect_field_spec spec = XFFI_FIELD_SPEC(sensor, ratio, XFFI_TYPE_FLOAT, 0, NULL);
  spec.offset = offsetof(sensor, count);
  assert_int_equal(xffi_reflect_fields(t, &spec, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_reflect_fields: info->name 'ratio' is already a field of test.reflect.Copied, registered with "
               "offset 32, not 24");
  spec = (xffi_reflect_field_spec)XFFI_FIELD_SPEC(sensor, ratio, XFFI_TYPE_INT, 0, NULL);
  assert_int_equal(xffi_reflect_fields(t, &spec, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_reflect_fields: info->name 'ratio' is already a field of test.reflect.Copied, registered with "
               "static type index 3, not 1");
  /* One field of a batch that differs refuses the whole batch. */
  xffi_reflect_field_spec mixed[] = {
      XFFI_FIELD_SPEC(sensor, count, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL),
      XFFI_FIELD_SPEC(sensor, label, XFFI_TYPE_STRING, XFFI_FIELD_WRITABLE, NULL),
  };
  assert_int_equal(xffi_reflect_fields(t, mixed, 2), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "'label' is already a field of test.reflect.Copied, registered with flags 0, not 1");
  assert_int_equal(xffi_reflect_type(t, sizeof(sensor) + 8, NULL, XFFI_SEQ_HASH_TREE_NODE, NULL), XFFI_FAIL);
  char size_message[96]; /* the struct's size differs between 64- and 32-bit targets */
  snprintf(size_message, sizeof size_message, "is already registered, with total size %zu, not %zu", sizeof(sensor),
           sizeof(sensor) + 8);
  assert_raised(XFFI_KIND_RUNTIME, size_message);
  assert_int_equal(XFFI_REFLECT_STATIC_METHOD(t, "add", sensor_add, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "'add' is already a method of test.reflect.Copied, registered with flags 0, not 4");
  assert_int_equal(info->num_fields, 3);
  assert_int_equal(info->num_methods, 1);
  assert_int_equal(info->metadata->total_size, sizeof(sensor));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_macros_take_the_layout_from_the_struct),
      cmocka_unit_test(test_table_form_registers_all_or_nothing),
      cmocka_unit_test(test_bad_specs_are_clear_errors),
      cmocka_unit_test(test_refused_default_is_not_kept),
      cmocka_unit_test(test_methods_from_c_callbacks),
      cmocka_unit_test(test_type_metadata_bad_input),
      cmocka_unit_test(test_a_matching_second_registration_keeps_the_first_records),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
