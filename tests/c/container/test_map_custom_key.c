/* tests/c/container/test_map_custom_key.c: map keys whose type registers
 * `__any_hash__`/`__any_equal__` (type attribute columns).
 *
 * ffi.BigInt: the runtime registers both, as tvm-ffi does, so equal BigInts
 * that are distinct objects are one key in a Map and a Dict (tvm-ffi's
 * test_big_int::test_integer_containers). The hash values were computed by
 * a throwaway C++ program built against the pinned wheel's headers and
 * library (AnyHash of the same BigInts). A user type's hooks given as
 * ffi.Function objects are called through the function path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include <xffi/function.h>
#include <xffi/map.h>
#include <xffi/reflection.h>
#include <xffi/sys/object.h>
#include <xffi/tvm_ffi.h>
#include <xffi/xffi.h>

#include "lib/container/map_table.h"

static xffi_byte_array bytes_of(const char *s) {
  xffi_byte_array b = {s, strlen(s)};
  return b;
}

/* A new BigInt (an owned Any) from count words. */
static xffi_any bigint_of(const int64_t *words, size_t count) {
  xffi_byte_array b = {(const char *)words, count * sizeof(int64_t)};
  xffi_any out;
  assert_int_equal(TVMFFIBigIntFromByteArray(&b, &out), 0);
  assert_int_equal(out.type_index, XFFI_TYPE_BIGINT);
  return out;
}

static uint64_t hash_of(const xffi_any *key) {
  uint64_t h = 0;
  assert_int_equal(xffi_map_any_hash(&h, key), XFFI_OK);
  return h;
}

static const int64_t two_to_64[2] = {0, 1};
static const int64_t negative[2] = {5, -2};
static const int64_t three_words[3] = {1, 2, 3};

/* Before anything else touches the registry: the entries are there. */
static void bigint_hooks_are_registered_from_the_start(void **state) {
  (void)state;
  const char *names[2] = {"__any_hash__", "__any_equal__"};
  for (int i = 0; i < 2; ++i) {
    xffi_byte_array name = bytes_of(names[i]);
    const xffi_type_attr_column *c = TVMFFIGetTypeAttrColumn(&name);
    assert_non_null(c);
    assert_true(c->size > XFFI_TYPE_BIGINT);
    assert_int_equal(c->data[XFFI_TYPE_BIGINT].type_index, XFFI_TYPE_OPAQUE_PTR);
    assert_non_null(c->data[XFFI_TYPE_BIGINT].v_ptr);
    /* Registering it again is refused, as in tvm-ffi. */
    xffi_any other = xffi_any_int(1);
    assert_int_not_equal(TVMFFITypeRegisterAttr(XFFI_TYPE_BIGINT, &name, &other), 0);
    assert_raised(XFFI_KIND_RUNTIME, "already registered for ffi.BigInt");
  }
}

static void bigint_hash_matches_tvm_ffi(void **state) {
  (void)state;
  xffi_any a = bigint_of(two_to_64, 2), b = bigint_of(negative, 2), c = bigint_of(three_words, 3);
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
  /* tvm-ffi hashes the words' bytes as they lie in memory: these values are
   * its (little-endian x86-64 wheel). */
  assert_int_equal(hash_of(&a), UINT64_C(2654440707));
  assert_int_equal(hash_of(&b), UINT64_C(2654445447));
  assert_int_equal(hash_of(&c), UINT64_C(2655339408));
#endif
  /* A distinct object with the same value: the same hash, and equal. */
  xffi_any a2 = bigint_of(two_to_64, 2);
  assert_ptr_not_equal(a.v_obj, a2.v_obj);
  assert_int_equal(hash_of(&a2), hash_of(&a));
  int eq = -1;
  assert_int_equal(xffi_map_any_equal(&eq, &a, &a2), XFFI_OK);
  assert_int_equal(eq, 1);
  assert_int_equal(xffi_map_any_equal(&eq, &a, &b), XFFI_OK);
  assert_int_equal(eq, 0);
  assert_int_equal(xffi_map_any_equal(&eq, &a, &c), XFFI_OK);
  assert_int_equal(eq, 0);
  xffi_any_release(&a);
  xffi_any_release(&a2);
  xffi_any_release(&b);
  xffi_any_release(&c);
}

/* The hooks as tvm-ffi's C++ calls them (a column entry called directly):
 * a wrong argument is an Error returned in the Any, never an abort. */
static void bigint_hooks_refuse_other_values(void **state) {
  (void)state;
  xffi_byte_array name = bytes_of("__any_hash__");
  const xffi_type_attr_column *c = TVMFFIGetTypeAttrColumn(&name);
  assert_int_equal(c->data[XFFI_TYPE_BIGINT].type_index, XFFI_TYPE_OPAQUE_PTR);
  xffi_any (*hash)(const xffi_any *);
  memcpy(&hash, &c->data[XFFI_TYPE_BIGINT].v_ptr, sizeof(hash));
  /* An int is accepted, as tvm-ffi's as_or_throw<BigInt> does: its own hash. */
  xffi_any small = xffi_any_int(-3);
  xffi_any result = hash(&small);
  assert_int_equal(result.type_index, XFFI_TYPE_INT);
  assert_int_equal(result.v_int64, -3);
  xffi_any not_int = xffi_any_float(3.0);
  result = hash(&not_int);
  assert_int_equal(result.type_index, XFFI_TYPE_ERROR);
  xffi_any_release(&result);
  result = hash(NULL);
  assert_int_equal(result.type_index, XFFI_TYPE_ERROR);
  xffi_any_release(&result);
  xffi_byte_array equal_name = bytes_of("__any_equal__");
  const xffi_type_attr_column *e = TVMFFIGetTypeAttrColumn(&equal_name);
  xffi_any (*equal)(const xffi_any *, const xffi_any *);
  memcpy(&equal, &e->data[XFFI_TYPE_BIGINT].v_ptr, sizeof(equal));
  xffi_any big = bigint_of(two_to_64, 2);
  result = equal(&big, &not_int);
  assert_int_equal(result.type_index, XFFI_TYPE_ERROR);
  xffi_any_release(&result);
  result = equal(&big, &small);
  assert_int_equal(result.type_index, XFFI_TYPE_BOOL);
  assert_int_equal(result.v_int64, 0);
  xffi_any_release(&big);
  assert_null(xffi_error_peek_raised()); /* the error is in the result, not left in the slot */
}

/* Map and Dict: lookup, insert and erase through an equal, distinct BigInt. */
static void bigint_keys_in_map_and_dict(void **state) {
  (void)state;
  xffi_any key = bigint_of(two_to_64, 2), same = bigint_of(two_to_64, 2), other = bigint_of(negative, 2);
  xffi_any one = xffi_any_int(1), two = xffi_any_int(2), got;
  int64_t length = -1;
  int found = -1;

  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, &key, &one, 1), XFFI_OK);
  assert_int_equal(xffi_map_get(&got, map, &same), XFFI_OK);
  assert_int_equal(got.type_index, XFFI_TYPE_INT);
  assert_int_equal(got.v_int64, 1);
  assert_int_equal(xffi_map_contains(&found, map, &other), XFFI_OK);
  assert_int_equal(found, 0);
  assert_int_equal(xffi_map_set(&map, &same, &two), XFFI_OK); /* replaces, not a second key */
  assert_int_equal(xffi_map_length(&length, map), XFFI_OK);
  assert_int_equal(length, 1);
  assert_int_equal(xffi_map_get(&got, map, &key), XFFI_OK);
  assert_int_equal(got.v_int64, 2);
  assert_int_equal(xffi_map_set(&map, &other, &one), XFFI_OK);
  assert_int_equal(xffi_map_erase(&map, &same), XFFI_OK);
  assert_int_equal(xffi_map_length(&length, map), XFFI_OK);
  assert_int_equal(length, 1);
  assert_int_equal(xffi_map_contains(&found, map, &key), XFFI_OK);
  assert_int_equal(found, 0);
  /* Past the small map (4 pairs): the dense map hashes the same way. */
  for (int64_t i = 0; i < 40; ++i) {
    int64_t words[2] = {i, 7};
    xffi_any k = bigint_of(words, 2), v = xffi_any_int(i);
    assert_int_equal(xffi_map_set(&map, &k, &v), XFFI_OK);
    xffi_any_release(&k);
  }
  for (int64_t i = 0; i < 40; ++i) {
    int64_t words[2] = {i, 7};
    xffi_any k = bigint_of(words, 2);
    assert_int_equal(xffi_map_get(&got, map, &k), XFFI_OK);
    assert_int_equal(got.v_int64, i);
    xffi_any_release(&k);
  }
  xffi_object_dec_ref(map);

  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_dict_set(dict, &key, &one), XFFI_OK);
  assert_int_equal(xffi_dict_set(dict, &same, &two), XFFI_OK);
  assert_int_equal(xffi_map_length(&length, dict), XFFI_OK);
  assert_int_equal(length, 1);
  assert_int_equal(xffi_map_get(&got, dict, &key), XFFI_OK);
  assert_int_equal(got.v_int64, 2);
  assert_int_equal(xffi_dict_erase(dict, &same), XFFI_OK);
  assert_int_equal(xffi_map_length(&length, dict), XFFI_OK);
  assert_int_equal(length, 0);
  xffi_object_dec_ref(dict);

  xffi_any_release(&key);
  xffi_any_release(&same);
  xffi_any_release(&other);
}

/* ---- A user type with Function hooks: objects equal by their value. ---- */

typedef struct valued {
  xffi_object header;
  int64_t value;
} valued;

static void valued_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static int32_t valued_type;
static int hash_calls, equal_calls;

static xffi_any new_valued(int64_t value) {
  valued *v = malloc(sizeof(valued));
  assert_non_null(v);
  xffi_object_init(&v->header, valued_type, valued_deleter);
  v->value = value;
  xffi_any out = xffi_any_none();
  out.type_index = valued_type;
  out.v_obj = &v->header;
  return out;
}

static int valued_hash(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  assert_int_equal(num_args, 1);
  ++hash_calls;
  *result = xffi_any_int(((const valued *)(const void *)args[0].v_obj)->value % 3); /* collisions on purpose */
  return XFFI_OK;
}

static int valued_equal(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  assert_int_equal(num_args, 2);
  ++equal_calls;
  const valued *a = (const valued *)(const void *)args[0].v_obj, *b = (const valued *)(const void *)args[1].v_obj;
  *result = xffi_any_bool(a->value == b->value);
  return XFFI_OK;
}

static void user_type_function_hooks(void **state) {
  (void)state;
  xffi_byte_array key = bytes_of("test.custom_key.Valued");
  valued_type = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 0, XFFI_TYPE_OBJECT);
  assert_true(valued_type >= XFFI_TYPE_DYNAMIC_BEGIN);
  xffi_object *hash = NULL, *equal = NULL;
  assert_int_equal(xffi_function_new(&hash, valued_hash, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_new(&equal, valued_equal, NULL, NULL), XFFI_OK);
  xffi_byte_array hash_name = bytes_of("__any_hash__"), equal_name = bytes_of("__any_equal__");
  xffi_any hash_any = xffi_any_object(hash), equal_any = xffi_any_object(equal);
  assert_int_equal(TVMFFITypeRegisterAttr(valued_type, &hash_name, &hash_any), 0);
  assert_int_equal(TVMFFITypeRegisterAttr(valued_type, &equal_name, &equal_any), 0);
  xffi_object_dec_ref(hash); /* the columns keep their own references */
  xffi_object_dec_ref(equal);
  /* The columns grew past their static arrays; BigInt's entries moved along. */
  const xffi_type_attr_column *c = TVMFFIGetTypeAttrColumn(&hash_name);
  assert_true(c->size > valued_type);
  assert_int_equal(c->data[XFFI_TYPE_BIGINT].type_index, XFFI_TYPE_OPAQUE_PTR);

  xffi_any a = new_valued(10), a2 = new_valued(10), b = new_valued(13), c13 = new_valued(13), d = new_valued(11);
  xffi_any one = xffi_any_int(1), two = xffi_any_int(2), got;
  assert_int_equal(hash_of(&a), hash_of(&a2));
  assert_int_equal(hash_of(&a), hash_of(&b)); /* 10 % 3 == 13 % 3: same hash, not equal */
  xffi_object *map = NULL;
  assert_int_equal(xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_map_set(&map, &a, &one), XFFI_OK);
  assert_int_equal(xffi_map_set(&map, &b, &two), XFFI_OK);
  assert_int_equal(xffi_map_set(&map, &d, &two), XFFI_OK);
  int64_t length = -1;
  assert_int_equal(xffi_map_length(&length, map), XFFI_OK);
  assert_int_equal(length, 3);
  hash_calls = equal_calls = 0;
  assert_int_equal(xffi_map_get(&got, map, &a2), XFFI_OK);
  assert_int_equal(got.v_int64, 1);
  assert_int_equal(xffi_map_get(&got, map, &c13), XFFI_OK);
  assert_int_equal(got.v_int64, 2);
  assert_true(equal_calls >= 2); /* a small map scans with equality only */
  assert_int_equal(xffi_map_erase(&map, &a2), XFFI_OK);
  assert_int_equal(xffi_map_length(&length, map), XFFI_OK);
  assert_int_equal(length, 2);
  /* A dense map (more than 4 pairs) hashes through the Function too. */
  for (int64_t i = 100; i < 120; ++i) {
    xffi_any k = new_valued(i), v = xffi_any_int(i);
    assert_int_equal(xffi_map_set(&map, &k, &v), XFFI_OK);
    xffi_any_release(&k);
  }
  hash_calls = equal_calls = 0;
  xffi_any probe = new_valued(111);
  assert_int_equal(xffi_map_get(&got, map, &probe), XFFI_OK);
  assert_int_equal(got.v_int64, 111);
  assert_int_equal(hash_calls, 1);
  assert_true(equal_calls >= 1);
  xffi_any_release(&probe);
  xffi_object_dec_ref(map);

  xffi_object *dict = NULL;
  assert_int_equal(xffi_dict_new(&dict, NULL, NULL, 0), XFFI_OK);
  assert_int_equal(xffi_dict_set(dict, &b, &one), XFFI_OK);
  assert_int_equal(xffi_dict_set(dict, &c13, &two), XFFI_OK);
  assert_int_equal(xffi_map_length(&length, dict), XFFI_OK);
  assert_int_equal(length, 1);
  assert_int_equal(xffi_map_get(&got, dict, &b), XFFI_OK);
  assert_int_equal(got.v_int64, 2);
  xffi_object_dec_ref(dict);

  xffi_any all[5] = {a, a2, b, c13, d};
  for (int i = 0; i < 5; ++i) xffi_any_release(&all[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bigint_hooks_are_registered_from_the_start),
      cmocka_unit_test(bigint_hash_matches_tvm_ffi),
      cmocka_unit_test(bigint_hooks_refuse_other_values),
      cmocka_unit_test(bigint_keys_in_map_and_dict),
      cmocka_unit_test(user_type_function_hooks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
