/* Recursive equality, ordering and hashing, and deep copy (xffi/recursive.h,
 * c/recursive_*.c, c/deep_copy.c, and the ffi.* globals of
 * c/globals_recursive.c): tvm-ffi's semantics and hash values, cycles and
 * sharing, reflected objects and their hooks, 10^6-deep values, bad input. */
#include <math.h>
#include <stdint.h>

#include "test_util.h"
#include "test_values.h"

#include <xffi/array.h>
#include <xffi/map.h>
#include <xffi/recursive.h>
#include <xffi/reflection.h>
#include <xffi/shape.h>
#include <xffi/tvm_ffi.h>

#include "lib/walk/recursive_walk.h"

/* ---- Helpers ---- */

static int64_t hash_of(xffi_any v) {
  int64_t h = 0;
  assert_int_equal(xffi_recursive_hash(&h, &v), XFFI_OK);
  return h;
}

static int equal(xffi_any a, xffi_any b) {
  int eq = -1;
  assert_int_equal(xffi_recursive_equal(&eq, &a, &b), XFFI_OK);
  return eq;
}

static int order(xffi_any a, xffi_any b) {
  int c = 9;
  assert_int_equal(xffi_recursive_compare(&c, &a, &b), XFFI_OK);
  return c;
}

static void order_fails(xffi_any a, xffi_any b, const char *kind, const char *fragment) {
  int c = 9;
  assert_int_equal(xffi_recursive_compare(&c, &a, &b), XFFI_FAIL);
  assert_raised(kind, fragment);
}

/* ---- A reflected type: Point {x: int, payload: Any, note: int (compare off)} ---- */

typedef struct point {
  xffi_object header;
  int64_t x;
  xffi_any payload;
  int64_t note;
} point;

static void point_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) xffi_any_release(&((point *)self)->payload);
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static int get_int(void *field, xffi_any *out) {
  *out = xffi_any_int(*(int64_t *)field);
  return XFFI_OK;
}
static int set_int(void *field, const xffi_any *value) { return xffi_any_to_int((int64_t *)field, value); }
static int get_any(void *field, xffi_any *out) { return xffi_any_copy(out, (const xffi_any *)field); }
static int set_any(void *field, const xffi_any *value) {
  xffi_any copy;
  if (xffi_any_copy(&copy, value) != XFFI_OK) return XFFI_FAIL;
  xffi_any_release((xffi_any *)field);
  *(xffi_any *)field = copy;
  return XFFI_OK;
}

static xffi_any point_new(int32_t type, int64_t x, xffi_any payload, int64_t note) {
  point *p = calloc(1, sizeof(point));
  assert_non_null(p);
  xffi_object_init(&p->header, type, point_deleter);
  p->x = x;
  assert_int_equal(xffi_any_copy(&p->payload, &payload), XFFI_OK);
  p->note = note;
  return xffi_any_object(&p->header);
}

/* __ffi_shallow_copy__: a new Point with the same field values. */
static int point_shallow_copy(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  assert_int_equal(num_args, 1);
  const point *p = (const point *)(const void *)args[0].v_obj;
  *result = point_new(args[0].type_index, p->x, p->payload, p->note);
  return XFFI_OK;
}

static void add_field(int32_t type, const char *name, int64_t offset, int is_any, int64_t flags) {
  xffi_field_info f;
  memset(&f, 0, sizeof(f));
  f.name = (xffi_byte_array){name, strlen(name)};
  f.flags = flags | XFFI_FIELD_WRITABLE;
  f.size = is_any ? 16 : 8;
  f.alignment = 8;
  f.offset = offset;
  f.getter = is_any ? get_any : get_int;
  f.setter = (void *)(uintptr_t)(is_any ? set_any : set_int);
  f.default_value_or_factory = xffi_any_none();
  f.field_static_type_index = is_any ? XFFI_TYPE_ANY : XFFI_TYPE_INT;
  assert_int_equal(xffi_type_register_field(type, &f), XFFI_OK);
}

static void set_attr_function(int32_t type, const char *name, xffi_function_callback callback) {
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, callback, NULL, NULL), XFFI_OK);
  xffi_any v = xffi_any_object(fn);
  assert_int_equal(xffi_type_register_attr(type, name, &v), XFFI_OK);
  xffi_object_dec_ref(fn);
}

/* A Point type of this key (registered once per key). */
static int32_t point_type(const char *key, int copyable) {
  const xffi_type_info *info = NULL;
  if (xffi_type_info_get_by_key(&info, key) == XFFI_OK) return info->type_index;
  xffi_object_dec_ref(xffi_error_move_raised());
  int32_t t = -1;
  assert_int_equal(xffi_type_register(&t, key, XFFI_TYPE_OBJECT), XFFI_OK);
  add_field(t, "x", offsetof(point, x), 0, 0);
  add_field(t, "payload", offsetof(point, payload), 1, 0);
  add_field(t, "note", offsetof(point, note), 0, XFFI_FIELD_COMPARE_OFF);
  if (copyable) set_attr_function(t, "__ffi_shallow_copy__", point_shallow_copy);
  return t;
}

/* ---- Hash: tvm-ffi's numbers (from tvm-ffi 0.1.15.post2's runtime, same values) ---- */

static void test_hash_values_are_tvm_ffi_s(void **state) {
  (void)state;
  assert_int_equal(hash_of(xffi_any_none()), INT64_C(2654435769));
  assert_int_equal(hash_of(xffi_any_int(1)), INT64_C(2654435835));
  assert_int_equal(hash_of(xffi_any_bool(1)), INT64_C(2654435896));
  assert_int_equal(hash_of(xffi_any_float(2.5)), INT64_C(4612811920988666490));
  assert_int_equal(hash_of(xffi_any_float(-0.0)), INT64_C(2654435962));
  assert_int_equal(hash_of(xffi_any_float(0.0)), INT64_C(2654435962));
  assert_int_equal(hash_of(xffi_any_float(NAN)), INT64_C(9221120239695526522));
  assert_int_equal(hash_of(xffi_any_float(-NAN)), INT64_C(9221120239695526522));
  xffi_any ab = str("ab"), long_text = str("a much longer string!");
  assert_int_equal(hash_of(ab), INT64_C(2654465067));
  assert_int_equal(hash_of(xffi_any_c_str("ab")), INT64_C(2654465067));
  assert_int_equal(hash_of(long_text), INT64_C(3335847793));
  xffi_any xy;
  assert_int_equal(xffi_any_from_bytes(&xy, "xy", 2), XFFI_OK);
  assert_int_equal(hash_of(xy), INT64_C(2654471043));
  xffi_any s = str("s");
  xffi_any items[] = {xffi_any_int(1), s, xffi_any_float(2.0)};
  xffi_any arr = array_of(items, 3);
  assert_int_equal(hash_of(arr), INT64_C(169988668770875918));
  xffi_any empty = array_of(NULL, 0), empty_map = map_of(NULL, NULL, 0);
  assert_int_equal(hash_of(empty), INT64_C(-2010874065908478216));
  assert_int_equal(hash_of(empty_map), INT64_C(-6752507338210542304));
  xffi_any inner_items[] = {xffi_any_int(2), xffi_any_int(3)};
  xffi_any inner = array_of(inner_items, 2);
  xffi_any list_items[] = {xffi_any_int(1), inner};
  xffi_any list = list_of(list_items, 2);
  assert_int_equal(hash_of(list), INT64_C(-4722613887851177539));
  xffi_any pair_items[] = {xffi_any_int(1), xffi_any_int(2)};
  xffi_any pair = array_of(pair_items, 2);
  xffi_any keys[] = {str("a"), str("b")}, values[] = {xffi_any_int(1), pair};
  xffi_any map = map_of(keys, values, 2);
  assert_int_equal(hash_of(map), INT64_C(-8049154896903474104));
  /* Maps hash their entries in sorted order: insertion order does not matter. */
  xffi_any keys_rev[] = {keys[1], keys[0]}, values_rev[] = {values[1], values[0]};
  xffi_any map_rev = map_of(keys_rev, values_rev, 2);
  assert_int_equal(hash_of(map_rev), hash_of(map));
  int64_t dims[] = {2, 3};
  xffi_object *shape = NULL;
  assert_int_equal(xffi_shape_new(&shape, dims, 2), XFFI_OK);
  assert_int_equal(hash_of(xffi_any_object(shape)), INT64_C(284796581919864661));
  int64_t words[] = {0, 65536}; /* 2**80 */
  xffi_byte_array content = {(const char *)words, sizeof(words)};
  xffi_any big;
  assert_int_equal(TVMFFIBigIntFromByteArray(&content, &big), 0);
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
  /* A BigInt hashes its words' bytes in memory, as tvm-ffi's does: the value
   * measured on the wheel holds on little-endian hosts. */
  assert_int_equal(hash_of(big), INT64_C(65536));
#endif
  xffi_any devices[] = {xffi_any_device((DLDevice){kDLCUDA, 1})};
  assert_int_equal(hash_of(devices[0]), INT64_C(175247678514));
  xffi_object *objects[] = {long_text.v_obj, arr.v_obj, empty.v_obj,   empty_map.v_obj, inner.v_obj, list.v_obj,
                            pair.v_obj,      map.v_obj, map_rev.v_obj, shape,           big.v_obj};
  for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); ++i) xffi_object_dec_ref(objects[i]);
}

/* ---- Equality and ordering ---- */

static void test_plain_values_compare_as_tvm_ffi_does(void **state) {
  (void)state;
  assert_true(equal(xffi_any_float(-0.0), xffi_any_float(0.0)));
  assert_true(equal(xffi_any_float(NAN), xffi_any_float(NAN)));
  assert_false(equal(xffi_any_float(NAN), xffi_any_float(1.0)));
  order_fails(xffi_any_float(NAN), xffi_any_float(1.0), XFFI_KIND_TYPE, "Cannot order NaN values");
  assert_int_equal(order(xffi_any_int(1), xffi_any_int(2)), -1);
  assert_int_equal(order(xffi_any_none(), xffi_any_int(-5)), -1);
  assert_int_equal(order(xffi_any_int(-5), xffi_any_none()), 1);
  assert_false(equal(xffi_any_int(1), xffi_any_bool(1))); /* different kinds */
  order_fails(xffi_any_int(1), str("a"), XFFI_KIND_TYPE,
              "Cannot compare values of different types: int vs ffi.SmallStr");
  /* A small string and a String object with the same bytes are one string. */
  xffi_any long_a = str("abcdefghij"), long_b = str("abcdefghik");
  assert_int_equal(order(long_a, long_b), -1);
  assert_int_equal(order(str("abc"), str("ab")), 1);
  assert_true(equal(str("ab"), xffi_any_c_str("ab")));
  xffi_any bytes_ab;
  assert_int_equal(xffi_any_from_bytes(&bytes_ab, "ab", 2), XFFI_OK);
  assert_false(equal(str("ab"), bytes_ab)); /* a string never equals bytes */
  /* Opaque pointers: equal or not, never ordered. */
  int a = 0, b = 0;
  assert_false(equal(xffi_any_ptr(&a), xffi_any_ptr(&b)));
  order_fails(xffi_any_ptr(&a), xffi_any_ptr(&b), XFFI_KIND_TYPE, "Cannot order values of type");
  /* ints against BigInts by value. */
  int64_t words[] = {0, 1}; /* 2**64 */
  xffi_byte_array content = {(const char *)words, sizeof(words)};
  xffi_any big;
  assert_int_equal(TVMFFIBigIntFromByteArray(&content, &big), 0);
  assert_int_equal(order(xffi_any_int(INT64_MAX), big), -1);
  assert_int_equal(order(big, xffi_any_int(-1)), 1);
  assert_false(equal(xffi_any_int(1), big));
  xffi_object_dec_ref(long_a.v_obj);
  xffi_object_dec_ref(long_b.v_obj);
  xffi_object_dec_ref(big.v_obj);
}

/* A Device's type is an int32 (a C enum may be unsigned): one outside the
 * enum, as tvm-ffi's JSON graph reads [-2, 1], hashes to the wheel's number
 * and orders below type 1, as on tvm-ffi's runtime. */
static void test_negative_device_types_hash_and_order_as_int32(void **state) {
  (void)state;
  xffi_any negative = xffi_any_device(xffi_device_make(-2, 1)), cpu = xffi_any_device(xffi_device_make(1, 1));
  assert_int_equal(hash_of(negative), INT64_C(175247676215));
  assert_int_equal(order(negative, cpu), -1);
  assert_int_equal(order(cpu, negative), 1);
}

static void test_containers_compare_element_by_element(void **state) {
  (void)state;
  xffi_any one_two[] = {xffi_any_int(1), xffi_any_int(2)}, one_three[] = {xffi_any_int(1), xffi_any_int(3)};
  xffi_any a = array_of(one_two, 2), b = array_of(one_two, 2), c = array_of(one_three, 2), d = array_of(one_two, 1);
  xffi_any l = list_of(one_two, 2);
  assert_true(equal(a, b));
  assert_int_equal(order(a, c), -1);
  assert_int_equal(order(d, a), -1); /* a prefix is smaller */
  assert_false(equal(a, l));         /* Array and List differ */
  order_fails(a, l, XFFI_KIND_TYPE, "Cannot compare values of different types: ffi.Array vs ffi.List");
  xffi_any k[] = {str("x"), str("y")}, v1[] = {xffi_any_int(1), xffi_any_int(2)},
           v2[] = {xffi_any_int(1), xffi_any_int(3)};
  xffi_any k_rev[] = {k[1], k[0]}, v1_rev[] = {v1[1], v1[0]};
  xffi_any m1 = map_of(k, v1, 2), m1_rev = map_of(k_rev, v1_rev, 2), m2 = map_of(k, v2, 2), m_short = map_of(k, v1, 1);
  assert_true(equal(m1, m1_rev));
  assert_false(equal(m1, m2));
  assert_false(equal(m1, m_short));
  assert_int_equal(order(m1, m1_rev), 0);
  order_fails(m1, m2, XFFI_KIND_TYPE, "Cannot order Map/Dict values");
  order_fails(m1, m_short, XFFI_KIND_TYPE, "Cannot order Map/Dict values");
  /* A difference under a Map cannot order its container either. */
  xffi_any wrap1[] = {m1}, wrap2[] = {m2};
  xffi_any w1 = array_of(wrap1, 1), w2 = array_of(wrap2, 1);
  order_fails(w1, w2, XFFI_KIND_TYPE, "Cannot order Map/Dict values");
  assert_false(equal(w1, w2));
  xffi_object *objects[] = {a.v_obj,      b.v_obj,  c.v_obj,       d.v_obj,  l.v_obj, m1.v_obj,
                            m1_rev.v_obj, m2.v_obj, m_short.v_obj, w1.v_obj, w2.v_obj};
  for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); ++i) xffi_object_dec_ref(objects[i]);
}

static void test_cycles_are_equal_and_hash_but_cannot_be_ordered(void **state) {
  (void)state;
  xffi_any one = xffi_any_int(1);
  xffi_any a = list_of(&one, 1), b = list_of(&one, 1);
  assert_int_equal(xffi_list_push(a.v_obj, &a), XFFI_OK); /* a = [1, a] */
  assert_int_equal(xffi_list_push(b.v_obj, &b), XFFI_OK); /* b = [1, b] */
  assert_true(equal(a, b));
  assert_int_equal(hash_of(a), hash_of(b));
  order_fails(a, b, XFFI_KIND_VALUE, "RecursiveCompare: cyclic reference detected in ordering");
  /* Break the cycles so the lists can be freed. */
  assert_int_equal(xffi_list_clear(a.v_obj), XFFI_OK);
  assert_int_equal(xffi_list_clear(b.v_obj), XFFI_OK);
  xffi_object_dec_ref(a.v_obj);
  xffi_object_dec_ref(b.v_obj);
}

static void test_objects_compare_and_hash_by_their_fields(void **state) {
  (void)state;
  int32_t t = point_type("test.recursive.Point", 1), u = point_type("test.recursive.Other", 1);
  xffi_any text = str("payload text, long");
  xffi_any p1 = point_new(t, 1, text, 10), p2 = point_new(t, 1, text, 20), p3 = point_new(t, 2, text, 10);
  xffi_any q = point_new(u, 1, text, 10);
  assert_true(equal(p1, p2)); /* note is compare-off */
  assert_int_equal(hash_of(p1), hash_of(p2));
  assert_false(equal(p1, p3));
  assert_int_equal(order(p1, p3), -1);
  assert_int_equal(order(p3, p1), 1);
  assert_false(equal(p1, q));
  order_fails(p1, q, XFFI_KIND_TYPE, "Cannot compare values of different types");
  /* An object hashes as its type key's hash combined with each field's. */
  const xffi_type_info *info = NULL;
  assert_int_equal(xffi_type_info_get(&info, t), XFFI_OK);
  uint64_t h = info->type_key_hash;
  uint64_t fields[] = {(uint64_t)hash_of(xffi_any_int(1)), (uint64_t)hash_of(text)};
  for (int i = 0; i < 2; ++i) h ^= fields[i] + UINT64_C(0x9e3779b9) + (h << 6) + (h >> 2);
  assert_int_equal(hash_of(p1), (int64_t)h);
  xffi_object *objects[] = {text.v_obj, p1.v_obj, p2.v_obj, p3.v_obj, q.v_obj};
  for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); ++i) xffi_object_dec_ref(objects[i]);
}

/* __ffi_eq__ of Keyed: equal when x is equal (payload ignored); __ffi_hash__: x. */
static int keyed_eq(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  assert_int_equal(num_args, 3);
  assert_int_equal(args[2].type_index, XFFI_TYPE_FUNCTION); /* fn_eq */
  const point *a = (const point *)(const void *)args[0].v_obj, *b = (const point *)(const void *)args[1].v_obj;
  /* Recurse through fn_eq on the x fields, as hooks do. */
  xffi_any xs[2] = {xffi_any_int(a->x), xffi_any_int(b->x)};
  return xffi_function_call(args[2].v_obj, xs, 2, result);
}
static int keyed_hash(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  assert_int_equal(num_args, 2);
  *result = xffi_any_int(((const point *)(const void *)args[0].v_obj)->x * 1000);
  return XFFI_OK;
}

static void test_hooks_replace_the_field_walk(void **state) {
  (void)state;
  int32_t keyed = point_type("test.recursive.Keyed", 0), eq_only = point_type("test.recursive.EqOnly", 0);
  static int registered;
  if (!registered++) {
    set_attr_function(keyed, "__ffi_eq__", keyed_eq);
    set_attr_function(keyed, "__ffi_hash__", keyed_hash);
    set_attr_function(eq_only, "__ffi_eq__", keyed_eq);
  }
  xffi_any a = point_new(keyed, 7, xffi_any_int(1), 0), b = point_new(keyed, 7, xffi_any_int(2), 0);
  xffi_any c = point_new(keyed, 8, xffi_any_int(1), 0);
  assert_true(equal(a, b));
  assert_false(equal(a, c));
  assert_int_equal(hash_of(a), 7000);
  xffi_any wrapped[] = {a};
  xffi_any list = list_of(wrapped, 1);
  assert_int_equal(hash_of(list), hash_of(list)); /* the hook's value feeds the container's */
  xffi_any e = point_new(eq_only, 1, xffi_any_none(), 0);
  int64_t h = 0;
  assert_int_equal(xffi_recursive_hash(&h, &e), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "defines __ffi_eq__ or __ffi_compare__ but not __ffi_hash__");
  xffi_object *objects[] = {a.v_obj, b.v_obj, c.v_obj, list.v_obj, e.v_obj};
  for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); ++i) xffi_object_dec_ref(objects[i]);
}

/* __ffi_hash__ of Keeper: keeps the fn_hash it is given (a hook may). */
static xffi_object *kept_fn_hash;
static int keeper_hash(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  assert_int_equal(num_args, 2);
  kept_fn_hash = args[1].v_obj;
  xffi_object_inc_ref(kept_fn_hash);
  xffi_any five = xffi_any_int(5);
  return xffi_function_call(kept_fn_hash, &five, 1, result);
}

static void test_a_callback_kept_past_its_walk_raises_when_called(void **state) {
  (void)state;
  int32_t keeper = point_type("test.recursive.Keeper", 0);
  set_attr_function(keeper, "__ffi_hash__", keeper_hash);
  xffi_any k = point_new(keeper, 1, xffi_any_none(), 0);
  assert_int_equal(hash_of(k), hash_of(xffi_any_int(5))); /* the hook hashed 5 through fn_hash */
  assert_non_null(kept_fn_hash);
  xffi_any arg = xffi_any_int(1), result = xffi_any_none();
  assert_int_equal(xffi_function_call(kept_fn_hash, &arg, 1, &result), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "fn_hash was called after the walk that made it ended");
  xffi_object_dec_ref(kept_fn_hash);
  xffi_object_dec_ref(k.v_obj);
}

/* ---- Deep copy ---- */

/* A copied Map keeps its entries' order, with few entries and with many
 * (built in one call from the copied pairs). */
static void test_deep_copy_of_maps_keeps_order(void **state) {
  (void)state;
  for (int64_t n = 3; n <= 40; n += 37) {
    xffi_any keys[40], values[40];
    for (int64_t i = 0; i < n; ++i) {
      keys[i] = xffi_any_int(100 - i);
      values[i] = list_of(&keys[i], 1);
    }
    xffi_any m = map_of(keys, values, n), copy;
    assert_int_equal(xffi_deep_copy(&copy, &m), XFFI_OK);
    assert_int_equal(copy.type_index, XFFI_TYPE_MAP);
    assert_true(equal(copy, m));
    int64_t cursor = 0, i = 0;
    xffi_map_item item;
    while (xffi_map_next(&item, copy.v_obj, &cursor) == XFFI_OK && item.key) {
      assert_int_equal(item.key->v_int64, 100 - i);
      assert_ptr_not_equal(item.value->v_obj, values[i].v_obj); /* the List is copied */
      ++i;
    }
    assert_int_equal(i, n);
    for (int64_t j = 0; j < n; ++j) xffi_any_release(&values[j]);
    xffi_any_release(&m);
    xffi_any_release(&copy);
  }
}

static void test_deep_copy_keeps_sharing_and_cycles(void **state) {
  (void)state;
  xffi_any text = str("shared immutable text");
  xffi_any one = xffi_any_int(1);
  xffi_any shared = list_of(&one, 1);
  xffi_any items[] = {shared, shared, text};
  xffi_any outer = list_of(items, 3);
  assert_int_equal(xffi_list_push(outer.v_obj, &outer), XFFI_OK); /* outer = [s, s, text, outer] */
  xffi_any copy;
  assert_int_equal(xffi_deep_copy(&copy, &outer), XFFI_OK);
  assert_int_equal(copy.type_index, XFFI_TYPE_LIST);
  assert_ptr_not_equal(copy.v_obj, outer.v_obj);
  const xffi_any *got = xffi_seq_items_unchecked(copy.v_obj);
  assert_ptr_not_equal(got[0].v_obj, shared.v_obj); /* copied */
  assert_ptr_equal(got[0].v_obj, got[1].v_obj);     /* once */
  assert_ptr_equal(got[2].v_obj, text.v_obj);       /* strings are shared */
  assert_ptr_equal(got[3].v_obj, copy.v_obj);       /* the cycle leads to the copy */
  assert_true(equal(copy, outer));
  /* An Array in a cycle through a List: arr = [lst], lst = [arr]. */
  xffi_any lst = list_of(NULL, 0);
  xffi_any arr = array_of(&lst, 1);
  assert_int_equal(xffi_list_push(lst.v_obj, &arr), XFFI_OK);
  xffi_any arr_copy;
  assert_int_equal(xffi_deep_copy(&arr_copy, &arr), XFFI_OK);
  const xffi_any *lst_copy = &xffi_seq_items_unchecked(arr_copy.v_obj)[0];
  assert_ptr_not_equal(lst_copy->v_obj, lst.v_obj);
  assert_ptr_equal(xffi_seq_items_unchecked(lst_copy->v_obj)[0].v_obj, arr_copy.v_obj); /* placeholder fixed */
  /* Break the cycles. */
  assert_int_equal(xffi_list_clear(xffi_seq_items_unchecked(arr_copy.v_obj)[0].v_obj), XFFI_OK);
  assert_int_equal(xffi_list_clear(lst.v_obj), XFFI_OK);
  assert_int_equal(xffi_list_clear(copy.v_obj), XFFI_OK);
  assert_int_equal(xffi_list_clear(outer.v_obj), XFFI_OK);
  xffi_object *objects[] = {copy.v_obj, outer.v_obj, shared.v_obj, text.v_obj, arr.v_obj, lst.v_obj, arr_copy.v_obj};
  for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); ++i) xffi_object_dec_ref(objects[i]);
}

static void test_deep_copy_of_objects_and_maps(void **state) {
  (void)state;
  int32_t t = point_type("test.recursive.Point", 1);
  xffi_any one = xffi_any_int(1);
  xffi_any inner = list_of(&one, 1);
  xffi_any p = point_new(t, 5, inner, 3);
  xffi_any k = str("key"), dict_value = p;
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, &k, &dict_value, 1), XFFI_OK);
  xffi_any d = xffi_any_object(dict);
  xffi_any copy;
  assert_int_equal(xffi_deep_copy(&copy, &d), XFFI_OK);
  assert_int_equal(copy.type_index, XFFI_TYPE_DICT);
  const xffi_any *p_copy = NULL;
  assert_int_equal(xffi_map_lookup(&p_copy, copy.v_obj, &k), XFFI_OK);
  assert_non_null(p_copy);
  assert_ptr_not_equal(p_copy->v_obj, p.v_obj);
  const point *pc = (const point *)(const void *)p_copy->v_obj;
  assert_int_equal(pc->x, 5);
  assert_int_equal(pc->note, 3);
  assert_ptr_not_equal(pc->payload.v_obj, inner.v_obj); /* the field's List was copied too */
  assert_true(equal(copy, d));
  /* Plain values come back as they are; borrowed text becomes owned. */
  xffi_any plain, a_float = xffi_any_float(2.5), a_c_str = xffi_any_c_str("a borrowed C string");
  assert_int_equal(xffi_deep_copy(&plain, &a_float), XFFI_OK);
  assert_true(plain.type_index == XFFI_TYPE_FLOAT && plain.v_float64 == 2.5);
  assert_int_equal(xffi_deep_copy(&plain, &a_c_str), XFFI_OK);
  assert_int_equal(plain.type_index, XFFI_TYPE_STRING);
  xffi_any_release(&plain);
  xffi_object *objects[] = {copy.v_obj, dict, p.v_obj, inner.v_obj};
  for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); ++i) xffi_object_dec_ref(objects[i]);
}

static void test_deep_copy_refuses_what_cannot_be_copied_and_leaks_nothing(void **state) {
  (void)state;
  int32_t t = point_type("test.recursive.NoCopy", 0);
  xffi_any p = point_new(t, 1, xffi_any_none(), 0);
  xffi_any one = xffi_any_int(1);
  xffi_any inner = list_of(&one, 1);
  xffi_any items[] = {inner, p};
  xffi_any list = list_of(items, 2);
  xffi_any out = xffi_any_int(42);
  assert_int_equal(xffi_deep_copy(&out, &list), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME,
                "Cannot deep copy object of type \"test.recursive.NoCopy\" because it is not copy-constructible");
  assert_int_equal(out.type_index, XFFI_TYPE_NONE);
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, test_noop_callback, NULL, NULL), XFFI_OK);
  xffi_any f = xffi_any_object(fn);
  xffi_any wrapped = array_of(&f, 1);
  assert_int_equal(xffi_deep_copy(&out, &wrapped), XFFI_FAIL);
  assert_raised(XFFI_KIND_RUNTIME, "\"ffi.Function\" because it is not copy-constructible");
  assert_int_equal(xffi_object_strong_count(inner.v_obj), 2); /* only the list and us */
  xffi_object *objects[] = {p.v_obj, inner.v_obj, list.v_obj, fn, wrapped.v_obj};
  for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); ++i) xffi_object_dec_ref(objects[i]);
}

/* ---- Deep values: a heap stack, not the C stack ---- */

/* `levels` Lists around inner (a new reference, consumed): [[...inner...]]. */
static xffi_any wrap_in_lists(xffi_any inner, int64_t levels) {
  for (int64_t i = 0; i < levels; ++i) {
    xffi_any outer = list_of(&inner, 1);
    xffi_object_dec_ref(inner.v_obj);
    inner = outer;
  }
  return inner;
}

static void test_million_deep_values_copy_compare_and_hash(void **state) {
  (void)state;
  xffi_any deep = wrap_in_lists(list_of(NULL, 0), 1000000 - 1);
  xffi_any copy;
  assert_int_equal(xffi_deep_copy(&copy, &deep), XFFI_OK);
  assert_ptr_not_equal(copy.v_obj, deep.v_obj);
  assert_true(equal(deep, copy));
  assert_int_equal(order(deep, copy), 0);
  assert_int_equal(hash_of(deep), hash_of(copy));
  xffi_object_dec_ref(copy.v_obj);
  /* One level past tvm-ffi's bound (2^20): a ValueError, not a crash. The
   * 10^6 levels above get the missing ones on top. */
  xffi_any too_deep = wrap_in_lists(deep, (1 << 20) + 1 - 1000000);
  int64_t h = 0;
  assert_int_equal(xffi_recursive_hash(&h, &too_deep), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "RecursiveHash: maximum stack depth (1048576) exceeded");
  assert_int_equal(xffi_deep_copy(&copy, &too_deep), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "DeepCopy: maximum stack depth (1048576) exceeded");
  int eq = 0;
  assert_int_equal(xffi_recursive_equal(&eq, &too_deep, &too_deep), XFFI_OK); /* the same object: no walk */
  assert_true(eq);
  xffi_object_dec_ref(too_deep.v_obj); /* deep went into it */
}

/* ---- The identity table the walks share (c/recursive_walk.c) ---- */

static void test_identity_table_finds_what_remains_after_removals(void **state) {
  (void)state;
  /* Addresses 16 bytes apart, as objects are: they share their low bits. */
  static char block[16 * 20000];
  xffi_walk_table t = {NULL, 0, 0};
  for (int i = 0; i < 20000; ++i) {
    xffi_walk_entry *e = xffi_walk_table_put(&t, block + 16 * i, block + 16 * (i / 3));
    assert_non_null(e);
    e->word = (uint64_t)i;
  }
  assert_int_equal(t.used, 20000);
  /* Remove every other one; backward shifts must keep the rest reachable. */
  for (int i = 0; i < 20000; i += 2) xffi_walk_table_remove(&t, block + 16 * i, block + 16 * (i / 3));
  xffi_walk_table_remove(&t, block, block + 16); /* absent: nothing happens */
  assert_int_equal(t.used, 10000);
  for (int i = 0; i < 20000; ++i) {
    const xffi_walk_entry *e = xffi_walk_table_find(&t, block + 16 * i, block + 16 * (i / 3));
    if (i % 2) {
      assert_non_null(e);
      assert_int_equal(e->word, (uint64_t)i);
    } else {
      assert_null(e);
    }
  }
  xffi_walk_table_free(&t);
}

/* ---- Bad input and the globals ---- */

static void test_bad_input_is_a_clear_error(void **state) {
  (void)state;
  xffi_any v = xffi_any_int(1), out;
  int64_t h;
  int r;
  assert_int_equal(xffi_recursive_hash(NULL, &v), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_recursive_hash: out is NULL");
  assert_int_equal(xffi_recursive_hash(&h, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_recursive_hash: value is NULL");
  assert_int_equal(xffi_recursive_equal(&r, &v, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_recursive_equal: rhs is NULL");
  assert_int_equal(xffi_recursive_compare(NULL, &v, &v), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_recursive_compare: out is NULL");
  assert_int_equal(xffi_deep_copy(&out, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_deep_copy: value is NULL");
  xffi_any malformed = xffi_any_none();
  malformed.type_index = XFFI_TYPE_ARRAY; /* an object index with no object */
  assert_int_equal(xffi_deep_copy(&out, &malformed), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_deep_copy: value is malformed");
  assert_int_equal(xffi_recursive_compare(&r, &v, &malformed), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_recursive_compare: rhs is malformed");
}

static void call(const char *name, const xffi_any *args, int32_t n, xffi_any *result, int expect_ok) {
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_global_lookup(&fn, name), XFFI_OK);
  assert_non_null(fn);
  *result = xffi_any_none();
  assert_int_equal(xffi_function_call(fn, args, n, result), expect_ok ? XFFI_OK : XFFI_FAIL);
  xffi_object_dec_ref(fn);
}

static void test_globals_answer_as_tvm_ffi_s(void **state) {
  (void)state;
  xffi_any r;
  xffi_any one_two[] = {xffi_any_int(1), xffi_any_int(2)}, two_one[] = {xffi_any_int(2), xffi_any_int(1)};
  static const struct {
    const char *name;
    int when_less, when_equal, when_greater;
  } orders[] = {{"ffi.RecursiveLt", 1, 0, 0},
                {"ffi.RecursiveLe", 1, 1, 0},
                {"ffi.RecursiveGt", 0, 0, 1},
                {"ffi.RecursiveGe", 0, 1, 1},
                {"ffi.RecursiveEq", 0, 1, 0}};
  for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); ++i) {
    call(orders[i].name, one_two, 2, &r, 1);
    assert_int_equal(r.type_index, XFFI_TYPE_BOOL);
    assert_int_equal(r.v_int64, orders[i].when_less);
    call(orders[i].name, two_one, 2, &r, 1);
    assert_int_equal(r.v_int64, orders[i].when_greater);
    xffi_any same[] = {xffi_any_int(3), xffi_any_int(3)};
    call(orders[i].name, same, 2, &r, 1);
    assert_int_equal(r.v_int64, orders[i].when_equal);
    call(orders[i].name, same, 1, &r, 0);
    assert_raised(XFFI_KIND_TYPE, "expected 2 arguments, got 1");
  }
  call("ffi.RecursiveHash", one_two, 1, &r, 1);
  assert_int_equal(r.type_index, XFFI_TYPE_INT);
  assert_int_equal(r.v_int64, INT64_C(2654435835));
  xffi_any text = str("text long enough for a String");
  call("ffi.DeepCopy", &text, 1, &r, 1);
  assert_ptr_equal(r.v_obj, text.v_obj);
  xffi_any_release(&r);
  call("ffi.DeepCopy", NULL, 0, &r, 0);
  assert_raised(XFFI_KIND_TYPE, "ffi.DeepCopy: expected 1 argument, got 0");
  xffi_object_dec_ref(text.v_obj);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hash_values_are_tvm_ffi_s),
      cmocka_unit_test(test_plain_values_compare_as_tvm_ffi_does),
      cmocka_unit_test(test_negative_device_types_hash_and_order_as_int32),
      cmocka_unit_test(test_containers_compare_element_by_element),
      cmocka_unit_test(test_cycles_are_equal_and_hash_but_cannot_be_ordered),
      cmocka_unit_test(test_objects_compare_and_hash_by_their_fields),
      cmocka_unit_test(test_hooks_replace_the_field_walk),
      cmocka_unit_test(test_a_callback_kept_past_its_walk_raises_when_called),
      cmocka_unit_test(test_deep_copy_keeps_sharing_and_cycles),
      cmocka_unit_test(test_deep_copy_of_maps_keeps_order),
      cmocka_unit_test(test_deep_copy_of_objects_and_maps),
      cmocka_unit_test(test_deep_copy_refuses_what_cannot_be_copied_and_leaks_nothing),
      cmocka_unit_test(test_million_deep_values_copy_compare_and_hash),
      cmocka_unit_test(test_identity_table_finds_what_remains_after_removals),
      cmocka_unit_test(test_bad_input_is_a_clear_error),
      cmocka_unit_test(test_globals_answer_as_tvm_ffi_s),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
