/* tests/c/container/test_map_tvm_layout.c: Map and Dict bytes are tvm-ffi's.
 *
 * The expected values below were computed by a throwaway C++ program built
 * against the pinned wheel's headers and library (apache-tvm-ffi
 * 0.1.15.post2): AnyHash of each key, and the object fields, metadata bytes
 * and iteration order of Map<Any, Any> after the same Set/erase calls. xffi
 * must produce the same bytes, or C++ inline code reading an xffi map (and
 * the reverse) would look in the wrong slots. The last tests check the
 * storage conventions C++ relies on: data_deleter frees storage whoever
 * allocated it. */
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
#include <xffi/string.h>
#include <xffi/xffi.h>

#include "lib/container/map_table.h"

static uint64_t hash_of(xffi_any key) {
  xffi_any probe;
  uint64_t h = 0;
  assert_int_equal(xffi_map_key_normalize("test", &probe, &key), XFFI_OK);
  assert_int_equal(xffi_map_any_hash(&h, &probe), XFFI_OK);
  return h;
}

static uint64_t hash_of_string(const char *text, size_t size, int bytes) {
  xffi_object *obj = NULL;
  assert_int_equal(bytes ? xffi_bytes_new(&obj, text, size) : xffi_string_new(&obj, text, size), XFFI_OK);
  uint64_t h = hash_of(xffi_any_object(obj));
  xffi_object_dec_ref(obj);
  return h;
}

static void any_hash_matches_tvm_ffi(void **state) {
  (void)state;
  assert_int_equal(hash_of(xffi_any_int(1)), UINT64_C(2654435835));
  assert_int_equal(hash_of(xffi_any_int(-5)), UINT64_C(2654435829));
  assert_int_equal(hash_of(xffi_any_float(1.0)), UINT64_C(4607182421454453370));
  assert_int_equal(hash_of(xffi_any_float(-0.0)), UINT64_C(9223372039509211770));
  assert_int_equal(hash_of(xffi_any_bool(1)), UINT64_C(2654435896));
  assert_int_equal(hash_of(xffi_any_none()), UINT64_C(2654435769));
  /* Small and heap strings hash alike; C strings as the String they stand for. */
  assert_int_equal(hash_of(xffi_any_c_str("abc")), UINT64_C(2660953131));
  assert_int_equal(hash_of_string("abc", 3, 0), UINT64_C(2660953131));
  assert_int_equal(hash_of(xffi_any_c_str("hello world, a longer key")), UINT64_C(4649817495));
  assert_int_equal(hash_of_string("hello world, a longer key", 25, 0), UINT64_C(4649817495));
  assert_int_equal(hash_of_string("abcdefgh", 8, 0), UINT64_C(3546921335));
  assert_int_equal(hash_of(xffi_any_c_str("")), UINT64_C(2654440008));
  assert_int_equal(hash_of_string("ab", 2, 1), UINT64_C(2654465256));
  assert_int_equal(hash_of_string("0123456789abcdefXYZ", 19, 1), UINT64_C(3555225110));
  /* Garbage past a small string's length is no part of the key. */
  xffi_any noisy = xffi_any_c_str("abc"), probe;
  assert_int_equal(xffi_map_key_normalize("test", &probe, &noisy), XFFI_OK);
  probe.v_small[6] = 'z';
  assert_int_equal(hash_of(probe), UINT64_C(2660953131));
}

static void any_equal_follows_tvm_ffi(void **state) {
  (void)state;
  int eq = -1;
  xffi_any one = xffi_any_int(1), one_f = xffi_any_float(1.0), yes = xffi_any_bool(1);
  assert_int_equal(xffi_map_any_equal(&eq, &one, &one_f), XFFI_OK);
  assert_int_equal(eq, 0);
  assert_int_equal(xffi_map_any_equal(&eq, &one, &yes), XFFI_OK);
  assert_int_equal(eq, 0);
  xffi_any small = xffi_any_none();
  small.type_index = XFFI_TYPE_SMALL_STR;
  small.small_len = 3;
  memcpy(small.v_small, "abc", 3);
  xffi_object *heap = NULL;
  assert_int_equal(xffi_string_new(&heap, "abc", 3), XFFI_OK);
  xffi_any heap_view = xffi_any_object(heap);
  assert_int_equal(xffi_map_any_equal(&eq, &small, &heap_view), XFFI_OK);
  assert_int_equal(eq, 1);
  xffi_object *bytes = NULL;
  assert_int_equal(xffi_bytes_new(&bytes, "abc", 3), XFFI_OK);
  xffi_any bytes_view = xffi_any_object(bytes);
  assert_int_equal(xffi_map_any_equal(&eq, &small, &bytes_view), XFFI_OK);
  assert_int_equal(eq, 0); /* a string is never bytes */
  xffi_object_dec_ref(bytes);
  xffi_object_dec_ref(heap);
}

/* The fields and metadata bytes of a map object (c/map_table.h). */
static void check_dense(const xffi_object *obj, uint64_t size, uint64_t slots, uint32_t shift, uint64_t head,
                        uint64_t tail, const unsigned char *meta, const int64_t *order) {
  const map_object *m = (const map_object *)obj;
  assert_false(m->slots & MAP_SMALL_TAG);
  assert_int_equal(m->size, size);
  assert_int_equal(m->slots, slots);
  assert_int_equal(m->fib_shift, shift);
  assert_int_equal(m->list_head, head);
  assert_int_equal(m->list_tail, tail);
  for (uint64_t i = 0; i < slots; ++i) {
    const unsigned char *byte = (const unsigned char *)m->data + (i / 16) * MAP_BLOCK_BYTES + i % 16;
    if (*byte != meta[i])
      fail_msg("slot %llu: metadata 0x%02x, tvm-ffi has 0x%02x", (unsigned long long)i, *byte, meta[i]);
  }
  int64_t cursor = 0;
  xffi_map_item item;
  for (uint64_t i = 0; i < size; ++i) {
    assert_int_equal(xffi_map_next(&item, obj, &cursor), XFFI_OK);
    assert_non_null(item.key);
    assert_int_equal(item.key->v_int64, order[i]);
  }
  assert_int_equal(xffi_map_next(&item, obj, &cursor), XFFI_OK);
  assert_null(item.key);
}

static void set(xffi_object **map, int64_t k, int64_t v) {
  xffi_any key = xffi_any_int(k), value = xffi_any_int(v);
  assert_int_equal(xffi_map_set(map, &key, &value), XFFI_OK);
}

static void dense_bytes_match_tvm_ffi(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  for (int64_t k = 0; k < 10; ++k) set(&map, k * 37 - 100, k);
  static const unsigned char meta10[16] = {0xff, 0x00, 0x00, 0xff, 0x00, 0x02, 0x00, 0x80,
                                           0x00, 0xff, 0x00, 0xff, 0x00, 0xff, 0x00, 0xff};
  static const int64_t order10[10] = {-100, -63, -26, 11, 48, 85, 122, 159, 196, 233};
  check_dense(map, 10, 16, 60, 5, 7, meta10, order10);
  /* An overwrite moves the key to the end; an erase empties its slot. */
  set(&map, -100, 99);
  xffi_any k48 = xffi_any_int(48);
  assert_int_equal(xffi_map_erase(&map, &k48), XFFI_OK);
  static const unsigned char meta9[16] = {0xff, 0x00, 0x00, 0xff, 0x00, 0x02, 0x00, 0x80,
                                          0x00, 0xff, 0x00, 0xff, 0xff, 0xff, 0x00, 0xff};
  static const int64_t order9[9] = {-63, -26, 11, 85, 122, 159, 196, 233, -100};
  check_dense(map, 9, 16, 60, 6, 5, meta9, order9);
  xffi_object_dec_ref(map);

  /* 40 keys: chains, a relocated chain (0x81) and two rehashes. */
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  int64_t order40[40];
  for (int64_t k = 0; k < 40; ++k) {
    order40[k] = k * k * 7919;
    set(&map, order40[k], k);
  }
  static const unsigned char meta40[64] = {0xff, 0xff, 0x03, 0x00, 0x00, 0x80, 0xff, 0xff, 0x00, 0xff, 0xff, 0x00, 0x00,
                                           0xff, 0x00, 0x00, 0xff, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x80, 0xff, 0x00,
                                           0xff, 0xff, 0x00, 0xff, 0x00, 0x00, 0x00, 0x00, 0x01, 0x81, 0x80, 0x00, 0x01,
                                           0x80, 0xff, 0x01, 0x80, 0x00, 0xff, 0x00, 0x00, 0xff, 0x00, 0xff, 0x00, 0xff,
                                           0xff, 0xff, 0xff, 0x00, 0x00, 0xff, 0x00, 0xff, 0x00, 0xff, 0x00, 0xff};
  check_dense(map, 40, 64, 58, 8, 36, meta40, order40);
  /* A copy has the same bytes. */
  xffi_object *copy = NULL;
  assert_int_equal(xffi_dict_copy(&copy, map), XFFI_OK);
  check_dense(copy, 40, 64, 58, 8, 36, meta40, order40);
  xffi_object_dec_ref(copy);
  xffi_object_dec_ref(map);
}

static void small_layout_is_tvm_ffis(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  const map_object *m = (const map_object *)map;
  assert_true(m->slots & MAP_SMALL_TAG);
  assert_int_equal(m->slots & ~MAP_SMALL_TAG, 2);
  assert_ptr_equal(m->data, (const char *)map + MAP_SMALL_HEADER_BYTES); /* inline pairs */
  assert_null(m->data_deleter);
  set(&map, 7, 70);
  set(&map, 8, 80);
  xffi_object *before = map;
  xffi_object_inc_ref(before); /* shared: the growth must leave it as it was */
  set(&map, 9, 90);            /* grows to 4 pairs, into a new object, inline (tvm-ffi's Map.Set) */
  m = (const map_object *)map;
  assert_ptr_not_equal(map, before);
  assert_int_equal(m->slots & ~MAP_SMALL_TAG, 4);
  assert_ptr_equal(m->data, (const char *)map + MAP_SMALL_HEADER_BYTES);
  assert_null(m->data_deleter);
  assert_int_equal(m->size, 3);
  int64_t before_size = 0;
  assert_int_equal(xffi_map_length(&before_size, before), XFFI_OK);
  assert_int_equal(before_size, 2);
  xffi_object_dec_ref(before);
  const xffi_any *pairs = (const xffi_any *)m->data;
  assert_int_equal(pairs[0].v_int64, 7);
  assert_int_equal(pairs[1].v_int64, 70);
  assert_int_equal(pairs[4].v_int64, 9);
  set(&map, 10, 100);
  set(&map, 11, 110); /* the 5th pair: dense, 8 slots */
  m = (const map_object *)map;
  assert_false(m->slots & MAP_SMALL_TAG);
  assert_int_equal(m->slots, 8);
  assert_int_equal(m->fib_shift, 61);
  xffi_object_dec_ref(map);
}

/* A Map that grows while it is its holder's only reference still becomes
 * a new object with its 4 pairs inline; a Dict keeps its identity (callers
 * hold it) and moves its pairs out of line, as tvm-ffi's InplaceSwitchTo. */
static void unique_map_grows_inline_dict_in_place(void **state) {
  (void)state;
  xffi_object *map = NULL, *dict = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  for (int64_t k = 1; k <= 4; ++k) {
    xffi_any key = xffi_any_int(k), value = xffi_any_int(k * 10);
    set(&map, k, k * 10);
    assert_int_equal(xffi_dict_set(dict, &key, &value), XFFI_OK);
  }
  const map_object *m = (const map_object *)map, *d = (const map_object *)dict;
  assert_int_equal(m->slots, 4 | MAP_SMALL_TAG);
  assert_ptr_equal(m->data, (const char *)map + MAP_SMALL_HEADER_BYTES);
  assert_null(m->data_deleter);
  assert_int_equal(d->slots, 4 | MAP_SMALL_TAG);
  assert_non_null(d->data_deleter);
  for (int64_t k = 1; k <= 4; ++k) {
    xffi_any key = xffi_any_int(k);
    const xffi_any *found = NULL;
    assert_int_equal(xffi_map_lookup(&found, map, &key), XFFI_OK);
    assert_non_null(found);
    assert_int_equal(found->v_int64, k * 10);
    assert_int_equal(map_small_pairs(m)[k - 1].key.v_int64, k); /* insertion order */
  }
  xffi_object_dec_ref(map);
  xffi_object_dec_ref(dict);
}

/* ---- Storage that another runtime supplied ---- */

static int foreign_frees;
static void foreign_deleter(void *data) {
  foreign_frees += 1;
  free(data);
}

/* A Dict whose pairs live in storage with someone else's deleter (as when
 * C++ switched a small map into it in place): xffi reads it, grows out of
 * it, and frees it through that deleter, exactly once. */
static void foreign_storage_is_freed_through_its_deleter(void **state) {
  (void)state;
  for (int grow = 0; grow < 2; ++grow) {
    foreign_frees = 0;
    xffi_object *dict = NULL;
    assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
    map_object *m = (map_object *)dict;
    map_pair *pairs = calloc(2, sizeof(map_pair));
    assert_non_null(pairs);
    pairs[0].key = xffi_any_int(1);
    pairs[0].value = xffi_any_int(10);
    m->data = pairs;
    m->data_deleter = foreign_deleter;
    m->size = 1;
    m->slots = 2 | MAP_SMALL_TAG;
    xffi_any k = xffi_any_int(1);
    const xffi_any *found = NULL;
    assert_int_equal(xffi_map_lookup(&found, dict, &k), XFFI_OK);
    assert_non_null(found);
    assert_int_equal(found->v_int64, 10);
    if (grow) {
      for (int64_t i = 2; i <= 6; ++i) {
        xffi_any key = xffi_any_int(i), value = xffi_any_int(i * 10);
        assert_int_equal(xffi_dict_set(dict, &key, &value), XFFI_OK);
      }
      assert_int_equal(foreign_frees, 1); /* replaced by xffi's own array */
      assert_int_equal(xffi_map_lookup(&found, dict, &k), XFFI_OK);
      assert_non_null(found);
    }
    xffi_object_dec_ref(dict);
    assert_int_equal(foreign_frees, 1);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(any_hash_matches_tvm_ffi),
      cmocka_unit_test(any_equal_follows_tvm_ffi),
      cmocka_unit_test(dense_bytes_match_tvm_ffi),
      cmocka_unit_test(small_layout_is_tvm_ffis),
      cmocka_unit_test(unique_map_grows_inline_dict_in_place),
      cmocka_unit_test(foreign_storage_is_freed_through_its_deleter),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
