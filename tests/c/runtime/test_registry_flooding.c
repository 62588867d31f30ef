/* tests/c/runtime/test_registry_flooding.c: names chosen to collide do not make the
 * global function registry or the type registry quadratic.
 *
 * Both registries used to hash names with xffi_bytes_hash, which has no
 * secret: 16-byte names whose first 8 bytes (read little-endian) equal its
 * first mixing constant all hash alike, whatever their last 8 bytes, so they
 * share one probe run and each registration scans all earlier ones. Names
 * are hashed with the process's secret key now (c/hash.h). Each test checks
 * that the chosen names do collide under xffi_bytes_hash, then measures the
 * thread's CPU time (other processes' load does not count) of
 * registering and finding them against as many ordinary names; the limit is
 * generous (20x the ordinary names plus 0.5 s). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <time.h>

#include "test_clock.h"
#include "test_util.h"

#include <xffi/function.h>
#include <xffi/string.h>
#include <xffi/type.h>

#define NNAMES 20000

/* Writes name number i of a family into out (17 bytes with the NUL). A
 * chosen name starts with the 8 bytes that xffi_bytes_hash xors to zero;
 * an ordinary one with a plain prefix. The last 8 bytes are letters, so no
 * name holds a NUL. */
static void family_name(char out[17], int chosen, const char *prefix, int i) {
  static const uint64_t old_first_constant = UINT64_C(0x13198a2e03707345);
  if (chosen) {
    for (int b = 0; b < 8; ++b) out[b] = (char)(old_first_constant >> (8 * b));
  } else {
    memcpy(out, prefix, 8);
  }
  for (int b = 0; b < 8; ++b, i /= 26) out[8 + b] = (char)('a' + i % 26);
  out[16] = '\0';
}

/* Registers NNAMES global functions of one family, looks each up, removes
 * them all; returns the seconds taken. */
static double time_globals(xffi_object *func, int chosen) {
  char name[17];
  double start = test_cpu_seconds();
  for (int i = 0; i < NNAMES; ++i) {
    family_name(name, chosen, "global.o", i);
    assert_int_equal(xffi_function_global_register(name, func, 0), XFFI_OK);
  }
  for (int i = 0; i < NNAMES; ++i) {
    family_name(name, chosen, "global.o", i);
    xffi_object *found = NULL;
    assert_int_equal(xffi_function_global_lookup(&found, name), XFFI_OK);
    assert_ptr_equal(found, func);
    xffi_object_dec_ref(found);
  }
  for (int i = 0; i < NNAMES; ++i) {
    family_name(name, chosen, "global.o", i);
    assert_int_equal(xffi_function_global_erase(name), XFFI_OK);
  }
  return test_cpu_seconds() - start;
}

static void chosen_function_names_register_in_near_linear_time(void **state) {
  (void)state;
  char first[17], name[17];
  family_name(first, 1, "", 0);
  family_name(name, 1, "", NNAMES - 1);
  assert_true(xffi_bytes_hash(first, 16) == xffi_bytes_hash(name, 16)); /* they collide unkeyed */
  xffi_object *func = NULL;
  assert_int_equal(xffi_function_new_direct(&func, test_noop_callback, NULL, NULL), XFFI_OK);
  double t_ordinary = time_globals(func, 0);
  double t_chosen = time_globals(func, 1);
  printf("global functions: %d ordinary names %.1f ms, %d names colliding unkeyed %.1f ms\n", NNAMES, t_ordinary * 1e3,
         NNAMES, t_chosen * 1e3);
  assert_true(t_chosen < 20 * t_ordinary + 0.5);
  xffi_object_dec_ref(func);
}

/* Registers NNAMES types of one family and looks each up by key. Types are
 * never removed, so each family is registered once per process. */
static double time_types(int chosen) {
  char key[17];
  double start = test_cpu_seconds();
  for (int i = 0; i < NNAMES; ++i) {
    family_name(key, chosen, "type.ord", i);
    int32_t index = -1;
    assert_int_equal(xffi_type_register(&index, key, XFFI_TYPE_OBJECT), XFFI_OK);
  }
  for (int i = 0; i < NNAMES; ++i) {
    family_name(key, chosen, "type.ord", i);
    const xffi_type_info *info = NULL;
    assert_int_equal(xffi_type_info_get_by_key(&info, key), XFFI_OK);
    assert_true(info->type_index >= XFFI_TYPE_DYNAMIC_BEGIN);
  }
  return test_cpu_seconds() - start;
}

static void chosen_type_keys_register_in_near_linear_time(void **state) {
  (void)state;
  double t_ordinary = time_types(0);
  double t_chosen = time_types(1);
  printf("types: %d ordinary keys %.1f ms, %d keys colliding unkeyed %.1f ms\n", NNAMES, t_ordinary * 1e3, NNAMES,
         t_chosen * 1e3);
  assert_true(t_chosen < 20 * t_ordinary + 0.5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(chosen_function_names_register_in_near_linear_time),
      cmocka_unit_test(chosen_type_keys_register_in_near_linear_time),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
