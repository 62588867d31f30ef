/* 10^6-deep chains of reflected objects (each link's field holds the next):
 * structural equality and hashing, the first structural mismatch, deep copy
 * and recursive equality and hashing all walk them on a heap stack, the way
 * the container tests check for Lists. A recursion on the C stack per level
 * overflows it long before 10^6 links. */
#include "test_util.h"

#include <xffi/recursive.h>
#include <xffi/reflection.h>
#include <xffi/structural.h>

#include "lib/reflection/runtime_types.h" /* the AccessPath and AccessStep layouts */

enum { DEPTH = 1000000 };

typedef struct link {
  xffi_object header;
  xffi_any next; /* None at the end of a chain */
  int64_t value;
} link;

static int32_t link_type = -1;

/* Releases the next link inside xffi's release bracket, so dropping a deep
 * chain uses bounded stack (a link reaching zero meanwhile is parked). */
static void link_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) {
    if (xffi_object_release_begin(self, flags, link_deleter)) return; /* parked: called again */
    xffi_any_release(&((link *)self)->next);
    xffi_object_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

/* A new link (new reference) holding next (stolen) and value. */
static xffi_any link_new(xffi_any next, int64_t value) {
  link *l = calloc(1, sizeof *l);
  assert_non_null(l);
  xffi_object_init(&l->header, link_type, link_deleter);
  l->next = next;
  l->value = value;
  return xffi_any_object(&l->header);
}

/* __ffi_shallow_copy__, which DeepCopy needs: a new link with the same fields. */
static int link_shallow_copy(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  if (num_args != 1 || args[0].type_index != link_type)
    return xffi_error_raise(XFFI_KIND_TYPE, "link.__ffi_shallow_copy__: expected one link");
  const link *original = (const link *)args[0].v_obj;
  xffi_any next;
  if (xffi_any_copy(&next, &original->next) != XFFI_OK) return XFFI_FAIL;
  *result = link_new(next, original->value);
  return XFFI_OK;
}

static int setup_link_type(void **state) {
  (void)state;
  assert_int_equal(xffi_type_register(&link_type, "test.chain.Link", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_TYPE(link_type, link, NULL, XFFI_SEQ_HASH_TREE_NODE, "a chain link"), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_FIELD(link_type, link, next, XFFI_TYPE_ANY, XFFI_FIELD_WRITABLE, "the next link"),
                   XFFI_OK);
  assert_int_equal(XFFI_REFLECT_FIELD(link_type, link, value, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, "a payload"),
                   XFFI_OK);
  xffi_object *copy = NULL;
  assert_int_equal(xffi_function_new(&copy, link_shallow_copy, NULL, NULL), XFFI_OK);
  xffi_any copy_any = xffi_any_object(copy);
  assert_int_equal(xffi_type_register_attr(link_type, "__ffi_shallow_copy__", &copy_any), XFFI_OK);
  xffi_object_dec_ref(copy);
  return 0;
}

/* A chain of depth links; the innermost carries last, the others 1. */
static xffi_any chain(int depth, int64_t last) {
  xffi_any head = xffi_any_none();
  for (int i = 0; i < depth; ++i) head = link_new(head, i == 0 ? last : 1);
  return head;
}

static void test_structural_equal_and_hash_of_a_deep_chain(void **state) {
  (void)state;
  xffi_any a = chain(DEPTH, 7), b = chain(DEPTH, 7), c = chain(DEPTH, 8);
  int eq = -1;
  assert_int_equal(xffi_structural_equal(&eq, &a, &b, 0), XFFI_OK);
  assert_int_equal(eq, 1);
  assert_int_equal(xffi_structural_equal(&eq, &a, &c, 0), XFFI_OK);
  assert_int_equal(eq, 0);
  int64_t ha = 0, hb = 0, hc = 0;
  assert_int_equal(xffi_structural_hash(&ha, &a, 0), XFFI_OK);
  assert_int_equal(xffi_structural_hash(&hb, &b, 0), XFFI_OK);
  assert_int_equal(xffi_structural_hash(&hc, &c, 0), XFFI_OK);
  assert_true(ha == hb);
  assert_true(ha != hc);
  xffi_any_release(&a);
  xffi_any_release(&b);
  xffi_any_release(&c);
}

/* The mismatch is at the innermost link: each side's path has DEPTH steps
 * into "next" and ends at the field "value". */
static void test_first_mismatch_of_a_deep_chain(void **state) {
  (void)state;
  xffi_any a = chain(DEPTH, 7), c = chain(DEPTH, 8), paths = xffi_any_none();
  assert_int_equal(xffi_structural_first_mismatch(&paths, &a, &c, 0), XFFI_OK);
  assert_int_equal(paths.type_index, XFFI_TYPE_ARRAY);
  const xffi_any *sides = NULL;
  int64_t n = -1;
  assert_int_equal(xffi_array_items(&sides, &n, paths.v_obj), XFFI_OK);
  assert_int_equal(n, 2);
  for (int i = 0; i < 2; ++i) {
    const access_path *path = (const access_path *)sides[i].v_obj;
    assert_int_equal(path->depth, DEPTH); /* DEPTH - 1 steps into "next", then "value" */
    const access_step *last = (const access_step *)path->step;
    assert_int_equal(last->kind, XFFI_ACCESS_ATTR);
    xffi_byte_array name;
    assert_int_equal(xffi_any_to_str(&name, &last->key), XFFI_OK);
    assert_int_equal(name.size, 5);
    assert_memory_equal(name.data, "value", 5);
  }
  xffi_any_release(&paths);
  assert_int_equal(xffi_structural_first_mismatch(&paths, &a, &a, 0), XFFI_OK);
  assert_int_equal(paths.type_index, XFFI_TYPE_NONE);
  xffi_any_release(&a);
  xffi_any_release(&c);
}

static void test_deep_copy_and_recursive_walks_of_a_deep_chain(void **state) {
  (void)state;
  xffi_any a = chain(DEPTH, 7), copy = xffi_any_none();
  assert_int_equal(xffi_deep_copy(&copy, &a), XFFI_OK);
  assert_int_equal(copy.type_index, link_type);
  assert_ptr_not_equal(copy.v_obj, a.v_obj);
  int eq = -1;
  assert_int_equal(xffi_recursive_equal(&eq, &a, &copy), XFFI_OK);
  assert_int_equal(eq, 1);
  assert_int_equal(xffi_structural_equal(&eq, &a, &copy, 0), XFFI_OK);
  assert_int_equal(eq, 1);
  int64_t ha = 0, hcopy = 0;
  assert_int_equal(xffi_recursive_hash(&ha, &a), XFFI_OK);
  assert_int_equal(xffi_recursive_hash(&hcopy, &copy), XFFI_OK);
  assert_true(ha == hcopy);
  int order = 2;
  xffi_any c = chain(DEPTH, 8);
  assert_int_equal(xffi_recursive_compare(&order, &a, &c), XFFI_OK);
  assert_int_equal(order, -1);
  xffi_any_release(&a);
  xffi_any_release(&copy);
  xffi_any_release(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_structural_equal_and_hash_of_a_deep_chain),
      cmocka_unit_test(test_first_mismatch_of_a_deep_chain),
      cmocka_unit_test(test_deep_copy_and_recursive_walks_of_a_deep_chain),
  };
  return cmocka_run_group_tests(tests, setup_link_type, NULL);
}
