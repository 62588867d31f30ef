/* Structural equality and hashing over borrowed frames (c/structural_equal.c,
 * c/structural_hash.c; fields read by c/structural_plan.h): fields stored as xffi's storage getters imply
 * (an Any, an object pointer, an int) are read in place, no reference is
 * written, and a __s_hash__/__s_equal__ hook that drops part of the graph
 * being walked does not leave the walk reading freed memory (the open
 * frames are pinned before a hook runs; run under AddressSanitizer). */
#include <stdint.h>

#include "test_util.h"
#include "test_values.h"

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/reflection.h>
#include <xffi/structural.h>

/* A reflected node stored as tvm-ffi lays fields out: an Any, an object
 * pointer (NULL is None) and an int. */
typedef struct stored_node {
  xffi_object header;
  xffi_any any;
  xffi_object *obj;
  int64_t n;
} stored_node;

static void stored_node_deleter(void *self, int flags) {
  stored_node *s = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    xffi_any_release(&s->any);
    xffi_object_dec_ref(s->obj);
  }
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static int32_t stored_t = -1, dropper_t = -1;

static void dropper_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

/* A node (new reference) holding copies of any and obj (borrowed; NULL: none). */
static xffi_any stored_new(xffi_any any, xffi_object *obj, int64_t n) {
  stored_node *s = calloc(1, sizeof(*s));
  assert_non_null(s);
  xffi_object_init(&s->header, stored_t, stored_node_deleter);
  assert_int_equal(xffi_any_copy(&s->any, &any), XFFI_OK);
  if (obj) xffi_object_inc_ref(obj);
  s->obj = obj;
  s->n = n;
  return xffi_any_object(&s->header);
}

/* The Lists the hooks clear (borrowed; the graph holds them). */
static xffi_object *to_clear[2];

static void clear_lists(void) {
  for (int i = 0; i < 2; ++i)
    if (to_clear[i]) assert_int_equal(xffi_list_clear(to_clear[i]), XFFI_OK);
}

/* __s_hash__(obj, init, fn) -> init, after clearing the Lists. */
static int dropping_hash(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  assert_int_equal(num_args, 3);
  assert_int_equal(args[0].type_index, dropper_t); /* still alive: the walk holds it for the call */
  clear_lists();
  *result = args[1];
  return XFFI_OK;
}

/* __s_equal__(lhs, rhs, fn) -> true, after clearing the Lists. */
static int dropping_equal(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  assert_int_equal(num_args, 3);
  assert_int_equal(args[0].type_index, dropper_t);
  assert_int_equal(args[1].type_index, dropper_t);
  clear_lists();
  *result = xffi_any_bool(1);
  return XFFI_OK;
}

static void register_hook(int32_t type, const char *name, xffi_function_callback call) {
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, call, NULL, NULL), XFFI_OK);
  xffi_any v = xffi_any_object(fn);
  assert_int_equal(xffi_type_register_attr(type, name, &v), XFFI_OK);
  xffi_object_dec_ref(fn);
}

static int setup_types(void **state) {
  (void)state;
  const xffi_reflect_field_spec fields[] = {
      XFFI_FIELD_SPEC(stored_node, any, XFFI_TYPE_ANY, XFFI_FIELD_WRITABLE, NULL),
      XFFI_FIELD_SPEC(stored_node, obj, XFFI_TYPE_OBJECT, XFFI_FIELD_WRITABLE, NULL),
      XFFI_FIELD_SPEC(stored_node, n, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL),
  };
  xffi_type_metadata m = {{NULL, 0}, NULL, (int32_t)sizeof(stored_node), XFFI_SEQ_HASH_TREE_NODE};
  assert_int_equal(xffi_type_register(&stored_t, "test.sb.Stored", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(xffi_reflect_fields(stored_t, fields, 3), XFFI_OK);
  assert_int_equal(xffi_type_register_metadata(stored_t, &m), XFFI_OK);
  assert_int_equal(xffi_type_register(&dropper_t, "test.sb.Dropper", XFFI_TYPE_OBJECT), XFFI_OK);
  xffi_type_metadata d = {{NULL, 0}, NULL, (int32_t)sizeof(xffi_object), XFFI_SEQ_HASH_TREE_NODE};
  assert_int_equal(xffi_type_register_metadata(dropper_t, &d), XFFI_OK);
  register_hook(dropper_t, "__s_hash__", dropping_hash);
  register_hook(dropper_t, "__s_equal__", dropping_equal);
  return 0;
}

static uint32_t strong_count(const xffi_object *obj) { return (uint32_t)(obj->ref_counts & 0xffffffffu); }

static void test_stored_fields_read_in_place(void **state) {
  (void)state;
  xffi_any one = xffi_any_int(1), two = xffi_any_int(2);
  xffi_any inner = array_of(&one, 1), other = array_of(&two, 1);
  xffi_any with_obj = stored_new(one, inner.v_obj, 7), with_obj_too = stored_new(one, inner.v_obj, 7);
  xffi_any with_other = stored_new(one, other.v_obj, 7), without_obj = stored_new(one, NULL, 7);
  xffi_any with_none_any = stored_new(xffi_any_none(), NULL, 7), other_n = stored_new(one, inner.v_obj, 8);
  uint32_t inner_count = strong_count(inner.v_obj), node_count = strong_count(with_obj.v_obj);
  int eq = -1;
  int64_t h1 = 0, h2 = 0;
  assert_int_equal(xffi_structural_equal(&eq, &with_obj, &with_obj_too, 0), XFFI_OK);
  assert_true(eq);
  assert_int_equal(xffi_structural_hash(&h1, &with_obj, 0), XFFI_OK);
  assert_int_equal(xffi_structural_hash(&h2, &with_obj_too, 0), XFFI_OK);
  assert_true(h1 == h2);
  const xffi_any *differing[] = {&with_other, &without_obj, &with_none_any, &other_n};
  for (size_t i = 0; i < 4; ++i) {
    assert_int_equal(xffi_structural_equal(&eq, &with_obj, differing[i], 0), XFFI_OK);
    assert_false(eq);
    assert_int_equal(xffi_structural_hash(&h2, differing[i], 0), XFFI_OK);
    assert_false(h1 == h2);
  }
  /* A NULL object field is None: equal to a None Any in the same place. */
  xffi_any none_obj = stored_new(one, NULL, 7);
  assert_int_equal(xffi_structural_equal(&eq, &without_obj, &none_obj, 0), XFFI_OK);
  assert_true(eq);
  /* The walks wrote no reference count and left none behind. */
  assert_int_equal(strong_count(inner.v_obj), inner_count);
  assert_int_equal(strong_count(with_obj.v_obj), node_count);
  xffi_any all[] = {inner, other, with_obj, with_obj_too, with_other, without_obj, with_none_any, other_n, none_obj};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) xffi_any_release(&all[i]);
}

/* [List[Stored{any: Dropper, obj: [5], n: 3}]]: the Dropper's hook clears
 * the List, so the node it is a field of is freed unless the walk pinned
 * it; the walk then still reads the node's obj and n. Returns the root. */
static xffi_any dropping_graph(xffi_object **list) {
  xffi_object *dropper = calloc(1, sizeof(xffi_object));
  assert_non_null(dropper);
  xffi_object_init(dropper, dropper_t, dropper_deleter);
  xffi_any five = xffi_any_int(5);
  xffi_any tail = array_of(&five, 1);
  xffi_any node = stored_new(xffi_any_object(dropper), tail.v_obj, 3);
  xffi_object_dec_ref(dropper);
  xffi_any_release(&tail);
  assert_int_equal(xffi_list_new(list, &node, 1), XFFI_OK);
  xffi_any_release(&node);
  xffi_any in_list = xffi_any_object(*list);
  xffi_any root = array_of(&in_list, 1);
  xffi_object_dec_ref(*list);
  return root;
}

static void test_hooks_that_drop_the_graph(void **state) {
  (void)state;
  xffi_any a = dropping_graph(&to_clear[0]);
  int64_t h = 0;
  assert_int_equal(xffi_structural_hash(&h, &a, 0), XFFI_OK);
  const xffi_any *items = NULL;
  int64_t size = -1;
  assert_int_equal(xffi_array_items(&items, &size, to_clear[0]), XFFI_OK);
  assert_int_equal(size, 0);
  xffi_any_release(&a);
  a = dropping_graph(&to_clear[0]);
  xffi_any b = dropping_graph(&to_clear[1]);
  int eq = 0;
  assert_int_equal(xffi_structural_equal(&eq, &a, &b, 0), XFFI_OK);
  assert_true(eq);
  to_clear[0] = to_clear[1] = NULL;
  xffi_any_release(&a);
  xffi_any_release(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stored_fields_read_in_place),
      cmocka_unit_test(test_hooks_that_drop_the_graph),
  };
  return cmocka_run_group_tests(tests, setup_types, NULL);
}
