/* tests/interop/test_interop_list_grow.c: tvm-ffi's C++ List grows Lists
 * made by xffi. lib_list_grow.cc (built against the wheel alone) receives an
 * xffi List through an ordinary call and push_backs or reserves past its
 * capacity; tvm-ffi's inline growth frees the old buffer through the list's
 * data_deleter, which xffi must therefore always set. Afterwards xffi reads
 * every element, grows the list again itself (handing tvm-ffi's buffer back
 * to tvm-ffi's deleter) and releases it: the element counts and the
 * AddressSanitizer build prove each buffer and element is freed once. */
#include "test_util.h"

static xffi_object *grow_lib; /* Module of lib_list_grow.cc, loaded by xffi */

static xffi_object *grow_fn(const char *name) {
  xffi_object *f = NULL;
  assert_int_equal(xffi_module_lookup_function(&f, grow_lib, name), XFFI_OK);
  return f;
}

static int setup(void **state) {
  (void)state;
  return xffi_module_load(&grow_lib, XFFI_INTEROP_LIST_GROW_LIB) == XFFI_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  xffi_object_dec_ref(grow_lib);
  return 0;
}

/* Items [from, from + n) are what PushItems appends: even i the int i, odd
 * i a String saying so. */
static void assert_pushed_items(const xffi_object *list, int64_t from, int64_t n) {
  const xffi_any *items = xffi_seq_items_unchecked(list);
  for (int64_t i = 0; i < n; ++i) {
    const xffi_any *v = &items[from + i];
    if (i % 2 == 0) {
      assert_int_equal(v->type_index, XFFI_TYPE_INT);
      assert_int_equal(v->v_int64, i);
    } else {
      char expected[64];
      snprintf(expected, sizeof expected, "pushed by tvm-ffi C++ code, item %lld", (long long)i);
      xffi_byte_array s;
      assert_int_equal(xffi_any_to_str(&s, v), XFFI_OK);
      assert_string_equal(s.data, expected);
    }
  }
}

static void cpp_push_back_grows_xffi_lists_of_every_capacity(void **state) {
  (void)state;
  xffi_object *push = grow_fn("push_items"), *mine = NULL;
  assert_int_equal(xffi_string_from_c_str(&mine, "a String made by xffi, held by the list"), XFFI_OK);
  xffi_any held = xffi_any_object(mine);
  for (int64_t capacity = 0; capacity <= 3; ++capacity) {
    xffi_object *list = NULL;
    assert_int_equal(xffi_list_new_with_capacity(&list, capacity), XFFI_OK);
    for (int64_t i = 0; i < capacity; ++i) assert_int_equal(xffi_list_push(list, &held), XFFI_OK);
    xffi_any r;
    assert_int_equal(XFFI_CALL(push, &r, xffi_any_object(list), xffi_any_int(9)), XFFI_OK);
    assert_int_equal(r.v_int64, capacity + 9);
    assert_int_equal(xffi_seq_size_unchecked(list), capacity + 9);
    assert_true(xffi_seq_cell_of_unchecked(list)->capacity >= capacity + 9);
    for (int64_t i = 0; i < capacity; ++i) assert_ptr_equal(xffi_seq_items_unchecked(list)[i].v_obj, mine);
    assert_pushed_items(list, capacity, 9);
    /* xffi grows the buffer tvm-ffi made, then tvm-ffi grows xffi's again. */
    for (int i = 0; i < 40; ++i) assert_int_equal(xffi_list_push(list, &held), XFFI_OK);
    assert_int_equal(XFFI_CALL(push, &r, xffi_any_object(list), xffi_any_int(100)), XFFI_OK);
    assert_int_equal(r.v_int64, capacity + 149);
    assert_pushed_items(list, capacity + 49, 100);
    assert_int_equal(xffi_object_strong_count(mine), 1 + capacity + 40);
    assert_int_equal(xffi_object_strong_count(list), 1); /* the callee kept no reference */
    xffi_object_dec_ref(list);
    assert_int_equal(xffi_object_strong_count(mine), 1);
  }
  xffi_object_dec_ref(mine);
  xffi_object_dec_ref(push);
}

static void cpp_reserve_moves_an_xffi_list_to_its_own_buffer(void **state) {
  (void)state;
  xffi_object *reserve = grow_fn("reserve"), *list = NULL;
  xffi_any items[2] = {xffi_any_int(1), xffi_any_c_str("a string long enough to be a String object")};
  assert_int_equal(xffi_list_new(&list, items, 2), XFFI_OK);
  xffi_any r;
  assert_int_equal(XFFI_CALL(reserve, &r, xffi_any_object(list), xffi_any_int(64)), XFFI_OK);
  assert_int_equal(r.v_int64, 64);
  assert_int_equal(xffi_seq_cell_of_unchecked(list)->capacity, 64);
  assert_int_equal(xffi_seq_size_unchecked(list), 2);
  assert_int_equal(xffi_seq_items_unchecked(list)[0].v_int64, 1);
  xffi_byte_array s;
  assert_int_equal(xffi_any_to_str(&s, &xffi_seq_items_unchecked(list)[1]), XFFI_OK);
  assert_string_equal(s.data, "a string long enough to be a String object");
  xffi_object_dec_ref(list);
  xffi_object_dec_ref(reserve);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cpp_push_back_grows_xffi_lists_of_every_capacity),
      cmocka_unit_test(cpp_reserve_moves_an_xffi_list_to_its_own_buffer),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
