/* tests/c/container/test_map.c: Map, the immutable copy-on-write hash map, and the key
 * rules shared with Dict. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include <xffi/map.h>
#include "failing_allocator.h"
#include <xffi/xffi.h>

static void map_set_int(xffi_object **map, int64_t k, int64_t v) {
  xffi_any key = xffi_any_int(k), value = xffi_any_int(v);
  assert_int_equal(xffi_map_set(map, &key, &value), XFFI_OK);
}

static int64_t map_get_int(const xffi_object *map, const xffi_any *key) {
  xffi_any v = xffi_any_none();
  assert_int_equal(xffi_map_get(&v, map, key), XFFI_OK);
  assert_int_equal(v.type_index, XFFI_TYPE_INT);
  return v.v_int64;
}

static int map_has(const xffi_object *map, xffi_any key) {
  int found = -1;
  assert_int_equal(xffi_map_contains(&found, map, &key), XFFI_OK);
  return found;
}

static int64_t map_len(const xffi_object *map) {
  int64_t n = -1;
  assert_int_equal(xffi_map_length(&n, map), XFFI_OK);
  return n;
}

static void set_get_and_iterate_in_insertion_order(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  assert_int_equal(map->type_index, XFFI_TYPE_MAP);
  assert_int_equal(map_len(map), 0);
  int64_t order[] = {5, -3, 100, 0, 42};
  for (int i = 0; i < 4; ++i) map_set_int(&map, order[i], i * 10);
  map_set_int(&map, 100, 555); /* small (4 pairs): an existing key keeps its place */
  map_set_int(&map, order[4], 40);
  map_set_int(&map, 100, 777); /* dense (5 pairs): it moves to the end, as in tvm-ffi */
  assert_int_equal(map_len(map), 5);
  int64_t dense_order[] = {5, -3, 0, 42, 100}, dense_values[] = {0, 10, 30, 40, 777};
  int64_t cursor = 0;
  xffi_map_item item;
  int i = 0;
  while (xffi_map_next(&item, map, &cursor) == XFFI_OK && item.key) {
    assert_int_equal(item.key->v_int64, dense_order[i]);
    assert_int_equal(item.value->v_int64, dense_values[i]);
    ++i;
  }
  assert_int_equal(i, 5);
  /* Finished iterations stay finished. */
  assert_int_equal(xffi_map_next(&item, map, &cursor), XFFI_OK);
  assert_null(item.key);
  xffi_any k = xffi_any_int(-3);
  assert_int_equal(map_get_int(map, &k), 10);
  const xffi_any *found = NULL;
  assert_int_equal(xffi_map_lookup(&found, map, &k), XFFI_OK);
  assert_non_null(found);
  assert_int_equal(found->v_int64, 10);
  k = xffi_any_int(6);
  assert_int_equal(xffi_map_lookup(&found, map, &k), XFFI_OK);
  assert_null(found);
  xffi_object_dec_ref(map);
}

static void string_forms_with_the_same_bytes_are_one_key(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  xffi_object *short_obj = NULL, *long_obj = NULL, *long_obj2 = NULL;
  assert_int_equal(xffi_string_from_c_str(&short_obj, "abc"), XFFI_OK);
  assert_int_equal(xffi_string_from_c_str(&long_obj, "a key longer than seven"), XFFI_OK);
  assert_int_equal(xffi_string_from_c_str(&long_obj2, "a key longer than seven"), XFFI_OK);
  xffi_any v1 = xffi_any_int(1), v2 = xffi_any_int(2);
  xffi_any k_small = xffi_any_c_str("abc"); /* stored as a small string */
  assert_int_equal(xffi_map_set(&map, &k_small, &v1), XFFI_OK);
  xffi_any k_obj = xffi_any_object(short_obj); /* a String object "abc" */
  assert_int_equal(map_get_int(map, &k_obj), 1);
  assert_int_equal(xffi_map_set(&map, &k_obj, &v2), XFFI_OK);
  assert_int_equal(map_len(map), 1);
  assert_int_equal(map_get_int(map, &k_small), 2);
  xffi_any k_long = xffi_any_object(long_obj);
  assert_int_equal(xffi_map_set(&map, &k_long, &v1), XFFI_OK);
  xffi_any k_long2 = xffi_any_object(long_obj2); /* another object, same bytes */
  assert_int_equal(map_get_int(map, &k_long2), 1);
  xffi_any k_cstr = xffi_any_c_str("a key longer than seven");
  assert_int_equal(map_get_int(map, &k_cstr), 1);
  xffi_byte_array bytes_run = {"abc", 3};
  xffi_any k_bytes = xffi_any_byte_array(&bytes_run); /* bytes are not strings */
  assert_int_equal(map_has(map, k_bytes), 0);
  assert_int_equal(xffi_map_set(&map, &k_bytes, &v1), XFFI_OK);
  assert_int_equal(map_len(map), 3);
  xffi_object *bytes_obj = NULL;
  assert_int_equal(xffi_bytes_new(&bytes_obj, "abc", 3), XFFI_OK);
  assert_int_equal(map_has(map, xffi_any_object(bytes_obj)), 1);
  /* The empty string is a key like any other. */
  xffi_any k_empty = xffi_any_c_str("");
  assert_int_equal(map_has(map, k_empty), 0);
  assert_int_equal(xffi_map_set(&map, &k_empty, &v2), XFFI_OK);
  assert_int_equal(map_get_int(map, &k_empty), 2);
  xffi_object_dec_ref(bytes_obj);
  xffi_object_dec_ref(short_obj);
  xffi_object_dec_ref(long_obj);
  xffi_object_dec_ref(long_obj2);
  xffi_object_dec_ref(map);
}

/* A small string's key is its first small_len bytes: whatever the 8-byte
 * buffer holds past them (a foreign producer need not clear it) never makes
 * two keys differ or two different keys match. */
static void small_string_bytes_past_the_length_are_not_part_of_the_key(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  xffi_any noisy, other_noise, clean;
  assert_int_equal(xffi_any_from_str(&noisy, "abc", 3), XFFI_OK);
  memset(noisy.v_small + 4, 0x5a, 4); /* past the length and its NUL */
  xffi_any v1 = xffi_any_int(1);
  assert_int_equal(xffi_map_set(&map, &noisy, &v1), XFFI_OK);
  assert_int_equal(xffi_any_from_str(&clean, "abc", 3), XFFI_OK);
  assert_int_equal(map_get_int(map, &clean), 1);
  other_noise = clean;
  memset(other_noise.v_small + 4, 0xa5, 4);
  assert_int_equal(map_get_int(map, &other_noise), 1);
  xffi_any c_str = xffi_any_c_str("abc");
  assert_int_equal(map_get_int(map, &c_str), 1);
  xffi_object *obj = NULL;
  assert_int_equal(xffi_string_from_c_str(&obj, "abc"), XFFI_OK);
  xffi_any k_obj = xffi_any_object(obj);
  assert_int_equal(map_get_int(map, &k_obj), 1);
  /* A shorter key whose buffer still holds the longer one's bytes. */
  xffi_any shorter = noisy;
  shorter.small_len = 2;
  shorter.v_small[2] = 0;
  assert_int_equal(map_has(map, shorter), 0);
  /* The other way round: a String object key found by a noisy small probe. */
  xffi_object *xyz = NULL;
  assert_int_equal(xffi_string_from_c_str(&xyz, "xyz"), XFFI_OK);
  xffi_any k_xyz = xffi_any_object(xyz), v2 = xffi_any_int(2);
  assert_int_equal(xffi_map_set(&map, &k_xyz, &v2), XFFI_OK);
  xffi_any probe;
  assert_int_equal(xffi_any_from_str(&probe, "xyz", 3), XFFI_OK);
  memset(probe.v_small + 4, 0x11, 4);
  assert_int_equal(map_get_int(map, &probe), 2);
  assert_int_equal(map_len(map), 2);
  xffi_object_dec_ref(obj);
  xffi_object_dec_ref(xyz);
  xffi_object_dec_ref(map);
}

/* Keys of 0 to 7 bytes are stored inline with the bytes past their length
 * cleared; on a big-endian machine a numeric mask once cleared the text
 * itself instead. Each stored key reads back with its text, in a Map and a
 * Dict (tests/endian/run.sh runs the same check under qemu-s390x). */
static void small_keys_keep_their_text(void **state) {
  (void)state;
  static const char text[] = "abcdefg";
  for (int is_dict = 0; is_dict < 2; ++is_dict) {
    xffi_object *map = NULL;
    assert_int_equal(is_dict ? xffi_dict_new(&map, NULL, NULL, 0) : xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
    for (size_t len = 0; len <= 7; ++len) {
      xffi_any key, value = xffi_any_int((int64_t)len);
      assert_int_equal(xffi_any_from_str(&key, text, len), XFFI_OK);
      assert_int_equal(is_dict ? xffi_dict_set(map, &key, &value) : xffi_map_set(&map, &key, &value), XFFI_OK);
    }
    int64_t cursor = 0;
    xffi_map_item item;
    for (size_t len = 0; len <= 7; ++len) {
      assert_int_equal(xffi_map_next(&item, map, &cursor), XFFI_OK);
      assert_non_null(item.key);
      xffi_byte_array got;
      assert_int_equal(xffi_any_to_str(&got, item.key), XFFI_OK);
      assert_int_equal(got.size, len);
      assert_memory_equal(got.data, text, len);
      char c_str[8];
      memcpy(c_str, text, len);
      c_str[len] = '\0';
      xffi_any borrowed = xffi_any_c_str(c_str);
      assert_int_equal(map_get_int(map, &borrowed), (int64_t)len);
    }
    xffi_object_dec_ref(map);
  }
}

static void int_bool_and_float_are_distinct_kinds(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  xffi_any ki = xffi_any_int(1), kb = xffi_any_bool(1), kf = xffi_any_float(1.0);
  xffi_any v = xffi_any_int(0);
  assert_int_equal(xffi_map_set(&map, &ki, &v), XFFI_OK);
  assert_int_equal(map_has(map, kb), 0);
  assert_int_equal(map_has(map, kf), 0);
  assert_int_equal(xffi_map_set(&map, &kb, &v), XFFI_OK);
  assert_int_equal(xffi_map_set(&map, &kf, &v), XFFI_OK);
  assert_int_equal(map_len(map), 3);
  /* A bool with another non-zero payload is still true. */
  xffi_any odd_true = kb;
  odd_true.v_int64 = 7;
  assert_int_equal(map_has(map, odd_true), 1);
  xffi_object_dec_ref(map);
}

/* Floats are keys by their bits, as in tvm-ffi (its AnyEqual compares the
 * 16 bytes): 0.0 and -0.0 are two keys, a NaN is found again only by the
 * same NaN bits. */
static void float_keys_compare_by_bits(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  map_set_int(&map, 0, 0); /* int 0: a different key from 0.0 */
  xffi_any zero = xffi_any_float(0.0), neg_zero = xffi_any_float(-0.0), nan = xffi_any_float(NAN);
  xffi_any other_nan = xffi_any_float(-(double)NAN), v = xffi_any_int(5), w = xffi_any_int(6);
  assert_int_equal(xffi_map_set(&map, &neg_zero, &v), XFFI_OK);
  assert_int_equal(map_get_int(map, &neg_zero), 5);
  assert_int_equal(map_has(map, zero), 0);
  assert_int_equal(xffi_map_set(&map, &nan, &w), XFFI_OK);
  assert_int_equal(map_get_int(map, &nan), 6);
  assert_int_equal(map_has(map, other_nan), 0);
  xffi_any f = xffi_any_float(2.5);
  assert_int_equal(map_has(map, f), 0);
  assert_int_equal(map_len(map), 3);
  /* The same in the dense layout (more than 4 pairs). */
  for (int64_t k = 1; k <= 4; ++k) map_set_int(&map, k, k);
  assert_int_equal(map_get_int(map, &neg_zero), 5);
  assert_int_equal(map_has(map, zero), 0);
  assert_int_equal(map_get_int(map, &nan), 6);
  assert_int_equal(map_has(map, other_nan), 0);
  xffi_object_dec_ref(map);
}

static void plain_values_compare_by_value_objects_by_identity(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  xffi_object *a = counted_new(), *b = counted_new();
  xffi_any ka = xffi_any_object(a), kb = xffi_any_object(b), v = xffi_any_int(1);
  assert_int_equal(xffi_map_set(&map, &ka, &v), XFFI_OK);
  assert_int_equal(map_has(map, ka), 1);
  assert_int_equal(map_has(map, kb), 0);
  xffi_any none = xffi_any_none();
  assert_int_equal(xffi_map_set(&map, &none, &v), XFFI_OK);
  assert_int_equal(map_has(map, xffi_any_none()), 1);
  DLDataType f32 = {kDLFloat, 32, 1}, i32 = {kDLInt, 32, 1};
  xffi_any kd = xffi_any_dtype(f32);
  assert_int_equal(xffi_map_set(&map, &kd, &v), XFFI_OK);
  assert_int_equal(map_has(map, xffi_any_dtype(f32)), 1);
  assert_int_equal(map_has(map, xffi_any_dtype(i32)), 0);
  xffi_any kd_noise = xffi_any_dtype(f32); /* garbage past the 4 dtype bytes */
  kd_noise.v_small[6] = 0x55;
  assert_int_equal(map_has(map, kd_noise), 1);
  DLDevice cpu = {kDLCPU, 0}, cpu1 = {kDLCPU, 1};
  xffi_any kdev = xffi_any_device(cpu);
  assert_int_equal(xffi_map_set(&map, &kdev, &v), XFFI_OK);
  assert_int_equal(map_has(map, xffi_any_device(cpu)), 1);
  assert_int_equal(map_has(map, xffi_any_device(cpu1)), 0);
  int x;
  xffi_any kp = xffi_any_ptr(&x);
  assert_int_equal(xffi_map_set(&map, &kp, &v), XFFI_OK);
  assert_int_equal(map_has(map, xffi_any_ptr(&x)), 1);
  assert_int_equal(map_len(map), 5);
  counted_destroyed = 0;
  xffi_object_dec_ref(a);
  xffi_object_dec_ref(b);
  assert_int_equal(counted_destroyed, 1); /* b; a is still a key */
  xffi_object_dec_ref(map);
  assert_int_equal(counted_destroyed, 2);
}

static void changes_on_a_shared_map_copy_it(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  for (int i = 0; i < 10; ++i) map_set_int(&map, i, i);
  xffi_object *orig = map;
  xffi_object_inc_ref(orig);
  map_set_int(&map, 3, 33); /* existing key on a shared map */
  assert_ptr_not_equal(map, orig);
  assert_int_equal(xffi_object_strong_count(orig), 1);
  xffi_any k3 = xffi_any_int(3);
  assert_int_equal(map_get_int(orig, &k3), 3);
  assert_int_equal(map_get_int(map, &k3), 33);
  xffi_object *second = map;
  map_set_int(&map, 50, 50); /* unique now: in place */
  assert_ptr_equal(map, second);

  xffi_object_inc_ref(second);
  assert_int_equal(xffi_map_erase(&map, &k3), XFFI_OK);
  assert_ptr_not_equal(map, second);
  assert_int_equal(map_has(second, k3), 1);
  assert_int_equal(map_has(map, k3), 0);
  xffi_object *third = map;
  xffi_object_inc_ref(third);
  assert_int_equal(xffi_map_clear(&map), XFFI_OK);
  assert_ptr_not_equal(map, third);
  assert_int_equal(map_len(map), 0);
  assert_int_equal(map_len(third), 10);
  /* Order survives the copy: erase left a hole, the copy has none. */
  int64_t cursor = 0;
  xffi_map_item item;
  int64_t expect[] = {0, 1, 2, 4, 5, 6, 7, 8, 9, 50};
  for (int i = 0; i < 10; ++i) {
    assert_int_equal(xffi_map_next(&item, third, &cursor), XFFI_OK);
    assert_non_null(item.key);
    assert_int_equal(item.key->v_int64, expect[i]);
  }
  assert_int_equal(xffi_map_next(&item, third, &cursor), XFFI_OK);
  assert_null(item.key);
  xffi_object *before = third;
  assert_int_equal(xffi_map_clear(&third), XFFI_OK); /* unique: in place */
  assert_ptr_equal(third, before);
  xffi_object_dec_ref(third);
  xffi_object_dec_ref(second);
  xffi_object_dec_ref(map);
  xffi_object_dec_ref(orig);
}

/* pop is Map's as well as Dict's: the value moves out, copy-on-write like erase. */
static void pop_moves_the_value_out_and_copies_a_shared_map(void **state) {
  (void)state;
  xffi_object *map = NULL, *text = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  map_set_int(&map, 1, 10);
  assert_int_equal(xffi_string_new(&text, "a value held by the map only", 28), XFFI_OK);
  xffi_any k2 = xffi_any_int(2), v2 = xffi_any_object(text);
  assert_int_equal(xffi_map_set(&map, &k2, &v2), XFFI_OK);
  xffi_object_dec_ref(text); /* the map holds the only reference now */
  /* Unique: in place, and the value's reference moves to the caller. */
  xffi_object *before = map;
  xffi_any got = xffi_any_none();
  assert_int_equal(xffi_map_pop(&got, &map, &k2), XFFI_OK);
  assert_ptr_equal(map, before);
  assert_int_equal(got.type_index, XFFI_TYPE_STRING);
  assert_ptr_equal(got.v_obj, text);
  assert_int_equal(xffi_object_strong_count(got.v_obj), 1);
  xffi_any_release(&got);
  assert_int_equal(map_len(map), 1);
  /* Shared: the caller gets a changed copy, other holders keep the entry. */
  xffi_object *other = map;
  xffi_object_inc_ref(other);
  xffi_any k1 = xffi_any_int(1);
  assert_int_equal(xffi_map_pop(&got, &map, &k1), XFFI_OK);
  assert_ptr_not_equal(map, other);
  assert_int_equal(got.v_int64, 10);
  assert_int_equal(map_len(map), 0);
  assert_int_equal(map_has(other, k1), 1);
  assert_int_equal(xffi_object_strong_count(other), 1);
  /* Absent key: KeyError, nothing changes. */
  got = xffi_any_int(-7);
  before = map;
  assert_int_equal(xffi_map_pop(&got, &map, &k1), XFFI_FAIL);
  expect_error(XFFI_KIND_KEY, "xffi_map_pop: key 1 is not in the map");
  assert_ptr_equal(map, before);
  assert_int_equal(got.v_int64, -7);
  /* Bad input. */
  assert_int_equal(xffi_map_pop(NULL, &map, &k1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_pop: out is NULL");
  assert_int_equal(xffi_map_pop(&got, NULL, &k1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_pop: map is NULL");
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_map_pop(&got, &dict, &k1), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_pop: *map expected ffi.Map, got ffi.Dict");
  xffi_object_dec_ref(dict);
  xffi_object_dec_ref(other);
  xffi_object_dec_ref(map);
}

/* The pairs are set in order, as tvm-ffi's CreateFromRange does: a repeated
 * key takes its last value; below 4 pairs (a small map) it keeps its first
 * place, from 4 pairs on (a dense table) it moves to the end. */
static void new_from_sets_pairs_in_order(void **state) {
  (void)state;
  xffi_any keys[4] = {xffi_any_c_str("x"), xffi_any_c_str("y"), xffi_any_c_str("x"), xffi_any_int(3)};
  xffi_any values[4] = {xffi_any_int(1), xffi_any_int(2), xffi_any_int(3), xffi_any_c_str("three")};
  xffi_object *small = NULL;
  assert_int_equal(xffi_map_new(&small, keys, values, 3), XFFI_OK);
  assert_int_equal(map_len(small), 2);
  int64_t cursor = 0;
  xffi_map_item item;
  assert_int_equal(xffi_map_next(&item, small, &cursor), XFFI_OK);
  assert_string_equal(item.key->v_small, "x");
  assert_int_equal(item.value->v_int64, 3);
  xffi_object_dec_ref(small);
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, keys, values, 4), XFFI_OK);
  assert_int_equal(map_len(map), 3);
  cursor = 0;
  assert_int_equal(xffi_map_next(&item, map, &cursor), XFFI_OK);
  assert_string_equal(item.key->v_small, "y");
  assert_int_equal(xffi_map_next(&item, map, &cursor), XFFI_OK);
  assert_string_equal(item.key->v_small, "x");
  assert_int_equal(item.value->v_int64, 3);
  xffi_object *copy = NULL;
  assert_int_equal(xffi_map_copy(&copy, map), XFFI_OK);
  assert_int_equal(copy->type_index, XFFI_TYPE_MAP);
  assert_int_equal(map_len(copy), 3);
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_copy(&dict, map), XFFI_OK);
  assert_int_equal(dict->type_index, XFFI_TYPE_DICT);
  assert_int_equal(map_get_int(dict, &keys[1]), 2);
  xffi_object *empty = NULL;
  assert_int_equal(xffi_map_new(&empty, NULL, NULL, 0), XFFI_OK);
  assert_int_equal(map_len(empty), 0);
  xffi_object_dec_ref(empty);
  xffi_object_dec_ref(dict);
  xffi_object_dec_ref(copy);
  xffi_object_dec_ref(map);
}

/* tvm-ffi's dense table never shrinks and erases leave no tombstones: after
 * erasing all but 3 of 20000 keys the table keeps its size, iteration sees
 * only the survivors, and insert/erase churn neither grows the table nor
 * slows down. */
static void many_erases_keep_the_table_without_tombstones(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  const int n = 20000;
  for (int i = 0; i < n; ++i) map_set_int(&map, i, i);
  size_t full = 0;
  assert_int_equal(xffi_map_memory_bytes(&full, map), XFFI_OK);
  assert_true(full <= (size_t)n * 100 + 1024);
  for (int i = 0; i < n - 3; ++i) {
    xffi_any k = xffi_any_int(i);
    assert_int_equal(xffi_map_erase(&map, &k), XFFI_OK);
  }
  assert_int_equal(map_len(map), 3);
  size_t after = 0;
  assert_int_equal(xffi_map_memory_bytes(&after, map), XFFI_OK);
  assert_int_equal(after, full);
  /* Iteration sees exactly the three survivors, in order. */
  int64_t cursor = 0, seen = 0;
  xffi_map_item item;
  while (xffi_map_next(&item, map, &cursor) == XFFI_OK && item.key) {
    assert_int_equal(item.key->v_int64, n - 3 + seen);
    ++seen;
  }
  assert_int_equal(seen, 3);
  for (int round = 0; round < 50000; ++round) {
    map_set_int(&map, 1000000 + round, round);
    xffi_any k = xffi_any_int(1000000 + round);
    assert_int_equal(xffi_map_erase(&map, &k), XFFI_OK);
  }
  assert_int_equal(map_len(map), 3);
  assert_int_equal(xffi_map_memory_bytes(&after, map), XFFI_OK);
  assert_int_equal(after, full);
  xffi_object_dec_ref(map);
}

/* Dense slots are 49 bytes (an item and a metadata byte) and xffi keeps a
 * table 37.5% to 75% full (it doubles at 3/4; a chain that finds no empty
 * slot within its 125 jumps would double it earlier, which these keys never
 * make it do): 65 to 131 bytes per entry, never 135. */
static void bytes_per_entry_stay_under_135(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    map_set_int(&map, (int64_t)i * 7919, i);
    if (i >= 1000 && i % 97 == 0) {
      size_t bytes = 0;
      assert_int_equal(xffi_map_memory_bytes(&bytes, map), XFFI_OK);
      double per = (double)bytes / (i + 1);
      if (per > worst) worst = per;
    }
  }
  assert_true(worst > 120.0); /* just after a doubling */
  assert_true(worst <= 135.0);
  xffi_object_dec_ref(map);
}

static void values_and_keys_are_released_exactly_once(void **state) {
  (void)state;
  counted_destroyed = 0;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  for (int i = 0; i < 20; ++i) {
    xffi_object *obj = counted_new();
    xffi_any k = xffi_any_int(i), v = xffi_any_object(obj);
    assert_int_equal(xffi_map_set(&map, &k, &v), XFFI_OK);
    xffi_any k2 = xffi_any_object(obj); /* the object as a key too */
    assert_int_equal(xffi_map_set(&map, &k2, &k), XFFI_OK);
    xffi_object_dec_ref(obj);
  }
  map_set_int(&map, 0, 0); /* replaces value #0, which is still a key */
  assert_int_equal(counted_destroyed, 0);
  xffi_object *shared = map;
  xffi_object_inc_ref(shared);
  xffi_any k1 = xffi_any_int(1);
  assert_int_equal(xffi_map_erase(&map, &k1), XFFI_OK); /* copy, then erase */
  assert_int_equal(counted_destroyed, 0);
  xffi_object_dec_ref(shared);
  assert_int_equal(counted_destroyed, 0);
  xffi_object_dec_ref(map);
  assert_int_equal(counted_destroyed, 20);
}

static void out_of_memory_leaves_the_map_unchanged(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  /* The growth points: 2 pairs fill the inline pairs (the next set makes a
   * 4-pair array), 4 fill a small map (the next makes a dense table of 16
   * slots), 12 fill 16 slots to 3/4 (the next rehashes into 32). Each time
   * the key copy is the first allocation and the table the second. */
  xffi_any k = xffi_any_c_str("a long key that must be copied"), v = xffi_any_int(1);
  const int fills[] = {2, 4, 12};
  for (size_t f = 0; f < sizeof(fills) / sizeof(fills[0]); ++f) {
    int fill = fills[f];
    while (map_len(map) < fill) map_set_int(&map, map_len(map), map_len(map));
    for (int64_t after = 0; after < 2; ++after) {
      xffi_object *before = map;
      failing_allocator_fail_after(after);
      int rc = xffi_map_set(&map, &k, &v);
      failing_allocator_fail_after(-1);
      assert_int_equal(rc, XFFI_FAIL);
      expect_error(XFFI_KIND_MEMORY, "out of memory");
      assert_ptr_equal(map, before);
      assert_int_equal(map_len(map), fill);
      assert_int_equal(map_has(map, k), 0);
      for (int64_t i = 0; i < fill; ++i) {
        xffi_any ki = xffi_any_int(i);
        assert_int_equal(map_get_int(map, &ki), i);
      }
    }
  }
  xffi_object *shared = map;
  xffi_object_inc_ref(shared);
  xffi_any k0 = xffi_any_int(0);
  for (int op = 0; op < 3; ++op) {
    failing_allocator_fail_after(0);
    int rc = op == 0 ? xffi_map_set(&map, &k0, &v) : op == 1 ? xffi_map_erase(&map, &k0) : xffi_map_clear(&map);
    failing_allocator_fail_after(-1);
    assert_int_equal(rc, XFFI_FAIL);
    expect_error(XFFI_KIND_MEMORY, "out of memory");
    assert_ptr_equal(map, shared);
  }
  assert_int_equal(map_get_int(map, &k0), 0);
  xffi_object *out = (xffi_object *)1;
  failing_allocator_fail_after(0);
  assert_int_equal(xffi_map_new(&out, NULL, NULL, 0), XFFI_FAIL);
  assert_null(out);
  out = (xffi_object *)1;
  assert_int_equal(xffi_map_copy(&out, map), XFFI_FAIL);
  assert_null(out);
  failing_allocator_fail_after(-1);
  expect_error(XFFI_KIND_MEMORY, "out of memory");
  failing_allocator_fail_after(2); /* the object and first tables, then a key copy fails */
  xffi_any keys[2] = {xffi_any_c_str("first long key"), xffi_any_c_str("second long key")};
  xffi_any values[2] = {xffi_any_int(1), xffi_any_int(2)};
  out = (xffi_object *)1;
  assert_int_equal(xffi_map_new(&out, keys, values, 2), XFFI_FAIL);
  failing_allocator_fail_after(-1);
  expect_error(XFFI_KIND_MEMORY, "out of memory");
  assert_null(out);
  xffi_object_dec_ref(shared);
  xffi_object_dec_ref(map);
}

static void bad_input_is_reported(void **state) {
  (void)state;
  xffi_object *map = NULL, *dict = NULL, *str = NULL, *out = NULL, *null_obj = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  map_set_int(&map, 1, 1);
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_string_from_c_str(&str, "not a map"), XFFI_OK);
  xffi_any k = xffi_any_int(1), missing = xffi_any_int(2), v = xffi_any_int(0), got = xffi_any_none();
  xffi_any rvalue = xffi_any_object(str);
  rvalue.type_index = XFFI_TYPE_OBJECT_RVALUE;
  const xffi_any *found = NULL;
  int flag = 0;
  int64_t n = 0, cursor = 0;
  xffi_map_item item;
  size_t bytes = 0;

  assert_int_equal(xffi_map_new(NULL, NULL, NULL, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_new: out is NULL");
  assert_int_equal(xffi_map_new(NULL, &k, &v, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_new: out is NULL");
  assert_int_equal(xffi_map_new(&out, NULL, &v, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_new: keys is NULL but count is 1");
  assert_int_equal(xffi_map_new(&out, &k, NULL, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_new: values is NULL but count is 1");
  assert_int_equal(xffi_map_new(&out, &k, &v, -1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_new: count is negative (-1)");
  assert_int_equal(xffi_map_new(&out, &rvalue, &v, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_new: key is an object rvalue reference (a move), which cannot be a map key");
  assert_null(out);

  assert_int_equal(xffi_map_length(NULL, map), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_length: out is NULL");
  assert_int_equal(xffi_map_length(&n, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_length: map is NULL");
  assert_int_equal(xffi_map_length(&n, str), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_length: map expected ffi.Map or ffi.Dict, got ffi.String");

  assert_int_equal(xffi_map_get(NULL, map, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_get: out is NULL");
  assert_int_equal(xffi_map_get(&got, NULL, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_get: map is NULL");
  assert_int_equal(xffi_map_get(&got, str, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_get: map expected ffi.Map or ffi.Dict, got ffi.String");
  assert_int_equal(xffi_map_get(&got, map, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_get: key is NULL");
  assert_int_equal(xffi_map_get(&got, map, &missing), XFFI_FAIL);
  expect_error(XFFI_KIND_KEY, "xffi_map_get: key 2 is not in the map");
  xffi_any skey = xffi_any_c_str("nope");
  assert_int_equal(xffi_map_get(&got, map, &skey), XFFI_FAIL);
  expect_error(XFFI_KIND_KEY, "xffi_map_get: key \"nope\" is not in the map");
  xffi_any fkey = xffi_any_float(1.5);
  assert_int_equal(xffi_map_get(&got, map, &fkey), XFFI_FAIL);
  expect_error(XFFI_KIND_KEY, "xffi_map_get: key 1.5 is not in the map");
  xffi_any okey = xffi_any_object(dict);
  assert_int_equal(xffi_map_get(&got, map, &okey), XFFI_FAIL);
  expect_error(XFFI_KIND_KEY, "xffi_map_get: key (a ffi.Dict) is not in the map");
  assert_int_equal(xffi_map_get(&got, map, &rvalue), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_get: key is an object rvalue reference (a move), which cannot be a map key");

  assert_int_equal(xffi_map_lookup(NULL, map, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_lookup: out is NULL");
  assert_int_equal(xffi_map_lookup(&found, NULL, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_lookup: map is NULL");
  assert_int_equal(xffi_map_lookup(&found, map, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_lookup: key is NULL");
  assert_int_equal(xffi_map_lookup(&found, str, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_lookup: map expected ffi.Map or ffi.Dict, got ffi.String");

  assert_int_equal(xffi_map_contains(NULL, map, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_contains: out is NULL");
  assert_int_equal(xffi_map_contains(&flag, NULL, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_contains: map is NULL");
  assert_int_equal(xffi_map_contains(&flag, map, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_contains: key is NULL");

  assert_int_equal(xffi_map_next(NULL, map, &cursor), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_next: out is NULL");
  assert_int_equal(xffi_map_next(&item, NULL, &cursor), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_next: map is NULL");
  assert_int_equal(xffi_map_next(&item, map, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_next: cursor is NULL");
  cursor = -1;
  assert_int_equal(xffi_map_next(&item, map, &cursor), XFFI_FAIL);
  expect_error(XFFI_KIND_INDEX, "xffi_map_next: cursor is negative (-1)");
  cursor = 1000; /* past the end: simply finished */
  assert_int_equal(xffi_map_next(&item, map, &cursor), XFFI_OK);
  assert_null(item.key);

  assert_int_equal(xffi_map_copy(NULL, map), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_copy: out is NULL");
  assert_int_equal(xffi_map_copy(&out, str), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_copy: map expected ffi.Map or ffi.Dict, got ffi.String");

  assert_int_equal(xffi_map_set(NULL, &k, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_set: map is NULL");
  assert_int_equal(xffi_map_set(&null_obj, &k, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_set: *map is NULL");
  assert_int_equal(xffi_map_set(&dict, &k, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_set: *map expected ffi.Map, got ffi.Dict");
  assert_int_equal(xffi_map_set(&map, NULL, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_set: key is NULL");
  assert_int_equal(xffi_map_set(&map, &k, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_set: value is NULL");
  assert_int_equal(xffi_map_set(&map, &rvalue, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_set: key is an object rvalue reference (a move), which cannot be a map key");
  assert_int_equal(xffi_map_set(&map, &k, &rvalue), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_set: value is an object rvalue reference (a move), which cannot be stored");

  assert_int_equal(xffi_map_erase(NULL, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_erase: map is NULL");
  assert_int_equal(xffi_map_erase(&dict, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_erase: *map expected ffi.Map, got ffi.Dict");
  assert_int_equal(xffi_map_erase(&map, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_erase: key is NULL");
  assert_int_equal(xffi_map_erase(&map, &missing), XFFI_FAIL);
  expect_error(XFFI_KIND_KEY, "xffi_map_erase: key 2 is not in the map");

  assert_int_equal(xffi_map_clear(NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_clear: map is NULL");
  assert_int_equal(xffi_map_clear(&null_obj), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_clear: *map is NULL");
  assert_int_equal(xffi_map_clear(&str), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_clear: *map expected ffi.Map, got ffi.String");

  assert_int_equal(xffi_map_memory_bytes(NULL, map), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_memory_bytes: out is NULL");
  assert_int_equal(xffi_map_memory_bytes(&bytes, str), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_memory_bytes: map expected ffi.Map or ffi.Dict, got ffi.String");

  assert_int_equal(map_len(map), 1);
  assert_null(xffi_error_peek_raised());
  xffi_object_dec_ref(str);
  xffi_object_dec_ref(dict);
  xffi_object_dec_ref(map);
}

/* Small maps (an index of 8 slots, up to 7 keys) whose probes often run
 * off the end of the index and wrap to slot 0: every lookup path (String,
 * small string, C string, Bytes, int keys) finds every key and no other,
 * whatever the process's hash secret puts where. */
static void probes_that_run_off_the_end_wrap_to_the_first_slot(void **state) {
  (void)state;
  for (int round = 0; round < 300; ++round) {
    xffi_object *map = NULL;
    assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
    char text[7][16];
    xffi_any keys[7];
    for (int k = 0; k < 7; ++k) {
      int n = round * 7 + k;
      /* 12-byte Strings, 5-byte small strings, 10-byte Bytes, ints. */
      switch (k % 4) {
        case 0: snprintf(text[k], sizeof(text[k]), "key-%08d", n); break;
        case 1: snprintf(text[k], sizeof(text[k]), "k%04d", n % 10000); break;
        case 2: snprintf(text[k], sizeof(text[k]), "b-%08d", n); break;
        default: text[k][0] = '\0'; break;
      }
      if (k % 4 == 3) {
        keys[k] = xffi_any_int(n);
      } else if (k % 4 == 2) {
        xffi_object *bytes = NULL;
        assert_int_equal(xffi_bytes_new(&bytes, text[k], strlen(text[k])), XFFI_OK);
        keys[k] = xffi_any_object(bytes);
      } else {
        assert_int_equal(xffi_any_from_str(&keys[k], text[k], strlen(text[k])), XFFI_OK);
      }
      xffi_any value = xffi_any_int(n);
      assert_int_equal(xffi_map_set(&map, &keys[k], &value), XFFI_OK);
    }
    for (int k = 0; k < 7; ++k) {
      const xffi_any *found = NULL;
      assert_int_equal(xffi_map_lookup(&found, map, &keys[k]), XFFI_OK);
      assert_non_null(found);
      assert_int_equal(found->v_int64, round * 7 + k);
      if (k % 4 < 2) { /* the same text as a borrowed C string */
        xffi_any c_str = xffi_any_c_str(text[k]);
        assert_int_equal(map_get_int(map, &c_str), round * 7 + k);
      }
    }
    xffi_any absent[4] = {xffi_any_int(-1 - round), xffi_any_c_str("key-absent!!"), xffi_any_c_str("nokey"),
                          xffi_any_c_str("absent-text-of-20-by")};
    for (int a = 0; a < 4; ++a) assert_int_equal(map_has(map, absent[a]), 0);
    for (int k = 0; k < 7; ++k) xffi_any_release(&keys[k]);
    xffi_object_dec_ref(map);
  }
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(set_get_and_iterate_in_insertion_order),
      cmocka_unit_test(string_forms_with_the_same_bytes_are_one_key),
      cmocka_unit_test(small_string_bytes_past_the_length_are_not_part_of_the_key),
      cmocka_unit_test(small_keys_keep_their_text),
      cmocka_unit_test(int_bool_and_float_are_distinct_kinds),
      cmocka_unit_test(float_keys_compare_by_bits),
      cmocka_unit_test(plain_values_compare_by_value_objects_by_identity),
      cmocka_unit_test(changes_on_a_shared_map_copy_it),
      cmocka_unit_test(pop_moves_the_value_out_and_copies_a_shared_map),
      cmocka_unit_test(new_from_sets_pairs_in_order),
      cmocka_unit_test(many_erases_keep_the_table_without_tombstones),
      cmocka_unit_test(bytes_per_entry_stay_under_135),
      cmocka_unit_test(values_and_keys_are_released_exactly_once),
      cmocka_unit_test(out_of_memory_leaves_the_map_unchanged),
      cmocka_unit_test(bad_input_is_reported),
      cmocka_unit_test(probes_that_run_off_the_end_wrap_to_the_first_slot),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
