/* The Function-valued type attributes of tvm-ffi's runtime types and of
 * ffi.BigInt (c/compat/globals/type_runtime_hooks.c), called from C: what
 * they make, what a copy shares, the decimal text of integers both ways,
 * conversion, the JSON graph and deep copy that use them, and bad input.
 * tests/dropin/test_type_attrs.py compares the same hooks with the wheel's. */
#include <stdint.h>
#include <string.h>

#include "test_util.h"
#include "test_globals_util.h"

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/reflection.h>

#include "lib/reflection/runtime_types.h" /* the AccessPath layout */
#include "runtime/bigint.h"
#include "runtime/type_internal.h"

static int32_t type_of(const char *key) {
  const xffi_type_info *info = NULL;
  assert_int_equal(xffi_type_builtins_ensure(), XFFI_OK); /* the runtime's types, registered on first use */
  assert_int_equal(xffi_type_info_get_by_key(&info, key), XFFI_OK);
  return info->type_index;
}

/* The Function type_key registers as attr (borrowed). */
static xffi_object *hook(const char *type_key, const char *attr) {
  const xffi_type_attr_column *column = NULL;
  int32_t t = type_of(type_key);
  assert_int_equal(xffi_type_attr_column_lookup(&column, attr), XFFI_OK);
  assert_non_null(column);
  assert_true(t < column->size);
  assert_int_equal(column->data[t].type_index, XFFI_TYPE_FUNCTION);
  return column->data[t].v_obj;
}

static xffi_any call_ok(xffi_object *function, const xffi_any *args, int32_t n) {
  xffi_any result = xffi_any_none();
  if (xffi_function_call(function, args, n, &result) != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    fail_msg("call failed: %s", err ? xffi_error_cell_of_unchecked(err)->message.data : "(nothing raised)");
  }
  return result;
}

static xffi_any field_of(const xffi_any *obj, const char *name) {
  xffi_any out = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&out, obj->v_obj, name), XFFI_OK);
  return out;
}

static void test_new_and_shallow_copy_of_each_runtime_type(void **state) {
  (void)state;
  static const char *const keys[] = {"ffi.EnumState",
                                     "ffi.Enum",
                                     "ffi.IntEnum",
                                     "ffi.StrEnum",
                                     "ffi.reflection.AccessStep",
                                     "ffi.reflection.AccessPath",
                                     "ffi.VisitErrorContext",
                                     "ffi.StructuralKey",
                                     "ffi.VisitInterrupt"};
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); ++i) {
    xffi_any made = call_ok(hook(keys[i], "__ffi_new__"), NULL, 0);
    assert_int_equal(made.type_index, type_of(keys[i]));
    xffi_any copy = call_ok(hook(keys[i], "__ffi_shallow_copy__"), &made, 1);
    assert_int_equal(copy.type_index, made.type_index);
    assert_ptr_not_equal(copy.v_obj, made.v_obj);
    xffi_any_release(&copy);
    xffi_any_release(&made);
  }
}

static void test_a_copy_shares_the_field_values(void **state) {
  (void)state;
  xffi_any state_obj = call_ok(hook("ffi.EnumState", "__ffi_init__"), NULL, 0);
  xffi_any copy = call_ok(hook("ffi.EnumState", "__ffi_shallow_copy__"), &state_obj, 1);
  static const char *const names[] = {"entries", "indexes", "attrs"};
  for (int i = 0; i < 3; ++i) {
    xffi_any a = field_of(&state_obj, names[i]), b = field_of(&copy, names[i]);
    assert_true(xffi_any_is_object(&a));
    assert_ptr_equal(a.v_obj, b.v_obj);
    xffi_any_release(&a), xffi_any_release(&b);
  }
  xffi_any_release(&copy), xffi_any_release(&state_obj);

  /* An AccessPath two steps deep: the copy has the same parent, step and depth. */
  xffi_object *root = NULL, *child = NULL, *path = NULL;
  xffi_any name = xffi_any_none(), three = xffi_any_int(3);
  assert_int_equal(xffi_any_from_str(&name, "x", 1), XFFI_OK);
  assert_int_equal(xffi_access_path_extend(&root, NULL, 0, NULL), XFFI_OK);
  assert_int_equal(xffi_access_path_extend(&child, root, XFFI_ACCESS_ATTR, &name), XFFI_OK);
  assert_int_equal(xffi_access_path_extend(&path, child, XFFI_ACCESS_ARRAY_ITEM, &three), XFFI_OK);
  xffi_any path_any = xffi_any_object(path);
  xffi_any path_copy = call_ok(hook("ffi.reflection.AccessPath", "__ffi_shallow_copy__"), &path_any, 1);
  const access_path *a = (const access_path *)(const void *)path;
  const access_path *b = (const access_path *)(const void *)path_copy.v_obj;
  assert_ptr_not_equal(a, b);
  assert_ptr_equal(a->parent, b->parent);
  assert_ptr_equal(a->step, b->step);
  assert_int_equal(b->depth, 2);
  /* Deep copy uses the hook (it refused the type before): new steps, equal keys. */
  xffi_any deep = CALL_OK("ffi.DeepCopy", path_any);
  const access_path *d = (const access_path *)(const void *)deep.v_obj;
  assert_ptr_not_equal(d, a);
  assert_int_equal(d->depth, 2);
  const access_step *step = (const access_step *)(const void *)d->step;
  assert_int_equal(step->kind, XFFI_ACCESS_ARRAY_ITEM);
  assert_int_equal(step->key.v_int64, 3);
  xffi_any_release(&deep), xffi_any_release(&path_copy), xffi_any_release(&path_any), xffi_any_release(&name);
  xffi_object_dec_ref(child), xffi_object_dec_ref(root);
}

static void test_copies_refuse_other_types(void **state) {
  (void)state;
  xffi_any five = xffi_any_int(5), out = xffi_any_none();
  assert_int_equal(xffi_function_call(hook("ffi.StructuralKey", "__ffi_shallow_copy__"), &five, 1, &out), XFFI_FAIL);
  assert_raised("TypeError", "ffi.StructuralKey.__ffi_shallow_copy__");
  xffi_any step = call_ok(hook("ffi.reflection.AccessStep", "__ffi_new__"), NULL, 0);
  assert_int_equal(xffi_function_call(hook("ffi.StructuralVisitor", "__ffi_shallow_copy__"), &step, 1, &out),
                   XFFI_FAIL);
  assert_raised("TypeError", "ffi.StructuralVisitor");
  assert_int_equal(xffi_function_call(hook("ffi.Enum", "__ffi_new__"), &five, 1, &out), XFFI_FAIL);
  assert_raised("TypeError", "ffi.Enum.__ffi_new__");
  xffi_any_release(&step);
}

static void test_bigint_decimal_text_both_ways(void **state) {
  (void)state;
  static const char *const texts[] = {"0",
                                      "-1",
                                      "9223372036854775807",
                                      "9223372036854775808",
                                      "-9223372036854775809",
                                      "340282366920938463463374607431768211455",
                                      "-123456789012345678901234567890123456789012345678901234567890"};
  xffi_object *from_json = hook("ffi.BigInt", "__data_from_json__"), *to_json = hook("ffi.BigInt", "__data_to_json__");
  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); ++i) {
    xffi_any text = xffi_any_none();
    assert_int_equal(xffi_any_from_str(&text, texts[i], strlen(texts[i])), XFFI_OK);
    xffi_any value = call_ok(from_json, &text, 1);
    assert_int_equal(value.type_index, i < 3 ? XFFI_TYPE_INT : XFFI_TYPE_BIGINT);
    xffi_any back = call_ok(to_json, &value, 1);
    assert_int_equal(back.type_index, XFFI_TYPE_STRING); /* an object, as tvm-ffi's */
    xffi_byte_array got;
    assert_int_equal(xffi_any_to_str(&got, &back), XFFI_OK);
    assert_int_equal(got.size, strlen(texts[i]));
    assert_memory_equal(got.data, texts[i], got.size);
    xffi_any_release(&back), xffi_any_release(&value), xffi_any_release(&text);
  }
  static const char *const bad[] = {"", "+", "1 ", "1.0", "1_0"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    xffi_any text = xffi_any_none(), out = xffi_any_none();
    assert_int_equal(xffi_any_from_str(&text, bad[i], strlen(bad[i])), XFFI_OK);
    assert_int_equal(xffi_function_call(from_json, &text, 1, &out), XFFI_FAIL);
    expect_error("ValueError", "Invalid decimal string for ffi.BigInt");
    xffi_any_release(&text);
  }
}

/* An integer from its words (least significant first). */
static xffi_any integer(const int64_t *words, size_t count) {
  xffi_byte_array bytes = {(const char *)words, count * sizeof(int64_t)};
  xffi_any out = xffi_any_none();
  assert_int_equal(xffi_bigint_from_bytes("test", &bytes, &out), XFFI_OK);
  return out;
}

static void test_bigint_order_hash_and_equality(void **state) {
  (void)state;
  static const int64_t words[][2] = {{0, -2}, {-1, -1 /* -1, one word */}, {0, 1}, {1, 1}};
  xffi_any v[4] = {integer(words[0], 2), integer(words[1], 1), integer(words[2], 2), integer(words[3], 2)};
  assert_int_equal(v[1].type_index, XFFI_TYPE_INT);
  xffi_object *compare = hook("ffi.BigInt", "__ffi_compare__"), *eq = hook("ffi.BigInt", "__ffi_eq__");
  xffi_object *hash = hook("ffi.BigInt", "__ffi_hash__");
  /* Objects only: v[0], v[2], v[3] ascending. */
  static const int objects[] = {0, 2, 3};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      xffi_any args[3] = {v[objects[i]], v[objects[j]], xffi_any_none()};
      xffi_any order = call_ok(compare, args, 3), same = call_ok(eq, args, 3);
      assert_int_equal(order.v_int64, i < j ? -1 : i > j);
      assert_int_equal(same.type_index, XFFI_TYPE_BOOL);
      assert_int_equal(same.v_int64, i == j);
    }
  /* The hash is the map key hash: equal integers, equal hashes. */
  xffi_any again = integer(words[3], 2), args[2] = {v[3], xffi_any_none()}, args2[2] = {again, xffi_any_none()};
  xffi_any h1 = call_ok(hash, args, 2), h2 = call_ok(hash, args2, 2);
  assert_int_equal(h1.type_index, XFFI_TYPE_INT);
  assert_int_equal(h1.v_int64, h2.v_int64);
  /* Bad input: a plain int where an object goes, a callback that is not a Function. */
  xffi_any out = xffi_any_none(), bad[3] = {v[0], v[1], xffi_any_none()};
  assert_int_equal(xffi_function_call(compare, bad, 3, &out), XFFI_FAIL);
  assert_raised("TypeError", "ffi.BigInt.__ffi_compare__: argument 1");
  bad[1] = v[2];
  bad[2] = xffi_any_int(1);
  assert_int_equal(xffi_function_call(eq, bad, 3, &out), XFFI_FAIL);
  assert_raised("TypeError", "ffi.BigInt.__ffi_eq__");
  assert_int_equal(xffi_function_call(hash, bad, 3, &out), XFFI_FAIL);
  assert_raised("TypeError", "ffi.BigInt.__ffi_hash__");
  xffi_any_release(&again);
  for (int i = 0; i < 4; ++i) xffi_any_release(&v[i]);
}

static void test_bigint_in_the_json_graph(void **state) {
  (void)state;
  static const int64_t words[2] = {5, 1};
  xffi_any big = integer(words, 2);
  xffi_any text = CALL_OK("ffi.ToJSONGraphString", big, xffi_any_none());
  xffi_byte_array got;
  assert_int_equal(xffi_any_to_str(&got, &text), XFFI_OK);
  static const char want[] =
      "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.BigInt\",\"data\":\"18446744073709551621\"}]}";
  assert_int_equal(got.size, strlen(want));
  assert_memory_equal(got.data, want, got.size);
  xffi_any back = CALL_OK("ffi.FromJSONGraphString", text);
  assert_int_equal(back.type_index, XFFI_TYPE_BIGINT);
  xffi_any args[3] = {back, big, xffi_any_none()}, same = call_ok(hook("ffi.BigInt", "__ffi_eq__"), args, 3);
  assert_true(same.v_int64);
  xffi_any_release(&back), xffi_any_release(&text), xffi_any_release(&big);
}

static void test_enum_conversion_and_key_init(void **state) {
  (void)state;
  xffi_any int_enum = call_ok(hook("ffi.IntEnum", "__ffi_new__"), NULL, 0);
  xffi_any same = call_ok(hook("ffi.IntEnum", "__ffi_convert__"), &int_enum, 1), out = xffi_any_none();
  assert_ptr_equal(same.v_obj, int_enum.v_obj);
  assert_int_equal(xffi_function_call(hook("ffi.StrEnum", "__ffi_convert__"), &int_enum, 1, &out), XFFI_FAIL);
  expect_error("TypeError", "Cannot cast from `ffi.IntEnum` to `ffi.StrEnum`");
  xffi_any five = xffi_any_int(5);
  assert_int_equal(xffi_function_call(hook("ffi.IntEnum", "__ffi_convert__"), &five, 1, &out), XFFI_FAIL);
  expect_error("TypeError", "Cannot cast from `int` to `ffi.IntEnum`");
  /* StructuralKey's __ffi_init__ is its method too, and the key it makes is a map key by structure. */
  const xffi_method_info *method = NULL;
  assert_int_equal(xffi_type_find_method(&method, type_of("ffi.StructuralKey"), "__ffi_init__"), XFFI_OK);
  assert_non_null(method);
  assert_ptr_equal(method->method.v_obj, hook("ffi.StructuralKey", "__ffi_init__"));
  xffi_any items[2] = {xffi_any_int(1), xffi_any_int(2)};
  xffi_any a = CALL_OK("ffi.Array", items[0], items[1]), b = CALL_OK("ffi.Array", items[0], items[1]);
  xffi_any ka = call_ok(method->method.v_obj, &a, 1), kb = call_ok(method->method.v_obj, &b, 1);
  xffi_any map = CALL_OK("ffi.Map", ka, xffi_any_int(7));
  xffi_any got = CALL_OK("ffi.MapGetItem", map, kb);
  assert_int_equal(got.v_int64, 7);
  xffi_any_release(&map), xffi_any_release(&ka), xffi_any_release(&kb), xffi_any_release(&a), xffi_any_release(&b);
  xffi_any_release(&same), xffi_any_release(&int_enum);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_new_and_shallow_copy_of_each_runtime_type),
      cmocka_unit_test(test_a_copy_shares_the_field_values),
      cmocka_unit_test(test_copies_refuse_other_types),
      cmocka_unit_test(test_bigint_decimal_text_both_ways),
      cmocka_unit_test(test_bigint_order_hash_and_equality),
      cmocka_unit_test(test_bigint_in_the_json_graph),
      cmocka_unit_test(test_enum_conversion_and_key_init),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
