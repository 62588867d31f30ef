/* tests/c/compat/test_globals_container.c: the runtime's container ffi.* globals
 * (c/globals_container*.c), called through their static table entries: each
 * with tvm-ffi's conventions (src/ffi/container.cc), and each refusing bad
 * input (NULLs, wrong counts, wrong types, bad indices) with an error. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "test_globals_util.h"

#include "failing_allocator.h"

#include "test_clock.h"

static xffi_any obj(xffi_object *o) { return xffi_any_object(o); }
static xffi_any I(int64_t x) { return xffi_any_int(x); }
static xffi_any S(const char *s) { return xffi_any_c_str(s); }

static int64_t int_of(xffi_any v) {
  assert_int_equal(v.type_index, XFFI_TYPE_INT);
  return v.v_int64;
}

static int bool_of(xffi_any v) {
  assert_int_equal(v.type_index, XFFI_TYPE_BOOL);
  return (int)v.v_int64;
}

static int64_t size_of(const char *size_fn, xffi_object *o) { return int_of(CALL_OK(size_fn, obj(o))); }

/* The List's elements as ints. */
static void assert_list_is(xffi_object *list, const int64_t *want, int64_t n) {
  assert_int_equal(xffi_seq_size_unchecked(list), n);
  for (int64_t i = 0; i < n; ++i) assert_int_equal(int_of(xffi_seq_items_unchecked(list)[i]), want[i]);
}

static xffi_object *int_list(int64_t n) {
  xffi_object *list = NULL;
  assert_int_equal(xffi_list_new(&list, NULL, 0), XFFI_OK);
  for (int64_t i = 0; i < n; ++i) {
    xffi_any v = I(i);
    assert_int_equal(xffi_list_push(list, &v), XFFI_OK);
  }
  return list;
}

/* ---- the table ---- */

static const char *const container_names[] = {
    "ffi.Array",
    "ffi.ArrayGetItem",
    "ffi.ArraySize",
    "ffi.ArrayContains",
    "ffi.List",
    "ffi.ListGetItem",
    "ffi.ListSetItem",
    "ffi.ListSize",
    "ffi.ListContains",
    "ffi.ListAppend",
    "ffi.ListInsert",
    "ffi.ListPop",
    "ffi.ListErase",
    "ffi.ListEraseRange",
    "ffi.ListReplaceSlice",
    "ffi.ListReverse",
    "ffi.ListClear",
    "ffi.ListReserve",
    "ffi.Map",
    "ffi.MapSize",
    "ffi.MapGetItem",
    "ffi.MapCount",
    "ffi.MapForwardIterFunctor",
    "ffi.MapGetItemOrMissing",
    "ffi.Dict",
    "ffi.DictSize",
    "ffi.DictGetItem",
    "ffi.DictSetItem",
    "ffi.DictCount",
    "ffi.DictErase",
    "ffi.DictClear",
    "ffi.DictForwardIterFunctor",
    "ffi.DictGetItemOrMissing",
    "ffi.Shape",
    "ffi.ContainerFindFirstNonCPUDevice",
};
#define CONTAINER_COUNT (sizeof(container_names) / sizeof(container_names[0]))

/* The argument count of each fixed-arity global (-1: variadic), in the order above. */
static const int container_arity[CONTAINER_COUNT] = {
    -1, 2, 1, 2, -1, 2, 3, 1, 2, 2, 3, 2, 2, 3, 4, 1, 1, 2, -1, 1, 2, 2, 1, 2, -1, 1, 2, 3, 2, 2, 1, 1, 2, -1, 1,
};

static void test_table_holds_every_container_global_as_a_static_function(void **state) {
  (void)state;
  assert_int_equal(xffi_globals_container.count, CONTAINER_COUNT);
  for (size_t i = 0; i < CONTAINER_COUNT; ++i) {
    assert_string_equal(xffi_globals_container.entries[i].name, container_names[i]);
    xffi_object *f = builtin(container_names[i]);
    assert_int_equal(f->type_index, XFFI_TYPE_FUNCTION);
    /* Static: balanced reference traffic never frees it. */
    uint64_t counts = f->ref_counts;
    xffi_object_inc_ref(f);
    xffi_object_dec_ref(f);
    assert_true(f->ref_counts == counts);
  }
}

/* After the functions area's registry serves the static tables, every name
 * is found by lookup and is the table's own Function. Until then (the
 * registry has no built-in at all, not even its own
 * ffi.FunctionListGlobalNamesFunctor), each name must be listed once across
 * all tables, which is what such a registry needs. */
static void test_lookup_by_name_finds_the_static_functions(void **state) {
  (void)state;
  xffi_object *probe = NULL;
  assert_int_equal(xffi_function_global_lookup(&probe, "ffi.FunctionListGlobalNamesFunctor"), XFFI_OK);
  for (size_t i = 0; i < CONTAINER_COUNT; ++i) {
    if (probe) {
      xffi_object *found = NULL;
      assert_int_equal(xffi_function_global_lookup(&found, container_names[i]), XFFI_OK);
      assert_ptr_equal(found, builtin(container_names[i]));
      xffi_object_dec_ref(found);
    } else {
      int listed = 0;
      for (size_t t = 0; t < xffi_builtin_table_count; ++t)
        for (size_t e = 0; e < xffi_builtin_tables[t]->count; ++e)
          listed += strcmp(xffi_builtin_tables[t]->entries[e].name, container_names[i]) == 0;
      assert_int_equal(listed, 1);
    }
  }
  if (probe) xffi_object_dec_ref(probe);
}

/* ---- bad input common to all: every global, raw safe call ---- */

static void test_every_global_refuses_bad_calls(void **state) {
  (void)state;
  xffi_any bad_str = S("x");
  bad_str.v_c_str = NULL; /* malformed: a RAW_STR view with a NULL pointer */
  xffi_any many[6] = {I(0), I(0), I(0), I(0), I(0), I(0)};
  for (size_t i = 0; i < CONTAINER_COUNT; ++i) {
    xffi_function_head *f = builtin_entry(container_names[i])->function;
    xffi_any result = xffi_any_none();
    assert_int_not_equal(f->cell.safe_call(f, many, 1, NULL), 0);
    assert_raised("ValueError", "result is NULL");
    assert_int_not_equal(f->cell.safe_call(f, many, -1, &result), 0);
    assert_raised("ValueError", "num_args is negative");
    assert_int_not_equal(f->cell.safe_call(f, NULL, 2, &result), 0);
    assert_raised("ValueError", "args is NULL");
    /* A malformed last argument in a call of the right count. */
    int32_t count = container_arity[i] >= 0 ? container_arity[i] : 2;
    xffi_any with_bad[6] = {I(0), I(0), I(0), I(0), I(0), I(0)};
    with_bad[count - 1] = bad_str;
    assert_int_not_equal(call_builtin(container_names[i], with_bad, count, &result), XFFI_OK);
    assert_raised("ValueError", "malformed");
    if (container_arity[i] >= 0) {
      int32_t wrong = container_arity[i] + 1;
      assert_int_not_equal(call_builtin(container_names[i], many, wrong, &result), XFFI_OK);
      assert_raised("TypeError", "expected");
      assert_int_equal(result.type_index, XFFI_TYPE_NONE);
    }
    /* A wrong first argument (an int where a container goes) is a TypeError,
     * except where any value is fine or ints are expected. */
    if (container_arity[i] > 0 && strcmp(container_names[i], "ffi.ContainerFindFirstNonCPUDevice") != 0) {
      assert_int_not_equal(call_builtin(container_names[i], many, container_arity[i], &result), XFFI_OK);
      assert_raised("TypeError", container_names[i]);
    }
  }
}

/* ---- Array ---- */

static void test_array_make_size_get_contains(void **state) {
  (void)state;
  xffi_any arr = CALL_OK("ffi.Array", I(7), S("hi"), S("a longer string"), xffi_any_bool(1));
  assert_int_equal(arr.type_index, XFFI_TYPE_ARRAY);
  assert_int_equal(size_of("ffi.ArraySize", arr.v_obj), 4);
  assert_int_equal(int_of(CALL_OK("ffi.ArrayGetItem", arr, I(0))), 7);
  xffi_any s = CALL_OK("ffi.ArrayGetItem", arr, I(2));
  assert_int_equal(s.type_index, XFFI_TYPE_STRING);
  xffi_any_release(&s);
  /* Strings by bytes whatever their form; int 1 is not bool true. */
  assert_true(bool_of(CALL_OK("ffi.ArrayContains", arr, S("hi"))));
  assert_true(bool_of(CALL_OK("ffi.ArrayContains", arr, S("a longer string"))));
  assert_false(bool_of(CALL_OK("ffi.ArrayContains", arr, S("a longer strin"))));
  assert_true(bool_of(CALL_OK("ffi.ArrayContains", arr, xffi_any_bool(1))));
  assert_false(bool_of(CALL_OK("ffi.ArrayContains", arr, I(1))));
  xffi_byte_array bytes = {"hi", 2};
  assert_false(bool_of(CALL_OK("ffi.ArrayContains", arr, xffi_any_byte_array(&bytes))));
  /* Objects by identity. */
  assert_true(bool_of(CALL_OK("ffi.ArrayContains", arr, arr)) == 0);
  xffi_any empty = CALL_OK("ffi.Array", xffi_any_none());
  assert_int_equal(size_of("ffi.ArraySize", empty.v_obj), 1);
  xffi_any_release(&empty);
  xffi_any none_made = xffi_any_none();
  assert_int_equal(call_builtin("ffi.Array", NULL, 0, &none_made), XFFI_OK);
  assert_int_equal(size_of("ffi.ArraySize", none_made.v_obj), 0);
  xffi_any_release(&none_made);
  xffi_any_release(&arr);
}

static void test_array_bad_index_and_kind(void **state) {
  (void)state;
  xffi_any arr = CALL_OK("ffi.Array", I(1), I(2), I(3));
  xffi_any list = CALL_OK("ffi.List", I(1));
  xffi_any result = xffi_any_none();
  assert_int_equal(CALL("ffi.ArrayGetItem", &result, arr, I(3)), XFFI_FAIL);
  expect_error("IndexError", "ffi.ArrayGetItem: index 3 out of range for a Array of size 3");
  assert_int_equal(CALL("ffi.ArrayGetItem", &result, arr, I(-1)), XFFI_FAIL);
  assert_raised("IndexError", "index -1 out of range");
  assert_int_equal(CALL("ffi.ArrayGetItem", &result, arr, S("0")), XFFI_FAIL);
  assert_raised("TypeError", "ffi.ArrayGetItem: argument 1: expected int");
  /* Array globals take an Array, not a List (as tvm-ffi's ArrayObj). */
  assert_int_equal(CALL("ffi.ArraySize", &result, list), XFFI_FAIL);
  assert_raised("TypeError", "ffi.ArraySize: argument 0: expected ffi.Array");
  assert_int_equal(CALL("ffi.ArraySize", &result, xffi_any_none()), XFFI_FAIL);
  assert_raised("TypeError", "ffi.ArraySize");
  xffi_any rvalue = arr;
  rvalue.type_index = XFFI_TYPE_OBJECT_RVALUE;
  assert_int_equal(CALL("ffi.Array", &result, rvalue), XFFI_FAIL);
  assert_raised("TypeError", "rvalue");
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  xffi_any_release(&arr);
  xffi_any_release(&list);
}

/* ---- List ---- */

static void test_list_get_set_append_insert_pop_erase(void **state) {
  (void)state;
  xffi_any list = CALL_OK("ffi.List", I(0), I(1), I(2));
  assert_int_equal(list.type_index, XFFI_TYPE_LIST);
  xffi_object *l = list.v_obj;
  CALL_OK("ffi.ListSetItem", list, I(1), I(10));
  CALL_OK("ffi.ListAppend", list, I(3));
  CALL_OK("ffi.ListInsert", list, I(0), I(-1));
  CALL_OK("ffi.ListInsert", list, I(5), I(4)); /* at the end */
  assert_list_is(l, (const int64_t[]){-1, 0, 10, 2, 3, 4}, 6);
  assert_int_equal(int_of(CALL_OK("ffi.ListGetItem", list, I(2))), 10);
  assert_int_equal(int_of(CALL_OK("ffi.ListPop", list, I(2))), 10);
  CALL_OK("ffi.ListErase", list, I(0));
  assert_list_is(l, (const int64_t[]){0, 2, 3, 4}, 4);
  assert_int_equal(size_of("ffi.ListSize", l), 4);
  assert_true(bool_of(CALL_OK("ffi.ListContains", list, I(3))));
  assert_false(bool_of(CALL_OK("ffi.ListContains", list, I(10))));
  /* Pop moves an object out with its reference. */
  xffi_any inner = CALL_OK("ffi.Array", I(1));
  CALL_OK("ffi.ListAppend", list, inner);
  xffi_any popped = CALL_OK("ffi.ListPop", list, I(4));
  assert_ptr_equal(popped.v_obj, inner.v_obj);
  assert_int_equal(xffi_object_strong_count(inner.v_obj), 2);
  xffi_any_release(&popped);
  xffi_any_release(&inner);
  xffi_any_release(&list);
}

static void test_list_bad_indices(void **state) {
  (void)state;
  xffi_any list = CALL_OK("ffi.List", I(0), I(1), I(2));
  xffi_any arr = CALL_OK("ffi.Array", I(0));
  xffi_any result = xffi_any_none();
  assert_int_equal(CALL("ffi.ListGetItem", &result, list, I(3)), XFFI_FAIL);
  expect_error("IndexError", "ffi.ListGetItem: index 3 out of range for a List of size 3");
  assert_int_equal(CALL("ffi.ListSetItem", &result, list, I(-1), I(0)), XFFI_FAIL);
  assert_raised("IndexError", "ffi.ListSetItem: index -1");
  assert_int_equal(CALL("ffi.ListInsert", &result, list, I(4), I(0)), XFFI_FAIL);
  assert_raised("IndexError", "ffi.ListInsert: index 4");
  assert_int_equal(CALL("ffi.ListPop", &result, list, I(3)), XFFI_FAIL);
  assert_raised("IndexError", "ffi.ListPop");
  assert_int_equal(CALL("ffi.ListErase", &result, list, I(INT64_MIN)), XFFI_FAIL);
  assert_raised("IndexError", "ffi.ListErase");
  assert_int_equal(CALL("ffi.ListReserve", &result, list, I(-5)), XFFI_FAIL);
  expect_error("ValueError", "ffi.ListReserve: capacity is negative (-5)");
  assert_int_equal(CALL("ffi.ListAppend", &result, arr, I(0)), XFFI_FAIL);
  assert_raised("TypeError", "ffi.ListAppend: argument 0: expected ffi.List");
  assert_int_equal(CALL("ffi.ListSetItem", &result, list, xffi_any_float(1.0), I(0)), XFFI_FAIL);
  assert_raised("TypeError", "argument 1: expected int");
  assert_list_is(list.v_obj, (const int64_t[]){0, 1, 2}, 3);
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  xffi_any_release(&arr);
  xffi_any_release(&list);
}

static void test_list_erase_range_reverse_clear_reserve(void **state) {
  (void)state;
  xffi_object *l = int_list(6);
  xffi_any list = obj(l);
  xffi_any result = xffi_any_none();
  CALL_OK("ffi.ListEraseRange", list, I(1), I(3));
  assert_list_is(l, (const int64_t[]){0, 3, 4, 5}, 4);
  /* start == stop changes nothing, even out of range (as tvm-ffi). */
  CALL_OK("ffi.ListEraseRange", list, I(9), I(9));
  assert_int_equal(CALL("ffi.ListEraseRange", &result, list, I(2), I(1)), XFFI_FAIL);
  expect_error("IndexError", "ffi.ListEraseRange: range [2, 1) out of bounds for a List of size 4");
  assert_int_equal(CALL("ffi.ListEraseRange", &result, list, I(-1), I(2)), XFFI_FAIL);
  assert_raised("IndexError", "range [-1, 2)");
  assert_int_equal(CALL("ffi.ListEraseRange", &result, list, I(0), I(5)), XFFI_FAIL);
  assert_raised("IndexError", "range [0, 5)");
  CALL_OK("ffi.ListReverse", list);
  assert_list_is(l, (const int64_t[]){5, 4, 3, 0}, 4);
  CALL_OK("ffi.ListReserve", list, I(100));
  assert_true(xffi_seq_cell_of_unchecked(l)->capacity >= 100);
  assert_list_is(l, (const int64_t[]){5, 4, 3, 0}, 4);
  CALL_OK("ffi.ListClear", list);
  assert_int_equal(size_of("ffi.ListSize", l), 0);
  CALL_OK("ffi.ListReverse", list); /* empty: nothing to do */
  xffi_object_dec_ref(l);
}

static void test_list_erase_range_releases_the_elements(void **state) {
  (void)state;
  xffi_any inner = CALL_OK("ffi.Array", I(1));
  xffi_any list = call_builtin_ok("ffi.List", NULL, 0);
  for (int i = 0; i < 100; ++i) CALL_OK("ffi.ListAppend", list, inner); /* past the stack buffer */
  assert_int_equal(xffi_object_strong_count(inner.v_obj), 101);
  CALL_OK("ffi.ListEraseRange", list, I(10), I(90));
  assert_int_equal(xffi_object_strong_count(inner.v_obj), 21);
  CALL_OK("ffi.ListEraseRange", list, I(0), I(3));
  assert_int_equal(xffi_object_strong_count(inner.v_obj), 18);
  xffi_any_release(&list);
  assert_int_equal(xffi_object_strong_count(inner.v_obj), 1);
  xffi_any_release(&inner);
}

static void test_list_replace_slice(void **state) {
  (void)state;
  xffi_object *l = int_list(5);
  xffi_any list = obj(l);
  xffi_any result = xffi_any_none();
  xffi_any two = CALL_OK("ffi.List", I(7), I(8));
  CALL_OK("ffi.ListReplaceSlice", list, I(1), I(4), two); /* shrink */
  assert_list_is(l, (const int64_t[]){0, 7, 8, 4}, 4);
  xffi_any many = CALL_OK("ffi.List", I(20), I(21), I(22), I(23), I(24), I(25));
  CALL_OK("ffi.ListReplaceSlice", list, I(2), I(3), many); /* grow past the capacity */
  assert_list_is(l, (const int64_t[]){0, 7, 20, 21, 22, 23, 24, 25, 4}, 9);
  xffi_any none = call_builtin_ok("ffi.List", NULL, 0);
  CALL_OK("ffi.ListReplaceSlice", list, I(0), I(7), none); /* delete */
  assert_list_is(l, (const int64_t[]){25, 4}, 2);
  CALL_OK("ffi.ListReplaceSlice", list, I(2), I(2), two); /* insert at the end */
  assert_list_is(l, (const int64_t[]){25, 4, 7, 8}, 4);
  CALL_OK("ffi.ListReplaceSlice", list, I(9), I(9), none); /* nothing at all */
  assert_int_equal(CALL("ffi.ListReplaceSlice", &result, list, I(9), I(9), two), XFFI_FAIL);
  assert_raised("IndexError", "ffi.ListReplaceSlice: index 9");
  assert_int_equal(CALL("ffi.ListReplaceSlice", &result, list, I(3), I(5), two), XFFI_FAIL);
  assert_raised("IndexError", "range [3, 5)");
  xffi_any arr = CALL_OK("ffi.Array", I(1));
  assert_int_equal(CALL("ffi.ListReplaceSlice", &result, list, I(0), I(1), arr), XFFI_FAIL);
  assert_raised("TypeError", "ffi.ListReplaceSlice: argument 3: expected ffi.List");
  assert_list_is(l, (const int64_t[]){25, 4, 7, 8}, 4);
  xffi_any_release(&arr);
  xffi_any_release(&two);
  xffi_any_release(&many);
  xffi_any_release(&none);
  xffi_object_dec_ref(l);
}

/* tvm-ffi snapshots the replacement when it is the list itself; so must we. */
static void test_list_replace_slice_with_itself(void **state) {
  (void)state;
  xffi_object *l = int_list(3);
  xffi_any list = obj(l);
  CALL_OK("ffi.ListReplaceSlice", list, I(1), I(2), list);
  assert_list_is(l, (const int64_t[]){0, 0, 1, 2, 2}, 5);
  CALL_OK("ffi.ListReplaceSlice", list, I(0), I(5), list);
  assert_list_is(l, (const int64_t[]){0, 0, 1, 2, 2}, 5);
  xffi_object_dec_ref(l);
}

/* ---- Map and Dict ---- */

static void test_map_make_get_count_missing(void **state) {
  (void)state;
  xffi_any map = CALL_OK("ffi.Map", S("a"), I(1), S("a key longer than seven"), I(2), I(5), S("five"), S("a"), I(3));
  assert_int_equal(map.type_index, XFFI_TYPE_MAP);
  assert_int_equal(size_of("ffi.MapSize", map.v_obj), 3);
  assert_int_equal(int_of(CALL_OK("ffi.MapGetItem", map, S("a"))), 3); /* the last value wins */
  assert_int_equal(int_of(CALL_OK("ffi.MapGetItem", map, S("a key longer than seven"))), 2);
  assert_int_equal(int_of(CALL_OK("ffi.MapCount", map, I(5))), 1);
  assert_int_equal(int_of(CALL_OK("ffi.MapCount", map, I(6))), 0);
  xffi_any missing = CALL_OK("ffi.MapGetItemOrMissing", map, S("zz"));
  xffi_any result = xffi_any_none();
  assert_int_equal(call_builtin("ffi.GetInvalidObject", NULL, 0, &result), XFFI_OK);
  assert_ptr_equal(missing.v_obj, result.v_obj);
  assert_int_equal(missing.type_index, XFFI_TYPE_OBJECT);
  xffi_any_release(&result);
  xffi_any_release(&missing);
  xffi_any found = CALL_OK("ffi.MapGetItemOrMissing", map, I(5));
  xffi_byte_array text;
  assert_int_equal(xffi_any_to_str(&text, &found), XFFI_OK);
  assert_int_equal(text.size, 4);
  xffi_any_release(&found);
  xffi_any_release(&map);
}

static void test_map_bad_input(void **state) {
  (void)state;
  xffi_any map = CALL_OK("ffi.Map", I(1), I(2));
  xffi_any dict = CALL_OK("ffi.Dict", I(1), I(2));
  xffi_any result = xffi_any_none();
  assert_int_equal(CALL("ffi.Map", &result, I(1), I(2), I(3)), XFFI_FAIL);
  expect_error("ValueError", "ffi.Map: expected key, value pairs (an even number of arguments), got 3");
  assert_int_equal(CALL("ffi.Dict", &result, I(1)), XFFI_FAIL);
  assert_raised("ValueError", "ffi.Dict: expected key, value pairs");
  assert_int_equal(CALL("ffi.MapGetItem", &result, map, I(7)), XFFI_FAIL);
  expect_error("KeyError", "ffi.MapGetItem: key 7 not found");
  assert_int_equal(CALL("ffi.DictGetItem", &result, dict, S("nope")), XFFI_FAIL);
  expect_error("KeyError", "ffi.DictGetItem: key \"nope\" not found");
  /* Map globals take a Map, Dict globals a Dict (as tvm-ffi's MapObj/DictObj). */
  assert_int_equal(CALL("ffi.MapSize", &result, dict), XFFI_FAIL);
  assert_raised("TypeError", "ffi.MapSize: argument 0: expected ffi.Map");
  assert_int_equal(CALL("ffi.DictSetItem", &result, map, I(1), I(1)), XFFI_FAIL);
  assert_raised("TypeError", "ffi.DictSetItem: argument 0: expected ffi.Dict");
  xffi_any rvalue = dict;
  rvalue.type_index = XFFI_TYPE_OBJECT_RVALUE;
  assert_int_equal(CALL("ffi.Map", &result, rvalue, I(1)), XFFI_FAIL);
  assert_raised("TypeError", "");
  assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  xffi_any_release(&map);
  xffi_any_release(&dict);
}

static void test_dict_set_erase_clear(void **state) {
  (void)state;
  xffi_any dict = call_builtin_ok("ffi.Dict", NULL, 0);
  assert_int_equal(dict.type_index, XFFI_TYPE_DICT);
  CALL_OK("ffi.DictSetItem", dict, S("x"), I(1));
  CALL_OK("ffi.DictSetItem", dict, I(2), S("two"));
  CALL_OK("ffi.DictSetItem", dict, S("x"), I(3));
  assert_int_equal(size_of("ffi.DictSize", dict.v_obj), 2);
  assert_int_equal(int_of(CALL_OK("ffi.DictGetItem", dict, S("x"))), 3);
  assert_int_equal(int_of(CALL_OK("ffi.DictCount", dict, I(2))), 1);
  CALL_OK("ffi.DictErase", dict, I(2));
  CALL_OK("ffi.DictErase", dict, I(2)); /* absent: nothing happens, as tvm-ffi */
  assert_int_equal(int_of(CALL_OK("ffi.DictCount", dict, I(2))), 0);
  xffi_any missing = CALL_OK("ffi.DictGetItemOrMissing", dict, I(2));
  assert_int_equal(missing.type_index, XFFI_TYPE_OBJECT);
  xffi_any_release(&missing);
  CALL_OK("ffi.DictClear", dict);
  assert_int_equal(size_of("ffi.DictSize", dict.v_obj), 0);
  xffi_any_release(&dict);
}

/* The functor protocol: f(0) key, f(1) value, f(2) next -> bool. */
static void check_iteration(const char *make, const char *functor_of) {
  xffi_any map = CALL_OK(make, I(10), S("ten"), S("k"), I(20), I(30), I(40));
  xffi_any f = CALL_OK(functor_of, map);
  assert_int_equal(f.type_index, XFFI_TYPE_FUNCTION);
  xffi_any_release(&map); /* the functor keeps the map alive */
  int64_t want_keys[] = {10, -1, 30};
  for (int i = 0; i < 3; ++i) {
    xffi_any key = xffi_any_none(), value = xffi_any_none(), more = xffi_any_none();
    assert_int_equal(XFFI_CALL(f.v_obj, &key, I(0)), XFFI_OK);
    assert_int_equal(XFFI_CALL(f.v_obj, &value, I(1)), XFFI_OK);
    if (want_keys[i] >= 0)
      assert_int_equal(int_of(key), want_keys[i]);
    else
      assert_int_equal(key.type_index, XFFI_TYPE_SMALL_STR);
    if (i == 1) assert_int_equal(int_of(value), 20);
    xffi_any_release(&key);
    xffi_any_release(&value);
    assert_int_equal(XFFI_CALL(f.v_obj, &more, I(2)), XFFI_OK);
    assert_int_equal(bool_of(more), i < 2);
  }
  xffi_any result = xffi_any_none();
  assert_int_equal(XFFI_CALL(f.v_obj, &result, I(0)), XFFI_FAIL);
  assert_raised("IndexError", "past the last entry");
  assert_int_equal(XFFI_CALL(f.v_obj, &result, I(2)), XFFI_OK);
  assert_false(bool_of(result));
  assert_int_equal(XFFI_CALL(f.v_obj, &result, I(3)), XFFI_FAIL);
  assert_raised("ValueError", "command 3");
  assert_int_equal(XFFI_CALL(f.v_obj, &result, S("0")), XFFI_FAIL);
  assert_raised("TypeError", "expected int");
  assert_int_equal(xffi_function_call(f.v_obj, NULL, 0, &result), XFFI_FAIL);
  assert_raised("TypeError", "expected 1 argument, got 0");
  xffi_any_release(&f);
}

static void test_map_and_dict_iterator_functors(void **state) {
  (void)state;
  check_iteration("ffi.Map", "ffi.MapForwardIterFunctor");
  check_iteration("ffi.Dict", "ffi.DictForwardIterFunctor");
  xffi_any empty = call_builtin_ok("ffi.Map", NULL, 0);
  xffi_any f = CALL_OK("ffi.MapForwardIterFunctor", empty);
  xffi_any result = xffi_any_none();
  assert_int_equal(XFFI_CALL(f.v_obj, &result, I(1)), XFFI_FAIL);
  assert_raised("IndexError", "past the last entry");
  assert_int_equal(XFFI_CALL(f.v_obj, &result, I(2)), XFFI_OK);
  assert_false(bool_of(result));
  xffi_any dict = call_builtin_ok("ffi.Dict", NULL, 0);
  assert_int_equal(CALL("ffi.MapForwardIterFunctor", &result, dict), XFFI_FAIL);
  assert_raised("TypeError", "expected ffi.Map");
  xffi_any_release(&dict);
  xffi_any_release(&f);
  xffi_any_release(&empty);
}

/* ---- Shape ---- */

static void test_shape(void **state) {
  (void)state;
  xffi_any shape = CALL_OK("ffi.Shape", I(2), I(3), xffi_any_bool(1), I(-1));
  assert_int_equal(shape.type_index, XFFI_TYPE_SHAPE);
  const xffi_shape_cell *cell = xffi_shape_cell_of_unchecked(shape.v_obj);
  assert_int_equal(cell->size, 4);
  assert_int_equal(cell->data[0], 2);
  assert_int_equal(cell->data[2], 1);
  assert_int_equal(cell->data[3], -1);
  xffi_any_release(&shape);
  xffi_any dims[40];
  for (int i = 0; i < 40; ++i) dims[i] = I(i);
  xffi_any big = call_builtin_ok("ffi.Shape", dims, 40); /* more dims than the stack buffer */
  assert_int_equal(xffi_shape_cell_of_unchecked(big.v_obj)->size, 40);
  assert_int_equal(xffi_shape_cell_of_unchecked(big.v_obj)->data[39], 39);
  xffi_any_release(&big);
  xffi_any result = xffi_any_none();
  assert_int_equal(CALL("ffi.Shape", &result, I(2), xffi_any_float(3.0)), XFFI_FAIL);
  expect_error("ValueError", "ffi.Shape: argument 1: expected int (a dimension), got float");
  assert_int_equal(call_builtin("ffi.Shape", NULL, 0, &result), XFFI_OK);
  assert_int_equal(xffi_shape_cell_of_unchecked(result.v_obj)->size, 0);
  xffi_any_release(&result);
}

/* ---- ContainerFindFirstNonCPUDevice ---- */

static xffi_object *tensor_on(int32_t device_type, int32_t device_id) {
  xffi_object *t = NULL;
  int64_t shape[1] = {2};
  assert_int_equal(xffi_tensor_new(&t, shape, 1, xffi_dtype_make(kDLFloat, 32, 1)), XFFI_OK);
  xffi_tensor_cell_of_unchecked(t)->device = (DLDevice){(DLDeviceType)device_type, device_id};
  return t;
}

static void release_tensor(xffi_object *t) {
  xffi_tensor_cell_of_unchecked(t)->device = (DLDevice){kDLCPU, 0}; /* as made */
  xffi_object_dec_ref(t);
}

static DLDevice find_device(xffi_any value) {
  xffi_any d = CALL_OK("ffi.ContainerFindFirstNonCPUDevice", value);
  assert_int_equal(d.type_index, XFFI_TYPE_DEVICE);
  return d.v_device;
}

static void test_find_first_non_cpu_device(void **state) {
  (void)state;
  xffi_object *cpu = tensor_on(kDLCPU, 0), *cuda = tensor_on(kDLCUDA, 3), *rocm = tensor_on(kDLROCM, 1);
  DLDevice d = find_device(I(5)); /* no container: the CPU */
  assert_int_equal(d.device_type, kDLCPU);
  assert_int_equal(d.device_id, 0);
  assert_int_equal(find_device(obj(cuda)).device_id, 3); /* a Tensor alone counts, as in tvm-ffi */
  xffi_any inner_map = CALL_OK("ffi.Map", obj(cuda), obj(cpu), S("v"), obj(rocm)); /* values only */
  xffi_any arr = CALL_OK("ffi.Array", obj(cpu), I(1));
  xffi_any list = CALL_OK("ffi.List", arr, inner_map, obj(cuda));
  d = find_device(list);
  assert_int_equal(d.device_type, kDLROCM);
  assert_int_equal(d.device_id, 1);
  d = find_device(arr);
  assert_int_equal(d.device_type, kDLCPU);
  xffi_any_release(&list);
  xffi_any_release(&arr);
  xffi_any_release(&inner_map);
  release_tensor(cpu);
  release_tensor(cuda);
  release_tensor(rocm);
}

/* A List holding itself: tvm-ffi recurses forever; the search ends. */
static void test_find_device_in_a_cycle_ends(void **state) {
  (void)state;
  xffi_object *cuda = tensor_on(kDLCUDA, 2);
  xffi_any list = CALL_OK("ffi.List", I(1));
  CALL_OK("ffi.ListAppend", list, list);
  assert_int_equal(find_device(list).device_type, kDLCPU);
  CALL_OK("ffi.ListAppend", list, obj(cuda));
  assert_int_equal(find_device(list).device_id, 2);
  CALL_OK("ffi.ListClear", list); /* break the cycle so it can be freed */
  xffi_any_release(&list);
  release_tensor(cuda);
}

/* Deep nesting: the search keeps its stack on the heap. */
static void test_find_device_deep_nesting_uses_bounded_stack(void **state) {
  (void)state;
  enum { DEPTH = 300000 };
  xffi_object *cuda = tensor_on(kDLCUDA, 5);
  xffi_any nest = CALL_OK("ffi.List", obj(cuda));
  for (int i = 0; i < DEPTH; ++i) {
    xffi_any outer = CALL_OK("ffi.Array", nest);
    xffi_any_release(&nest);
    nest = outer;
  }
  assert_int_equal(find_device(nest).device_id, 5);
  xffi_any_release(&nest);
  release_tensor(cuda);
}

/* A DAG where each level holds the one below twice has 2^60 paths: visiting
 * each container once keeps the search linear. Generous limit: 10 s. */
static void test_find_device_visits_shared_containers_once(void **state) {
  (void)state;
  enum { LEVELS = 60 };
  xffi_any level = CALL_OK("ffi.Array", I(0));
  for (int i = 0; i < LEVELS; ++i) {
    xffi_any up = CALL_OK("ffi.Array", level, level);
    xffi_any_release(&level);
    level = up;
  }
  double start = test_cpu_seconds();
  assert_int_equal(find_device(level).device_type, kDLCPU);
  assert_true(test_cpu_seconds() - start < 10.0);
  xffi_any_release(&level);
}

/* The common call, a flat container or a shallow nesting, allocates
 * nothing; out of memory in a deeper search is a MemoryError, nothing leaked. */
static void test_find_device_allocation(void **state) {
  (void)state;
  xffi_object *cuda = tensor_on(kDLCUDA, 1);
  xffi_any flat = CALL_OK("ffi.List", I(1), I(2), I(3));
  xffi_any nest = CALL_OK("ffi.Array", flat);
  for (int i = 0; i < 12; ++i) {
    xffi_any outer = CALL_OK("ffi.Array", nest, I(i));
    xffi_any_release(&nest);
    nest = outer;
  }
  uint64_t before = failing_allocator_attempts();
  assert_int_equal(find_device(flat).device_type, kDLCPU);
  assert_int_equal(failing_allocator_attempts(), before);
  xffi_any deep = CALL_OK("ffi.Array", nest, nest, obj(cuda)); /* found after a shared 13-level nesting */
  int64_t live = failing_allocator_live();
  xffi_any result = xffi_any_none();
  for (int64_t n = 0; n < 3; ++n) {
    failing_allocator_fail_after(n);
    int status = CALL("ffi.ContainerFindFirstNonCPUDevice", &result, deep);
    failing_allocator_fail_after(-1);
    if (status == XFFI_OK) {
      assert_int_equal(result.v_device.device_type, kDLCUDA);
    } else {
      assert_raised(XFFI_KIND_MEMORY, "out of memory");
      assert_int_equal(result.type_index, XFFI_TYPE_NONE);
    }
    assert_int_equal(failing_allocator_live(), live);
  }
  assert_int_equal(find_device(deep).device_type, kDLCUDA);
  xffi_any_release(&deep);
  xffi_any_release(&nest);
  xffi_any_release(&flat);
  release_tensor(cuda);
}

/* Constructors out of memory: a MemoryError, nothing half made or leaked. */
static void test_constructors_out_of_memory(void **state) {
  (void)state;
  static const char *const makers[] = {"ffi.Array", "ffi.List", "ffi.Map", "ffi.Dict", "ffi.Shape"};
  xffi_any args[40];
  for (int i = 0; i < 40; ++i) args[i] = I(i);
  args[2] = S("a string that needs an object");
  for (size_t m = 0; m < 5; ++m) {
    int32_t n = strcmp(makers[m], "ffi.Shape") == 0 ? 1 : 40; /* Shape takes ints only */
    int64_t live = failing_allocator_live();
    for (int64_t k = 0; k < 4; ++k) {
      xffi_any result = xffi_any_none();
      failing_allocator_fail_after(k);
      int status = call_builtin(makers[m], args, n, &result);
      failing_allocator_fail_after(-1);
      if (status == XFFI_OK) {
        xffi_any_release(&result);
      } else {
        assert_raised(XFFI_KIND_MEMORY, "out of memory");
        assert_int_equal(result.type_index, XFFI_TYPE_NONE);
      }
      assert_int_equal(failing_allocator_live(), live);
    }
  }
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_holds_every_container_global_as_a_static_function),
      cmocka_unit_test(test_lookup_by_name_finds_the_static_functions),
      cmocka_unit_test(test_every_global_refuses_bad_calls),
      cmocka_unit_test(test_array_make_size_get_contains),
      cmocka_unit_test(test_array_bad_index_and_kind),
      cmocka_unit_test(test_list_get_set_append_insert_pop_erase),
      cmocka_unit_test(test_list_bad_indices),
      cmocka_unit_test(test_list_erase_range_reverse_clear_reserve),
      cmocka_unit_test(test_list_erase_range_releases_the_elements),
      cmocka_unit_test(test_list_replace_slice),
      cmocka_unit_test(test_list_replace_slice_with_itself),
      cmocka_unit_test(test_map_make_get_count_missing),
      cmocka_unit_test(test_map_bad_input),
      cmocka_unit_test(test_dict_set_erase_clear),
      cmocka_unit_test(test_map_and_dict_iterator_functors),
      cmocka_unit_test(test_shape),
      cmocka_unit_test(test_find_first_non_cpu_device),
      cmocka_unit_test(test_find_device_in_a_cycle_ends),
      cmocka_unit_test(test_find_device_deep_nesting_uses_bounded_stack),
      cmocka_unit_test(test_find_device_visits_shared_containers_once),
      cmocka_unit_test(test_find_device_allocation),
      cmocka_unit_test(test_constructors_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
