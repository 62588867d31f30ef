/* Structural hashing's memo (c/structural_hash.c): only the root of a walk
 * and objects whose strong count exceeds 1 are memoised, since an object
 * held once is met once. These tests pin that the rule changes no hash: a
 * graph of DAG nodes, free variables and object Map keys, stored in place
 * (XFFI_FIELD_SPEC fields: read as views, so counts are not raised by the
 * walk), hashes the same whether its nodes are held once or also held
 * elsewhere (then every one is memoised); and a hook that hashes one
 * temporary twice through its callback gets one number (a walk's root is
 * memoised whatever its count). */
#include <stdint.h>

#include "test_util.h"
#include "test_values.h"

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/reflection.h>
#include <xffi/structural.h>

typedef struct pair_node {
  xffi_object header;
  xffi_any a, b;
} pair_node;

static void pair_node_deleter(void *self, int flags) {
  pair_node *n = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    xffi_any_release(&n->a);
    xffi_any_release(&n->b);
  }
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static int32_t dag_t, var_t, def_t, hooked_t;

static int32_t pair_type(const char *key, int32_t seq_kind, int64_t a_flags) {
  const xffi_reflect_field_spec fields[] = {
      XFFI_FIELD_SPEC(pair_node, a, XFFI_TYPE_ANY, XFFI_FIELD_WRITABLE | a_flags, NULL),
      XFFI_FIELD_SPEC(pair_node, b, XFFI_TYPE_ANY, XFFI_FIELD_WRITABLE, NULL),
  };
  int32_t t = -1;
  xffi_type_metadata m = {{NULL, 0}, NULL, (int32_t)sizeof(pair_node), seq_kind};
  assert_int_equal(xffi_type_register(&t, key, XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(xffi_reflect_fields(t, fields, 2), XFFI_OK);
  assert_int_equal(xffi_type_register_metadata(t, &m), XFFI_OK);
  return t;
}

/* A new node (new reference) of type; a and b are stolen. */
static xffi_any pair_new(int32_t type, xffi_any a, xffi_any b) {
  pair_node *n = calloc(1, sizeof(*n));
  assert_non_null(n);
  xffi_object_init(&n->header, type, pair_node_deleter);
  n->a = a;
  n->b = b;
  return xffi_any_object(&n->header);
}

static int64_t s_hash(xffi_any v) {
  int64_t h = 0;
  assert_int_equal(xffi_structural_hash(&h, &v, 0), XFFI_OK);
  return h;
}

/* Holds one more reference to every object below v (borrowed) and appends
 * each to held (owned there), so that every count exceeds 1. */
static void hold_all(xffi_any v, xffi_object **held, size_t *n, size_t cap) {
  if (v.type_index < XFFI_TYPE_STATIC_OBJECT_BEGIN) return;
  assert_true(*n < cap);
  xffi_object_inc_ref(v.v_obj);
  held[(*n)++] = v.v_obj;
  if (v.type_index == dag_t || v.type_index == var_t || v.type_index == def_t) {
    const pair_node *p = (const pair_node *)(const void *)v.v_obj;
    hold_all(p->a, held, n, cap);
    hold_all(p->b, held, n, cap);
  } else if (v.type_index == XFFI_TYPE_ARRAY) {
    const xffi_any *items = NULL;
    int64_t size = 0;
    assert_int_equal(xffi_array_items(&items, &size, v.v_obj), XFFI_OK);
    for (int64_t i = 0; i < size; ++i) hold_all(items[i], held, n, cap);
  }
}

/* The hash of root, then again with every object below it held twice. */
static void expect_same_hash_when_held(xffi_any root) {
  int64_t once = s_hash(root);
  xffi_object *held[64];
  size_t n = 0;
  hold_all(root, held, &n, 64);
  assert_int_equal(s_hash(root), once);
  for (size_t i = 0; i < n; ++i) xffi_object_dec_ref(held[i]);
  assert_int_equal(s_hash(root), once);
}

static int setup_types(void **state) {
  (void)state;
  dag_t = pair_type("test.smemo.DAG", XFFI_SEQ_HASH_DAG_NODE, 0);
  var_t = pair_type("test.smemo.Var", XFFI_SEQ_HASH_FREE_VAR, XFFI_FIELD_SEQ_HASH_IGNORE);
  def_t = pair_type("test.smemo.Def", XFFI_SEQ_HASH_TREE_NODE, XFFI_FIELD_SEQ_HASH_DEF_PATTERN);
  hooked_t = pair_type("test.smemo.Hooked", XFFI_SEQ_HASH_TREE_NODE, 0);
  return 0;
}

/* DAG nodes are numbered in order of hashing: one met twice keeps its first
 * number, and nodes held once (count 1) number the same as when held twice. */
static void test_dag_nodes_held_once_hash_as_held_twice(void **state) {
  (void)state;
  xffi_any none = xffi_any_none();
  xffi_any leaf = pair_new(dag_t, xffi_any_int(1), none);   /* shared: count 2 below */
  xffi_any single = pair_new(dag_t, xffi_any_int(2), none); /* held once */
  xffi_any deep = pair_new(dag_t, single, xffi_any_int(3)); /* held once, holds single */
  xffi_object *leaf_again = leaf.v_obj;
  xffi_object_inc_ref(leaf_again);
  xffi_any items[] = {leaf, deep};
  xffi_any arr = array_of(items, 2);
  xffi_any_release(&leaf);
  xffi_any_release(&deep);
  xffi_any root = pair_new(dag_t, arr, xffi_any_object(leaf_again));
  /* The shared leaf counts once: the graph differs from one with two equal leaves. */
  xffi_any other_leaf = pair_new(dag_t, xffi_any_int(1), none);
  xffi_any other_single = pair_new(dag_t, xffi_any_int(2), none);
  xffi_any other_items[] = {pair_new(dag_t, xffi_any_int(1), none), pair_new(dag_t, other_single, xffi_any_int(3))};
  xffi_any split = pair_new(dag_t, array_of(other_items, 2), other_leaf);
  release(other_items, 2);
  assert_int_not_equal(s_hash(root), s_hash(split));
  expect_same_hash_when_held(root);
  expect_same_hash_when_held(split);
  xffi_any_release(&root);
  xffi_any_release(&split);
}

/* Free variables inside a definition are numbered in order of definition;
 * one used twice (count 2) keeps its number, one used once is numbered once. */
static void test_free_variables_held_once_hash_as_held_twice(void **state) {
  (void)state;
  xffi_any none = xffi_any_none();
  xffi_any x = pair_new(var_t, none, str("x")), y = pair_new(var_t, none, str("y"));
  xffi_any params[] = {x, y};                             /* copied: x is also stolen by def below */
  xffi_any def = pair_new(def_t, array_of(params, 2), x); /* x: twice; y: once */
  xffi_any_release(&y);
  expect_same_hash_when_held(def);
  /* Which parameter the body uses tells the hashes apart. */
  xffi_any u = pair_new(var_t, none, str("u")), v = pair_new(var_t, none, str("v"));
  xffi_any other_params[] = {u, v};
  xffi_any other = pair_new(def_t, array_of(other_params, 2), v);
  xffi_any_release(&u);
  assert_int_not_equal(s_hash(def), s_hash(other));
  expect_same_hash_when_held(other);
  xffi_any_release(&def);
  xffi_any_release(&other);
}

/* A Map key that is an object counts when it was hashed before it is met
 * (a second edge: count 2), and is left out when the Map holds it alone,
 * whether or not something outside the graph holds it too. */
static void test_object_map_keys_held_once_hash_as_held_twice(void **state) {
  (void)state;
  xffi_any none = xffi_any_none();
  xffi_any seen_key = pair_new(dag_t, xffi_any_int(5), none), lone_key = pair_new(dag_t, xffi_any_int(6), none);
  xffi_any keys[] = {seen_key, lone_key}, values[] = {xffi_any_int(1), xffi_any_int(2)};
  xffi_any map = map_of(keys, values, 2);
  xffi_any_release(&lone_key);
  xffi_any items[] = {seen_key, map};
  xffi_any root = array_of(items, 2);
  xffi_any_release(&seen_key);
  xffi_any_release(&map);
  int64_t with_lone = s_hash(root);
  expect_same_hash_when_held(root);
  /* The lone key's entry is left out: the same Map without it (but of the same size) hashes alike. */
  xffi_any lone_key2 = pair_new(dag_t, xffi_any_int(7), none);
  xffi_any seen = item(&root, 0);
  xffi_any keys2[] = {seen, lone_key2}, values2[] = {xffi_any_int(1), xffi_any_int(99)};
  xffi_any map2 = map_of(keys2, values2, 2);
  xffi_any items2[] = {seen, map2};
  xffi_any root2 = array_of(items2, 2);
  assert_int_equal(s_hash(root2), with_lone);
  xffi_any all[] = {root, lone_key2, seen, map2, root2};
  release(all, 5);
}

/* __s_hash__ of hooked_t: hashes a new DAG node (its count 1, held by this
 * hook alone) twice through the callback; the result packs both numbers'
 * equality so the test can see it: init, or init + 1 when they differ. */
static int hash_temporary_twice(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  assert_int_equal(num_args, 3);
  xffi_any temp = pair_new(dag_t, xffi_any_int(42), xffi_any_none());
  xffi_any call_args[3] = {temp, xffi_any_int(0), xffi_any_int(0)};
  xffi_any first = xffi_any_none(), second = xffi_any_none();
  assert_int_equal(xffi_function_call(args[2].v_obj, call_args, 3, &first), XFFI_OK);
  assert_int_equal(xffi_function_call(args[2].v_obj, call_args, 3, &second), XFFI_OK);
  xffi_any_release(&temp);
  *result = xffi_any_int(args[1].v_int64 + (first.v_int64 != second.v_int64));
  return XFFI_OK;
}

static void test_a_hook_hashing_a_temporary_twice_gets_one_number(void **state) {
  (void)state;
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, hash_temporary_twice, NULL, NULL), XFFI_OK);
  xffi_any hook = xffi_any_object(fn);
  assert_int_equal(xffi_type_register_attr(hooked_t, "__s_hash__", &hook), XFFI_OK);
  xffi_object_dec_ref(fn);
  xffi_any obj = pair_new(hooked_t, xffi_any_none(), xffi_any_none());
  const xffi_type_info *info = NULL;
  assert_int_equal(xffi_type_info_get(&info, hooked_t), XFFI_OK);
  assert_int_equal((uint64_t)s_hash(obj), info->type_key_hash);
  xffi_any_release(&obj);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dag_nodes_held_once_hash_as_held_twice),
      cmocka_unit_test(test_free_variables_held_once_hash_as_held_twice),
      cmocka_unit_test(test_object_map_keys_held_once_hash_as_held_twice),
      cmocka_unit_test(test_a_hook_hashing_a_temporary_twice_gets_one_number),
  };
  return cmocka_run_group_tests(tests, setup_types, NULL);
}
