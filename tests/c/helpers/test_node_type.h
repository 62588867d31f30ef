/* tests/c/helpers/test_node_type.h: a reflected test node {a: Any, b: Any}, for the
 * structural tests: its layout, deleter, Any field accessors and registration
 * of one field, and making a node. Each helper fails the test on an error. */
#ifndef XFFI_TEST_NODE_TYPE_H
#define XFFI_TEST_NODE_TYPE_H

#include "test_util.h"

#include <xffi/reflection.h>

typedef struct node {
  xffi_object header;
  xffi_any a, b;
} node;

static inline void node_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) {
    xffi_any_release(&((node *)self)->a);
    xffi_any_release(&((node *)self)->b);
  }
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static inline int get_any(void *field, xffi_any *out) { return xffi_any_copy(out, (const xffi_any *)field); }
static inline int set_any(void *field, const xffi_any *value) {
  xffi_any copy;
  if (xffi_any_copy(&copy, value) != XFFI_OK) return XFFI_FAIL;
  xffi_any_release((xffi_any *)field);
  *(xffi_any *)field = copy;
  return XFFI_OK;
}

static inline void add_field(int32_t type, const char *name, int64_t offset, int64_t flags) {
  xffi_field_info f;
  memset(&f, 0, sizeof(f));
  f.name = (xffi_byte_array){name, strlen(name)};
  f.flags = flags | XFFI_FIELD_WRITABLE;
  f.size = 16;
  f.alignment = 8;
  f.offset = offset;
  f.getter = get_any;
  f.setter = (void *)(uintptr_t)set_any;
  f.default_value_or_factory = xffi_any_none();
  f.field_static_type_index = XFFI_TYPE_ANY;
  assert_int_equal(xffi_type_register_field(type, &f), XFFI_OK);
}

/* A new node (new reference) of type holding copies of a and b (borrowed). */
static inline xffi_any node_new(int32_t type, xffi_any a, xffi_any b) {
  node *n = calloc(1, sizeof(node));
  assert_non_null(n);
  xffi_object_init(&n->header, type, node_deleter);
  assert_int_equal(xffi_any_copy(&n->a, &a), XFFI_OK);
  assert_int_equal(xffi_any_copy(&n->b, &b), XFFI_OK);
  return xffi_any_object(&n->header);
}

#endif /* XFFI_TEST_NODE_TYPE_H */
