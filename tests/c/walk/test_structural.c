/* Structural equality (xffi/structural.h, c/structural_equal.c, and the
 * ffi.StructuralEqual global of c/globals_structural.c) and hashing
 * (c/structural_hash.c, ffi.StructuralHash): tvm-ffi's
 * semantics per structural kind (tree, const tree, DAG, free variable,
 * unique instance, unsupported), ignored fields, definition regions,
 * containers, 10^6-deep values, bad input. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "test_util.h"
#include "test_values.h"
#include "test_node_type.h"

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/map.h>
#include <xffi/reflection.h>
#include <xffi/structural.h>

#include "lib/reflection/runtime_types.h" /* the AccessPath and AccessStep layouts */

/* ---- Helpers ---- */

static int s_equal(xffi_any a, xffi_any b, int32_t options) {
  int eq = -1;
  assert_int_equal(xffi_structural_equal(&eq, &a, &b, options), XFFI_OK);
  return eq;
}

static int64_t s_hash(xffi_any v, int32_t options) {
  int64_t h = 0;
  assert_int_equal(xffi_structural_hash(&h, &v, options), XFFI_OK);
  return h;
}

/* ---- Reflected node types: {a: Any, b: Any}, b's flags chosen per type ---- */

/* A node type of this key and structural kind; field b carries b_flags.
 * with_metadata 0 registers no metadata at all. */
static int32_t node_type(const char *key, int32_t seq_kind, int64_t b_flags, int with_metadata) {
  int32_t t = -1;
  assert_int_equal(xffi_type_register(&t, key, XFFI_TYPE_OBJECT), XFFI_OK);
  add_field(t, "a", offsetof(node, a), 0);
  add_field(t, "b", offsetof(node, b), b_flags);
  if (with_metadata) {
    xffi_type_metadata m = {{"a test node", 11}, NULL, (int32_t)sizeof(node), seq_kind};
    assert_int_equal(xffi_type_register_metadata(t, &m), XFFI_OK);
  }
  return t;
}

static int32_t def_func_t, tree_t, const_tree_t, dag_t, var_t, func_t, unique_t, unsupported_t, bare_t;

static int setup_types(void **state) {
  (void)state;
  tree_t = node_type("test.s.Tree", XFFI_SEQ_HASH_TREE_NODE, 0, 1);
  const_tree_t = node_type("test.s.ConstTree", XFFI_SEQ_HASH_CONST_TREE_NODE, 0, 1);
  dag_t = node_type("test.s.DAG", XFFI_SEQ_HASH_DAG_NODE, 0, 1);
  /* A variable: b is its name, which structural equality ignores. */
  var_t = node_type("test.s.Var", XFFI_SEQ_HASH_FREE_VAR, XFFI_FIELD_SEQ_HASH_IGNORE, 1);
  /* A function: a its parameters (a definition), b its body. */
  func_t = node_type("test.s.Func", XFFI_SEQ_HASH_TREE_NODE, 0, 1);
  unique_t = node_type("test.s.Unique", XFFI_SEQ_HASH_UNIQUE_INSTANCE, 0, 1);
  unsupported_t = node_type("test.s.Unsupported", XFFI_SEQ_HASH_UNSUPPORTED, 0, 1);
  bare_t = node_type("test.s.Bare", 0, 0, 0);
  /* A function whose parameters are a definition. */
  assert_int_equal(xffi_type_register(&def_func_t, "test.s.DefFunc", XFFI_TYPE_OBJECT), XFFI_OK);
  add_field(def_func_t, "params", offsetof(node, a), XFFI_FIELD_SEQ_HASH_DEF_PATTERN);
  add_field(def_func_t, "body", offsetof(node, b), 0);
  xffi_type_metadata m = {{NULL, 0}, NULL, (int32_t)sizeof(node), XFFI_SEQ_HASH_TREE_NODE};
  assert_int_equal(xffi_type_register_metadata(def_func_t, &m), XFFI_OK);
  return 0;
}

/* ---- Plain values and containers ---- */

static void test_plain_values_and_containers(void **state) {
  (void)state;
  xffi_any none = xffi_any_none();
  assert_true(s_equal(xffi_any_int(3), xffi_any_int(3), 0));
  assert_false(s_equal(xffi_any_int(3), xffi_any_bool(1), 0));
  assert_true(s_equal(xffi_any_float(NAN), xffi_any_float(NAN), 0));
  assert_false(s_equal(xffi_any_float(0.0), xffi_any_float(-0.0), 0)); /* by bits, as tvm-ffi */
  assert_true(s_equal(none, none, 0));
  xffi_any small = str("ab"), big = str("a string long enough to be a String object"),
           big2 = str("a string long enough to be a String object"), other = str("ac");
  assert_true(s_equal(big, big2, 0));
  assert_false(s_equal(small, other, 0));
  xffi_any items1[] = {xffi_any_int(1), big}, items2[] = {xffi_any_int(1), big2};
  xffi_any a1 = array_of(items1, 2), a2 = array_of(items2, 2), l1 = list_of(items1, 2), short_a = array_of(items1, 1);
  assert_true(s_equal(a1, a2, 0));
  assert_false(s_equal(a1, l1, 0)); /* an Array is never a List */
  assert_false(s_equal(a1, short_a, 0));
  xffi_any keys[] = {small, other}, values1[] = {a1, xffi_any_int(2)}, values2[] = {a2, xffi_any_int(2)},
           values3[] = {a2, xffi_any_int(3)};
  xffi_any m1 = map_of(keys, values1, 2), m2 = map_of(keys, values2, 2), m3 = map_of(keys, values3, 2);
  assert_true(s_equal(m1, m2, 0));
  assert_false(s_equal(m1, m3, 0));
  xffi_any all[] = {big, big2, a1, a2, l1, short_a, m1, m2, m3};
  release(all, sizeof(all) / sizeof(all[0]));
}

/* Whether [a] and [b] (borrowed) are equal: plain pairs met inside a walk. */
static int equal_as_items(xffi_any a, xffi_any b) {
  xffi_any la = array_of(&a, 1), lb = array_of(&b, 1);
  int eq = s_equal(la, lb, 0);
  xffi_any both[] = {la, lb};
  release(both, 2);
  return eq;
}

/* Inside containers as at the top: NaNs of other payloads are equal, zeros
 * of other signs are not, texts compare by content whatever their form
 * (String and Bytes objects too, which also hash as tvm-ffi's). */
static void test_plain_pairs_inside_containers(void **state) {
  (void)state;
  xffi_any nan1 = xffi_any_float(NAN), nan2 = nan1;
  nan2.v_int64 ^= 1; /* another quiet NaN payload */
  assert_true(equal_as_items(nan1, nan2));
  assert_false(equal_as_items(xffi_any_float(0.0), xffi_any_float(-0.0)));
  assert_false(equal_as_items(xffi_any_int(1), xffi_any_bool(1)));
  assert_false(equal_as_items(xffi_any_int(1), xffi_any_int(2)));
  assert_true(equal_as_items(str("ab"), str("ab")));
  assert_false(equal_as_items(str("ab"), str("ac")));
  char x1[] = "xyz", x2[] = "xyz", x3[] = "xyw";
  xffi_any raw1 = {.type_index = XFFI_TYPE_RAW_STR, .v_c_str = x1}, raw2 = raw1, raw3 = raw1;
  raw2.v_c_str = x2;
  raw3.v_c_str = x3;
  assert_true(equal_as_items(raw1, raw2)); /* other pointers, one text */
  assert_false(equal_as_items(raw1, raw3));
  assert_true(equal_as_items(raw1, str("xyz"))); /* a view and a small string */
  /* String and Bytes objects: by content, never a String for Bytes. */
  xffi_any long1 = str("a string long enough to be a String object"),
           long2 = str("a string long enough to be a String object"),
           long3 = str("a string long enough to be a String objecT"), bytes1, bytes2;
  assert_int_equal(xffi_any_from_bytes(&bytes1, "bytes long enough", 17), XFFI_OK);
  assert_int_equal(xffi_any_from_bytes(&bytes2, "bytes long enough", 17), XFFI_OK);
  assert_true(equal_as_items(long1, long2));
  assert_true(equal_as_items(long1, long1));
  assert_false(equal_as_items(long1, long3));
  assert_true(equal_as_items(bytes1, bytes2));
  xffi_any same_text = str("bytes long enough");
  assert_false(equal_as_items(bytes1, same_text));
  /* Their hashes inside containers are tvm-ffi's (numbers from its runtime). */
  xffi_any items[] = {long1, xffi_any_int(1), long2};
  xffi_any arr = array_of(items, 3);
  assert_int_equal((uint64_t)s_hash(arr, 0), UINT64_C(17457866914276406390));
  xffi_any pair[] = {bytes1, long1};
  xffi_any inner = array_of(pair, 2);
  xffi_any outer = array_of(&inner, 1);
  assert_int_equal((uint64_t)s_hash(outer, 0), UINT64_C(9378583843177985333));
  xffi_any all[] = {long1, long2, long3, bytes1, bytes2, same_text, arr, inner, outer};
  release(all, sizeof(all) / sizeof(all[0]));
}

/* ---- Kinds ---- */

static void test_tree_dag_and_const_tree(void **state) {
  (void)state;
  xffi_any none = xffi_any_none();
  xffi_any leaf1 = node_new(tree_t, xffi_any_int(1), none), leaf2 = node_new(tree_t, xffi_any_int(1), none);
  xffi_any leaf3 = node_new(tree_t, xffi_any_int(2), none);
  assert_true(s_equal(leaf1, leaf2, 0));
  assert_false(s_equal(leaf1, leaf3, 0));
  /* A tree ignores sharing: (x, x) equals (x, y) when x equals y. */
  xffi_any shared_tree = node_new(tree_t, leaf1, leaf1), split_tree = node_new(tree_t, leaf1, leaf2);
  assert_true(s_equal(shared_tree, split_tree, 0));
  /* A DAG does not: the pair (d1, d2) is remembered, so d1 cannot match d3 too. */
  xffi_any d1 = node_new(dag_t, xffi_any_int(1), none), d2 = node_new(dag_t, xffi_any_int(1), none),
           d3 = node_new(dag_t, xffi_any_int(1), none);
  xffi_any shared_dag = node_new(dag_t, d1, d1), shared_dag2 = node_new(dag_t, d2, d2),
           split_dag = node_new(dag_t, d2, d3);
  assert_true(s_equal(shared_dag, shared_dag2, 0));
  assert_false(s_equal(shared_dag, split_dag, 0));
  assert_false(s_equal(split_dag, shared_dag, 0)); /* the reverse map too */
  /* Const trees: the same object short-cuts, others compare fields. */
  xffi_any c1 = node_new(const_tree_t, xffi_any_int(1), none), c2 = node_new(const_tree_t, xffi_any_int(1), none);
  assert_true(s_equal(c1, c1, 0));
  assert_true(s_equal(c1, c2, 0));
  /* Unique instances: only themselves. */
  xffi_any u1 = node_new(unique_t, xffi_any_int(1), none), u2 = node_new(unique_t, xffi_any_int(1), none);
  assert_true(s_equal(u1, u1, 0));
  assert_false(s_equal(u1, u2, 0));
  xffi_any all[] = {leaf1,      leaf2,       leaf3,     shared_tree, split_tree, d1, d2, d3,
                    shared_dag, shared_dag2, split_dag, c1,          c2,         u1, u2};
  release(all, sizeof(all) / sizeof(all[0]));
}

static void test_free_variables_map_inside_definitions(void **state) {
  (void)state;
  xffi_any none = xffi_any_none();
  xffi_any x = node_new(var_t, none, str("x")), y = node_new(var_t, none, str("y"));
  /* Outside a definition a variable equals only itself; its name is ignored. */
  assert_true(s_equal(x, x, 0));
  assert_false(s_equal(x, y, 0));
  assert_true(s_equal(x, y, XFFI_STRUCTURAL_MAP_FREE_VARS));
  /* fn(x) = x vs fn(y) = y: alpha-equivalent when the parameters are a definition. */
  xffi_any fx = node_new(func_t, x, x), fy = node_new(func_t, y, y);
  assert_false(s_equal(fx, fy, 0)); /* func_t's a is no definition field */
  xffi_any px = array_of(&x, 1), py = array_of(&y, 1);
  xffi_any pair_x[] = {px, x}, pair_y[] = {py, y}, pair_yx[] = {py, x};
  xffi_any bx = list_of(pair_x, 2), by = list_of(pair_y, 2), byx = list_of(pair_yx, 2);
  /* A list [params, body] compared with free variables mapped: a bijection. */
  assert_true(s_equal(bx, by, XFFI_STRUCTURAL_MAP_FREE_VARS));
  assert_false(s_equal(bx, byx, XFFI_STRUCTURAL_MAP_FREE_VARS)); /* x maps to y, then x vs x fails */
  xffi_any all[] = {x, y, fx, fy, px, py, bx, by, byx};
  release(all, sizeof(all) / sizeof(all[0]));
}

static void test_definition_fields_open_a_region(void **state) {
  (void)state;
  xffi_any none = xffi_any_none();
  xffi_any x = node_new(var_t, none, str("x")), y = node_new(var_t, none, str("y")),
           z = node_new(var_t, none, str("z"));
  xffi_any xy[] = {x, y}, yx[] = {y, x}, zy[] = {z, y};
  xffi_any p_xy = array_of(xy, 2), p_yx = array_of(yx, 2), p_zy = array_of(zy, 2);
  xffi_any f1 = node_new(def_func_t, p_xy, x); /* fn(x, y) = x */
  xffi_any f2 = node_new(def_func_t, p_yx, y); /* fn(y, x) = y: the same function */
  xffi_any f3 = node_new(def_func_t, p_yx, x); /* fn(y, x) = x: another */
  xffi_any f4 = node_new(def_func_t, p_zy, z); /* fn(z, y) = z */
  assert_true(s_equal(f1, f2, 0));
  assert_false(s_equal(f1, f3, 0));
  assert_true(s_equal(f1, f4, 0));
  /* A variable used in the body but not defined stays free. */
  xffi_any f5 = node_new(def_func_t, p_xy, z), f6 = node_new(def_func_t, p_xy, y);
  assert_false(s_equal(f5, f6, 0));
  xffi_any all[] = {x, y, z, p_xy, p_yx, p_zy, f1, f2, f3, f4, f5, f6};
  release(all, sizeof(all) / sizeof(all[0]));
}

/* Field plans (c/structural_plan.c) are built once per type and cached: a
 * field appended later, to an ancestor or to the type itself, is compared
 * and hashed from then on. */
static void test_fields_appended_after_first_use(void **state) {
  (void)state;
  int32_t parent = -1, child = -1;
  xffi_type_metadata m = {{NULL, 0}, NULL, (int32_t)sizeof(node), XFFI_SEQ_HASH_TREE_NODE};
  assert_int_equal(xffi_type_register(&parent, "test.s.GrowParent", XFFI_TYPE_OBJECT), XFFI_OK);
  add_field(parent, "a", offsetof(node, a), 0);
  assert_int_equal(xffi_type_register_metadata(parent, &m), XFFI_OK);
  assert_int_equal(xffi_type_register(&child, "test.s.GrowChild", parent), XFFI_OK);
  assert_int_equal(xffi_type_register_metadata(child, &m), XFFI_OK);
  xffi_any c1 = node_new(child, xffi_any_int(1), str("x")), c2 = node_new(child, xffi_any_int(1), str("y"));
  xffi_any c3 = node_new(child, xffi_any_int(1), str("y"));
  /* Only a (the parent's) is a field yet: b's values do not count. */
  assert_true(s_equal(c1, c2, 0));
  assert_int_equal(s_hash(c1, 0), s_hash(c2, 0));
  /* The parent gains b: the child's plan sees its ancestor's new field. */
  add_field(parent, "b", offsetof(node, b), 0);
  assert_false(s_equal(c1, c2, 0));
  assert_true(s_hash(c1, 0) != s_hash(c2, 0));
  assert_true(s_equal(c2, c3, 0));
  /* A field of its own, flagged ignored: the plan grows, the results do not change. */
  add_field(child, "b_ignored", offsetof(node, b), XFFI_FIELD_SEQ_HASH_IGNORE);
  assert_true(s_equal(c2, c3, 0));
  assert_false(s_equal(c1, c2, 0));
  assert_int_equal(s_hash(c2, 0), s_hash(c3, 0));
  xffi_any all[] = {c1, c2, c3};
  release(all, sizeof(all) / sizeof(all[0]));
}

static void test_types_without_a_kind_raise(void **state) {
  (void)state;
  xffi_any none = xffi_any_none();
  xffi_any u1 = node_new(unsupported_t, none, none), u2 = node_new(unsupported_t, none, none);
  xffi_any b1 = node_new(bare_t, none, none), b2 = node_new(bare_t, none, none);
  int eq = -1;
  assert_int_equal(xffi_structural_equal(&eq, &u1, &u2, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "_type_s_eq_hash_kind is not set for type `test.s.Unsupported`");
  assert_int_equal(eq, 0);
  /* Below a container too: the walk stops, nothing leaks (ASan checks). */
  xffi_any l1 = list_of(&b1, 1), l2 = list_of(&b2, 1);
  assert_int_equal(xffi_structural_equal(&eq, &l1, &l2, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "Type metadata is not set for type `test.s.Bare`");
  xffi_any all[] = {u1, u2, b1, b2, l1, l2};
  release(all, sizeof(all) / sizeof(all[0]));
}

/* ---- Hash ---- */

/* Numbers printed by tvm-ffi 0.1.15.post2's own runtime (the wheel, in
 * another process) for tvm_ffi.structural_hash of the same values. */
static void test_hash_values_are_tvm_ffi_s(void **state) {
  (void)state;
  assert_int_equal((uint64_t)s_hash(xffi_any_int(7), 0), UINT64_C(2654435841));
  assert_int_equal((uint64_t)s_hash(xffi_any_int(-1), 0), UINT64_C(2654435833));
  assert_int_equal((uint64_t)s_hash(xffi_any_bool(1), 0), UINT64_C(2654435896));
  assert_int_equal((uint64_t)s_hash(xffi_any_float(1.5), 0), UINT64_C(4609434221268138618));
  assert_int_equal((uint64_t)s_hash(xffi_any_float(NAN), 0), UINT64_C(9221120239695526522));
  assert_int_equal((uint64_t)s_hash(xffi_any_float(-0.0), 0), UINT64_C(9223372039509211770));
  assert_int_equal((uint64_t)s_hash(xffi_any_none(), 0), UINT64_C(2654435769));
  xffi_any ab = str("ab"), empty = str(""), long_text = str("a string long enough to be a String object");
  assert_int_equal((uint64_t)s_hash(ab, 0), UINT64_C(2654465067));
  assert_int_equal((uint64_t)s_hash(empty, 0), UINT64_C(2654440008));
  assert_int_equal((uint64_t)s_hash(long_text, 0), UINT64_C(3690337933));
  /* Array([1, "ab", 2.5]) */
  xffi_any items[] = {xffi_any_int(1), ab, xffi_any_float(2.5)};
  xffi_any arr = array_of(items, 3);
  assert_int_equal((uint64_t)s_hash(arr, 0), UINT64_C(3621650956060032632));
  /* List([1, Array([2, 3])]) */
  xffi_any two_three[] = {xffi_any_int(2), xffi_any_int(3)};
  xffi_any inner = array_of(two_three, 2);
  xffi_any list_items[] = {xffi_any_int(1), inner};
  xffi_any list = list_of(list_items, 2);
  assert_int_equal((uint64_t)s_hash(list, 0), UINT64_C(16332135292154224779));
  /* Map({"a": 1, "bb": Array([1, 2]), 3: None}) */
  xffi_any one_two[] = {xffi_any_int(1), xffi_any_int(2)};
  xffi_any arr12 = array_of(one_two, 2), bb = str("bb");
  xffi_any keys[] = {str("a"), bb, xffi_any_int(3)}, values[] = {xffi_any_int(1), arr12, xffi_any_none()};
  xffi_any map = map_of(keys, values, 3);
  assert_int_equal((uint64_t)s_hash(map, 0), UINT64_C(13161971041981070455));
  assert_int_equal((uint64_t)s_hash(map, XFFI_STRUCTURAL_MAP_FREE_VARS), UINT64_C(13161971041981070455));
  xffi_any all[] = {long_text, arr, inner, list, arr12, map};
  release(all, sizeof(all) / sizeof(all[0]));
}

/* {"x": i, "y": Array([i, "v"]), "z": Map({"k": 2i})} */
static xffi_any nested_entry(int64_t i) {
  xffi_any iv[] = {xffi_any_int(i), str("v")};
  xffi_any kk[] = {str("k")}, kv[] = {xffi_any_int(2 * i)};
  xffi_any keys[] = {str("x"), str("y"), str("z")};
  xffi_any values[] = {xffi_any_int(i), array_of(iv, 2), map_of(kk, kv, 1)};
  xffi_any m = map_of(keys, values, 3);
  release(keys, 3);
  release(values, 3);
  release(kk, 1);
  return m;
}

/* Maps inside Maps, one of more entries than a short sort handles: each
 * Map's sorted entries share one buffer with the Maps around it. Numbers
 * from tvm-ffi's runtime, as above. */
static void test_nested_map_hash_values_are_tvm_ffi_s(void **state) {
  (void)state;
  xffi_any keys[20], values[20];
  for (int64_t i = 0; i < 20; ++i) {
    keys[i] = xffi_any_int(i);
    values[i] = nested_entry(i);
  }
  xffi_any big = map_of(keys, values, 20);
  assert_int_equal((uint64_t)s_hash(big, 0), UINT64_C(1248311946128730659));
  xffi_any outer_keys[] = {str("a"), str("b"), str("c"), str("d"), str("e")};
  xffi_any outer_values[] = {big, nested_entry(5), xffi_any_int(1), xffi_any_float(2.5), str("five")};
  xffi_any outer = map_of(outer_keys, outer_values, 5);
  assert_int_equal((uint64_t)s_hash(outer, 0), UINT64_C(4889537758680394446));
  release(values, 20);
  release(outer_keys, 5);
  release(outer_values, 5);
  xffi_any_release(&outer);
}

static void test_hash_follows_the_kinds(void **state) {
  (void)state;
  xffi_any none = xffi_any_none();
  /* Equal trees hash alike, sharing or not. */
  xffi_any leaf1 = node_new(tree_t, xffi_any_int(1), none), leaf2 = node_new(tree_t, xffi_any_int(1), none);
  xffi_any shared_tree = node_new(tree_t, leaf1, leaf1), split_tree = node_new(tree_t, leaf1, leaf2);
  assert_int_equal(s_hash(shared_tree, 0), s_hash(split_tree, 0));
  /* DAG nodes are numbered: sharing changes the hash. */
  xffi_any d1 = node_new(dag_t, xffi_any_int(1), none), d2 = node_new(dag_t, xffi_any_int(1), none),
           d3 = node_new(dag_t, xffi_any_int(1), none);
  xffi_any shared_dag = node_new(dag_t, d1, d1), shared_dag2 = node_new(dag_t, d2, d2),
           split_dag = node_new(dag_t, d2, d3);
  assert_int_equal(s_hash(shared_dag, 0), s_hash(shared_dag2, 0));
  assert_int_not_equal(s_hash(shared_dag, 0), s_hash(split_dag, 0));
  /* Free variables: numbered inside a definition, by identity outside one. */
  xffi_any x = node_new(var_t, none, str("x")), y = node_new(var_t, none, str("y"));
  assert_int_not_equal(s_hash(x, 0), s_hash(y, 0));
  assert_int_equal(s_hash(x, XFFI_STRUCTURAL_MAP_FREE_VARS), s_hash(y, XFFI_STRUCTURAL_MAP_FREE_VARS));
  xffi_any xy[] = {x, y}, yx[] = {y, x};
  xffi_any p_xy = array_of(xy, 2), p_yx = array_of(yx, 2);
  xffi_any f1 = node_new(def_func_t, p_xy, x), f2 = node_new(def_func_t, p_yx, y), f3 = node_new(def_func_t, p_yx, x);
  assert_int_equal(s_hash(f1, 0), s_hash(f2, 0));
  assert_int_not_equal(s_hash(f1, 0), s_hash(f3, 0));
  /* Types without a kind raise, as for equality. */
  xffi_any u = node_new(unsupported_t, none, none);
  int64_t h = 1;
  assert_int_equal(xffi_structural_hash(&h, &u, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "_type_s_eq_hash_kind is not set for type `test.s.Unsupported`");
  assert_int_equal(h, 0);
  xffi_any all[] = {leaf1,     leaf2, shared_tree, split_tree, d1,   d2, d3, shared_dag, shared_dag2,
                    split_dag, x,     y,           p_xy,       p_yx, f1, f2, f3,         u};
  release(all, sizeof(all) / sizeof(all[0]));
}

/* ---- First mismatch ---- */

/* The steps of an AccessPath (tvm-ffi's layout: parent at 24, step at 32;
 * a step's kind at 24, key at 32), root first, as "kind:key" texts. */
static void path_text(char *out, size_t size, const xffi_object *path) {
  const access_step *steps[16];
  int n = 0;
  for (const access_path *p = (const access_path *)path; p; p = (const access_path *)p->parent)
    if (p->step && n < 16) steps[n++] = (const access_step *)p->step;
  size_t used = 0;
  out[0] = 0;
  for (int i = n; i-- > 0;) {
    const xffi_any *key = &steps[i]->key;
    if (key->type_index == XFFI_TYPE_INT)
      used += (size_t)snprintf(out + used, size - used, "/%d:%lld", (int)steps[i]->kind, (long long)key->v_int64);
    else
      used +=
          (size_t)snprintf(out + used, size - used, "/%d:%s", (int)steps[i]->kind, key->small_len ? key->v_small : "?");
  }
}

static void expect_mismatch(xffi_any a, xffi_any b, const char *lhs_path, const char *rhs_path) {
  xffi_any pair = xffi_any_int(7);
  assert_int_equal(xffi_structural_first_mismatch(&pair, &a, &b, 0), XFFI_OK);
  if (!lhs_path) {
    assert_int_equal(pair.type_index, XFFI_TYPE_NONE);
    return;
  }
  assert_int_equal(pair.type_index, XFFI_TYPE_ARRAY);
  xffi_any l = xffi_any_none(), r = xffi_any_none();
  int64_t zero = 0, one = 1;
  assert_int_equal(xffi_array_get(&l, pair.v_obj, zero), XFFI_OK);
  assert_int_equal(xffi_array_get(&r, pair.v_obj, one), XFFI_OK);
  char text[256];
  path_text(text, sizeof(text), l.v_obj);
  assert_string_equal(text, lhs_path);
  path_text(text, sizeof(text), r.v_obj);
  assert_string_equal(text, rhs_path);
  xffi_any_release(&l);
  xffi_any_release(&r);
  xffi_any_release(&pair);
}

/* The paths tvm-ffi's runtime gives for the same pairs (kinds: 0 attr,
 * 1 array item, 2 map item, 4 array item missing, 5 map item missing). */
static void test_first_mismatch_paths_are_tvm_ffi_s(void **state) {
  (void)state;
  xffi_any none = xffi_any_none();
  xffi_any one_two_three[] = {xffi_any_int(1), xffi_any_int(2), xffi_any_int(3)};
  xffi_any a3 = array_of(one_two_three, 3), a2 = array_of(one_two_three, 2), b3 = array_of(one_two_three, 3);
  expect_mismatch(a3, b3, NULL, NULL);
  expect_mismatch(a3, a2, "/1:2", "/4:2");
  expect_mismatch(a2, a3, "/4:2", "/1:2");
  xffi_any ka = str("a"), kb = str("b"), kc = str("c");
  xffi_any k_ab[] = {ka, kb}, k_ac[] = {ka, kc}, v12[] = {xffi_any_int(1), xffi_any_int(2)};
  xffi_any m_a = map_of(k_ab, v12, 1), m_ab = map_of(k_ab, v12, 2), m_ac = map_of(k_ac, v12, 2);
  expect_mismatch(m_a, m_ab, "/5:b", "/2:b");
  expect_mismatch(m_ac, m_a, "/2:c", "/5:c");
  expect_mismatch(m_ac, m_ab, "/2:c", "/5:c");
  /* Into a nested list and through object fields. */
  xffi_any n1 = node_new(tree_t, a3, none), n2 = node_new(tree_t, a2, none);
  xffi_any l1 = list_of(&n1, 1), l2 = list_of(&n2, 1);
  expect_mismatch(l1, l2, "/1:0/0:a/1:2", "/1:0/0:a/4:2");
  xffi_any all[] = {a3, a2, b3, m_a, m_ab, m_ac, n1, n2, l1, l2};
  release(all, sizeof(all) / sizeof(all[0]));
}

/* Maps compare by key whatever the insertion order (the entry at the same
 * position is tried first, any other found by lookup), small and dense. */
static void test_maps_in_other_orders(void **state) {
  (void)state;
  xffi_any keys[6] = {str("a"), str("b"), str("c"), str("d"), str("e"), str("f")};
  xffi_any values[6], rkeys[6], rvalues[6];
  for (int i = 0; i < 6; ++i) {
    values[i] = xffi_any_int(i);
    rkeys[i] = keys[5 - i];
    rvalues[i] = xffi_any_int(5 - i);
  }
  for (int64_t n = 2; n <= 6; n += 4) { /* 2: a small Map; 6: a dense one */
    xffi_any m = map_of(keys, values, n), reversed = map_of(rkeys + 6 - n, rvalues + 6 - n, n);
    assert_int_equal(s_equal(m, reversed, 0), 1);
    assert_int_equal(s_hash(m, 0), s_hash(reversed, 0));
    expect_mismatch(m, reversed, NULL, NULL);
    /* One value differs: the path names its key on both sides. */
    rvalues[6 - n] = xffi_any_int(40); /* the last key's value, first in the reversed Map */
    xffi_any changed = map_of(rkeys + 6 - n, rvalues + 6 - n, n);
    rvalues[6 - n] = xffi_any_int(n - 1);
    assert_int_equal(s_equal(m, changed, 0), 0);
    expect_mismatch(m, changed, n == 2 ? "/2:b" : "/2:f", n == 2 ? "/2:b" : "/2:f");
    /* The same keys but one, in the same order: the extra key is missing on the right. */
    xffi_any other_keys[6];
    memcpy(other_keys, keys, sizeof(keys));
    other_keys[0] = str("z");
    xffi_any other = map_of(other_keys, values, n);
    assert_int_equal(s_equal(m, other, 0), 0);
    expect_mismatch(m, other, "/2:a", "/5:a");
    xffi_any all[] = {m, reversed, changed, other};
    release(all, 4);
  }
  release(keys, 6);
}

/* Leaves (plain values, texts) before and after a nested container: the
 * walks pass over runs of them in one loop, and a differing leaf past the
 * container is still named by its index or key, and changes the hash. */
static void test_leaf_runs_around_containers(void **state) {
  (void)state;
  xffi_any inner_items[] = {xffi_any_int(2)};
  xffi_any inner = array_of(inner_items, 1), long_text = str("a text past the small-string size");
  xffi_any items[] = {xffi_any_int(1), long_text, inner, xffi_any_float(3.5), str("x")};
  xffi_any l1 = list_of(items, 5);
  xffi_any same = list_of(items, 5);
  xffi_any_release(&items[4]);
  items[4] = str("y");
  xffi_any l2 = list_of(items, 5);
  assert_int_equal(s_equal(l1, same, 0), 1);
  assert_int_equal(s_hash(l1, 0), s_hash(same, 0));
  assert_int_equal(s_equal(l1, l2, 0), 0);
  assert_true(s_hash(l1, 0) != s_hash(l2, 0));
  expect_mismatch(l1, l2, "/1:4", "/1:4");
  /* In a Map: leaf values around a container value. */
  xffi_any keys[] = {str("a"), str("b"), str("c")}, v1[] = {xffi_any_int(1), l1, xffi_any_int(3)},
           v2[] = {xffi_any_int(1), same, xffi_any_int(4)};
  xffi_any m1 = map_of(keys, v1, 3), m1_same = map_of(keys, v2, 2), m2 = map_of(keys, v2, 3);
  xffi_any m1_prefix = map_of(keys, v1, 2);
  assert_int_equal(s_equal(m1_prefix, m1_same, 0), 1);
  assert_int_equal(s_hash(m1_prefix, 0), s_hash(m1_same, 0));
  assert_int_equal(s_equal(m1, m2, 0), 0);
  assert_true(s_hash(m1, 0) != s_hash(m2, 0));
  expect_mismatch(m1, m2, "/2:c", "/2:c");
  xffi_any all[] = {inner, long_text, l1, same, l2, m1, m1_same, m2, m1_prefix, items[4]};
  release(all, sizeof(all) / sizeof(all[0]));
  release(keys, 3);
}

/* ---- ffi.StructuralKey ---- */

static xffi_any call_global(const char *name, const xffi_any *args, int32_t n) {
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_global_lookup(&fn, name), XFFI_OK);
  xffi_any r = xffi_any_none();
  assert_int_equal(xffi_function_call(fn, args, n, &r), XFFI_OK);
  xffi_object_dec_ref(fn);
  return r;
}

static void test_structural_keys_key_maps_by_structure(void **state) {
  (void)state;
  xffi_any one_two[] = {xffi_any_int(1), xffi_any_int(2)}, one_three[] = {xffi_any_int(1), xffi_any_int(3)};
  xffi_any a12 = array_of(one_two, 2), b12 = array_of(one_two, 2), a13 = array_of(one_three, 2);
  xffi_any ka = call_global("ffi.StructuralKey", &a12, 1), kb = call_global("ffi.StructuralKey", &b12, 1),
           kc = call_global("ffi.StructuralKey", &a13, 1);
  /* hash_i64 at 40 (tvm-ffi's layout): the structural hash, as the wheel gives it. */
  int64_t stored;
  memcpy(&stored, (const char *)ka.v_obj + 40, sizeof(stored));
  assert_int_equal(stored, INT64_C(2823322240268045181));
  xffi_any pair[2] = {ka, kb};
  xffi_any r = call_global("ffi.StructuralKeyEqual", pair, 2);
  assert_true(r.v_int64);
  pair[1] = kc;
  r = call_global("ffi.StructuralKeyEqual", pair, 2);
  assert_false(r.v_int64);
  /* As Map keys: a structurally equal key finds the entry. */
  xffi_any keys[] = {ka, kc}, values[] = {xffi_any_int(10), xffi_any_int(20)};
  xffi_any map = map_of(keys, values, 2);
  xffi_any found = xffi_any_none();
  assert_int_equal(xffi_map_get(&found, map.v_obj, &kb), XFFI_OK);
  assert_int_equal(found.v_int64, 10);
  xffi_any all[] = {a12, b12, a13, ka, kb, kc, map};
  release(all, sizeof(all) / sizeof(all[0]));
}

/* ---- Bounds and bad input ---- */

static xffi_any wrap_in_lists(xffi_any inner, int64_t levels) {
  for (int64_t i = 0; i < levels; ++i) {
    xffi_any outer = list_of(&inner, 1);
    xffi_any_release(&inner);
    inner = outer;
  }
  return inner;
}

static void test_million_deep_values(void **state) {
  (void)state;
  xffi_any a = wrap_in_lists(xffi_any_int(1), 1000000), b = wrap_in_lists(xffi_any_int(1), 1000000),
           c = wrap_in_lists(xffi_any_int(2), 1000000);
  assert_true(s_equal(a, b, 0));
  assert_false(s_equal(a, c, 0));
  assert_int_equal(s_hash(a, 0), s_hash(b, 0));
  assert_int_not_equal(s_hash(a, 0), s_hash(c, 0));
  xffi_any deeper_a = wrap_in_lists(a, (1 << 20) + 1 - 1000000), deeper_b = wrap_in_lists(b, (1 << 20) + 1 - 1000000);
  int eq = -1;
  assert_int_equal(xffi_structural_equal(&eq, &deeper_a, &deeper_b, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "StructuralEqual: maximum stack depth (1048576) exceeded");
  int64_t h = 1;
  assert_int_equal(xffi_structural_hash(&h, &deeper_a, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "StructuralHash: maximum stack depth (1048576) exceeded");
  xffi_object_dec_ref(deeper_a.v_obj);
  xffi_object_dec_ref(deeper_b.v_obj);
  xffi_object_dec_ref(c.v_obj);
}

/* A borrowed C string or byte run hashes and compares as the String or
 * Bytes it stands for (tvm-ffi converts such views first): by content,
 * never by address. */
static void test_text_views_hash_by_content(void **state) {
  (void)state;
  const char *texts[] = {"ab", "seven77", "a text longer than a small one"};
  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); ++i) {
    char first[64], second[64];
    snprintf(first, sizeof(first), "%s", texts[i]);
    snprintf(second, sizeof(second), "%s", texts[i]);
    xffi_any owned_str = str(texts[i]), owned_bytes;
    assert_int_equal(xffi_any_from_bytes(&owned_bytes, texts[i], strlen(texts[i])), XFFI_OK);
    xffi_byte_array run_a = {first, strlen(first)}, run_b = {second, strlen(second)};
    xffi_any c_a = xffi_any_c_str(first), c_b = xffi_any_c_str(second);
    xffi_any bytes_a = xffi_any_byte_array(&run_a), bytes_b = xffi_any_byte_array(&run_b);
    for (int32_t options = 0; options < 2; ++options) {
      assert_true(s_hash(c_a, options) == s_hash(owned_str, options));
      assert_true(s_hash(c_a, options) == s_hash(c_b, options));
      assert_true(s_hash(bytes_a, options) == s_hash(owned_bytes, options));
      assert_true(s_hash(bytes_a, options) == s_hash(bytes_b, options));
    }
    assert_true(s_equal(c_a, owned_str, 0) && s_equal(owned_str, c_b, 0) && s_equal(c_a, c_b, 0));
    assert_true(s_equal(bytes_a, owned_bytes, 0) && s_equal(owned_bytes, bytes_b, 0) && s_equal(bytes_a, bytes_b, 0));
    assert_false(s_equal(c_a, bytes_a, 0));
    second[0] = 'z';
    assert_false(s_hash(c_a, 0) == s_hash(c_b, 0));
    assert_false(s_equal(c_a, c_b, 0));
    assert_false(s_equal(bytes_a, bytes_b, 0));
    xffi_any_release(&owned_str);
    xffi_any_release(&owned_bytes);
  }
}

/* Small strings' hashes are remembered per walk by payload (64 slots):
 * hundreds of distinct keys, met in other orders, still hash alike. */
static void test_many_small_keys_hash_by_content(void **state) {
  (void)state;
  enum { N = 300 };
  xffi_any keys[N], rkeys[N], values[N], rvalues[N];
  for (int i = 0; i < N; ++i) {
    char k[8];
    snprintf(k, sizeof(k), "k%d", i);
    keys[i] = rkeys[N - 1 - i] = str(k);
    values[i] = rvalues[N - 1 - i] = xffi_any_int(i);
  }
  xffi_any forward = map_of(keys, values, N), backward = map_of(rkeys, rvalues, N);
  xffi_any as_list = list_of(keys, N), as_list_too = list_of(keys, N);
  assert_true(s_hash(forward, 0) == s_hash(backward, 0));
  assert_true(s_hash(as_list, 0) == s_hash(as_list_too, 0));
  values[N / 2] = xffi_any_int(-1);
  xffi_any changed = map_of(keys, values, N);
  assert_false(s_hash(forward, 0) == s_hash(changed, 0));
  xffi_any renamed_key = str("k-1"), saved = keys[7];
  keys[7] = renamed_key;
  xffi_any renamed = list_of(keys, N);
  assert_false(s_hash(as_list, 0) == s_hash(renamed, 0));
  keys[7] = saved;
  xffi_any made[] = {forward, backward, as_list, as_list_too, changed, renamed, renamed_key};
  release(made, sizeof(made) / sizeof(made[0]));
  release(keys, N);
}

static void test_bad_input_is_a_clear_error(void **state) {
  (void)state;
  xffi_any one = xffi_any_int(1);
  int eq = -1;
  assert_int_equal(xffi_structural_equal(NULL, &one, &one, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "out");
  assert_int_equal(xffi_structural_equal(&eq, NULL, &one, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "lhs");
  assert_int_equal(xffi_structural_equal(&eq, &one, &one, 4), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_structural_equal: unknown option bits 0x4 in options");
  int64_t h = 1;
  assert_int_equal(xffi_structural_hash(&h, &one, 8), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_structural_hash: unknown option bits 0x8 in options");
  assert_int_equal(xffi_structural_hash(&h, NULL, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "value");
}

/* Asserts a raised TypeError saying one of two texts: xffi's built-in
 * function's, or (bound to the process's tvm-ffi runtime, whose function of
 * the name the lookup finds: docs/plugin-runtime.md) tvm-ffi's. */
static void assert_type_error_either(const char *xffi_text, const char *tvm_text) {
  char *kind = NULL, *message = NULL;
  take_raised_error(&kind, &message);
  assert_string_equal(kind, "TypeError");
  if (!strstr(message, xffi_text) && !strstr(message, tvm_text))
    fail_msg("expected \"%s\" or \"%s\", got \"%s\"", xffi_text, tvm_text, message);
  free(kind);
  free(message);
}

static void test_global_structural_equal(void **state) {
  (void)state;
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_global_lookup(&fn, "ffi.StructuralEqual"), XFFI_OK);
  xffi_any none = xffi_any_none();
  xffi_any x = node_new(var_t, none, str("x")), y = node_new(var_t, none, str("y"));
  xffi_any args[4] = {x, y, xffi_any_bool(0), xffi_any_bool(0)}, r = xffi_any_none();
  assert_int_equal(xffi_function_call(fn, args, 4, &r), XFFI_OK);
  assert_int_equal(r.type_index, XFFI_TYPE_BOOL);
  assert_false(r.v_int64);
  args[2] = xffi_any_bool(1);
  assert_int_equal(xffi_function_call(fn, args, 4, &r), XFFI_OK);
  assert_true(r.v_int64);
  assert_int_equal(xffi_function_call(fn, args, 2, &r), XFFI_FAIL);
  assert_type_error_either("ffi.StructuralEqual: expected 4 arguments, got 2",
                           "`ffi.StructuralEqual(0: Any, 1: Any, 2: bool, 3: bool) -> bool`. Expected 4 but got 2 "
                           "arguments");
  args[2] = str("yes please");
  assert_int_equal(xffi_function_call(fn, args, 4, &r), XFFI_FAIL);
  assert_type_error_either(
      "ffi.StructuralEqual: map_free_vars and skip_tensor_content must be bools",
      "Mismatched type on argument #2 when calling: `ffi.StructuralEqual(0: Any, 1: Any, 2: bool, 3: bool) "
      "-> bool`. Expected `bool` but got `ffi.String`");
  xffi_any all[] = {x, y, args[2]};
  release(all, 3);
  xffi_object_dec_ref(fn);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain_values_and_containers),
      cmocka_unit_test(test_plain_pairs_inside_containers),
      cmocka_unit_test(test_tree_dag_and_const_tree),
      cmocka_unit_test(test_free_variables_map_inside_definitions),
      cmocka_unit_test(test_definition_fields_open_a_region),
      cmocka_unit_test(test_fields_appended_after_first_use),
      cmocka_unit_test(test_types_without_a_kind_raise),
      cmocka_unit_test(test_hash_values_are_tvm_ffi_s),
      cmocka_unit_test(test_nested_map_hash_values_are_tvm_ffi_s),
      cmocka_unit_test(test_hash_follows_the_kinds),
      cmocka_unit_test(test_first_mismatch_paths_are_tvm_ffi_s),
      cmocka_unit_test(test_leaf_runs_around_containers),
      cmocka_unit_test(test_maps_in_other_orders),
      cmocka_unit_test(test_structural_keys_key_maps_by_structure),
      cmocka_unit_test(test_million_deep_values),
      cmocka_unit_test(test_text_views_hash_by_content),
      cmocka_unit_test(test_many_small_keys_hash_by_content),
      cmocka_unit_test(test_bad_input_is_a_clear_error),
      cmocka_unit_test(test_global_structural_equal),
  };
  return cmocka_run_group_tests(tests, setup_types, NULL);
}
