/* c/compat/abi/init_once.c: tvm-ffi's init-once handles (TVMFFIHandleInitOnce and
 * TVMFFIHandleDeinitOnce, xffi/tvm_ffi.h).
 *
 * A handle is a void* owned by the caller: NULL until initialised. Reading
 * an initialised handle is one acquire load. The slow path keeps a list of
 * the handles being initialised (a record on each initialising thread's
 * stack), under a mutex held only to look at the list, never while init
 * runs. So unlike tvm-ffi, which holds one global mutex across every init,
 * an init may itself initialise another handle, and threads initialising
 * different handles do not wait for each other. Threads that want a handle
 * being initialised wait (yielding) until its init ends; if it failed, one
 * of them tries in turn. A thread whose init asks for the very handle it is
 * initialising gets an error instead of a deadlock.
 *
 * The handle is the caller's plain void*: it is accessed as an atomic
 * pointer, which has its representation on every platform xffi supports
 * (checked below). */
#include <xffi/tvm_ffi.h>

#include "runtime/check.h"
#include "runtime/internal.h"
#include "platform/platform.h"

_Static_assert(sizeof(_Atomic(void *)) == sizeof(void *), "an atomic pointer is laid out as a pointer");

static inline _Atomic(void *) *as_atomic(void **handle_addr) { return (_Atomic(void *) *)handle_addr; }

typedef struct pending_init {
  void **handle_addr;
  const void *thread; /* the initialising thread (see my_thread_tag) */
  struct pending_init *next;
} pending_init;

static xffi_mutex pending_lock = XFFI_MUTEX_INITIALIZER;
static pending_init *pending; /* guarded by pending_lock */

/* An address unique to the calling thread while it lives. */
static _Thread_local char thread_tag;

/* The record of handle_addr's init in progress, or NULL. Under pending_lock. */
static pending_init *pending_find(void **handle_addr) {
  for (pending_init *p = pending; p; p = p->next)
    if (p->handle_addr == handle_addr) return p;
  return NULL;
}

static void pending_unlink(pending_init *record) {
  xffi_mutex_lock(&pending_lock);
  pending_init **link = &pending;
  while (*link != record) link = &(*link)->next;
  *link = record->next;
  xffi_mutex_unlock(&pending_lock);
}

int TVMFFIHandleInitOnce(void **handle_addr, int (*init_func)(void **result)) {
  XFFI_CHECK_ARG_NOT_NULL(handle_addr);
  if (XFFI_LIKELY(atomic_load_explicit(as_atomic(handle_addr), memory_order_acquire) != NULL)) return XFFI_OK;
  XFFI_CHECK_ARG_NOT_NULL(init_func);
  pending_init mine = {handle_addr, &thread_tag, NULL};
  for (;;) {
    xffi_mutex_lock(&pending_lock);
    if (atomic_load_explicit(as_atomic(handle_addr), memory_order_acquire) != NULL) {
      xffi_mutex_unlock(&pending_lock);
      return XFFI_OK;
    }
    pending_init *other = pending_find(handle_addr);
    if (!other) {
      mine.next = pending;
      pending = &mine;
      xffi_mutex_unlock(&pending_lock);
      break;
    }
    int recursive = other->thread == &thread_tag;
    xffi_mutex_unlock(&pending_lock);
    if (recursive)
      return xffi_error_raise(XFFI_KIND_RUNTIME,
                              "%s: the init function of handle %p asked for that same handle (recursive init)",
                              __func__, (void *)handle_addr);
    xffi_thread_yield();
  }
  void *result = NULL;
  int status = init_func(&result);
  if (status == 0 && result == NULL)
    status = xffi_error_raise(XFFI_KIND_RUNTIME, "%s: init_func returned 0 but no handle (NULL)", __func__);
  /* Published before the record goes, so a waiter that finds no record
   * finds the handle. */
  if (status == 0) atomic_store_explicit(as_atomic(handle_addr), result, memory_order_release);
  pending_unlink(&mine);
  return status;
}

int TVMFFIHandleDeinitOnce(void **handle_addr, int (*deinit_func)(void *handle)) {
  XFFI_CHECK_ARG_NOT_NULL(handle_addr);
  XFFI_CHECK_ARG_NOT_NULL(deinit_func);
  void *old = atomic_exchange_explicit(as_atomic(handle_addr), NULL, memory_order_acq_rel);
  return old ? deinit_func(old) : XFFI_OK;
}
