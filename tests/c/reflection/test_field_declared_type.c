/* A field's declared type (its static type index) is checked by every way
 * of writing it, with one check (xffi_field_check_value): construction with
 * arguments, defaults and default factories, JSON graph reads (from a Map
 * and from text), structural mutate, and xffi_object_set_field. A Map used
 * to land in a field declared ffi.Array, and an Array in one declared as a
 * user type, through every way but set_field; C code reading the field as
 * its declared type was then confused. */
#include "test_util.h"

#include <xffi/json.h>
#include <xffi/reflection.h>
#include <xffi/structural_visit.h>

typedef struct holder {
  xffi_object header;
  xffi_object *items; /* an ffi.Array, or NULL */
  xffi_object *peer;  /* a test.declared.Holder, or NULL */
} holder;

static int holders_alive;
static int32_t holder_index = -1, bad_default_index = -1, bad_factory_index = -1;

static void holder_deleter(void *self, int flags) {
  holder *h = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    xffi_object_dec_ref(h->items);
    xffi_object_dec_ref(h->peer);
    holders_alive--;
  }
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static int make_holder(void **result, int32_t index) {
  holder *h = calloc(1, sizeof(holder));
  if (!h) return xffi_error_raise_out_of_memory();
  xffi_object_init(&h->header, index, holder_deleter);
  holders_alive++;
  *result = h;
  return XFFI_OK;
}
static int holder_create(void **result) { return make_holder(result, holder_index); }
static int bad_default_create(void **result) { return make_holder(result, bad_default_index); }
static int bad_factory_create(void **result) { return make_holder(result, bad_factory_index); }

static xffi_any new_map(void) {
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  return xffi_any_object(map);
}

static xffi_any new_array(void) {
  xffi_object *array = NULL;
  assert_int_equal(xffi_array_new(&array, NULL, 0), XFFI_OK);
  return xffi_any_object(array);
}

/* A default factory that makes a Map (for a field declared ffi.Array). */
static int map_factory(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  (void)args;
  (void)num_args;
  *result = new_map();
  return XFFI_OK;
}

/* __ffi_shallow_copy__ (structural mutate copies what it changes): a new
 * Holder with the same fields. */
static int holder_copy(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  if (num_args != 1 || args[0].type_index != holder_index)
    return xffi_error_raise(XFFI_KIND_TYPE, "Holder.__ffi_shallow_copy__: expected one Holder");
  const holder *from = (const holder *)args[0].v_obj;
  void *made = NULL;
  if (holder_create(&made) != XFFI_OK) return XFFI_FAIL;
  holder *to = made;
  to->items = from->items;
  to->peer = from->peer;
  if (to->items) xffi_object_inc_ref(to->items);
  if (to->peer) xffi_object_inc_ref(to->peer);
  *result = xffi_any_object(&to->header);
  return XFFI_OK;
}

static void register_types(void) {
  if (holder_index >= 0) return;
  assert_int_equal(xffi_type_register(&holder_index, "test.declared.Holder", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_TYPE(holder_index, holder, holder_create, XFFI_SEQ_HASH_TREE_NODE, NULL), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_FIELD(holder_index, holder, items, XFFI_TYPE_ARRAY, XFFI_FIELD_WRITABLE, NULL),
                   XFFI_OK);
  xffi_reflect_field_spec peer = XFFI_FIELD_SPEC(holder, peer, XFFI_TYPE_OBJECT, XFFI_FIELD_WRITABLE, NULL);
  peer.static_type_index = holder_index; /* declared as the user type itself */
  peer.flags |= XFFI_FIELD_HAS_DEFAULT;
  peer.default_value = xffi_any_none();
  assert_int_equal(xffi_reflect_fields(holder_index, &peer, 1), XFFI_OK);
  xffi_object *copy = NULL;
  assert_int_equal(xffi_function_new(&copy, holder_copy, NULL, NULL), XFFI_OK);
  xffi_any copy_any = xffi_any_object(copy);
  assert_int_equal(xffi_type_register_attr(holder_index, "__ffi_shallow_copy__", &copy_any), XFFI_OK);
  xffi_object_dec_ref(copy);
  /* A static default of the wrong type, and a factory that makes one. */
  assert_int_equal(xffi_type_register(&bad_default_index, "test.declared.BadDefault", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_TYPE(bad_default_index, holder, bad_default_create, XFFI_SEQ_HASH_TREE_NODE, NULL),
                   XFFI_OK);
  xffi_any map = new_map();
  assert_int_equal(
      XFFI_REFLECT_FIELD_DEFAULT(bad_default_index, holder, items, XFFI_TYPE_ARRAY, XFFI_FIELD_WRITABLE, NULL, map),
      XFFI_OK);
  xffi_any_release(&map);
  assert_int_equal(xffi_type_register(&bad_factory_index, "test.declared.BadFactory", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_TYPE(bad_factory_index, holder, bad_factory_create, XFFI_SEQ_HASH_TREE_NODE, NULL),
                   XFFI_OK);
  xffi_object *factory = NULL;
  assert_int_equal(xffi_function_new(&factory, map_factory, NULL, NULL), XFFI_OK);
  xffi_reflect_field_spec items = XFFI_FIELD_SPEC(holder, items, XFFI_TYPE_ARRAY, XFFI_FIELD_WRITABLE, NULL);
  items.flags |= XFFI_FIELD_HAS_DEFAULT | XFFI_FIELD_DEFAULT_FROM_FACTORY;
  items.default_value = xffi_any_object(factory);
  assert_int_equal(xffi_reflect_fields(bad_factory_index, &items, 1), XFFI_OK);
  xffi_object_dec_ref(factory);
}

static void test_construction_checks_the_declared_types(void **state) {
  (void)state;
  register_types();
  int alive = holders_alive;
  xffi_any out = xffi_any_int(-1);
  xffi_any args[2] = {new_map(), xffi_any_none()};
  assert_int_equal(xffi_object_construct(&out, holder_index, args, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "field 'items' of 'test.declared.Holder' expects ffi.Array, got ffi.Map");
  assert_int_equal(out.type_index, XFFI_TYPE_INT); /* untouched */
  xffi_any_release(&args[0]);
  args[0] = new_array();
  args[1] = new_array();
  assert_int_equal(xffi_object_construct(&out, holder_index, args, 2), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "field 'peer' of 'test.declared.Holder' expects test.declared.Holder, got ffi.Array");
  xffi_any_release(&args[1]);
  /* The right types are taken, None for the user type too. */
  args[1] = xffi_any_none();
  assert_int_equal(xffi_object_construct(&out, holder_index, args, 2), XFFI_OK);
  assert_ptr_equal(((holder *)out.v_obj)->items, args[0].v_obj);
  xffi_any_release(&out);
  xffi_any_release(&args[0]);
  assert_int_equal(holders_alive, alive);
}

static void test_defaults_and_factories_check_the_declared_type(void **state) {
  (void)state;
  register_types();
  int alive = holders_alive;
  xffi_any out = xffi_any_none();
  assert_int_equal(xffi_object_construct(&out, bad_default_index, NULL, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "field 'items' of 'test.declared.BadDefault' expects ffi.Array, got ffi.Map");
  assert_int_equal(xffi_object_construct(&out, bad_factory_index, NULL, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "field 'items' of 'test.declared.BadFactory' expects ffi.Array, got ffi.Map");
  assert_int_equal(out.type_index, XFFI_TYPE_NONE);
  assert_int_equal(holders_alive, alive);
}

/* Replaces the first `from` in text by `to` (same length or shorter). */
static void replace_once(char *text, const char *from, const char *to) {
  char *at = strstr(text, from);
  assert_non_null(at);
  size_t from_size = strlen(from), to_size = strlen(to);
  memmove(at + to_size, at + from_size, strlen(at + from_size) + 1);
  memcpy(at, to, to_size);
}

static void test_json_graph_reads_check_the_declared_types(void **state) {
  (void)state;
  register_types();
  int alive = holders_alive;
  /* The graph text of Holder(items=[]), written by the runtime: read back
   * fine; then with the Array node retyped as a Map. */
  xffi_any args[1] = {new_array()}, obj = xffi_any_none(), out = xffi_any_none();
  assert_int_equal(xffi_object_construct(&obj, holder_index, args, 1), XFFI_OK);
  xffi_any_release(&args[0]);
  xffi_object *written = NULL;
  assert_int_equal(xffi_to_json_text(&written, &obj, NULL), XFFI_OK);
  xffi_any written_any = xffi_any_object(written);
  xffi_byte_array bytes;
  assert_int_equal(xffi_any_to_str(&bytes, &written_any), XFFI_OK);
  char text[512];
  assert_true(bytes.size < sizeof(text));
  memcpy(text, bytes.data, bytes.size);
  text[bytes.size] = '\0';
  xffi_object_dec_ref(written);
  assert_int_equal(xffi_from_json_text(&out, text, strlen(text)), XFFI_OK);
  assert_int_equal(out.type_index, holder_index);
  xffi_any_release(&out);
  replace_once(text, "\"ffi.Array\"", "\"ffi.Map\"");
  assert_int_equal(xffi_from_json_text(&out, text, strlen(text)), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "expects ffi.Array, got ffi.Map");
  xffi_any graph = xffi_any_none();
  assert_int_equal(xffi_json_parse(&graph, text, strlen(text)), XFFI_OK);
  assert_int_equal(xffi_from_json(&out, &graph), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "expects ffi.Array, got ffi.Map");
  xffi_any_release(&graph);
  assert_int_equal(out.type_index, XFFI_TYPE_NONE);
  xffi_any_release(&obj);
  assert_int_equal(holders_alive, alive);
}

/* Replaces every Array with an empty Map. */
static int arrays_to_maps(void *resource, xffi_object *mutator, const xffi_any *value, int32_t inplace_mode,
                          xffi_any *result) {
  (void)resource;
  (void)mutator;
  (void)inplace_mode;
  if (value->type_index != XFFI_TYPE_ARRAY) return XFFI_STRUCTURAL_DECLINED;
  *result = new_map();
  return XFFI_OK;
}

static void test_structural_mutate_checks_the_declared_type(void **state) {
  (void)state;
  register_types();
  int alive = holders_alive;
  xffi_any args[1] = {new_array()}, root = xffi_any_none(), out = xffi_any_int(-1);
  assert_int_equal(xffi_object_construct(&root, holder_index, args, 1), XFFI_OK);
  xffi_any_release(&args[0]);
  assert_int_equal(xffi_structural_mutate(&out, &root, arrays_to_maps, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "expects ffi.Array, got ffi.Map");
  assert_int_equal(out.type_index, XFFI_TYPE_NONE);
  assert_int_equal(holders_alive, alive);
}

static void test_set_field_uses_the_same_check(void **state) {
  (void)state;
  register_types();
  xffi_any args[1] = {new_array()}, obj = xffi_any_none(), map = new_map();
  assert_int_equal(xffi_object_construct(&obj, holder_index, args, 1), XFFI_OK);
  assert_int_equal(xffi_object_set_field(obj.v_obj, "items", &map), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE,
               "xffi_object_set_field: field 'items' of 'test.declared.Holder' expects ffi.Array, got ffi.Map");
  assert_ptr_equal(((holder *)obj.v_obj)->items, args[0].v_obj);
  xffi_any_release(&map);
  xffi_any_release(&obj);
  xffi_any_release(&args[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_construction_checks_the_declared_types),
      cmocka_unit_test(test_defaults_and_factories_check_the_declared_type),
      cmocka_unit_test(test_json_graph_reads_check_the_declared_types),
      cmocka_unit_test(test_structural_mutate_checks_the_declared_type),
      cmocka_unit_test(test_set_field_uses_the_same_check),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
