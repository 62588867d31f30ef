/* tests/c/compat/test_tvm_env.c: tvm-ffi's environment API (streams, the DLPack
 * tensor allocator, TVMFFIEnvTensorAlloc, the host's signal check and
 * TVMFFIEnvRegisterCAPI) and init-once handles, single-threaded; bad input
 * to each. The concurrent cases are in test_tvm_env_threads.c. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (test_clock.h) */
#include "test_util.h"

#include <xffi/tvm_ffi.h>
#include "failing_allocator.h"
#include "tensor_producer.h"
#include "test_clock.h"

/* ---- Streams ---- */

static void test_streams_per_device_with_previous(void **state) {
  (void)state;
  int a, b, c;
  assert_null(TVMFFIEnvGetStream(kDLCUDA, 0)); /* never set */
  void *prev = (void *)1;
  assert_int_equal(TVMFFIEnvSetStream(kDLCUDA, 0, &a, &prev), 0);
  assert_null(prev);
  assert_int_equal(TVMFFIEnvSetStream(kDLCUDA, 3, &b, NULL), 0);
  assert_int_equal(TVMFFIEnvSetStream(kDLROCM, 0, &c, NULL), 0);
  assert_ptr_equal(TVMFFIEnvGetStream(kDLCUDA, 0), &a);
  assert_ptr_equal(TVMFFIEnvGetStream(kDLCUDA, 3), &b);
  assert_ptr_equal(TVMFFIEnvGetStream(kDLROCM, 0), &c);
  assert_null(TVMFFIEnvGetStream(kDLCUDA, 1));
  assert_null(TVMFFIEnvGetStream(kDLROCM, 3));
  /* Set and restore, as around every call from Python. */
  assert_int_equal(TVMFFIEnvSetStream(kDLCUDA, 0, &c, &prev), 0);
  assert_ptr_equal(prev, &a);
  assert_int_equal(TVMFFIEnvSetStream(kDLCUDA, 0, prev, &prev), 0);
  assert_ptr_equal(prev, &c);
  assert_ptr_equal(TVMFFIEnvGetStream(kDLCUDA, 0), &a);
  /* Out of range or negative: never set, so NULL (and nothing raised). */
  assert_null(TVMFFIEnvGetStream(-1, 0));
  assert_null(TVMFFIEnvGetStream(kDLCUDA, -1));
  assert_null(TVMFFIEnvGetStream(INT32_MAX, INT32_MAX));
  assert_nothing_raised();
  for (int id = 0; id < 4; ++id) assert_int_equal(TVMFFIEnvSetStream(kDLCUDA, id, NULL, NULL), 0);
  assert_int_equal(TVMFFIEnvSetStream(kDLROCM, 0, NULL, NULL), 0);
}

static void test_stream_bad_indices_change_nothing(void **state) {
  (void)state;
  int a;
  void *prev = (void *)1;
  assert_int_equal(TVMFFIEnvSetStream(-1, 0, &a, &prev), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIEnvSetStream: device_type must be in [0, 1024), got -1");
  assert_int_equal(TVMFFIEnvSetStream(kDLCUDA, -2, &a, &prev), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIEnvSetStream: device_id must be in [0, 65536), got -2");
  assert_int_equal(TVMFFIEnvSetStream(kDLCUDA, INT32_MAX, &a, &prev), -1);
  assert_raised(XFFI_KIND_VALUE, "device_id must be in [0, 65536)");
  assert_int_equal(TVMFFIEnvSetStream(INT32_MAX, 0, &a, &prev), -1);
  assert_raised(XFFI_KIND_VALUE, "device_type must be in [0, 1024)");
  assert_ptr_equal(prev, (void *)1);
  assert_null(TVMFFIEnvGetStream(kDLCUDA, -2));
}

static void test_streams_allocate_nothing_after_first_touch_and_are_cheap(void **state) {
  (void)state;
  int a;
  assert_int_equal(TVMFFIEnvSetStream(kDLCUDA, 1, &a, NULL), 0); /* first touch */
  /* Growth under memory failure: an error, the old entries intact. */
  failing_allocator_fail_after(0);
  assert_int_equal(TVMFFIEnvSetStream(kDLCUDA, 4000, &a, NULL), -1);
  failing_allocator_fail_after(-1);
  assert_raised(XFFI_KIND_MEMORY, "");
  assert_ptr_equal(TVMFFIEnvGetStream(kDLCUDA, 1), &a);
  uint64_t before = failing_allocator_attempts();
  enum { ROUNDS = 1000000 };
  double start = test_cpu_seconds();
  void *prev = NULL;
  for (int i = 0; i < ROUNDS; ++i) {
    assert_int_equal(TVMFFIEnvSetStream(kDLCUDA, 1, &prev, &prev), 0);
    if (TVMFFIEnvGetStream(kDLCUDA, 1) != &prev) fail();
    assert_int_equal(TVMFFIEnvSetStream(kDLCUDA, 1, prev, NULL), 0);
  }
  double seconds = test_cpu_seconds() - start;
  assert_int_equal(failing_allocator_attempts(), before);
  print_message("streams: %d x (set, get, restore) in %.3f s (%.1f ns per round)\n", ROUNDS, seconds,
                seconds * 1e9 / ROUNDS);
  assert_true(seconds < 2.0); /* about 10 ms expected (debug build): generous headroom */
  assert_int_equal(TVMFFIEnvSetStream(kDLCUDA, 1, NULL, NULL), 0);
}

/* ---- The DLPack tensor allocator ---- */

static producer made;
static int allocations;

static int producing_allocator(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                               void (*set_error)(void *, const char *, const char *)) {
  (void)error_ctx, (void)set_error;
  ++allocations;
  producer_init(&made);
  made.managed.dl_tensor.dtype = prototype->dtype;
  made.managed.dl_tensor.strides = NULL; /* the runtime fills compact strides */
  *out = &made.managed;
  return 0;
}

static int failing_tensor_allocator(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                                    void (*set_error)(void *, const char *, const char *)) {
  (void)prototype, (void)out;
  set_error(error_ctx, "MemoryError", "the device is full");
  return -7;
}

static int silent_allocator(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                            void (*set_error)(void *, const char *, const char *)) {
  (void)prototype, (void)error_ctx, (void)set_error;
  *out = NULL;
  return 0;
}

static int malformed_allocator(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                               void (*set_error)(void *, const char *, const char *)) {
  (void)prototype, (void)error_ctx, (void)set_error;
  producer_init(&made);
  made.managed.dl_tensor.ndim = -3;
  *out = &made.managed;
  return 0;
}

static void test_allocator_thread_slot_then_global(void **state) {
  (void)state;
  assert_null(TVMFFIEnvGetDLPackManagedTensorAllocator());
  DLPackManagedTensorAllocator prev = silent_allocator;
  assert_int_equal(TVMFFIEnvSetDLPackManagedTensorAllocator(producing_allocator, 1, &prev), 0);
  assert_null(prev);
  assert_ptr_equal(TVMFFIEnvGetDLPackManagedTensorAllocator(), producing_allocator);
  /* Thread only: the global one stays; the previous reported is the thread's. */
  assert_int_equal(TVMFFIEnvSetDLPackManagedTensorAllocator(failing_tensor_allocator, 0, &prev), 0);
  assert_ptr_equal(prev, producing_allocator);
  assert_ptr_equal(TVMFFIEnvGetDLPackManagedTensorAllocator(), failing_tensor_allocator);
  /* Clearing the thread's falls back to the global one. */
  assert_int_equal(TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 0, &prev), 0);
  assert_ptr_equal(prev, failing_tensor_allocator);
  assert_ptr_equal(TVMFFIEnvGetDLPackManagedTensorAllocator(), producing_allocator);
  assert_int_equal(TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 1, NULL), 0);
  assert_null(TVMFFIEnvGetDLPackManagedTensorAllocator());
}

static void test_tensor_alloc(void **state) {
  (void)state;
  int64_t shape[2] = {2, 3};
  DLTensor prototype = {NULL, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  void *tensor = (void *)1;
  assert_int_equal(TVMFFIEnvTensorAlloc(&prototype, &tensor), -1);
  assert_raised(XFFI_KIND_RUNTIME, "TVMFFIEnvTensorAlloc: no DLPack tensor allocator is set");
  assert_null(tensor);
  assert_int_equal(TVMFFIEnvSetDLPackManagedTensorAllocator(producing_allocator, 0, NULL), 0);
  allocations = 0;
  assert_int_equal(TVMFFIEnvTensorAlloc(&prototype, &tensor), 0);
  assert_int_equal(allocations, 1);
  assert_int_equal(((xffi_object *)tensor)->type_index, XFFI_TYPE_TENSOR);
  DLTensor *dl = NULL;
  assert_int_equal(xffi_tensor_cell_of(&dl, tensor), XFFI_OK);
  assert_int_equal(dl->ndim, 2);
  assert_int_equal(dl->shape[1], 3);
  assert_non_null(dl->strides);
  assert_int_equal(dl->strides[0], 3);
  assert_int_equal(dl->strides[1], 1);
  assert_int_equal(made.deleted, 0);
  xffi_object_dec_ref(tensor);
  assert_int_equal(made.deleted, 1);
  /* The allocator's own error, and its status, come back. */
  assert_int_equal(TVMFFIEnvSetDLPackManagedTensorAllocator(failing_tensor_allocator, 0, NULL), 0);
  assert_int_equal(TVMFFIEnvTensorAlloc(&prototype, &tensor), -7);
  assert_raised("MemoryError", "the device is full");
  assert_null(tensor);
  assert_int_equal(TVMFFIEnvSetDLPackManagedTensorAllocator(silent_allocator, 0, NULL), 0);
  assert_int_equal(TVMFFIEnvTensorAlloc(&prototype, &tensor), -1);
  assert_raised(XFFI_KIND_RUNTIME, "TVMFFIEnvTensorAlloc: the allocator returned no tensor");
  /* A malformed tensor is refused and given back to its producer. */
  assert_int_equal(TVMFFIEnvSetDLPackManagedTensorAllocator(malformed_allocator, 0, NULL), 0);
  assert_int_equal(TVMFFIEnvTensorAlloc(&prototype, &tensor), -1);
  assert_raised(XFFI_KIND_VALUE, "");
  assert_int_equal(made.deleted, 1);
  assert_null(tensor);
  /* NULL arguments. */
  assert_int_equal(TVMFFIEnvTensorAlloc(NULL, &tensor), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIEnvTensorAlloc: prototype is NULL");
  assert_int_equal(TVMFFIEnvTensorAlloc(&prototype, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIEnvTensorAlloc: out is NULL");
  assert_int_equal(TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 0, NULL), 0);
}

/* ---- The host's C API and signals ---- */

static int gil_depth, gil_entries, pending_signal;
static void *fake_gil_ensure(void) {
  ++gil_depth;
  ++gil_entries;
  return &gil_depth;
}
static void fake_gil_release(void *token) {
  assert_ptr_equal(token, &gil_depth);
  --gil_depth;
}
static int fake_check_signals(void) {
  assert_int_equal(gil_depth, 1); /* called with the host entered */
  return pending_signal ? -1 : 0;
}

static void *data_pointer(void (*fn)(void)) {
  void *p;
  memcpy(&p, &fn, sizeof p);
  return p;
}

static void test_check_signals_through_registered_host_api(void **state) {
  (void)state;
  assert_int_equal(TVMFFIEnvCheckSignals(), 0); /* nothing registered */
  assert_int_equal(TVMFFIEnvRegisterCAPI("PyErr_CheckSignals", data_pointer((void (*)(void))fake_check_signals)), 0);
  assert_int_equal(TVMFFIEnvCheckSignals(), -1); /* the host cannot be entered */
  assert_raised(XFFI_KIND_RUNTIME, "PyGILState_Ensure/Release are not");
  assert_int_equal(TVMFFIEnvRegisterCAPI("PyGILState_Ensure", data_pointer((void (*)(void))fake_gil_ensure)), 0);
  assert_int_equal(TVMFFIEnvRegisterCAPI("PyGILState_Release", data_pointer((void (*)(void))fake_gil_release)), 0);
  assert_int_equal(TVMFFIEnvCheckSignals(), 0);
  assert_int_equal(gil_entries, 1);
  pending_signal = 1;
  assert_int_equal(TVMFFIEnvCheckSignals(), -1); /* the host's error stays in the host */
  assert_nothing_raised();
  assert_int_equal(gil_depth, 0);
  assert_int_equal(gil_entries, 2);
  /* Unregistering (NULL) switches the check off. */
  assert_int_equal(TVMFFIEnvRegisterCAPI("PyErr_CheckSignals", NULL), 0);
  assert_int_equal(TVMFFIEnvCheckSignals(), 0);
  assert_int_equal(gil_entries, 2);
}

static void test_register_capi_bad_input(void **state) {
  (void)state;
  assert_int_equal(TVMFFIEnvRegisterCAPI("PyErr_Occurred", NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIEnvRegisterCAPI: Unknown env API PyErr_Occurred");
  assert_int_equal(TVMFFIEnvRegisterCAPI(NULL, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIEnvRegisterCAPI: name is NULL");
}

/* ---- Init-once handles ---- */

static int init_calls, deinit_calls, init_result_status;
static int the_value, other_value;
static void *handle_a, *handle_b;

static int init_value(void **result) {
  ++init_calls;
  if (init_result_status) return xffi_error_raise(XFFI_KIND_RUNTIME, "init failed on purpose");
  *result = &the_value;
  return 0;
}
static int init_nothing(void **result) {
  (void)result;
  return 0;
}
static int init_other(void **result) {
  *result = &other_value;
  return 0;
}
/* Initialises handle_b from inside handle_a's init. */
static int init_nested(void **result) {
  ++init_calls;
  if (TVMFFIHandleInitOnce(&handle_b, init_other) != 0) return -1;
  *result = handle_b;
  return 0;
}
/* Asks for the handle it is initialising. */
static int init_recursive(void **result) {
  ++init_calls;
  if (TVMFFIHandleInitOnce(&handle_a, init_recursive) != 0) return -1;
  *result = &the_value;
  return 0;
}
static int deinit_value(void *handle) {
  assert_ptr_equal(handle, &the_value);
  ++deinit_calls;
  return 0;
}

static void test_init_once_runs_once_and_deinit_once(void **state) {
  (void)state;
  void *handle = NULL;
  init_calls = deinit_calls = 0;
  assert_int_equal(TVMFFIHandleInitOnce(&handle, init_value), 0);
  assert_ptr_equal(handle, &the_value);
  assert_int_equal(TVMFFIHandleInitOnce(&handle, init_value), 0);
  assert_int_equal(init_calls, 1);
  assert_int_equal(TVMFFIHandleDeinitOnce(&handle, deinit_value), 0);
  assert_null(handle);
  assert_int_equal(TVMFFIHandleDeinitOnce(&handle, deinit_value), 0); /* nothing left */
  assert_int_equal(deinit_calls, 1);
  /* A failed init passes its status and error back; the next call retries. */
  init_result_status = 1;
  assert_int_equal(TVMFFIHandleInitOnce(&handle, init_value), -1);
  assert_raised(XFFI_KIND_RUNTIME, "init failed on purpose");
  assert_null(handle);
  init_result_status = 0;
  assert_int_equal(TVMFFIHandleInitOnce(&handle, init_value), 0);
  assert_int_equal(init_calls, 3);
  assert_ptr_equal(handle, &the_value);
  /* An init that succeeds with no handle is an error. */
  void *empty = NULL;
  assert_int_equal(TVMFFIHandleInitOnce(&empty, init_nothing), -1);
  assert_raised(XFFI_KIND_RUNTIME, "TVMFFIHandleInitOnce: init_func returned 0 but no handle (NULL)");
  assert_null(empty);
}

static void test_init_once_nested_and_recursive(void **state) {
  (void)state;
  /* tvm-ffi holds one global mutex across every init, so this deadlocks there. */
  handle_a = handle_b = NULL;
  assert_int_equal(TVMFFIHandleInitOnce(&handle_a, init_nested), 0);
  assert_ptr_equal(handle_a, &other_value);
  assert_ptr_equal(handle_b, &other_value);
  /* The same handle from inside its own init: an error, not a hang. */
  handle_a = NULL;
  init_calls = 0;
  assert_int_equal(TVMFFIHandleInitOnce(&handle_a, init_recursive), -1);
  assert_raised(XFFI_KIND_RUNTIME, "asked for that same handle (recursive init)");
  assert_int_equal(init_calls, 1);
  assert_null(handle_a);
  /* And the handle can still be initialised afterwards. */
  assert_int_equal(TVMFFIHandleInitOnce(&handle_a, init_value), 0);
  assert_ptr_equal(handle_a, &the_value);
}

static void test_init_once_bad_input(void **state) {
  (void)state;
  void *handle = NULL;
  assert_int_equal(TVMFFIHandleInitOnce(NULL, init_value), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIHandleInitOnce: handle_addr is NULL");
  assert_int_equal(TVMFFIHandleInitOnce(&handle, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIHandleInitOnce: init_func is NULL");
  assert_int_equal(TVMFFIHandleDeinitOnce(NULL, deinit_value), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIHandleDeinitOnce: handle_addr is NULL");
  handle = &the_value;
  assert_int_equal(TVMFFIHandleDeinitOnce(&handle, NULL), -1);
  assert_raised(XFFI_KIND_VALUE, "TVMFFIHandleDeinitOnce: deinit_func is NULL");
  assert_ptr_equal(handle, &the_value); /* untouched */
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_streams_per_device_with_previous),
      cmocka_unit_test(test_stream_bad_indices_change_nothing),
      cmocka_unit_test(test_streams_allocate_nothing_after_first_touch_and_are_cheap),
      cmocka_unit_test(test_allocator_thread_slot_then_global),
      cmocka_unit_test(test_tensor_alloc),
      cmocka_unit_test(test_check_signals_through_registered_host_api),
      cmocka_unit_test(test_register_capi_bad_input),
      cmocka_unit_test(test_init_once_runs_once_and_deinit_once),
      cmocka_unit_test(test_init_once_nested_and_recursive),
      cmocka_unit_test(test_init_once_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
