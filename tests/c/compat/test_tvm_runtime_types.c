/* What the tvm_ffi package needs from the runtime when it is imported:
 * the reflected types tvm-ffi's runtime registers itself (c/type_runtime.c:
 * keys, parents, fields with getters and setters), ffi.EnumState and its
 * __ffi_init__ (c/enum_state.c), and the ffi.Recursive* globals that were
 * pending until the reflection issue (c/globals_recursive.c). */
#include <stdint.h>

#include "test_util.h"

#include <xffi/array.h>
#include <xffi/reflection.h>
#include <xffi/tvm_ffi.h>

static xffi_byte_array bytes_of(const char *s) {
  xffi_byte_array b = {s, strlen(s)};
  return b;
}

static const xffi_type_info *info_of(const char *key) {
  xffi_byte_array k = bytes_of(key);
  int32_t index = -1;
  assert_int_equal(TVMFFITypeKeyToIndex(&k, &index), 0);
  const xffi_type_info *info = TVMFFIGetTypeInfo(index);
  assert_non_null(info);
  assert_string_equal(info->type_key.data, key);
  return info;
}

static const xffi_field_info *field_of(const xffi_type_info *info, const char *name) {
  for (int32_t i = 0; i < info->num_fields; ++i)
    if (strcmp(info->fields[i].name.data, name) == 0) return &info->fields[i];
  fail_msg("%s has no field %s", info->type_key.data, name);
  return NULL;
}

static void test_runtime_types_are_found_by_key_under_their_parents(void **state) {
  (void)state;
  static const char *const keys[][2] = {
      {"ffi.EnumState", "ffi.Object"},
      {"ffi.Enum", "ffi.Object"},
      {"ffi.IntEnum", "ffi.Enum"},
      {"ffi.StrEnum", "ffi.Enum"},
      {"ffi.reflection.AccessStep", "ffi.Object"},
      {"ffi.reflection.AccessPath", "ffi.Object"},
      {"ffi.StructuralVisitor", "ffi.Object"},
      {"ffi.VisitErrorContext", "ffi.Object"},
      {"ffi.StructuralMutator", "ffi.Object"},
      {"ffi.StructuralKey", "ffi.Object"},
  };
  int32_t previous = -1;
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); ++i) {
    const xffi_type_info *info = info_of(keys[i][0]);
    assert_true(info->type_index >= XFFI_TYPE_DYNAMIC_BEGIN);
    assert_true(info->type_index > previous); /* tvm-ffi's registration order */
    previous = info->type_index;
    assert_true(info->type_depth >= 1);
    assert_string_equal(info->type_ancestors[info->type_depth - 1]->type_key.data, keys[i][1]);
  }
  /* VisitInterrupt keeps its static index and gains its field. */
  const xffi_type_info *interrupt = info_of("ffi.VisitInterrupt");
  assert_int_equal(interrupt->type_index, XFFI_TYPE_VISIT_INTERRUPT);
  assert_int_equal(field_of(interrupt, "value")->offset, 24);
}

static void test_runtime_fields_have_tvm_ffi_layout_and_schema(void **state) {
  (void)state;
  const xffi_type_info *step = info_of("ffi.reflection.AccessStep");
  const xffi_field_info *kind = field_of(step, "kind");
  assert_int_equal(kind->offset, 24);
  assert_int_equal(kind->size, 4);
  assert_int_equal(kind->flags & XFFI_FIELD_WRITABLE, 0); /* read-only, as def_ro */
  assert_string_equal(kind->metadata.data, "{\"type_schema\":\"{\\\"type\\\":\\\"int\\\"}\"}");
  const xffi_type_info *path = info_of("ffi.reflection.AccessPath");
  assert_int_equal(field_of(path, "parent")->offset, 24);
#if UINTPTR_MAX > 0xFFFFFFFFu /* tvm-ffi's offsets, measured from its 64-bit wheel */
  assert_int_equal(field_of(step, "key")->offset, 32);
  assert_int_equal(field_of(path, "step")->offset, 32);
  assert_int_equal(field_of(path, "depth")->offset, 40);
#endif
  const xffi_type_info *key = info_of("ffi.StructuralKey");
  assert_int_equal(field_of(key, "hash_i64")->offset, 40);
  const xffi_type_info *str_enum = info_of("ffi.StrEnum");
  assert_int_equal(field_of(str_enum, "value")->offset, 32);
  assert_int_equal(field_of(str_enum, "value")->size, 16);
}

/* Calls a field's setter as the package does (its slot holds a C function). */
static int set_field(const xffi_field_info *field, void *object, xffi_any value) {
  xffi_field_setter setter;
  memcpy(&setter, &field->setter, sizeof(setter));
  assert_non_null(setter);
  return setter((char *)object + field->offset, &value);
}

static void test_enum_state_init_makes_an_empty_state_with_readable_fields(void **state) {
  (void)state;
  const xffi_type_info *info = info_of("ffi.EnumState");
  assert_int_equal(info->num_methods, 1);
  const xffi_method_info *init = &info->methods[0];
  assert_string_equal(init->name.data, "__ffi_init__");
  assert_non_null(strstr(init->metadata.data, "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\""));
  assert_true(init->flags & XFFI_FIELD_IS_STATIC_METHOD);
  xffi_any result = xffi_any_none();
  assert_int_equal(TVMFFIFunctionCall(init->method.v_obj, NULL, 0, &result), 0);
  assert_int_equal(result.type_index, info->type_index);
  xffi_object *made = result.v_obj;
  static const struct {
    const char *name;
    int32_t type_index;
  } fields[] = {{"entries", XFFI_TYPE_LIST}, {"indexes", XFFI_TYPE_DICT}, {"attrs", XFFI_TYPE_DICT}};
  for (size_t i = 0; i < 3; ++i) {
    const xffi_field_info *field = field_of(info, fields[i].name);
    xffi_any value = xffi_any_none();
    assert_int_equal(field->getter((char *)made + field->offset, &value), 0);
    assert_int_equal(value.type_index, fields[i].type_index);
    assert_int_equal(xffi_object_strong_count(value.v_obj), 2); /* the state's and ours */
    xffi_any_release(&value);
  }
  /* Arguments are refused. */
  xffi_any arg = xffi_any_int(1);
  assert_int_equal(TVMFFIFunctionCall(init->method.v_obj, &arg, 1, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "ffi.EnumState.__ffi_init__");
  xffi_object_dec_ref(made); /* frees the state and its three containers (ASan checks) */
}

static void test_runtime_field_setters_refuse_wrong_kinds_and_keep_values(void **state) {
  (void)state;
  const xffi_type_info *info = info_of("ffi.reflection.AccessPath");
  /* An object-sized scratch body: header + parent + step + depth. */
  struct {
    xffi_object header;
    xffi_object *parent;
    xffi_object *step;
    int32_t depth;
  } body;
  memset(&body, 0, sizeof(body));
  const xffi_field_info *depth = field_of(info, "depth");
  assert_int_equal(set_field(depth, &body, xffi_any_int(7)), 0);
  assert_int_equal(body.depth, 7);
  assert_int_equal(set_field(depth, &body, xffi_any_int(INT64_C(1) << 40)), -1);
  assert_raised(XFFI_KIND_VALUE, "does not fit a 32-bit field");
  assert_int_equal(set_field(depth, &body, xffi_any_float(1.5)), -1);
  assert_raised(XFFI_KIND_TYPE, "field setter");
  assert_int_equal(body.depth, 7);
  const xffi_field_info *parent = field_of(info, "parent");
  assert_int_equal(set_field(parent, &body, xffi_any_int(3)), -1);
  assert_raised(XFFI_KIND_TYPE, "an object or None");
  xffi_object *held = counted_new();
  assert_int_equal(set_field(parent, &body, xffi_any_object(held)), 0);
  assert_int_equal(xffi_object_strong_count(held), 2);
  assert_int_equal(set_field(parent, &body, xffi_any_none()), 0); /* releases the old value */
  assert_int_equal(xffi_object_strong_count(held), 1);
  assert_null(body.parent);
  xffi_object_dec_ref(held);

  const xffi_type_info *str_enum = info_of("ffi.StrEnum");
  struct {
    xffi_object header;
    int64_t int_index;
    xffi_any str_index;
  } entry;
  memset(&entry, 0, sizeof(entry));
  const xffi_field_info *value = field_of(str_enum, "value");
  assert_int_equal(set_field(value, &entry, xffi_any_int(3)), -1);
  assert_raised(XFFI_KIND_TYPE, "str");
  xffi_any text = xffi_any_none();
  text.type_index = XFFI_TYPE_RAW_STR;
  text.v_c_str = "a string long enough to need a String object";
  assert_int_equal(set_field(value, &entry, text), 0);
  assert_int_equal(entry.str_index.type_index, XFFI_TYPE_STRING); /* an owned copy */
  xffi_any back = xffi_any_none();
  assert_int_equal(value->getter((char *)&entry + value->offset, &back), 0);
  assert_ptr_equal(back.v_obj, entry.str_index.v_obj);
  xffi_any_release(&back);
  xffi_any_release(&entry.str_index);
}

/* Calls method name of ffi.reflection.AccessPath with args; returns its status. */
static int call_path_method(const char *name, xffi_any *args, int32_t num_args, xffi_any *result) {
  const xffi_type_info *info = info_of("ffi.reflection.AccessPath");
  for (int32_t i = 0; i < info->num_methods; ++i)
    if (strcmp(info->methods[i].name.data, name) == 0)
      return TVMFFIFunctionCall(info->methods[i].method.v_obj, args, num_args, result);
  fail_msg("AccessPath has no method %s", name);
  return -1;
}

static xffi_any path_call_ok(const char *name, xffi_any self, xffi_any arg) {
  xffi_any args[2] = {self, arg}, result = xffi_any_none();
  assert_int_equal(call_path_method(name, args, 2, &result), 0);
  return result;
}

static int64_t field_int(xffi_any obj, const char *type_key, const char *name) {
  const xffi_field_info *f = field_of(info_of(type_key), name);
  xffi_any v = xffi_any_none();
  assert_int_equal(f->getter((char *)obj.v_obj + f->offset, &v), 0);
  return v.v_int64;
}

static void test_access_paths_extend_compare_and_list_their_steps(void **state) {
  (void)state;
  /* Every method carries its type schema (the package's stub generator reads it). */
  const xffi_type_info *path_info = info_of("ffi.reflection.AccessPath");
  assert_int_equal(path_info->num_methods, 11);
  for (int32_t i = 0; i < path_info->num_methods; ++i)
    assert_non_null(strstr(path_info->methods[i].metadata.data, "\"type_schema\""));
  xffi_any root = xffi_any_none(), other_root = xffi_any_none();
  assert_int_equal(call_path_method("_root", NULL, 0, &root), 0);
  assert_int_equal(call_path_method("_root", NULL, 0, &other_root), 0);
  xffi_any name = xffi_any_none();
  name.type_index = XFFI_TYPE_RAW_STR;
  name.v_c_str = "layer";
  xffi_any a = path_call_ok("_attr", root, name);
  xffi_any ai = path_call_ok("_array_item", a, xffi_any_int(2));
  xffi_any b = path_call_ok("_attr", other_root, name);
  assert_int_equal(field_int(ai, "ffi.reflection.AccessPath", "depth"), 2);
  /* Equality by steps (keys by value: the two "layer" are distinct copies). */
  xffi_any eq = path_call_ok("_path_equal", a, b);
  assert_true(eq.v_int64);
  eq = path_call_ok("_path_equal", a, ai);
  assert_false(eq.v_int64);
  assert_true(path_call_ok("_is_prefix_of", b, ai).v_int64);
  assert_true(path_call_ok("_is_prefix_of", root, root).v_int64);
  assert_false(path_call_ok("_is_prefix_of", ai, a).v_int64);
  xffi_any missing = path_call_ok("_map_item_missing", root, xffi_any_int(5));
  assert_false(path_call_ok("_is_prefix_of", missing, ai).v_int64);
  /* to_steps: root first. */
  xffi_any steps = xffi_any_none(), self = ai;
  assert_int_equal(call_path_method("_to_steps", &self, 1, &steps), 0);
  assert_int_equal(steps.type_index, XFFI_TYPE_ARRAY);
  const xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(steps.v_obj);
  assert_int_equal(cell->size, 2);
  const xffi_any *items = (const xffi_any *)cell->data;
  assert_int_equal(field_int(items[0], "ffi.reflection.AccessStep", "kind"), 0); /* ATTR */
  assert_int_equal(field_int(items[1], "ffi.reflection.AccessStep", "kind"), 1); /* ARRAY_ITEM */
  assert_int_equal(field_int(missing, "ffi.reflection.AccessPath", "depth"), 1);
  /* Bad input: wrong self, wrong key kinds, wrong counts. */
  xffi_any result = xffi_any_none();
  xffi_any bad[2] = {xffi_any_int(1), name};
  assert_int_equal(call_path_method("_attr", bad, 2, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "AccessPath._attr: self expected ffi.reflection.AccessPath, got int");
  bad[0] = root;
  bad[1] = xffi_any_int(3);
  assert_int_equal(call_path_method("_attr", bad, 2, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "expected str, got int");
  bad[1] = name;
  assert_int_equal(call_path_method("_array_item", bad, 2, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "expected int");
  assert_int_equal(call_path_method("_extend", bad, 2, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "expected ffi.reflection.AccessStep");
  assert_int_equal(call_path_method("_path_equal", bad, 2, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "expected ffi.reflection.AccessPath");
  assert_int_equal(call_path_method("_to_steps", bad, 2, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "AccessPath._to_steps");
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  xffi_any_release(&steps);
  xffi_any_release(&missing);
  xffi_any_release(&b);
  xffi_any_release(&ai);
  xffi_any_release(&a);
  xffi_any_release(&other_root);
  xffi_any_release(&root);
}

static void test_a_long_access_path_is_released_with_bounded_stack(void **state) {
  (void)state;
  xffi_any path = xffi_any_none();
  assert_int_equal(call_path_method("_root", NULL, 0, &path), 0);
  for (int i = 0; i < 200000; ++i) {
    xffi_any next = path_call_ok("_array_item", path, xffi_any_int(i));
    xffi_any_release(&path);
    path = next;
  }
  assert_int_equal(field_int(path, "ffi.reflection.AccessPath", "depth"), 200000);
  xffi_any_release(&path); /* would overflow the stack if each parent recursed */
}

static xffi_object *converter_of(int32_t type_index) {
  xffi_byte_array name = bytes_of("__ffi_convert__");
  const xffi_type_attr_column *column = TVMFFIGetTypeAttrColumn(&name);
  assert_non_null(column);
  assert_true(type_index >= column->begin_index && type_index - column->begin_index < column->size);
  const xffi_any *value = &column->data[type_index - column->begin_index];
  assert_int_equal(value->type_index, XFFI_TYPE_FUNCTION);
  return value->v_obj;
}

static void test_builtin_types_convert_what_they_accept_and_refuse_the_rest(void **state) {
  (void)state;
  info_of("ffi.Object"); /* the registry's first use registers the converters */
  static const int32_t types[] = {XFFI_TYPE_OBJECT,   XFFI_TYPE_STRING, XFFI_TYPE_BYTES,  XFFI_TYPE_ERROR,
                                  XFFI_TYPE_FUNCTION, XFFI_TYPE_SHAPE,  XFFI_TYPE_TENSOR, XFFI_TYPE_ARRAY,
                                  XFFI_TYPE_LIST,     XFFI_TYPE_MAP,    XFFI_TYPE_DICT};
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); ++i) converter_of(types[i]);
  /* Shape from an Array of ints; not from one holding a string. */
  xffi_any items[3] = {xffi_any_int(1), xffi_any_int(2), xffi_any_int(3)};
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new(&array, items, 3), XFFI_OK);
  xffi_any arg = xffi_any_object(array), result = xffi_any_none();
  assert_int_equal(TVMFFIFunctionCall(converter_of(XFFI_TYPE_SHAPE), &arg, 1, &result), 0);
  assert_int_equal(result.type_index, XFFI_TYPE_SHAPE);
  xffi_any_release(&result);
  xffi_object_dec_ref(array);
  items[1].type_index = XFFI_TYPE_RAW_STR;
  items[1].v_c_str = "x";
  assert_int_equal(xffi_array_new(&array, items, 3), XFFI_OK);
  arg = xffi_any_object(array);
  assert_int_equal(TVMFFIFunctionCall(converter_of(XFFI_TYPE_SHAPE), &arg, 1, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "Cannot cast from `ffi.Array` to `ffi.Shape`");
  xffi_object_dec_ref(array);
  /* A String from a borrowed C string (copied); None stays None as an Object; an int is no Error. */
  assert_int_equal(TVMFFIFunctionCall(converter_of(XFFI_TYPE_STRING), &items[1], 1, &result), 0);
  assert_int_equal(result.type_index, XFFI_TYPE_SMALL_STR);
  arg = xffi_any_none();
  assert_int_equal(TVMFFIFunctionCall(converter_of(XFFI_TYPE_OBJECT), &arg, 1, &result), 0);
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  arg = xffi_any_int(3);
  assert_int_equal(TVMFFIFunctionCall(converter_of(XFFI_TYPE_ERROR), &arg, 1, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "Cannot cast from `int` to `ffi.Error`");
  assert_int_equal(TVMFFIFunctionCall(converter_of(XFFI_TYPE_ERROR), NULL, 0, &result), -1);
  assert_raised(XFFI_KIND_TYPE, "__ffi_convert__");
}

static void test_recursive_globals_exist_and_answer(void **state) {
  (void)state;
  /* Once pending (they raised until the reflection issue); now they answer
   * (their behaviour: tests/c/walk/test_recursive.c). */
  static const char *const names[] = {"ffi.RecursiveEq", "ffi.RecursiveLe", "ffi.RecursiveGe"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    xffi_byte_array name = bytes_of(names[i]);
    void *function = NULL;
    assert_int_equal(TVMFFIFunctionGetGlobal(&name, &function), 0);
    assert_non_null(function);
    xffi_any args[2] = {xffi_any_int(2), xffi_any_int(2)};
    xffi_any result = xffi_any_int(42);
    assert_int_equal(TVMFFIFunctionCall(function, args, 2, &result), 0);
    assert_int_equal(result.type_index, XFFI_TYPE_BOOL);
    assert_int_equal(result.v_int64, 1);
    TVMFFIObjectDecRef(function);
  }
}

/* Calls the global name with args; *result is a new reference. */
static void call_global(const char *name, xffi_any *args, int32_t num_args, xffi_any *result) {
  xffi_byte_array n = bytes_of(name);
  void *function = NULL;
  assert_int_equal(TVMFFIFunctionGetGlobal(&n, &function), 0);
  assert_non_null(function);
  *result = xffi_any_none();
  assert_int_equal(TVMFFIFunctionCall(function, args, num_args, result), 0);
  TVMFFIObjectDecRef(function);
}

/* tvm-ffi's ObjectDef metadata of ffi.Module, ffi.VisitInterrupt and
 * ffi.BigInt (its stub generator checks layouts with them), and Module's one
 * reflected field, imports_, read through its getter. */
static void test_static_types_carry_tvm_ffi_object_metadata(void **state) {
  (void)state;
  static const struct {
    const char *key;
    int32_t index, total_size, num_fields;
  } expected[] = {
      {"ffi.Module", XFFI_TYPE_MODULE, 48, 1},
      {"ffi.VisitInterrupt", XFFI_TYPE_VISIT_INTERRUPT, 40, 1},
      {"ffi.BigInt", XFFI_TYPE_BIGINT, 32, 0},
  };
  for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); ++i) {
    const xffi_type_info *info = info_of(expected[i].key);
    assert_int_equal(info->type_index, expected[i].index);
    assert_non_null(info->metadata);
    assert_int_equal(info->metadata->total_size, expected[i].total_size);
    assert_null(info->metadata->creator);
    assert_int_equal(info->metadata->structural_eq_hash_kind, XFFI_SEQ_HASH_UNSUPPORTED);
    assert_int_equal(info->num_fields, expected[i].num_fields);
  }
  /* Metadata stays tvm-ffi's: a second registration is refused. */
  xffi_type_metadata again = {{"", 0}, NULL, 8, XFFI_SEQ_HASH_UNSUPPORTED};
  assert_int_not_equal(TVMFFITypeRegisterMetadata(XFFI_TYPE_MODULE, &again), 0);
  assert_raised(XFFI_KIND_RUNTIME, "metadata of ffi.Module (index 73) is already registered");

  const xffi_field_info *imports = field_of(info_of("ffi.Module"), "imports_");
  assert_int_equal(imports->offset, 24);
  assert_int_equal(imports->size, 8);
  assert_int_equal(imports->alignment, _Alignof(int64_t)); /* tvm-ffi says 8: int64_t's alignment on 64-bit targets */
  assert_int_equal(imports->field_static_type_index, XFFI_TYPE_ARRAY);
  assert_non_null(strstr(imports->metadata.data, "ffi.Array"));

  xffi_any prefix_a = xffi_any_c_str("runtime_types_a_"), prefix_b = xffi_any_c_str("runtime_types_b_");
  xffi_any a, b, none;
  call_global("ffi.SystemLib", &prefix_a, 1, &a);
  call_global("ffi.SystemLib", &prefix_b, 1, &b);
  xffi_any pair[2] = {a, b};
  call_global("ffi.ModuleImportModule", pair, 2, &none);
  xffi_any got = xffi_any_none();
  assert_int_equal(imports->getter((char *)a.v_obj + imports->offset, &got), 0);
  assert_int_equal(got.type_index, XFFI_TYPE_ARRAY);
  xffi_any item = xffi_any_none();
  assert_int_equal(xffi_array_get(&item, got.v_obj, 0), XFFI_OK);
  assert_ptr_equal(item.v_obj, b.v_obj);
  int64_t length = -1;
  assert_int_equal(xffi_array_length(&length, got.v_obj), XFFI_OK);
  assert_int_equal(length, 1);
  xffi_any_release(&item);
  xffi_any_release(&got);
  assert_int_equal(imports->getter((char *)b.v_obj + imports->offset, &got), 0);
  assert_int_equal(xffi_array_length(&length, got.v_obj), XFFI_OK);
  assert_int_equal(length, 0);
  xffi_any_release(&got);
  /* Read-only: the setter refuses and the imports stay. */
  assert_int_not_equal(set_field(imports, a.v_obj, xffi_any_none()), 0);
  assert_raised(XFFI_KIND_TYPE, "imports_ is read-only");
  xffi_any one = a;
  call_global("ffi.ModuleClearImports", &one, 1, &none);
  xffi_any_release(&a);
  xffi_any_release(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runtime_types_are_found_by_key_under_their_parents),
      cmocka_unit_test(test_runtime_fields_have_tvm_ffi_layout_and_schema),
      cmocka_unit_test(test_enum_state_init_makes_an_empty_state_with_readable_fields),
      cmocka_unit_test(test_runtime_field_setters_refuse_wrong_kinds_and_keep_values),
      cmocka_unit_test(test_access_paths_extend_compare_and_list_their_steps),
      cmocka_unit_test(test_a_long_access_path_is_released_with_bounded_stack),
      cmocka_unit_test(test_builtin_types_convert_what_they_accept_and_refuse_the_rest),
      cmocka_unit_test(test_recursive_globals_exist_and_answer),
      cmocka_unit_test(test_static_types_carry_tvm_ffi_object_metadata),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
