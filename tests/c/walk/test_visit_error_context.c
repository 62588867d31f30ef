/* ffi.VisitErrorContext (c/visit_error_context.c, c/visit_error_paths.c):
 * the record the structural walks attach to an error (walk pre and post,
 * visit, map pre and post, mutate; values that are not objects left out; an
 * earlier extra_context kept), and FindAccessPaths with the scenarios of
 * tvm-ffi's own test (a basic match, each kind of step, sparse anchors, a
 * partial chain with and without prefixes, edge cases, records cleaned of
 * repeats and nulls), a 10^6-deep root, a cycle, running out of memory
 * while recording, and bad input. */
#include <stdint.h>
#include <stdio.h>

#include "failing_allocator.h"
#include "test_util.h"
#include "test_values.h"
#include "test_node_type.h"

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/map.h>
#include <xffi/reflection.h>
#include <xffi/structural_visit.h>

#include "lib/reflection/runtime_types.h"
#include "lib/walk/visit_error_context.h"

static int32_t pair_t, bare_t;

static int setup_types(void **state) {
  (void)state;
  assert_int_equal(xffi_type_register(&pair_t, "test.vec.Pair", XFFI_TYPE_OBJECT), XFFI_OK);
  add_field(pair_t, "a", offsetof(node, a), 0);
  add_field(pair_t, "b", offsetof(node, b), 0);
  xffi_type_metadata m = {{NULL, 0}, NULL, (int32_t)sizeof(node), XFFI_SEQ_HASH_TREE_NODE};
  assert_int_equal(xffi_type_register_metadata(pair_t, &m), XFFI_OK);
  /* A type with fields but no reflection metadata. */
  assert_int_equal(xffi_type_register(&bare_t, "test.vec.Bare", XFFI_TYPE_OBJECT), XFFI_OK);
  add_field(bare_t, "a", offsetof(node, a), 0);
  add_field(bare_t, "b", offsetof(node, b), 0);
  return 0;
}

static xffi_any pair(xffi_any a, xffi_any b) { return node_new(pair_t, a, b); }
static xffi_any leaf_pair(void) { return pair(xffi_any_none(), xffi_any_none()); }

/* ---- Contexts made for the FindAccessPaths scenarios ---- */

/* A new VisitErrorContext whose reverse_visit_pattern holds entries[0, n)
 * (borrowed; any values, None included). */
static xffi_object *context_of(const xffi_any *entries, int64_t n) {
  xffi_error_raise(XFFI_KIND_VALUE, "seed");
  xffi_any seed = xffi_any_object(counted_new());
  xffi_visit_error_context_note(&seed);
  xffi_any_release(&seed);
  xffi_object *err = xffi_error_move_raised(), *context = NULL;
  assert_int_equal(xffi_visit_error_context_of(&context, err), XFFI_OK);
  assert_non_null(context);
  xffi_object_dec_ref(err);
  xffi_any pattern = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&pattern, context, "reverse_visit_pattern"), XFFI_OK);
  assert_int_equal(xffi_list_clear(pattern.v_obj), XFFI_OK);
  for (int64_t i = 0; i < n; ++i) assert_int_equal(xffi_list_push(pattern.v_obj, &entries[i]), XFFI_OK);
  xffi_any_release(&pattern);
  return context;
}

/* The reprs of the paths found, joined by spaces ("" for none). */
static void find_text(char *text, size_t size, const xffi_any *root, xffi_object *context, int allow_prefix_match) {
  xffi_any paths = xffi_any_none();
  assert_int_equal(xffi_visit_error_context_find_paths(&paths, root, context, allow_prefix_match), XFFI_OK);
  assert_int_equal(paths.type_index, XFFI_TYPE_ARRAY);
  text[0] = '\0';
  for (int64_t i = 0; i < xffi_seq_size_unchecked(paths.v_obj); ++i) {
    xffi_object *repr = NULL;
    assert_int_equal(xffi_repr(&repr, &xffi_seq_items_unchecked(paths.v_obj)[i]), XFFI_OK);
    xffi_byte_array bytes;
    assert_int_equal(xffi_string_cell_of(&bytes, repr), XFFI_OK);
    snprintf(text + strlen(text), size - strlen(text), "%s%.*s", i ? " " : "", (int)bytes.size, bytes.data);
    xffi_object_dec_ref(repr);
  }
  xffi_any_release(&paths);
}

static void expect_paths(const xffi_any *root, const xffi_any *pattern, int64_t n, int allow_prefix_match,
                         const char *expected) {
  xffi_object *context = context_of(pattern, n);
  char text[512];
  find_text(text, sizeof(text), root, context, allow_prefix_match);
  assert_string_equal(text, expected);
  xffi_object_dec_ref(context);
}

/* ---- FindAccessPaths: tvm-ffi's scenarios ---- */

static void test_find_basic_match(void **state) {
  (void)state;
  xffi_any leaf = leaf_pair(), mid = pair(leaf, xffi_any_none()), root = pair(mid, xffi_any_none());
  xffi_any chain[] = {leaf, mid, root};
  expect_paths(&root, chain, 3, 0, "<root>.a.a");
  /* One object under two fields: both paths, in field order. */
  xffi_any shared = leaf_pair(), twice = pair(shared, shared);
  xffi_any two[] = {shared, twice};
  expect_paths(&twice, two, 2, 0, "<root>.a <root>.b");
  xffi_any all[] = {leaf, mid, root, shared, twice};
  release(all, 5);
}

static void test_find_names_each_kind_of_step(void **state) {
  (void)state;
  /* Attr, with a pattern that skips the middle object. */
  xffi_any leaf = leaf_pair(), mid = pair(leaf, xffi_any_none()), root = pair(mid, xffi_any_none());
  xffi_any sparse[] = {leaf, root};
  expect_paths(&root, sparse, 2, 0, "<root>.a.a");
  /* ArrayItem: a None item is skipped but still counted. */
  xffi_any first = leaf_pair(), second = leaf_pair();
  xffi_any items[] = {xffi_any_none(), first, second};
  xffi_any seq = array_of(items, 3), in_array = pair(seq, xffi_any_none());
  xffi_any by_index[] = {second, in_array};
  expect_paths(&in_array, by_index, 2, 0, "<root>.a[2]");
  /* A List the same way. */
  xffi_any list = list_of(items, 3), in_list = pair(xffi_any_none(), list);
  xffi_any by_list_index[] = {first, in_list};
  expect_paths(&in_list, by_list_index, 2, 0, "<root>.b[1]");
  /* MapItem: values only, entries with a None value skipped. */
  xffi_any keys[] = {str("none"), str("key")}, values[] = {xffi_any_none(), first};
  xffi_any map = map_of(keys, values, 2), in_map = pair(map, xffi_any_none());
  xffi_any by_key[] = {first, in_map};
  expect_paths(&in_map, by_key, 2, 0, "<root>.a[\"key\"]");
  /* A container is passed through, never matched itself. */
  xffi_any with_container[] = {first, seq, in_array};
  expect_paths(&in_array, with_container, 3, 0, "");
  xffi_any all[] = {leaf, mid, root, first, second, seq, in_array, list, in_list, keys[0], keys[1], map, in_map};
  release(all, 13);
}

static void test_find_sparse_pattern_anchors(void **state) {
  (void)state;
  xffi_any inner = leaf_pair(), left = pair(inner, xffi_any_none());
  xffi_any deeper = pair(inner, xffi_any_none()), outer = pair(deeper, xffi_any_none());
  xffi_any right = pair(outer, xffi_any_none()), root = pair(left, right);
  /* inner is reached twice: both places match. */
  xffi_any loose[] = {inner, root};
  expect_paths(&root, loose, 2, 0, "<root>.a.a <root>.b.a.a.a");
  /* An anchor in between keeps only the path through it. */
  xffi_any anchored[] = {inner, outer, root};
  expect_paths(&root, anchored, 3, 0, "<root>.b.a.a.a");
  xffi_any all[] = {inner, left, deeper, outer, right, root};
  release(all, 6);
}

static void test_find_partial_chain_with_and_without_prefixes(void **state) {
  (void)state;
  xffi_any unreachable = leaf_pair(), child = leaf_pair(), root = pair(child, xffi_any_none());
  xffi_any chain[] = {unreachable, child, root};
  expect_paths(&root, chain, 3, 0, "");
  /* The deepest object with part of the chain matched stands in for it. */
  expect_paths(&root, chain, 3, 1, "<root>.a");
  /* Only the root matched: the root itself is never a prefix result, but
   * an object below it with nothing found under it is. */
  xffi_any other = leaf_pair(), rooted[] = {other, root};
  expect_paths(&root, rooted, 2, 1, "<root>.a");
  xffi_any all[] = {unreachable, child, root, other};
  release(all, 4);
}

static void test_find_edge_cases(void **state) {
  (void)state;
  xffi_any root = leaf_pair(), stranger = leaf_pair();
  expect_paths(&root, NULL, 0, 0, "");
  expect_paths(&root, &root, 1, 0, "<root>");
  xffi_any nones[] = {xffi_any_none(), xffi_any_none()};
  expect_paths(&root, nones, 2, 1, "");
  expect_paths(&root, &stranger, 1, 1, "");
  /* Roots that are not reflected objects find nothing: None, an int, a
   * container (even one in the pattern), an object whose type has no
   * reflection metadata (nor is such an object looked into below). */
  xffi_any none = xffi_any_none(), five = xffi_any_int(5);
  expect_paths(&none, &root, 1, 0, "");
  expect_paths(&five, &root, 1, 0, "");
  xffi_any seq = array_of(&root, 1);
  expect_paths(&seq, &seq, 1, 0, "");
  expect_paths(&seq, &root, 1, 0, "");
  xffi_any bare = node_new(bare_t, root, xffi_any_none()), holder = pair(bare, xffi_any_none());
  expect_paths(&bare, &bare, 1, 0, "");
  xffi_any through_bare[] = {root, holder};
  expect_paths(&holder, through_bare, 2, 1, "");
  xffi_any all[] = {root, stranger, seq, bare, holder};
  release(all, 5);
}

static void test_find_cleans_repeats_and_nulls_from_the_record(void **state) {
  (void)state;
  xffi_any leaf = leaf_pair(), root = pair(leaf, xffi_any_none()), none = xffi_any_none();
  xffi_any repeats[] = {leaf, leaf, root, root};
  expect_paths(&root, repeats, 4, 0, "<root>.a");
  xffi_any nulls[] = {none, leaf, none, root, none};
  expect_paths(&root, nulls, 5, 0, "<root>.a");
  xffi_any both[] = {leaf, none, leaf, root, root, xffi_any_int(3)};
  xffi_object *context = context_of(both, 6);
  char text[64];
  find_text(text, sizeof(text), &root, context, 0);
  assert_string_equal(text, "<root>.a");
  /* The record itself is left as it was. */
  xffi_any pattern = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&pattern, context, "reverse_visit_pattern"), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(pattern.v_obj), 6);
  xffi_any_release(&pattern);
  xffi_object_dec_ref(context);
  xffi_any all[] = {leaf, root};
  release(all, 2);
}

/* ---- Recording by the engines ---- */

typedef struct failing {
  const xffi_object *at; /* the value whose callback raises */
  xffi_object *extra;    /* the extra_context the raised error starts with (borrowed), or NULL */
} failing;

static int raise_at(const failing *f, const xffi_any *value) {
  if (!xffi_any_is_object(value) || value->v_obj != f->at) return XFFI_STRUCTURAL_DECLINED;
  if (!f->extra) return xffi_error_raise(XFFI_KIND_VALUE, "failed here");
  xffi_byte_array kind = {XFFI_KIND_VALUE, strlen(XFFI_KIND_VALUE)}, message = {"failed here", 11}, none = {"", 0};
  xffi_object *err = xffi_error_create_quiet(kind, message, none, NULL, f->extra);
  assert_non_null(err);
  xffi_error_set_raised(err);
  return XFFI_FAIL;
}

static int walk_fail(void *resource, const xffi_any *value, int32_t region, xffi_any *result) {
  (void)region, (void)result;
  return raise_at(resource, value);
}

static int visit_fail(void *resource, xffi_object *visitor, const xffi_any *value, xffi_any *result) {
  (void)visitor, (void)result;
  return raise_at(resource, value);
}

static int map_fail(void *resource, const xffi_any *value, int32_t region, xffi_any *result) {
  (void)region, (void)result;
  return raise_at(resource, value);
}

static int mutate_fail(void *resource, xffi_object *mutator, const xffi_any *value, int32_t mode, xffi_any *result) {
  (void)mutator, (void)mode, (void)result;
  return raise_at(resource, value);
}

/* A visit or mutate callback that, at `at`, runs the default descent on it
 * first and fails when that fails; declines elsewhere. */
typedef struct descending {
  const xffi_object *at;
  failing inner;
} descending;

static int visit_descend(void *resource, xffi_object *visitor, const xffi_any *value, xffi_any *result) {
  descending *d = resource;
  if (xffi_any_is_object(value) && value->v_obj == d->inner.at) return raise_at(&d->inner, value);
  if (!xffi_any_is_object(value) || value->v_obj != d->at) return XFFI_STRUCTURAL_DECLINED;
  return xffi_structural_visitor_default_visit(result, visitor, value);
}

static int mutate_descend(void *resource, xffi_object *mutator, const xffi_any *value, int32_t mode, xffi_any *result) {
  (void)mode;
  descending *d = resource;
  if (xffi_any_is_object(value) && value->v_obj == d->inner.at) return raise_at(&d->inner, value);
  if (!xffi_any_is_object(value) || value->v_obj != d->at) return XFFI_STRUCTURAL_DECLINED;
  return xffi_structural_mutator_default_mutate(result, mutator, value);
}

/* The raised error's context (a new reference); asserts its pattern is
 * expected[0, n) (the same objects) and its prev_error_context is prev. */
static xffi_object *expect_recorded(const xffi_any *expected, int64_t n, const xffi_object *prev) {
  xffi_object *err = xffi_error_move_raised(), *context = NULL;
  assert_non_null(err);
  assert_int_equal(xffi_visit_error_context_of(&context, err), XFFI_OK);
  assert_non_null(context);
  xffi_object_dec_ref(err);
  xffi_any pattern = xffi_any_none(), before = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&pattern, context, "reverse_visit_pattern"), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(pattern.v_obj), n);
  for (int64_t i = 0; i < n; ++i) assert_ptr_equal(xffi_seq_items_unchecked(pattern.v_obj)[i].v_obj, expected[i].v_obj);
  assert_int_equal(xffi_object_get_field(&before, context, "prev_error_context"), XFFI_OK);
  assert_ptr_equal(before.type_index == XFFI_TYPE_NONE ? NULL : before.v_obj, prev);
  xffi_any_release(&pattern);
  xffi_any_release(&before);
  return context;
}

static int walk_fail_on_ints(void *resource, const xffi_any *value, int32_t region, xffi_any *result) {
  (void)resource, (void)region, (void)result;
  return value->type_index == XFFI_TYPE_INT ? xffi_error_raise(XFFI_KIND_VALUE, "an int") : XFFI_OK;
}

static void test_walks_record_where_a_callback_failed(void **state) {
  (void)state;
  xffi_any leaf = pair(xffi_any_int(7), xffi_any_none()), mid = pair(leaf, xffi_any_none());
  xffi_any root = pair(mid, xffi_any_none()), out = xffi_any_none();
  xffi_any chain[] = {leaf, mid, root};
  failing at_leaf = {leaf.v_obj, NULL};
  for (int32_t order = XFFI_STRUCTURAL_PREORDER; order <= XFFI_STRUCTURAL_POSTORDER; ++order) {
    assert_int_equal(xffi_structural_walk(&out, &root, order, walk_fail, &at_leaf), XFFI_FAIL);
    xffi_object *context = expect_recorded(chain, 3, NULL);
    char text[64];
    find_text(text, sizeof(text), &root, context, 0);
    assert_string_equal(text, "<root>.a.a");
    xffi_object_dec_ref(context);
  }
  /* Post-order, after the children: the value once, then its parents. */
  failing at_mid = {mid.v_obj, NULL};
  assert_int_equal(xffi_structural_walk(&out, &root, XFFI_STRUCTURAL_POSTORDER, walk_fail, &at_mid), XFFI_FAIL);
  xffi_object_dec_ref(expect_recorded(chain + 1, 2, NULL));
  /* A visit, a map in either order, a mutate. */
  assert_int_equal(xffi_structural_visit(&out, &root, visit_fail, &at_leaf), XFFI_FAIL);
  xffi_object_dec_ref(expect_recorded(chain, 3, NULL));
  for (int32_t order = XFFI_STRUCTURAL_PREORDER; order <= XFFI_STRUCTURAL_POSTORDER; ++order) {
    xffi_any given = root;
    xffi_object_inc_ref(given.v_obj);
    assert_int_equal(xffi_structural_map(&out, &given, order, map_fail, &at_leaf), XFFI_FAIL);
    xffi_object_dec_ref(expect_recorded(chain, 3, NULL));
  }
  xffi_any given = root;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_mutate(&out, &given, mutate_fail, &at_leaf), XFFI_FAIL);
  xffi_object_dec_ref(expect_recorded(chain, 3, NULL));
  /* Containers on the way are named; values that are not objects are not. */
  xffi_any boxed = array_of(&leaf, 1), outer = pair(boxed, xffi_any_none());
  xffi_any through_array[] = {leaf, boxed, outer};
  assert_int_equal(xffi_structural_walk(&out, &outer, XFFI_STRUCTURAL_PREORDER, walk_fail, &at_leaf), XFFI_FAIL);
  xffi_object_dec_ref(expect_recorded(through_array, 3, NULL));
  assert_int_equal(xffi_structural_walk(&out, &leaf, XFFI_STRUCTURAL_PREORDER, walk_fail_on_ints, NULL), XFFI_FAIL);
  xffi_object_dec_ref(expect_recorded(&leaf, 1, NULL));
  xffi_any all[] = {leaf, mid, root, boxed, outer};
  release(all, 5);
}

static void test_default_descent_inside_a_callback_is_recorded_as_tvm_ffi_does(void **state) {
  (void)state;
  xffi_any leaf = leaf_pair(), mid = pair(leaf, xffi_any_none()), root = pair(mid, xffi_any_none());
  xffi_any out = xffi_any_none();
  descending d = {mid.v_obj, {leaf.v_obj, NULL}};
  /* default_visit does not name the value it was given; the callback's
   * level does, once. */
  xffi_any once[] = {leaf, mid, root};
  assert_int_equal(xffi_structural_visit(&out, &root, visit_descend, &d), XFFI_FAIL);
  xffi_object_dec_ref(expect_recorded(once, 3, NULL));
  /* default_mutate names it, and so does the callback's level: twice. */
  xffi_any twice[] = {leaf, mid, mid, root};
  xffi_any given = root;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_mutate(&out, &given, mutate_descend, &d), XFFI_FAIL);
  xffi_object *context = expect_recorded(twice, 4, NULL);
  char text[64];
  find_text(text, sizeof(text), &root, context, 0);
  assert_string_equal(text, "<root>.a.a");
  xffi_object_dec_ref(context);
  xffi_any all[] = {leaf, mid, root};
  release(all, 3);
}

static void test_an_earlier_extra_context_is_kept(void **state) {
  (void)state;
  xffi_any leaf = leaf_pair(), root = pair(leaf, xffi_any_none()), out = xffi_any_none();
  xffi_object *earlier = counted_new();
  failing f = {leaf.v_obj, earlier};
  xffi_any chain[] = {leaf, root};
  assert_int_equal(xffi_structural_walk(&out, &root, XFFI_STRUCTURAL_PREORDER, walk_fail, &f), XFFI_FAIL);
  xffi_object_dec_ref(expect_recorded(chain, 2, earlier));
  /* An error that has a context already goes on filling it: an inner walk's
   * record continues with the outer walk's values. */
  xffi_error_raise(XFFI_KIND_VALUE, "inner");
  xffi_visit_error_context_note(&leaf);
  xffi_visit_error_context_note(&root);
  xffi_object *inner = NULL;
  assert_int_equal(xffi_visit_error_context_of(&inner, xffi_error_peek_raised()), XFFI_OK);
  xffi_visit_error_context_note(&leaf);
  xffi_any three[] = {leaf, root, leaf};
  xffi_object *same = expect_recorded(three, 3, NULL);
  assert_ptr_equal(same, inner);
  xffi_object_dec_ref(same);
  xffi_object_dec_ref(inner);
  /* The shared MemoryError is never changed; plain values are not recorded. */
  xffi_error_raise_out_of_memory();
  xffi_visit_error_context_note(&leaf);
  xffi_object *err = xffi_error_move_raised(), *none = NULL;
  assert_null(xffi_error_cell_of_unchecked(err)->extra_context);
  xffi_object_dec_ref(err);
  xffi_error_raise(XFFI_KIND_VALUE, "plain");
  xffi_any five = xffi_any_int(5);
  xffi_visit_error_context_note(&five);
  err = xffi_error_move_raised();
  assert_int_equal(xffi_visit_error_context_of(&none, err), XFFI_OK);
  assert_null(none);
  xffi_object_dec_ref(err);
  xffi_object_dec_ref(earlier);
  xffi_any all[] = {leaf, root};
  release(all, 2);
}

static void test_recording_out_of_memory_keeps_the_error(void **state) {
  (void)state;
  xffi_any leaf = leaf_pair(), root = pair(leaf, xffi_any_none());
  assert_true(xffi_visit_error_context_type() >= 0);
  int64_t live = failing_allocator_live();
  /* Each allocation the recording makes fails in turn: the error raised
   * stays the original, and nothing is leaked. */
  for (int64_t n = 0; n < 6; ++n) {
    xffi_error_raise(XFFI_KIND_VALUE, "original");
    failing_allocator_fail_after(n);
    xffi_visit_error_context_note(&leaf);
    xffi_visit_error_context_note(&root);
    failing_allocator_fail_after(-1);
    expect_error(XFFI_KIND_VALUE, "original");
  }
  /* An error with an extra_context of its own keeps it when no context can
   * be made, and has it as the context's prev_error_context otherwise. */
  xffi_object *earlier = counted_new();
  xffi_byte_array kind = {XFFI_KIND_VALUE, strlen(XFFI_KIND_VALUE)}, message = {"original", 8}, none = {"", 0};
  for (int64_t n = 0; n < 4; ++n) {
    xffi_object *err = xffi_error_create_quiet(kind, message, none, NULL, earlier);
    assert_non_null(err);
    xffi_error_set_raised(err);
    failing_allocator_fail_after(n);
    xffi_visit_error_context_note(&leaf);
    failing_allocator_fail_after(-1);
    err = xffi_error_move_raised();
    xffi_object *extra = xffi_error_cell_of_unchecked(err)->extra_context;
    if (extra != earlier) {
      assert_true(xffi_visit_error_context_is(extra));
      assert_ptr_equal(((visit_error_context *)(void *)extra)->prev_error_context, earlier);
    }
    xffi_object_dec_ref(err);
  }
  xffi_object_dec_ref(earlier);
  assert_int_equal(failing_allocator_live(), live);
  xffi_any all[] = {leaf, root};
  release(all, 2);
}

/* ---- Depth, cycles, bad input ---- */

/* Releases a chain of pairs linked through `a` (*top stolen) one link at a
 * time: the test node's deleter would recurse. */
static void release_chain(xffi_any *top) {
  xffi_any link = *top;
  *top = xffi_any_none();
  while (link.type_index == pair_t && *XFFI_REF_COUNTS(link.v_obj) == XFFI_REF_INITIAL) {
    node *n = (node *)(void *)link.v_obj;
    xffi_any next = n->a;
    n->a = xffi_any_none();
    xffi_any_release(&link);
    link = next;
  }
  xffi_any_release(&link);
}

static void test_find_on_a_million_deep_chain_uses_bounded_stack(void **state) {
  (void)state;
  xffi_any deepest = leaf_pair(), root = deepest;
  xffi_object_inc_ref(root.v_obj);
  for (int i = 0; i < 1000000; ++i) {
    xffi_any up = pair(root, xffi_any_none());
    xffi_any_release(&root);
    root = up;
  }
  xffi_any chain[] = {deepest, root};
  xffi_object *context = context_of(chain, 2);
  xffi_any paths = xffi_any_none();
  assert_int_equal(xffi_visit_error_context_find_paths(&paths, &root, context, 0), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(paths.v_obj), 1);
  xffi_any depth = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&depth, xffi_seq_items_unchecked(paths.v_obj)[0].v_obj, "depth"), XFFI_OK);
  assert_int_equal(depth.v_int64, 1000000);
  xffi_any_release(&paths);
  /* A List holding itself is followed to the depth bound, then refused. */
  xffi_any cyclic = list_of(NULL, 0), holder = pair(cyclic, xffi_any_none());
  assert_int_equal(xffi_list_push(cyclic.v_obj, &cyclic), XFFI_OK);
  xffi_any unreachable = leaf_pair(), never[] = {unreachable, holder};
  xffi_object *cycle_context = context_of(never, 2);
  assert_int_equal(xffi_visit_error_context_find_paths(&paths, &holder, cycle_context, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_visit_error_context_find_paths: maximum stack depth (1048576) exceeded");
  assert_int_equal(paths.type_index, XFFI_TYPE_NONE);
  assert_int_equal(xffi_list_clear(cyclic.v_obj), XFFI_OK);
  xffi_object_dec_ref(cycle_context);
  xffi_object_dec_ref(context);
  release_chain(&root);
  xffi_any all[] = {deepest, cyclic, holder, unreachable};
  release(all, 4);
}

static void test_bad_input_gets_clear_errors(void **state) {
  (void)state;
  xffi_any root = leaf_pair(), paths = xffi_any_none();
  xffi_object *context = context_of(&root, 1), *plain = counted_new(), *found = NULL;
  assert_int_equal(xffi_visit_error_context_find_paths(NULL, &root, context, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "out");
  assert_int_equal(xffi_visit_error_context_find_paths(&paths, NULL, context, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "root");
  assert_int_equal(xffi_visit_error_context_find_paths(&paths, &root, NULL, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "context");
  assert_int_equal(xffi_visit_error_context_find_paths(&paths, &root, plain, 0), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE,
               "xffi_visit_error_context_find_paths: context expected ffi.VisitErrorContext, got ffi.Object");
  assert_int_equal(xffi_visit_error_context_of(&found, plain), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "xffi_visit_error_context_of: err expected ffi.Error, got ffi.Object");
  assert_int_equal(xffi_visit_error_context_of(&found, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "err");
  assert_int_equal(xffi_visit_error_context_of(NULL, plain), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "out");
  /* The global: tvm-ffi's signature (Object, VisitErrorContext, bool). */
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_global_lookup(&fn, "ffi.VisitErrorContext.FindAccessPaths"), XFFI_OK);
  xffi_any args[3] = {root, xffi_any_object(context), xffi_any_bool(0)};
  assert_int_equal(xffi_function_call(fn, args, 3, &paths), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(paths.v_obj), 1);
  xffi_any_release(&paths);
  args[2] = xffi_any_int(1);
  args[0] = xffi_any_none();
  assert_int_equal(xffi_function_call(fn, args, 3, &paths), XFFI_OK);
  assert_int_equal(xffi_seq_size_unchecked(paths.v_obj), 0);
  xffi_any_release(&paths);
  assert_int_equal(xffi_function_call(fn, args, 2, &paths), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "ffi.VisitErrorContext.FindAccessPaths: expected 3 arguments, got 2");
  args[0] = xffi_any_int(4);
  assert_int_equal(xffi_function_call(fn, args, 3, &paths), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE,
               "ffi.VisitErrorContext.FindAccessPaths: argument 0 (root): expected an object or None, got int");
  args[0] = root;
  args[1] = xffi_any_none();
  assert_int_equal(xffi_function_call(fn, args, 3, &paths), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE,
               "ffi.VisitErrorContext.FindAccessPaths: argument 1 (context): expected ffi.VisitErrorContext, got None");
  args[1] = xffi_any_object(plain);
  assert_int_equal(xffi_function_call(fn, args, 3, &paths), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "argument 1 (context): expected ffi.VisitErrorContext, got ffi.Object");
  args[1] = xffi_any_object(context);
  args[2] = str("yes");
  assert_int_equal(xffi_function_call(fn, args, 3, &paths), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "argument 2 (allow_prefix_match): expected a bool, got");
  xffi_any_release(&args[2]);
  xffi_object_dec_ref(fn);
  xffi_object_dec_ref(plain);
  xffi_object_dec_ref(context);
  xffi_any_release(&root);
}

/* The type's Function attribute name (borrowed). */
static xffi_object *context_attr(const char *name) {
  const xffi_type_attr_column *column = NULL;
  int32_t type = xffi_visit_error_context_type();
  assert_true(type >= 0);
  assert_int_equal(xffi_type_attr_column_lookup(&column, name), XFFI_OK);
  assert_non_null(column);
  assert_true(type < column->size);
  assert_int_equal(column->data[type].type_index, XFFI_TYPE_FUNCTION);
  return column->data[type].v_obj;
}

/* tvm-ffi's runtime gives the type __ffi_new__ and __ffi_shallow_copy__,
 * which clients use to make one by its fields (ffi.MakeObjectFromPackedArgs). */
static void test_new_and_shallow_copy_attributes(void **state) {
  (void)state;
  xffi_any made = xffi_any_none(), field = xffi_any_none();
  assert_int_equal(xffi_function_call(context_attr("__ffi_new__"), NULL, 0, &made), XFFI_OK);
  assert_true(xffi_visit_error_context_is(made.v_obj));
  /* As tvm-ffi's default constructor: an empty List, no previous context. */
  assert_int_equal(xffi_object_get_field(&field, made.v_obj, "reverse_visit_pattern"), XFFI_OK);
  assert_int_equal(field.type_index, XFFI_TYPE_LIST);
  int64_t size = -1;
  assert_int_equal(xffi_array_length(&size, field.v_obj), XFFI_OK);
  assert_int_equal(size, 0);
  xffi_any_release(&field);
  assert_int_equal(xffi_object_get_field(&field, made.v_obj, "prev_error_context"), XFFI_OK);
  assert_int_equal(field.type_index, XFFI_TYPE_NONE);
  /* A copy shares the fields and is a new object. */
  xffi_any entry = xffi_any_int(3), recorded = xffi_any_object(context_of(&entry, 1)), pattern = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&pattern, recorded.v_obj, "reverse_visit_pattern"), XFFI_OK);
  xffi_any copy = xffi_any_none();
  assert_int_equal(xffi_function_call(context_attr("__ffi_shallow_copy__"), &recorded, 1, &copy), XFFI_OK);
  assert_true(xffi_visit_error_context_is(copy.v_obj));
  assert_ptr_not_equal(copy.v_obj, recorded.v_obj);
  assert_int_equal(xffi_object_get_field(&field, copy.v_obj, "reverse_visit_pattern"), XFFI_OK);
  assert_ptr_equal(field.v_obj, pattern.v_obj);
  xffi_any_release(&field);
  xffi_any_release(&recorded);
  /* Bad input: arguments to __ffi_new__; anything but a context to the copy. */
  assert_int_equal(xffi_function_call(context_attr("__ffi_new__"), &made, 1, &field), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "ffi.VisitErrorContext.__ffi_new__: expected 0 arguments, got 1");
  assert_int_equal(xffi_function_call(context_attr("__ffi_shallow_copy__"), &pattern, 1, &field), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE,
                "ffi.VisitErrorContext.__ffi_shallow_copy__: argument 0: expected ffi.VisitErrorContext");
  xffi_any_release(&copy);
  xffi_any_release(&pattern);
  xffi_any_release(&made);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_find_basic_match),
      cmocka_unit_test(test_find_names_each_kind_of_step),
      cmocka_unit_test(test_find_sparse_pattern_anchors),
      cmocka_unit_test(test_find_partial_chain_with_and_without_prefixes),
      cmocka_unit_test(test_find_edge_cases),
      cmocka_unit_test(test_find_cleans_repeats_and_nulls_from_the_record),
      cmocka_unit_test(test_walks_record_where_a_callback_failed),
      cmocka_unit_test(test_default_descent_inside_a_callback_is_recorded_as_tvm_ffi_does),
      cmocka_unit_test(test_an_earlier_extra_context_is_kept),
      cmocka_unit_test(test_recording_out_of_memory_keeps_the_error),
      cmocka_unit_test(test_find_on_a_million_deep_chain_uses_bounded_stack),
      cmocka_unit_test(test_bad_input_gets_clear_errors),
      cmocka_unit_test(test_new_and_shallow_copy_attributes),
  };
  return cmocka_run_group_tests(tests, setup_types, NULL);
}
