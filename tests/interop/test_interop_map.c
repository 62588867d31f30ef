/* tests/interop/test_interop_map.c: Maps and Dicts cross between xffi and
 * tvm-ffi's inline C++. lib_map_cross.cc (built against the wheel alone)
 * finds keys in Map<String, int64_t>s and Map<int64_t, int64_t>s xffi made,
 * makes maps xffi reads, grows Dicts xffi made (tvm-ffi switches its new
 * storage into the same object), copies Maps on write and erases. Sizes
 * cover the small layout (0-4 pairs), the switch to dense (5), the growth
 * points of both runtimes (xffi grows at 3/4 load, tvm-ffi at 99%) and
 * several rehashes. xffi's tables need not have the bytes tvm-ffi's would
 * (c/lib/container/map_dense.c places keys its own way); what must hold is
 * that each side's code finds, iterates, copies and changes the other's
 * maps, which is what these tests check with C++'s own code. Afterwards
 * xffi changes the same objects again and releases them: the counts and the
 * AddressSanitizer build prove each buffer is freed once, by its own
 * deleter. Every test runs with string keys and with int keys. */
#include "test_util.h"

#include <xffi/map.h>

static xffi_object *cross_lib; /* Module of lib_map_cross.cc, loaded by xffi */

static const int64_t sizes[] = {0, 1, 2, 3, 4, 5, 8, 12, 13, 16, 17, 100, 1000, 3000};
#define NUM_SIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Int keys (lib_map_cross.cc's IntKey) instead of strings (KeyName). */
static int int_keys;

/* The function of lib_map_cross.cc for the current key kind (name, or
 * name_int). */
static xffi_object *cross_fn(const char *name) {
  char full[64];
  snprintf(full, sizeof full, "%s%s", name, int_keys ? "_int" : "");
  xffi_object *f = NULL;
  assert_int_equal(xffi_module_lookup_function(&f, cross_lib, full), XFFI_OK);
  return f;
}

static int setup(void **state) {
  (void)state;
  return xffi_module_load(&cross_lib, XFFI_INTEROP_MAP_CROSS_LIB) == XFFI_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  xffi_object_dec_ref(cross_lib);
  return 0;
}

/* Key i as lib_map_cross.cc's KeyName makes it. */
static void key_name(char *buf, size_t cap, int64_t i) {
  if (i % 2 == 0)
    snprintf(buf, cap, "k%lld", (long long)i);
  else
    snprintf(buf, cap, "a longer key, number %lld", (long long)i);
}

/* Int key i as lib_map_cross.cc's IntKey makes it. */
static int64_t int_key(int64_t i) {
  if (i % 2 == 0) return i;
  uint64_t x = (uint64_t)i;
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  return (int64_t)x;
}

/* Key i of the current kind, a view (borrowing buf for a string). */
static xffi_any key_of(char *buf, size_t cap, int64_t i) {
  if (int_keys) return xffi_any_int(int_key(i));
  key_name(buf, cap, i);
  return xffi_any_c_str(buf);
}

static void set_key(xffi_object **map, int is_dict, int64_t i, int64_t value) {
  char name[64];
  xffi_any k = key_of(name, sizeof name, i), v = xffi_any_int(value);
  assert_int_equal(is_dict ? xffi_dict_set(*map, &k, &v) : xffi_map_set(map, &k, &v), XFFI_OK);
}

/* Every key 0..n-1 is found by xffi with value i * 10 + extra[i]... */
static void assert_keys(const xffi_object *map, int64_t n, int64_t bump_key) {
  int64_t length = -1;
  assert_int_equal(xffi_map_length(&length, map), XFFI_OK);
  assert_int_equal(length, n);
  for (int64_t i = 0; i < n; ++i) {
    char name[64];
    xffi_any k = key_of(name, sizeof name, i);
    const xffi_any *found = NULL;
    assert_int_equal(xffi_map_lookup(&found, map, &k), XFFI_OK);
    if (!found) fail_msg("key %lld (of %lld) not found", (long long)i, (long long)n);
    assert_int_equal(found->type_index, XFFI_TYPE_INT);
    assert_int_equal(found->v_int64, i * 10 + (i == bump_key ? 1 : 0));
  }
  int64_t cursor = 0, seen = 0;
  xffi_map_item item;
  while (xffi_map_next(&item, map, &cursor) == XFFI_OK && item.key) ++seen;
  assert_int_equal(seen, n);
}

static void cpp_finds_keys_in_maps_xffi_made(void **state) {
  (void)state;
  xffi_object *sum_found = cross_fn("sum_found");
  for (size_t s = 0; s < NUM_SIZES; ++s) {
    int64_t n = sizes[s], expected = 0;
    xffi_object *map = NULL;
    assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
    for (int64_t i = 0; i < n; ++i) {
      set_key(&map, 0, i, i * 10);
      expected += i * 10;
    }
    xffi_any r;
    assert_int_equal(XFFI_CALL(sum_found, &r, xffi_any_object(map), xffi_any_int(n)), XFFI_OK);
    assert_int_equal(r.v_int64, expected);
    assert_int_equal(xffi_object_strong_count(map), 1); /* the callee kept no reference */
    xffi_object_dec_ref(map);
  }
  xffi_object_dec_ref(sum_found);
}

static void xffi_reads_and_changes_maps_cpp_made(void **state) {
  (void)state;
  xffi_object *make_map = cross_fn("make_map"), *sum_found = cross_fn("sum_found");
  for (size_t s = 0; s < NUM_SIZES; ++s) {
    int64_t n = sizes[s];
    xffi_any r;
    assert_int_equal(XFFI_CALL(make_map, &r, xffi_any_int(n)), XFFI_OK);
    assert_int_equal(r.type_index, XFFI_TYPE_MAP);
    xffi_object *map = r.v_obj;
    assert_keys(map, n, -1);
    /* xffi inserts into C++'s storage (growing it, rehashing it) and C++
     * finds everything again. */
    for (int64_t i = n; i < n + 20; ++i) set_key(&map, 0, i, i * 10);
    assert_keys(map, n + 20, -1);
    int64_t expected = 0;
    for (int64_t i = 0; i < n + 20; ++i) expected += i * 10;
    assert_int_equal(XFFI_CALL(sum_found, &r, xffi_any_object(map), xffi_any_int(n + 20)), XFFI_OK);
    assert_int_equal(r.v_int64, expected);
    xffi_object_dec_ref(map);
  }
  xffi_object_dec_ref(sum_found);
  xffi_object_dec_ref(make_map);
}

static void cpp_grows_dicts_xffi_made_in_place(void **state) {
  (void)state;
  xffi_object *dict_set_range = cross_fn("dict_set_range");
  for (size_t s = 0; s < NUM_SIZES; ++s) {
    int64_t n = sizes[s];
    xffi_object *dict = NULL;
    assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
    for (int64_t i = 0; i < n; ++i) set_key(&dict, 1, i, i * 10);
    xffi_any r;
    /* C++ adds 1..n + 7 more keys: small growth, the switch to dense or a
     * rehash, all switched into the Dict xffi made. */
    assert_int_equal(XFFI_CALL(dict_set_range, &r, xffi_any_object(dict), xffi_any_int(n), xffi_any_int(2 * n + 7)),
                     XFFI_OK);
    assert_int_equal(r.v_int64, 2 * n + 7);
    assert_keys(dict, 2 * n + 7, -1);
    /* xffi grows the storage C++ switched in, then C++ again. */
    for (int64_t i = 2 * n + 7; i < 2 * n + 30; ++i) set_key(&dict, 1, i, i * 10);
    assert_int_equal(
        XFFI_CALL(dict_set_range, &r, xffi_any_object(dict), xffi_any_int(2 * n + 30), xffi_any_int(3 * n + 40)),
        XFFI_OK);
    assert_keys(dict, 3 * n + 40, -1);
    for (int64_t i = 0; i < 3 * n + 40; i += 3) {
      char name[64];
      xffi_any k = key_of(name, sizeof name, i);
      assert_int_equal(xffi_dict_erase(dict, &k), XFFI_OK);
    }
    assert_int_equal(xffi_object_strong_count(dict), 1);
    xffi_object_dec_ref(dict);
  }
  xffi_object_dec_ref(dict_set_range);
}

static void cpp_copies_shared_maps_xffi_made_on_write(void **state) {
  (void)state;
  xffi_object *map_with = cross_fn("map_with");
  for (size_t s = 0; s < NUM_SIZES; ++s) {
    int64_t n = sizes[s];
    if (n == 0) continue;
    xffi_object *map = NULL;
    assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
    for (int64_t i = 0; i < n; ++i) set_key(&map, 0, i, i * 10);
    xffi_any r;
    assert_int_equal(XFFI_CALL(map_with, &r, xffi_any_object(map), xffi_any_int(n / 2)), XFFI_OK);
    assert_keys(map, n, -1); /* xffi's map is unchanged */
    assert_keys(r.v_obj, n, n / 2);
    xffi_any_release(&r);
    xffi_object_dec_ref(map);
  }
  xffi_object_dec_ref(map_with);
}

/* Erasures cross too: xffi erases from a map, C++ finds exactly the rest;
 * C++ erases from a Dict xffi made, xffi finds exactly the rest. */
static void erasures_by_either_side_are_seen_by_the_other(void **state) {
  (void)state;
  xffi_object *sum_found = cross_fn("sum_found"), *erase_every = cross_fn("dict_erase_every");
  for (size_t s = 0; s < NUM_SIZES; ++s) {
    int64_t n = sizes[s];
    xffi_object *dict = NULL;
    assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
    for (int64_t i = 0; i < n; ++i) set_key(&dict, 1, i, i * 10);
    int64_t expected = 0;
    for (int64_t i = 0; i < n; ++i) {
      char name[64];
      xffi_any k = key_of(name, sizeof name, i);
      if (i % 3 == 0) {
        assert_int_equal(xffi_dict_erase(dict, &k), XFFI_OK);
        expected += 1000000; /* SumFound's count of a missing key */
      } else {
        expected += i * 10;
      }
    }
    xffi_any r;
    assert_int_equal(XFFI_CALL(sum_found, &r, xffi_any_object(dict), xffi_any_int(n)), XFFI_OK);
    assert_int_equal(r.v_int64, expected);
    /* C++ erases the keys i % 3 == 1; xffi finds only i % 3 == 2. */
    assert_int_equal(
        XFFI_CALL(erase_every, &r, xffi_any_object(dict), xffi_any_int(1), xffi_any_int(n), xffi_any_int(3)), XFFI_OK);
    int64_t left = 0;
    for (int64_t i = 0; i < n; ++i) {
      char name[64];
      xffi_any k = key_of(name, sizeof name, i);
      const xffi_any *found = NULL;
      assert_int_equal(xffi_map_lookup(&found, dict, &k), XFFI_OK);
      if (i % 3 == 2) {
        assert_non_null(found);
        assert_int_equal(found->v_int64, i * 10);
        ++left;
      } else {
        assert_null(found);
      }
    }
    assert_int_equal(r.v_int64, left);
    int64_t cursor = 0, seen = 0;
    xffi_map_item item;
    while (xffi_map_next(&item, dict, &cursor) == XFFI_OK && item.key) ++seen;
    assert_int_equal(seen, left);
    xffi_object_dec_ref(dict);
  }
  xffi_object_dec_ref(erase_every);
  xffi_object_dec_ref(sum_found);
}

/* Each test with int keys too. */
#define WITH_INT_KEYS(test)              \
  static void test##_int(void **state) { \
    int_keys = 1;                        \
    test(state);                         \
    int_keys = 0;                        \
  }
WITH_INT_KEYS(cpp_finds_keys_in_maps_xffi_made)
WITH_INT_KEYS(xffi_reads_and_changes_maps_cpp_made)
WITH_INT_KEYS(cpp_grows_dicts_xffi_made_in_place)
WITH_INT_KEYS(cpp_copies_shared_maps_xffi_made_on_write)
WITH_INT_KEYS(erasures_by_either_side_are_seen_by_the_other)

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cpp_finds_keys_in_maps_xffi_made),
      cmocka_unit_test(xffi_reads_and_changes_maps_cpp_made),
      cmocka_unit_test(cpp_grows_dicts_xffi_made_in_place),
      cmocka_unit_test(cpp_copies_shared_maps_xffi_made_on_write),
      cmocka_unit_test(erasures_by_either_side_are_seen_by_the_other),
      cmocka_unit_test(cpp_finds_keys_in_maps_xffi_made_int),
      cmocka_unit_test(xffi_reads_and_changes_maps_cpp_made_int),
      cmocka_unit_test(cpp_grows_dicts_xffi_made_in_place_int),
      cmocka_unit_test(cpp_copies_shared_maps_xffi_made_on_write_int),
      cmocka_unit_test(erasures_by_either_side_are_seen_by_the_other_int),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
