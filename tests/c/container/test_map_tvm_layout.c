/* tests/c/container/test_map_tvm_layout.c: Map and Dict objects follow
 * tvm-ffi's layout and its rules of reading.
 *
 * The hashes below were computed by a throwaway C++ program built against
 * the pinned wheel's headers and library (apache-tvm-ffi 0.1.15.post2).
 * Every runtime must place a key where C++ inline code looks for it:
 * AnyHash, the home slot FibHash(AnyHash(key)), chains linked by the 126
 * jumps with a head at the home slot, the insertion-order list. Beyond
 * those rules the bytes are free: xffi sizes and rehashes its tables its own
 * way (c/lib/container/map_dense.c), so a table xffi builds may differ from
 * the one tvm-ffi builds from the same keys. This test checks the rules on
 * the tables xffi builds (check_dense_rules, an independent reader); the
 * interop test (tests/interop/test_interop_map.c) runs tvm-ffi's own C++
 * on them and xffi on tvm-ffi's. The last tests check the storage
 * conventions C++ relies on: data_deleter frees storage whoever allocated
 * it. */
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

/* tvm-ffi's jump distances (kNextProbeLocation), written out again here
 * so that the checker does not trust xffi's table. */
static uint64_t jump_of(unsigned char meta) {
  static const uint64_t big[] = {UINT64_C(8515),   UINT64_C(19110),  UINT64_C(42778),  UINT64_C(96141),
                                 UINT64_C(216153), UINT64_C(486591), UINT64_C(1092981)};
  unsigned j = meta & 0x7Fu;
  if (j < 16) return j;
  if (j < 16 + 67) { /* triangular numbers: T(6) = 21 to T(72) = 2628 */
    uint64_t n = j - 16 + 6;
    return n * (n + 1) / 2;
  }
  assert_true(j - (16 + 67) < sizeof big / sizeof big[0]); /* larger jumps than any table here needs */
  return big[j - (16 + 67)];
}

/* The AnyHash of a stored key, as tvm-ffi computes it (checked against the
 * wheel's numbers by any_hash_matches_tvm_ffi). */
static uint64_t stored_hash(const xffi_any *key) {
  uint64_t h = 0;
  assert_int_equal(xffi_map_any_hash(&h, key), XFFI_OK);
  return h;
}

/* Checks that the dense map obj obeys the rules C++ inline code reads it
 * by, and that its iteration order is order[0..size-1] (int keys), or any
 * order when order is NULL:
 * - slots a power of two, fib_shift = 64 - log2(slots);
 * - a head (bit 7 clear) sits in its key's home slot, FibHash(AnyHash);
 * - following the jumps from a head visits later elements (bit 7 set)
 *   whose home is that head's slot, and every live slot is on exactly one
 *   chain; no slot is left protected (0xFE);
 * - the list from list_head by next visits every live slot once, prev
 *   links back, list_tail is its end;
 * - xffi finds every key again. */
static void check_dense_rules(const xffi_object *obj, const int64_t *order) {
  const map_object *m = (const map_object *)obj;
  assert_false(m->slots & MAP_SMALL_TAG);
  uint64_t slots = m->slots, log2 = 0;
  assert_true(slots >= 16 && (slots & (slots - 1)) == 0);
  while ((UINT64_C(1) << log2) < slots) ++log2;
  assert_int_equal(m->fib_shift, 64 - log2);
  unsigned char *seen = calloc(slots, 1);
  assert_non_null(seen);
  uint64_t live = 0, on_chains = 0;
  for (uint64_t i = 0; i < slots; ++i) {
    unsigned char meta = *map_meta(m, i);
    assert_int_not_equal(meta, 0xFE);
    if (meta == 0xFF) continue;
    ++live;
    if (meta & 0x80u) continue;
    const map_item *head = map_item_at(m, i);
    uint64_t home = (UINT64_C(11400714819323198485) * stored_hash(&head->key)) >> m->fib_shift;
    if (home != i)
      fail_msg("slot %llu heads a chain but its key's home is %llu", (unsigned long long)i, (unsigned long long)home);
    for (uint64_t at = i, steps = 0;; ++steps) {
      assert_true(steps < slots);
      assert_false(seen[at]);
      seen[at] = 1;
      ++on_chains;
      const map_item *it = map_item_at(m, at);
      uint64_t its_home = (UINT64_C(11400714819323198485) * stored_hash(&it->key)) >> m->fib_shift;
      if (its_home != i)
        fail_msg("slot %llu is on the chain of %llu but its key's home is %llu", (unsigned long long)at,
                 (unsigned long long)i, (unsigned long long)its_home);
      uint64_t jump = jump_of(*map_meta(m, at));
      if (jump == 0) break;
      at = (at + jump) & (slots - 1);
      assert_int_not_equal(*map_meta(m, at), 0xFF);
      assert_true(*map_meta(m, at) & 0x80u); /* a later element */
    }
  }
  assert_int_equal(live, m->size);
  assert_int_equal(on_chains, live);
  uint64_t count = 0, prev = MAP_NONE;
  for (uint64_t at = m->list_head; at != MAP_NONE; at = map_item_at(m, at)->next) {
    assert_true(at < slots);
    assert_int_equal(seen[at], 1); /* live, and visited once */
    seen[at] = 2;
    const map_item *it = map_item_at(m, at);
    assert_int_equal(it->prev, prev);
    if (order) assert_int_equal(it->key.v_int64, order[count]);
    const xffi_any *found = NULL;
    assert_int_equal(xffi_map_lookup(&found, obj, &it->key), XFFI_OK);
    assert_ptr_equal(found, &it->value);
    prev = at;
    ++count;
  }
  assert_int_equal(count, m->size);
  assert_int_equal(m->list_tail, prev);
  free(seen);
}

static void set(xffi_object **map, int64_t k, int64_t v) {
  xffi_any key = xffi_any_int(k), value = xffi_any_int(v);
  assert_int_equal(xffi_map_set(map, &key, &value), XFFI_OK);
}

/* Int key i: small ints and mixed 64-bit ones alternate. */
static int64_t mixed_key(int64_t i) {
  if (i % 2 == 0) return i * 37 - 100;
  uint64_t x = (uint64_t)i;
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  return (int64_t)x;
}

static void dense_tables_obey_tvm_ffis_rules(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  static const int64_t order10[10] = {-100, -63, -26, 11, 48, 85, 122, 159, 196, 233};
  for (int64_t k = 0; k < 10; ++k) set(&map, order10[k], k);
  check_dense_rules(map, order10);
  /* An overwrite moves the key to the end; an erase takes it out. */
  set(&map, -100, 99);
  xffi_any k48 = xffi_any_int(48);
  assert_int_equal(xffi_map_erase(&map, &k48), XFFI_OK);
  static const int64_t order9[9] = {-63, -26, 11, 85, 122, 159, 196, 233, -100};
  check_dense_rules(map, order9);
  xffi_object_dec_ref(map);

  /* Int keys at every size up to 3,000 (each growth, chains moved to make
   * room for a head, rehashes), checked after every insert up to 200, then
   * at each size of the interop test; the same after erasing every third. */
  enum { MAX_KEYS = 3000 };
  int64_t *order = malloc(MAX_KEYS * sizeof(int64_t));
  assert_non_null(order);
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  for (int64_t k = 0; k < MAX_KEYS; ++k) {
    order[k] = mixed_key(k);
    set(&map, order[k], k);
    if (k >= 4 && (k < 200 || k + 1 == 1000 || k + 1 == MAX_KEYS)) check_dense_rules(map, order);
  }
  /* A copy and a map built in one pass obey them too. */
  xffi_object *copy = NULL;
  assert_int_equal(xffi_dict_copy(&copy, map), XFFI_OK);
  check_dense_rules(copy, order);
  xffi_object_dec_ref(copy);
  xffi_any *keys = malloc(MAX_KEYS * sizeof(xffi_any)), *values = malloc(MAX_KEYS * sizeof(xffi_any));
  assert_non_null(keys);
  assert_non_null(values);
  for (int64_t k = 0; k < MAX_KEYS; ++k) {
    keys[k] = xffi_any_int(order[k]);
    values[k] = xffi_any_int(k);
  }
  xffi_object *built = NULL;
  assert_int_equal(xffi_map_new(&built, keys, values, MAX_KEYS), XFFI_OK);
  check_dense_rules(built, order);
  xffi_object_dec_ref(built);
  int64_t kept = 0;
  for (int64_t k = 0; k < MAX_KEYS; ++k) {
    if (k % 3 == 0) {
      xffi_any key = xffi_any_int(order[k]);
      assert_int_equal(xffi_map_erase(&map, &key), XFFI_OK);
    } else {
      order[kept++] = order[k];
    }
  }
  check_dense_rules(map, order);
  xffi_object_dec_ref(map);

  /* String keys (16-byte Strings, and small strings). */
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  for (int64_t k = 0; k < 1000; ++k) {
    char text[32];
    snprintf(text, sizeof text, k % 2 ? "key-%012lld" : "k%lld", (long long)k);
    xffi_any key = xffi_any_c_str(text), value = xffi_any_int(k);
    assert_int_equal(xffi_dict_set(dict, &key, &value), XFFI_OK);
    if (k >= 4 && (k < 100 || k == 999)) check_dense_rules(dict, NULL);
  }
  xffi_object_dec_ref(dict);
  free(keys);
  free(values);
  free(order);
}

/* tvm-ffi's Reset (Dict::clear from C++) empties a dense map and frees its
 * storage: data NULL, 0 slots, fib_shift 63. xffi's next insert starts a
 * table of 16 slots again. */
static void dict_emptied_by_tvm_ffis_reset_takes_keys_again(void **state) {
  (void)state;
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  for (int64_t k = 0; k < 10; ++k) {
    xffi_any key = xffi_any_int(mixed_key(k)), value = xffi_any_int(k);
    assert_int_equal(xffi_dict_set(dict, &key, &value), XFFI_OK);
  }
  assert_int_equal(xffi_dict_clear(dict), XFFI_OK);
  map_object *m = (map_object *)dict;
  m->data_deleter(m->data); /* ReleaseMemory */
  m->data = NULL;
  m->data_deleter = NULL;
  m->slots = 0;
  m->size = 0;
  m->fib_shift = 63;
  int64_t order[40];
  for (int64_t k = 0; k < 40; ++k) {
    order[k] = mixed_key(k + 100);
    xffi_any key = xffi_any_int(order[k]), value = xffi_any_int(k);
    assert_int_equal(xffi_dict_set(dict, &key, &value), XFFI_OK);
    if (k == 0) assert_int_equal(m->slots, 16);
    check_dense_rules(dict, order);
  }
  xffi_object_dec_ref(dict);
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
  set(&map, 11, 110); /* the 5th pair: dense, one whole block of 16 slots */
  m = (const map_object *)map;
  assert_false(m->slots & MAP_SMALL_TAG);
  assert_int_equal(m->slots, 16);
  assert_int_equal(m->fib_shift, 60);
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
      cmocka_unit_test(dense_tables_obey_tvm_ffis_rules),
      cmocka_unit_test(dict_emptied_by_tvm_ffis_reset_takes_keys_again),
      cmocka_unit_test(small_layout_is_tvm_ffis),
      cmocka_unit_test(unique_map_grows_inline_dict_in_place),
      cmocka_unit_test(foreign_storage_is_freed_through_its_deleter),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
