/* tvm-ffi's reflection storage and type-attribute columns (c/type_reflection.c,
 * c/type_attr.c, c/tvm_type.c) and ffi.GetRegisteredTypeKeys
 * (c/globals_type.c): what the registry copies, what it owns, what stays
 * readable while it grows, and bad input (an error, never an exit). */
#include "test_util.h"

#include <xffi/reflection.h>
#include <xffi/tvm_ffi.h>

#include "compat/globals/builtin_globals.h"

static xffi_byte_array bytes_of(const char *s) {
  xffi_byte_array b = {s, strlen(s)};
  return b;
}

static int32_t new_type(const char *key) {
  xffi_byte_array k = bytes_of(key);
  int32_t index = TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, XFFI_TYPE_OBJECT);
  assert_true(index >= XFFI_TYPE_DYNAMIC_BEGIN);
  return index;
}

static xffi_object *new_string(const char *text) {
  xffi_object *s = NULL;
  assert_int_equal(xffi_string_new(&s, text, strlen(text)), XFFI_OK);
  return s;
}

/* A field record with a valid layout: an int right after the header. */
static xffi_field_info field_named(char *name) {
  xffi_field_info f;
  memset(&f, 0, sizeof(f));
  f.name = bytes_of(name);
  f.size = 8;
  f.alignment = 8;
  f.offset = 24;
  f.field_static_type_index = XFFI_TYPE_INT;
  assert_int_equal(xffi_field_getter_for_type(&f.getter, XFFI_TYPE_INT), XFFI_OK);
  f.default_value_or_factory = xffi_any_none();
  return f;
}

static void test_fields_are_copied_owned_and_readable_across_growth(void **state) {
  (void)state;
  int32_t t = new_type("test.refl.Point");
  char name[16] = "x", doc[16] = "the x", meta[16] = "{}";
  xffi_object *def = new_string("a default long enough for the heap");
  xffi_object *setter = NULL;
  assert_int_equal(xffi_function_new(&setter, test_noop_callback, NULL, NULL), XFFI_OK);
  xffi_field_info f = field_named(name);
  f.doc = bytes_of(doc);
  f.metadata = bytes_of(meta);
  f.flags = XFFI_FIELD_HAS_DEFAULT | XFFI_FIELD_SETTER_IS_FUNCTION;
  f.size = 8;
  f.alignment = 8;
  f.offset = 24;
  f.setter = setter;
  f.default_value_or_factory = xffi_any_object(def);
  f.field_static_type_index = XFFI_TYPE_INT;
  assert_int_equal(TVMFFITypeRegisterField(t, &f), 0);
  /* The caller's texts can go: the registry has copies. */
  strcpy(name, "CHANGED");
  strcpy(doc, "CHANGED");
  const xffi_type_info *info = TVMFFIGetTypeInfo(t);
  assert_int_equal(info->num_fields, 1);
  const xffi_field_info *first = info->fields;
  assert_string_equal(first->name.data, "x");
  assert_int_equal(first->name.size, 1);
  assert_string_equal(first->doc.data, "the x");
  assert_string_equal(first->metadata.data, "{}");
  assert_int_equal(first->offset, 24);
  assert_int_equal(first->field_static_type_index, XFFI_TYPE_INT);
  /* Default and setter: references of the registry's own. */
  assert_ptr_equal(first->default_value_or_factory.v_obj, def);
  assert_int_equal(xffi_object_strong_count(def), 2);
  assert_int_equal(xffi_object_strong_count(setter), 2);
  xffi_object_dec_ref(def);
  xffi_object_dec_ref(setter);
  /* Without HasDefault the default is None, whatever was passed. */
  xffi_field_info g = field_named("y");
  g.offset = 32; /* beside x: records may not overlap */
  g.default_value_or_factory = xffi_any_int(5);
  assert_int_equal(TVMFFITypeRegisterField(t, &g), 0);
  assert_int_equal(info->fields[1].default_value_or_factory.type_index, XFFI_TYPE_NONE);
  /* Growth: the array moves, the old one stays readable. */
  char more[16];
  for (int i = 0; i < 20; ++i) {
    snprintf(more, sizeof(more), "f%d", i);
    xffi_field_info h = field_named(more);
    h.offset = 40 + 8 * i;
    assert_int_equal(xffi_type_register_field(t, &h), XFFI_OK);
  }
  assert_int_equal(info->num_fields, 22);
  assert_ptr_not_equal(info->fields, first);
  assert_string_equal(first->name.data, "x");
  assert_string_equal(info->fields[21].name.data, "f19");
  /* A name the type has already: an error, nothing added. */
  xffi_field_info dup = field_named("y");
  assert_int_equal(TVMFFITypeRegisterField(t, &dup), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFITypeRegisterField: info->name 'y' is already a field of test.refl.Point");
  assert_int_equal(info->num_fields, 22);
}

static void test_field_bad_input_is_an_error_and_keeps_nothing(void **state) {
  (void)state;
  int32_t t = new_type("test.refl.BadField");
  xffi_field_info f = field_named("z");
  assert_int_equal(TVMFFITypeRegisterField(t, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFITypeRegisterField: info is NULL");
  assert_int_equal(TVMFFITypeRegisterField(14, &f), -1);
  assert_raised(XFFI_KIND_INDEX, "TVMFFITypeRegisterField: type_index 14 is not a registered type");
  assert_int_equal(TVMFFITypeRegisterField(-5, &f), -1);
  assert_raised(XFFI_KIND_INDEX, "type_index -5 is not a registered type");
  f.doc.size = 3; /* data NULL */
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  assert_raised(XFFI_KIND_VALUE, "info->doc is NULL but its size is 3");
  /* A bad default is refused with nothing kept; a good one on a bad index is released. */
  xffi_object *def = new_string("a default long enough for the heap");
  xffi_field_info g = field_named("w");
  g.flags = XFFI_FIELD_HAS_DEFAULT;
  g.default_value_or_factory = xffi_any_object(def);
  assert_int_equal(TVMFFITypeRegisterField(999999, &g), -1);
  assert_raised(XFFI_KIND_INDEX, "not a registered type");
  assert_int_equal(xffi_object_strong_count(def), 1);
  xffi_object_dec_ref(def);
  xffi_any rvalue = xffi_any_none();
  rvalue.type_index = XFFI_TYPE_OBJECT_RVALUE;
  rvalue.v_ptr = &def;
  g.default_value_or_factory = rvalue;
  assert_int_equal(TVMFFITypeRegisterField(t, &g), -1);
  assert_raised(XFFI_KIND_TYPE, "");
  assert_int_equal(TVMFFIGetTypeInfo(t)->num_fields, 0);
}

static void test_methods_are_copied_and_owned(void **state) {
  (void)state;
  int32_t t = new_type("test.refl.WithMethods");
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, test_noop_callback, NULL, NULL), XFFI_OK);
  char name[16] = "run";
  xffi_method_info m;
  memset(&m, 0, sizeof(m));
  m.name = bytes_of(name);
  m.flags = XFFI_FIELD_IS_STATIC_METHOD;
  m.method = xffi_any_object(fn);
  for (int i = 0; i < 6; ++i) {
    name[3] = (char)('0' + i);
    name[4] = '\0';
    m.name = bytes_of(name);
    assert_int_equal(TVMFFITypeRegisterMethod(t, &m), 0);
  }
  const xffi_type_info *info = TVMFFIGetTypeInfo(t);
  assert_int_equal(info->num_methods, 6);
  assert_string_equal(info->methods[0].name.data, "run0");
  assert_string_equal(info->methods[5].name.data, "run5");
  assert_int_equal(info->methods[5].flags, XFFI_FIELD_IS_STATIC_METHOD);
  assert_ptr_equal(info->methods[0].method.v_obj, fn);
  assert_int_equal(xffi_object_strong_count(fn), 7);
  xffi_object_dec_ref(fn);
  assert_int_equal(TVMFFITypeRegisterMethod(t, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFITypeRegisterMethod: info is NULL");
  assert_int_equal(TVMFFITypeRegisterMethod(100000, &m), -1);
  assert_raised(XFFI_KIND_INDEX, "type_index 100000 is not a registered type");
  assert_int_equal(info->num_methods, 6);
}

static void test_metadata_is_set_once(void **state) {
  (void)state;
  int32_t t = new_type("test.refl.WithMetadata");
  char doc[16] = "a point";
  xffi_type_metadata md = {bytes_of(doc), NULL, 40, XFFI_SEQ_HASH_TREE_NODE};
  assert_int_equal(TVMFFITypeRegisterMetadata(t, &md), 0);
  strcpy(doc, "CHANGED");
  const xffi_type_metadata *got = TVMFFIGetTypeInfo(t)->metadata;
  assert_non_null(got);
  assert_string_equal(got->doc.data, "a point");
  assert_int_equal(got->total_size, 40);
  assert_int_equal(got->structural_eq_hash_kind, XFFI_SEQ_HASH_TREE_NODE);
  md.total_size = 99;
  assert_int_equal(TVMFFITypeRegisterMetadata(t, &md), -1);
  assert_raised(XFFI_KIND_RUNTIME, "the metadata of test.refl.WithMetadata (index ");
  assert_ptr_equal(TVMFFIGetTypeInfo(t)->metadata, got);
  assert_int_equal(got->total_size, 40);
  /* The same size and kind again (a second copy of a library): a no-op that
   * keeps the first's doc. */
  md.total_size = 40;
  assert_int_equal(TVMFFITypeRegisterMetadata(t, &md), 0);
  assert_ptr_equal(TVMFFIGetTypeInfo(t)->metadata, got);
  assert_string_equal(got->doc.data, "a point");
  md.total_size = 99;
  assert_int_equal(TVMFFITypeRegisterMetadata(XFFI_TYPE_OBJECT, &md), -1); /* Object's is preset */
  assert_raised(XFFI_KIND_RUNTIME, "already registered");
  assert_int_equal(TVMFFITypeRegisterMetadata(t, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "metadata is NULL");
  assert_int_equal(TVMFFITypeRegisterMetadata(50, &md), -1);
  assert_raised(XFFI_KIND_INDEX, "type_index 50 is not a registered type");
  assert_int_equal(xffi_type_register_metadata(XFFI_TYPE_BIGINT, &md), XFFI_FAIL); /* preset, as in tvm-ffi */
  assert_raised(XFFI_KIND_RUNTIME, "the metadata of ffi.BigInt (index 78) is already registered");
  assert_int_equal(xffi_type_register_metadata(XFFI_TYPE_OPAQUE_FOREIGN, &md), XFFI_OK); /* a static type without */
}

static const char *const precreated[] = {
    "__any_hash__",     "__any_equal__",      "__ffi_enum__",         "__s_equal__",
    "__s_hash__",       "__s_visit__",        "__s_mutate__",         "__s_maybe_inplace_mutate__",
    "__data_to_json__", "__data_from_json__", "__ffi_shallow_copy__", "__ffi_repr__",
    "__ffi_hash__",     "__ffi_eq__",         "__ffi_compare__",      "__ffi_new__",
    "__ffi_init__",     "__ffi_convert__",    "__ffi_type_final__",
};

/* First test to touch columns: the pre-created ones exist before anything is registered. */
static void test_runtime_columns_exist_from_the_start(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof(precreated) / sizeof(precreated[0]); ++i) {
    xffi_byte_array name = bytes_of(precreated[i]);
    const xffi_type_attr_column *c = TVMFFIGetTypeAttrColumn(&name);
    assert_non_null(c);
    assert_int_equal(c->begin_index, 0);
    const xffi_type_attr_column *again = NULL;
    assert_int_equal(xffi_type_attr_column_lookup(&again, precreated[i]), XFFI_OK);
    assert_ptr_equal(again, c);
  }
  xffi_byte_array never = bytes_of("__ffi_convert_type_schema__");
  assert_null(TVMFFIGetTypeAttrColumn(&never)); /* absent: NULL, and not an error */
  assert_nothing_raised();
}

static void test_attributes_are_owned_once_per_type_in_fixed_columns(void **state) {
  (void)state;
  int32_t t = new_type("test.attr.T");
  xffi_byte_array name = bytes_of("test.attr.color");
  xffi_any none = xffi_any_none();
  assert_null(TVMFFIGetTypeAttrColumn(&name));
  /* Index 0 only creates the column. */
  assert_int_equal(TVMFFITypeRegisterAttr(XFFI_TYPE_NONE, &name, &none), 0);
  const xffi_type_attr_column *c = TVMFFIGetTypeAttrColumn(&name);
  assert_non_null(c);
  assert_int_equal(c->size, 0);
  xffi_object *value = new_string("a value long enough for the heap");
  xffi_any v = xffi_any_object(value);
  assert_int_equal(TVMFFITypeRegisterAttr(t, &name, &v), 0);
  assert_ptr_equal(TVMFFIGetTypeAttrColumn(&name), c);
  assert_int_equal(c->size, t + 1);
  assert_int_equal(c->begin_index, 0);
  assert_ptr_equal(c->data[t].v_obj, value);
  assert_int_equal(xffi_object_strong_count(value), 2);
  for (int32_t i = 0; i < t; ++i) assert_int_equal(c->data[i].type_index, XFFI_TYPE_NONE);
  /* A second value for the type: RuntimeError, the first kept. */
  xffi_any other = xffi_any_int(3);
  assert_int_equal(TVMFFITypeRegisterAttr(t, &name, &other), -1);
  assert_raised(XFFI_KIND_RUNTIME, "type attribute 'test.attr.color' is already registered for test.attr.T");
  assert_ptr_equal(c->data[t].v_obj, value);
  /* A borrowed C string is kept as an owned string. */
  xffi_byte_array hash_name = bytes_of("__any_hash__");
  const xffi_type_attr_column *hash = TVMFFIGetTypeAttrColumn(&hash_name);
  xffi_any text = xffi_any_c_str("a borrowed text longer than seven bytes");
  assert_int_equal(TVMFFITypeRegisterAttr(t, &hash_name, &text), 0);
  assert_int_equal(hash->data[t].type_index, XFFI_TYPE_STRING);
  /* Growth: a later type moves data; the column stays, the old data stays readable. */
  const xffi_any *old = c->data;
  int32_t later = t;
  for (int i = 0; i < 40; ++i) {
    char key[32];
    snprintf(key, sizeof(key), "test.attr.Later%d", i);
    later = new_type(key);
  }
  assert_int_equal(xffi_type_register_attr(later, "test.attr.color", &other), XFFI_OK);
  assert_ptr_equal(TVMFFIGetTypeAttrColumn(&name), c);
  assert_int_equal(c->size, later + 1);
  assert_ptr_not_equal(c->data, old);
  assert_ptr_equal(old[t].v_obj, value);
  assert_ptr_equal(c->data[t].v_obj, value);
  assert_int_equal(c->data[later].v_int64, 3);
  xffi_object_dec_ref(value);
}

static void test_attribute_bad_input_is_an_error(void **state) {
  (void)state;
  int32_t t = new_type("test.attr.Bad");
  xffi_byte_array name = bytes_of("test.attr.bad"), broken = {NULL, 2};
  xffi_any v = xffi_any_int(1);
  assert_int_equal(TVMFFITypeRegisterAttr(t, NULL, &v), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFITypeRegisterAttr: attr_name is NULL");
  assert_int_equal(TVMFFITypeRegisterAttr(t, &broken, &v), -1);
  assert_raised(XFFI_KIND_VALUE, "attr_name has NULL data but size 2");
  assert_int_equal(TVMFFITypeRegisterAttr(t, &name, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFITypeRegisterAttr: value is NULL");
  const int32_t bad_index[] = {-1, 14, 127, INT32_MAX};
  for (size_t i = 0; i < sizeof(bad_index) / sizeof(bad_index[0]); ++i) {
    assert_int_equal(TVMFFITypeRegisterAttr(bad_index[i], &name, &v), -1);
    assert_raised(XFFI_KIND_INDEX, "is not a registered type");
  }
  xffi_object *obj = new_string("an object to move from, on the heap");
  xffi_any rvalue = xffi_any_none();
  rvalue.type_index = XFFI_TYPE_OBJECT_RVALUE;
  rvalue.v_ptr = &obj;
  assert_int_equal(TVMFFITypeRegisterAttr(t, &name, &rvalue), -1);
  assert_raised(XFFI_KIND_TYPE, "");
  assert_non_null(obj);
  xffi_object_dec_ref(obj);
  assert_null(TVMFFIGetTypeAttrColumn(&name)); /* nothing made on failure */
  assert_null(TVMFFIGetTypeAttrColumn(NULL));
  assert_raised(XFFI_KIND_VALUE, "TVMFFIGetTypeAttrColumn: attr_name is NULL");
  assert_null(TVMFFIGetTypeAttrColumn(&broken));
  assert_raised(XFFI_KIND_VALUE, "attr_name has NULL data");
  const xffi_type_attr_column *out = NULL;
  assert_int_equal(xffi_type_attr_column_lookup(&out, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "name is NULL");
  assert_int_equal(xffi_type_register_attr(t, NULL, &v), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "name is NULL");
}

static void test_get_registered_type_keys_lists_the_table_in_order(void **state) {
  (void)state;
  int32_t mine = new_type("test.keys.Mine");
  const xffi_builtin_global *global = NULL;
  for (size_t i = 0; i < xffi_globals_type.count; ++i)
    if (strcmp(xffi_globals_type.entries[i].name, "ffi.GetRegisteredTypeKeys") == 0)
      global = &xffi_globals_type.entries[i];
  assert_non_null(global);
  xffi_any result = xffi_any_none();
  assert_int_equal(xffi_function_call((xffi_object *)global->function, NULL, 0, &result), XFFI_OK);
  assert_int_equal(result.type_index, XFFI_TYPE_ARRAY);
  int64_t n = 0;
  assert_int_equal(xffi_array_length(&n, result.v_obj), XFFI_OK);
  int64_t expected = 0;
  for (int32_t i = 0; i < xffi_type_count(); ++i) {
    const xffi_type_info *info = NULL;
    if (xffi_type_info_get(&info, i) == XFFI_OK)
      expected++;
    else
      xffi_object_dec_ref(xffi_error_move_raised());
  }
  assert_int_equal(n, expected);
  const char *want[] = {"None", "int"};
  for (int64_t i = 0; i < 2; ++i) {
    xffi_any key = xffi_any_none();
    assert_int_equal(xffi_array_get(&key, result.v_obj, i), XFFI_OK);
    xffi_byte_array text;
    assert_int_equal(xffi_any_to_str(&text, &key), XFFI_OK);
    assert_int_equal(text.size, strlen(want[i]));
    assert_memory_equal(text.data, want[i], text.size);
    xffi_any_release(&key);
  }
  xffi_any last = xffi_any_none();
  assert_int_equal(xffi_array_get(&last, result.v_obj, n - 1), XFFI_OK);
  xffi_byte_array text;
  assert_int_equal(xffi_any_to_str(&text, &last), XFFI_OK);
  assert_true(text.size > 0);
  (void)mine;
  xffi_any_release(&last);
  xffi_any_release(&result);
  xffi_any arg = xffi_any_int(1);
  assert_int_equal(xffi_function_call((xffi_object *)global->function, &arg, 1, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "takes no arguments");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runtime_columns_exist_from_the_start),
      cmocka_unit_test(test_fields_are_copied_owned_and_readable_across_growth),
      cmocka_unit_test(test_field_bad_input_is_an_error_and_keeps_nothing),
      cmocka_unit_test(test_methods_are_copied_and_owned),
      cmocka_unit_test(test_metadata_is_set_once),
      cmocka_unit_test(test_attributes_are_owned_once_per_type_in_fixed_columns),
      cmocka_unit_test(test_attribute_bad_input_is_an_error),
      cmocka_unit_test(test_get_registered_type_keys_lists_the_table_in_order),
  };
  return cmocka_run_group_tests_name("tvm_type_reflection", tests, NULL, NULL);
}
