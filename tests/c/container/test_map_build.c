/* tests/c/container/test_map_build.c: Maps and Dicts built from a known number of
 * pairs (ffi.Map, ffi.Dict: c/globals_container_map.c on the sized build of
 * c/map_edit.c) are sized once: small with every pair inline up to 4
 * distinct keys, else a dense table of the right capacity from the start,
 * with the result Set called pair by pair gives (tvm-ffi's ffi.Map). Bad
 * input is refused by name and leaves nothing behind. */
#include "test_globals_util.h"

#include <xffi/function.h>
#include <xffi/map.h>
#include <xffi/recursive.h>
#include <xffi/tvm_ffi.h>

#include "lib/container/map_table.h"

static xffi_byte_array bytes_of(const char *s) {
  xffi_byte_array b = {s, strlen(s)};
  return b;
}

static xffi_any I(int64_t x) { return xffi_any_int(x); }

/* Values whose releases are counted: a pair left behind would show. */
typedef struct counted {
  xffi_object header;
  int64_t value;
} counted;

static int counted_alive;

static void counted_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) {
    --counted_alive;
    free(self);
  }
}

static int32_t counted_type(void) {
  static int32_t type = -1;
  if (type < 0) {
    xffi_byte_array key = bytes_of("test.map_build.Counted");
    type = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 0, XFFI_TYPE_OBJECT);
    assert_true(type >= XFFI_TYPE_DYNAMIC_BEGIN);
  }
  return type;
}

static xffi_any new_counted(int64_t value) {
  counted *c = malloc(sizeof(counted));
  assert_non_null(c);
  xffi_object_init(&c->header, counted_type(), counted_deleter);
  c->value = value;
  ++counted_alive;
  xffi_any out = xffi_any_none();
  out.type_index = c->header.type_index;
  out.v_obj = &c->header;
  return out;
}

/* Calls ffi.Map or ffi.Dict on n interleaved key, value views. */
static int build(const char *fn, const xffi_any *args, int32_t n, xffi_object **out) {
  xffi_any result = xffi_any_none();
  *out = NULL;
  if (call_builtin(fn, args, n, &result) != XFFI_OK) return XFFI_FAIL;
  assert_true(xffi_any_is_object(&result));
  *out = result.v_obj;
  return XFFI_OK;
}

/* The entries of map in iteration order must be keys[i] -> values[i]. */
static void assert_entries(const xffi_object *map, const int64_t *keys, const int64_t *values, int64_t n) {
  int64_t length = -1, cursor = 0;
  assert_int_equal(xffi_map_length(&length, map), XFFI_OK);
  assert_int_equal(length, n);
  for (int64_t i = 0; i < n; ++i) {
    xffi_map_item item;
    assert_int_equal(xffi_map_next(&item, map, &cursor), XFFI_OK);
    assert_non_null(item.key);
    assert_int_equal(item.key->v_int64, keys[i]);
    assert_int_equal(item.value->v_int64, values[i]);
  }
}

/* map's layout must be what n pairs ask for: small, with every pair inline
 * in the object and no storage of its own; or dense at once, as big as the
 * count asks (never regrown). */
static void assert_sized_layout(const xffi_object *map, int64_t n, int small) {
  const map_object *m = (const map_object *)map;
  if (small) {
    assert_true(map_is_small(m));
    assert_int_equal(map_small_slots(m), n < MAP_SMALL_INIT ? MAP_SMALL_INIT : n);
    assert_ptr_equal(m->data, (const char *)map + MAP_SMALL_HEADER_BYTES);
    assert_null(m->data_deleter);
  } else {
    uint32_t shift;
    uint64_t slots;
    xffi_map_dense_table_size((uint64_t)n, &shift, &slots);
    assert_false(map_is_small(m));
    assert_int_equal(m->slots, slots);
    assert_int_equal(m->fib_shift, shift);
  }
}

static void sizes_at_the_small_dense_boundary(void **state) {
  (void)state;
  static const char *const fns[] = {"ffi.Map", "ffi.Dict"};
  for (int f = 0; f < 2; ++f) {
    for (int64_t n = 0; n <= 9; ++n) {
      xffi_any args[18];
      int64_t keys[9], values[9];
      for (int64_t i = 0; i < n; ++i) {
        keys[i] = 100 + i;
        values[i] = i;
        args[2 * i] = I(keys[i]);
        args[2 * i + 1] = I(values[i]);
      }
      xffi_object *map = NULL;
      assert_int_equal(build(fns[f], args, (int32_t)(2 * n), &map), XFFI_OK);
      assert_int_equal(map->type_index, f ? XFFI_TYPE_DICT : XFFI_TYPE_MAP);
      assert_sized_layout(map, n, n <= MAP_SMALL_MAX);
      assert_entries(map, keys, values, n);
      xffi_object_dec_ref(map);
    }
  }
}

/* Many pairs: a table sized once for them (5,000 pairs: CalcTableSize's
 * table, not the one doubling from 8 slots would reach), every key found. */
static void many_pairs_fill_one_table(void **state) {
  (void)state;
  enum { N = 5000 };
  xffi_any *args = malloc(2 * N * sizeof(xffi_any));
  assert_non_null(args);
  for (int64_t i = 0; i < N; ++i) {
    args[2 * i] = I(i * 7);
    args[2 * i + 1] = I(i);
  }
  xffi_object *map = NULL;
  assert_int_equal(build("ffi.Map", args, 2 * N, &map), XFFI_OK);
  uint32_t shift;
  uint64_t slots;
  xffi_map_dense_table_size(N, &shift, &slots);
  assert_int_equal(((const map_object *)map)->slots, slots);
  for (int64_t i = 0; i < N; ++i) {
    const xffi_any *found = NULL;
    xffi_any key = I(i * 7);
    assert_int_equal(xffi_map_lookup(&found, map, &key), XFFI_OK);
    assert_non_null(found);
    assert_int_equal(found->v_int64, i);
  }
  xffi_object_dec_ref(map);
  free(args);
}

/* A repeated key takes the last value; it keeps its place while the map is
 * small (at most 4 distinct keys, however many pairs) and moves to the end
 * once it is dense: what Set called pair by pair does in tvm-ffi. */
static void repeated_keys_follow_set(void **state) {
  (void)state;
  static const char *const fns[] = {"ffi.Map", "ffi.Dict"};
  for (int f = 0; f < 2; ++f) {
    xffi_object *map = NULL;
    const xffi_any small[] = {I(1), I(10), I(2), I(20), I(1), I(11), I(3), I(30), I(4), I(40), I(2), I(21)};
    assert_int_equal(build(fns[f], small, 12, &map), XFFI_OK);
    assert_true(map_is_small((const map_object *)map));
    assert_entries(map, (const int64_t[]){1, 2, 3, 4}, (const int64_t[]){11, 21, 30, 40}, 4);
    xffi_object_dec_ref(map);

    const xffi_any dense[] = {I(1), I(10), I(2), I(20), I(3), I(30), I(4), I(40), I(5), I(50), I(1), I(11)};
    assert_int_equal(build(fns[f], dense, 12, &map), XFFI_OK);
    assert_false(map_is_small((const map_object *)map));
    assert_entries(map, (const int64_t[]){2, 3, 4, 5, 1}, (const int64_t[]){20, 30, 40, 50, 11}, 5);
    xffi_object_dec_ref(map);

    /* The first key object stays, the last value object wins; the rest go. */
    xffi_object *first = NULL, *second = NULL;
    assert_int_equal(xffi_string_from_c_str(&first, "a key longer than seven"), XFFI_OK);
    assert_int_equal(xffi_string_from_c_str(&second, "a key longer than seven"), XFFI_OK);
    xffi_any v1 = new_counted(1), v2 = new_counted(2);
    const xffi_any objects[] = {xffi_any_object(first), v1, xffi_any_object(second), v2};
    assert_int_equal(build(fns[f], objects, 4, &map), XFFI_OK);
    xffi_map_item item;
    int64_t cursor = 0;
    assert_int_equal(xffi_map_next(&item, map, &cursor), XFFI_OK);
    assert_ptr_equal(item.key->v_obj, first);
    assert_ptr_equal(item.value->v_obj, v2.v_obj);
    xffi_any_release(&v1);
    assert_int_equal(counted_alive, 1); /* v1 was dropped by the map */
    xffi_object_dec_ref(map);
    xffi_any_release(&v2);
    xffi_object_dec_ref(first);
    xffi_object_dec_ref(second);
    assert_int_equal(counted_alive, 0);
  }
}

/* DeepCopy sizes its copies once too: a Dict's copy gets room for the
 * original's entries before they are set (small and inline up to 4, else a
 * dense table for them), a Map's copy is built from its copied pairs; both
 * keep the original's order and values. */
static void deep_copies_are_sized_once(void **state) {
  (void)state;
  static const char *const fns[] = {"ffi.Map", "ffi.Dict"};
  for (int f = 0; f < 2; ++f) {
    for (int64_t n = 1; n <= 7; n += 2) {
      xffi_any args[14];
      int64_t keys[7], values[7];
      for (int64_t i = 0; i < n; ++i) {
        keys[i] = 50 - i;
        values[i] = i * i;
        args[2 * i] = I(keys[i]);
        args[2 * i + 1] = I(values[i]);
      }
      xffi_object *map = NULL;
      assert_int_equal(build(fns[f], args, (int32_t)(2 * n), &map), XFFI_OK);
      xffi_any original = xffi_any_object(map), copy = xffi_any_none();
      assert_int_equal(xffi_deep_copy(&copy, &original), XFFI_OK);
      assert_ptr_not_equal(copy.v_obj, map);
      assert_int_equal(copy.type_index, original.type_index);
      assert_sized_layout(copy.v_obj, n, n <= 3 || (f == 1 && n <= MAP_SMALL_MAX));
      assert_entries(copy.v_obj, keys, values, n);
      xffi_any_release(&copy);
      xffi_object_dec_ref(map);
    }
  }
}

/* A key whose __any_hash__ fails: a dense build stops with that error. */
static int failing_hash(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  (void)args;
  (void)num_args;
  (void)result;
  return xffi_error_raise(XFFI_KIND_TYPE, "test: this key is not hashable");
}

static void bad_input_is_refused_and_nothing_is_kept(void **state) {
  (void)state;
  xffi_object *map = NULL;
  xffi_any value = new_counted(7);
  /* An odd number of arguments. */
  const xffi_any odd[] = {I(1), value, I(2)};
  assert_int_equal(build("ffi.Map", odd, 3, &map), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "ffi.Map: expected key, value pairs (an even number of arguments), got 3");
  assert_int_equal(build("ffi.Dict", odd, 1, &map), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "ffi.Dict: expected key, value pairs (an even number of arguments), got 1");
  assert_null(map);
  /* NULL pairs with a count. */
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 3), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_map_new: keys is NULL but count is 3");
  assert_int_equal(xffi_dict_new(&map, &value, NULL, 1), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_dict_new: values is NULL but count is 1");
  assert_null(map);
  /* A key that is a move (an rvalue reference) after good pairs: the pairs
   * copied so far are let go. */
  xffi_any rvalue = new_counted(8);
  rvalue.type_index = XFFI_TYPE_OBJECT_RVALUE;
  const xffi_any moved[] = {I(1), value, I(2), value, rvalue, value};
  assert_int_equal(build("ffi.Map", moved, 6, &map), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "ffi.Map: key is an object rvalue reference (a move), which cannot be a map key");
  assert_null(map);
  rvalue.type_index = counted_type();
  xffi_any_release(&rvalue);

  /* A key that cannot be hashed, in a build that needs hashes. */
  xffi_byte_array key = bytes_of("test.map_build.Unhashable");
  int32_t unhashable = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 0, XFFI_TYPE_OBJECT);
  xffi_object *hash = NULL;
  assert_int_equal(xffi_function_new(&hash, failing_hash, NULL, NULL), XFFI_OK);
  xffi_byte_array hash_name = bytes_of("__any_hash__");
  xffi_any hash_any = xffi_any_object(hash);
  assert_int_equal(TVMFFITypeRegisterAttr(unhashable, &hash_name, &hash_any), 0);
  xffi_object_dec_ref(hash);
  xffi_any odd_key = new_counted(0);
  odd_key.type_index = unhashable;
  ((xffi_object *)odd_key.v_obj)->type_index = unhashable;
  xffi_any pairs[12];
  for (int i = 0; i < 6; ++i) {
    pairs[2 * i] = i == 4 ? odd_key : I(i);
    pairs[2 * i + 1] = value;
  }
  assert_int_equal(build("ffi.Map", pairs, 12, &map), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "test: this key is not hashable");
  assert_int_equal(build("ffi.Dict", pairs, 12, &map), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "test: this key is not hashable");
  assert_null(map);
  /* Nothing kept a reference: the caller's are the only ones left. */
  xffi_any_release(&odd_key);
  xffi_any_release(&value);
  assert_int_equal(counted_alive, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sizes_at_the_small_dense_boundary),
      cmocka_unit_test(many_pairs_fill_one_table),
      cmocka_unit_test(repeated_keys_follow_set),
      cmocka_unit_test(deep_copies_are_sized_once),
      cmocka_unit_test(bad_input_is_refused_and_nothing_is_kept),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
