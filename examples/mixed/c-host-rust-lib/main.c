/* Example 1, C host + Rust library: a C program uses a library written in
 * Rust (examples/mixed/xffi-capi) through its cbindgen header,
 * bindings/xffi_capi.h.
 *
 * It makes Rust objects (Points, a Label), stores them in xffi containers
 * (an Array and a Map), calls Rust functions through xffi Function objects
 * (and one through the global registry), hands a C function to Rust, sees
 * Rust errors arrive as xffi errors, then frees everything from C and checks
 * with the library's counters that every deleter ran exactly once.
 *
 * Linked two ways by scripts/test-mixed.sh, both with one xffi runtime:
 *   shared: libxffi_capi.so (built with the `system` feature) + libxffi.so;
 *   static: libxffi_capi.a, which carries the xffi C core inside it.
 * Exits 1 if any check fails. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <xffi/xffi.h>
#include <xffi/sys/object.h>
#include <xffi/sys/type.h>

#include "../common/check.h"
#include "xffi_capi.h"

/* A C function handed to Rust's map_points: returns x + y of a Point. */
static atomic_int sum_finalized = 0;

static int point_sum(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  if (xffi_arg_check_signature(args, num_args, "o", "point_sum") != XFFI_OK) return XFFI_FAIL;
  double x, y;
  if (xcapi_point_coords(&x, &y, args[0].v_obj) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_float(x + y);
  return XFFI_OK;
}

static void point_sum_finalize(void *resource) {
  (void)resource;
  atomic_fetch_add(&sum_finalized, 1);
}

static double point_x(xffi_object *point) {
  double x = NAN, y = NAN;
  CHECK_OK(xcapi_point_coords(&x, &y, point));
  return x;
}

static double point_y(xffi_object *point) {
  double x = NAN, y = NAN;
  CHECK_OK(xcapi_point_coords(&x, &y, point));
  return y;
}

static xffi_object *function(const char *name) {
  xffi_object *f = NULL;
  CHECK_OK(xcapi_function_new(&f, name));
  return f;
}

int main(void) {
  /* One runtime: the type the Rust library registered is in the registry C
   * sees, under one index, and C's inline is-instance test knows it. */
  int32_t point_type = -1, label_type = -1;
  CHECK_OK(xcapi_point_type_index(&point_type));
  CHECK_OK(xcapi_label_type_index(&label_type));
  const xffi_type_info *info = NULL;
  CHECK_OK(xffi_type_info_get_by_key(&info, "xcapi.Point"));
  CHECK(info && info->type_index == point_type, "xcapi.Point: C sees index %d, Rust registered %d",
        info ? info->type_index : -1, point_type);

  /* Rust objects, made from C. */
  xffi_object *a = NULL, *b = NULL, *c = NULL, *home = NULL;
  CHECK_OK(xcapi_point_new(&a, 0.0, 0.0));
  CHECK_OK(xcapi_point_new(&b, 3.0, 4.0));
  CHECK_OK(xcapi_point_new(&c, 6.0, 8.0));
  CHECK_OK(xcapi_label_new(&home, "home", a));
  CHECK(xffi_object_is_a_unchecked(a, point_type), "a Point is an xcapi.Point");
  CHECK(!xffi_object_is_a_unchecked(home, point_type), "a Label is not an xcapi.Point");
  CHECK(strcmp(xffi_type_key(home->type_index), "xcapi.Label") == 0, "key %s", xffi_type_key(home->type_index));
  const char *text = NULL;
  CHECK_OK(xcapi_label_text(&text, home));
  CHECK(text && strcmp(text, "home") == 0, "label text '%s'", text ? text : "(null)");

  /* ... stored in xffi containers: an Array of points, a Map name -> label. */
  xffi_any items[3] = {xffi_any_object(a), xffi_any_object(b), xffi_any_object(c)};
  xffi_object *path = NULL, *labels = NULL;
  CHECK_OK(xffi_array_new(&path, items, 3));
  CHECK_OK(xffi_map_new(&labels, NULL, NULL, 0));
  xffi_any key = xffi_any_c_str("home"), value = xffi_any_object(home);
  CHECK_OK(xffi_map_set(&labels, &key, &value));
  CHECK(xffi_object_strong_count(a) == 3, "a is held by C, the array and the label: %u", xffi_object_strong_count(a));

  /* Rust functions called through Function objects. */
  xffi_object *path_length = function("path_length"), *centroid = function("centroid");
  xffi_object *scale = function("scale"), *describe = function("describe"), *map_points = function("map_points");
  xffi_any result = xffi_any_none();
  CHECK_OK(XFFI_CALL(path_length, &result, xffi_any_object(path)));
  CHECK(result.type_index == XFFI_TYPE_FLOAT && result.v_float64 == 10.0, "path length %g", result.v_float64);

  CHECK_OK(XFFI_CALL(centroid, &result, xffi_any_object(path)));
  xffi_object *middle = NULL; /* a new Point, made by Rust, owned by C now */
  CHECK_OK(xffi_any_to_object(&middle, &result, point_type));
  CHECK(middle && point_x(middle) == 3.0 && point_y(middle) == 4.0, "centroid");
  xffi_object_inc_ref(middle);
  xffi_any_release(&result);

  CHECK_OK(XFFI_CALL(scale, &result, xffi_any_object(b), xffi_any_float(2.0)));
  CHECK(xffi_any_is_object(&result) && point_x(result.v_obj) == 6.0 && point_y(result.v_obj) == 8.0, "scale");
  xffi_any_release(&result);

  xffi_any found = xffi_any_none();
  CHECK_OK(xffi_map_get(&found, labels, &key));
  CHECK_OK(XFFI_CALL(describe, &result, found));
  xffi_byte_array s = {0};
  CHECK_OK(xffi_any_to_str(&s, &result));
  CHECK(s.data && strcmp(s.data, "'home' at (0, 0)") == 0, "describe gave '%s'", s.data ? s.data : "");
  xffi_any_release(&result);
  xffi_any_release(&found);

  /* A C function handed to Rust, which calls it for each point. */
  xffi_object *sum = NULL;
  CHECK_OK(xffi_function_new(&sum, point_sum, NULL, point_sum_finalize));
  CHECK_OK(XFFI_CALL(map_points, &result, xffi_any_object(sum), xffi_any_object(path)));
  const xffi_any *sums = NULL;
  int64_t n = 0;
  CHECK_OK(xffi_array_items(&sums, &n, result.v_obj));
  CHECK(n == 3 && sums[0].v_float64 == 0.0 && sums[1].v_float64 == 7.0 && sums[2].v_float64 == 14.0,
        "map_points gave %lld values", (long long)n);
  xffi_any_release(&result);

  /* The global registry: Rust registers, C looks up and calls. */
  CHECK_OK(xcapi_register_globals(0));
  xffi_object *distance = NULL;
  CHECK_OK(xffi_function_global_lookup(&distance, "xcapi.distance"));
  CHECK(distance != NULL, "xcapi.distance is registered");
  CHECK_OK(XFFI_CALL(distance, &result, xffi_any_object(a), xffi_any_object(b)));
  CHECK(result.v_float64 == 5.0, "distance %g", result.v_float64);

  /* Errors cross as xffi errors, with kind and message. */
  CHECK_FAILS(XFFI_CALL(distance, &result, xffi_any_object(a), xffi_any_c_str("b")), "TypeError",
              "argument 1: expected xcapi.Point, got str");
  xffi_object *empty = NULL;
  CHECK_OK(xffi_array_new(&empty, NULL, 0));
  CHECK_FAILS(XFFI_CALL(centroid, &result, xffi_any_object(empty)), "ValueError", "centroid: no points");
  double x, y;
  CHECK_FAILS(xcapi_point_coords(&x, &y, home), "TypeError",
              "xcapi_point_coords: point: expected xcapi.Point, got xcapi.Label");
  CHECK_FAILS(xcapi_point_new(NULL, 1.0, 2.0), "ValueError",
              "xcapi_point_new: out is NULL (expected a pointer to an xffi_object * to receive the new Point)");
  xffi_object *none = NULL;
  CHECK_FAILS(xcapi_function_new(&none, "area"), "KeyError",
              "xcapi_function_new: no function named 'area' (known: distance, path_length, centroid, scale, "
              "describe, map_points)");
  CHECK(none == NULL, "no function on failure");

  /* Nothing was released early: no deleter has run yet except for the
   * temporaries (the scaled point). */
  xcapi_stats st;
  CHECK_OK(xcapi_stats_get(&st));
  CHECK(st.points_created == 5 && st.points_dropped == 1, "points %llu made, %llu dropped",
        (unsigned long long)st.points_created, (unsigned long long)st.points_dropped);

  /* Free everything from C. */
  xffi_object *to_release[] = {a,           b,        c,     home,     middle,     path, labels,  empty,
                               path_length, centroid, scale, describe, map_points, sum,  distance};
  for (size_t i = 0; i < sizeof to_release / sizeof to_release[0]; ++i) xffi_object_dec_ref(to_release[i]);
  CHECK_OK(xcapi_unregister_globals());

  /* Every deleter ran exactly once. */
  CHECK_OK(xcapi_stats_get(&st));
  CHECK(st.points_created == 5 && st.points_dropped == 5, "points: %llu made, %llu deleted",
        (unsigned long long)st.points_created, (unsigned long long)st.points_dropped);
  CHECK(st.labels_created == 1 && st.labels_dropped == 1, "labels: %llu made, %llu deleted",
        (unsigned long long)st.labels_created, (unsigned long long)st.labels_dropped);
  CHECK(st.functions_created == 5 + 6 && st.functions_dropped == st.functions_created,
        "Rust functions: %llu made, %llu deleted", (unsigned long long)st.functions_created,
        (unsigned long long)st.functions_dropped);
  CHECK(atomic_load(&sum_finalized) == 1, "the C function's finalizer ran %d times", atomic_load(&sum_finalized));
  if (check_failures == 0)
    printf("deleters: %llu points, %llu label, %llu Rust functions, 1 C function: each ran once\n",
           (unsigned long long)st.points_dropped, (unsigned long long)st.labels_dropped,
           (unsigned long long)st.functions_dropped);
  CHECK_SUMMARY("c-host-rust-lib");
}
