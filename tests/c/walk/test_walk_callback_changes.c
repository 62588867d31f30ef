/* Walks whose callbacks change what is being walked (c/structural_mutate.c):
 * a map or mutate callback that shrinks, clears, grows or rekeys the List or
 * Dict whose children are being mapped gets a ValueError, never a memory
 * error, whether the container is copied (shared) or changed in place
 * (given over whole); writing an item in place is allowed and seen. Run
 * under AddressSanitizer, these fail with heap-buffer-overflow and
 * heap-use-after-free without the checks. */
#include <stdint.h>

#include "test_util.h"
#include "test_values.h"

#include <xffi/array.h>
#include <xffi/map.h>
#include <xffi/structural_visit.h>

enum change { CLEAR, POP, PUSH, SET_LAST, DICT_ERASE, DICT_INSERT, DICT_REKEY };

typedef struct changer {
  xffi_object *target; /* borrowed: the container the callback changes */
  enum change change;
  int64_t at;   /* the int whose callback changes target */
  int64_t done; /* changes made */
  int undo;     /* PUSH: pop the pushed item when the walk reaches it */
} changer;

static void change_target(changer *c) {
  xffi_any v = xffi_any_int(77), key = xffi_any_int(0), popped = xffi_any_none();
  ++c->done;
  switch (c->change) {
    case CLEAR: assert_int_equal(xffi_list_clear(c->target), XFFI_OK); break;
    case POP:
      assert_int_equal(xffi_list_pop(&popped, c->target), XFFI_OK);
      xffi_any_release(&popped);
      break;
    case PUSH: assert_int_equal(xffi_list_push(c->target, &v), XFFI_OK); break;
    case SET_LAST: assert_int_equal(xffi_list_set(c->target, 3, &v), XFFI_OK); break;
    case DICT_ERASE: assert_int_equal(xffi_dict_erase(c->target, &key), XFFI_OK); break;
    case DICT_REKEY: assert_int_equal(xffi_dict_erase(c->target, &key), XFFI_OK); /* fall through */
    case DICT_INSERT:
      key = xffi_any_int(9);
      assert_int_equal(xffi_dict_set(c->target, &key, &v), XFFI_OK);
      break;
  }
}

/* Adds 10 to every int; the int c->at first changes c->target. */
static int map_and_change(void *resource, const xffi_any *value, int32_t region, xffi_any *result) {
  (void)region;
  changer *c = resource;
  if (value->type_index != XFFI_TYPE_INT) return XFFI_STRUCTURAL_DECLINED;
  if (value->v_int64 == c->at && !c->done) change_target(c);
  if (value->v_int64 == 77 && c->change == PUSH && c->undo) { /* the pushed item, reached: pop it again */
    xffi_any popped = xffi_any_none();
    assert_int_equal(xffi_list_pop(&popped, c->target), XFFI_OK);
    c->undo = 0;
  }
  *result = xffi_any_int(value->v_int64 + 10);
  return XFFI_OK;
}

static int mutate_and_change(void *resource, xffi_object *mutator, const xffi_any *value, int32_t mode,
                             xffi_any *result) {
  (void)mutator, (void)mode;
  return map_and_change(resource, value, 0, result);
}

static xffi_any list_1234(void) {
  xffi_any items[] = {xffi_any_int(1), xffi_any_int(2), xffi_any_int(3), xffi_any_int(4)};
  return list_of(items, 4);
}

static void test_map_refuses_a_list_its_callback_resized(void **state) {
  (void)state;
  const enum change changes[] = {CLEAR, POP, PUSH};
  for (int order = 0; order < 2; ++order)
    for (size_t k = 0; k < 3; ++k) {
      /* Shared (the test keeps a reference): the copy path. */
      xffi_any list = list_1234(), given = list, out = xffi_any_none();
      xffi_object_inc_ref(given.v_obj);
      changer c = {list.v_obj, changes[k], 2, 0, 0};
      assert_int_equal(xffi_structural_map(&out, &given, order, map_and_change, &c), XFFI_FAIL);
      assert_raised(XFFI_KIND_VALUE, "StructuralMap: a callback changed the size of the ffi.List being mapped from 4");
      assert_int_equal(out.type_index, XFFI_TYPE_NONE);
      assert_int_equal(c.done, 1);
      xffi_any_release(&list);
      /* Given over whole (the walk owns its only reference): the in-place path. */
      list = list_1234();
      c = (changer){list.v_obj, changes[k], 2, 0, 0};
      assert_int_equal(xffi_structural_map(&out, &list, order, map_and_change, &c), XFFI_FAIL);
      assert_raised(XFFI_KIND_VALUE, "a callback changed the size of the ffi.List being mapped");
      assert_int_equal(list.type_index, XFFI_TYPE_NONE); /* taken over and released */
    }
}

/* Grown by one, then, once the walk mapped the new item, shrunk back: the
 * size is as it was, but a change was recorded past the end. */
static void test_map_refuses_a_list_grown_and_shrunk_back(void **state) {
  (void)state;
  for (int shared = 0; shared < 2; ++shared) {
    xffi_any items[] = {xffi_any_int(1), xffi_any_int(2)};
    xffi_any list = list_of(items, 2), given = list, out = xffi_any_none();
    if (shared) xffi_object_inc_ref(given.v_obj);
    changer c = {list.v_obj, PUSH, 1, 0, 1};
    assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_POSTORDER, map_and_change, &c), XFFI_FAIL);
    assert_raised(XFFI_KIND_VALUE, "a callback changed the size of the ffi.List being mapped from 2 to 3 items");
    assert_int_equal(c.undo, 0);
    if (shared) xffi_any_release(&list);
  }
}

static void test_map_refuses_a_nested_list_cleared_in_place(void **state) {
  (void)state;
  xffi_any inner = list_1234(), outer = list_of(&inner, 1), out = xffi_any_none();
  changer c = {inner.v_obj, CLEAR, 3, 0, 0};
  xffi_any_release(&inner); /* outer's item is inner's only reference: in place all the way */
  assert_int_equal(xffi_structural_map(&out, &outer, XFFI_STRUCTURAL_POSTORDER, map_and_change, &c), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "from 4 to 0 items");
}

static void test_map_sees_an_item_written_ahead(void **state) {
  (void)state;
  for (int shared = 0; shared < 2; ++shared) {
    xffi_any list = list_1234(), given = list, out = xffi_any_none();
    if (shared) xffi_object_inc_ref(given.v_obj);
    changer c = {list.v_obj, SET_LAST, 2, 0, 0};
    assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_PREORDER, map_and_change, &c), XFFI_OK);
    int64_t expected[] = {11, 12, 13, 87}; /* the last item read after the callback wrote 77 there */
    for (int64_t i = 0; i < 4; ++i) {
      xffi_any v = item(&out, i);
      assert_int_equal(v.v_int64, expected[i]);
    }
    assert_int_equal(out.v_obj == list.v_obj, !shared);
    xffi_any_release(&out);
    if (shared) xffi_any_release(&list);
  }
}

static void test_map_refuses_a_dict_its_callback_rekeyed(void **state) {
  (void)state;
  const enum change changes[] = {DICT_ERASE, DICT_INSERT};
  for (size_t k = 0; k < 2; ++k)
    for (int shared = 0; shared < 2; ++shared) {
      xffi_any keys[] = {xffi_any_int(0), xffi_any_int(1), xffi_any_int(2)};
      xffi_any values[] = {xffi_any_int(100), xffi_any_int(101), xffi_any_int(102)};
      xffi_object *dict = NULL;
      assert_int_equal(xffi_dict_new(&dict, keys, values, 3), XFFI_OK);
      xffi_any given = xffi_any_object(dict), out = xffi_any_none();
      if (shared) xffi_object_inc_ref(dict);
      changer c = {dict, changes[k], 101, 0, 0};
      assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_POSTORDER, map_and_change, &c), XFFI_FAIL);
      assert_raised(XFFI_KIND_VALUE, "a callback changed the size of the ffi.Dict being mapped");
      if (shared) xffi_object_dec_ref(dict);
    }
  /* Same size, another key in a place already mapped: refused too. */
  xffi_any keys[] = {xffi_any_int(0), xffi_any_int(1)}, values[] = {xffi_any_int(100), xffi_any_int(101)};
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, keys, values, 2), XFFI_OK);
  xffi_any given = xffi_any_object(dict), out = xffi_any_none();
  xffi_object_inc_ref(dict);
  changer c = {dict, DICT_REKEY, 101, 0, 0};
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_PREORDER, map_and_change, &c), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "StructuralMap: a callback changed the keys of the ffi.Dict being mapped");
  xffi_object_dec_ref(dict);
}

static void test_mutate_refuses_a_list_its_callback_cleared(void **state) {
  (void)state;
  xffi_any list = list_1234(), given = list, out = xffi_any_none();
  xffi_object_inc_ref(given.v_obj);
  changer c = {list.v_obj, CLEAR, 3, 0, 0};
  assert_int_equal(xffi_structural_mutate(&out, &given, mutate_and_change, &c), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "StructuralMutate: a callback changed the size of the ffi.List being mapped");
  xffi_any_release(&list);
  list = list_1234();
  c = (changer){list.v_obj, CLEAR, 3, 0, 0};
  assert_int_equal(xffi_structural_mutate(&out, &list, mutate_and_change, &c), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "from 4 to 0 items");
}

/* Walk and visit callbacks: change the target at its int, then go on. */
static int walk_and_change(void *resource, const xffi_any *value, int32_t region, xffi_any *result) {
  (void)region, (void)result;
  changer *c = resource;
  if (value->type_index == XFFI_TYPE_INT && value->v_int64 == c->at && !c->done) change_target(c);
  return XFFI_OK;
}

static int visit_and_change(void *resource, xffi_object *visitor, const xffi_any *value, xffi_any *result) {
  (void)visitor, (void)result;
  changer *c = resource;
  if (value->type_index == XFFI_TYPE_INT && value->v_int64 == c->at && !c->done) change_target(c);
  return XFFI_STRUCTURAL_DECLINED;
}

/* Walk and visit read each child when they reach it: a cleared List ends,
 * a grown one goes on to the new items, a rehashed Dict goes on or ends. */
static void test_walk_and_visit_read_what_a_callback_changed(void **state) {
  (void)state;
  const enum change changes[] = {CLEAR, POP, PUSH, DICT_INSERT, DICT_ERASE};
  for (size_t k = 0; k < 5; ++k)
    for (int order = 0; order < 3; ++order) {
      int dict = changes[k] == DICT_INSERT || changes[k] == DICT_ERASE;
      xffi_any keys[] = {xffi_any_int(0), xffi_any_int(1), xffi_any_int(2)};
      xffi_any values[] = {xffi_any_int(100), xffi_any_int(101), xffi_any_int(102)};
      xffi_object *target = NULL;
      if (dict)
        assert_int_equal(xffi_dict_new(&target, keys, values, 3), XFFI_OK);
      else
        assert_int_equal(xffi_list_new(&target, values, 3), XFFI_OK);
      xffi_any v = xffi_any_object(target), out = xffi_any_none();
      changer c = {target, changes[k], 101, 0, 0};
      if (order < 2)
        assert_int_equal(xffi_structural_walk(&out, &v, order, walk_and_change, &c), XFFI_OK);
      else
        assert_int_equal(xffi_structural_visit(&out, &v, visit_and_change, &c), XFFI_OK);
      assert_int_equal(c.done, 1);
      assert_int_equal(out.type_index, XFFI_TYPE_NONE);
      xffi_object_dec_ref(target);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_map_refuses_a_list_its_callback_resized),
      cmocka_unit_test(test_map_refuses_a_list_grown_and_shrunk_back),
      cmocka_unit_test(test_map_refuses_a_nested_list_cleared_in_place),
      cmocka_unit_test(test_map_sees_an_item_written_ahead),
      cmocka_unit_test(test_map_refuses_a_dict_its_callback_rekeyed),
      cmocka_unit_test(test_mutate_refuses_a_list_its_callback_cleared),
      cmocka_unit_test(test_walk_and_visit_read_what_a_callback_changed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
