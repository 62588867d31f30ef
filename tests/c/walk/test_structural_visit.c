/* Structural visitors and mutators (xffi/structural_visit.h,
 * c/structural_visit.c, c/structural_mutate.c, and the ffi.* globals of
 * c/globals_structural_visit.c): walk orders, skip and interrupt, map keys
 * left out, definition regions, callback-owned visits and mutations,
 * copy-on-write and in-place maps, variables and DAG nodes mapped once,
 * 10^6-deep values, bad input. The ffi.* globals: test_structural_visit_globals.c. */
#include <stdint.h>
#include <stdio.h>

#include "test_util.h"
#include "test_values.h"
#include "test_node_type.h"

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/map.h>
#include <xffi/reflection.h>
#include <xffi/structural_visit.h>

/* ---- Helpers ---- */

/* A trace of what callbacks saw: "a2" an Array of 2, "l1" a List, "m1" a
 * Map, "i5" an int, "s" a string, "n" a node; each followed by its region
 * digit when with_region. */
typedef struct trace {
  char text[256];
  int with_region;
  int64_t skip_arrays;  /* pre-order: skip Arrays' children */
  int64_t interrupt_at; /* an int of this value interrupts (0: none) */
  int64_t fail_at;      /* an int of this value raises (0: none) */
  int64_t count;        /* values seen */
  int wrong_result_at;  /* an int of this value returns a string */
} trace;

static void note(trace *t, const xffi_any *v, int32_t region) {
  char part[32];
  int64_t n = 0;
  switch (v->type_index) {
    case XFFI_TYPE_ARRAY:
    case XFFI_TYPE_LIST:
      n = xffi_seq_size_unchecked(v->v_obj);
      snprintf(part, sizeof(part), "%c%lld", v->type_index == XFFI_TYPE_ARRAY ? 'a' : 'l', (long long)n);
      break;
    case XFFI_TYPE_MAP:
      (void)xffi_map_length(&n, v->v_obj);
      snprintf(part, sizeof(part), "m%lld", (long long)n);
      break;
    case XFFI_TYPE_INT: snprintf(part, sizeof(part), "i%lld", (long long)v->v_int64); break;
    case XFFI_TYPE_SMALL_STR:
    case XFFI_TYPE_STRING: snprintf(part, sizeof(part), "s"); break;
    default: snprintf(part, sizeof(part), "n");
  }
  if (t->with_region) snprintf(part + strlen(part), sizeof(part) - strlen(part), "/%d", (int)region);
  if (strlen(t->text) + strlen(part) + 2 < sizeof(t->text)) {
    if (t->text[0]) strcat(t->text, " ");
    strcat(t->text, part);
  }
}

static int walk_note(void *resource, const xffi_any *value, int32_t region, xffi_any *result) {
  trace *t = resource;
  ++t->count;
  if (t->count < 64) note(t, value, region);
  if (value->type_index == XFFI_TYPE_INT && value->v_int64 == t->fail_at && t->fail_at)
    return xffi_error_raise(XFFI_KIND_VALUE, "walk failure at %lld", (long long)t->fail_at);
  if (value->type_index == XFFI_TYPE_INT && value->v_int64 == t->wrong_result_at && t->wrong_result_at) {
    *result = str("not a result");
    return XFFI_OK;
  }
  if (value->type_index == XFFI_TYPE_INT && value->v_int64 == t->interrupt_at && t->interrupt_at) {
    xffi_object *interrupt = NULL;
    assert_int_equal(xffi_visit_interrupt_new(&interrupt, value), XFFI_OK);
    *result = xffi_any_object(interrupt);
    return XFFI_OK;
  }
  if (value->type_index == XFFI_TYPE_ARRAY && t->skip_arrays) *result = xffi_any_int(XFFI_STRUCTURAL_SKIP);
  return XFFI_OK;
}

/* ---- Reflected nodes: {a: Any, b: Any}, copied by __ffi_shallow_copy__ ---- */

static const node *as_node_(const xffi_any *v) { return (const node *)(const void *)v->v_obj; }

static int shallow_copy(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  (void)num_args;
  const node *n = (const node *)(const void *)args[0].v_obj;
  *result = node_new(args[0].type_index, n->a, n->b);
  return XFFI_OK;
}

/* var: b (its name) ignored; func: a a simple definition, b the body; tree:
 * plain; uncopyable: a tree without __ffi_shallow_copy__. */
static int32_t var_t, func_t, tree_t, dag_t, uncopyable_t, hooked_t, bad_hook_t, native_hooked_t, native_failing_t;

static int32_t node_type(const char *key, int32_t seq_kind, int64_t a_flags, int64_t b_flags, int copyable) {
  int32_t t = -1;
  assert_int_equal(xffi_type_register(&t, key, XFFI_TYPE_OBJECT), XFFI_OK);
  add_field(t, "a", offsetof(node, a), a_flags);
  add_field(t, "b", offsetof(node, b), b_flags);
  xffi_type_metadata m = {{NULL, 0}, NULL, (int32_t)sizeof(node), seq_kind};
  assert_int_equal(xffi_type_register_metadata(t, &m), XFFI_OK);
  if (copyable) {
    xffi_object *fn = NULL;
    assert_int_equal(xffi_function_new(&fn, shallow_copy, NULL, NULL), XFFI_OK);
    xffi_any attr = xffi_any_object(fn);
    assert_int_equal(xffi_type_register_attr(t, "__ffi_shallow_copy__", &attr), XFFI_OK);
    xffi_object_dec_ref(fn);
  }
  return t;
}

/* Hooks of hooked_t: __s_visit__ visits b only; __s_mutate__ maps a only. */
static int visit_b_only(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  (void)num_args;
  return xffi_structural_visitor_visit(result, args[0].v_obj, &as_node_(&args[1])->b);
}

static int mutate_a_only(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  (void)num_args;
  const node *n = as_node_(&args[1]);
  xffi_any a = xffi_any_none();
  if (xffi_structural_mutator_mutate(&a, args[0].v_obj, &n->a) != XFFI_OK) return XFFI_FAIL;
  *result = node_new(args[1].type_index, a, n->b);
  xffi_any_release(&a);
  return XFFI_OK;
}

/* Native hooks, as C++ types built with tvm-ffi's headers register them: an
 * opaque pointer to hook(walker, value), the walker in tvm-ffi's layout. */
typedef struct tvm_walker tvm_walker;
typedef struct tvm_visit_table {
  xffi_any (*visit)(tvm_walker *walker, xffi_any value);
} tvm_visit_table;
typedef struct tvm_mutate_table {
  xffi_any (*mutate)(tvm_walker *walker, xffi_any value);
  xffi_any (*maybe_inplace_mutate)(tvm_walker *walker, xffi_any value);
  xffi_any (*var_remap_get)(tvm_walker *walker, xffi_any var);
  xffi_any (*var_remap_set)(tvm_walker *walker, xffi_any var, xffi_any mapped);
} tvm_mutate_table;
struct tvm_walker {
  xffi_object header;
  const void *table;
  int32_t def_region_kind;
};

static xffi_any native_visit_b_only(tvm_walker *walker, xffi_any value) {
  return ((const tvm_visit_table *)walker->table)->visit(walker, as_node_(&value)->b);
}

static xffi_any native_mutate_a_only(tvm_walker *walker, xffi_any value) {
  const node *n = as_node_(&value);
  xffi_any a = ((const tvm_mutate_table *)walker->table)->mutate(walker, n->a);
  if (a.type_index == XFFI_TYPE_ERROR) return a;
  xffi_any out = node_new(value.type_index, a, n->b);
  xffi_any_release(&a);
  return out;
}

static xffi_any native_hook_fails(tvm_walker *walker, xffi_any value) {
  (void)walker, (void)value;
  xffi_error_raise(XFFI_KIND_VALUE, "the native hook failed");
  xffi_any error = xffi_any_none();
  error.type_index = XFFI_TYPE_ERROR;
  error.v_obj = xffi_error_move_raised();
  return error;
}

static void register_native_hook(int32_t type, const char *name, xffi_any (*hook)(tvm_walker *, xffi_any)) {
  xffi_any attr = xffi_any_none();
  attr.type_index = XFFI_TYPE_OPAQUE_PTR;
  memcpy(&attr.v_ptr, &hook, sizeof(attr.v_ptr));
  assert_int_equal(xffi_type_register_attr(type, name, &attr), XFFI_OK);
}

static void register_hook(int32_t type, const char *name, xffi_function_callback callback) {
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, callback, NULL, NULL), XFFI_OK);
  xffi_any attr = xffi_any_object(fn);
  assert_int_equal(xffi_type_register_attr(type, name, &attr), XFFI_OK);
  xffi_object_dec_ref(fn);
}

static int setup_types(void **state) {
  (void)state;
  var_t = node_type("test.sv.Var", XFFI_SEQ_HASH_FREE_VAR, 0, XFFI_FIELD_SEQ_HASH_IGNORE, 1);
  func_t = node_type("test.sv.Func", XFFI_SEQ_HASH_TREE_NODE, XFFI_FIELD_SEQ_HASH_DEF_SIMPLE, 0, 1);
  tree_t = node_type("test.sv.Tree", XFFI_SEQ_HASH_TREE_NODE, 0, 0, 1);
  dag_t = node_type("test.sv.DAG", XFFI_SEQ_HASH_DAG_NODE, 0, 0, 1);
  uncopyable_t = node_type("test.sv.Uncopyable", XFFI_SEQ_HASH_TREE_NODE, 0, 0, 0);
  hooked_t = node_type("test.sv.Hooked", XFFI_SEQ_HASH_TREE_NODE, 0, 0, 0);
  register_hook(hooked_t, "__s_visit__", visit_b_only);
  register_hook(hooked_t, "__s_mutate__", mutate_a_only);
  native_hooked_t = node_type("test.sv.NativeHooked", XFFI_SEQ_HASH_TREE_NODE, 0, 0, 0);
  register_native_hook(native_hooked_t, "__s_visit__", native_visit_b_only);
  register_native_hook(native_hooked_t, "__s_mutate__", native_mutate_a_only);
  native_failing_t = node_type("test.sv.NativeFailing", XFFI_SEQ_HASH_TREE_NODE, 0, 0, 0);
  register_native_hook(native_failing_t, "__s_visit__", native_hook_fails);
  register_native_hook(native_failing_t, "__s_mutate__", native_hook_fails);
  bad_hook_t = node_type("test.sv.BadHook", XFFI_SEQ_HASH_TREE_NODE, 0, 0, 0);
  xffi_any not_a_function = xffi_any_int(5);
  assert_int_equal(xffi_type_register_attr(bad_hook_t, "__s_visit__", &not_a_function), XFFI_OK);
  assert_int_equal(xffi_type_register_attr(bad_hook_t, "__s_mutate__", &not_a_function), XFFI_OK);
  return 0;
}

static const node *as_node(const xffi_any *v) { return (const node *)(const void *)v->v_obj; }

/* ---- VisitInterrupt ---- */

static void test_interrupt_carries_a_payload(void **state) {
  (void)state;
  xffi_any payload = str("found it, a long payload");
  xffi_object *interrupt = NULL;
  assert_int_equal(xffi_visit_interrupt_new(&interrupt, &payload), XFFI_OK);
  assert_int_equal(interrupt->type_index, XFFI_TYPE_VISIT_INTERRUPT);
  xffi_any back = xffi_any_none();
  assert_int_equal(xffi_visit_interrupt_value(&back, interrupt), XFFI_OK);
  assert_ptr_equal(back.v_obj, payload.v_obj);
  /* The reflected field reads the same payload (tvm-ffi's layout: value at 24). */
  xffi_any field = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&field, interrupt, "value"), XFFI_OK);
  assert_ptr_equal(field.v_obj, payload.v_obj);
  xffi_any_release(&field);
  assert_int_equal(xffi_visit_interrupt_value(&field, payload.v_obj), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_visit_interrupt_value: expected ffi.VisitInterrupt, got ffi.String");
  assert_int_equal(xffi_visit_interrupt_new(NULL, &payload), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "out");
  xffi_object_dec_ref(interrupt);
  xffi_any all[] = {payload, back, field};
  release(all, 3);
}

/* ---- Walk ---- */

static void test_walk_orders_skip_and_map_keys(void **state) {
  (void)state;
  xffi_any inner_items[] = {xffi_any_int(1)};
  xffi_any inner = array_of(inner_items, 1);
  xffi_any key = str("key"), value = xffi_any_int(3);
  xffi_object *m = NULL;
  assert_int_equal(xffi_map_new(&m, &key, &value, 1), XFFI_OK);
  xffi_any items[] = {inner, xffi_any_int(2), xffi_any_object(m), xffi_any_none()};
  xffi_any root = array_of(items, 4), out = xffi_any_none();
  trace pre = {{0}, 0, 0, 0, 0, 0, 0}, post = pre, skip = pre;
  assert_int_equal(xffi_structural_walk(&out, &root, XFFI_STRUCTURAL_PREORDER, walk_note, &pre), XFFI_OK);
  assert_int_equal(out.type_index, XFFI_TYPE_NONE);
  /* None is not given to callbacks; the Map's key is left out. */
  assert_string_equal(pre.text, "a4 a1 i1 i2 m1 i3");
  assert_int_equal(xffi_structural_walk(&out, &root, XFFI_STRUCTURAL_POSTORDER, walk_note, &post), XFFI_OK);
  assert_string_equal(post.text, "i1 a1 i2 i3 m1 a4");
  skip.skip_arrays = 1;
  assert_int_equal(xffi_structural_walk(&out, &root, XFFI_STRUCTURAL_PREORDER, walk_note, &skip), XFFI_OK);
  assert_string_equal(skip.text, "a4");
  xffi_any all[] = {inner, key, items[2], root};
  release(all, 4);
}

static void test_walk_interrupts_and_bad_results(void **state) {
  (void)state;
  xffi_any items[] = {xffi_any_int(1), xffi_any_int(2), xffi_any_int(3)};
  xffi_any root = array_of(items, 3), out = xffi_any_none();
  trace t = {{0}, 0, 0, 2, 0, 0, 0};
  assert_int_equal(xffi_structural_walk(&out, &root, XFFI_STRUCTURAL_PREORDER, walk_note, &t), XFFI_OK);
  assert_int_equal(out.type_index, XFFI_TYPE_VISIT_INTERRUPT);
  assert_string_equal(t.text, "a3 i1 i2");
  xffi_any payload = xffi_any_none();
  assert_int_equal(xffi_visit_interrupt_value(&payload, out.v_obj), XFFI_OK);
  assert_int_equal(payload.v_int64, 2);
  xffi_any_release(&out);
  trace failing = {{0}, 0, 0, 0, 2, 0, 0};
  assert_int_equal(xffi_structural_walk(&out, &root, XFFI_STRUCTURAL_POSTORDER, walk_note, &failing), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "walk failure at 2");
  assert_int_equal(out.type_index, XFFI_TYPE_NONE);
  trace wrong = {{0}, 0, 0, 0, 0, 0, 3};
  assert_int_equal(xffi_structural_walk(&out, &root, XFFI_STRUCTURAL_PREORDER, walk_note, &wrong), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "StructuralWalk: the callback for a int returned ");
  assert_int_equal(xffi_structural_walk(&out, &root, 7, walk_note, &wrong), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_structural_walk: order must be 0 (pre-order) or 1 (post-order), got 7");
  assert_int_equal(xffi_structural_walk(&out, &root, 0, NULL, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "callback");
  xffi_any_release(&root);
}

static void test_walk_follows_definition_regions(void **state) {
  (void)state;
  /* func(a: def-simple [x], b: [x, y]); a var's name (b) is ignored, its a is walked. */
  xffi_any none = xffi_any_none();
  xffi_any x = node_new(var_t, xffi_any_int(7), str("x")), y = node_new(var_t, xffi_any_int(8), str("y"));
  xffi_any params = array_of(&x, 1), body_items[] = {x, y}, body = array_of(body_items, 2);
  xffi_any func = node_new(func_t, params, body), out = none;
  trace t = {{0}, 1, 0, 0, 0, 0, 0};
  assert_int_equal(xffi_structural_walk(&out, &func, XFFI_STRUCTURAL_PREORDER, walk_note, &t), XFFI_OK);
  /* The var's own fields (its a) are outside its simple definition. */
  assert_string_equal(t.text, "n/0 a1/2 n/2 i7/0 a2/0 n/0 i7/0 n/0 i8/0");
  xffi_any all[] = {x, y, params, body, func};
  release(all, 5);
}

/* ---- Visit: the callback owns the descent ---- */

typedef struct visit_state {
  trace t;
  xffi_object *kept; /* the visitor, kept past the visit */
} visit_state;

/* Arrays: visit their first element's children only (default_visit); ints:
 * noted, 2 interrupts. */
static int visit_first(void *resource, xffi_object *visitor, const xffi_any *value, xffi_any *result) {
  visit_state *s = resource;
  note(&s->t, value, 0);
  if (!s->kept) {
    xffi_object_inc_ref(visitor);
    s->kept = visitor;
  }
  if (value->type_index == XFFI_TYPE_ARRAY) {
    xffi_any first = item(value, 0);
    int status = xffi_structural_visitor_default_visit(result, visitor, &first);
    xffi_any_release(&first);
    return status;
  }
  if (value->type_index == XFFI_TYPE_INT && value->v_int64 == 2) {
    xffi_object *interrupt = NULL;
    xffi_any done = str("done");
    assert_int_equal(xffi_visit_interrupt_new(&interrupt, &done), XFFI_OK);
    *result = xffi_any_object(interrupt);
    return XFFI_OK;
  }
  return value->type_index == XFFI_TYPE_LIST ? XFFI_STRUCTURAL_DECLINED : XFFI_OK;
}

static void test_visit_callbacks_own_the_descent(void **state) {
  (void)state;
  xffi_any inner_items[] = {xffi_any_int(1), xffi_any_int(2), xffi_any_int(3)};
  xffi_any inner = array_of(inner_items, 3), root = array_of(&inner, 1), out = xffi_any_none();
  visit_state s;
  memset(&s, 0, sizeof(s));
  assert_int_equal(xffi_structural_visit(&out, &root, visit_first, &s), XFFI_OK);
  /* The nested Array's callback is bypassed by default_visit; its ints reach theirs. */
  assert_string_equal(s.t.text, "a1 i1 i2");
  assert_int_equal(out.type_index, XFFI_TYPE_VISIT_INTERRUPT);
  xffi_any_release(&out);
  /* A declined List is visited by the default descent. */
  xffi_any list_items[] = {xffi_any_int(5)};
  xffi_any list = list_of(list_items, 1);
  memset(&s.t, 0, sizeof(s.t));
  xffi_object *first_visitor = s.kept;
  s.kept = NULL;
  assert_int_equal(xffi_structural_visit(&out, &list, visit_first, &s), XFFI_OK);
  assert_string_equal(s.t.text, "l1 i5");
  /* A visitor kept past its visit raises instead of touching a finished walk. */
  assert_int_equal(xffi_structural_visitor_visit(&out, first_visitor, &list), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME,
                "xffi_structural_visitor_visit: the ffi.StructuralVisitor was used after its walk ended");
  int32_t region = -1;
  assert_int_equal(xffi_structural_visitor_def_region(&region, s.kept), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "used after its walk ended");
  assert_int_equal(xffi_structural_visitor_visit(&out, list.v_obj, &list), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "expected ffi.StructuralVisitor, got ffi.List");
  xffi_object_dec_ref(first_visitor);
  xffi_object_dec_ref(s.kept);
  xffi_any all[] = {inner, root, list};
  release(all, 3);
}

/* ---- Map ---- */

typedef struct map_state {
  int64_t add;      /* ints become int + add */
  int64_t fail_at;  /* an int of this value raises */
  int64_t calls;    /* callback calls */
  int replace_vars; /* vars become new vars (a + 100) */
} map_state;

static int map_ints(void *resource, const xffi_any *value, int32_t region, xffi_any *result) {
  (void)region;
  map_state *s = resource;
  ++s->calls;
  if (value->type_index == XFFI_TYPE_INT) {
    if (s->fail_at && value->v_int64 == s->fail_at)
      return xffi_error_raise(XFFI_KIND_VALUE, "map failure at %lld", (long long)s->fail_at);
    *result = xffi_any_int(value->v_int64 + s->add);
    return XFFI_OK;
  }
  if (s->replace_vars && value->type_index == var_t) {
    *result = node_new(var_t, xffi_any_int(as_node(value)->a.v_int64 + 100), as_node(value)->b);
    return XFFI_OK;
  }
  return XFFI_STRUCTURAL_DECLINED;
}

static void test_map_copies_on_write_or_changes_in_place(void **state) {
  (void)state;
  xffi_any key = str("k"), one = xffi_any_int(1);
  xffi_object *m = NULL;
  assert_int_equal(xffi_map_new(&m, &key, &one, 1), XFFI_OK);
  xffi_any inner_items[] = {xffi_any_int(1)};
  xffi_any inner = array_of(inner_items, 1), items[] = {inner, xffi_any_int(2), xffi_any_object(m), str("tag")};
  xffi_any root = array_of(items, 4), out = xffi_any_none();
  map_state s = {1, 0, 0, 0};
  /* Shared root (the caller keeps its reference): copies, the original intact. */
  xffi_any given = root;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_POSTORDER, map_ints, &s), XFFI_OK);
  assert_int_equal(given.type_index, XFFI_TYPE_NONE);
  assert_ptr_not_equal(out.v_obj, root.v_obj);
  xffi_any mapped_inner = item(&out, 0), mapped_map = item(&out, 2), tag = item(&out, 3), inner_now = item(&root, 0);
  xffi_any first = item(&mapped_inner, 0), original_first = item(&inner_now, 0), mapped_value = xffi_any_none();
  assert_int_equal(first.v_int64, 2);
  assert_int_equal(original_first.v_int64, 1);
  assert_int_equal(xffi_map_get(&mapped_value, mapped_map.v_obj, &key), XFFI_OK); /* the key kept */
  assert_int_equal(mapped_value.v_int64, 2);
  assert_ptr_equal(tag.v_obj, items[3].v_obj); /* unchanged children shared */
  xffi_any_release(&out);
  /* Nothing changes: the same object back. */
  s.add = 0;
  given = root;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_PREORDER, map_ints, &s), XFFI_OK);
  assert_ptr_equal(out.v_obj, root.v_obj);
  xffi_any_release(&out);
  xffi_any all[] = {key, inner, items[2], items[3], mapped_inner, mapped_map, tag, inner_now};
  release(all, 8);
  /* A root given over whole (nobody else holds it): changed in place, along unique paths only. */
  s.add = 10;
  xffi_object *list_before = root.v_obj;
  xffi_any inner_before = item(&root, 0); /* the inner Array is shared with us now */
  assert_int_equal(xffi_structural_map(&out, &root, XFFI_STRUCTURAL_POSTORDER, map_ints, &s), XFFI_OK);
  assert_ptr_equal(out.v_obj, list_before);
  xffi_any inner_after = item(&out, 0), second = item(&out, 1), kept_first = item(&inner_before, 0);
  assert_ptr_not_equal(inner_after.v_obj, inner_before.v_obj);
  assert_int_equal(kept_first.v_int64, 1);
  assert_int_equal(second.v_int64, 12);
  xffi_any rest[] = {out, inner_before, inner_after};
  release(rest, 3);
}

static void test_map_reuses_variable_and_dag_results(void **state) {
  (void)state;
  /* func(a: def-simple x, b: [x]): x's int maps once; the use gets the same new x. */
  xffi_any x = node_new(var_t, xffi_any_int(1), str("x")), uses = array_of(&x, 1);
  xffi_any func = node_new(func_t, x, uses), out = xffi_any_none();
  map_state s = {1, 0, 0, 0};
  xffi_any given = func;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_POSTORDER, map_ints, &s), XFFI_OK);
  const node *f = as_node(&out);
  xffi_any use = item(&f->b, 0);
  assert_ptr_equal(use.v_obj, f->a.v_obj);
  assert_ptr_not_equal(f->a.v_obj, x.v_obj);
  assert_int_equal(as_node(&f->a)->a.v_int64, 2);
  assert_int_equal(as_node(&x)->a.v_int64, 1);
  xffi_any_release(&out);
  xffi_any_release(&use);
  /* A DAG node reached twice is descended once (its int mapped once). */
  xffi_any shared = node_new(dag_t, xffi_any_int(5), xffi_any_none()), pair[] = {shared, shared};
  xffi_any dag_root = array_of(pair, 2);
  s.calls = 0;
  given = dag_root;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_POSTORDER, map_ints, &s), XFFI_OK);
  xffi_any first = item(&out, 0), second = item(&out, 1);
  assert_ptr_equal(first.v_obj, second.v_obj);
  assert_int_equal(as_node(&first)->a.v_int64, 6);
  /* The int and the None b (an Any callback sees None): 2; the node at both places: 2; the Array: 1. */
  assert_int_equal(s.calls, 5);
  /* Callbacks run at every occurrence: a replaced var is not shared. */
  s.replace_vars = 1;
  xffi_any vars[] = {x, x}, var_root = array_of(vars, 2), var_out = xffi_any_none();
  given = var_root;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&var_out, &given, XFFI_STRUCTURAL_PREORDER, map_ints, &s), XFFI_OK);
  xffi_any v0 = item(&var_out, 0), v1 = item(&var_out, 1);
  assert_ptr_not_equal(v0.v_obj, v1.v_obj);
  assert_int_equal(as_node(&v0)->a.v_int64, 101);
  xffi_any all[] = {x, uses, func, out, shared, dag_root, first, second, var_root, var_out, v0, v1};
  release(all, sizeof(all) / sizeof(all[0]));
}

static void test_map_errors_leave_nothing_behind(void **state) {
  (void)state;
  /* The callback fails after earlier children changed: the partial copy is released (ASan). */
  xffi_any inner_items[] = {xffi_any_int(1), xffi_any_int(2)};
  xffi_any inner = list_of(inner_items, 2), items[] = {xffi_any_int(1), inner, xffi_any_int(3)};
  xffi_any root = array_of(items, 3), out = xffi_any_none();
  map_state s = {1, 3, 0, 0};
  xffi_any given = root;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_POSTORDER, map_ints, &s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "map failure at 3");
  assert_int_equal(out.type_index, XFFI_TYPE_NONE);
  xffi_any first = item(&root, 0);
  assert_int_equal(first.v_int64, 1);
  /* An object whose field changed but that has no __ffi_shallow_copy__. */
  xffi_any bare = node_new(uncopyable_t, xffi_any_int(1), xffi_any_none());
  s.fail_at = 0;
  given = bare;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_POSTORDER, map_ints, &s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "StructuralMap: cannot change a field of an object of type `test.sv.Uncopyable`");
  /* A refused root is still taken over (released), as on every other path. */
  given = bare;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, 3, map_ints, &s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "order must be 0 (pre-order) or 1 (post-order), got 3");
  assert_int_equal(given.type_index, XFFI_TYPE_NONE);
  given = bare;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_mutate(&out, &given, NULL, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_structural_mutate: callback is NULL");
  assert_int_equal(given.type_index, XFFI_TYPE_NONE);
  xffi_any all[] = {inner, root, bare};
  release(all, 3);
}

/* ---- Per-type hooks: __s_visit__, __s_mutate__ ---- */

static void test_type_hooks_replace_the_field_walk(void **state) {
  (void)state;
  xffi_any hooked = node_new(hooked_t, xffi_any_int(1), xffi_any_int(2)), out = xffi_any_none();
  trace t = {{0}, 0, 0, 0, 0, 0, 0};
  assert_int_equal(xffi_structural_walk(&out, &hooked, XFFI_STRUCTURAL_PREORDER, walk_note, &t), XFFI_OK);
  assert_string_equal(t.text, "n i2"); /* the hook visits b only, through the walk's callbacks */
  map_state s = {1, 0, 0, 0};
  xffi_any given = hooked;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_POSTORDER, map_ints, &s), XFFI_OK);
  assert_int_equal(as_node(&out)->a.v_int64, 2); /* the hook maps a only */
  assert_int_equal(as_node(&out)->b.v_int64, 2);
  xffi_any_release(&out);
  xffi_any bad = node_new(bad_hook_t, xffi_any_int(1), xffi_any_int(2));
  assert_int_equal(xffi_structural_walk(&out, &bad, XFFI_STRUCTURAL_PREORDER, walk_note, &t), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "StructuralWalk: __s_visit__ of test.sv.BadHook must be an ffi.Function, got int");
  given = bad;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_POSTORDER, map_ints, &s), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "StructuralMap: __s_mutate__ of test.sv.BadHook must be an ffi.Function, got int");
  xffi_any all[] = {hooked, bad};
  release(all, 2);
}

static void test_native_visit_hooks_get_a_visitor_in_tvm_ffi_layout(void **state) {
  (void)state;
  xffi_any hooked = node_new(native_hooked_t, xffi_any_int(1), xffi_any_int(2)), out = xffi_any_none();
  trace t = {{0}, 0, 0, 0, 0, 0, 0};
  assert_int_equal(xffi_structural_walk(&out, &hooked, XFFI_STRUCTURAL_PREORDER, walk_note, &t), XFFI_OK);
  assert_string_equal(t.text, "n i2");  /* the hook visits b only, through the walker's table */
  trace stop = {{0}, 0, 0, 2, 0, 0, 0}; /* the visit of b interrupts: the hook hands it back */
  assert_int_equal(xffi_structural_walk(&out, &hooked, XFFI_STRUCTURAL_PREORDER, walk_note, &stop), XFFI_OK);
  assert_int_equal(out.type_index, XFFI_TYPE_VISIT_INTERRUPT);
  xffi_any_release(&out);
  trace fail = {{0}, 0, 0, 0, 2, 0, 0}; /* the visit of b fails: the error comes back through the hook */
  assert_int_equal(xffi_structural_walk(&out, &hooked, XFFI_STRUCTURAL_PREORDER, walk_note, &fail), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "walk failure at 2");
  xffi_any failing = node_new(native_failing_t, xffi_any_int(1), xffi_any_int(2));
  assert_int_equal(xffi_structural_walk(&out, &failing, XFFI_STRUCTURAL_PREORDER, walk_note, &t), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "the native hook failed");
  map_state s = {1, 0, 0, 0}; /* the mutate hook maps a only, through the mutator's table */
  xffi_any given = hooked;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_POSTORDER, map_ints, &s), XFFI_OK);
  assert_int_equal(as_node(&out)->a.v_int64, 2);
  assert_int_equal(as_node(&out)->b.v_int64, 2);
  xffi_any_release(&out);
  given = failing;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_POSTORDER, map_ints, &s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "the native hook failed");
  xffi_any all[] = {hooked, failing};
  release(all, 2);
}

/* ---- Mutate: the callback owns the recursion ---- */

typedef struct mutate_state {
  char modes[16];
  int default_descent; /* Arrays: default_mutate instead of a rebuild */
  xffi_object *kept;
} mutate_state;

static int mutate_cb(void *resource, xffi_object *mutator, const xffi_any *value, int32_t inplace_mode,
                     xffi_any *result) {
  mutate_state *s = resource;
  if (value->type_index == XFFI_TYPE_INT) {
    *result = xffi_any_int(value->v_int64 + 1);
    return XFFI_OK;
  }
  if (value->type_index != XFFI_TYPE_ARRAY) return XFFI_STRUCTURAL_DECLINED;
  size_t n = strlen(s->modes);
  if (n + 1 < sizeof(s->modes)) s->modes[n] = (char)('0' + inplace_mode);
  if (!s->kept) {
    xffi_object_inc_ref(mutator);
    s->kept = mutator;
  }
  if (s->default_descent) return xffi_structural_mutator_default_mutate(result, mutator, value);
  /* [mutate(value[0]), 10] */
  xffi_any first = item(value, 0), mapped = xffi_any_none();
  int status = xffi_structural_mutator_mutate(&mapped, mutator, &first);
  xffi_any_release(&first);
  if (status != XFFI_OK) return XFFI_FAIL;
  xffi_any parts[] = {mapped, xffi_any_int(10)};
  xffi_object *made = NULL;
  status = xffi_array_new(&made, parts, 2);
  xffi_any_release(&mapped);
  *result = status == XFFI_OK ? xffi_any_object(made) : xffi_any_none();
  return status;
}

static void test_mutate_callbacks_own_the_recursion(void **state) {
  (void)state;
  xffi_any items[] = {xffi_any_int(1), xffi_any_int(2)};
  xffi_any root = array_of(items, 2), out = xffi_any_none();
  mutate_state s;
  memset(&s, 0, sizeof(s));
  xffi_any given = root;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_mutate(&out, &given, mutate_cb, &s), XFFI_OK);
  xffi_any a = item(&out, 0), b = item(&out, 1);
  assert_int_equal(a.v_int64, 2);
  assert_int_equal(b.v_int64, 10);
  assert_string_equal(s.modes, "0"); /* shared root: not in place */
  xffi_any_release(&out);
  /* Given over whole: the callback hears it may change the root in place. */
  s.default_descent = 1;
  memset(s.modes, 0, sizeof(s.modes));
  xffi_object *before = root.v_obj;
  assert_int_equal(xffi_structural_mutate(&out, &root, mutate_cb, &s), XFFI_OK);
  assert_string_equal(s.modes, "1");
  xffi_any c = item(&out, 0), d = item(&out, 1);
  assert_int_equal(c.v_int64, 2);
  assert_int_equal(d.v_int64, 3);
  assert_ptr_not_equal(out.v_obj, NULL);
  (void)before;
  /* The mutator kept past its walk raises. */
  xffi_any result = xffi_any_none();
  assert_int_equal(xffi_structural_mutator_mutate(&result, s.kept, &out), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "the ffi.StructuralMutator was used after its walk ended");
  assert_int_equal(xffi_structural_mutator_var_remap_get(&result, s.kept, &out), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "used after its walk ended");
  xffi_object_dec_ref(s.kept);
  xffi_any all[] = {out};
  release(all, 1);
}

/* ---- Bounded stack ---- */

static xffi_any wrap_in_lists(xffi_any inner, int64_t levels) {
  for (int64_t i = 0; i < levels; ++i) {
    xffi_any outer = list_of(&inner, 1);
    xffi_any_release(&inner);
    inner = outer;
  }
  return inner;
}

static int count_values(void *resource, const xffi_any *value, int32_t region, xffi_any *result) {
  (void)value;
  (void)region;
  (void)result;
  ++*(int64_t *)resource;
  return XFFI_OK;
}

static int decline_all(void *resource, xffi_object *mutator, const xffi_any *value, int32_t mode, xffi_any *result) {
  (void)resource;
  (void)mutator;
  (void)mode;
  if (value->type_index != XFFI_TYPE_INT) return XFFI_STRUCTURAL_DECLINED;
  *result = xffi_any_int(value->v_int64 * 2);
  return XFFI_OK;
}

static int decline_visit(void *resource, xffi_object *visitor, const xffi_any *value, xffi_any *result) {
  (void)visitor;
  (void)result;
  ++*(int64_t *)resource;
  return value->type_index == XFFI_TYPE_INT ? XFFI_OK : XFFI_STRUCTURAL_DECLINED;
}

static int64_t innermost(const xffi_any *v) {
  xffi_any at = *v;
  while (at.type_index == XFFI_TYPE_LIST) at = xffi_seq_items_unchecked(at.v_obj)[0];
  return at.v_int64;
}

static void test_million_deep_values_use_bounded_stack(void **state) {
  (void)state;
  xffi_any deep = wrap_in_lists(xffi_any_int(1), 1000000), out = xffi_any_none();
  int64_t count = 0;
  assert_int_equal(xffi_structural_walk(&out, &deep, XFFI_STRUCTURAL_POSTORDER, count_values, &count), XFFI_OK);
  assert_int_equal(count, 1000001);
  count = 0;
  assert_int_equal(xffi_structural_visit(&out, &deep, decline_visit, &count), XFFI_OK);
  assert_int_equal(count, 1000001);
  map_state s = {1, 0, 0, 0};
  xffi_any given = deep;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_PREORDER, map_ints, &s), XFFI_OK);
  assert_int_equal(innermost(&out), 2);
  assert_int_equal(innermost(&deep), 1);
  xffi_any_release(&out);
  /* Given over whole: each List is unique along the chain, so it changes in place. */
  xffi_object *top = deep.v_obj;
  assert_int_equal(xffi_structural_mutate(&out, &deep, decline_all, NULL), XFFI_OK);
  assert_ptr_equal(out.v_obj, top);
  assert_int_equal(innermost(&out), 2);
  /* Past 2^20 levels: a clear error, nothing leaked. */
  xffi_any deeper = wrap_in_lists(out, (1 << 20) + 1 - 1000000);
  assert_int_equal(xffi_structural_walk(&out, &deeper, XFFI_STRUCTURAL_PREORDER, count_values, &count), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "StructuralWalk: maximum stack depth (1048576) exceeded");
  given = deeper;
  xffi_object_inc_ref(given.v_obj);
  assert_int_equal(xffi_structural_map(&out, &given, XFFI_STRUCTURAL_POSTORDER, map_ints, &s), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "StructuralMap: maximum stack depth (1048576) exceeded");
  xffi_any_release(&deeper);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_interrupt_carries_a_payload),
      cmocka_unit_test(test_walk_orders_skip_and_map_keys),
      cmocka_unit_test(test_walk_interrupts_and_bad_results),
      cmocka_unit_test(test_walk_follows_definition_regions),
      cmocka_unit_test(test_visit_callbacks_own_the_descent),
      cmocka_unit_test(test_map_copies_on_write_or_changes_in_place),
      cmocka_unit_test(test_map_reuses_variable_and_dag_results),
      cmocka_unit_test(test_map_errors_leave_nothing_behind),
      cmocka_unit_test(test_type_hooks_replace_the_field_walk),
      cmocka_unit_test(test_native_visit_hooks_get_a_visitor_in_tvm_ffi_layout),
      cmocka_unit_test(test_mutate_callbacks_own_the_recursion),
      cmocka_unit_test(test_million_deep_values_use_bounded_stack),
  };
  return cmocka_run_group_tests(tests, setup_types, NULL);
}
