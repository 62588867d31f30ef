/* tests/c/text/test_repr.c: xffi_repr, xffi_repr_with and ffi.ReprPrint
 * (c/repr.c, c/repr_text.c, c/globals_repr.c): tvm-ffi's text for every
 * kind of value, reflected C objects, hooks, sharing and cycles, the depth
 * and size bounds (a 10^6-deep List), and bad input. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, for test_clock.h */
#include <inttypes.h>
#include <math.h>

#include <xffi/reflection.h>
#include <xffi/tvm_ffi.h>

#include "test_clock.h"
#include "test_globals_util.h"

/* ---- Helpers ---- */

/* Asserts that the repr of value (options may be NULL: xffi_repr) is expected. */
static void check_repr_with(xffi_any value, const xffi_repr_options *options, const char *expected) {
  xffi_object *text = NULL;
  int status = options ? xffi_repr_with(&text, &value, options) : xffi_repr(&text, &value);
  if (status != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    fail_msg("repr failed: %s", err ? xffi_error_cell_of_unchecked(err)->message.data : "(nothing raised)");
  }
  xffi_byte_array s;
  xffi_any view = xffi_any_object(text);
  assert_int_equal(xffi_any_to_str(&s, &view), XFFI_OK);
  if (s.size != strlen(expected) || memcmp(s.data, expected, s.size) != 0)
    fail_msg("repr: expected [%s], got [%.*s]", expected, (int)s.size, s.data);
  xffi_object_dec_ref(text);
}
#define check_repr(value, expected) check_repr_with((value), NULL, (expected))

/* Checks the repr of an owned value, then releases it. */
static void check_repr_owned(xffi_any value, const char *expected) {
  check_repr(value, expected);
  xffi_any_release(&value);
}

static xffi_any str_value(const char *s) {
  xffi_any v;
  assert_int_equal(xffi_any_from_str(&v, s, strlen(s)), XFFI_OK);
  return v;
}

static xffi_any bytes_value(const char *s, size_t n) {
  xffi_any v;
  assert_int_equal(xffi_any_from_bytes(&v, s, n), XFFI_OK);
  return v;
}

static xffi_any array_of(const xffi_any *items, int64_t n) {
  xffi_object *a;
  assert_int_equal(xffi_array_new(&a, items, n), XFFI_OK);
  return xffi_any_object(a);
}

static xffi_any list_of(const xffi_any *items, int64_t n) {
  xffi_object *a;
  assert_int_equal(xffi_list_new(&a, items, n), XFFI_OK);
  return xffi_any_object(a);
}

/* ---- Reflected C types: a node with fields of every kind ---- */

typedef struct node {
  xffi_object header;
  int64_t value;
  int64_t hidden; /* repr off */
  xffi_any next;  /* owned */
  int64_t extra;  /* the subtype's */
} node;

static int32_t node_type, derived_type, bare_type, failing_type, hooked_type, color_type;

static void node_deleter(void *self, int flags) {
  node *n = self;
  if (flags & XFFI_DELETE_CONTENTS) xffi_any_release(&n->next);
  if (flags & XFFI_DELETE_MEMORY) free(n);
}

static int get_int64(void *addr, xffi_any *result) {
  *result = xffi_any_int(*(int64_t *)addr);
  return XFFI_OK;
}

static int get_any(void *addr, xffi_any *result) { return xffi_any_copy(result, (const xffi_any *)addr); }

static int get_failing(void *addr, xffi_any *result) {
  (void)addr, (void)result;
  return xffi_error_raise(XFFI_KIND_RUNTIME, "the getter of test.repr.Failing.broken fails");
}

static void add_field(int32_t type, const char *name, int64_t offset, xffi_field_getter getter, int64_t flags) {
  xffi_field_info f;
  memset(&f, 0, sizeof(f));
  f.name.data = name;
  f.name.size = strlen(name);
  f.flags = flags;
  f.size = 8;
  f.alignment = 8;
  f.offset = offset;
  f.getter = getter;
  f.default_value_or_factory = xffi_any_none();
  f.field_static_type_index = -1;
  assert_int_equal(xffi_type_register_field(type, &f), XFFI_OK);
}

static node *new_node(int32_t type, int64_t value, xffi_any next) {
  node *n = calloc(1, sizeof(node));
  assert_non_null(n);
  xffi_object_init(&n->header, type, node_deleter);
  n->value = value;
  n->hidden = 99;
  assert_int_equal(xffi_any_copy(&n->next, &next), XFFI_OK);
  return n;
}

static xffi_any node_value(int32_t type, int64_t value, xffi_any next) {
  return xffi_any_object(&new_node(type, value, next)->header);
}

/* ffi.Enum's layout: the canonical int and string indices. */
typedef struct color {
  xffi_object header;
  int64_t int_index;
  xffi_any str_index; /* owned */
} color;

static void color_deleter(void *self, int flags) {
  color *c = self;
  if (flags & XFFI_DELETE_CONTENTS) xffi_any_release(&c->str_index);
  if (flags & XFFI_DELETE_MEMORY) free(c);
}

/* The __ffi_repr__ of test.repr.Hooked: "<H:" + repr(next) + ">", printed
 * through the repr Function it is given (args: the object, the Function). */
static xffi_object *kept_callback;
static int hooked_repr(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  assert_int_equal(num_args, 2);
  node *n = (node *)args[0].v_obj;
  if (n->value == -1) return xffi_error_raise(XFFI_KIND_VALUE, "hook refuses %d", -1);
  if (n->value == -2) {
    *result = xffi_any_int(7); /* not a string */
    return XFFI_OK;
  }
  if (n->value == -3 && !kept_callback) kept_callback = args[1].v_obj, xffi_object_inc_ref(kept_callback);
  xffi_any inner = xffi_any_none();
  if (xffi_function_call(args[1].v_obj, &n->next, 1, &inner) != XFFI_OK) return XFFI_FAIL;
  xffi_byte_array s;
  assert_int_equal(xffi_any_to_str(&s, &inner), XFFI_OK);
  char *buf = malloc(s.size + 8);
  assert_non_null(buf);
  int len = snprintf(buf, s.size + 8, "<H:%.*s>", (int)s.size, s.data);
  xffi_any_release(&inner);
  int status = xffi_any_from_str(result, buf, (size_t)len);
  free(buf);
  return status;
}

static int setup_types(void **state) {
  (void)state;
  assert_int_equal(xffi_type_register(&node_type, "test.repr.Node", XFFI_TYPE_OBJECT), XFFI_OK);
  add_field(node_type, "value", offsetof(node, value), get_int64, 0);
  add_field(node_type, "hidden", offsetof(node, hidden), get_int64, XFFI_FIELD_REPR_OFF);
  add_field(node_type, "next", offsetof(node, next), get_any, 0);
  assert_int_equal(xffi_type_register(&derived_type, "test.repr.Derived", node_type), XFFI_OK);
  add_field(derived_type, "extra", offsetof(node, extra), get_int64, 0);
  add_field(derived_type, "value", offsetof(node, value), get_int64, 0); /* declared again: shown once */
  assert_int_equal(xffi_type_register(&bare_type, "test.repr.Bare", XFFI_TYPE_OBJECT), XFFI_OK);
  add_field(bare_type, "hidden", offsetof(node, hidden), get_int64, XFFI_FIELD_REPR_OFF);
  assert_int_equal(xffi_type_register(&failing_type, "test.repr.Failing", XFFI_TYPE_OBJECT), XFFI_OK);
  add_field(failing_type, "value", offsetof(node, value), get_int64, 0);
  add_field(failing_type, "broken", offsetof(node, extra), get_failing, 0);
  assert_int_equal(xffi_type_register(&hooked_type, "test.repr.Hooked", XFFI_TYPE_OBJECT), XFFI_OK);
  xffi_object *hook;
  assert_int_equal(xffi_function_new(&hook, hooked_repr, NULL, NULL), XFFI_OK);
  xffi_any hook_value = xffi_any_object(hook);
  assert_int_equal(xffi_type_register_attr(hooked_type, "__ffi_repr__", &hook_value), XFFI_OK);
  xffi_object_dec_ref(hook);
  const xffi_type_info *enum_info;
  assert_int_equal(xffi_type_info_get_by_key(&enum_info, "ffi.Enum"), XFFI_OK);
  assert_int_equal(xffi_type_register(&color_type, "test.repr.Color", enum_info->type_index), XFFI_OK);
  return 0;
}

/* ---- Leaves ---- */

static void test_plain_values_print_as_tvm_ffi_does(void **state) {
  (void)state;
  check_repr(xffi_any_none(), "None");
  check_repr(xffi_any_bool(1), "True");
  check_repr(xffi_any_bool(0), "False");
  check_repr(xffi_any_int(42), "42");
  check_repr(xffi_any_int(INT64_MIN), "-9223372036854775808");
  check_repr(xffi_any_float(3.14), "3.14");
  check_repr(xffi_any_float(0.0), "0");
  check_repr(xffi_any_float(1e10), "1e+10");
  check_repr(xffi_any_float(-1.5), "-1.5");
  check_repr(xffi_any_float(INFINITY), "inf");
  check_repr(xffi_any_dtype((DLDataType){kDLFloat, 32, 1}), "float32");
  check_repr(xffi_any_dtype((DLDataType){kDLInt, 8, 4}), "int8x4");
  check_repr(xffi_any_dtype((DLDataType){kDLBool, 8, 1}), "bool");
  check_repr(xffi_any_device((DLDevice){kDLCUDA, 1}), "cuda:1");
  check_repr(xffi_any_device((DLDevice){kDLTrn, 0}), "trn:0");
  check_repr(xffi_any_device((DLDevice){(DLDeviceType)99, 3}), "unknown:3");
  check_repr(xffi_any_ptr((void *)0x10), "void*");
}

static void test_strings_are_python_literals(void **state) {
  (void)state;
  check_repr_owned(str_value(""), "\"\"");
  check_repr_owned(str_value("hello"), "\"hello\"");                    /* small */
  check_repr_owned(str_value("hello world"), "\"hello world\"");        /* heap */
  check_repr(xffi_any_c_str("a C string view"), "\"a C string view\""); /* a view becomes a string */
  check_repr_owned(str_value("a\"b\\c\n\t\r"), "\"a\\\"b\\\\c\\n\\t\\r\"");
  check_repr_owned(str_value("\x01\x7f"), "\"\\x01\\x7f\"");
  xffi_any nul;
  assert_int_equal(xffi_any_from_str(&nul, "a\0b", 3), XFFI_OK);
  check_repr_owned(nul, "\"a\\x00b\"");
  check_repr_owned(str_value("\x1b[1;31mred\x1b[0m \x1b[K"), "\"\\x1b[1;31mred\\x1b[0m \\x1b[K\"");
  check_repr_owned(str_value("\x1b[1x"), "\"\\x1b[1x\""); /* not a colour: only ESC escaped */
  check_repr_owned(str_value("caf\xc3\xa9 \xe2\x82\xac"), "\"caf\\u00e9 \\u20ac\""); /* 2 and 3 bytes */
  check_repr_owned(str_value("\xf0\x9f\x98\x80"), "\"\\U0001f600\"");                /* 4 bytes */
  check_repr_owned(str_value("\xff\xc3 \xe2\x82"), "\"\\xff\\xc3 \\xe2\\x82\"");     /* broken sequences */
}

static void test_bytes_and_bigints(void **state) {
  (void)state;
  check_repr_owned(bytes_value("ab\"\\\0\xff", 6), "b\"ab\\x22\\x5c\\x00\\xff\"");
  check_repr_owned(bytes_value("longer than seven", 17), "b\"longer than seven\"");
  /* 2^64 and -(2^64) - 1: two 64-bit words, least significant first. */
  int64_t words[2] = {0, 1};
  xffi_byte_array content = {(const char *)words, sizeof(words)};
  xffi_any big;
  assert_int_equal(TVMFFIBigIntFromByteArray(&content, &big), XFFI_OK);
  assert_int_equal(big.type_index, XFFI_TYPE_BIGINT);
  check_repr_owned(big, "18446744073709551616");
  int64_t negative[2] = {-1, -2};
  content.data = (const char *)negative;
  assert_int_equal(TVMFFIBigIntFromByteArray(&content, &big), XFFI_OK);
  check_repr_owned(big, "-18446744073709551617");
  int64_t wide[3] = {0, 0, 1}; /* 2^128 */
  content.data = (const char *)wide;
  content.size = sizeof(wide);
  assert_int_equal(TVMFFIBigIntFromByteArray(&content, &big), XFFI_OK);
  check_repr_owned(big, "340282366920938463463374607431768211456");
}

static void test_containers(void **state) {
  (void)state;
  xffi_any three[3] = {xffi_any_int(1), xffi_any_int(2), xffi_any_int(3)};
  check_repr_owned(array_of(three, 3), "(1, 2, 3)");
  check_repr_owned(array_of(three, 1), "(1,)");
  check_repr_owned(array_of(NULL, 0), "()");
  check_repr_owned(list_of(three, 1), "[1]");
  check_repr_owned(list_of(NULL, 0), "[]");
  xffi_any inner = list_of(three, 2);
  xffi_any mixed[4] = {inner, str_value("x"), xffi_any_none(), xffi_any_bool(1)};
  check_repr_owned(array_of(mixed, 4), "([1, 2], \"x\", None, True)");
  xffi_any keys[2] = {str_value("a"), xffi_any_int(3)}, values[2] = {inner, xffi_any_float(0.5)};
  xffi_object *m;
  assert_int_equal(xffi_map_new(&m, keys, values, 2), XFFI_OK);
  check_repr_owned(xffi_any_object(m), "{\"a\": [1, 2], 3: 0.5}");
  assert_int_equal(xffi_dict_new(&m, keys, values, 1), XFFI_OK);
  check_repr_owned(xffi_any_object(m), "{\"a\": [1, 2]}");
  assert_int_equal(xffi_map_new(&m, NULL, NULL, 0), XFFI_OK);
  check_repr_owned(xffi_any_object(m), "{}");
  xffi_any_release(&inner);
  int64_t dims[2] = {5, 6};
  xffi_object *shape;
  assert_int_equal(xffi_shape_new(&shape, dims, 2), XFFI_OK);
  check_repr_owned(xffi_any_object(shape), "Shape(5, 6)");
  xffi_object *tensor;
  assert_int_equal(xffi_tensor_new(&tensor, dims, 2, (DLDataType){kDLFloat, 32, 1}), XFFI_OK);
  check_repr(xffi_any_object(tensor), "float32[5, 6]@cpu:0");
  xffi_repr_options with_address = {0, 0, 1};
  char expected[64];
  snprintf(expected, sizeof(expected), "float32[5, 6]@cpu:0@0x%" PRIxPTR, (uintptr_t)tensor);
  check_repr_with(xffi_any_object(tensor), &with_address, expected);
  xffi_object_dec_ref(tensor);
}

static void test_sentinels(void **state) {
  (void)state;
  check_repr_owned(call_builtin_ok("ffi.GetInvalidObject", NULL, 0), "<MISSING>");
  xffi_any kwargs = call_builtin_ok("ffi.GetKwargsObject", NULL, 0);
  xffi_any items[2] = {kwargs, xffi_any_int(1)};
  check_repr_owned(array_of(items, 2), "(<KWARGS>, 1)");
  xffi_any_release(&kwargs);
}

/* ---- Reflected objects ---- */

static void test_objects_print_their_shown_fields(void **state) {
  (void)state;
  check_repr_owned(node_value(node_type, 7, xffi_any_none()), "test.repr.Node(value=7, next=None)");
  xffi_any leaf = node_value(node_type, 1, str_value("s"));
  check_repr_owned(node_value(node_type, 2, leaf), "test.repr.Node(value=2, next=test.repr.Node(value=1, next=\"s\"))");
  /* Parent's fields first, a name declared again shown once, repr-off left out. */
  node *d = new_node(derived_type, 3, xffi_any_none());
  d->extra = 4;
  check_repr_owned(xffi_any_object(&d->header), "test.repr.Derived(value=3, next=None, extra=4)");
  /* No shown field: the key alone (with the address when asked). */
  node *bare = new_node(bare_type, 0, xffi_any_none());
  check_repr(xffi_any_object(&bare->header), "test.repr.Bare");
  char expected[128];
  snprintf(expected, sizeof(expected), "test.repr.Bare@0x%" PRIxPTR, (uintptr_t)bare);
  xffi_repr_options with_address = {0, 0, 1};
  check_repr_with(xffi_any_object(&bare->header), &with_address, expected);
  xffi_object_dec_ref(&bare->header);
  xffi_any_release(&leaf);
}

static void test_enums_print_their_name(void **state) {
  (void)state;
  color *c = calloc(1, sizeof(color));
  assert_non_null(c);
  xffi_object_init(&c->header, color_type, color_deleter);
  c->int_index = 1;
  c->str_index = str_value("RED");
  check_repr(xffi_any_object(&c->header), "test.repr.Color.RED");
  xffi_any two[2] = {xffi_any_object(&c->header), xffi_any_object(&c->header)};
  check_repr_owned(list_of(two, 2), "[test.repr.Color.RED, test.repr.Color.RED]");
  xffi_object_dec_ref(&c->header);
}

static void test_sharing_prints_in_full_and_cycles_as_dots(void **state) {
  (void)state;
  xffi_any leaf = node_value(node_type, 1, xffi_any_none());
  xffi_any twice[2] = {leaf, leaf};
  xffi_any shared = array_of(twice, 2);
  xffi_any outer_items[2] = {shared, shared};
  check_repr_owned(array_of(outer_items, 2),
                   "((test.repr.Node(value=1, next=None), test.repr.Node(value=1, next=None)), "
                   "(test.repr.Node(value=1, next=None), test.repr.Node(value=1, next=None)))");
  xffi_any_release(&shared);
  xffi_any_release(&leaf);
  /* A node whose next is a List holding the node itself. */
  node *n = new_node(node_type, 5, xffi_any_none());
  xffi_object *list;
  assert_int_equal(xffi_list_new(&list, NULL, 0), XFFI_OK);
  xffi_any self = xffi_any_object(&n->header);
  assert_int_equal(xffi_list_push(list, &self), XFFI_OK);
  n->next = xffi_any_object(list); /* the node owns the list: a reference cycle */
  check_repr(self, "test.repr.Node(value=5, next=[...])");
  xffi_repr_options with_address = {0, 0, 1};
  char expected[160];
  snprintf(expected, sizeof(expected),
           "test.repr.Node@0x%" PRIxPTR "(value=5, next=[...@0x%" PRIxPTR "]@0x%" PRIxPTR ")", (uintptr_t)n,
           (uintptr_t)n, (uintptr_t)list);
  check_repr_with(self, &with_address, expected);
  /* Break the cycle to free both. */
  assert_int_equal(xffi_list_clear(list), XFFI_OK);
  xffi_object_dec_ref(&n->header);
}

/* ---- __ffi_repr__ hooks ---- */

static void test_hooks_print_with_the_repr_function(void **state) {
  (void)state;
  xffi_any inner = node_value(node_type, 1, xffi_any_none());
  xffi_any hooked = node_value(hooked_type, 0, inner);
  check_repr(hooked, "<H:test.repr.Node(value=1, next=None)>");
  /* Nested: a hooked object inside a container inside a hooked object, printed twice (the second from the first's
   * text). */
  xffi_any items[2] = {hooked, hooked};
  xffi_any pair = array_of(items, 2);
  xffi_any outer = node_value(hooked_type, 0, pair);
  check_repr(outer, "<H:(<H:test.repr.Node(value=1, next=None)>, <H:test.repr.Node(value=1, next=None)>)>");
  xffi_any_release(&outer);
  xffi_any_release(&pair);
  xffi_any_release(&hooked);
  xffi_any_release(&inner);
}

/* Hooks recurse through the printer (C stack): 256 levels, then the marker. */
static void test_hook_nesting_is_bounded(void **state) {
  (void)state;
  xffi_any chain = xffi_any_int(0);
  for (int i = 0; i < 300; ++i) {
    xffi_any next = node_value(hooked_type, 0, chain);
    xffi_any_release(&chain);
    chain = next;
  }
  char expected[300 * 4 + 64];
  size_t n = 0;
  for (int i = 0; i < 256; ++i) memcpy(expected + n, "<H:", 3), n += 3;
  memcpy(expected + n, "<depth limit>", 13), n += 13;
  for (int i = 0; i < 256; ++i) expected[n++] = '>';
  expected[n] = '\0';
  check_repr(chain, expected);
  xffi_any_release(&chain);
}

static void test_hook_errors_are_reported(void **state) {
  (void)state;
  xffi_object *out = (xffi_object *)0x1;
  xffi_any refusing = node_value(hooked_type, -1, xffi_any_none());
  assert_int_equal(xffi_repr(&out, &refusing), XFFI_FAIL);
  assert_null(out);
  assert_raised(XFFI_KIND_VALUE, "hook refuses -1");
  xffi_any_release(&refusing);
  xffi_any not_a_string = node_value(hooked_type, -2, xffi_any_none());
  assert_int_equal(xffi_repr(&out, &not_a_string), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "ffi.ReprPrint: __ffi_repr__ of test.repr.Hooked returned int, expected a str");
  xffi_any_release(&not_a_string);
  /* The repr Function kept past its print: an error, not a dangling printer. */
  xffi_any keeper = node_value(hooked_type, -3, xffi_any_int(1));
  check_repr(keeper, "<H:1>");
  assert_non_null(kept_callback);
  xffi_any result = xffi_any_none(), arg = xffi_any_int(1);
  assert_int_equal(xffi_function_call(kept_callback, &arg, 1, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "the repr Function given to __ffi_repr__ was called after its print ended");
  xffi_object_dec_ref(kept_callback);
  kept_callback = NULL;
  xffi_any_release(&keeper);
  /* A failing getter: the error comes back, nothing leaks (ASan checks). */
  xffi_any failing = node_value(failing_type, 1, xffi_any_none());
  xffi_any items[2] = {xffi_any_int(0), failing};
  xffi_any list = list_of(items, 2);
  assert_int_equal(xffi_repr(&out, &list), XFFI_FAIL);
  expect_error(XFFI_KIND_RUNTIME, "the getter of test.repr.Failing.broken fails");
  xffi_any_release(&list);
  xffi_any_release(&failing);
}

/* ---- The runtime's AccessPath and AccessStep (c/repr_access_path.c) ---- */

/* Calls method name of AccessPath with args; returns the owned result. */
static xffi_any path_method(const char *name, const xffi_any *args, int32_t n) {
  const xffi_type_info *info;
  assert_int_equal(xffi_type_info_get_by_key(&info, "ffi.reflection.AccessPath"), XFFI_OK);
  for (int32_t i = 0; i < info->num_methods; ++i) {
    if (strcmp(info->methods[i].name.data, name) != 0) continue;
    xffi_any result = xffi_any_none();
    assert_int_equal(xffi_function_call(info->methods[i].method.v_obj, args, n, &result), XFFI_OK);
    return result;
  }
  fail_msg("AccessPath has no method %s", name);
  return xffi_any_none();
}

static void test_access_paths_print_as_paths(void **state) {
  (void)state;
  xffi_any path = path_method("_root", NULL, 0);
  check_repr(path, "<root>");
  static const struct {
    const char *method;
    int is_int;
    const char *text;
  } steps[] = {{"_attr", 0, "x"},         {"_array_item", 1, NULL},         {"_map_item", 0, "k"},
               {"_attr_missing", 0, "y"}, {"_array_item_missing", 1, NULL}, {"_map_item_missing", 1, NULL}};
  for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); ++i) {
    xffi_any args[2] = {path, steps[i].is_int ? xffi_any_int((int64_t)i) : xffi_any_c_str(steps[i].text)};
    xffi_any next = path_method(steps[i].method, args, 2);
    xffi_any_release(&path);
    path = next;
  }
  check_repr(path, "<root>.x[1][\"k\"][<missing:\"y\">][<missing:4>][<missing:5>]");
  /* The hooks check their arguments. */
  const xffi_type_attr_column *hooks;
  assert_int_equal(xffi_type_attr_column_lookup(&hooks, "__ffi_repr__"), XFFI_OK);
  xffi_object *hook = hooks->data[path.v_obj->type_index - hooks->begin_index].v_obj;
  xffi_any result = xffi_any_none(), bad[2] = {xffi_any_int(1), xffi_any_int(2)};
  assert_int_equal(xffi_function_call(hook, bad, 2, &result), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE,
               "ffi.reflection.AccessPath.__ffi_repr__: argument 0 expected ffi.reflection.AccessPath, got int");
  assert_int_equal(xffi_function_call(hook, &path, 1, &result), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "ffi.reflection.AccessPath.__ffi_repr__: expected 2 arguments (self, repr), got 1");
  bad[0] = path;
  assert_int_equal(xffi_function_call(hook, bad, 2, &result), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "ffi.reflection.AccessPath.__ffi_repr__: argument 1 expected a Function, got int");
  xffi_any_release(&path);
}

/* ---- Bounds ---- */

static void test_million_deep_list_uses_no_c_recursion(void **state) {
  (void)state;
  enum { DEPTH = 1000000 };
  xffi_any one = xffi_any_int(1);
  xffi_object *list;
  assert_int_equal(xffi_list_new(&list, &one, 1), XFFI_OK);
  for (int i = 1; i < DEPTH; ++i) {
    xffi_object *outer;
    xffi_any inner = xffi_any_object(list);
    assert_int_equal(xffi_list_new(&outer, &inner, 1), XFFI_OK);
    xffi_object_dec_ref(list);
    list = outer;
  }
  double begun = test_cpu_seconds();
  xffi_object *text;
  xffi_any value = xffi_any_object(list);
  assert_int_equal(xffi_repr(&text, &value), XFFI_OK);
  double took = test_cpu_seconds() - begun;
  xffi_byte_array s;
  xffi_any view = xffi_any_object(text);
  assert_int_equal(xffi_any_to_str(&s, &view), XFFI_OK);
  assert_int_equal(s.size, 2 * (size_t)DEPTH + 1);
  assert_int_equal(s.data[0], '['), assert_int_equal(s.data[DEPTH - 1], '['), assert_int_equal(s.data[DEPTH], '1');
  assert_int_equal(s.data[DEPTH + 1], ']'), assert_int_equal(s.data[2 * DEPTH], ']');
  assert_true(took < 10.0); /* about 1 s of CPU in a Debug build, 0.5-0.8 s in Release: generous */
  xffi_object_dec_ref(text);
  /* Deeper than max_depth: the marker. */
  xffi_repr_options shallow = {3, 0, 0};
  check_repr_with(value, &shallow, "[[[<depth limit>]]]");
  xffi_object_dec_ref(list); /* releasing a million-deep List is bounded-stack too */
}

static void test_size_bound_cuts_exponential_sharing(void **state) {
  (void)state;
  /* Each level holds the one below twice: 2^60 leaves if printed in full. */
  xffi_any level = xffi_any_int(7);
  xffi_object *a;
  assert_int_equal(xffi_array_new(&a, &level, 1), XFFI_OK);
  level = xffi_any_object(a);
  for (int i = 0; i < 60; ++i) {
    xffi_any two[2] = {level, level};
    xffi_any next = array_of(two, 2);
    xffi_any_release(&level);
    level = next;
  }
  xffi_repr_options small = {0, 40, 0};
  check_repr_with(level, &small, "((((((((((((((((((((((((((((((((((((((((<truncated>");
  /* The default bound (64 MiB) ends it too. */
  xffi_object *text;
  assert_int_equal(xffi_repr(&text, &level), XFFI_OK);
  xffi_byte_array s;
  xffi_any view = xffi_any_object(text);
  assert_int_equal(xffi_any_to_str(&s, &view), XFFI_OK);
  assert_int_equal(s.size, (size_t)XFFI_REPR_DEFAULT_MAX_BYTES + strlen("<truncated>"));
  xffi_object_dec_ref(text);
  xffi_any_release(&level);
  /* A cut inside a leaf keeps what fits. */
  xffi_repr_options tiny = {0, 6, 0};
  check_repr_with(xffi_any_int(1234567890), &tiny, "123456<truncated>");
}

/* ---- Bad input and the global ---- */

static void test_bad_input_is_an_error(void **state) {
  (void)state;
  xffi_object *out = (xffi_object *)0x1;
  xffi_any v = xffi_any_int(1);
  assert_int_equal(xffi_repr(NULL, &v), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_repr_with: out is NULL");
  assert_int_equal(xffi_repr(&out, NULL), XFFI_FAIL);
  assert_null(out);
  expect_error(XFFI_KIND_VALUE, "xffi_repr_with: value is NULL");
  xffi_any malformed = {XFFI_TYPE_STRING, 0, {.v_obj = NULL}};
  assert_int_equal(xffi_repr(&out, &malformed), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_repr_with: value is malformed");
  xffi_repr_options negative = {-1, 0, 0};
  assert_int_equal(xffi_repr_with(&out, &v, &negative), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_repr_with: options->max_depth must be >= 0 (0 for the default), got -1");
  negative = (xffi_repr_options){0, -5, 0};
  assert_int_equal(xffi_repr_with(&out, &v, &negative), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_repr_with: options->max_bytes must be >= 0 (0 for the default), got -5");
  check_repr_with(v, NULL, "1");
}

static void test_repr_print_global(void **state) {
  (void)state;
  xffi_any three[2] = {xffi_any_int(1), str_value("a")};
  xffi_any array = array_of(three, 2);
  xffi_any text = CALL_OK("ffi.ReprPrint", array);
  xffi_byte_array s;
  assert_int_equal(xffi_any_to_str(&s, &text), XFFI_OK);
  assert_int_equal(s.size, strlen("(1, \"a\")"));
  assert_memory_equal(s.data, "(1, \"a\")", s.size);
  xffi_any_release(&text);
  xffi_any_release(&array);
  xffi_any result = xffi_any_none();
  assert_int_equal(call_builtin("ffi.ReprPrint", NULL, 0, &result), XFFI_FAIL);
  expect_error(XFFI_KIND_TYPE, "ffi.ReprPrint: expected 1 argument, got 0");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain_values_print_as_tvm_ffi_does),
      cmocka_unit_test(test_strings_are_python_literals),
      cmocka_unit_test(test_bytes_and_bigints),
      cmocka_unit_test(test_containers),
      cmocka_unit_test(test_sentinels),
      cmocka_unit_test(test_objects_print_their_shown_fields),
      cmocka_unit_test(test_enums_print_their_name),
      cmocka_unit_test(test_sharing_prints_in_full_and_cycles_as_dots),
      cmocka_unit_test(test_hooks_print_with_the_repr_function),
      cmocka_unit_test(test_hook_nesting_is_bounded),
      cmocka_unit_test(test_hook_errors_are_reported),
      cmocka_unit_test(test_access_paths_print_as_paths),
      cmocka_unit_test(test_million_deep_list_uses_no_c_recursion),
      cmocka_unit_test(test_size_bound_cuts_exponential_sharing),
      cmocka_unit_test(test_bad_input_is_an_error),
      cmocka_unit_test(test_repr_print_global),
  };
  return cmocka_run_group_tests(tests, setup_types, NULL);
}
