/* Walks over values that share sub-values (c/structural_hash.c,
 * c/structural_equal.c, c/recursive_compare.c): 64 containers, each holding
 * the one below twice, stand for 2^64 paths; every walk must cost the
 * distinct containers, not the paths, and give what the tree expansion
 * gives. These tests only have to finish (ctest's timeout catches a walk
 * that does not); the figures are in docs/structural.md. */
#include <stdint.h>

#include "test_util.h"
#include "test_values.h"

#include <xffi/recursive.h>
#include <xffi/structural.h>

enum { LEVELS = 64 };

/* levels containers (Arrays, Lists, or Maps {"a": x, "b": x}), each holding
 * the one below twice, the innermost holding leaf (borrowed). */
static xffi_any doubling_dag(int levels, int32_t kind, xffi_any leaf) {
  xffi_any v = array_of(&leaf, 1);
  for (int i = 0; i < levels; ++i) {
    xffi_any pair[2] = {v, v}, keys[2] = {str("a"), str("b")}, outer;
    if (kind == XFFI_TYPE_MAP)
      outer = map_of(keys, pair, 2);
    else
      outer = kind == XFFI_TYPE_LIST ? list_of(pair, 2) : array_of(pair, 2);
    xffi_any old[] = {v, keys[0], keys[1]};
    release(old, 3);
    v = outer;
  }
  return v;
}

/* The same shape as doubling_dag with no sharing at all (2^levels leaves). */
static xffi_any tree_of(int levels, int32_t kind, xffi_any leaf) {
  if (levels == 0) return array_of(&leaf, 1);
  xffi_any pair[2] = {tree_of(levels - 1, kind, leaf), tree_of(levels - 1, kind, leaf)};
  xffi_any keys[2] = {str("a"), str("b")}, outer;
  if (kind == XFFI_TYPE_MAP)
    outer = map_of(keys, pair, 2);
  else
    outer = kind == XFFI_TYPE_LIST ? list_of(pair, 2) : array_of(pair, 2);
  xffi_any old[] = {pair[0], pair[1], keys[0], keys[1]};
  release(old, 4);
  return outer;
}

static const int32_t kinds[] = {XFFI_TYPE_ARRAY, XFFI_TYPE_LIST, XFFI_TYPE_MAP};

static void test_hash_of_a_dag_is_the_hash_of_its_tree(void **state) {
  (void)state;
  for (size_t k = 0; k < 3; ++k) {
    /* Small enough to expand: the same numbers. */
    xffi_any dag = doubling_dag(10, kinds[k], xffi_any_int(7)), tree = tree_of(10, kinds[k], xffi_any_int(7));
    for (int32_t options = 0; options < 2; ++options) {
      int64_t a = 0, b = 1;
      assert_int_equal(xffi_structural_hash(&a, &dag, options), XFFI_OK);
      assert_int_equal(xffi_structural_hash(&b, &tree, options), XFFI_OK);
      assert_int_equal(a, b);
    }
    int64_t ra = 0, rb = 1;
    assert_int_equal(xffi_recursive_hash(&ra, &dag), XFFI_OK);
    assert_int_equal(xffi_recursive_hash(&rb, &tree), XFFI_OK);
    assert_int_equal(ra, rb);
    xffi_any small[] = {dag, tree};
    release(small, 2);
    /* 2^64 paths: finishes. */
    dag = doubling_dag(LEVELS, kinds[k], xffi_any_int(7));
    int64_t h = 0;
    assert_int_equal(xffi_structural_hash(&h, &dag, 0), XFFI_OK);
    assert_int_equal(xffi_structural_hash(&h, &dag, XFFI_STRUCTURAL_MAP_FREE_VARS), XFFI_OK);
    assert_int_equal(xffi_recursive_hash(&h, &dag), XFFI_OK);
    xffi_any_release(&dag);
  }
}

static void test_equality_of_dags_costs_their_pairs(void **state) {
  (void)state;
  for (size_t k = 0; k < 3; ++k) {
    xffi_any dag = doubling_dag(LEVELS, kinds[k], xffi_any_int(7)), copy = xffi_any_none(), none = xffi_any_none();
    assert_int_equal(xffi_deep_copy(&copy, &dag), XFFI_OK);
    assert_ptr_not_equal(copy.v_obj, dag.v_obj);
    /* A differing leaf at the bottom: found once, on the first path. */
    xffi_any other = doubling_dag(LEVELS, kinds[k], xffi_any_int(8));
    const xffi_any *rhs[] = {&dag, &copy, &other};
    for (int i = 0; i < 3; ++i) {
      int expected = i < 2, equal = -1;
      assert_int_equal(xffi_structural_equal(&equal, &dag, rhs[i], 0), XFFI_OK);
      assert_int_equal(equal, expected);
      assert_int_equal(xffi_structural_equal(&equal, &dag, rhs[i], XFFI_STRUCTURAL_MAP_FREE_VARS), XFFI_OK);
      assert_int_equal(equal, expected);
      assert_int_equal(xffi_recursive_equal(&equal, &dag, rhs[i]), XFFI_OK);
      assert_int_equal(equal, expected);
      int order = 2;
      assert_int_equal(xffi_recursive_compare(&order, &dag, rhs[i]),
                       kinds[k] == XFFI_TYPE_MAP && i == 2 ? XFFI_FAIL : XFFI_OK);
      if (kinds[k] == XFFI_TYPE_MAP && i == 2)
        assert_raised(XFFI_KIND_TYPE, "Cannot order Map/Dict values");
      else
        assert_int_equal(order, expected ? 0 : -1);
      xffi_any paths = xffi_any_int(1);
      assert_int_equal(xffi_structural_first_mismatch(&paths, &dag, rhs[i], 0), XFFI_OK);
      if (expected) {
        assert_int_equal(paths.type_index, XFFI_TYPE_NONE);
      } else {
        assert_int_equal(paths.type_index, XFFI_TYPE_ARRAY); /* [lhs path, rhs path] */
        xffi_any_release(&paths);
      }
    }
    xffi_any all[] = {dag, copy, other, none};
    release(all, 4);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hash_of_a_dag_is_the_hash_of_its_tree),
      cmocka_unit_test(test_equality_of_dags_costs_their_pairs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
