/* tests/c/test_map_flooding.c: hash flooding of Map and Dict keys.
 *
 * Before keys were hashed with a secret (c/hash.h), int and float keys went
 * through a fixed, invertible mix and short strings through a fixed
 * multiply-fold, so a caller could compute 40,000 keys sharing one home slot
 * and make their insertion quadratic (6.6 s instead of 8 ms). Each test here
 * builds such keys against the old hash (checking that they do collide
 * under it), then times inserting and finding them against as many ordinary
 * keys. The limit is generous (20x the ordinary keys plus 0.5 s): the old
 * hash took hundreds of times longer. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
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
#include "test_util.h"

#include <xffi/map.h>
#include <xffi/string.h>
#include <xffi/xffi.h>

#define NKEYS 40000

/* ---- The old hash of int and float keys, and its inverse ---- */

#define OLD_MUL UINT64_C(0xd6e8feb86659fd93)
#define OLD_GOLDEN UINT64_C(0x9e3779b97f4a7c15)
#define OLD_FLOAT_SALT UINT64_C(0x3c6ef372fe94f82b)

static uint64_t old_mix(uint64_t x) {
  x ^= x >> 32;
  x *= OLD_MUL;
  x ^= x >> 32;
  x *= OLD_MUL;
  x ^= x >> 32;
  return x;
}

/* The multiplicative inverse of an odd number modulo 2^64 (Newton's
 * iteration, each step doubling the correct low bits). */
static uint64_t inverse_mod_2_64(uint64_t a) {
  uint64_t x = a; /* correct to 3 bits for odd a */
  for (int i = 0; i < 5; ++i) x *= 2 - a * x;
  return x;
}

/* x ^= x >> 32 is its own inverse on 64 bits. */
static uint64_t old_unmix(uint64_t h) {
  uint64_t inv = inverse_mod_2_64(OLD_MUL);
  h ^= h >> 32;
  h *= inv;
  h ^= h >> 32;
  h *= inv;
  h ^= h >> 32;
  return h;
}

/* The old home slot depends only on the low 32 bits of the hash: one fixed
 * low half, a different high half per key. */
static uint64_t colliding_hash(int i) { return ((uint64_t)(i + 1) << 32) | UINT64_C(0x5eed1234); }

/* Inserts keys[0..n) into a fresh Dict (value: the position), then finds
 * each; returns the seconds taken. */
static double time_dict_inserts(const xffi_any *keys, int n) {
  double start = test_cpu_seconds();
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  for (int i = 0; i < n; ++i) {
    xffi_any value = xffi_any_int(i);
    assert_int_equal(xffi_dict_set(dict, &keys[i], &value), XFFI_OK);
  }
  int64_t length = 0;
  assert_int_equal(xffi_map_length(&length, dict), XFFI_OK);
  assert_int_equal(length, n);
  for (int i = 0; i < n; ++i) {
    const xffi_any *found = NULL;
    assert_int_equal(xffi_map_lookup(&found, dict, &keys[i]), XFFI_OK);
    assert_non_null(found);
    assert_int_equal(found->v_int64, i);
  }
  xffi_object_dec_ref(dict);
  return test_cpu_seconds() - start;
}

/* Times the ordinary keys and the chosen ones, and checks the limit. */
static void assert_near_linear(const char *what, const xffi_any *ordinary, const xffi_any *chosen) {
  double t_ordinary = time_dict_inserts(ordinary, NKEYS);
  double t_chosen = time_dict_inserts(chosen, NKEYS);
  printf("%s: %d ordinary keys %.1f ms, %d keys colliding under the old hash %.1f ms\n", what, NKEYS, t_ordinary * 1e3,
         NKEYS, t_chosen * 1e3);
  assert_true(t_chosen < 20 * t_ordinary + 0.5);
}

static void int_keys_chosen_to_collide_insert_in_near_linear_time(void **state) {
  (void)state;
  xffi_any *ordinary = calloc(NKEYS, sizeof(xffi_any)), *chosen = calloc(NKEYS, sizeof(xffi_any));
  assert_non_null(ordinary);
  assert_non_null(chosen);
  for (int i = 0; i < NKEYS; ++i) {
    /* The old int hash was old_mix(key + type index 1 * golden). */
    int64_t key = (int64_t)(old_unmix(colliding_hash(i)) - OLD_GOLDEN);
    assert_int_equal((uint32_t)old_mix((uint64_t)key + OLD_GOLDEN), (uint32_t)colliding_hash(0));
    chosen[i] = xffi_any_int(key);
    ordinary[i] = xffi_any_int(i);
  }
  assert_near_linear("int keys", ordinary, chosen);
  free(ordinary);
  free(chosen);
}

static void float_keys_chosen_to_collide_insert_in_near_linear_time(void **state) {
  (void)state;
  xffi_any *ordinary = calloc(NKEYS, sizeof(xffi_any)), *chosen = calloc(NKEYS, sizeof(xffi_any));
  assert_non_null(ordinary);
  assert_non_null(chosen);
  int n = 0;
  for (int i = 0; n < NKEYS; ++i) {
    /* The old float hash was old_mix(bits ^ salt); NaNs and zeros merge
     * into one key each, so they are skipped. */
    uint64_t bits = old_unmix(colliding_hash(i)) ^ OLD_FLOAT_SALT;
    double d;
    memcpy(&d, &bits, sizeof(d));
    if (isnan(d) || d == 0.0) continue;
    assert_int_equal((uint32_t)old_mix(bits ^ OLD_FLOAT_SALT), (uint32_t)colliding_hash(0));
    chosen[n] = xffi_any_float(d);
    ordinary[n] = xffi_any_float((double)n + 0.5);
    ++n;
  }
  assert_near_linear("float keys", ordinary, chosen);
  free(ordinary);
  free(chosen);
}

/* 16-byte keys whose first 8 bytes equal the old short hash's first
 * constant: it xored them to zero and multiplied, so every such key hashed
 * to 0 whatever its last 8 bytes. xffi_bytes_hash, which the map no longer
 * uses, still computes that old hash; the test checks the keys against it. */
static void string_keys_chosen_to_collide_insert_in_near_linear_time(void **state) {
  (void)state;
  static const uint64_t old_first_constant = UINT64_C(0x13198a2e03707345);
  xffi_any *ordinary = calloc(NKEYS, sizeof(xffi_any)), *chosen = calloc(NKEYS, sizeof(xffi_any));
  assert_non_null(ordinary);
  assert_non_null(chosen);
  uint64_t first_hash = 0;
  for (int i = 0; i < NKEYS; ++i) {
    char text[16];
    uint64_t tail = (uint64_t)i * UINT64_C(0x100000001b3) + 1;
    for (int b = 0; b < 8; ++b) text[b] = (char)(old_first_constant >> (8 * b)); /* read little-endian */
    memcpy(text + 8, &tail, 8);
    uint64_t old_hash = xffi_bytes_hash(text, sizeof(text));
    if (i == 0) first_hash = old_hash;
    assert_true(old_hash == first_hash);
    xffi_object *s = NULL;
    assert_int_equal(xffi_string_new(&s, text, sizeof(text)), XFFI_OK);
    chosen[i] = xffi_any_object(s);
    char plain[17];
    snprintf(plain, sizeof(plain), "key-%012d", i);
    assert_int_equal(xffi_string_new(&s, plain, 16), XFFI_OK);
    ordinary[i] = xffi_any_object(s);
  }
  assert_near_linear("16-byte String keys", ordinary, chosen);
  for (int i = 0; i < NKEYS; ++i) {
    xffi_any_release(&ordinary[i]);
    xffi_any_release(&chosen[i]);
  }
  free(ordinary);
  free(chosen);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(int_keys_chosen_to_collide_insert_in_near_linear_time),
      cmocka_unit_test(float_keys_chosen_to_collide_insert_in_near_linear_time),
      cmocka_unit_test(string_keys_chosen_to_collide_insert_in_near_linear_time),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
