/* tests/c/container/test_map_flooding.c: hash flooding of Map and Dict keys.
 *
 * Maps use tvm-ffi's layout and hash (c/map_table.h), which C++ inline code
 * computes on its own, so xffi cannot key the hash with a secret any more:
 * a caller can choose keys that share one collision chain at every table
 * size (ints whose Fibonacci product differs only in its low bits; strings
 * whose StableHashBytes agree, mod 2^31 - 1). What xffi keeps is a bound:
 * its own inserts refuse a key whose chain holds MAP_MAX_CHAIN (1024) keys,
 * or to grow a mostly empty table, with a ValueError, and the map stays
 * whole. So an insert costs at most one walk of ~1024 chain steps and a
 * flood ends in errors instead of quadratic time. Each test builds the chosen keys (and
 * checks that they do share a home slot under tvm-ffi's hash), floods a
 * Dict until it refuses, then checks what is left. Time limits are generous
 * (CPU seconds, relative to ordinary keys: within_bound). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_clock.h"
#include "test_globals_util.h"

#include <xffi/map.h>
#include <xffi/string.h>
#include <xffi/sys/error.h>
#include <xffi/xffi.h>

#include "lib/container/map_table.h" /* MAP_MAX_CHAIN */

#define NKEYS 40000
#define FIB UINT64_C(11400714819323198485)

/* tvm-ffi's StableHashCombine. */
static uint64_t combine(uint64_t key, uint64_t value) {
  return key ^ (value + UINT64_C(0x9e3779b9) + (key << 6) + (key >> 2));
}

/* The multiplicative inverse of an odd number modulo 2^64 (Newton). */
static uint64_t inverse_mod_2_64(uint64_t a) {
  uint64_t x = a;
  for (int i = 0; i < 5; ++i) x *= 2 - a * x;
  return x;
}

/* Int key i of the flood: its hash h satisfies FIB * h = BASE + i, so the
 * top 32 bits of the product (every home slot up to 2^32 slots) agree. */
static int64_t flood_int(int i) {
  uint64_t want = UINT64_C(0x5eed123400000000) + (uint64_t)i;
  uint64_t h = want * inverse_mod_2_64(FIB);
  /* combine(1, v) = 1 ^ (v + 0x9e3779b9 + 64): solve for v. */
  return (int64_t)((h ^ 1) - UINT64_C(0x9e3779b9) - 64);
}

/* Inserts keys into a fresh Dict until all are in or one is refused; returns
 * how many went in and the CPU seconds taken. On a refusal the error must
 * be the flooding ValueError. */
static int flood(xffi_object **dict, const xffi_any *keys, int n, double *seconds) {
  double start = test_cpu_seconds();
  assert_int_equal(xffi_dict_new(dict, NULL, NULL, 0), XFFI_OK);
  int i = 0;
  for (; i < n; ++i) {
    xffi_any value = xffi_any_int(i);
    if (xffi_dict_set(*dict, &keys[i], &value) != XFFI_OK) {
      xffi_object *err = xffi_error_move_raised();
      assert_non_null(err);
      assert_true(xffi_error_is_kind(err, XFFI_KIND_VALUE));
      xffi_object_dec_ref(err);
      break;
    }
  }
  *seconds = test_cpu_seconds() - start;
  return i;
}

/* After a refused flood the Dict holds exactly the keys that went in, each
 * found with its value, and still takes ordinary keys. */
static void check_intact(xffi_object *dict, const xffi_any *keys, int inserted) {
  int64_t length = -1;
  assert_int_equal(xffi_map_length(&length, dict), XFFI_OK);
  assert_int_equal(length, inserted);
  for (int i = 0; i < inserted; i += 97) {
    const xffi_any *found = NULL;
    assert_int_equal(xffi_map_lookup(&found, dict, &keys[i]), XFFI_OK);
    assert_non_null(found);
    assert_int_equal(found->v_int64, i);
  }
  xffi_any plain = xffi_any_c_str("an ordinary key"), v = xffi_any_int(-1);
  assert_int_equal(xffi_dict_set(dict, &plain, &v), XFFI_OK);
}

static double time_ordinary_ints(void) {
  double start = test_cpu_seconds();
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  for (int i = 0; i < NKEYS; ++i) {
    xffi_any k = xffi_any_int(i), v = xffi_any_int(i);
    assert_int_equal(xffi_dict_set(dict, &k, &v), XFFI_OK);
  }
  for (int i = 0; i < NKEYS; ++i) {
    xffi_any k = xffi_any_int(i);
    const xffi_any *found = NULL;
    assert_int_equal(xffi_map_lookup(&found, dict, &k), XFFI_OK);
    assert_non_null(found);
  }
  xffi_object_dec_ref(dict);
  return test_cpu_seconds() - start;
}

/* The time a refused flood may take: relative to 40,000 ordinary keys on
 * the same machine (emulated targets run 10x slower), 150x plus a second.
 * Measured (Debug, x86-64, loaded machine): floods to the first refusal
 * 0.009-0.011 s, sized builds 0.02-0.05 s, ordinary keys 0.02-0.05 s; a
 * chain of 40,000 keys without the bound would cost about 1,500 times the
 * steps of a flood. */
static double within_bound(double ordinary) { return 150 * ordinary + 1.0; }

static void int_keys_chosen_to_collide_are_refused_in_bounded_time(void **state) {
  (void)state;
  xffi_any *keys = calloc(NKEYS, sizeof(xffi_any));
  assert_non_null(keys);
  for (int i = 0; i < NKEYS; ++i) {
    keys[i] = xffi_any_int(flood_int(i));
    uint64_t h = combine(1, (uint64_t)keys[i].v_int64);
    assert_true((FIB * h) >> 32 == UINT64_C(0x5eed1234)); /* one home slot at every size */
  }
  xffi_object *dict = NULL;
  double seconds = 0;
  int inserted = flood(&dict, keys, NKEYS, &seconds);
  double ordinary = time_ordinary_ints();
  printf("int flood: %d keys in, %.3f s CPU; %d ordinary keys: %.3f s\n", inserted, seconds, NKEYS, ordinary);
  assert_true(inserted >= 1000 && inserted < NKEYS); /* refused, but not early */
  assert_true(seconds < within_bound(ordinary));
  check_intact(dict, keys, inserted);
  xffi_object_dec_ref(dict);
  free(keys);
}

/* 16-byte Bytes keys whose second word differs by multiples of 2^31 - 1:
 * StableHashBytes, reduced mod 2^31 - 1 after each word, agrees on all. */
static void bytes_keys_chosen_to_collide_are_refused_in_bounded_time(void **state) {
  (void)state;
  xffi_any *keys = calloc(NKEYS, sizeof(xffi_any));
  assert_non_null(keys);
  for (int i = 0; i < NKEYS; ++i) {
    unsigned char data[16];
    uint64_t w0 = UINT64_C(0x0123456789abcdef), w1 = UINT64_C(1000) + (uint64_t)i * UINT64_C(2147483647);
    for (int b = 0; b < 8; ++b) {
      data[b] = (unsigned char)(w0 >> (8 * b));
      data[8 + b] = (unsigned char)(w1 >> (8 * b));
    }
    xffi_object *obj = NULL;
    assert_int_equal(xffi_bytes_new(&obj, (const char *)data, sizeof(data)), XFFI_OK);
    keys[i] = xffi_any_object(obj);
  }
  xffi_object *dict = NULL;
  double seconds = 0;
  int inserted = flood(&dict, keys, NKEYS, &seconds);
  double ordinary = time_ordinary_ints();
  printf("bytes flood: %d keys in, %.3f s CPU; %d ordinary keys: %.3f s\n", inserted, seconds, NKEYS, ordinary);
  assert_true(inserted >= 1000 && inserted < NKEYS);
  assert_true(seconds < within_bound(ordinary));
  check_intact(dict, keys, inserted);
  xffi_object_dec_ref(dict);
  for (int i = 0; i < NKEYS; ++i) xffi_any_release(&keys[i]);
  free(keys);
}

/* A careless caller tries every one of 40,000 chosen int keys, going on
 * after the refusals: exactly MAP_MAX_CHAIN keys go in, every other insert
 * is refused with the flooding ValueError (each after one walk of the
 * chain, the bound of an insert's work: no timing here, bench_containers
 * measures it against ordinary keys), and the Dict holds exactly the
 * accepted keys, still taking ordinary ones. */
static void every_chosen_int_key_past_the_chain_bound_is_refused(void **state) {
  (void)state;
  xffi_any *keys = calloc(NKEYS, sizeof(xffi_any));
  assert_non_null(keys);
  for (int i = 0; i < NKEYS; ++i) keys[i] = xffi_any_int(flood_int(i));
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  int accepted = 0, refused = 0;
  for (int i = 0; i < NKEYS; ++i) {
    xffi_any value = xffi_any_int(i);
    if (xffi_dict_set(dict, &keys[i], &value) == XFFI_OK) {
      assert_int_equal(i, accepted); /* the first ones go in, then none */
      ++accepted;
      continue;
    }
    xffi_object *err = xffi_error_move_raised();
    assert_non_null(err);
    assert_true(xffi_error_is_kind(err, XFFI_KIND_VALUE));
    xffi_byte_array message = xffi_error_cell_of_unchecked(err)->message;
    char expected[128];
    snprintf(expected, sizeof expected, "xffi_dict_set: %d keys of this map share one hash chain (at most %d)",
             MAP_MAX_CHAIN, MAP_MAX_CHAIN);
    assert_true(message.size >= strlen(expected) && memcmp(message.data, expected, strlen(expected)) == 0);
    xffi_object_dec_ref(err);
    ++refused;
  }
  assert_int_equal(accepted, MAP_MAX_CHAIN);
  assert_int_equal(refused, NKEYS - MAP_MAX_CHAIN);
  /* Setting an accepted key again still works: it is found before the bound applies. */
  xffi_any again = xffi_any_int(-5);
  assert_int_equal(xffi_dict_set(dict, &keys[MAP_MAX_CHAIN - 1], &again), XFFI_OK);
  const xffi_any *found = NULL;
  assert_int_equal(xffi_map_lookup(&found, dict, &keys[MAP_MAX_CHAIN - 1]), XFFI_OK);
  assert_non_null(found);
  assert_int_equal(found->v_int64, -5);
  xffi_any back = xffi_any_int(MAP_MAX_CHAIN - 1);
  assert_int_equal(xffi_dict_set(dict, &keys[MAP_MAX_CHAIN - 1], &back), XFFI_OK);
  check_intact(dict, keys, accepted);
  xffi_object_dec_ref(dict);
  free(keys);
}

/* ffi.Map and ffi.Dict of 100,000 colliding int keys, sized once for all
 * of them (c/globals_container_map.c): the same refusal, in bounded time,
 * and no map is made. */
static void sized_builds_of_colliding_keys_are_refused_in_bounded_time(void **state) {
  (void)state;
  enum { PAIRS = 100000 };
  xffi_any *args = calloc(2 * PAIRS, sizeof(xffi_any));
  assert_non_null(args);
  for (int i = 0; i < PAIRS; ++i) {
    args[2 * i] = xffi_any_int(flood_int(i));
    args[2 * i + 1] = xffi_any_int(i);
  }
  double ordinary = time_ordinary_ints();
  static const char *const fns[] = {"ffi.Map", "ffi.Dict"};
  for (int f = 0; f < 2; ++f) {
    xffi_any result = xffi_any_none();
    double start = test_cpu_seconds();
    assert_int_equal(call_builtin(fns[f], args, 2 * PAIRS, &result), XFFI_FAIL);
    double seconds = test_cpu_seconds() - start;
    printf("%s of %d colliding keys: refused in %.3f s CPU; %d ordinary keys: %.3f s\n", fns[f], PAIRS, seconds, NKEYS,
           ordinary);
    assert_raised(XFFI_KIND_VALUE, fns[f]);
    assert_true(result.type_index == XFFI_TYPE_NONE);
    assert_true(seconds < within_bound(ordinary));
  }
  free(args);
}

/* Small maps (at most 4 pairs) never hash: colliding keys cost nothing. */
static void small_maps_never_hash(void **state) {
  (void)state;
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  for (int i = 0; i < 4; ++i) {
    xffi_any k = xffi_any_int(flood_int(i)), v = xffi_any_int(i);
    assert_int_equal(xffi_map_set(&map, &k, &v), XFFI_OK);
  }
  int64_t length = 0;
  assert_int_equal(xffi_map_length(&length, map), XFFI_OK);
  assert_int_equal(length, 4);
  xffi_object_dec_ref(map);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(int_keys_chosen_to_collide_are_refused_in_bounded_time),
      cmocka_unit_test(bytes_keys_chosen_to_collide_are_refused_in_bounded_time),
      cmocka_unit_test(every_chosen_int_key_past_the_chain_bound_is_refused),
      cmocka_unit_test(sized_builds_of_colliding_keys_are_refused_in_bounded_time),
      cmocka_unit_test(small_maps_never_hash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
