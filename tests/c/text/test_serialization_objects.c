/* tests/c/text/test_serialization_objects.c: reflected objects in tvm-ffi's JSON
 * graph (c/serialization_object.c and the object paths of
 * c/serialization_write.c and c/serialization_read.c): field records in
 * order with POD fields inline, creators and defaults, __data_to_json__ /
 * __data_from_json__, sharing, 10^6-deep object chains on a heap stack, and
 * hostile graphs (each error names the node, its type and the field, and
 * leaves no object behind). */
#include <xffi/sys/object.h>
#include <xffi/xffi.h>

#include "reflection_sensor.h"
#include "test_globals_util.h"

/* ---- Helpers ---- */

/* The graph text of value (borrowed), as ffi.ToJSONGraphString writes it. */
static xffi_any graph_text(const xffi_any *value) {
  xffi_any args[2] = {*value, xffi_any_none()};
  return call_builtin_ok("ffi.ToJSONGraphString", args, 2);
}

static void check_graph(const xffi_any *value, const char *expected) {
  xffi_any text = graph_text(value);
  xffi_byte_array s;
  assert_int_equal(xffi_any_to_str(&s, &text), XFFI_OK);
  if (s.size != strlen(expected) || memcmp(s.data, expected, s.size) != 0)
    fail_msg("graph: expected\n[%s], got\n[%.*s]", expected, (int)s.size, s.data);
  xffi_any_release(&text);
}

/* The value graph text stands for (a new reference). */
static xffi_any read_text(const char *text) {
  xffi_any arg = xffi_any_c_str(text);
  return call_builtin_ok("ffi.FromJSONGraphString", &arg, 1);
}

/* Reading text fails with kind and a message containing fragment. */
static void check_read_error(const char *text, const char *kind, const char *fragment) {
  xffi_any arg = xffi_any_c_str(text), result = xffi_any_none();
  if (call_builtin("ffi.FromJSONGraphString", &arg, 1, &result) != XFFI_FAIL) fail_msg("[%s] was read", text);
  check_raised(kind, fragment, 0, __FILE__, __LINE__);
}

/* ---- A chain link: test.graph.Link {value: int, next: Object} ---- */

typedef struct link {
  xffi_object header;
  int64_t value;
  xffi_object *next; /* owned; NULL ends the chain */
} link;

static int32_t link_index = -1;

static void link_deleter(void *self, int flags) {
  link *l = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    /* A 10^6-long chain is released with bounded stack. */
    if (xffi_object_release_begin(&l->header, flags, link_deleter)) return;
    if (l->next) xffi_object_dec_ref(l->next);
    l->next = NULL;
    xffi_object_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static int link_create(void **result) {
  link *l = calloc(1, sizeof(link));
  if (!l) return xffi_error_raise_out_of_memory();
  xffi_object_init(&l->header, link_index, link_deleter);
  *result = l;
  return XFFI_OK;
}

static void register_link(void) {
  if (link_index >= 0) return;
  assert_int_equal(xffi_type_register(&link_index, "test.graph.Link", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_TYPE(link_index, link, link_create, XFFI_SEQ_HASH_TREE_NODE, NULL), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_FIELD(link_index, link, value, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_FIELD(link_index, link, next, XFFI_TYPE_OBJECT, XFFI_FIELD_WRITABLE, NULL), XFFI_OK);
}

/* A chain of n links, values 0..n-1 from the head (a new reference). */
static xffi_any chain_new(int64_t n) {
  register_link();
  xffi_object *next = NULL;
  for (int64_t i = n - 1; i >= 0; --i) {
    void *made = NULL;
    assert_int_equal(link_create(&made), XFFI_OK);
    link *l = made;
    l->value = i;
    l->next = next; /* the reference moves in */
    next = &l->header;
  }
  return xffi_any_object(next);
}

/* ---- A type with hooks and no creator: test.graph.Tag {id: int} ---- */

typedef struct tag {
  xffi_object header;
  int64_t id;
} tag;

static int32_t tag_index = -1;

static void tag_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static xffi_any tag_new(int64_t id) {
  tag *t = calloc(1, sizeof(tag));
  assert_non_null(t);
  xffi_object_init(&t->header, tag_index, tag_deleter);
  t->id = id;
  return xffi_any_object(&t->header);
}

/* __data_to_json__: a tag writes as ["tag", id]. */
static int tag_to_json(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  assert_int_equal(num_args, 1);
  const tag *t = (const tag *)(const void *)args[0].v_obj;
  xffi_any items[2] = {xffi_any_c_str("tag"), xffi_any_int(t->id)};
  xffi_object *array;
  if (xffi_array_new(&array, items, 2) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(array);
  return XFFI_OK;
}

/* __data_from_json__: ["tag", id] back to a tag; anything else a ValueError. */
static int tag_from_json(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  const xffi_any *items;
  int64_t n = 0;
  if (num_args != 1 || args[0].type_index != XFFI_TYPE_ARRAY ||
      xffi_array_items(&items, &n, args[0].v_obj) != XFFI_OK || n != 2 || items[1].type_index != XFFI_TYPE_INT)
    return xffi_error_raise(XFFI_KIND_VALUE, "a tag reads from [\"tag\", id]");
  *result = tag_new(items[1].v_int64);
  return XFFI_OK;
}

static void set_attr_function(int32_t type, const char *name, xffi_function_callback callback) {
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, callback, NULL, NULL), XFFI_OK);
  xffi_any v = xffi_any_object(fn);
  assert_int_equal(xffi_type_register_attr(type, name, &v), XFFI_OK);
  xffi_object_dec_ref(fn);
}

static void register_tag(void) {
  if (tag_index >= 0) return;
  assert_int_equal(xffi_type_register(&tag_index, "test.graph.Tag", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_TYPE(tag_index, tag, NULL, XFFI_SEQ_HASH_TREE_NODE, NULL), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_FIELD(tag_index, tag, id, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL), XFFI_OK);
}

/* ---- Writing ---- */

static void test_objects_write_fields_in_order_with_pods_inline(void **state) {
  (void)state;
  xffi_any p = probe_new(3, 0.5, "a label long enough for the heap", 7);
  /* Ancestors' fields first; int and float inline, the String a node. */
  check_graph(&p,
              "{\"root_index\":1,\"nodes\":[{\"type\":\"ffi.String\",\"data\":\"a label long enough for the heap\"},"
              "{\"type\":\"test.reflect.Probe\",\"data\":{\"count\":3,\"ratio\":0.5,\"label\":0,\"depth\":7}}]}");
  /* An object reached twice is one node; its children are numbered first. */
  xffi_any items[3] = {p, p, xffi_any_int(7)};
  xffi_object *array;
  assert_int_equal(xffi_array_new(&array, items, 3), XFFI_OK);
  xffi_any array_view = xffi_any_object(array);
  check_graph(&array_view,
              "{\"root_index\":3,\"nodes\":[{\"type\":\"ffi.String\",\"data\":\"a label long enough for the heap\"},"
              "{\"type\":\"test.reflect.Probe\",\"data\":{\"count\":3,\"ratio\":0.5,\"label\":0,\"depth\":7}},"
              "{\"type\":\"int\",\"data\":7},{\"type\":\"ffi.Array\",\"data\":[1,1,2]}]}");
  xffi_object_dec_ref(array);
  xffi_any_release(&p);
}

static void test_objects_read_back_with_sharing(void **state) {
  (void)state;
  xffi_any p = probe_new(-5, 2.25, "x", 1LL << 40);
  xffi_any items[2] = {p, p};
  xffi_object *array;
  assert_int_equal(xffi_array_new(&array, items, 2), XFFI_OK);
  xffi_any array_view = xffi_any_object(array), graph = xffi_any_none(), back = xffi_any_none();
  assert_int_equal(xffi_to_json(&graph, &array_view, NULL), XFFI_OK);
  assert_int_equal(xffi_from_json(&back, &graph), XFFI_OK);
  const xffi_any *got;
  int64_t n;
  assert_int_equal(xffi_array_items(&got, &n, back.v_obj), XFFI_OK);
  assert_int_equal(n, 2);
  assert_int_equal(got[0].type_index, probe_index);
  assert_ptr_equal(got[0].v_obj, got[1].v_obj); /* shared stays shared */
  assert_ptr_not_equal(got[0].v_obj, p.v_obj);  /* a new object */
  const probe *q = (const probe *)(const void *)got[0].v_obj;
  assert_int_equal(q->base.count, -5);
  assert_true(q->base.ratio == 2.25);
  assert_int_equal(q->depth, 1LL << 40);
  xffi_byte_array label;
  xffi_any label_view = xffi_any_object(q->base.label);
  assert_int_equal(xffi_any_to_str(&label, &label_view), XFFI_OK);
  assert_int_equal(label.size, 1);
  assert_int_equal(label.data[0], 'x');
  int equal = 0;
  assert_int_equal(xffi_structural_equal(&equal, &array_view, &back, 0), XFFI_OK);
  assert_true(equal);
  xffi_any_release(&back);
  xffi_any_release(&graph);
  xffi_object_dec_ref(array);
  xffi_any_release(&p);
}

static void test_absent_fields_take_their_defaults(void **state) {
  (void)state;
  register_sensor_types();
  xffi_any v = read_text(
      "{\"root_index\":0,\"nodes\":[{\"type\":\"test.reflect.Probe\",\"data\":{\"count\":4,"
      "\"ratio\":1}}]}");
  assert_int_equal(v.type_index, probe_index);
  const probe *q = (const probe *)(const void *)v.v_obj;
  assert_int_equal(q->base.count, 4);
  assert_true(q->base.ratio == 1.0); /* an int where a float goes reads as a float, as in tvm-ffi */
  assert_int_equal(q->depth, 3);     /* the default */
  xffi_byte_array label;
  xffi_any label_view = xffi_any_object(q->base.label);
  assert_int_equal(xffi_any_to_str(&label, &label_view), XFFI_OK);
  assert_int_equal(label.size, 4);
  assert_memory_equal(label.data, "idle", 4);
  xffi_any_release(&v);
}

static void test_hooks_write_and_read_the_data(void **state) {
  (void)state;
  register_tag();
  set_attr_function(tag_index, "__data_to_json__", tag_to_json);
  xffi_any t = tag_new(42);
  /* The hook's value is the node's data as it is; the type needs no creator. */
  check_graph(&t, "{\"root_index\":0,\"nodes\":[{\"type\":\"test.graph.Tag\",\"data\":[\"tag\",42]}]}");
  /* Reading without __data_from_json__ needs a creator, which Tag lacks. */
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"test.graph.Tag\",\"data\":[\"tag\",42]}]}",
                   XFFI_KIND_RUNTIME, "node 0 (test.graph.Tag): Type `test.graph.Tag` does not support reflection");
  set_attr_function(tag_index, "__data_from_json__", tag_from_json);
  xffi_any text = graph_text(&t), back = xffi_any_none();
  assert_int_equal(call_builtin("ffi.FromJSONGraphString", &text, 1, &back), XFFI_OK);
  assert_int_equal(back.type_index, tag_index);
  assert_int_equal(((const tag *)(const void *)back.v_obj)->id, 42);
  /* The hook's error comes back with the node named. */
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"test.graph.Tag\",\"data\":7}]}", XFFI_KIND_VALUE,
                   "ffi.FromJSONGraph: node 0 (test.graph.Tag): a tag reads from [\"tag\", id]");
  xffi_any_release(&back);
  xffi_any_release(&text);
  xffi_any_release(&t);
}

static void test_types_without_creator_are_errors(void **state) {
  (void)state;
  register_tag();
  /* A type with neither creator nor __data_to_json__: tvm-ffi's TypeError. */
  int32_t bare = -1;
  assert_int_equal(xffi_type_register(&bare, "test.graph.Bare", XFFI_TYPE_OBJECT), XFFI_OK);
  xffi_object *obj = counted_new();
  obj->type_index = bare;
  xffi_any view = xffi_any_object(obj), graph = xffi_any_int(-1);
  assert_int_equal(xffi_to_json(&graph, &view, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE,
               "ffi.ToJSONGraph: Type `test.graph.Bare` does not support ToJSONGraph (no native "
               "creator or __ffi_new__ type attr)");
  assert_int_equal(graph.type_index, XFFI_TYPE_INT); /* untouched */
  xffi_object_dec_ref(obj);
}

/* ---- Deep chains ---- */

static void test_million_deep_object_chains_use_no_c_recursion(void **state) {
  (void)state;
  const int64_t n = 1000000;
  xffi_any head = chain_new(n), graph = xffi_any_none(), back = xffi_any_none();
  assert_int_equal(xffi_to_json(&graph, &head, NULL), XFFI_OK);
  assert_int_equal(xffi_from_json(&back, &graph), XFFI_OK);
  xffi_any_release(&graph);
  int64_t count = 0;
  for (const link *l = (const link *)(const void *)back.v_obj; l; l = (const link *)(const void *)l->next) {
    assert_int_equal(l->header.type_index, link_index);
    assert_int_equal(l->value, count);
    ++count;
  }
  assert_int_equal(count, n);
  xffi_any_release(&back);
  xffi_any_release(&head);
}

/* ---- Hostile graphs ---- */

static void test_hostile_object_graphs_name_node_type_and_field(void **state) {
  (void)state;
  register_sensor_types();
  register_link();
  int alive = sensors_alive;
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"test.no.Such\",\"data\":{}}]}", XFFI_KIND_VALUE,
                   "ffi.FromJSONGraph: node 0: unknown type key `test.no.Such`");
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"test.reflect.Probe\",\"data\":{\"ratio\":1.5}}]}",
                   XFFI_KIND_TYPE,
                   "ffi.FromJSONGraph: node 0 (test.reflect.Probe): Required field `count` not set in type "
                   "`test.reflect.Probe`");
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"test.reflect.Probe\",\"data\":{\"count\":\"x\"}}]}",
                   XFFI_KIND_TYPE, "ffi.FromJSONGraph: node 0 (test.reflect.Probe): field `count` must be an int, got");
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"test.reflect.Probe\",\"data\":[1,2]}]}", XFFI_KIND_TYPE,
                   "node 0 (test.reflect.Probe): \"data\" must be an object of field values, got ffi.Array");
  /* An object field's reference: out of range, not an index, a value of the wrong type. */
  check_read_error(
      "{\"root_index\":0,\"nodes\":[{\"type\":\"test.reflect.Probe\",\"data\":{\"count\":1,\"ratio\":1,"
      "\"label\":5}}]}",
      XFFI_KIND_VALUE, "node 0 (test.reflect.Probe): field `label`: node index 5 out of range (1 nodes)");
  check_read_error(
      "{\"root_index\":0,\"nodes\":[{\"type\":\"test.reflect.Probe\",\"data\":{\"count\":1,\"ratio\":1,"
      "\"label\":\"idle\"}}]}",
      XFFI_KIND_TYPE, "node 0 (test.reflect.Probe): field `label` must be a node index, got");
  check_read_error(
      "{\"root_index\":1,\"nodes\":[{\"type\":\"int\",\"data\":9},{\"type\":\"test.reflect.Probe\","
      "\"data\":{\"count\":1,\"ratio\":1,\"label\":0}}]}",
      XFFI_KIND_TYPE, "ffi.FromJSONGraph: node 1 (test.reflect.Probe): field `label`: ");
  /* An object whose field leads back to it: the format has no cycles. */
  check_read_error("{\"root_index\":0,\"nodes\":[{\"type\":\"test.graph.Link\",\"data\":{\"value\":1,\"next\":0}}]}",
                   XFFI_KIND_VALUE, "node 0 (test.graph.Link): field `next` refers back to node 0");
  /* Nothing half-built outlives an error: every Probe made was freed. */
  assert_int_equal(sensors_alive, alive);
}

static void test_object_cycles_are_write_errors(void **state) {
  (void)state;
  xffi_any head = chain_new(2), graph = xffi_any_int(-1);
  link *first = (link *)(void *)head.v_obj;
  link *second = (link *)(void *)first->next;
  second->next = &first->header; /* first -> second -> first */
  xffi_object_inc_ref(&first->header);
  assert_int_equal(xffi_to_json(&graph, &head, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "ffi.ToJSONGraph: Cycle detected during serialization: an object of type "
               "`test.graph.Link` contains itself");
  assert_int_equal(graph.type_index, XFFI_TYPE_INT);
  second->next = NULL; /* break the cycle so both are freed */
  xffi_object_dec_ref(&first->header);
  xffi_any_release(&head);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_objects_write_fields_in_order_with_pods_inline),
      cmocka_unit_test(test_objects_read_back_with_sharing),
      cmocka_unit_test(test_absent_fields_take_their_defaults),
      cmocka_unit_test(test_hooks_write_and_read_the_data),
      cmocka_unit_test(test_types_without_creator_are_errors),
      cmocka_unit_test(test_million_deep_object_chains_use_no_c_recursion),
      cmocka_unit_test(test_hostile_object_graphs_name_node_type_and_field),
      cmocka_unit_test(test_object_cycles_are_write_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
