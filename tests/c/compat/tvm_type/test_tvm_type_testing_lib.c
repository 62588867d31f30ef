/* The wheel's own C++ testing library (libtvm_ffi_testing.so, built by
 * tvm-ffi against its headers) loaded on xffi's type registry: its static
 * initialisers declare ~35 types with fields, methods, metadata and type
 * attributes through TVMFFIType*, as at `import tvm_ffi`. Any refusal there
 * would be an uncaught C++ exception (std::terminate): loading at all is the
 * first check, what the registry then holds the second. The "libtvm_ffi.so"
 * this links is xffi plus weak stand-ins for other areas' functions
 * (stand_ins.c). */
#include <dlfcn.h>

#include "test_util.h"

#include <xffi/reflection.h>
#include <xffi/tvm_ffi.h>

static int32_t index_of(const char *key) {
  xffi_byte_array k = {key, strlen(key)};
  int32_t out = -1;
  assert_int_equal(TVMFFITypeKeyToIndex(&k, &out), 0);
  return out;
}

/* The entry of type_index in column name (borrowed), or NULL when absent. */
static const xffi_any *column_entry(const char *name, int32_t type_index) {
  xffi_byte_array n = {name, strlen(name)};
  const xffi_type_attr_column *c = TVMFFIGetTypeAttrColumn(&n);
  assert_non_null(c);
  int32_t at = type_index - c->begin_index;
  return at >= 0 && at < c->size && c->data[at].type_index != XFFI_TYPE_NONE ? &c->data[at] : NULL;
}

static void test_testing_library_registers_its_types_on_xffi(void **state) {
  (void)state;
  void *lib = dlopen(XFFI_TVM_FFI_TESTING_LIB, RTLD_NOW | RTLD_LOCAL);
  if (!lib) fail_msg("dlopen: %s", dlerror());
  int types = 0, fields = 0, methods = 0, with_metadata = 0;
  for (int32_t i = XFFI_TYPE_DYNAMIC_BEGIN; i < xffi_type_count(); ++i) {
    const xffi_type_info *info = TVMFFIGetTypeInfo(i);
    if (!info) {
      xffi_object_dec_ref(xffi_error_move_raised()); /* a hole */
      continue;
    }
    if (strncmp(info->type_key.data, "testing.", 8) != 0) continue;
    types++;
    fields += info->num_fields;
    methods += info->num_methods;
    with_metadata += info->metadata != NULL;
  }
  print_message("testing types %d, fields %d, methods %d, with metadata %d\n", types, fields, methods, with_metadata);
  assert_true(types >= 30);
  assert_true(fields >= 80);
  assert_true(methods >= 15);
  assert_true(with_metadata >= 30);

  int32_t base = index_of("testing.TestObjectBase"), derived = index_of("testing.TestObjectDerived");
  const xffi_type_info *info = TVMFFIGetTypeInfo(derived);
  assert_int_equal(info->type_depth, 2);
  assert_ptr_equal(info->type_ancestors[1], TVMFFIGetTypeInfo(base));
  assert_non_null(info->metadata);
  assert_true(info->metadata->total_size > 24);
  for (int32_t f = 0; f < info->num_fields; ++f) {
    assert_true(info->fields[f].name.size > 0);
    assert_int_equal(info->fields[f].name.data[info->fields[f].name.size], '\0'); /* the registry's copy */
  }
  xffi_object obj;
  xffi_object_init(&obj, derived, NULL);
  assert_true(xffi_object_is_a_unchecked(&obj, base));
  /* Type attributes: every declared type says whether it is final; creatable ones have __ffi_new__. */
  const xffi_any *final_derived = column_entry("__ffi_type_final__", derived);
  const xffi_any *final_base = column_entry("__ffi_type_final__", base);
  assert_non_null(final_derived);
  assert_non_null(final_base);
  assert_int_equal(final_derived->type_index, XFFI_TYPE_BOOL);
  assert_int_equal(final_derived->v_int64, 1);
  assert_int_equal(final_base->v_int64, 0);
  const xffi_any *creator = column_entry("__ffi_new__", index_of("testing.TestIntPair"));
  assert_non_null(creator);
  assert_int_equal(creator->type_index, XFFI_TYPE_FUNCTION);
  /* The library stays loaded: its types' records point into it. */
}

/* A type of the C++ library prints by its reflected fields through
 * xffi_repr (c/repr.c), which reads only the type records: made by its
 * __ffi_new__ creator, filled through its field records' setters. */
static void test_testing_library_objects_print_by_their_fields(void **state) {
  (void)state;
  void *lib = dlopen(XFFI_TVM_FFI_TESTING_LIB, RTLD_NOW | RTLD_LOCAL);
  if (!lib) fail_msg("dlopen: %s", dlerror());
  int32_t pair_type = index_of("testing.TestIntPair");
  const xffi_any *creator = column_entry("__ffi_new__", pair_type);
  assert_non_null(creator);
  xffi_any made = xffi_any_none();
  assert_int_equal(xffi_function_call(creator->v_obj, NULL, 0, &made), XFFI_OK);
  assert_int_equal(made.type_index, pair_type);
  const xffi_type_info *info = TVMFFIGetTypeInfo(pair_type);
  for (int32_t f = 0; f < info->num_fields; ++f) {
    const xffi_field_info *field = &info->fields[f];
    assert_false(field->flags & XFFI_FIELD_SETTER_IS_FUNCTION);
    xffi_any value = xffi_any_int(field->name.data[0] == 'a' ? 1 : 2);
    xffi_field_setter set; /* stored as a void * (ISO C has no cast between the two) */
    memcpy(&set, &field->setter, sizeof(set));
    assert_int_equal(set((char *)made.v_obj + field->offset, &value), 0);
  }
  xffi_object *text;
  assert_int_equal(xffi_repr(&text, &made), XFFI_OK);
  xffi_byte_array s;
  xffi_any view = xffi_any_object(text);
  assert_int_equal(xffi_any_to_str(&s, &view), XFFI_OK);
  assert_int_equal(s.size, strlen("testing.TestIntPair(a=1, b=2)"));
  assert_memory_equal(s.data, "testing.TestIntPair(a=1, b=2)", s.size);
  xffi_object_dec_ref(text);
  xffi_any_release(&made);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_testing_library_registers_its_types_on_xffi),
      cmocka_unit_test(test_testing_library_objects_print_by_their_fields),
  };
  return cmocka_run_group_tests_name("tvm_type_testing_lib", tests, NULL, NULL);
}
