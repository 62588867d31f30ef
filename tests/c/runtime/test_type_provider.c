/* Types only the process's other runtime knows, through a fake type provider
 * (c/runtime/type_internal.h): lookups by index and key, the inline
 * is-instance forms, fields read by name (added after the type), attributes
 * from the provider's column, and indices the provider lacks (a clear error,
 * never a call that would abort tvm-ffi's runtime). */
#include "test_util.h"

#include <xffi/reflection.h>
#include <xffi/sys/type.h>

#include "runtime/type_internal.h"

/* Indices far past this runtime's own types. */
#define BASE_INDEX 3000
#define CHILD_INDEX 3001
#define MISSING_INDEX 3900

/* An object of fake.Child: the header, then x (int64) at 24. */
typedef struct child_object {
  xffi_object header;
  int64_t x;
} child_object;

static int get_int(void *field, xffi_any *result) {
  int64_t v;
  memcpy(&v, field, sizeof(v));
  *result = xffi_any_int(v);
  return XFFI_OK;
}

static xffi_field_info child_fields[1];
static const xffi_type_info *base_ancestors[1], *child_ancestors[2];
static xffi_type_info base_info, child_info;
static xffi_any repr_data[MISSING_INDEX + 1];
static xffi_type_attr_column repr_column = {repr_data, MISSING_INDEX + 1, 0};
static int32_t own_index = -1; /* a type of this runtime alone */
static int asked_for_missing, asked_below_dynamic;

static const xffi_type_info *fake_info_by_index(int32_t type_index) {
  if (type_index < XFFI_TYPE_DYNAMIC_BEGIN) asked_below_dynamic++;
  if (type_index == BASE_INDEX) return &base_info;
  if (type_index == CHILD_INDEX) return &child_info;
  asked_for_missing++;
  return NULL; /* tvm-ffi would abort here: the provider must not */
}

static int32_t fake_index_by_key(const char *key, size_t size) {
  if (size == 9 && memcmp(key, "fake.Base", 9) == 0) return BASE_INDEX;
  if (size == 10 && memcmp(key, "fake.Child", 10) == 0) return CHILD_INDEX;
  return -1;
}

static const xffi_type_attr_column *fake_attr_column(const char *name, size_t size) {
  return size == 12 && memcmp(name, "__ffi_repr__", 12) == 0 ? &repr_column : NULL;
}

static const xffi_type_provider fake = {fake_info_by_index, fake_index_by_key, fake_attr_column};

static int setup(void **state) {
  (void)state;
  const xffi_type_info *object = NULL;
  assert_int_equal(xffi_type_info_get(&object, XFFI_TYPE_OBJECT), XFFI_OK);
  base_ancestors[0] = object;
  child_ancestors[0] = object;
  child_ancestors[1] = &base_info;
  base_info = (xffi_type_info){BASE_INDEX, 1, {"fake.Base", 9}, base_ancestors, 1, 0, 0, NULL, NULL, NULL};
  child_info = (xffi_type_info){CHILD_INDEX, 2, {"fake.Child", 10}, child_ancestors, 2, 0, 0, NULL, NULL, NULL};
  memset(child_fields, 0, sizeof(child_fields));
  child_fields[0].name = (xffi_byte_array){"x", 1};
  child_fields[0].size = 8;
  child_fields[0].alignment = 8;
  child_fields[0].offset = 24;
  child_fields[0].getter = get_int;
  child_fields[0].field_static_type_index = XFFI_TYPE_INT;
  assert_int_equal(xffi_type_register(&own_index, "test.provider.Own", XFFI_TYPE_OBJECT), XFFI_OK);
  xffi_type_provider_set(&fake);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  xffi_type_provider_set(NULL);
  return 0;
}

static void test_a_provided_type_is_found_by_key_and_index_with_its_ancestry(void **state) {
  (void)state;
  const xffi_type_info *by_key = NULL, *by_index = NULL;
  assert_int_equal(xffi_type_info_get_by_key(&by_key, "fake.Child"), XFFI_OK);
  assert_int_equal(xffi_type_info_get(&by_index, CHILD_INDEX), XFFI_OK);
  assert_ptr_equal(by_key, by_index); /* one record: the mirror */
  assert_int_equal(by_key->type_index, CHILD_INDEX);
  assert_int_equal(by_key->type_depth, 2);
  assert_string_equal(by_key->type_key.data, "fake.Child");
  assert_string_equal(by_key->type_ancestors[1]->type_key.data, "fake.Base");
  assert_int_equal(by_key->type_ancestors[0]->type_index, XFFI_TYPE_OBJECT);
  assert_string_equal(xffi_type_key(BASE_INDEX), "fake.Base");
  /* Found here, registered there: not this registry's own type. */
  assert_int_equal(xffi_type_registered_here(CHILD_INDEX), 0);
  assert_int_equal(xffi_type_registered_here(own_index), 1);
  assert_int_equal(xffi_type_registered_here(XFFI_TYPE_OBJECT), 1);
  assert_int_equal(xffi_type_registered_here(MISSING_INDEX), 0);
  assert_int_equal(asked_below_dynamic, 0); /* this runtime's own types are never asked for */
}

static void test_is_instance_of_a_provided_type_inline_and_checked(void **state) {
  (void)state;
  child_object obj;
  memset(&obj, 0, sizeof(obj));
  obj.header.type_index = CHILD_INDEX;
  const xffi_type_info *base = NULL;
  assert_int_equal(xffi_type_info_get(&base, BASE_INDEX), XFFI_OK);
  assert_true(xffi_object_is_a_unchecked(&obj.header, BASE_INDEX));
  assert_true(xffi_object_is_a_unchecked(&obj.header, XFFI_TYPE_OBJECT));
  assert_false(xffi_object_is_a_unchecked(&obj.header, XFFI_TYPE_STRING));
  assert_true(xffi_object_is_a_type_unchecked(&obj.header, base));
  int is = -1;
  assert_int_equal(xffi_object_is_a(&is, &obj.header, BASE_INDEX), XFFI_OK);
  assert_int_equal(is, 1);
  assert_int_equal(xffi_object_is_a(&is, &obj.header, XFFI_TYPE_ARRAY), XFFI_OK);
  assert_int_equal(is, 0);
}

static void test_fields_registered_after_the_type_are_read_by_name(void **state) {
  (void)state;
  child_object obj;
  memset(&obj, 0, sizeof(obj));
  obj.header.type_index = CHILD_INDEX;
  obj.x = 42;
  xffi_any out = xffi_any_none();
  const xffi_type_info *mirror = NULL;
  assert_int_equal(xffi_type_info_get(&mirror, CHILD_INDEX), XFFI_OK);
  assert_int_equal(mirror->num_fields, 0);
  /* The provider's type gains its field after this runtime met the type. */
  __atomic_store_n(&child_info.fields, child_fields, __ATOMIC_RELEASE);
  __atomic_store_n(&child_info.num_fields, 1, __ATOMIC_RELEASE);
  assert_int_equal(xffi_object_get_field(&out, &obj.header, "x"), XFFI_OK);
  assert_int_equal(out.type_index, XFFI_TYPE_INT);
  assert_int_equal(out.v_int64, 42);
  assert_int_equal(mirror->num_fields, 1);
  assert_int_equal(xffi_object_get_field(&out, &obj.header, "y"), XFFI_FAIL);
  assert_raised(XFFI_KIND_ATTRIBUTE, "y");
}

static void test_attributes_come_from_the_providers_column(void **state) {
  (void)state;
  xffi_object *marker = NULL;
  assert_int_equal(xffi_string_new(&marker, "the provider's repr hook", 24), XFFI_OK);
  xffi_any out = xffi_any_none();
  assert_int_equal(xffi_type_get_attr(&out, CHILD_INDEX, "__ffi_repr__"), XFFI_OK);
  assert_int_equal(out.type_index, XFFI_TYPE_NONE); /* none there yet */
  repr_data[CHILD_INDEX] = xffi_any_object(marker);
  assert_int_equal(xffi_type_get_attr(&out, CHILD_INDEX, "__ffi_repr__"), XFFI_OK);
  assert_ptr_equal(out.v_obj, marker);
  xffi_any_release(&out);
  /* A type of this runtime alone never reads the provider's column. */
  int32_t own = own_index;
  repr_data[own] = xffi_any_object(marker);
  assert_int_equal(xffi_type_get_attr(&out, own, "__ffi_repr__"), XFFI_OK);
  assert_int_equal(out.type_index, XFFI_TYPE_NONE);
  repr_data[own] = xffi_any_none();
  repr_data[CHILD_INDEX] = xffi_any_none();
  xffi_object_dec_ref(marker);
}

static void test_an_index_no_runtime_has_is_a_clear_error(void **state) {
  (void)state;
  int before = asked_for_missing;
  const xffi_type_info *info = (const xffi_type_info *)1;
  assert_int_equal(xffi_type_info_get(&info, MISSING_INDEX), XFFI_FAIL);
  assert_raised(XFFI_KIND_INDEX, "xffi_type_info_get: no type has index 3900");
  assert_ptr_equal(info, (const xffi_type_info *)1);
  assert_true(asked_for_missing > before);
  child_object obj;
  memset(&obj, 0, sizeof(obj));
  obj.header.type_index = MISSING_INDEX;
  assert_false(xffi_object_is_a_unchecked(&obj.header, BASE_INDEX));
  assert_null(xffi_object_type_info_unchecked(&obj.header));
  int is = -1;
  assert_int_equal(xffi_object_is_a(&is, &obj.header, BASE_INDEX), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "obj has type index 3900, which is not a registered object type");
  assert_int_equal(xffi_type_info_get_by_key(&info, "fake.Missing"), XFFI_FAIL);
  assert_raised(XFFI_KIND_KEY, "no type is registered with key 'fake.Missing'");
  xffi_any out = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&out, &obj.header, "x"), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "has type index 3900, which is not a registered type");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_provided_type_is_found_by_key_and_index_with_its_ancestry),
      cmocka_unit_test(test_is_instance_of_a_provided_type_inline_and_checked),
      cmocka_unit_test(test_fields_registered_after_the_type_are_read_by_name),
      cmocka_unit_test(test_attributes_come_from_the_providers_column),
      cmocka_unit_test(test_an_index_no_runtime_has_is_a_clear_error),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
