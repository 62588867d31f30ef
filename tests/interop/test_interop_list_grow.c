/* tests/interop/test_interop_list_grow.c: tvm-ffi's C++ List grows Lists
 * made by xffi. lib_list_grow.cc (built against the wheel alone) receives an
 * xffi List through an ordinary call and push_backs or reserves past its
 * capacity; tvm-ffi's inline growth frees the old buffer through the list's
 * data_deleter, which xffi must therefore always set, and keeps that
 * data_deleter for its own new buffer (c/seq_buffer.h). Afterwards xffi reads
 * every element, grows the list again itself (moving the elements out of
 * tvm-ffi's buffer, which it frees as C++'s ::operator delete would) and
 * releases it: the element counts and the AddressSanitizer build prove each
 * buffer and element is freed once, and the allocator this program installs
 * for xffi proves that no buffer C++ made reaches it. */
#include "test_util.h"

#include <xffi/sys/allocator.h>

/* xffi's allocator here (xffi_allocator_install, first thing in main): the
 * C library's, remembering the blocks it gave out, and counting the blocks
 * handed back to it that it never gave out (a buffer from C++'s ::operator
 * new, resized or freed through xffi's allocator: with an allocator that
 * keeps a header, that is a crash). Those still go to the C library, so that
 * the count reports them, not a crash. One thread only. */
enum { TRACKED_MAX = 1 << 14 };
static void *tracked[TRACKED_MAX];
static size_t tracked_count;
static int foreign_blocks;
static xffi_allocator c_library;

static void remember(void *block) {
  if (!block) return;
  if (tracked_count == TRACKED_MAX) abort(); /* the test outgrew its table */
  tracked[tracked_count++] = block;
}

/* Whether block was given out (and is no longer remembered now). */
static int forget(void *block) {
  for (size_t i = 0; i < tracked_count; ++i)
    if (tracked[i] == block) {
      tracked[i] = tracked[--tracked_count];
      return 1;
    }
  return 0;
}

static void *tracking_allocate(void *context, size_t size) {
  (void)context;
  void *block = c_library.allocate(c_library.context, size);
  remember(block);
  return block;
}

static void *tracking_reallocate(void *context, void *block, size_t size) {
  (void)context;
  int ours = forget(block);
  if (!ours) foreign_blocks++;
  void *moved = c_library.reallocate(c_library.context, block, size);
  if (moved || ours) remember(moved ? moved : block);
  return moved;
}

static void tracking_deallocate(void *context, void *block) {
  (void)context;
  if (!forget(block)) foreign_blocks++;
  c_library.deallocate(c_library.context, block);
}

static void *tracking_allocate_aligned(void *context, size_t alignment, size_t size) {
  (void)context;
  return c_library.allocate_aligned(c_library.context, alignment, size);
}

static void tracking_deallocate_aligned(void *context, void *block) {
  (void)context;
  c_library.deallocate_aligned(c_library.context, block);
}

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
    assert_int_equal(foreign_blocks, 0); /* C++'s buffers never reached xffi's allocator */
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
  /* xffi grows it again, and C++ once more: each frees the other's buffer. */
  xffi_any one = xffi_any_int(1);
  for (int i = 0; i < 70; ++i) assert_int_equal(xffi_list_push(list, &one), XFFI_OK);
  assert_int_equal(XFFI_CALL(reserve, &r, xffi_any_object(list), xffi_any_int(1000)), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(list), 72);
  xffi_object_dec_ref(list);
  xffi_object_dec_ref(reserve);
  assert_int_equal(foreign_blocks, 0);
}

int main(void) {
  xffi_allocator_default(&c_library);
  xffi_allocator tracking = {NULL,
                             tracking_allocate,
                             tracking_reallocate,
                             tracking_deallocate,
                             tracking_allocate_aligned,
                             tracking_deallocate_aligned};
  if (xffi_allocator_install(&tracking) != XFFI_OK) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cpp_push_back_grows_xffi_lists_of_every_capacity),
      cmocka_unit_test(cpp_reserve_moves_an_xffi_list_to_its_own_buffer),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
