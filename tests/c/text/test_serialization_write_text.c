/* tests/c/text/test_serialization_write_text.c: xffi_to_json_text
 * (ffi.ToJSONGraphString, c/serialization_write_text.c), the JSON graph
 * writer that writes text straight from the encoder, against the value path
 * it must match byte for byte (xffi_to_json then xffi_json_stringify): every
 * container kind, strings with escapes and non-ASCII bytes, ints at the
 * limits, floats of every form, sharing, reflected objects (inline and node
 * fields, a field name an ancestor also has), __data_to_json__ data,
 * metadata, random graphs; and errors, which must be the same word for word,
 * including which comes first when the graph and the data's JSON both fail. */
#include <math.h>
#include <stdio.h>

#include <xffi/xffi.h>

#include "reflection_sensor.h"
#include "test_globals_util.h"
#include "test_values.h"

/* ---- The check ---- */

/* The value path: *out receives json.Stringify(ToJSONGraph(value, metadata)). */
static int write_by_value(const xffi_any *value, const xffi_any *metadata, xffi_object **out) {
  xffi_any graph = xffi_any_none();
  if (xffi_to_json(&graph, value, metadata) != XFFI_OK) return XFFI_FAIL;
  int status = xffi_json_stringify(out, &graph, 0);
  xffi_any_release(&graph);
  return status;
}

static int same_text(xffi_object *a, xffi_object *b) {
  xffi_byte_array x, y;
  assert_int_equal(xffi_string_cell_of(&x, a), XFFI_OK);
  assert_int_equal(xffi_string_cell_of(&y, b), XFFI_OK);
  return x.size == y.size && memcmp(x.data, y.data, x.size) == 0;
}

/* Both writers give the same bytes, or the same error, for value and
 * metadata (borrowed; NULL for none), and so does the global
 * ffi.ToJSONGraphString. Returns the status they gave. */
static int check_same(const xffi_any *value, const xffi_any *metadata) {
  xffi_object *by_value = NULL, *by_text = NULL;
  int value_status = write_by_value(value, metadata, &by_value);
  char *value_kind = NULL, *value_message = NULL;
  if (value_status != XFFI_OK) take_raised_error(&value_kind, &value_message);
  int text_status = xffi_to_json_text(&by_text, value, metadata);
  if (text_status != value_status) {
    if (text_status != XFFI_OK) xffi_object_dec_ref(xffi_error_move_raised());
    fail_msg("the value path %s, the text path %s (%s)", value_status == XFFI_OK ? "wrote it" : "failed",
             text_status == XFFI_OK ? "wrote it" : "failed", value_message ? value_message : "");
  }
  xffi_any args[2] = {*value, metadata ? *metadata : xffi_any_none()}, global = xffi_any_none();
  int global_status = call_builtin("ffi.ToJSONGraphString", args, 2, &global);
  assert_int_equal(global_status, value_status);
  if (value_status == XFFI_OK) {
    if (!same_text(by_value, by_text)) {
      xffi_byte_array x, y;
      assert_int_equal(xffi_string_cell_of(&x, by_value), XFFI_OK);
      assert_int_equal(xffi_string_cell_of(&y, by_text), XFFI_OK);
      fail_msg("the texts differ:\nvalue path [%.*s]\ntext path  [%.*s]", (int)x.size, x.data, (int)y.size, y.data);
    }
    assert_true(same_text(by_value, global.v_obj));
    xffi_object_dec_ref(by_value);
    xffi_object_dec_ref(by_text);
    xffi_any_release(&global);
    return XFFI_OK;
  }
  char *text_kind, *text_message, *global_kind, *global_message;
  take_raised_error(&global_kind, &global_message);
  assert_int_equal(xffi_to_json_text(&by_text, value, metadata), XFFI_FAIL);
  take_raised_error(&text_kind, &text_message);
  if (strcmp(value_kind, text_kind) != 0 || strcmp(value_message, text_message) != 0)
    fail_msg("the value path raised %s: %s; the text path %s: %s", value_kind, value_message, text_kind, text_message);
  if (strcmp(value_kind, global_kind) != 0 || strstr(global_message, value_message) == NULL)
    fail_msg("the value path raised %s: %s; the global %s: %s", value_kind, value_message, global_kind, global_message);
  free(value_kind);
  free(value_message);
  free(text_kind);
  free(text_message);
  free(global_kind);
  free(global_message);
  return XFFI_FAIL;
}

static void check_writes(xffi_any value) {
  if (check_same(&value, NULL) != XFFI_OK) fail_msg("a value was refused");
  xffi_any_release(&value);
}

/* value (stolen) fails the same on both paths, with an error of kind whose
 * message contains fragment. */
static void check_fails(xffi_any value, const xffi_any *metadata, const char *kind, const char *fragment) {
  xffi_object *text = NULL;
  assert_int_equal(xffi_to_json_text(&text, &value, metadata), XFFI_FAIL);
  check_raised(kind, fragment, 0, __FILE__, __LINE__);
  assert_int_equal(check_same(&value, metadata), XFFI_FAIL);
  xffi_any_release(&value);
}

/* ---- Leaves and containers ---- */

static xffi_any bytes_of(const char *data, size_t size) {
  xffi_object *b = NULL;
  assert_int_equal(xffi_bytes_new(&b, data, size), XFFI_OK);
  return xffi_any_object(b);
}

static xffi_any shape_of(const int64_t *dims, int32_t n) {
  xffi_object *s = NULL;
  assert_int_equal(xffi_shape_new(&s, dims, n), XFFI_OK);
  return xffi_any_object(s);
}

static xffi_any dict_of(const xffi_any *keys, const xffi_any *values, int64_t n) {
  xffi_object *d = NULL;
  assert_int_equal(xffi_dict_new(&d, keys, values, n), XFFI_OK);
  return xffi_any_object(d);
}

static void test_every_leaf_and_container_writes_the_same(void **state) {
  (void)state;
  static const int64_t dims[] = {2, -1, INT64_MAX};
  DLDataType f32 = {2, 32, 1}, i8x4 = {0, 8, 4};
  DLDevice cuda = {2, 1};
  xffi_any leaves[] = {
      xffi_any_none(),
      xffi_any_bool(1),
      xffi_any_bool(0),
      xffi_any_int(0),
      xffi_any_int(-1),
      xffi_any_int(INT64_MAX),
      xffi_any_int(INT64_MIN),
      xffi_any_float(0.0),
      xffi_any_float(-0.0),
      xffi_any_float(NAN),
      xffi_any_float(INFINITY),
      xffi_any_float(-INFINITY),
      xffi_any_float(0.1),
      xffi_any_float(-2.5),
      xffi_any_float(1e300),
      xffi_any_float(5e-324),
      xffi_any_float(1e-5),
      xffi_any_float(9007199254740992.0),
      xffi_any_float(9007199254740994.0),
      xffi_any_float(1e17),
      str(""),
      str("short"),
      str("a string longer than seven bytes"),
      str("quote \" backslash \\ slash / controls \b\f\n\r\t \x01\x1f\x7f end"),
      str("non-ASCII: \xc3\xa9 \xe6\x97\xa5"),
      bytes_of("", 0),
      bytes_of("\x00\xff\x10", 3),
      bytes_of("four", 4),
      bytes_of("a longer byte run", 17),
      xffi_any_dtype(f32),
      xffi_any_dtype(i8x4),
      xffi_any_device(cuda),
      shape_of(dims, 3),
      shape_of(dims, 0),
  };
  size_t n = sizeof(leaves) / sizeof(leaves[0]);
  for (size_t i = 0; i < n; ++i)
    if (check_same(&leaves[i], NULL) != XFFI_OK) fail_msg("leaf %zu was refused", i);
  /* All of them in each container kind, and the containers in each other. */
  xffi_any keys[sizeof(leaves) / sizeof(leaves[0])];
  for (size_t i = 0; i < n; ++i) {
    char name[16];
    snprintf(name, sizeof(name), "k%zu", i);
    keys[i] = str(name);
  }
  xffi_any containers[4] = {array_of(leaves, (int64_t)n), list_of(leaves, (int64_t)n), map_of(keys, leaves, (int64_t)n),
                            dict_of(keys, leaves, (int64_t)n)};
  for (int i = 0; i < 4; ++i) assert_int_equal(check_same(&containers[i], NULL), XFFI_OK);
  xffi_any empties[4] = {array_of(NULL, 0), list_of(NULL, 0), map_of(NULL, NULL, 0), dict_of(NULL, NULL, 0)};
  check_writes(array_of(empties, 4));
  /* Sharing: the same containers twice, a Map keyed by containers, equal
   * strings in distinct objects (one node, as AnyEqual says). */
  xffi_any twice[8] = {containers[0],
                       containers[1],
                       containers[2],
                       containers[3],
                       containers[3],
                       containers[2],
                       str("a string longer than seven bytes"),
                       leaves[22]};
  check_writes(list_of(twice, 8));
  check_writes(map_of(containers, empties, 4));
  release(twice + 6, 1);
  release(empties, 4);
  release(containers, 4);
  release(keys, n);
  release(leaves, n);
}

static xffi_any copy_of(const xffi_any *v) {
  xffi_any c;
  assert_int_equal(xffi_any_copy(&c, v), XFFI_OK);
  return c;
}

/* A deterministic random number (xorshift64*). */
static uint64_t next_random(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * UINT64_C(2685821657736338717);
}

/* A random graph of about size values over pool (borrowed; values made here
 * join it, so later ones share earlier ones). A new reference. */
static xffi_any random_value(uint64_t *seed, xffi_any *pool, size_t *pool_size, size_t capacity, int depth) {
  uint64_t r = next_random(seed);
  if (*pool_size > 0 && r % 5 == 0) return copy_of(&pool[r / 5 % *pool_size]);
  xffi_any made;
  switch (depth <= 0 ? r / 7 % 6 : r / 7 % 10) {
    case 0: made = xffi_any_int((int64_t)(next_random(seed) >> (r % 64))); break;
    case 1: {
      uint64_t bits = next_random(seed);
      double d;
      memcpy(&d, &bits, sizeof(d));
      double choices[] = {d, (double)(int64_t)(bits % 2001) / 8.0 - 125, (double)(bits % 100000) * 0.25,
                          ldexp((double)(bits % 1000), -(int)(r % 40))};
      made = xffi_any_float(choices[r / 11 % 4]);
      break;
    }
    case 2: {
      char text[24];
      int len = (int)(r / 13 % 20);
      for (int i = 0; i < len; ++i) text[i] = (char)(next_random(seed) % 128);
      text[len] = 0;
      assert_int_equal(xffi_any_from_str(&made, text, (size_t)len), XFFI_OK);
      break;
    }
    case 3: made = xffi_any_bool((int)(r & 1)); break;
    case 4: made = xffi_any_none(); break;
    case 5: made = bytes_of("\x01\x02\x03\xfe", r / 3 % 5); break;
    default: {
      xffi_any items[6], keys[6];
      int64_t count = (int64_t)(r / 17 % 7);
      for (int64_t i = 0; i < count; ++i) {
        items[i] = random_value(seed, pool, pool_size, capacity, depth - 1);
        char key[8];
        snprintf(key, sizeof(key), "f%d", (int)(next_random(seed) % 9));
        keys[i] = str(key);
      }
      int kind = (int)(r / 19 % 4);
      /* Repeated keys collapse in a Map; a Dict keeps the last. */
      made = kind == 0   ? array_of(items, count)
             : kind == 1 ? list_of(items, count)
             : kind == 2 ? map_of(keys, items, count)
                         : dict_of(keys, items, count);
      release(items, (size_t)count);
      release(keys, (size_t)count);
    }
  }
  if (*pool_size < capacity) pool[(*pool_size)++] = copy_of(&made);
  return made;
}

static void test_random_graphs_write_the_same(void **state) {
  (void)state;
  uint64_t seed = UINT64_C(0x2545F4914F6CDD1D);
  for (int g = 0; g < 300; ++g) {
    xffi_any pool[64];
    size_t pool_size = 0;
    xffi_any value = random_value(&seed, pool, &pool_size, 64, 1 + g % 6);
    if (check_same(&value, NULL) != XFFI_OK) fail_msg("random graph %d was refused", g);
    xffi_any_release(&value);
    release(pool, pool_size);
  }
}

/* ---- Reflected objects and __data_to_json__ ---- */

/* test.write.Echo {value: Any}: no creator; __data_to_json__ returns its
 * value as it is (anything, JSON-writable or not). */
typedef struct echo {
  xffi_object header;
  xffi_any value; /* owned */
} echo;

static int32_t echo_index = -1;

static void echo_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) xffi_any_release(&((echo *)self)->value);
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static int echo_to_json(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  assert_int_equal(num_args, 1);
  return xffi_any_copy(result, &((const echo *)(const void *)args[0].v_obj)->value);
}

/* An Echo of value (stolen). */
static xffi_any echo_new(xffi_any value) {
  if (echo_index < 0) {
    assert_int_equal(xffi_type_register(&echo_index, "test.write.Echo", XFFI_TYPE_OBJECT), XFFI_OK);
    xffi_object *fn = NULL;
    assert_int_equal(xffi_function_new(&fn, echo_to_json, NULL, NULL), XFFI_OK);
    xffi_any attr = xffi_any_object(fn);
    assert_int_equal(xffi_type_register_attr(echo_index, "__data_to_json__", &attr), XFFI_OK);
    xffi_object_dec_ref(fn);
  }
  echo *e = calloc(1, sizeof(echo));
  assert_non_null(e);
  xffi_object_init(&e->header, echo_index, echo_deleter);
  e->value = value;
  return xffi_any_object(&e->header);
}

/* test.write.Twin, a Sensor with a field named "count" of its own. */
typedef struct twin {
  sensor base;
  xffi_object *count; /* owned, or NULL */
} twin;

static int32_t twin_index = -1;

static void twin_deleter(void *self, int flags) {
  twin *t = self;
  if ((flags & XFFI_DELETE_CONTENTS) && t->count) xffi_object_dec_ref(t->count);
  sensor_deleter(self, flags);
}

static int twin_create(void **result) {
  twin *t = calloc(1, sizeof(twin));
  if (!t) return xffi_error_raise_out_of_memory();
  xffi_object_init(&t->base.header, twin_index, twin_deleter);
  sensors_alive++;
  *result = t;
  return XFFI_OK;
}

/* A Twin, or None when the registry refuses a repeated field name. */
static xffi_any twin_new(int64_t base_count, const char *own_count) {
  register_sensor_types();
  if (twin_index < 0) {
    assert_int_equal(xffi_type_register(&twin_index, "test.write.Twin", sensor_index), XFFI_OK);
    assert_int_equal(XFFI_REFLECT_TYPE(twin_index, twin, twin_create, XFFI_SEQ_HASH_TREE_NODE, NULL), XFFI_OK);
    if (XFFI_REFLECT_FIELD(twin_index, twin, count, XFFI_TYPE_OBJECT, XFFI_FIELD_WRITABLE, NULL) != XFFI_OK) {
      xffi_object_dec_ref(xffi_error_move_raised());
      twin_index = -2;
    }
  }
  if (twin_index < 0) return xffi_any_none();
  void *made = NULL;
  assert_int_equal(twin_create(&made), XFFI_OK);
  twin *t = made;
  t->base.count = base_count;
  t->base.ratio = 0.5;
  assert_int_equal(xffi_string_new(&t->count, own_count, strlen(own_count)), XFFI_OK);
  return xffi_any_object(&t->base.header);
}

static void test_objects_and_hooks_write_the_same(void **state) {
  (void)state;
  xffi_any objects[] = {
      probe_new(3, 0.5, "on", 7),
      probe_new(INT64_MIN, -0.0, NULL, -1),
      probe_new(0, NAN, "quote \" and \xc3\xa9", 0),
      echo_new(xffi_any_int(5)),
      echo_new(str("text \n")),
      echo_new(array_of((xffi_any[]){xffi_any_float(0.25), str("tag"), xffi_any_none()}, 3)),
      echo_new(map_of((xffi_any[]){xffi_any_c_str("k")}, (xffi_any[]){xffi_any_float(1e-7)}, 1)),
  };
  size_t n = sizeof(objects) / sizeof(objects[0]);
  xffi_any all = list_of(objects, (int64_t)n);
  assert_int_equal(check_same(&all, NULL), XFFI_OK);
  /* Shared: each object twice. */
  xffi_any twice[2] = {all, all};
  check_writes(array_of(twice, 2));
  xffi_any_release(&all);
  release(objects, n);
  /* A field name an ancestor also has: both paths write ToJSONGraph's Map. */
  xffi_any t = twin_new(4, "own");
  if (t.type_index != XFFI_TYPE_NONE) {
    xffi_any pair[2] = {t, t};
    check_writes(array_of(pair, 2));
    check_writes(t);
  }
}

static void test_metadata_writes_the_same(void **state) {
  (void)state;
  xffi_any value = array_of((xffi_any[]){xffi_any_int(1), str("x")}, 2);
  xffi_any flags = array_of((xffi_any[]){xffi_any_bool(1)}, 1);
  xffi_any metas[] = {
      xffi_any_none(),
      xffi_any_int(-3),
      str("version \"1\""),
      map_of((xffi_any[]){xffi_any_c_str("a"), xffi_any_c_str("b")}, (xffi_any[]){xffi_any_float(2.5), flags}, 2),
  };
  size_t n = sizeof(metas) / sizeof(metas[0]);
  for (size_t i = 0; i < n; ++i) assert_int_equal(check_same(&value, &metas[i]), XFFI_OK);
  release(metas, n);
  xffi_any_release(&flags);
  /* Metadata JSON cannot hold: json.Stringify's error, on both paths. */
  xffi_any bad = bytes_of("b", 1);
  check_fails(value, &bad, XFFI_KIND_VALUE, "Unsupported type");
  xffi_any_release(&bad);
}

/* ---- Errors ---- */

static void test_graph_errors_are_the_same(void **state) {
  (void)state;
  /* A List that contains itself, deep down. */
  xffi_object *list = NULL;
  assert_int_equal(xffi_list_new(&list, NULL, 0), XFFI_OK);
  xffi_any inner = array_of((xffi_any[]){xffi_any_int(1), xffi_any_object(list)}, 2);
  assert_int_equal(xffi_list_push(list, &inner), XFFI_OK);
  xffi_any_release(&inner);
  check_fails(xffi_any_object_new_ref(list), NULL, XFFI_KIND_VALUE, "Cycle detected during serialization: a List");
  assert_int_equal(xffi_list_clear(list), XFFI_OK);
  xffi_object_dec_ref(list);
  /* A value with no graph form, after some nodes were written. */
  int cell = 0;
  check_fails(array_of((xffi_any[]){str("before"), xffi_any_ptr(&cell)}, 2), NULL, XFFI_KIND_TYPE,
              "has no JSON graph form");
  /* An object type with neither creator nor __data_to_json__ (a Function). */
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_new(&fn, echo_to_json, NULL, NULL), XFFI_OK);
  check_fails(array_of((xffi_any[]){xffi_any_int(2), xffi_any_object(fn)}, 2), NULL, XFFI_KIND_TYPE,
              "does not support ToJSONGraph");
  xffi_object_dec_ref(fn);
}

/* __data_to_json__ data JSON cannot hold is json.Stringify's error, which on
 * the value path comes only after the whole graph is numbered: a graph error
 * later in the walk wins, on both paths. */
static void test_data_errors_come_after_graph_errors(void **state) {
  (void)state;
  xffi_any bad = echo_new(bytes_of("zz", 2));
  check_fails(array_of(&bad, 1), NULL, XFFI_KIND_VALUE, "ffi.json.Stringify: Unsupported type");
  int cell = 0;
  check_fails(array_of((xffi_any[]){bad, xffi_any_int(1), xffi_any_ptr(&cell)}, 3), NULL, XFFI_KIND_TYPE,
              "has no JSON graph form");
  /* Two data errors: the first in node order. */
  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  xffi_any second = echo_new(xffi_any_object(dict));
  check_fails(array_of((xffi_any[]){second, bad}, 2), NULL, XFFI_KIND_VALUE, "Unsupported type: `ffi.Dict`");
  xffi_any_release(&second);
  xffi_any_release(&bad);
}

static void test_null_arguments_are_refused(void **state) {
  (void)state;
  xffi_object *text = NULL;
  xffi_any v = xffi_any_int(1);
  assert_int_equal(xffi_to_json_text(NULL, &v, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_to_json_text: out is NULL");
  assert_int_equal(xffi_to_json_text(&text, NULL, NULL), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE, "xffi_to_json_text: value is NULL");
  assert_null(text);
}

/* ---- Floats: the shortcuts json_write.c takes past printf ---- */

/* JSON text of x as tvm-ffi writes it, by printf alone. */
static void printf_float(char *buf, size_t size, double x) {
  double whole;
  if (isnan(x))
    snprintf(buf, size, "NaN");
  else if (isinf(x))
    snprintf(buf, size, x < 0 ? "-Infinity" : "Infinity");
  else if (fabs(x) < 9007199254740992.0 && modf(x, &whole) == 0)
    snprintf(buf, size, "%.1f", whole);
  else
    snprintf(buf, size, "%.17g", x);
}

static void test_floats_write_as_printf_does(void **state) {
  (void)state;
  uint64_t seed = 42;
  for (int i = 0; i < 200000; ++i) {
    uint64_t r = next_random(&seed);
    double x;
    switch (i % 4) {
      case 0: memcpy(&x, &r, sizeof(x)); break;                                                 /* any bits */
      case 1: x = ldexp((double)(int64_t)(r % 2000001) - 1000000, -(int)(r >> 40) % 64); break; /* dyadic */
      case 2: x = ldexp((double)(r >> 11), -(int)(r % 80)); break;                              /* 53-bit dyadic */
      default: x = (double)(int64_t)(r % 20001 - 10000) / 1000.0;                               /* decimal */
    }
    char expected[64];
    printf_float(expected, sizeof(expected), x);
    xffi_any v = xffi_any_float(x);
    xffi_object *text = NULL;
    assert_int_equal(xffi_json_stringify(&text, &v, 0), XFFI_OK);
    xffi_byte_array got;
    assert_int_equal(xffi_string_cell_of(&got, text), XFFI_OK);
    if (got.size != strlen(expected) || memcmp(got.data, expected, got.size) != 0)
      fail_msg("%a: printf writes %s, json.Stringify %.*s", x, expected, (int)got.size, got.data);
    xffi_object_dec_ref(text);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_leaf_and_container_writes_the_same),
      cmocka_unit_test(test_random_graphs_write_the_same),
      cmocka_unit_test(test_objects_and_hooks_write_the_same),
      cmocka_unit_test(test_metadata_writes_the_same),
      cmocka_unit_test(test_graph_errors_are_the_same),
      cmocka_unit_test(test_data_errors_come_after_graph_errors),
      cmocka_unit_test(test_null_arguments_are_refused),
      cmocka_unit_test(test_floats_write_as_printf_does),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
