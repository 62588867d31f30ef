/* c/object.c: exported reference counting and weak references. The inline
 * forms in xffi/object.h are the hot path; these serve other languages. */
#include "check.h"
#include "internal.h"

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
 * but the weak count: the deleter slot holds the link to the next parked
 * object and `reserved` holds the flags and the deleter's number in
 * parking_deleters, both put back before the deleter runs. */

/* initial-exec and hidden, from its declaration in internal.h. */
_Thread_local xffi_release_state xffi_releasing;

/* The deleters that have parked an object, numbered by their slot (filled
 * once each, by whichever thread comes first). The library has four. */
#define PARKING_DELETERS_MAX 16
static xffi_deleter parking_deleters[PARKING_DELETERS_MAX];
#define PARKED_FLAG_BITS 2

/* The slot of deleter in parking_deleters, taking a free one if it is new;
 * -1 if the table is full. */
static int parking_deleter_number(xffi_deleter deleter) {
  for (int i = 0; i < PARKING_DELETERS_MAX; ++i) {
    xffi_deleter seen = __atomic_load_n(&parking_deleters[i], __ATOMIC_ACQUIRE);
    if (!seen &&
        __atomic_compare_exchange_n(&parking_deleters[i], &seen, deleter, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return i;
    if (seen == deleter) return i;
  }
  return -1;
}

/* xffi_release_begin when a release already runs on this thread (or the
 * drain resumes obj). */
int xffi_release_begin_nested(void *self, int flags, xffi_deleter deleter) {
  xffi_release_state *state = &xffi_releasing;
  xffi_object *obj = self;
  if (state->resuming == obj || state->running == 0) {
    state->resuming = NULL;
    state->running++;
    return 0;
  }
  int number = parking_deleter_number(deleter);
  if (number < 0) { /* cannot happen with the library's deleters; recursing is still correct */
    state->running++;
    return 0;
  }
  /* Contents only: weak references remain, and the caller drops its weak
   * unit when this returns. Hold one more until the contents are gone, so the
   * memory (and the link in it) stays. */
  if (!(flags & XFFI_DELETE_MEMORY)) __atomic_fetch_add(XFFI_REF_COUNTS(obj), XFFI_REF_WEAK_ONE, __ATOMIC_RELAXED);
  obj->reserved = (uint32_t)number << PARKED_FLAG_BITS | (uint32_t)flags;
  obj->deleter_storage = (uint64_t)(uintptr_t)state->parked;
  state->parked = obj;
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
  xffi_object *obj;
  while ((obj = state->parked) != NULL) {
    state->parked = (xffi_object *)(uintptr_t)obj->deleter_storage;
    int flags = (int)(obj->reserved & ((1u << PARKED_FLAG_BITS) - 1));
    xffi_deleter deleter = __atomic_load_n(&parking_deleters[obj->reserved >> PARKED_FLAG_BITS], __ATOMIC_RELAXED);
    obj->reserved = 0;
    obj->deleter_storage = 0;
    obj->deleter = deleter;
    state->resuming = obj;
    deleter(obj, flags);
    state->resuming = NULL;
    if (!(flags & XFFI_DELETE_MEMORY) &&
        __atomic_fetch_sub(XFFI_REF_COUNTS(obj), XFFI_REF_WEAK_ONE, __ATOMIC_RELEASE) == XFFI_REF_WEAK_ONE) {
      XFFI_ACQUIRE_AFTER_RELEASE(XFFI_REF_COUNTS(obj));
      deleter(obj, XFFI_DELETE_MEMORY);
    }
  }
  state->running = 0;
}
