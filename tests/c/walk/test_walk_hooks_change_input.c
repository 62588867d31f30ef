/* Walks whose type hooks change what is being walked: a node whose hooks
 * (__s_hash__, __s_equal__, __ffi_hash__, __ffi_eq__, __ffi_repr__,
 * __ffi_shallow_copy__, __data_to_json__) grow a Dict holding it past a
 * rehash and clear a List holding it, met inside that Dict and List. Each
 * walk must finish with a defined result or a clear error, never read
 * freed memory (run under AddressSanitizer). */
#include <stdint.h>

#include "test_util.h"
#include "test_values.h"

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/json.h>
#include <xffi/map.h>
#include <xffi/recursive.h>
#include <xffi/reflection.h>
#include <xffi/structural.h>

static int32_t changer_t = -1;
static xffi_object *dict_to_grow, *list_to_clear; /* borrowed: the graph holds them */

static void changer_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static xffi_any changer_new(void) {
  xffi_object *o = calloc(1, sizeof(xffi_object));
  assert_non_null(o);
  xffi_object_init(o, changer_t, changer_deleter);
  return xffi_any_object(o);
}

/* Grows the Dict by 200 int keys (its table moves) and clears the List. */
static void change_graph(void) {
  if (dict_to_grow)
    for (int64_t i = 0; i < 200; ++i) {
      xffi_any k = xffi_any_int(1000 + i), v = xffi_any_int(i);
      assert_int_equal(xffi_dict_set(dict_to_grow, &k, &v), XFFI_OK);
    }
  if (list_to_clear) assert_int_equal(xffi_list_clear(list_to_clear), XFFI_OK);
  dict_to_grow = list_to_clear = NULL; /* once per walk */
}

static int hook_int(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args;
  change_graph();
  *result = xffi_any_int(5);
  return XFFI_OK;
}

static int hook_true(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args;
  change_graph();
  *result = xffi_any_bool(1);
  return XFFI_OK;
}

static int hook_text(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args;
  change_graph();
  return xffi_any_from_str(result, "changer", 7);
}

static int hook_copy(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args;
  change_graph();
  *result = changer_new();
  return XFFI_OK;
}

static int hook_data(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args;
  change_graph();
  *result = xffi_any_int(9);
  return XFFI_OK;
}

static void register_hook(const char *name, xffi_function_callback call) {
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, call, NULL, NULL), XFFI_OK);
  xffi_any v = xffi_any_object(fn);
  assert_int_equal(xffi_type_register_attr(changer_t, name, &v), XFFI_OK);
  xffi_object_dec_ref(fn);
}

static int setup_types(void **state) {
  (void)state;
  assert_int_equal(xffi_type_register(&changer_t, "test.hc.Changer", XFFI_TYPE_OBJECT), XFFI_OK);
  xffi_type_metadata m = {{NULL, 0}, NULL, (int32_t)sizeof(xffi_object), XFFI_SEQ_HASH_TREE_NODE};
  assert_int_equal(xffi_type_register_metadata(changer_t, &m), XFFI_OK);
  register_hook("__s_hash__", hook_int);
  register_hook("__s_equal__", hook_true);
  register_hook("__ffi_hash__", hook_int);
  register_hook("__ffi_eq__", hook_true);
  register_hook("__ffi_repr__", hook_text);
  register_hook("__ffi_shallow_copy__", hook_copy);
  register_hook("__data_to_json__", hook_data);
  return 0;
}

/* [Dict{"a": Changer, "b": [1, 2], "c": Changer, "d": "x"}, List[Changer, [3], Changer]]:
 * the Dict and List are the graph's only holders of what they hold. */
static xffi_any changing_graph(void) {
  xffi_any one_two[] = {xffi_any_int(1), xffi_any_int(2)}, three = xffi_any_int(3);
  xffi_any keys[] = {str("a"), str("b"), str("c"), str("d")};
  xffi_any values[] = {changer_new(), array_of(one_two, 2), changer_new(), str("x")};
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, keys, values, 4), XFFI_OK);
  xffi_any items[] = {changer_new(), array_of(&three, 1), changer_new()};
  xffi_any list = list_of(items, 3), parts[] = {xffi_any_object(dict), list};
  xffi_any root = array_of(parts, 2);
  release(keys, 4);
  release(values, 4);
  release(items, 3);
  release(parts, 2);
  return root;
}

/* The graph's Dict and List, made the hooks' targets. */
static void arm(const xffi_any *root) {
  xffi_any d = item(root, 0), l = item(root, 1);
  dict_to_grow = d.v_obj;
  list_to_clear = l.v_obj;
  xffi_any_release(&d);
  xffi_any_release(&l);
}

static void test_hashes_survive_hooks_that_change_the_graph(void **state) {
  (void)state;
  xffi_any root = changing_graph();
  int64_t h = 0;
  arm(&root);
  assert_int_equal(xffi_structural_hash(&h, &root, 0), XFFI_OK);
  xffi_any_release(&root);
  root = changing_graph();
  arm(&root);
  assert_int_equal(xffi_recursive_hash(&h, &root), XFFI_OK);
  xffi_any_release(&root);
}

static void test_equalities_survive_hooks_that_change_the_graph(void **state) {
  (void)state;
  xffi_any a = changing_graph(), b = changing_graph();
  int eq = -1;
  arm(&a);
  assert_int_equal(xffi_structural_equal(&eq, &a, &b, 0), XFFI_OK);
  arm(&b);
  assert_int_equal(xffi_recursive_equal(&eq, &a, &b), XFFI_OK);
  xffi_any all[] = {a, b};
  release(all, 2);
}

static void test_copy_print_and_graph_survive_hooks_that_change_the_graph(void **state) {
  (void)state;
  xffi_any root = changing_graph(), out = xffi_any_none();
  arm(&root);
  assert_int_equal(xffi_deep_copy(&out, &root), XFFI_OK);
  xffi_any_release(&out);
  xffi_any_release(&root);
  root = changing_graph();
  arm(&root);
  xffi_object *text = NULL;
  assert_int_equal(xffi_repr(&text, &root), XFFI_OK);
  xffi_object_dec_ref(text);
  xffi_any_release(&root);
  root = changing_graph();
  arm(&root);
  /* The Dict is written first: its hook grows it, which the writer refuses. */
  assert_int_equal(xffi_to_json(&out, &root, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "ffi.ToJSONGraph: map changed while written");
  xffi_any_release(&root);
  root = changing_graph();
  arm(&root);
  assert_int_equal(xffi_to_json_text(&text, &root, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "ffi.ToJSONGraph: map changed while written");
  /* The List alone: cleared by its first Changer's hook. */
  xffi_any_release(&root);
  root = changing_graph();
  arm(&root);
  dict_to_grow = NULL;
  xffi_any list = item(&root, 1);
  assert_int_equal(xffi_to_json(&out, &list, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "ffi.ToJSONGraph: list changed while written");
  xffi_any_release(&list);
  xffi_any_release(&out);
  xffi_any_release(&root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hashes_survive_hooks_that_change_the_graph),
      cmocka_unit_test(test_equalities_survive_hooks_that_change_the_graph),
      cmocka_unit_test(test_copy_print_and_graph_survive_hooks_that_change_the_graph),
  };
  return cmocka_run_group_tests(tests, setup_types, NULL);
}
