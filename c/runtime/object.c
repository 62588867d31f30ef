/* c/runtime/object.c: exported reference counting and weak references. The inline
 * forms in xffi/object.h are the hot path; these serve other languages. */
#include "runtime/check.h"
#include "runtime/internal.h"
#include "runtime/static_object.h"
#include "platform/platform.h"

#include <stdio.h>
#include <stdlib.h>

void xffi_object_inc_ref(xffi_object *obj) { xffi_object_inc_ref_inline(obj); }

void xffi_object_ref_count_overflow_(void) {
  /* Not an error to report and carry on from: the count is about to wrap, so
   * some live handle would soon point at freed memory. */
  fputs("xffi: reference count overflow (2^31 references to one object, most likely leaked); aborting\n", stderr);
  abort();
}

void xffi_object_dec_ref(xffi_object *obj) { xffi_object_dec_ref_inline(obj); }

/* A weak handle is the object pointer itself, holding one weak unit. */
static xffi_object *weak_target(xffi_weak *weak) { return (xffi_object *)weak; }

int xffi_weak_new(xffi_weak **out, xffi_object *obj) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(obj);
  uint64_t old = __atomic_fetch_add(XFFI_REF_COUNTS(obj), XFFI_REF_WEAK_ONE, __ATOMIC_RELAXED);
  if ((uint32_t)(old >> 32) >= XFFI_REF_COUNT_LIMIT) xffi_object_ref_count_overflow_();
  *out = (xffi_weak *)obj;
  return XFFI_OK;
}

int xffi_weak_lock(xffi_object **out, xffi_weak *weak) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(weak);
  xffi_object *obj = weak_target(weak);
  uint64_t counts = __atomic_load_n(XFFI_REF_COUNTS(obj), __ATOMIC_RELAXED);
  /* Take a strong reference only while the strong count is non-zero: once it
   * reached zero the contents are gone and must never come back. */
  while ((uint32_t)counts != 0) {
    if ((uint32_t)counts >= XFFI_REF_COUNT_LIMIT) xffi_object_ref_count_overflow_();
    if (__atomic_compare_exchange_n(XFFI_REF_COUNTS(obj), &counts, counts + XFFI_REF_STRONG_ONE, 1, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED)) {
      *out = obj;
      return XFFI_OK;
    }
  }
  *out = NULL;
  return XFFI_OK;
}

void xffi_weak_release(xffi_weak *weak) {
  if (!weak) return;
  xffi_object *obj = weak_target(weak);
  if (__atomic_fetch_sub(XFFI_REF_COUNTS(obj), XFFI_REF_WEAK_ONE, __ATOMIC_RELEASE) == XFFI_REF_WEAK_ONE) {
    /* Weak 1 and strong 0: the contents were destroyed, only memory is left. */
    XFFI_ACQUIRE_AFTER_RELEASE(XFFI_REF_COUNTS(obj));
    obj->deleter(obj, XFFI_DELETE_MEMORY);
  }
}

/* ---- Releasing nested objects with bounded stack (see internal.h) ----
 * A parked object's strong count is zero, so nothing else reads its header
 * but the weak count; its header is left as it is. Its deleter and flags
 * wait in the thread's parked stack, which keeps up to PARKED_KEPT entries
 * of room between releases (so a release that parks does not allocate) and
 * is freed when the thread exits. */

/* initial-exec and hidden, from its declaration in internal.h. */
_Thread_local xffi_release_state xffi_releasing;

enum { PARKED_FIRST = 32, PARKED_KEPT = 256 };

static xffi_once parked_key_once = XFFI_ONCE_INITIALIZER;
static xffi_thread_key parked_key;
static int parked_key_ok;

/* At thread exit: frees the thread's parked stack (a release during a later
 * exit handler grows a new one and sets the key again). */
static void parked_release(void *storage) {
  xffi_release_state *state = &xffi_releasing;
  if (state->parked == storage) {
    state->parked = NULL;
    state->parked_capacity = 0;
  }
  xffi_free(storage);
}

static void parked_key_create(void) { parked_key_ok = xffi_thread_key_create(&parked_key, parked_release) == 0; }

static void parked_set_storage(xffi_release_state *state, xffi_parked_release *storage, size_t capacity) {
  if (storage != state->parked) {
    xffi_call_once(&parked_key_once, parked_key_create);
    /* Without a key the storage stays until process exit: one per thread. */
    if (parked_key_ok) xffi_thread_key_set(parked_key, storage);
  }
  state->parked = storage;
  state->parked_capacity = capacity;
}

/* Room for one more parked entry; 0 when out of memory. */
static int parked_reserve(xffi_release_state *state) {
  if (state->parked_count < state->parked_capacity) return 1;
  size_t capacity = state->parked_capacity ? state->parked_capacity * 2 : PARKED_FIRST;
  if (capacity > SIZE_MAX / sizeof(xffi_parked_release)) return 0;
  xffi_parked_release *grown = xffi_realloc(state->parked, capacity * sizeof(xffi_parked_release));
  if (!grown) return 0;
  parked_set_storage(state, grown, capacity);
  return 1;
}

/* xffi_release_begin when a release already runs on this thread (or the
 * drain resumes obj). */
int xffi_release_begin_nested(void *self, int flags, xffi_deleter deleter) {
  xffi_release_state *state = &xffi_releasing;
  xffi_object *obj = self;
  if (state->resuming == obj || state->running == 0 || !parked_reserve(state)) {
    /* Resumed, outermost, or no memory to park (recursing is still correct). */
    state->resuming = NULL;
    state->running++;
    return 0;
  }
  /* Contents only: weak references remain, and the caller drops its weak
   * unit when this returns. Hold one more until the contents are gone, so the
   * memory stays. */
  if (!(flags & XFFI_DELETE_MEMORY)) __atomic_fetch_add(XFFI_REF_COUNTS(obj), XFFI_REF_WEAK_ONE, __ATOMIC_RELAXED);
  state->parked[state->parked_count++] = (xffi_parked_release){obj, deleter, flags};
  return 1;
}

/* xffi_release_end when it is not the outermost one with nothing parked. */
void xffi_release_end_outer(void) {
  xffi_release_state *state = &xffi_releasing;
  if (state->running > 1) {
    state->running--;
    return;
  }
  /* The outermost: run what was parked, newest first (a depth-first order,
   * so a chain keeps only one parked object at a time). */
  while (state->parked_count) {
    xffi_parked_release next = state->parked[--state->parked_count];
    state->resuming = next.obj;
    next.deleter(next.obj, next.flags);
    state->resuming = NULL;
    if (!(next.flags & XFFI_DELETE_MEMORY) &&
        __atomic_fetch_sub(XFFI_REF_COUNTS(next.obj), XFFI_REF_WEAK_ONE, __ATOMIC_RELEASE) == XFFI_REF_WEAK_ONE) {
      XFFI_ACQUIRE_AFTER_RELEASE(XFFI_REF_COUNTS(next.obj));
      next.deleter(next.obj, XFFI_DELETE_MEMORY);
    }
  }
  state->running = 0;
  if (state->parked_capacity > PARKED_KEPT) { /* a wide release: give the room back */
    xffi_free(state->parked);
    parked_set_storage(state, NULL, 0);
  }
}

int xffi_object_release_begin(xffi_object *self, int flags, xffi_deleter deleter) {
  if (!self || !deleter) { /* documented: an unparked bracket, the release goes on in place */
    xffi_releasing.running++;
    return 0;
  }
  return xffi_release_begin(self, flags, deleter);
}

void xffi_object_release_end(void) {
  if (xffi_releasing.running > 0) xffi_release_end();
}

void xffi_builtin_object_deleter(void *self, int flags) {
  (void)self;
  (void)flags;
}

/* The sentinels: static, immortal objects of type ffi.Object (no body). */
xffi_object xffi_missing_object = {.ref_counts = XFFI_BUILTIN_REF_COUNTS,
                                   .type_index = XFFI_TYPE_OBJECT,
                                   .reserved = 0,
                                   .deleter = xffi_builtin_object_deleter};
xffi_object xffi_kwargs_object = {.ref_counts = XFFI_BUILTIN_REF_COUNTS,
                                  .type_index = XFFI_TYPE_OBJECT,
                                  .reserved = 0,
                                  .deleter = xffi_builtin_object_deleter};
