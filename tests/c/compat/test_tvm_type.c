/* tvm-ffi's type registry entry points (c/tvm_type.c): the static records,
 * type_key_hash, index allocation with child slots, key lookup, and bad
 * input (an error, never an exit). Reflection records and attribute columns
 * are in test_tvm_type_reflection.c. */
#include "test_util.h"

#include <xffi/reflection.h>
#include <xffi/tvm_ffi.h>

static xffi_byte_array bytes_of(const char *s) {
  xffi_byte_array b = {s, strlen(s)};
  return b;
}

static int32_t get_or_alloc(const char *key, int32_t static_index, int32_t depth, int32_t slots, int32_t overflow,
                            int32_t parent) {
  xffi_byte_array k = bytes_of(key);
  return TVMFFITypeGetOrAllocIndex(&k, static_index, depth, slots, overflow, parent);
}

static int32_t key_to_index(const char *key) {
  xffi_byte_array k = bytes_of(key);
  int32_t out = -7;
  if (TVMFFITypeKeyToIndex(&k, &out) != 0) {
    xffi_object_dec_ref(xffi_error_move_raised());
    return -1;
  }
  return out;
}

/* The static table as measured on tvm-ffi 0.1.15's runtime (layouts.md 1.3). */
static const struct {
  int32_t index;
  const char *key;
  int32_t depth;
  uint64_t hash;
} tvm_builtins[] = {
    {0, "None", 0, 0xfb6ac968ce0ca5aa},
    {1, "int", 0, 0xaed305094b3d4a9f},
    {2, "bool", 0, 0xe5d6c19a7b27cfca},
    {3, "float", 0, 0x30fc3255e503d0f0},
    {4, "void*", 0, 0x93fff46616d48774},
    {5, "DataType", 0, 0x4f8fea07e78b865b},
    {6, "Device", 0, 0xbd3ec6f35b0ce31c},
    {7, "DLTensor*", 0, 0xcb2d26b2d1d8c04e},
    {8, "const char*", 0, 0xcd50ff68030dbbab},
    {9, "TVMFFIByteArray*", 0, 0x32519e4e9ab631a9},
    {10, "ObjectRValueRef", 0, 0x189c622331ab3f34},
    {11, "ffi.SmallStr", 0, 0xf2ac8dbc73691e03},
    {12, "ffi.SmallBytes", 0, 0x168b84b7018a151d},
    {13, "ffi.Unchanged", 0, 0x852fac5f072fc19e},
    {64, "ffi.Object", 0, 0x33a211b274fa0106},
    {65, "ffi.String", 1, 0x9cffcd16e9064976},
    {66, "ffi.Bytes", 1, 0x5ddcbe18da0b4aa8},
    {67, "ffi.Error", 1, 0xf5caa49da693165e},
    {68, "ffi.Function", 1, 0xb3b21b94552cae3d},
    {69, "ffi.Shape", 1, 0x98b3ac768e268d1e},
    {70, "ffi.Tensor", 1, 0xa0c01a8167c48cc0},
    {71, "ffi.Array", 1, 0x811300c104284401},
    {72, "ffi.Map", 1, 0x66acedc0a716b876},
    {73, "ffi.Module", 1, 0xfd67a8eacd498400},
    {74, "ffi.OpaquePyObject", 1, 0xad85a0b68e3b37a5},
    {75, "ffi.List", 1, 0x073959a12faa06c3},
    {76, "ffi.Dict", 1, 0x2fc59098b8d363a4},
    {77, "ffi.VisitInterrupt", 1, 0xcdf134df0ae8c86f},
    {78, "ffi.BigInt", 1, 0x487cadd8abd8177b},
};
#define TVM_BUILTIN_COUNT (sizeof(tvm_builtins) / sizeof(tvm_builtins[0]))

static void test_type_key_hash_is_libstdcxx_std_hash(void **state) {
  (void)state;
  for (size_t i = 0; i < TVM_BUILTIN_COUNT; ++i)
    assert_int_equal(xffi_type_key_hash(tvm_builtins[i].key, strlen(tvm_builtins[i].key)), tvm_builtins[i].hash);
  /* Empty, short, one whole word, a word and a tail, long, high bytes:
   * the values g++'s std::hash<std::string_view> gives. */
  assert_int_equal(xffi_type_key_hash(NULL, 0), 0x553e93901e462a6e);
  assert_int_equal(xffi_type_key_hash("a", 1), 0x454ddee488c1ed6b);
  assert_int_equal(xffi_type_key_hash("1234567", 7), 0x6d7a4e79e8a2cbf6);
  assert_int_equal(xffi_type_key_hash("12345678", 8), 0x8c5b90a33a04dca5);
  assert_int_equal(xffi_type_key_hash("123456789", 9), 0xaaeb28d3d5f165c0);
  assert_int_equal(xffi_type_key_hash("ffi.reflection.AccessPath", 25), 0xfb8603ce4a2bd6e1);
  assert_int_equal(xffi_type_key_hash("\xff\x80zz", 4), 0xff70ee29956b803d);
}

static void test_static_records_are_tvm_ffis(void **state) {
  (void)state;
  const xffi_type_info *object = TVMFFIGetTypeInfo(XFFI_TYPE_OBJECT);
  assert_non_null(object);
  for (size_t i = 0; i < TVM_BUILTIN_COUNT; ++i) {
    const xffi_type_info *info = TVMFFIGetTypeInfo(tvm_builtins[i].index);
    assert_non_null(info);
    assert_ptr_equal(TVMFFIGetTypeInfo(tvm_builtins[i].index), info); /* fixed address */
    assert_int_equal(info->type_index, tvm_builtins[i].index);
    assert_int_equal(info->type_depth, tvm_builtins[i].depth);
    assert_int_equal(info->type_key.size, strlen(tvm_builtins[i].key));
    assert_memory_equal(info->type_key.data, tvm_builtins[i].key, info->type_key.size);
    assert_int_equal(info->type_key_hash, tvm_builtins[i].hash);
    assert_int_equal(key_to_index(tvm_builtins[i].key), tvm_builtins[i].index);
    if (info->type_depth) {
      assert_ptr_equal(info->type_ancestors[0], object); /* a record pointer, as C++ IsInstance reads it */
    } else {
      assert_null(info->type_ancestors);
    }
    assert_int_equal(info->num_methods, 0);
  }
  /* ffi.Object carries the metadata tvm-ffi gives it: the 24-byte header, no creator. */
  assert_non_null(object->metadata);
  assert_int_equal(object->metadata->total_size, 24);
  assert_null(object->metadata->creator);
  /* No built-in object type takes subtypes but Object (tvm-ffi's child slots). */
  assert_int_equal(get_or_alloc("test.tvm.UnderString", -1, 2, 0, 1, XFFI_TYPE_STRING), -1);
  assert_raised(XFFI_KIND_TYPE, "no free child slot and does not overflow");
  assert_int_equal(key_to_index("test.tvm.UnderString"), -1);
}

static void test_get_type_info_of_a_hole_is_null_with_an_error(void **state) {
  (void)state;
  const int32_t holes[] = {-1, -2, 14, 63, 79, 127, INT32_MAX, INT32_MIN};
  for (size_t i = 0; i < sizeof(holes) / sizeof(holes[0]); ++i) {
    assert_null(TVMFFIGetTypeInfo(holes[i]));
    assert_raised(XFFI_KIND_INDEX, "TVMFFIGetTypeInfo: no type has index");
  }
}

static void test_key_to_index_finds_keys_and_reports_misses(void **state) {
  (void)state;
  int32_t out = -7;
  xffi_byte_array k = bytes_of("ffi.Map");
  assert_int_equal(TVMFFITypeKeyToIndex(&k, &out), 0);
  assert_int_equal(out, XFFI_TYPE_MAP);
  xffi_byte_array prefix = {"ffi.Mapping", 7}; /* not NUL-terminated at size */
  assert_int_equal(TVMFFITypeKeyToIndex(&prefix, &out), 0);
  assert_int_equal(out, XFFI_TYPE_MAP);
  k = bytes_of("test.tvm.NoSuchType");
  out = -7;
  assert_int_equal(TVMFFITypeKeyToIndex(&k, &out), -1);
  assert_raised(XFFI_KIND_KEY, "TVMFFITypeKeyToIndex: cannot find type 'test.tvm.NoSuchType'");
  assert_int_equal(out, -7);
  assert_int_equal(TVMFFITypeKeyToIndex(NULL, &out), -1);
  assert_raised(XFFI_KIND_VALUE, "type_key is NULL");
  assert_int_equal(TVMFFITypeKeyToIndex(&k, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "out_type_index is NULL");
  xffi_byte_array broken = {NULL, 3};
  assert_int_equal(TVMFFITypeKeyToIndex(&broken, &out), -1);
  assert_raised(XFFI_KIND_VALUE, "type_key has NULL data but size 3");
}

static void test_known_key_returns_its_index_unchecked_and_query_mode(void **state) {
  (void)state;
  /* A known key: its index, whatever else is asked (tvm-ffi checks nothing). */
  assert_int_equal(get_or_alloc("ffi.String", 5, 9, 7, 1, 70), XFFI_TYPE_STRING);
  assert_int_equal(get_or_alloc("ffi.Object", -1, 0, 0, 1, -1), XFFI_TYPE_OBJECT);
  assert_int_equal(get_or_alloc("int", -1, 0, 0, 0, -1), XFFI_TYPE_INT);
  int32_t made = get_or_alloc("test.tvm.Known", -1, 1, 0, 1, XFFI_TYPE_OBJECT);
  assert_true(made >= XFFI_TYPE_DYNAMIC_BEGIN);
  assert_int_equal(get_or_alloc("test.tvm.Known", -1, 4, 2, 0, XFFI_TYPE_ARRAY), made);
  /* Query mode (parent -2): the index, or -2 and nothing registered. */
  assert_int_equal(get_or_alloc("test.tvm.Known", -1, 0, 0, 0, -2), made);
  assert_int_equal(get_or_alloc("test.tvm.Unknown", -1, 0, 0, 0, -2), -2);
  assert_nothing_raised();
  assert_int_equal(key_to_index("test.tvm.Unknown"), -1);
  /* The record of a made type. */
  const xffi_type_info *info = TVMFFIGetTypeInfo(made);
  assert_non_null(info);
  assert_int_equal(info->type_depth, 1);
  assert_int_equal(info->type_ancestors[0]->type_index, XFFI_TYPE_OBJECT);
  assert_int_equal(info->type_key_hash, xffi_type_key_hash("test.tvm.Known", 14));
  assert_int_equal(info->num_fields, 0);
  assert_null(info->fields);
  assert_null(info->metadata);
}

/* tvm-ffi's placement: a type with n child slots owns the n indices after
 * its own; its children take runs of them in order; when they are used up a
 * child goes to the end of the table if the parent may overflow, else it is
 * refused; a child of a type that cannot overflow cannot either. */
static void test_child_slots_reserve_ranges_inside_the_parent(void **state) {
  (void)state;
  int32_t p = get_or_alloc("test.tvm.slots.P", -1, 1, 3, 0, XFFI_TYPE_OBJECT);
  assert_true(p >= XFFI_TYPE_DYNAMIC_BEGIN);
  int32_t after = get_or_alloc("test.tvm.slots.After", -1, 1, 0, 1, XFFI_TYPE_OBJECT);
  assert_int_equal(after, p + 4); /* P took its own index and 3 slots */
  int32_t c1 = get_or_alloc("test.tvm.slots.C1", -1, 2, 0, 1, p);
  assert_int_equal(c1, p + 1);
  int32_t c2 = get_or_alloc("test.tvm.slots.C2", -1, 2, 1, 1, p);
  assert_int_equal(c2, p + 2);
  int32_t g = get_or_alloc("test.tvm.slots.G", -1, 3, 0, 1, c2); /* from C2's own slot */
  assert_int_equal(g, p + 3);
  const xffi_type_info *gi = TVMFFIGetTypeInfo(g);
  assert_int_equal(gi->type_depth, 3);
  assert_int_equal(gi->type_ancestors[0]->type_index, XFFI_TYPE_OBJECT);
  assert_int_equal(gi->type_ancestors[1]->type_index, p);
  assert_int_equal(gi->type_ancestors[2]->type_index, c2);
  /* P's range is full and P cannot overflow. */
  assert_int_equal(get_or_alloc("test.tvm.slots.C3", -1, 2, 0, 1, p), -1);
  assert_raised(XFFI_KIND_TYPE, "cannot register 'test.tvm.slots.C3' under test.tvm.slots.P");
  /* C1 asked to overflow, but its parent cannot: neither can C1 (no slots of its own). */
  assert_int_equal(get_or_alloc("test.tvm.slots.UnderC1", -1, 3, 0, 1, c1), -1);
  assert_raised(XFFI_KIND_TYPE, "does not overflow");
  /* An overflowing parent: children past its range go to the end of the table. */
  int32_t q = get_or_alloc("test.tvm.slots.Q", -1, 1, 1, 1, XFFI_TYPE_OBJECT);
  int32_t q1 = get_or_alloc("test.tvm.slots.Q1", -1, 2, 0, 1, q);
  assert_int_equal(q1, q + 1);
  int32_t count = xffi_type_count();
  int32_t q2 = get_or_alloc("test.tvm.slots.Q2", -1, 2, 2, 1, q);
  assert_int_equal(q2, count);
  assert_int_equal(xffi_type_count(), count + 3); /* Q2 and its two slots */
  /* The indices in reserved ranges not yet used are holes. */
  assert_null(TVMFFIGetTypeInfo(q2 + 1));
  assert_raised(XFFI_KIND_INDEX, "no type has index");
  /* C++ IsObjectInstance's walk, as inline code does it. */
  const xffi_type_info *q2i = TVMFFIGetTypeInfo(q2);
  assert_true(q2i->type_depth > 1 && q2i->type_ancestors[1]->type_index == q);
}

static void test_static_index_takes_a_free_index_once(void **state) {
  (void)state;
  assert_int_equal(get_or_alloc("test.tvm.Static100", 100, 1, 0, 0, XFFI_TYPE_OBJECT), 100);
  assert_int_equal(key_to_index("test.tvm.Static100"), 100);
  assert_int_equal(TVMFFIGetTypeInfo(100)->type_ancestors[0]->type_index, XFFI_TYPE_OBJECT);
  assert_int_equal(get_or_alloc("test.tvm.Static100b", 100, 1, 0, 0, XFFI_TYPE_OBJECT), -1);
  assert_raised(XFFI_KIND_VALUE, "static_type_index 100 for 'test.tvm.Static100b' is taken by another type");
  assert_int_equal(get_or_alloc("test.tvm.StaticTaken", XFFI_TYPE_MAP, 1, 0, 0, XFFI_TYPE_OBJECT), -1);
  assert_raised(XFFI_KIND_VALUE, "is taken by another type");
  assert_int_equal(get_or_alloc("test.tvm.StaticFar", INT32_MAX, 1, 0, 0, XFFI_TYPE_OBJECT), -1);
  assert_raised(XFFI_KIND_VALUE, "is past the table");
  /* A root value type in a hole, as tvm-ffi allows. */
  assert_int_equal(get_or_alloc("test.tvm.Root20", 20, 0, 0, 0, -1), 20);
  assert_int_equal(TVMFFIGetTypeInfo(20)->type_depth, 0);
  assert_null(TVMFFIGetTypeInfo(20)->type_ancestors);
}

static void test_get_or_alloc_bad_input_is_an_error_and_registers_nothing(void **state) {
  (void)state;
  xffi_byte_array broken = {NULL, 4}, empty = {"", 0};
  assert_int_equal(TVMFFITypeGetOrAllocIndex(NULL, -1, 1, 0, 1, XFFI_TYPE_OBJECT), -1);
  assert_raised(XFFI_KIND_VALUE, "type_key is NULL");
  assert_int_equal(TVMFFITypeGetOrAllocIndex(&broken, -1, 1, 0, 1, XFFI_TYPE_OBJECT), -1);
  assert_raised(XFFI_KIND_VALUE, "type_key has NULL data but size 4");
  assert_int_equal(TVMFFITypeGetOrAllocIndex(&empty, -1, 1, 0, 1, XFFI_TYPE_OBJECT), -1);
  assert_raised(XFFI_KIND_VALUE, "type_key is empty");
  static const struct {
    int32_t static_index, depth, slots, parent;
    const char *kind, *fragment;
  } bad[] = {
      {-1, 2, 0, XFFI_TYPE_OBJECT, XFFI_KIND_VALUE, "type_depth 2 of 'test.tvm.Bad' should be 1"},
      {-1, 0, 0, XFFI_TYPE_OBJECT, XFFI_KIND_VALUE, "should be 1"},
      {-1, 1, -1, XFFI_TYPE_OBJECT, XFFI_KIND_VALUE, "num_child_slots -1 of 'test.tvm.Bad' is outside 0..65535"},
      {-1, 1, XFFI_TYPE_MAX_CHILD_SLOTS + 1, XFFI_TYPE_OBJECT, XFFI_KIND_VALUE, "is outside 0..65535"},
      {-1, 1, 0, 14, XFFI_KIND_TYPE, "parent_type_index 14 of 'test.tvm.Bad' is not a registered object type"},
      {-1, 1, 0, 999999, XFFI_KIND_TYPE, "is not a registered object type"},
      {-1, 1, 0, XFFI_TYPE_INT, XFFI_KIND_TYPE, "is not a registered object type"},
      {-1, 1, 0, -3, XFFI_KIND_VALUE, "parent_type_index -3 of 'test.tvm.Bad' is neither an index, -1 nor -2"},
      {-1, 0, 0, -1, XFFI_KIND_VALUE, "'test.tvm.Bad' has neither a parent nor a static_type_index"},
      {-1, 2, 0, XFFI_TYPE_DICT, XFFI_KIND_TYPE, "under ffi.Dict (index 76)"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    int32_t count = xffi_type_count();
    assert_int_equal(get_or_alloc("test.tvm.Bad", bad[i].static_index, bad[i].depth, bad[i].slots, 1, bad[i].parent),
                     -1);
    assert_raised(bad[i].kind, bad[i].fragment);
    assert_int_equal(key_to_index("test.tvm.Bad"), -1);
    assert_int_equal(xffi_type_count(), count);
  }
}

/* The Python package defines types with (key, -1, parent depth + 1, 0, 1,
 * parent); a chain of them gives each record all its ancestors. */
static void test_python_style_chain_records_every_ancestor(void **state) {
  (void)state;
  int32_t chain[6];
  chain[0] = XFFI_TYPE_OBJECT;
  char key[32];
  for (int d = 1; d < 6; ++d) {
    snprintf(key, sizeof(key), "test.tvm.chain%d", d);
    chain[d] = get_or_alloc(key, -1, d, 0, 1, chain[d - 1]);
    assert_true(chain[d] > chain[d - 1]);
  }
  const xffi_type_info *last = TVMFFIGetTypeInfo(chain[5]);
  for (int d = 0; d < 5; ++d) assert_ptr_equal(last->type_ancestors[d], TVMFFIGetTypeInfo(chain[d]));
  /* xffi's own is-instance agrees. */
  xffi_object obj;
  xffi_object_init(&obj, chain[5], NULL);
  for (int d = 0; d < 6; ++d) assert_true(xffi_object_is_a_unchecked(&obj, chain[d]));
  assert_false(xffi_object_is_a_unchecked(&obj, XFFI_TYPE_STRING));
}

/* xffi_type_register keeps its stricter checks on top of tvm-ffi's placement. */
static void test_xffi_register_and_tvm_entry_share_one_registry(void **state) {
  (void)state;
  int32_t a = -1, again = -1;
  assert_int_equal(xffi_type_register(&a, "test.tvm.Shared", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(get_or_alloc("test.tvm.Shared", -1, 1, 0, 1, XFFI_TYPE_OBJECT), a);
  int32_t b = get_or_alloc("test.tvm.SharedB", -1, 1, 0, 1, XFFI_TYPE_OBJECT);
  assert_int_equal(xffi_type_register(&again, "test.tvm.SharedB", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(again, b);
  assert_int_equal(xffi_type_register(&again, "test.tvm.SharedB", a), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "already registered with parent ffi.Object");
  assert_int_equal(xffi_type_register(&again, "test.tvm.UnderMap", XFFI_TYPE_MAP), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "under ffi.Map (index 72): it has no free child slot and does not overflow");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_type_key_hash_is_libstdcxx_std_hash),
      cmocka_unit_test(test_static_records_are_tvm_ffis),
      cmocka_unit_test(test_get_type_info_of_a_hole_is_null_with_an_error),
      cmocka_unit_test(test_key_to_index_finds_keys_and_reports_misses),
      cmocka_unit_test(test_known_key_returns_its_index_unchecked_and_query_mode),
      cmocka_unit_test(test_child_slots_reserve_ranges_inside_the_parent),
      cmocka_unit_test(test_static_index_takes_a_free_index_once),
      cmocka_unit_test(test_get_or_alloc_bad_input_is_an_error_and_registers_nothing),
      cmocka_unit_test(test_python_style_chain_records_every_ancestor),
      cmocka_unit_test(test_xffi_register_and_tvm_entry_share_one_registry),
  };
  return cmocka_run_group_tests_name("tvm_type", tests, NULL, NULL);
}
