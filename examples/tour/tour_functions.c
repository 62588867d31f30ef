/* The tour: functions as objects, argument checking, errors that cross
 * calls, and the global function registry. (Loading functions from shared
 * libraries is shown in docs/plugins.md and tests/c/module/test_module.c.) */
#include <stdio.h>
#include <string.h>
#include <xffi/xffi.h>
#include <xffi/function.h>
#include <xffi/sys/function.h>

#include "tour.h"

/* A callee: the resource handle is a running total it adds to. */
static int accumulate(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  int64_t *total = resource, x;
  if (xffi_arg_check_signature(args, num_args, "i", "accumulate") != XFFI_OK) return XFFI_FAIL;
  xffi_arg_to_int_inline(&x, args, num_args, 0, "accumulate");
  *total += x;
  *result = xffi_any_int(*total);
  return XFFI_OK;
}

static void announce_finalizer(void *resource) {
  printf("  finalizer: the accumulator is released (its total was %lld)\n", (long long)*(int64_t *)resource);
}

/* Halves an even number; an odd one is an error. */
static int halve(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  int64_t x;
  if (xffi_arg_check_signature(args, num_args, "i", "halve") != XFFI_OK) return XFFI_FAIL;
  xffi_arg_to_int_inline(&x, args, num_args, 0, "halve");
  if (x % 2) return xffi_error_raise(XFFI_KIND_VALUE, "halve: %lld is odd", (long long)x);
  *result = xffi_any_int(x / 2);
  return XFFI_OK;
}

/* A higher-order callee: calls the function it is given, twice. */
static int apply_twice(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  xffi_object *f;
  int64_t x;
  if (xffi_arg_check_signature(args, num_args, "Fi", "apply_twice") != XFFI_OK) return XFFI_FAIL;
  xffi_arg_to_object(&f, args, num_args, 0, XFFI_TYPE_FUNCTION, "apply_twice");
  xffi_arg_to_int_inline(&x, args, num_args, 1, "apply_twice");
  xffi_any once;
  if (XFFI_CALL(f, &once, xffi_any_int(x)) != XFFI_OK) return xffi_error_pass("apply_twice (first call)");
  if (XFFI_CALL(f, result, once) != XFFI_OK) return xffi_error_pass("apply_twice (second call)");
  return XFFI_OK;
}

/* A direct function: its cell calls it with the Function itself as handle
 * (no forwarding step); the resource, a factor, is one load away. */
static int scale(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  const int64_t *factor = xffi_function_resource_unchecked(handle);
  int64_t x;
  if (xffi_arg_to_int_inline(&x, args, num_args, 0, "scale") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(*factor * x);
  return XFFI_OK;
}

static void direct_functions(void) {
  tour_heading("Direct functions and hot loops");
  static const int64_t factor = 3;
  xffi_object *triple = NULL;
  xffi_function_new_direct(&triple, scale, (void *)&factor, NULL);
  /* Checked once here, so the loop may skip the checks of every call. */
  if (triple->type_index != XFFI_TYPE_FUNCTION) return;
  int64_t sum = 0;
  for (int64_t i = 1; i <= 1000; i++) {
    xffi_any arg = xffi_any_int(i), result;
    if (xffi_function_call_unchecked(triple, &arg, 1, &result) != XFFI_OK) break;
    sum += result.v_int64;
  }
  printf("  sum of scale(i) for i = 1..1000      -> %lld  (xffi_function_call_unchecked in the loop)\n",
         (long long)sum);
  xffi_any result;
  if (XFFI_CALL(triple, &result, xffi_any_c_str("x")) != XFFI_OK) tour_show_error("scale(\"x\")", 36);
  xffi_object_dec_ref(triple);
}

static void functions_as_objects(void) {
  tour_heading("Functions are objects");
  static int64_t total = 0;
  xffi_object *acc = NULL, *twice = NULL;
  xffi_function_new(&acc, accumulate, &total, announce_finalizer);
  xffi_function_new(&twice, apply_twice, NULL, NULL);
  printf("  a Function is an object of type %s (index %d)\n", xffi_type_key(acc->type_index), (int)acc->type_index);

  xffi_any result;
  XFFI_CALL(acc, &result, xffi_any_int(5));
  printf("  accumulate(5)                        -> %lld\n", (long long)result.v_int64);
  XFFI_CALL(twice, &result, xffi_any_object(acc), xffi_any_int(10));
  printf("  apply_twice(accumulate, 10)          -> %lld  (a function passed as an argument)\n",
         (long long)result.v_int64);

  if (XFFI_CALL(acc, &result, xffi_any_c_str("ten")) != XFFI_OK) tour_show_error("accumulate(\"ten\")", 36);
  if (XFFI_CALL(twice, &result, xffi_any_int(1), xffi_any_int(2)) != XFFI_OK) tour_show_error("apply_twice(1, 2)", 36);
  /* An error raised one call down passes through apply_twice, which adds a frame. */
  xffi_object *half = NULL;
  xffi_function_new(&half, halve, NULL, NULL);
  XFFI_CALL(twice, &result, xffi_any_object(half), xffi_any_int(12));
  printf("  apply_twice(halve, 12)               -> %lld\n", (long long)result.v_int64);
  if (XFFI_CALL(twice, &result, xffi_any_object(half), xffi_any_int(6)) != XFFI_OK)
    tour_show_error("apply_twice(halve, 6)", 36);
  xffi_object_dec_ref(half);
  xffi_any none = xffi_any_none();
  if (xffi_function_call(acc, &none, -1, &result) != XFFI_OK) tour_show_error("xffi_function_call(acc, args, -1)", 36);

  xffi_object_dec_ref(twice);
  printf("  dropping the last reference to accumulate:\n");
  xffi_object_dec_ref(acc);
}

static void the_registry(void) {
  tour_heading("The global function registry");
  static int64_t total = 100;
  xffi_object *acc = NULL, *found = NULL;
  xffi_function_new(&acc, accumulate, &total, NULL);
  xffi_function_global_register("tour.accumulate", acc, 0);
  xffi_object_dec_ref(acc); /* the registry keeps its own reference */

  int64_t count = 0;
  xffi_function_global_names(NULL, &count, 0);
  printf("  %lld global function(s) registered; looking one up by name:\n", (long long)count);
  xffi_function_global_lookup(&found, "tour.accumulate");
  xffi_any result;
  XFFI_CALL(found, &result, xffi_any_int(1));
  printf("  tour.accumulate(1)                   -> %lld\n", (long long)result.v_int64);
  if (xffi_function_global_register("tour.accumulate", found, 0) != XFFI_OK)
    tour_show_error("register the same name again", 36);
  xffi_object_dec_ref(found);
  xffi_function_global_lookup(&found, "tour.no_such_function");
  printf("  a name nobody registered             -> %s (not an error)\n", found ? "found?!" : "NULL");
  xffi_function_global_erase("tour.accumulate");
  xffi_function_global_lookup(&found, "tour.accumulate");
  printf("  after removing tour.accumulate       -> %s\n", found ? "found?!" : "NULL");
  if (xffi_function_global_erase("tour.accumulate") != XFFI_OK) tour_show_error("remove it again", 36);
}

void tour_functions(void) {
  functions_as_objects();
  direct_functions();
  the_registry();
}
