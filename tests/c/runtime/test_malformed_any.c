/* tests/c/runtime/test_malformed_any.c: Any values a foreign caller filled with bits
 * no constructor makes (a borrowed string or byte array with a NULL pointer,
 * an object kind with a NULL object, a small string longer than 7 bytes, a
 * negative type index). Before, they crashed or read past the 16-byte Any;
 * now every entry point that reads an Any's payload raises ValueError
 * "<function>: <argument> is malformed: ...", changes nothing and leaks
 * nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/map.h>
#include <xffi/xffi.h>

enum { NUM_SHAPES = 8 };

static xffi_byte_array null_data_bytes = {NULL, 5};

/* Every malformed shape, and a fragment of the message each gets. */
static xffi_any malformed(int shape, const char **why) {
  xffi_any v = xffi_any_none();
  switch (shape) {
    case 0:
      v.type_index = XFFI_TYPE_RAW_STR;
      *why = "is malformed: a borrowed C string (RAW_STR) with a NULL pointer";
      break;
    case 1:
      v.type_index = XFFI_TYPE_BYTE_ARRAY_PTR;
      *why = "is malformed: a borrowed byte array (BYTE_ARRAY_PTR) with a NULL pointer";
      break;
    case 2:
      v.type_index = XFFI_TYPE_BYTE_ARRAY_PTR;
      v.v_bytes_ptr = &null_data_bytes;
      *why = "is malformed: a borrowed byte array (BYTE_ARRAY_PTR) with NULL data and a non-zero size";
      break;
    case 3:
      v.type_index = XFFI_TYPE_STRING;
      *why = "is malformed: object type index 65 with a NULL object";
      break;
    case 4:
      v.type_index = XFFI_TYPE_SMALL_STR;
      v.small_len = 200;
      memcpy(v.v_small, "abcdefgh", 8);
      *why = "is malformed: a small string of length 200 (at most 7 fit inline)";
      break;
    case 5:
      v.type_index = XFFI_TYPE_SMALL_BYTES;
      v.small_len = 8;
      *why = "is malformed: a small bytes value of length 8 (at most 7 fit inline)";
      break;
    case 6:
      v.type_index = INT32_MIN;
      *why = "is malformed: negative type index -2147483648";
      break;
    default:
      v.type_index = XFFI_TYPE_DLTENSOR_PTR;
      *why = "is malformed: a DLTensor view (DLTENSOR_PTR) with a NULL pointer";
      break;
  }
  return v;
}

static void assert_malformed(const char *fn, const char *what, const char *why) {
  char expected[256];
  snprintf(expected, sizeof(expected), "%s: %s %s", fn, what, why);
  expect_error(XFFI_KIND_VALUE, expected);
}

static void any_copy_and_accessors_refuse_malformed_values(void **state) {
  (void)state;
  for (int shape = 0; shape < NUM_SHAPES; ++shape) {
    const char *why;
    xffi_any v = malformed(shape, &why);
    xffi_any out = xffi_any_int(7);
    assert_int_equal(xffi_any_copy(&out, &v), XFFI_FAIL);
    assert_malformed("xffi_any_copy", "view", why);
    assert_int_equal(out.type_index, XFFI_TYPE_NONE);
    xffi_byte_array text = {"unchanged", 9};
    assert_int_equal(xffi_any_to_str(&text, &v), XFFI_FAIL);
    assert_malformed("xffi_any_to_str", "v", why);
    assert_int_equal(xffi_any_to_bytes(&text, &v), XFFI_FAIL);
    assert_malformed("xffi_any_to_bytes", "v", why);
    assert_string_equal(text.data, "unchanged");
    xffi_object *obj = NULL;
    assert_int_equal(xffi_any_to_object(&obj, &v, XFFI_TYPE_OBJECT), XFFI_FAIL);
    assert_malformed("xffi_any_to_object", "v", why);
    int64_t i = 0;
    assert_int_equal(xffi_any_to_int(&i, &v), XFFI_FAIL);
    assert_malformed("xffi_any_to_int", "v", why);
    double d = 0;
    assert_int_equal(xffi_any_to_float(&d, &v), XFFI_FAIL);
    assert_malformed("xffi_any_to_float", "v", why);
  }
}

/* Every map and dict entry point that takes a key or value, on an empty and
 * on a filled container (the fast lookup paths only run on the latter). */
static void map_and_dict_refuse_malformed_keys_and_values(void **state) {
  (void)state;
  for (int filled = 0; filled < 2; ++filled) {
    xffi_object *map = NULL, *dict = NULL;
    assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
    assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
    xffi_any one = xffi_any_int(1), small = xffi_any_none();
    assert_int_equal(xffi_any_from_str(&small, "abc", 3), XFFI_OK);
    if (filled) {
      assert_int_equal(xffi_map_set(&map, &one, &one), XFFI_OK);
      assert_int_equal(xffi_map_set(&map, &small, &one), XFFI_OK);
      assert_int_equal(xffi_dict_set(dict, &one, &one), XFFI_OK);
      assert_int_equal(xffi_dict_set(dict, &small, &one), XFFI_OK);
    }
    for (int shape = 0; shape < NUM_SHAPES; ++shape) {
      const char *why;
      xffi_any bad = malformed(shape, &why);
      const xffi_any *found = NULL;
      xffi_any got = xffi_any_none();
      int contains = -1;
      assert_int_equal(xffi_map_lookup(&found, map, &bad), XFFI_FAIL);
      assert_malformed("xffi_map_lookup", "key", why);
      assert_int_equal(xffi_map_lookup(&found, dict, &bad), XFFI_FAIL);
      assert_malformed("xffi_map_lookup", "key", why);
      assert_int_equal(xffi_map_get(&got, map, &bad), XFFI_FAIL);
      assert_malformed("xffi_map_get", "key", why);
      assert_int_equal(xffi_map_get(&got, dict, &bad), XFFI_FAIL);
      assert_malformed("xffi_map_get", "key", why);
      assert_int_equal(xffi_map_contains(&contains, map, &bad), XFFI_FAIL);
      assert_malformed("xffi_map_contains", "key", why);
      assert_int_equal(xffi_map_contains(&contains, dict, &bad), XFFI_FAIL);
      assert_malformed("xffi_map_contains", "key", why);
      assert_int_equal(xffi_map_set(&map, &bad, &one), XFFI_FAIL);
      assert_malformed("xffi_map_set", "key", why);
      assert_int_equal(xffi_dict_set(dict, &bad, &one), XFFI_FAIL);
      assert_malformed("xffi_dict_set", "key", why);
      assert_int_equal(xffi_map_set(&map, &one, &bad), XFFI_FAIL);
      assert_malformed("xffi_map_set", "value", why);
      assert_int_equal(xffi_dict_set(dict, &small, &bad), XFFI_FAIL);
      assert_malformed("xffi_dict_set", "value", why);
      assert_int_equal(xffi_map_erase(&map, &bad), XFFI_FAIL);
      assert_malformed("xffi_map_erase", "key", why);
      assert_int_equal(xffi_dict_pop(&got, dict, &bad), XFFI_FAIL);
      assert_malformed("xffi_dict_pop", "key", why);
      xffi_object *made = NULL;
      xffi_any keys[2] = {one, bad}, values[2] = {one, one};
      assert_int_equal(xffi_dict_new(&made, keys, values, 2), XFFI_FAIL);
      assert_malformed("xffi_dict_new", "key", why);
      assert_null(made);
    }
    /* Nothing changed: the old values are still there. */
    int64_t length = -1;
    assert_int_equal(xffi_map_length(&length, map), XFFI_OK);
    assert_int_equal(length, filled ? 2 : 0);
    assert_int_equal(xffi_map_length(&length, dict), XFFI_OK);
    assert_int_equal(length, filled ? 2 : 0);
    if (filled) {
      xffi_any got = xffi_any_none();
      assert_int_equal(xffi_map_get(&got, dict, &small), XFFI_OK);
      assert_int_equal(got.v_int64, 1);
    }
    xffi_object_dec_ref(map);
    xffi_object_dec_ref(dict);
  }
}

/* Every Array and List entry point that stores a value: nothing is stored,
 * the container keeps its length. */
static void arrays_and_lists_refuse_malformed_values(void **state) {
  (void)state;
  for (int shape = 0; shape < NUM_SHAPES; ++shape) {
    const char *why;
    xffi_any bad = malformed(shape, &why);
    xffi_any items[2] = {xffi_any_int(1), bad};
    xffi_object *out = NULL;
    assert_int_equal(xffi_array_new(&out, items, 2), XFFI_FAIL);
    assert_malformed("xffi_array_new", "items[1]", why);
    assert_int_equal(xffi_list_new(&out, items, 2), XFFI_FAIL);
    assert_malformed("xffi_list_new", "items[1]", why);
    assert_null(out);

    xffi_object *array = NULL, *list = NULL;
    assert_int_equal(xffi_array_new(&array, items, 1), XFFI_OK);
    assert_int_equal(xffi_list_new(&list, items, 1), XFFI_OK);
    assert_int_equal(xffi_array_set(&array, 0, &bad), XFFI_FAIL);
    assert_malformed("xffi_array_set", "value", why);
    assert_int_equal(xffi_array_push(&array, &bad), XFFI_FAIL);
    assert_malformed("xffi_array_push", "value", why);
    assert_int_equal(xffi_array_insert(&array, 0, &bad), XFFI_FAIL);
    assert_malformed("xffi_array_insert", "value", why);
    assert_int_equal(xffi_list_set(list, 0, &bad), XFFI_FAIL);
    assert_malformed("xffi_list_set", "value", why);
    assert_int_equal(xffi_list_push(list, &bad), XFFI_FAIL);
    assert_malformed("xffi_list_push", "value", why);
    assert_int_equal(xffi_list_insert(list, 0, &bad), XFFI_FAIL);
    assert_malformed("xffi_list_insert", "value", why);
    int64_t size = 0;
    xffi_any first = xffi_any_none();
    assert_int_equal(xffi_array_length(&size, array), XFFI_OK);
    assert_int_equal(size, 1);
    assert_int_equal(xffi_array_get(&first, array, 0), XFFI_OK);
    assert_int_equal(first.v_int64, 1);
    assert_int_equal(xffi_array_length(&size, list), XFFI_OK);
    assert_int_equal(size, 1);
    assert_int_equal(xffi_array_get(&first, list, 0), XFFI_OK);
    assert_int_equal(first.v_int64, 1);
    xffi_object_dec_ref(array);
    xffi_object_dec_ref(list);
  }
}

static void argument_getters_refuse_malformed_arguments(void **state) {
  (void)state;
  for (int shape = 0; shape < NUM_SHAPES; ++shape) {
    const char *why;
    xffi_any args[2] = {xffi_any_int(1), malformed(shape, &why)};
    xffi_byte_array text;
    assert_int_equal(xffi_arg_to_str(&text, args, 2, 1, "my_fn"), XFFI_FAIL);
    assert_malformed("my_fn", "argument 1", why);
    xffi_object *obj = NULL;
    assert_int_equal(xffi_arg_to_object(&obj, args, 2, 1, XFFI_TYPE_OBJECT, "my_fn"), XFFI_FAIL);
    assert_malformed("my_fn", "argument 1", why);
    int64_t i;
    assert_int_equal(xffi_arg_to_int(&i, args, 2, 1, "my_fn"), XFFI_FAIL);
    assert_malformed("my_fn", "argument 1", why);
    assert_int_equal(xffi_arg_check_signature(args, 2, "i*", "my_fn"), XFFI_FAIL);
    assert_malformed("my_fn", "argument 1", why);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(any_copy_and_accessors_refuse_malformed_values),
      cmocka_unit_test(map_and_dict_refuse_malformed_keys_and_values),
      cmocka_unit_test(arrays_and_lists_refuse_malformed_values),
      cmocka_unit_test(argument_getters_refuse_malformed_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
