/* c/compat/abi/tvm_env.c: tvm-ffi's environment API (xffi/tvm_ffi.h): the current
 * stream per device, the DLPack tensor allocator, tensor allocation through
 * it, and the host's signal check (Python registers its C API entry points).
 *
 * Streams are the hot path of every call from Python (set before the call,
 * restored after), so each thread keeps a table of its own, reached through
 * one thread-local pointer with no lock: rows by device type, each row a
 * vector by device id, grown on first touch of an index and never shrunk, so
 * after that a get or set is two bounds checks and a load or store. A
 * thread's table is freed when the thread exits. */
#include <string.h>

#include <xffi/tensor.h>
#include <xffi/tvm_ffi.h>

#include "runtime/check.h"
#include "runtime/internal.h"
#include "platform/platform.h"

/* ---- Streams ---- */

/* Bounds on what a table may be asked to hold: DLPack's device types are
 * small numbers and device ids count the devices of one machine, so these
 * refuse only garbage (which would otherwise ask for gigabytes). */
#define STREAM_DEVICE_TYPE_LIMIT 1024
#define STREAM_DEVICE_ID_LIMIT 65536

typedef struct stream_row {
  int32_t size;
  void **streams; /* size entries, NULL where none was set */
} stream_row;

typedef struct stream_table {
  int32_t size;
  stream_row *rows; /* size rows, indexed by device type */
} stream_table;

static _Thread_local stream_table *my_streams;
static xffi_once stream_key_once = XFFI_ONCE_INITIALIZER;
static xffi_thread_key stream_key;
static int stream_key_ok;

/* Runs when a thread that made a table exits. */
static void stream_table_free(void *value) {
  stream_table *table = value;
  for (int32_t i = 0; i < table->size; ++i) xffi_free(table->rows[i].streams);
  xffi_free(table->rows);
  xffi_free(table);
  my_streams = NULL;
}

static void stream_key_create(void) { stream_key_ok = xffi_thread_key_create(&stream_key, stream_table_free) == 0; }

/* Twice what is needed, so a scan of increasing ids grows a few times only. */
static int32_t grown_size(int32_t needed, int32_t limit) {
  int32_t size = 4;
  while (size < needed) size *= 2;
  return size < limit ? size : limit;
}

/* Makes room for (device_type, device_id) in the calling thread's table.
 * XFFI_OK, or MemoryError raised with the table unchanged (but perhaps
 * allocated, empty). */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int
stream_slot_make(int32_t device_type, int32_t device_id) {
  stream_table *table = my_streams;
  if (!table) {
    xffi_call_once(&stream_key_once, stream_key_create);
    table = xffi_alloc_zeroed(1, sizeof *table);
    if (!table) return xffi_error_raise_out_of_memory();
    /* Without the key the table is simply not freed at thread exit. */
    if (stream_key_ok) xffi_thread_key_set(stream_key, table);
    my_streams = table;
  }
  if (device_type >= table->size) {
    int32_t size = grown_size(device_type + 1, STREAM_DEVICE_TYPE_LIMIT);
    stream_row *rows = xffi_realloc(table->rows, (size_t)size * sizeof *rows);
    if (!rows) return xffi_error_raise_out_of_memory();
    memset(rows + table->size, 0, (size_t)(size - table->size) * sizeof *rows);
    table->rows = rows;
    table->size = size;
  }
  stream_row *row = &table->rows[device_type];
  if (device_id >= row->size) {
    int32_t size = grown_size(device_id + 1, STREAM_DEVICE_ID_LIMIT);
    void **streams = xffi_realloc(row->streams, (size_t)size * sizeof *streams);
    if (!streams) return xffi_error_raise_out_of_memory();
    for (int32_t i = row->size; i < size; ++i) streams[i] = NULL;
    row->streams = streams;
    row->size = size;
  }
  return XFFI_OK;
}

int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id, void *stream, void **opt_out_original_stream) {
  stream_table *table = my_streams;
  if (XFFI_LIKELY(table && (uint32_t)device_type < (uint32_t)table->size &&
                  (uint32_t)device_id < (uint32_t)table->rows[device_type].size)) {
    void **slot = &table->rows[device_type].streams[device_id];
    if (opt_out_original_stream) *opt_out_original_stream = *slot;
    *slot = stream;
    return XFFI_OK;
  }
  XFFI_CHECK_ARG(device_type, device_type >= 0 && device_type < STREAM_DEVICE_TYPE_LIMIT, XFFI_KIND_VALUE,
                 "must be in [0, %d), got %d", STREAM_DEVICE_TYPE_LIMIT, (int)device_type);
  XFFI_CHECK_ARG(device_id, device_id >= 0 && device_id < STREAM_DEVICE_ID_LIMIT, XFFI_KIND_VALUE,
                 "must be in [0, %d), got %d", STREAM_DEVICE_ID_LIMIT, (int)device_id);
  if (stream_slot_make(device_type, device_id) != XFFI_OK) return XFFI_FAIL;
  table = my_streams;
  void **slot = &table->rows[device_type].streams[device_id];
  if (opt_out_original_stream) *opt_out_original_stream = *slot;
  *slot = stream;
  return XFFI_OK;
}

void *TVMFFIEnvGetStream(int32_t device_type, int32_t device_id) {
  const stream_table *table = my_streams;
  if (table && (uint32_t)device_type < (uint32_t)table->size &&
      (uint32_t)device_id < (uint32_t)table->rows[device_type].size)
    return table->rows[device_type].streams[device_id];
  return NULL; /* never set (negative or huge indices can never be) */
}

/* ---- The DLPack tensor allocator ---- */

static _Thread_local DLPackManagedTensorAllocator my_tensor_allocator;
static _Atomic(DLPackManagedTensorAllocator) global_tensor_allocator;

int TVMFFIEnvSetDLPackManagedTensorAllocator(DLPackManagedTensorAllocator allocator, int write_to_global_context,
                                             DLPackManagedTensorAllocator *opt_out_original_allocator) {
  /* The previous allocator reported is the thread's, never the global one. */
  if (opt_out_original_allocator) *opt_out_original_allocator = my_tensor_allocator;
  if (write_to_global_context) atomic_store_explicit(&global_tensor_allocator, allocator, memory_order_release);
  my_tensor_allocator = allocator;
  return XFFI_OK;
}

/* The thread's allocator, else the process's (static: the runtime's own
 * callers never call an exported TVMFFI* name, which another loaded runtime
 * could interpose). */
static DLPackManagedTensorAllocator tensor_allocator_in_force(void) {
  DLPackManagedTensorAllocator allocator = my_tensor_allocator;
  return allocator ? allocator : atomic_load_explicit(&global_tensor_allocator, memory_order_acquire);
}

DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void) { return tensor_allocator_in_force(); }

/* How an allocator reports its failure: raised in the calling thread. */
static void tensor_alloc_set_error(void *error_context, const char *kind, const char *message) {
  (void)error_context;
  xffi_error_raise_str(kind ? kind : XFFI_KIND_RUNTIME, message ? message : "(no message)");
}

int TVMFFIEnvTensorAlloc(DLTensor *prototype, void **out) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_NOT_NULL(prototype);
  DLPackManagedTensorAllocator allocator = tensor_allocator_in_force();
  if (!allocator)
    return xffi_error_raise(XFFI_KIND_RUNTIME,
                            "%s: no DLPack tensor allocator is set (TVMFFIEnvSetDLPackManagedTensorAllocator)",
                            __func__);
  DLManagedTensorVersioned *managed = NULL;
  int status = allocator(prototype, &managed, NULL, tensor_alloc_set_error);
  if (status != 0) {
    if (!xffi_raised_slot)
      xffi_error_raise(XFFI_KIND_RUNTIME, "%s: the allocator failed (status %d) without saying why", __func__, status);
    return status;
  }
  if (!managed) return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: the allocator returned no tensor", __func__);
  xffi_object *tensor = NULL;
  if (xffi_tensor_from_dlpack(&tensor, managed) != XFFI_OK) {
    /* Still ours on failure: give it back to its producer. */
    if (managed->deleter) managed->deleter(managed);
    return XFFI_FAIL;
  }
  *out = tensor;
  return XFFI_OK;
}

/* ---- The host's C API (Python) and signals ---- */

/* The entry points the host registered, or NULL; process-wide. Stored as
 * the data pointers they were given as (see TVMFFIEnvRegisterCAPI). */
static _Atomic(void *) host_check_signals; /* int PyErr_CheckSignals(void) */
static _Atomic(void *) host_gil_ensure;    /* void *PyGILState_Ensure(void) (an enum, returned as a word) */
static _Atomic(void *) host_gil_release;   /* void PyGILState_Release(void *) */

int TVMFFIEnvRegisterCAPI(const char *name, void *symbol) {
  XFFI_CHECK_ARG_NOT_NULL(name);
  _Atomic(void *) *slot = !strcmp(name, "PyErr_CheckSignals")   ? &host_check_signals
                          : !strcmp(name, "PyGILState_Ensure")  ? &host_gil_ensure
                          : !strcmp(name, "PyGILState_Release") ? &host_gil_release
                                                                : NULL;
  if (!slot)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "%s: Unknown env API %s (known: PyErr_CheckSignals, PyGILState_Ensure, "
                            "PyGILState_Release)",
                            __func__, name);
  atomic_store_explicit(slot, symbol, memory_order_release);
  return XFFI_OK;
}

int TVMFFIEnvCheckSignals(void) {
  void *check = atomic_load_explicit(&host_check_signals, memory_order_acquire);
  if (!check) return XFFI_OK;
  void *ensure = atomic_load_explicit(&host_gil_ensure, memory_order_acquire);
  void *release = atomic_load_explicit(&host_gil_release, memory_order_acquire);
  if (!ensure || !release)
    return xffi_error_raise(XFFI_KIND_RUNTIME,
                            "%s: PyErr_CheckSignals is registered but PyGILState_Ensure/Release are not, so the "
                            "host cannot be entered safely",
                            __func__);
  /* Data pointers back to the functions they were (POSIX and Windows
   * guarantee the round trip). */
  int (*check_signals)(void);
  void *(*gil_ensure)(void);
  void (*gil_release)(void *);
  memcpy(&check_signals, &check, sizeof check_signals);
  memcpy(&gil_ensure, &ensure, sizeof gil_ensure);
  memcpy(&gil_release, &release, sizeof gil_release);
  /* The host's own error stays pending in the host: -1 without one here. */
  void *gil = gil_ensure();
  int failed = check_signals() != 0;
  gil_release(gil);
  return failed ? XFFI_FAIL : XFFI_OK;
}
