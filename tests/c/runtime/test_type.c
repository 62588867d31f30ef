/* The type registry: built-ins, dynamic registration, lookups, is-instance. */
#include "test_util.h"

/* Heap use is read with glibc's mallinfo2 where there is one. */
#if defined(__GLIBC__)
#  include <malloc.h>
#  define HEAP_IN_USE() (mallinfo2().uordblks)
#endif

static void test_register_returns_dynamic_index_and_is_idempotent(void **state) {
  (void)state;
  int32_t a = 0, again = 0;
  assert_int_equal(xffi_type_register(&a, "test.Animal", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_true(a >= XFFI_TYPE_DYNAMIC_BEGIN);
  assert_int_equal(xffi_type_register(&again, "test.Animal", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(again, a);
}

static void test_same_key_with_another_parent_is_value_error(void **state) {
  (void)state;
  int32_t a = 0, out = -5;
  assert_int_equal(xffi_type_register(&a, "test.Plant", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(xffi_type_register(&out, "test.Plant", XFFI_TYPE_STRING), XFFI_FAIL);
  assert_raised(
      XFFI_KIND_VALUE,
      "type key 'test.Plant' is already registered with parent ffi.Object (index 64), not ffi.String (index 65)");
  assert_int_equal(out, -5);
  /* A built-in key cannot be taken either. */
  assert_int_equal(xffi_type_register(&out, "ffi.String", a), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "type key 'ffi.String' is already registered with parent ffi.Object");
}

static void test_lookup_by_key_and_index_gives_key_parent_depth_ancestors(void **state) {
  (void)state;
  int32_t animal, dog, puppy;
  assert_int_equal(xffi_type_register(&animal, "test.Animal", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(xffi_type_register(&dog, "test.Dog", animal), XFFI_OK);
  assert_int_equal(xffi_type_register(&puppy, "test.Puppy", dog), XFFI_OK);
  const xffi_type_info *info = NULL, *by_key = NULL;
  assert_int_equal(xffi_type_info_get(&info, puppy), XFFI_OK);
  assert_int_equal(xffi_type_info_get_by_key(&by_key, "test.Puppy"), XFFI_OK);
  assert_ptr_equal(info, by_key);
  assert_string_equal(info->type_key.data, "test.Puppy");
  assert_int_equal(info->type_key.size, strlen("test.Puppy"));
  assert_int_equal(info->type_index, puppy);
  assert_int_equal(info->type_depth, 3);
  assert_int_equal(info->type_ancestors[0]->type_index, XFFI_TYPE_OBJECT);
  assert_int_equal(info->type_ancestors[1]->type_index, animal);
  assert_int_equal(info->type_ancestors[2]->type_index, dog); /* the parent */
  assert_string_equal(xffi_type_key(dog), "test.Dog");
  assert_true(xffi_type_count() > puppy);
}

typedef struct plain {
  xffi_object header;
} plain;

static void test_is_instance_follows_single_inheritance(void **state) {
  (void)state;
  int32_t animal, dog, cat;
  assert_int_equal(xffi_type_register(&animal, "test.Animal", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(xffi_type_register(&dog, "test.Dog", animal), XFFI_OK);
  assert_int_equal(xffi_type_register(&cat, "test.Cat", animal), XFFI_OK);
  const xffi_type_info *t_object, *t_animal, *t_dog, *t_cat, *t_string;
  assert_int_equal(xffi_type_info_get(&t_object, XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(xffi_type_info_get(&t_animal, animal), XFFI_OK);
  assert_int_equal(xffi_type_info_get(&t_dog, dog), XFFI_OK);
  assert_int_equal(xffi_type_info_get(&t_cat, cat), XFFI_OK);
  assert_int_equal(xffi_type_info_get(&t_string, XFFI_TYPE_STRING), XFFI_OK);
  plain d;
  xffi_object_init(&d.header, dog, NULL);
  assert_true(xffi_object_is_a_type_unchecked(&d.header, t_dog));
  assert_true(xffi_object_is_a_type_unchecked(&d.header, t_animal));
  assert_true(xffi_object_is_a_type_unchecked(&d.header, t_object));
  assert_false(xffi_object_is_a_type_unchecked(&d.header, t_cat));
  assert_false(xffi_object_is_a_type_unchecked(&d.header, t_string));
  assert_true(xffi_object_is_a_unchecked(&d.header, animal));
  assert_false(xffi_object_is_a_unchecked(&d.header, cat));
  plain a;
  xffi_object_init(&a.header, animal, NULL);
  assert_false(xffi_object_is_a_type_unchecked(&a.header, t_dog)); /* a parent is not its child */
  int yes = -1;
  assert_int_equal(xffi_object_is_a(&yes, &d.header, animal), XFFI_OK);
  assert_int_equal(yes, 1);
  assert_int_equal(xffi_object_is_a(&yes, &a.header, dog), XFFI_OK);
  assert_int_equal(yes, 0);
}

static void test_hundred_thousand_types(void **state) {
  (void)state;
  enum { N = 100000 };
  int32_t parent = XFFI_TYPE_OBJECT, first = 0, last = 0;
  char key[64];
  for (int i = 0; i < N; ++i) {
    snprintf(key, sizeof(key), "test.many.T%d", i);
    int32_t index;
    /* Chains of 10 deep, so ancestors arrays of many lengths are exercised. */
    assert_int_equal(xffi_type_register(&index, key, i % 10 == 0 ? XFFI_TYPE_OBJECT : parent), XFFI_OK);
    if (i == 0) first = index;
    last = parent = index;
  }
  assert_int_equal(last - first, N - 1);
  for (int i = 0; i < N; i += 997) {
    snprintf(key, sizeof(key), "test.many.T%d", i);
    const xffi_type_info *info;
    assert_int_equal(xffi_type_info_get_by_key(&info, key), XFFI_OK);
    assert_int_equal(info->type_index, first + i);
    assert_int_equal(info->type_depth, 1 + i % 10);
  }
  plain deep;
  xffi_object_init(&deep.header, first + 99999, NULL); /* depth 10, chain starts at 99990 */
  assert_true(xffi_object_is_a_unchecked(&deep.header, first + 99990));
  assert_false(xffi_object_is_a_unchecked(&deep.header, first + 99980));
}

/* Built-in keys without a parent (plain values, the root Object) used to be
 * reported as "registered with parent <unregistered type> (index -1)". */
static void test_builtin_key_is_reported_as_reserved(void **state) {
  (void)state;
  int32_t out = -9;
  assert_int_equal(xffi_type_register(&out, "int", XFFI_TYPE_OBJECT), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE,
                "xffi_type_register: type key 'int' is reserved for the built-in value type (index 1)");
  assert_int_equal(xffi_type_register(&out, "None", XFFI_TYPE_STRING), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "type key 'None' is reserved for the built-in value type (index 0)");
  assert_int_equal(xffi_type_register(&out, "ffi.Object", XFFI_TYPE_OBJECT), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "type key 'ffi.Object' is reserved for the built-in root object type (index 64)");
  assert_int_equal(out, -9);
}

/* A chain reaches XFFI_TYPE_MAX_DEPTH and stops there with a clear error;
 * without the limit, a 20,000-deep chain took 767 MB of ancestor copies. */
static void test_inheritance_depth_is_limited(void **state) {
  (void)state;
  char key[64];
  int32_t chain[XFFI_TYPE_MAX_DEPTH + 1];
  chain[0] = XFFI_TYPE_OBJECT;
#ifdef HEAP_IN_USE
  size_t before = HEAP_IN_USE();
#endif
  for (int d = 1; d <= XFFI_TYPE_MAX_DEPTH; ++d) {
    snprintf(key, sizeof(key), "test.deep.D%d", d);
    assert_int_equal(xffi_type_register(&chain[d], key, chain[d - 1]), XFFI_OK);
  }
#ifdef HEAP_IN_USE
  /* 1024 records of at most 4 KiB of ancestors each: about 2 MiB in all. */
  assert_true(HEAP_IN_USE() - before < (size_t)8 << 20);
#endif
  const xffi_type_info *deepest = NULL;
  assert_int_equal(xffi_type_info_get(&deepest, chain[XFFI_TYPE_MAX_DEPTH]), XFFI_OK);
  assert_int_equal(deepest->type_depth, XFFI_TYPE_MAX_DEPTH);
  plain obj;
  xffi_object_init(&obj.header, chain[XFFI_TYPE_MAX_DEPTH], NULL);
  for (int d = 0; d <= XFFI_TYPE_MAX_DEPTH; d += 31) assert_true(xffi_object_is_a_unchecked(&obj.header, chain[d]));
  assert_true(xffi_object_is_a_unchecked(&obj.header, chain[XFFI_TYPE_MAX_DEPTH - 1]));
  int32_t out = -4;
  assert_int_equal(xffi_type_register(&out, "test.deep.TooDeep", chain[XFFI_TYPE_MAX_DEPTH]), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE,
                "xffi_type_register: cannot register 'test.deep.TooDeep' under test.deep.D1024 "
                "(index ");
  assert_int_equal(xffi_type_register(&out, "test.deep.TooDeep", chain[XFFI_TYPE_MAX_DEPTH]), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "the parent is at depth 1024 and the deepest allowed type depth is 1024");
  assert_int_equal(out, -4);
  const xffi_type_info *missing = NULL;
  assert_int_equal(xffi_type_info_get_by_key(&missing, "test.deep.TooDeep"), XFFI_FAIL);
  xffi_object_dec_ref(xffi_error_move_raised());
}

static void test_register_bad_input(void **state) {
  (void)state;
  int32_t out = -7;
  assert_int_equal(xffi_type_register(NULL, "test.X", XFFI_TYPE_OBJECT), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_type_register: out_type_index is NULL");
  assert_int_equal(xffi_type_register(&out, NULL, XFFI_TYPE_OBJECT), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_type_register: type_key is NULL");
  assert_int_equal(xffi_type_register(&out, "", XFFI_TYPE_OBJECT), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_type_register: type_key is empty");
  assert_int_equal(xffi_type_register(&out, "test.X", 999999), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "parent_type_index 999999 (<unregistered type>) is not a registered object type");
  assert_int_equal(xffi_type_register(&out, "test.X", XFFI_TYPE_INT), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "parent_type_index 1 (int) is not a registered object type");
  assert_int_equal(xffi_type_register(&out, "test.X", -3), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "parent_type_index -3");
  assert_int_equal(xffi_type_register(&out, "test.X", 100), XFFI_FAIL); /* reserved, unused */
  assert_raised(XFFI_KIND_TYPE, "parent_type_index 100");
  assert_int_equal(out, -7);
}

static void test_lookup_bad_input(void **state) {
  (void)state;
  const xffi_type_info *info = NULL;
  assert_int_equal(xffi_type_info_get_by_key(NULL, "String"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_type_info_get_by_key: out is NULL");
  assert_int_equal(xffi_type_info_get_by_key(&info, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_type_info_get_by_key: type_key is NULL");
  assert_int_equal(xffi_type_info_get_by_key(&info, "test.NoSuchType"), XFFI_FAIL);
  assert_raised(XFFI_KIND_KEY, "no type is registered with key 'test.NoSuchType'");
  assert_int_equal(xffi_type_info_get_by_key(&info, ""), XFFI_FAIL);
  assert_raised(XFFI_KIND_KEY, "no type is registered with key ''");
  assert_int_equal(xffi_type_info_get(NULL, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_type_info_get: out is NULL");
  assert_int_equal(xffi_type_info_get(&info, -2), XFFI_FAIL);
  assert_raised(XFFI_KIND_INDEX, "no type has index -2");
  assert_int_equal(xffi_type_info_get(&info, 50), XFFI_FAIL);
  assert_raised(XFFI_KIND_INDEX, "no type has index 50");
  assert_int_equal(xffi_type_info_get(&info, INT32_MAX), XFFI_FAIL);
  assert_raised(XFFI_KIND_INDEX, "no type has index 2147483647");
  assert_null(info);
  assert_string_equal(xffi_type_key(-100), "<unregistered type>");
}

static void test_check_instance_bad_input(void **state) {
  (void)state;
  plain p;
  xffi_object_init(&p.header, XFFI_TYPE_OBJECT, NULL);
  int out = -1;
  assert_int_equal(xffi_object_is_a(NULL, &p.header, XFFI_TYPE_OBJECT), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_object_is_a: out is NULL");
  assert_int_equal(xffi_object_is_a(&out, NULL, XFFI_TYPE_OBJECT), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_object_is_a: obj is NULL");
  assert_int_equal(xffi_object_is_a(&out, &p.header, XFFI_TYPE_INT), XFFI_FAIL);
  assert_raised(XFFI_KIND_INDEX, "type_index 1 is not a registered object type");
  p.header.type_index = 5000000;
  assert_int_equal(xffi_object_is_a(&out, &p.header, XFFI_TYPE_OBJECT), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "obj has type index 5000000, which is not a registered object type");
  assert_int_equal(out, -1);
}

/* Every built-in index finds the record of that index (the built-in table
 * maps indices to records by position: c/type.c), and the indices between
 * the runs find none. */
static void test_builtin_records_sit_at_their_index(void **state) {
  (void)state;
  for (int32_t i = 0; i < XFFI_TYPE_DYNAMIC_BEGIN; ++i) {
    const xffi_type_info *info = NULL;
    int builtin = i <= XFFI_TYPE_UNCHANGED || (i >= XFFI_TYPE_OBJECT && i < XFFI_TYPE_BUILTIN_END);
    if (builtin) {
      assert_int_equal(xffi_type_info_get(&info, i), XFFI_OK);
      assert_int_equal(info->type_index, i);
      assert_int_equal(info->type_depth, i >= XFFI_TYPE_STATIC_OBJECT_BEGIN && i != XFFI_TYPE_OBJECT ? 1 : 0);
    } else {
      assert_int_equal(xffi_type_info_get(&info, i), XFFI_FAIL);
      assert_raised(XFFI_KIND_INDEX, "no type has index");
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_register_returns_dynamic_index_and_is_idempotent),
      cmocka_unit_test(test_same_key_with_another_parent_is_value_error),
      cmocka_unit_test(test_lookup_by_key_and_index_gives_key_parent_depth_ancestors),
      cmocka_unit_test(test_is_instance_follows_single_inheritance),
      cmocka_unit_test(test_hundred_thousand_types),
      cmocka_unit_test(test_builtin_key_is_reported_as_reserved),
      cmocka_unit_test(test_inheritance_depth_is_limited),
      cmocka_unit_test(test_register_bad_input),
      cmocka_unit_test(test_lookup_bad_input),
      cmocka_unit_test(test_check_instance_bad_input),
      cmocka_unit_test(test_builtin_records_sit_at_their_index),
  };
  return cmocka_run_group_tests_name("type", tests, NULL, NULL);
}
