/* Field storage and access by name (c/field_storage.c): the typed getters
 * and setters by static type index, xffi_field_write, lookup of fields and
 * methods through ancestors, get/set by name with type checks, and bad
 * input (clear errors, the field unchanged). */
#include "test_util.h"

#include <stdbool.h>
#include <xffi/function.h>
#include <xffi/reflection.h>
#include <xffi/string.h>

/* A C object with one field of each storage. */
typedef struct sample {
  xffi_object header;
  int64_t count;
  double ratio;
  bool flag;
  xffi_any anything;
  xffi_object *label; /* a String, or NULL */
  xffi_object *child; /* any object, or NULL */
} sample;

static int sample_deleted;

static void sample_deleter(void *self, int flags) {
  sample *s = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    xffi_any_release(&s->anything);
    if (s->label) xffi_object_dec_ref(s->label);
    if (s->child) xffi_object_dec_ref(s->child);
    sample_deleted++;
  }
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static void add_field(int32_t type_index, const char *name, size_t offset, size_t size, int32_t static_type,
                      int writable) {
  xffi_field_info info;
  memset(&info, 0, sizeof(info));
  info.name.data = name;
  info.name.size = strlen(name);
  info.size = (int64_t)size;
  /* The member's alignment on this target (registration checks the offset against it). */
  info.alignment = (int64_t)size < (int64_t) _Alignof(int64_t) ? (int64_t)size : (int64_t) _Alignof(int64_t);
  info.offset = (int64_t)offset;
  info.field_static_type_index = static_type;
  info.flags = writable ? XFFI_FIELD_WRITABLE : 0;
  assert_int_equal(xffi_field_getter_for_type(&info.getter, static_type), XFFI_OK);
  if (writable) {
    xffi_field_setter setter;
    assert_int_equal(xffi_field_setter_for_type(&setter, static_type), XFFI_OK);
    memcpy(&info.setter, &setter, sizeof(setter)); /* a function pointer in a void* slot */
  }
  info.default_value_or_factory = xffi_any_none();
  assert_int_equal(xffi_type_register_field(type_index, &info), XFFI_OK);
}

static int32_t sample_type(void) {
  static int32_t index = -1;
  if (index >= 0) return index;
  assert_int_equal(xffi_type_register(&index, "test.field_storage.Sample", XFFI_TYPE_OBJECT), XFFI_OK);
  add_field(index, "count", offsetof(sample, count), sizeof(int64_t), XFFI_TYPE_INT, 1);
  add_field(index, "ratio", offsetof(sample, ratio), sizeof(double), XFFI_TYPE_FLOAT, 1);
  add_field(index, "flag", offsetof(sample, flag), sizeof(bool), XFFI_TYPE_BOOL, 0);
  add_field(index, "anything", offsetof(sample, anything), sizeof(xffi_any), XFFI_TYPE_ANY, 1);
  add_field(index, "label", offsetof(sample, label), sizeof(xffi_object *), XFFI_TYPE_STRING, 1);
  add_field(index, "child", offsetof(sample, child), sizeof(xffi_object *), XFFI_TYPE_OBJECT, 1);
  return index;
}

static sample *sample_new(void) {
  sample *s = calloc(1, sizeof(sample));
  assert_non_null(s);
  xffi_object_init(&s->header, sample_type(), sample_deleter);
  s->anything = xffi_any_none();
  return s;
}

static void test_get_and_set_by_name_round_trip(void **state) {
  (void)state;
  sample *s = sample_new();
  xffi_object *obj = &s->header;
  xffi_any v = xffi_any_int(41);
  assert_int_equal(xffi_object_set_field(obj, "count", &v), XFFI_OK);
  assert_int_equal(s->count, 41);
  v = xffi_any_bool(1); /* int accepts bool */
  assert_int_equal(xffi_object_set_field(obj, "count", &v), XFFI_OK);
  assert_int_equal(s->count, 1);
  v = xffi_any_int(3); /* float accepts int */
  assert_int_equal(xffi_object_set_field(obj, "ratio", &v), XFFI_OK);
  assert_true(s->ratio == 3.0);
  v = xffi_any_c_str("a label longer than seven bytes");
  assert_int_equal(xffi_object_set_field(obj, "label", &v), XFFI_OK);
  v = xffi_any_c_str("short"); /* a small string becomes a String object */
  assert_int_equal(xffi_object_set_field(obj, "label", &v), XFFI_OK);
  assert_non_null(s->label);
  assert_int_equal(s->label->type_index, XFFI_TYPE_STRING);

  xffi_any got = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&got, obj, "count"), XFFI_OK);
  assert_int_equal(got.type_index, XFFI_TYPE_INT);
  assert_int_equal(got.v_int64, 1);
  assert_int_equal(xffi_object_get_field(&got, obj, "label"), XFFI_OK);
  xffi_byte_array text;
  assert_int_equal(xffi_any_to_str(&text, &got), XFFI_OK);
  assert_int_equal(text.size, 5);
  assert_memory_equal(text.data, "short", 5);
  xffi_any_release(&got);
  assert_int_equal(xffi_object_get_field(&got, obj, "child"), XFFI_OK);
  assert_int_equal(got.type_index, XFFI_TYPE_NONE);

  /* Objects in Any and object fields are owned by the object. */
  xffi_object *child = counted_new();
  int before = counted_destroyed;
  v = xffi_any_object(child);
  assert_int_equal(xffi_object_set_field(obj, "child", &v), XFFI_OK);
  assert_int_equal(xffi_object_set_field(obj, "anything", &v), XFFI_OK);
  xffi_object_dec_ref(child);
  assert_int_equal(counted_destroyed, before);
  v = xffi_any_none();
  assert_int_equal(xffi_object_set_field(obj, "child", &v), XFFI_OK);
  assert_null(s->child);
  assert_int_equal(counted_destroyed, before);
  xffi_object_dec_ref(obj);
  assert_int_equal(counted_destroyed, before + 1);
  assert_nothing_raised();
}

static void test_bad_names_types_and_read_only_fields_are_errors(void **state) {
  (void)state;
  sample *s = sample_new();
  xffi_object *obj = &s->header;
  s->count = 5;
  xffi_any v = xffi_any_c_str("five");
  assert_int_equal(xffi_object_set_field(obj, "count", &v), XFFI_FAIL);
  expect_error("TypeError", "xffi_object_set_field: field 'count' of 'test.field_storage.Sample' expects int, got str");
  assert_int_equal(s->count, 5);

  v = xffi_any_int(1);
  assert_int_equal(xffi_object_set_field(obj, "label", &v), XFFI_FAIL);
  assert_raised("TypeError", "field 'label' of 'test.field_storage.Sample' expects ffi.String");
  assert_int_equal(xffi_object_set_field(obj, "flag", &v), XFFI_FAIL);
  expect_error("AttributeError", "xffi_object_set_field: field 'flag' of 'test.field_storage.Sample' is read-only");
  assert_int_equal(xffi_object_set_field(obj, "missing", &v), XFFI_FAIL);
  expect_error("AttributeError", "xffi_object_set_field: 'test.field_storage.Sample' has no field 'missing'");
  xffi_any got = xffi_any_int(99);
  assert_int_equal(xffi_object_get_field(&got, obj, "missing"), XFFI_FAIL);
  assert_raised("AttributeError", "has no field 'missing'");
  assert_int_equal(got.v_int64, 99);

  assert_int_equal(xffi_object_get_field(NULL, obj, "count"), XFFI_FAIL);
  assert_raised("ValueError", "out");
  assert_int_equal(xffi_object_get_field(&got, NULL, "count"), XFFI_FAIL);
  assert_raised("ValueError", "obj");
  assert_int_equal(xffi_object_set_field(obj, NULL, &v), XFFI_FAIL);
  assert_raised("ValueError", "name");
  assert_int_equal(xffi_object_set_field(obj, "count", NULL), XFFI_FAIL);
  assert_raised("ValueError", "value");

  xffi_field_getter getter;
  assert_int_equal(xffi_field_getter_for_type(&getter, XFFI_TYPE_RAW_STR), XFFI_FAIL);
  assert_raised("ValueError", "static_type_index");
  assert_int_equal(xffi_field_write(&s->count, XFFI_TYPE_DLTENSOR_PTR, &v), XFFI_FAIL);
  assert_raised("ValueError", "static_type_index");
  xffi_object_dec_ref(obj);
  assert_nothing_raised();
}

static void test_fields_and_methods_are_found_through_ancestors(void **state) {
  (void)state;
  int32_t child;
  assert_int_equal(xffi_type_register(&child, "test.field_storage.Child", sample_type()), XFFI_OK);
  const xffi_field_info *field = NULL;
  assert_int_equal(xffi_type_find_field(&field, child, "ratio"), XFFI_OK);
  assert_non_null(field);
  assert_int_equal(field->offset, offsetof(sample, ratio));
  assert_int_equal(xffi_type_find_field(&field, child, "nope"), XFFI_OK);
  assert_null(field);

  xffi_object *fn;
  assert_int_equal(xffi_function_new(&fn, test_noop_callback, NULL, NULL), XFFI_OK);
  xffi_method_info method;
  memset(&method, 0, sizeof(method));
  method.name.data = "noop";
  method.name.size = 4;
  method.method = xffi_any_object(fn);
  assert_int_equal(xffi_type_register_method(sample_type(), &method), XFFI_OK);
  xffi_object_dec_ref(fn);
  const xffi_method_info *found = NULL;
  assert_int_equal(xffi_type_find_method(&found, child, "noop"), XFFI_OK);
  assert_non_null(found);
  assert_ptr_equal(found->method.v_obj, fn);
  assert_int_equal(xffi_type_find_method(&found, child, "other"), XFFI_OK);
  assert_null(found);

  assert_int_equal(xffi_type_find_field(&field, 100000, "ratio"), XFFI_FAIL);
  assert_raised("IndexError", "type_index");
  assert_int_equal(xffi_type_find_method(NULL, child, "noop"), XFFI_FAIL);
  assert_raised("ValueError", "out");
  assert_nothing_raised();
}

/* A field whose setter is a Function: called with the field's address and
 * the value, as tvm-ffi does for Python-defined fields. */
static int doubling_setter(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  (void)result;
  assert_int_equal(num_args, 2);
  int64_t value;
  if (xffi_any_to_int(&value, &args[1]) != XFFI_OK) return XFFI_FAIL;
  *(int64_t *)args[0].v_ptr = value * 2;
  return XFFI_OK;
}

static void test_function_setters_receive_address_and_value(void **state) {
  (void)state;
  int32_t type_index;
  assert_int_equal(xffi_type_register(&type_index, "test.field_storage.Doubled", XFFI_TYPE_OBJECT), XFFI_OK);
  xffi_object *setter;
  assert_int_equal(xffi_function_new(&setter, doubling_setter, NULL, NULL), XFFI_OK);
  xffi_field_info info;
  memset(&info, 0, sizeof(info));
  info.name.data = "twice";
  info.name.size = 5;
  info.size = 8;
  info.alignment = 8;
  info.offset = offsetof(sample, count);
  info.field_static_type_index = XFFI_TYPE_INT;
  info.flags = XFFI_FIELD_WRITABLE | XFFI_FIELD_SETTER_IS_FUNCTION;
  assert_int_equal(xffi_field_getter_for_type(&info.getter, XFFI_TYPE_INT), XFFI_OK);
  info.setter = setter;
  assert_int_equal(xffi_type_register_field(type_index, &info), XFFI_OK);
  xffi_object_dec_ref(setter);

  sample *s = calloc(1, sizeof(sample));
  assert_non_null(s);
  xffi_object_init(&s->header, type_index, sample_deleter);
  s->anything = xffi_any_none();
  xffi_any v = xffi_any_int(21);
  assert_int_equal(xffi_object_set_field(&s->header, "twice", &v), XFFI_OK);
  assert_int_equal(s->count, 42);
  xffi_object_dec_ref(&s->header);
  assert_nothing_raised();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_get_and_set_by_name_round_trip),
      cmocka_unit_test(test_bad_names_types_and_read_only_fields_are_errors),
      cmocka_unit_test(test_fields_and_methods_are_found_through_ancestors),
      cmocka_unit_test(test_function_setters_receive_address_and_value),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
