/* tests/c/container/test_dict.c: Dict, the mutable shared hash map, including a
 * randomised test against a simple reference model. */
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

static int64_t dict_len(const xffi_object *dict) {
  int64_t n = -1;
  assert_int_equal(xffi_map_length(&n, dict), XFFI_OK);
  return n;
}

static void changes_are_seen_by_every_holder(void **state) {
  (void)state;
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  assert_int_equal(dict->type_index, XFFI_TYPE_DICT);
  xffi_object *alias = dict;
  xffi_object_inc_ref(alias);
  xffi_any k = xffi_any_c_str("name"), v = xffi_any_c_str("a value longer than 7");
  assert_int_equal(xffi_dict_set(dict, &k, &v), XFFI_OK);
  xffi_any got = xffi_any_none();
  assert_int_equal(xffi_map_get(&got, alias, &k), XFFI_OK);
  assert_int_equal(got.type_index, XFFI_TYPE_STRING);
  assert_string_equal(xffi_string_cell_of_unchecked(got.v_obj).data, "a value longer than 7");
  xffi_any_release(&got);
  const xffi_any *found = NULL;
  assert_int_equal(xffi_map_lookup(&found, alias, &k), XFFI_OK);
  assert_non_null(found);
  int has = 0;
  assert_int_equal(xffi_map_contains(&has, alias, &k), XFFI_OK);
  assert_int_equal(has, 1);
  assert_int_equal(xffi_dict_erase(alias, &k), XFFI_OK);
  assert_int_equal(dict_len(dict), 0);
  xffi_object_dec_ref(alias);
  xffi_object_dec_ref(dict);
}

static void pop_moves_the_value_out(void **state) {
  (void)state;
  counted_destroyed = 0;
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  xffi_object *obj = counted_new();
  xffi_any k = xffi_any_int(1), v = xffi_any_object(obj);
  assert_int_equal(xffi_dict_set(dict, &k, &v), XFFI_OK);
  xffi_object_dec_ref(obj);
  xffi_any out = xffi_any_none();
  assert_int_equal(xffi_dict_pop(&out, dict, &k), XFFI_OK);
  assert_ptr_equal(out.v_obj, obj);
  assert_int_equal(counted_destroyed, 0);
  assert_int_equal(dict_len(dict), 0);
  xffi_any_release(&out);
  assert_int_equal(counted_destroyed, 1);
  xffi_object_dec_ref(dict);
}

static void iteration_and_conversion(void **state) {
  (void)state;
  xffi_any keys[3] = {xffi_any_c_str("b"), xffi_any_c_str("a"), xffi_any_c_str("c")};
  xffi_any values[3] = {xffi_any_int(1), xffi_any_int(2), xffi_any_int(3)};
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, keys, values, 3), XFFI_OK);
  assert_int_equal(dict->type_index, XFFI_TYPE_DICT);
  assert_int_equal(xffi_dict_erase(dict, &keys[1]), XFFI_OK);
  assert_int_equal(xffi_dict_set(dict, &keys[1], &values[1]), XFFI_OK); /* "a" now last */
  const char *expect[] = {"b", "c", "a"};
  int64_t cursor = 0;
  xffi_map_item item;
  for (int i = 0; i < 3; ++i) {
    assert_int_equal(xffi_map_next(&item, dict, &cursor), XFFI_OK);
    assert_non_null(item.key);
    assert_string_equal(item.key->v_small, expect[i]);
  }
  assert_int_equal(xffi_map_next(&item, dict, &cursor), XFFI_OK);
  assert_null(item.key);
  xffi_object *copy = NULL, *map = NULL;
  assert_int_equal(xffi_dict_copy(&copy, dict), XFFI_OK);
  assert_int_equal(xffi_map_copy(&map, dict), XFFI_OK);
  assert_int_equal(xffi_dict_clear(dict), XFFI_OK);
  assert_int_equal(dict_len(dict), 0);
  assert_int_equal(dict_len(copy), 3);
  assert_int_equal(dict_len(map), 3);
  /* A cleared dict works again. */
  assert_int_equal(xffi_dict_set(dict, &keys[0], &values[0]), XFFI_OK);
  assert_int_equal(dict_len(dict), 1);
  xffi_object_dec_ref(map);
  xffi_object_dec_ref(copy);
  xffi_object_dec_ref(dict);
}

static void changing_while_iterating_is_memory_safe(void **state) {
  (void)state;
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  for (int i = 0; i < 100; ++i) {
    xffi_any k = xffi_any_int(i);
    assert_int_equal(xffi_dict_set(dict, &k, &k), XFFI_OK);
  }
  int64_t cursor = 0, steps = 0;
  xffi_map_item item;
  while (xffi_map_next(&item, dict, &cursor) == XFFI_OK && item.key && steps < 1000) {
    xffi_any k = *item.key;
    assert_int_equal(xffi_dict_erase(dict, &k), XFFI_OK); /* triggers compactions */
    ++steps;
  }
  assert_true(steps <= 100);
  assert_true(dict_len(dict) < 100);
  xffi_object_dec_ref(dict);
}

/* ---- Randomised comparison with a reference model ---- */

/* Key ids 0..63 are int keys, 64..127 short strings (small), 128..191 long
 * strings (String objects); the model is an insertion-ordered array. */
#define MODEL_MAX 192

typedef struct model {
  int key[MODEL_MAX];
  int64_t value[MODEL_MAX];
  int size;
  int dense; /* tvm-ffi's layout: dense once a 5th key came; never small again */
} model;

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* A view of key id k; long string keys alternate between a borrowed C string
 * and a String object so both forms are exercised. */
static xffi_any key_view(int k, char *buf, xffi_object **tmp) {
  *tmp = NULL;
  if (k < 64) return xffi_any_int(k * 1000003 - 5);
  if (k < 128) {
    snprintf(buf, 16, "s%d", k);
    return xffi_any_c_str(buf);
  }
  snprintf(buf, 64, "a long string key number %d", k);
  if (rng() & 1) {
    assert_int_equal(xffi_string_from_c_str(tmp, buf), XFFI_OK);
    return xffi_any_object(*tmp);
  }
  return xffi_any_c_str(buf);
}

static int key_matches(const xffi_any *stored, int k) {
  char buf[64];
  if (k < 64) return stored->type_index == XFFI_TYPE_INT && stored->v_int64 == (int64_t)k * 1000003 - 5;
  if (k < 128)
    snprintf(buf, sizeof(buf), "s%d", k);
  else
    snprintf(buf, sizeof(buf), "a long string key number %d", k);
  xffi_byte_array s;
  if (xffi_any_to_str(&s, stored) != XFFI_OK) return 0;
  return s.size == strlen(buf) && memcmp(s.data, buf, s.size) == 0;
}

static int model_find(const model *m, int k) {
  for (int i = 0; i < m->size; ++i)
    if (m->key[i] == k) return i;
  return -1;
}

static void compare_with_model(const xffi_object *dict, const model *m) {
  assert_int_equal(dict_len(dict), m->size);
  int64_t cursor = 0;
  xffi_map_item item;
  for (int i = 0; i < m->size; ++i) {
    assert_int_equal(xffi_map_next(&item, dict, &cursor), XFFI_OK);
    assert_non_null(item.key);
    assert_true(key_matches(item.key, m->key[i]));
    assert_int_equal(item.value->v_int64, m->value[i]);
  }
  assert_int_equal(xffi_map_next(&item, dict, &cursor), XFFI_OK);
  assert_null(item.key);
}

static void random_operations_match_a_reference_model(void **state) {
  (void)state;
  model m;
  memset(&m, 0, sizeof(m));
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  for (int step = 0; step < 30000; ++step) {
    /* Phases bias towards growth or shrinkage so both paths get exercised. */
    int growing = (step / 3000) % 2 == 0;
    int k = (int)(rng() % MODEL_MAX);
    char buf[64];
    xffi_object *tmp = NULL;
    xffi_any key = key_view(k, buf, &tmp);
    int at = model_find(&m, k);
    unsigned op = (unsigned)(rng() % 100);
    if (op < (growing ? 55u : 30u)) { /* set */
      int64_t value = (int64_t)(rng() % 1000000);
      xffi_any v = xffi_any_int(value);
      assert_int_equal(xffi_dict_set(dict, &key, &v), XFFI_OK);
      if (at >= 0 && !m.dense) {
        m.value[at] = value; /* small: the key keeps its place */
      } else if (at >= 0) {
        /* dense: the key moves to the end of the order */
        int moved = m.key[at];
        memmove(&m.key[at], &m.key[at + 1], (size_t)(m.size - at - 1) * sizeof(int));
        memmove(&m.value[at], &m.value[at + 1], (size_t)(m.size - at - 1) * sizeof(int64_t));
        m.key[m.size - 1] = moved;
        m.value[m.size - 1] = value;
      } else {
        if (m.size == 4) m.dense = 1;
        m.key[m.size] = k;
        m.value[m.size] = value;
        m.size++;
      }
    } else if (op < 90) { /* erase or pop */
      int rc;
      xffi_any out = xffi_any_none();
      if (op & 1)
        rc = xffi_dict_erase(dict, &key);
      else
        rc = xffi_dict_pop(&out, dict, &key);
      if (at < 0) {
        assert_int_equal(rc, XFFI_FAIL);
        xffi_object *err = xffi_error_move_raised();
        assert_true(xffi_error_is_kind(err, XFFI_KIND_KEY));
        xffi_object_dec_ref(err);
      } else {
        assert_int_equal(rc, XFFI_OK);
        if (!(op & 1)) assert_int_equal(out.v_int64, m.value[at]);
        memmove(&m.key[at], &m.key[at + 1], (size_t)(m.size - at - 1) * sizeof(int));
        memmove(&m.value[at], &m.value[at + 1], (size_t)(m.size - at - 1) * sizeof(int64_t));
        m.size--;
      }
    } else if (op < 99) { /* lookups */
      const xffi_any *found = NULL;
      assert_int_equal(xffi_map_lookup(&found, dict, &key), XFFI_OK);
      if (at < 0) {
        assert_null(found);
      } else {
        assert_non_null(found);
        assert_int_equal(found->v_int64, m.value[at]);
      }
    } else if (rng() % 8 == 0) { /* rarely: clear */
      assert_int_equal(xffi_dict_clear(dict), XFFI_OK);
      m.size = 0;
    }
    xffi_object_dec_ref(tmp);
    compare_with_model(dict, &m);
  }
  xffi_object_dec_ref(dict);
}

static void large_random_churn_stays_consistent(void **state) {
  (void)state;
  /* Bigger key space, checked by lookups: exercises growth, compaction and
   * index shrinking at sizes the small model does not reach. */
  enum { KEYS = 4096 };
  static int64_t present[KEYS];
  memset(present, -1, sizeof(present));
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  int64_t size = 0;
  for (int step = 0; step < 200000; ++step) {
    int phase_grow = (step / 20000) % 2 == 0;
    int k = (int)(rng() % KEYS);
    xffi_any key = xffi_any_int(k);
    if ((int)(rng() % 100) < (phase_grow ? 70 : 25)) {
      xffi_any v = xffi_any_int(step);
      assert_int_equal(xffi_dict_set(dict, &key, &v), XFFI_OK);
      if (present[k] < 0) size++;
      present[k] = step;
    } else if (present[k] >= 0) {
      assert_int_equal(xffi_dict_erase(dict, &key), XFFI_OK);
      present[k] = -1;
      size--;
    }
    if (step % 1000 == 0) {
      assert_int_equal(dict_len(dict), size);
      for (int j = 0; j < KEYS; ++j) {
        xffi_any kj = xffi_any_int(j);
        const xffi_any *found = NULL;
        assert_int_equal(xffi_map_lookup(&found, dict, &kj), XFFI_OK);
        if (present[j] < 0)
          assert_null(found);
        else
          assert_int_equal(found->v_int64, present[j]);
      }
    }
  }
  xffi_object_dec_ref(dict);
}

/* ---- Out of memory and bad input ---- */

static void out_of_memory_leaves_the_dict_unchanged(void **state) {
  (void)state;
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  xffi_any k = xffi_any_int(1), v = xffi_any_int(2), k10 = xffi_any_int(10), k11 = xffi_any_int(11);
  /* Two pairs live inline in the object; the third needs an array. */
  assert_int_equal(xffi_dict_set(dict, &k10, &v), XFFI_OK);
  assert_int_equal(xffi_dict_set(dict, &k11, &v), XFFI_OK);
  failing_allocator_fail_after(0);
  assert_int_equal(xffi_dict_set(dict, &k, &v), XFFI_FAIL);
  failing_allocator_fail_after(-1);
  expect_error(XFFI_KIND_MEMORY, "out of memory");
  assert_int_equal(dict_len(dict), 2);
  assert_int_equal(xffi_dict_set(dict, &k, &v), XFFI_OK);
  /* Erase and pop never allocate. */
  failing_allocator_fail_after(0);
  assert_int_equal(xffi_dict_erase(dict, &k), XFFI_OK);
  failing_allocator_fail_after(-1);
  xffi_object *out = (xffi_object *)1;
  failing_allocator_fail_after(0);
  assert_int_equal(xffi_dict_new(&out, NULL, NULL, 0), XFFI_FAIL);
  assert_null(out);
  out = (xffi_object *)1;
  assert_int_equal(xffi_dict_copy(&out, dict), XFFI_FAIL);
  assert_null(out);
  failing_allocator_fail_after(-1);
  expect_error(XFFI_KIND_MEMORY, "out of memory");
  xffi_object_dec_ref(dict);
}

static void bad_input_is_reported(void **state) {
  (void)state;
  xffi_object *dict = NULL, *map = NULL, *out = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  xffi_any k = xffi_any_int(1), missing = xffi_any_c_str("missing"), v = xffi_any_int(0), got = xffi_any_none();
  assert_int_equal(xffi_dict_set(dict, &k, &v), XFFI_OK);
  xffi_any rvalue = xffi_any_object(map);
  rvalue.type_index = XFFI_TYPE_OBJECT_RVALUE;
  const xffi_any *found = NULL;
  int flag = 0;
  int64_t n = 0, cursor = 0;
  xffi_map_item item;

  assert_int_equal(xffi_dict_new(NULL, NULL, NULL, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_new: out is NULL");
  assert_int_equal(xffi_dict_new(NULL, &k, &v, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_new: out is NULL");
  assert_int_equal(xffi_dict_new(&out, &k, &v, -4), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_new: count is negative (-4)");
  assert_int_equal(xffi_dict_new(&out, &k, &rvalue, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_dict_new: value is an object rvalue reference (a move), which cannot be stored");
  assert_null(out);

  assert_int_equal(xffi_map_length(NULL, dict), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_length: out is NULL");
  assert_int_equal(xffi_map_length(&n, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_length: map is NULL");
  assert_int_equal(xffi_map_get(&got, dict, &missing), XFFI_FAIL);
  expect_error(XFFI_KIND_KEY, "xffi_map_get: key \"missing\" is not in the map");
  assert_int_equal(xffi_map_get(NULL, dict, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_get: out is NULL");
  assert_int_equal(xffi_map_lookup(&found, dict, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_lookup: key is NULL");
  assert_int_equal(xffi_map_contains(&flag, NULL, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_contains: map is NULL");
  assert_int_equal(xffi_map_next(&item, dict, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_next: cursor is NULL");
  xffi_object *str = NULL;
  assert_int_equal(xffi_string_from_c_str(&str, "x"), XFFI_OK);
  assert_int_equal(xffi_map_get(&got, str, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_get: map expected ffi.Map or ffi.Dict, got ffi.String");
  assert_int_equal(xffi_map_next(&item, str, &cursor), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_map_next: map expected ffi.Map or ffi.Dict, got ffi.String");
  assert_int_equal(xffi_dict_copy(&out, str), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_dict_copy: dict expected ffi.Map or ffi.Dict, got ffi.String");
  xffi_object_dec_ref(str);
  assert_int_equal(xffi_dict_copy(NULL, dict), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_copy: out is NULL");
  (void)cursor;

  assert_int_equal(xffi_dict_set(NULL, &k, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_set: dict is NULL");
  assert_int_equal(xffi_dict_set(map, &k, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_dict_set: dict expected ffi.Dict, got ffi.Map");
  assert_int_equal(xffi_dict_set(dict, NULL, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_set: key is NULL");
  assert_int_equal(xffi_dict_set(dict, &k, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_set: value is NULL");
  assert_int_equal(xffi_dict_set(dict, &rvalue, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_dict_set: key is an object rvalue reference (a move), which cannot be a map key");

  assert_int_equal(xffi_dict_erase(NULL, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_erase: dict is NULL");
  assert_int_equal(xffi_dict_erase(map, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_dict_erase: dict expected ffi.Dict, got ffi.Map");
  assert_int_equal(xffi_dict_erase(dict, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_erase: key is NULL");
  assert_int_equal(xffi_dict_erase(dict, &missing), XFFI_FAIL);
  expect_error(XFFI_KIND_KEY, "xffi_dict_erase: key \"missing\" is not in the map");

  assert_int_equal(xffi_dict_pop(NULL, dict, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_pop: out is NULL");
  assert_int_equal(xffi_dict_pop(&got, NULL, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_pop: dict is NULL");
  assert_int_equal(xffi_dict_pop(&got, map, &k), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_dict_pop: dict expected ffi.Dict, got ffi.Map");
  assert_int_equal(xffi_dict_pop(&got, dict, &missing), XFFI_FAIL);
  expect_error(XFFI_KIND_KEY, "xffi_dict_pop: key \"missing\" is not in the map");

  assert_int_equal(xffi_dict_clear(NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_clear: dict is NULL");
  assert_int_equal(xffi_dict_clear(map), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_dict_clear: dict expected ffi.Dict, got ffi.Map");

  assert_int_equal(dict_len(dict), 1);
  assert_null(xffi_error_peek_raised());
  xffi_object_dec_ref(map);
  xffi_object_dec_ref(dict);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(changes_are_seen_by_every_holder),
      cmocka_unit_test(pop_moves_the_value_out),
      cmocka_unit_test(iteration_and_conversion),
      cmocka_unit_test(changing_while_iterating_is_memory_safe),
      cmocka_unit_test(random_operations_match_a_reference_model),
      cmocka_unit_test(large_random_churn_stays_consistent),
      cmocka_unit_test(out_of_memory_leaves_the_dict_unchanged),
      cmocka_unit_test(bad_input_is_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
