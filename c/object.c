/* c/object.c: exported reference counting and weak references. The inline
 * forms in xffi/object.h are the hot path; these serve other languages. */
#include "internal.h"

void xffi_object_inc_ref(xffi_object *obj) { xffi_object_inc_ref_inline(obj); }

void xffi_object_dec_ref(xffi_object *obj) { xffi_object_dec_ref_inline(obj); }

/* A weak handle is the object pointer itself, holding one weak unit. */
static xffi_object *weak_target(xffi_weak *weak) { return (xffi_object *)weak; }

int xffi_weak_new(xffi_weak **out, xffi_object *obj) {
  if (!out) return xffi_raise_null_arg("xffi_weak_new", "out");
  if (!obj) return xffi_raise_null_arg("xffi_weak_new", "obj");
  __atomic_fetch_add(XFFI_REF_COUNTS(obj), XFFI_REF_WEAK_ONE, __ATOMIC_RELAXED);
  *out = (xffi_weak *)obj;
  return XFFI_OK;
}

int xffi_weak_lock(xffi_object **out, xffi_weak *weak) {
  if (!out) return xffi_raise_null_arg("xffi_weak_lock", "out");
  if (!weak) return xffi_raise_null_arg("xffi_weak_lock", "weak");
  xffi_object *obj = weak_target(weak);
  uint64_t counts = __atomic_load_n(XFFI_REF_COUNTS(obj), __ATOMIC_RELAXED);
  /* Take a strong reference only while the strong count is non-zero: once it
   * reached zero the contents are gone and must never come back. */
  while ((uint32_t)counts != 0) {
    if (__atomic_compare_exchange_n(XFFI_REF_COUNTS(obj), &counts, counts + XFFI_REF_STRONG_ONE, 1,
                                    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
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
