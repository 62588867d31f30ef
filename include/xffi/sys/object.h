/* xffi/sys/object.h: the object header's internals (extension tier).
 *
 * The reference-count layout, the inline reference counting that the
 * everyday headers' inline functions use, and what an allocator of objects
 * needs (xffi_object_init, XFFI_OBJECT_CELL). Code that only holds and
 * passes objects needs xffi/object.h alone. */
#ifndef XFFI_SYS_OBJECT_H
#define XFFI_SYS_OBJECT_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/export.h>
#include <xffi/object.h>

XFFI_EXTERN_C_BEGIN

#define XFFI_REF_STRONG_ONE UINT64_C(1)
#define XFFI_REF_WEAK_ONE (UINT64_C(1) << 32)
#define XFFI_REF_INITIAL (XFFI_REF_STRONG_ONE | XFFI_REF_WEAK_ONE)

/* The largest strong (or weak) count an increment may start from. Leaked
 * references (e.g. forgotten Rust handles) could otherwise wrap a 32-bit count
 * to zero while handles remain, so an increment that finds the count at or
 * past this limit aborts the process, as Rust's Arc does. The limit is half
 * the range: threads racing past it still abort long before the wrap. */
#define XFFI_REF_COUNT_LIMIT UINT32_C(0x80000000)

/* Reports a reference count at XFFI_REF_COUNT_LIMIT on stderr and aborts.
 * Never returns. Private to the inline increments below (trailing underscore:
 * never call it). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noreturn, cold))
#endif
XFFI_API void
xffi_object_ref_count_overflow_(void);

/* Fills a freshly allocated header: strong 1, weak 1. The caller owns the one
 * strong reference that results. */
static inline void xffi_object_init(xffi_object *obj, int32_t type_index, xffi_deleter deleter) {
  obj->ref_counts = XFFI_REF_INITIAL;
  obj->type_index = type_index;
  obj->reserved = 0;
  obj->deleter_storage = 0;
  obj->deleter = deleter;
}

/* The cell of an object: the struct that follows the header. */
#define XFFI_OBJECT_CELL(type, obj) ((type *)((char *)(obj) + sizeof(xffi_object)))

#if defined(__GNUC__) || defined(__clang__)

/* The acquire side of a release decrement. ThreadSanitizer does not model
 * standalone fences, so under it an acquire load of the same word (which
 * orders the same way) is used instead. */
#  if defined(__SANITIZE_THREAD__)
#    define XFFI_ACQUIRE_AFTER_RELEASE(word) ((void)__atomic_load_n((word), __ATOMIC_ACQUIRE))
#  elif defined(__has_feature)
#    if __has_feature(thread_sanitizer)
#      define XFFI_ACQUIRE_AFTER_RELEASE(word) ((void)__atomic_load_n((word), __ATOMIC_ACQUIRE))
#    endif
#  endif
#  ifndef XFFI_ACQUIRE_AFTER_RELEASE
#    define XFFI_ACQUIRE_AFTER_RELEASE(word) __atomic_thread_fence(__ATOMIC_ACQUIRE)
#  endif

/* The reference count word as the atomic operations address it: 8-byte
 * aligned, which every object is (see the header above) even where the
 * struct only promises 4 (i386). Without it clang turns each count change
 * into a call to libatomic there. Evaluates to a uint64_t pointer into obj. */
typedef struct xffi_ref_counts_word {
  uint64_t value __attribute__((aligned(8)));
} xffi_ref_counts_word;
#  define XFFI_REF_COUNTS(obj) (&((xffi_ref_counts_word *)(void *)&(obj)->ref_counts)->value)

/* Takes one more strong reference. NULL is allowed and ignored. Aborts if the
 * strong count had reached XFFI_REF_COUNT_LIMIT (see there). */
static inline void xffi_object_inc_ref_inline(xffi_object *obj) {
  if (!obj) return;
  uint64_t old = __atomic_fetch_add(XFFI_REF_COUNTS(obj), XFFI_REF_STRONG_ONE, __ATOMIC_RELAXED);
  if (XFFI_UNLIKELY((uint32_t)old >= XFFI_REF_COUNT_LIMIT)) xffi_object_ref_count_overflow_();
}

/* Drops one strong reference; the last one runs the deleter. NULL is allowed. */
static inline void xffi_object_dec_ref_inline(xffi_object *obj) {
  if (!obj) return;
  uint64_t old = __atomic_fetch_sub(XFFI_REF_COUNTS(obj), XFFI_REF_STRONG_ONE, __ATOMIC_RELEASE);
  if (XFFI_LIKELY(old != XFFI_REF_INITIAL && (uint32_t)old != 1)) return;
  XFFI_ACQUIRE_AFTER_RELEASE(XFFI_REF_COUNTS(obj));
  if (old == XFFI_REF_INITIAL) {
    obj->deleter(obj, XFFI_DELETE_BOTH);
    return;
  }
  /* Last strong reference, but weak references remain. */
  obj->deleter(obj, XFFI_DELETE_CONTENTS);
  if (__atomic_fetch_sub(XFFI_REF_COUNTS(obj), XFFI_REF_WEAK_ONE, __ATOMIC_RELEASE) == XFFI_REF_WEAK_ONE) {
    XFFI_ACQUIRE_AFTER_RELEASE(XFFI_REF_COUNTS(obj));
    obj->deleter(obj, XFFI_DELETE_MEMORY);
  }
}

/* The current strong count (a snapshot: it may change at once in other threads). */
static inline uint32_t xffi_object_strong_count(const xffi_object *obj) {
  return (uint32_t)__atomic_load_n(XFFI_REF_COUNTS(obj), __ATOMIC_RELAXED);
}

/* The current weak count, including the unit held for the strong references. */
static inline uint32_t xffi_object_weak_count(const xffi_object *obj) {
  return (uint32_t)(__atomic_load_n(XFFI_REF_COUNTS(obj), __ATOMIC_RELAXED) >> 32);
}

#else
#  define xffi_object_inc_ref_inline xffi_object_inc_ref
#  define xffi_object_dec_ref_inline xffi_object_dec_ref
#endif

/* ---- Releasing what an object owns with bounded stack ----
 * A deleter that releases objects it owns (fields, elements, a `next`
 * link) would recurse once per level when those die with it: freeing the
 * head of a 10^6-long linked list overflows the stack. Bracketing that work
 * with these two calls makes the release iterative, for any number of
 * distinct deleters and types, interleaved with the library's own
 * containers:
 *
 *   static void node_deleter(void *self, int flags) {
 *     if (flags & XFFI_DELETE_CONTENTS) {
 *       if (xffi_object_release_begin(self, flags, node_deleter)) return;  // parked
 *       xffi_object_dec_ref(((node *)self)->next);  // may park next's deleter
 *       xffi_object_release_end();                  // runs what was parked
 *     }
 *     if (flags & XFFI_DELETE_MEMORY) free(self);
 *   }
 *
 * Protocol. Call xffi_object_release_begin first in the contents branch,
 * with the deleter's own self (borrowed), flags and the deleter itself (so
 * it can be called again). It returns 1 when it parked the call: another
 * release runs on this thread, which calls deleter(self, flags) again once
 * its own contents are released; the deleter must then return at once,
 * touching nothing (self's memory stays valid until that second call, even
 * with weak references, which the library accounts for). It returns 0 when
 * the deleter goes on now; xffi_object_release_end must then follow, once,
 * on the same thread, after the deleter released what it owns. The
 * outermost release_end runs every parked deleter (newest first) before it
 * returns, so when the outermost deleter returns everything it released is
 * gone. The parked calls wait in thread-local heap memory; when that cannot
 * grow (out of memory) release_begin returns 0 and the release recurses as
 * it would without the bracket. Neither raises an error.
 *
 * Bad input. NULL self or deleter: not parked; returns 0 (release_end must
 * still follow) and the release goes on in place. release_end without a
 * release_begin that returned 0 on this thread: does nothing. */
XFFI_API int xffi_object_release_begin(xffi_object *self, int flags, xffi_deleter deleter);
XFFI_API void xffi_object_release_end(void);

XFFI_EXTERN_C_END

#endif /* XFFI_SYS_OBJECT_H */
