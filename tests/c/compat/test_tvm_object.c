/* tvm-ffi's version, reference counting, opaque objects and the custom
 * allocator protocol (header before the body, delete_space on the last weak
 * release, each object freed by the allocator that made it). */
#include "counting_object_allocator.h"
#include "failing_allocator.h"

#include "test_util.h"

#include <xffi/tvm_ffi.h>

static void test_version_is_tvm_ffi_headers(void **state) {
  (void)state;
  xffi_tvm_version v = {9, 9, 9};
  TVMFFIGetVersion(&v);
  assert_int_equal(v.major, 0);
  assert_int_equal(v.minor, 1);
  assert_int_equal(v.patch, 16);
  TVMFFIGetVersion(NULL); /* ignored, no crash */
}

static void test_inc_dec_ref(void **state) {
  (void)state;
  xffi_object *s = NULL;
  assert_int_equal(xffi_string_from_c_str(&s, "a string longer than seven"), XFFI_OK);
  assert_int_equal(TVMFFIObjectIncRef(s), 0);
  assert_int_equal(xffi_object_strong_count(s), 2);
  assert_int_equal(TVMFFIObjectDecRef(s), 0);
  assert_int_equal(xffi_object_strong_count(s), 1);
  assert_int_equal(TVMFFIObjectDecRef(s), 0);
  assert_int_equal(TVMFFIObjectIncRef(NULL), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIObjectIncRef: obj is NULL");
  /* Releasing NULL succeeds and raises nothing, as in tvm-ffi. */
  assert_int_equal(TVMFFIObjectDecRef(NULL), 0);
  assert_null(xffi_error_peek_raised());
}

static int handle_deleted;
static void count_handle_delete(void *handle) {
  assert_ptr_equal(handle, &handle_deleted);
  handle_deleted++;
}

static void test_create_opaque(void **state) {
  (void)state;
  handle_deleted = 0;
  void *obj = NULL;
  assert_int_equal(TVMFFIObjectCreateOpaque(&handle_deleted, 74, count_handle_delete, &obj), 0);
  assert_int_equal(((xffi_object *)obj)->type_index, 74);
  /* tvm-ffi's TVMFFIOpaqueObjectCell: the handle right after the header. */
  assert_ptr_equal(*XFFI_OBJECT_CELL(void *, obj), &handle_deleted);
  assert_int_equal(xffi_object_strong_count(obj), 1);
  TVMFFIObjectIncRef(obj);
  TVMFFIObjectDecRef(obj);
  assert_int_equal(handle_deleted, 0);
  TVMFFIObjectDecRef(obj);
  assert_int_equal(handle_deleted, 1);
  /* A NULL deleter is allowed: nothing to call. */
  assert_int_equal(TVMFFIObjectCreateOpaque(NULL, 74, NULL, &obj), 0);
  TVMFFIObjectDecRef(obj);
}

static void test_create_opaque_bad_input(void **state) {
  (void)state;
  void *obj = (void *)0x1;
  assert_int_equal(TVMFFIObjectCreateOpaque(NULL, 75, NULL, &obj), -1);
  assert_null(obj);
  expect_error(XFFI_KIND_RUNTIME,
               "TVMFFIObjectCreateOpaque: type_index must be 74 (ffi.OpaquePyObject), the only opaque type, got 75");
  assert_int_equal(TVMFFIObjectCreateOpaque(NULL, 74, NULL, NULL), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIObjectCreateOpaque: out is NULL");
}

static void test_create_opaque_out_of_memory(void **state) {
  (void)state;
  void *obj = NULL;
  failing_allocator_fail_after(0);
  assert_int_equal(TVMFFIObjectCreateOpaque(NULL, 74, NULL, &obj), -1);
  failing_allocator_fail_after(-1);
  assert_null(obj);
  assert_raised(XFFI_KIND_MEMORY, "out of memory");
}

static void test_custom_allocator_protocol(void **state) {
  (void)state;
  xffi_custom_allocator *builtin = TVMFFIGetCustomAllocator();
  assert_non_null(builtin);
  assert_non_null(builtin->allocate);
  /* The built-in one puts a header before the body too. */
  void *obj = NULL;
  assert_int_equal(TVMFFIObjectCreateOpaque(NULL, 74, NULL, &obj), 0);
  assert_non_null(((xffi_object_alloc_header *)obj - 1)->delete_space);
  TVMFFIObjectDecRef(obj);
  /* Called directly, it returns a body with a header, freed by delete_space. */
  void *body = builtin->allocate(40, 8, 74, builtin->context);
  assert_non_null(body);
  assert_int_equal((uintptr_t)body % 16, 0);
  ((xffi_object_alloc_header *)body - 1)->delete_space(body);
  body = builtin->allocate(64, 64, 74, builtin->context);
  assert_int_equal((uintptr_t)body % 64, 0);
  ((xffi_object_alloc_header *)body - 1)->delete_space(body);

  memset(&counter, 0, sizeof(counter));
  xffi_custom_allocator mine = {counting_allocate, &counter};
  assert_int_equal(TVMFFISetCustomAllocator(&mine), 0);
  assert_ptr_equal(TVMFFIGetCustomAllocator(), &mine); /* borrowed, not copied */
  void *a = NULL, *b = NULL;
  assert_int_equal(TVMFFIObjectCreateOpaque(NULL, 74, NULL, &a), 0);
  assert_int_equal(counter.allocated, 1);
  assert_int_equal(counter.last_type_index, 74);
  /* A weak reference keeps the memory after the last strong one. */
  xffi_weak *weak = NULL;
  assert_int_equal(xffi_weak_new(&weak, a), XFFI_OK);
  TVMFFIObjectDecRef(a);
  assert_int_equal(counter.freed, 0);
  xffi_weak_release(weak);
  assert_int_equal(counter.freed, 1);
  /* An object outlives the allocator's replacement and still goes back to it. */
  assert_int_equal(TVMFFIObjectCreateOpaque(NULL, 74, NULL, &b), 0);
  assert_int_equal(TVMFFISetCustomAllocator(NULL), 0);
  assert_ptr_equal(TVMFFIGetCustomAllocator(), builtin);
  TVMFFIObjectDecRef(b);
  assert_int_equal(counter.allocated, 2);
  assert_int_equal(counter.freed, 2);
}

/* Every kind of object the runtime allocates has the header, from the
 * built-in allocator and from a custom one. */
static void test_every_runtime_object_has_the_header(void **state) {
  (void)state;
  for (int custom = 0; custom < 2; ++custom) {
    memset(&counter, 0, sizeof(counter));
    xffi_custom_allocator mine = {counting_allocate, &counter};
    if (custom) assert_int_equal(TVMFFISetCustomAllocator(&mine), 0);
    xffi_object *str = NULL, *bytes = NULL, *err = NULL, *tensor = NULL;
    assert_int_equal(xffi_string_from_c_str(&str, "a string of more than seven bytes"), XFFI_OK);
    assert_int_equal(xffi_bytes_new(&bytes, "bytes", 5), XFFI_OK);
    assert_int_equal(xffi_error_new(&err, "ValueError", "message"), XFFI_OK);
    int64_t shape[] = {3, 3};
    assert_int_equal(xffi_tensor_new(&tensor, shape, 2, (DLDataType){kDLFloat, 32, 1}), XFFI_OK);
    assert_int_equal((uintptr_t)xffi_tensor_cell_of_unchecked(tensor)->data % XFFI_TENSOR_ALIGNMENT, 0);
    int64_t words[] = {1, 2};
    xffi_byte_array in = {(const char *)words, sizeof(words)};
    xffi_any big;
    assert_int_equal(TVMFFIBigIntFromByteArray(&in, &big), 0);
    xffi_object *objects[] = {str, bytes, err, tensor, big.v_obj};
    for (size_t i = 0; i < 5; ++i) {
      assert_non_null(header_of(objects[i])->delete_space);
      if (custom) assert_ptr_equal(header_of(objects[i])->delete_space, counting_delete_space);
    }
    if (custom) {
      assert_int_equal(counter.allocated, 5);
      assert_int_equal(counter.last_type_index, XFFI_TYPE_BIGINT);
      assert_int_equal(TVMFFISetCustomAllocator(NULL), 0);
      /* A String from the custom allocator (no cached hash word) finds the
       * same map entry as an equal built-in one. */
      xffi_object *again = NULL, *map = NULL;
      assert_int_equal(xffi_string_from_c_str(&again, "a string of more than seven bytes"), XFFI_OK);
      xffi_any key = xffi_any_object(again), value = xffi_any_int(5), probe = xffi_any_object(str);
      assert_int_equal(xffi_map_new(&map, &key, &value, 1), XFFI_OK);
      int found = 0;
      assert_int_equal(xffi_map_contains(&found, map, &probe), XFFI_OK);
      assert_true(found);
      xffi_object_dec_ref(map);
      xffi_object_dec_ref(again);
    }
    for (size_t i = 0; i < 5; ++i) xffi_object_dec_ref(objects[i]);
    if (custom) assert_int_equal(counter.freed, 5);
  }
}

/* Callees of the Functions below: they do nothing. */
static int nop_callback(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args;
  *result = xffi_any_none();
  return 0;
}
static int nop_safe_call(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  return nop_callback(handle, args, num_args, result);
}
static int resources_released;
static void count_resource_release(void *resource) {
  (void)resource;
  resources_released++;
}

/* The containers, Shapes, Functions and Modules the runtime makes have the
 * header too, from the built-in allocator and from a custom one, and go back
 * to the allocator that made them. Growing a List, Map or Dict moves its
 * storage, never the object, so the header stays. */
static void test_containers_functions_and_modules_have_the_header(void **state) {
  (void)state;
  enum { PAIRS = 20 };
  xffi_any keys[PAIRS], values[PAIRS];
  for (int i = 0; i < PAIRS; ++i) keys[i] = xffi_any_int(i), values[i] = xffi_any_int(100 + i);
  for (int custom = 0; custom < 2; ++custom) {
    memset(&counter, 0, sizeof(counter));
    resources_released = 0;
    xffi_custom_allocator mine = {counting_allocate, &counter};
    if (custom) assert_int_equal(TVMFFISetCustomAllocator(&mine), 0);
    xffi_object *array = NULL, *list = NULL, *small = NULL, *dense = NULL, *dict = NULL, *shape = NULL;
    xffi_object *callback = NULL, *direct = NULL;
    void *created = NULL, *created_direct = NULL;
    assert_int_equal(xffi_array_new(&array, values, 3), XFFI_OK);
    assert_int_equal(xffi_list_new(&list, values, 2), XFFI_OK);
    for (int i = 0; i < PAIRS; ++i) assert_int_equal(xffi_list_push(list, &values[i]), XFFI_OK); /* buffer grows */
    assert_int_equal(xffi_map_new(&small, keys, values, 3), XFFI_OK);
    assert_int_equal(xffi_map_new(&dense, keys, values, PAIRS), XFFI_OK);
    assert_int_equal(xffi_dict_new(&dict, keys, values, 2), XFFI_OK);
    for (int i = 2; i < PAIRS; ++i) assert_int_equal(xffi_dict_set(dict, &keys[i], &values[i]), XFFI_OK); /* to dense */
    int64_t dims[] = {2, 3, 4};
    assert_int_equal(xffi_shape_new(&shape, dims, 3), XFFI_OK);
    assert_int_equal(xffi_function_new(&callback, nop_callback, NULL, NULL), XFFI_OK);
    assert_int_equal(xffi_function_new_direct(&direct, nop_safe_call, NULL, NULL), XFFI_OK);
    assert_int_equal(TVMFFIFunctionCreate(&counter, nop_safe_call, count_resource_release, &created), 0);
    assert_int_equal(TVMFFIFunctionCreate(NULL, nop_safe_call, NULL, &created_direct), 0);
    xffi_object *objects[] = {array, list, small, dense, dict, shape, callback, direct, created, created_direct};
    enum { COUNT = sizeof(objects) / sizeof(objects[0]) };
    for (size_t i = 0; i < COUNT; ++i) {
      assert_non_null(header_of(objects[i])->delete_space);
      if (custom) assert_ptr_equal(header_of(objects[i])->delete_space, counting_delete_space);
    }
    if (custom) {
      assert_int_equal(counter.allocated, COUNT);
      assert_int_equal(TVMFFISetCustomAllocator(NULL), 0);
    }
    int64_t length = 0;
    assert_int_equal(xffi_map_length(&length, dict), XFFI_OK);
    assert_int_equal(length, PAIRS);
    for (size_t i = 0; i < COUNT; ++i) xffi_object_dec_ref(objects[i]);
    assert_int_equal(resources_released, 1);
    if (custom) assert_int_equal(counter.freed, COUNT);

    /* The system library's Module (made once per prefix, kept for the
     * process: a prefix of this test's own for each allocator). */
    if (custom) assert_int_equal(TVMFFISetCustomAllocator(&mine), 0);
    void *system_lib = NULL;
    xffi_byte_array name = {"ffi.SystemLib", 13};
    assert_int_equal(TVMFFIFunctionGetGlobal(&name, &system_lib), 0);
    xffi_any prefix = xffi_any_c_str(custom ? "alloc_header_custom_" : "alloc_header_builtin_"), module;
    assert_int_equal(TVMFFIFunctionCall(system_lib, &prefix, 1, &module), 0);
    assert_int_equal(module.type_index, XFFI_TYPE_MODULE);
    /* The body is tvm-ffi's C++ ModuleObj: its vtable pointer (padded to 8
     * bytes), then the header. */
    const char *body = (const char *)module.v_obj - 8;
    assert_non_null(header_of(body)->delete_space);
    if (custom) {
      assert_ptr_equal(header_of(body)->delete_space, counting_delete_space);
      assert_int_equal(counter.last_type_index, XFFI_TYPE_MODULE);
      assert_int_equal(TVMFFISetCustomAllocator(NULL), 0);
    }
    xffi_any_release(&module);
    TVMFFIObjectDecRef(system_lib);
  }
}

static void test_custom_allocator_failures(void **state) {
  (void)state;
  memset(&counter, 0, sizeof(counter));
  counter.fail_without_raising = 1;
  xffi_custom_allocator mine = {counting_allocate, &counter};
  assert_int_equal(TVMFFISetCustomAllocator(&mine), 0);
  void *obj = (void *)0x1;
  assert_int_equal(TVMFFIObjectCreateOpaque(NULL, 74, NULL, &obj), -1);
  assert_null(obj);
  assert_raised(XFFI_KIND_MEMORY, "out of memory"); /* it raised nothing: the runtime does */
  TVMFFISetCustomAllocator(NULL);
  xffi_custom_allocator broken = {NULL, NULL};
  assert_int_equal(TVMFFISetCustomAllocator(&broken), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFISetCustomAllocator: allocator->allocate is NULL");
  assert_ptr_not_equal(TVMFFIGetCustomAllocator(), &broken);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version_is_tvm_ffi_headers),
      cmocka_unit_test(test_inc_dec_ref),
      cmocka_unit_test(test_create_opaque),
      cmocka_unit_test(test_create_opaque_bad_input),
      cmocka_unit_test(test_create_opaque_out_of_memory),
      cmocka_unit_test(test_custom_allocator_protocol),
      cmocka_unit_test(test_every_runtime_object_has_the_header),
      cmocka_unit_test(test_containers_functions_and_modules_have_the_header),
      cmocka_unit_test(test_custom_allocator_failures),
  };
  return cmocka_run_group_tests_name("tvm_object", tests, NULL, NULL);
}
