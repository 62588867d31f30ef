/* The ffi.* globals of the structural visitors and mutators
 * (c/globals_structural_visit.c): callback tables, a borrowed root copied,
 * and each bad argument a clear error naming the global and argument. */
#include <stdint.h>

#include "test_util.h"
#include "test_values.h"

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/structural_visit.h>

static xffi_object *global(const char *name) {
  xffi_object *fn = NULL;
  assert_int_equal(xffi_function_global_lookup(&fn, name), XFFI_OK);
  return fn;
}

static int double_int(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  (void)num_args;
  *result = xffi_any_int(args[0].v_int64 * 2);
  return XFFI_OK;
}

static int raise_from_callback(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  (void)args;
  (void)num_args;
  (void)result;
  return xffi_error_raise(XFFI_KIND_VALUE, "callback refused");
}

static xffi_any entries_of(int32_t type_index, xffi_object *fn) {
  xffi_any pair[] = {xffi_any_int(type_index), xffi_any_object(fn)};
  xffi_any entry = array_of(pair, 2);
  xffi_any table = array_of(&entry, 1);
  xffi_any_release(&entry);
  return table;
}

static void test_globals_map_and_refuse_bad_input(void **state) {
  (void)state;
  xffi_object *map = global("ffi.StructuralMap"), *walk = global("ffi.StructuralWalk");
  xffi_object *doubler = NULL, *raiser = NULL;
  assert_int_equal(xffi_function_new(&doubler, double_int, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_new(&raiser, raise_from_callback, NULL, NULL), XFFI_OK);
  xffi_any items[] = {xffi_any_int(1), str("s"), xffi_any_int(3)};
  xffi_any root = array_of(items, 3), ints = entries_of(XFFI_TYPE_INT, doubler), empty = array_of(NULL, 0);
  xffi_any args[4] = {root, ints, empty, xffi_any_int(XFFI_STRUCTURAL_POSTORDER)}, r = xffi_any_none();
  assert_int_equal(xffi_function_call(map, args, 4, &r), XFFI_OK);
  xffi_any third = item(&r, 2), kept = item(&root, 2);
  assert_int_equal(third.v_int64, 6);
  assert_int_equal(kept.v_int64, 3); /* a borrowed root is copied, never changed */
  xffi_any_release(&r);
  /* Bad input: clear errors naming the function and argument. */
  args[1] = xffi_any_int(5);
  assert_int_equal(xffi_function_call(map, args, 4, &r), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "ffi.StructuralMap: argument 1: expected a sequence of callback entries, got int");
  xffi_any bad_entry_items[] = {xffi_any_int(1), xffi_any_int(2)};
  xffi_any bad_entry = array_of(bad_entry_items, 2), bad_table = array_of(&bad_entry, 1);
  args[1] = empty;
  args[2] = bad_table;
  assert_int_equal(xffi_function_call(walk, args, 4, &r), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE,
                "ffi.StructuralWalk: argument 2: entry 0 must be (type_index: int, callback: ffi.Function)");
  args[2] = empty;
  args[3] = xffi_any_int(9);
  assert_int_equal(xffi_function_call(walk, args, 4, &r), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE,
                "ffi.StructuralWalk: argument 3: order must be 0 (pre-order) or 1 (post-order), got 9");
  /* A walk callback returning a wrong type; a callback that raises. */
  args[1] = ints;
  args[3] = xffi_any_int(XFFI_STRUCTURAL_PREORDER);
  assert_int_equal(xffi_function_call(walk, args, 4, &r), XFFI_OK); /* 2 and 6: ints, taken as advance */
  xffi_any strs = entries_of(XFFI_TYPE_STRING, doubler);
  args[1] = strs;
  assert_int_equal(xffi_function_call(walk, args, 4, &r), XFFI_OK); /* small "s" matches str: doubled is an int */
  xffi_any raising = entries_of(-1, raiser);
  args[1] = raising;
  assert_int_equal(xffi_function_call(map, args, 4, &r), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "callback refused");
  xffi_object *visitor_visit = global("ffi.StructuralVisitorVisit");
  xffi_any pair[] = {root, root};
  assert_int_equal(xffi_function_call(visitor_visit, pair, 2, &r), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "expected ffi.StructuralVisitor, got ffi.Array");
  xffi_object *interrupt = global("ffi.VisitInterrupt");
  assert_int_equal(xffi_function_call(interrupt, &items[1], 1, &r), XFFI_OK);
  assert_int_equal(r.type_index, XFFI_TYPE_VISIT_INTERRUPT);
  xffi_any_release(&r);
  xffi_any all[] = {items[1], root, ints, empty, third, kept, bad_entry, bad_table, strs, raising};
  release(all, sizeof(all) / sizeof(all[0]));
  xffi_object *fns[] = {map, walk, doubler, raiser, visitor_visit, interrupt};
  for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); ++i) xffi_object_dec_ref(fns[i]);
}

/* A moved root (an rvalue reference, Python's `_move()`) is taken over: the
 * map changes it in place and clears the mover's slot. */
static void test_moved_root_changes_in_place(void **state) {
  (void)state;
  xffi_object *map = global("ffi.StructuralMap"), *mutate = global("ffi.StructuralMutate"), *doubler = NULL;
  assert_int_equal(xffi_function_new(&doubler, double_int, NULL, NULL), XFFI_OK);
  xffi_any items[] = {xffi_any_int(1), xffi_any_int(2)};
  xffi_any root = array_of(items, 2), ints = entries_of(XFFI_TYPE_INT, doubler), empty = array_of(NULL, 0);
  xffi_object *slot = root.v_obj;
  xffi_any moved = xffi_any_none();
  moved.type_index = XFFI_TYPE_OBJECT_RVALUE;
  moved.v_ptr = &slot;
  xffi_any args[4] = {moved, ints, empty, xffi_any_int(XFFI_STRUCTURAL_POSTORDER)}, r = xffi_any_none();
  assert_int_equal(xffi_function_call(map, args, 4, &r), XFFI_OK);
  assert_null(slot);
  assert_ptr_equal(r.v_obj, root.v_obj);
  xffi_any second = item(&r, 1);
  assert_int_equal(second.v_int64, 4);
  /* StructuralMutate's entries are (type_index, Function, takes_inplace_mode). */
  xffi_any margs[2] = {r, ints}, r2 = xffi_any_none();
  assert_int_equal(xffi_function_call(mutate, margs, 2, &r2), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE,
                "ffi.StructuralMutate: argument 1: entry 0 must be (type_index: int, callback: ffi.Function, "
                "takes_inplace_mode: bool)");
  xffi_any all[] = {r, ints, empty};
  release(all, 3);
  xffi_object *fns[] = {map, mutate, doubler};
  for (size_t i = 0; i < 3; ++i) xffi_object_dec_ref(fns[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_globals_map_and_refuse_bad_input),
      cmocka_unit_test(test_moved_root_changes_in_place),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
