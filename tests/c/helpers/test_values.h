/* tests/c/helpers/test_values.h: making the values tests compare, walk and copy.
 * Each helper fails the test on an error; each result is a new reference. */
#ifndef XFFI_TEST_VALUES_H
#define XFFI_TEST_VALUES_H

#include "test_util.h"

#include <xffi/array.h>
#include <xffi/map.h>

/* A string value of the C string s (borrowed). */
static inline xffi_any str(const char *s) {
  xffi_any v;
  assert_int_equal(xffi_any_from_str(&v, s, strlen(s)), XFFI_OK);
  return v;
}

/* An Array of items[0, n) (borrowed). */
static inline xffi_any array_of(const xffi_any *items, int64_t n) {
  xffi_object *a = NULL;
  assert_int_equal(xffi_array_new(&a, items, n), XFFI_OK);
  return xffi_any_object(a);
}

/* A List of items[0, n) (borrowed). */
static inline xffi_any list_of(const xffi_any *items, int64_t n) {
  xffi_object *l = NULL;
  assert_int_equal(xffi_list_new(&l, items, n), XFFI_OK);
  return xffi_any_object(l);
}

/* A Map of keys[i] -> values[i] for i < n (both borrowed). */
/* A new List holding obj (stolen) as its one item: a new reference. */
static inline xffi_object *list_holding(xffi_object *obj) {
  xffi_object *list = NULL;
  xffi_any one = xffi_any_object(obj);
  assert_int_equal(xffi_list_new(&list, &one, 1), XFFI_OK);
  xffi_object_dec_ref(obj);
  return list;
}

static inline xffi_any map_of(const xffi_any *keys, const xffi_any *values, int64_t n) {
  xffi_object *m = NULL;
  assert_int_equal(xffi_map_new(&m, keys, values, n), XFFI_OK);
  return xffi_any_object(m);
}

/* Element i of the Array or List *seq (borrowed). */
static inline xffi_any item(const xffi_any *seq, int64_t i) {
  xffi_any v = xffi_any_none();
  assert_int_equal(xffi_array_get(&v, seq->v_obj, i), XFFI_OK);
  return v;
}

/* Releases values[0, n). */
static inline void release(xffi_any *values, size_t n) {
  for (size_t i = 0; i < n; ++i) xffi_any_release(&values[i]);
}

#endif /* XFFI_TEST_VALUES_H */
