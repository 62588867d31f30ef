/* tests/c/walk/test_deep_copy_sharing.c: DeepCopy (c/deep_copy.c) enters only
 * objects that may be reached twice in its table: those with more than one
 * strong reference, and the root (which the caller may only borrow). These
 * tests build the graphs where that rule could go wrong: a cycle back to a
 * borrowed root through objects of one reference, a placeholder (an Array
 * being built) left in a List of one reference, and shared objects among
 * objects of one reference. Each copy must keep the original's shape
 * exactly: sharing as sharing, cycles as cycles, nothing pointing back into
 * the original. */
#include "test_util.h"

#include <xffi/array.h>
#include <xffi/recursive.h>

static xffi_object *list_of(const xffi_any *items, int64_t n) {
  xffi_object *list = NULL;
  assert_int_equal(xffi_list_new(&list, items, n), XFFI_OK);
  return list;
}

static xffi_object *item_object(const xffi_object *seq, int64_t i) {
  const xffi_any *v = &xffi_seq_items_unchecked(seq)[i];
  assert_true(xffi_any_is_object(v));
  return v->v_obj;
}

/* root -> middle -> root, where the only reference to root is middle's and
 * the only one to middle is root's: the caller holds a borrowed view. */
static void a_cycle_back_to_a_borrowed_root(void **state) {
  (void)state;
  xffi_object *root = list_of(NULL, 0);
  xffi_any root_view = xffi_any_object(root);
  xffi_object *middle = list_of(&root_view, 1);
  xffi_any middle_view = xffi_any_object(middle);
  assert_int_equal(xffi_list_push(root, &middle_view), XFFI_OK);
  xffi_object_dec_ref(middle);
  xffi_object_dec_ref(root); /* now held only by middle: one reference each */
  assert_int_equal(xffi_object_strong_count(root), 1);
  assert_int_equal(xffi_object_strong_count(middle), 1);

  xffi_any copy = xffi_any_none();
  assert_int_equal(xffi_deep_copy(&copy, &root_view), XFFI_OK);
  xffi_object *root2 = copy.v_obj, *middle2 = item_object(root2, 0);
  assert_ptr_not_equal(root2, root);
  assert_ptr_not_equal(middle2, middle);
  assert_ptr_equal(item_object(middle2, 0), root2); /* the cycle, in the copy */

  /* Break both cycles so that everything is freed (ASan checks). */
  assert_int_equal(xffi_list_clear(middle2), XFFI_OK);
  xffi_any_release(&copy);
  xffi_object_inc_ref(root);
  assert_int_equal(xffi_list_clear(middle), XFFI_OK);
  xffi_object_dec_ref(root);
}

/* array -> list -> array: the List (one reference) gets the Array's
 * original as a placeholder while the Array is built; the last pass must
 * still find the List's copy and put the Array's copy in. */
static void a_placeholder_in_a_list_of_one_reference(void **state) {
  (void)state;
  xffi_object *inner = list_of(NULL, 0);
  xffi_any inner_view = xffi_any_object(inner);
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new(&array, &inner_view, 1), XFFI_OK);
  xffi_object_dec_ref(inner); /* held by the Array only */
  xffi_any array_view = xffi_any_object(array);
  assert_int_equal(xffi_list_push(inner, &array_view), XFFI_OK);
  assert_int_equal(xffi_object_strong_count(inner), 1);

  xffi_any copy = xffi_any_none();
  assert_int_equal(xffi_deep_copy(&copy, &array_view), XFFI_OK);
  xffi_object *array2 = copy.v_obj, *inner2 = item_object(array2, 0);
  assert_ptr_not_equal(array2, array);
  assert_ptr_not_equal(inner2, inner);
  assert_ptr_equal(item_object(inner2, 0), array2); /* fixed: not the original */

  assert_int_equal(xffi_list_clear(inner2), XFFI_OK);
  xffi_any_release(&copy);
  assert_int_equal(xffi_list_clear(inner), XFFI_OK);
  xffi_object_dec_ref(array);
}

/* A tree of Lists of one reference each, with one List shared by three
 * leaves: the tree's nodes are copied once each, the shared List once. */
static void shared_objects_among_objects_of_one_reference(void **state) {
  (void)state;
  xffi_any one = xffi_any_int(1);
  xffi_object *shared = list_of(&one, 1);
  xffi_any shared_view = xffi_any_object(shared);
  xffi_any leaves[3];
  for (int i = 0; i < 3; ++i) leaves[i] = xffi_any_object(list_of(&shared_view, 1));
  xffi_object *root = list_of(leaves, 3);
  for (int i = 0; i < 3; ++i) xffi_any_release(&leaves[i]);
  xffi_object_dec_ref(shared); /* held by the three leaves */

  xffi_any root_view = xffi_any_object(root), copy = xffi_any_none();
  assert_int_equal(xffi_deep_copy(&copy, &root_view), XFFI_OK);
  xffi_object *shared2 = item_object(item_object(copy.v_obj, 0), 0);
  assert_ptr_not_equal(shared2, shared);
  for (int i = 0; i < 3; ++i) {
    xffi_object *leaf2 = item_object(copy.v_obj, i);
    assert_ptr_not_equal(leaf2, item_object(root, i));
    assert_ptr_equal(item_object(leaf2, 0), shared2); /* one copy, shared */
  }
  assert_int_equal(xffi_object_strong_count(shared2), 3);
  xffi_any_release(&copy);
  xffi_object_dec_ref(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_cycle_back_to_a_borrowed_root),
      cmocka_unit_test(a_placeholder_in_a_list_of_one_reference),
      cmocka_unit_test(shared_objects_among_objects_of_one_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
