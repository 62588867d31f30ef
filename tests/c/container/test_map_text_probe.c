/* tests/c/container/test_map_text_probe.c: text looked up in every form a
 * probe may take (String object, small string, C string, byte array, Bytes
 * object) finds the key of its own kind with the same bytes, and only that,
 * in a small map (scanned) and in a dense one (hashed, chains walked), for
 * text of up to 7 bytes (stored inline) and longer. */
#include "test_util.h"

#include <xffi/map.h>

/* Keys: "abc" and "a key longer than seven" as String objects, "xyz" and
 * "bytes longer than seven" as Bytes objects; values 1 to 4; then, for a
 * dense map, int keys 100 up to 100 + filler - 1. */
static xffi_object *text_keyed_map(int is_dict, int filler) {
  xffi_object *map = NULL, *keys[4] = {NULL, NULL, NULL, NULL};
  assert_int_equal(is_dict ? xffi_dict_new(&map, NULL, NULL, 0) : xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_string_from_c_str(&keys[0], "abc"), XFFI_OK);
  assert_int_equal(xffi_string_from_c_str(&keys[1], "a key longer than seven"), XFFI_OK);
  assert_int_equal(xffi_bytes_new(&keys[2], "xyz", 3), XFFI_OK);
  assert_int_equal(xffi_bytes_new(&keys[3], "bytes longer than seven", 23), XFFI_OK);
  for (int i = 0; i < 4 + filler; ++i) {
    xffi_any key = i < 4 ? xffi_any_object(keys[i]) : xffi_any_int(100 + i), value = xffi_any_int(i + 1);
    assert_int_equal(is_dict ? xffi_dict_set(map, &key, &value) : xffi_map_set(&map, &key, &value), XFFI_OK);
  }
  for (int i = 0; i < 4; ++i) xffi_object_dec_ref(keys[i]);
  return map;
}

/* The value found for probe, or 0 when it is absent. */
static int64_t found(const xffi_object *map, const xffi_any *probe) {
  const xffi_any *value = NULL;
  assert_int_equal(xffi_map_lookup(&value, map, probe), XFFI_OK);
  return value ? value->v_int64 : 0;
}

static void text_probes_find_the_key_of_their_kind_small_and_dense(void **state) {
  (void)state;
  for (int is_dict = 0; is_dict < 2; ++is_dict) {
    for (int filler = 0; filler <= 40; filler += 40) { /* 4 keys: small; 44: dense */
      xffi_object *map = text_keyed_map(is_dict, filler);
      xffi_any probe;
      /* Strings: a small string, a C string (short and long), a new String. */
      assert_int_equal(xffi_any_from_str(&probe, "abc", 3), XFFI_OK);
      assert_int_equal(found(map, &probe), 1);
      probe = xffi_any_c_str("abc");
      assert_int_equal(found(map, &probe), 1);
      probe = xffi_any_c_str("a key longer than seven");
      assert_int_equal(found(map, &probe), 2);
      assert_int_equal(xffi_any_from_str(&probe, "a key longer than seven", 23), XFFI_OK);
      assert_int_equal(found(map, &probe), 2);
      xffi_any_release(&probe);
      /* Bytes: small bytes, byte arrays (short and long). */
      assert_int_equal(xffi_any_from_bytes(&probe, "xyz", 3), XFFI_OK);
      assert_int_equal(found(map, &probe), 3);
      xffi_byte_array xyz = {"xyz", 3}, long_bytes = {"bytes longer than seven", 23};
      probe = xffi_any_byte_array(&xyz);
      assert_int_equal(found(map, &probe), 3);
      probe = xffi_any_byte_array(&long_bytes);
      assert_int_equal(found(map, &probe), 4);
      /* The same bytes of the other kind, a prefix, a longer text: absent. */
      xffi_byte_array abc = {"abc", 3}, long_text = {"a key longer than seven", 23};
      probe = xffi_any_byte_array(&abc);
      assert_int_equal(found(map, &probe), 0);
      probe = xffi_any_byte_array(&long_text);
      assert_int_equal(found(map, &probe), 0);
      probe = xffi_any_c_str("xyz");
      assert_int_equal(found(map, &probe), 0);
      probe = xffi_any_c_str("ab");
      assert_int_equal(found(map, &probe), 0);
      probe = xffi_any_c_str("a key longer than seven!");
      assert_int_equal(found(map, &probe), 0);
      probe = xffi_any_c_str("a key longer than sevem"); /* differs in the last byte only */
      assert_int_equal(found(map, &probe), 0);
      xffi_object_dec_ref(map);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(text_probes_find_the_key_of_their_kind_small_and_dense),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
