/* xffi/object.h: the reference-counted object header, strong and weak references.
 *
 * Every xffi object starts with this 24-byte header. Whoever allocates an
 * object sets its deleter, so the object is always freed by the code that
 * allocated it, whatever library or language drops the last reference. */
#ifndef XFFI_OBJECT_H
#define XFFI_OBJECT_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/export.h>

XFFI_EXTERN_C_BEGIN

/* Deleter flags. */
#define XFFI_DELETE_CONTENTS 1 /* the strong count reached zero: destroy the contents, keep the memory */
#define XFFI_DELETE_MEMORY 2   /* the weak count reached zero: free the memory */
#define XFFI_DELETE_BOTH 3     /* both at once (the common case: no weak references were taken) */

typedef void (*xffi_deleter)(void *self, int flags);

/* The object header (24 bytes, aligned like int64_t: 8 bytes, 4 on i386 as
 * in tvm-ffi's header there). Objects are allocated at least 8-byte aligned
 * (malloc's guarantee), which the atomic operations on ref_counts rely on.
 * - ref_counts: strong count in the low 32 bits, weak count in the high 32.
 *   A new object has strong 1 and weak 1: the weak count holds one unit on
 *   behalf of all strong references. Accessed only atomically.
 * - type_index: the object's type (xffi/type.h).
 * - deleter: see XFFI_DELETE_*; kept 8 bytes wide on every platform. */
typedef struct xffi_object {
  uint64_t ref_counts;
  int32_t type_index;
  uint32_t reserved;
  union {
    xffi_deleter deleter;
    uint64_t deleter_storage;
  };
} xffi_object;

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
 * Never returns. Called only by the increments. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noreturn, cold))
#endif
XFFI_API void xffi_object_ref_count_overflow_(void);

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
#if defined(__SANITIZE_THREAD__)
#  define XFFI_ACQUIRE_AFTER_RELEASE(word) ((void)__atomic_load_n((word), __ATOMIC_ACQUIRE))
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define XFFI_ACQUIRE_AFTER_RELEASE(word) ((void)__atomic_load_n((word), __ATOMIC_ACQUIRE))
#  endif
#endif
#ifndef XFFI_ACQUIRE_AFTER_RELEASE
#  define XFFI_ACQUIRE_AFTER_RELEASE(word) __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

/* The reference count word as the atomic operations address it: 8-byte
 * aligned, which every object is (see the header above) even where the
 * struct only promises 4 (i386). Without it clang turns each count change
 * into a call to libatomic there. Evaluates to a uint64_t pointer into obj. */
typedef struct xffi_ref_counts_word {
  uint64_t value __attribute__((aligned(8)));
} xffi_ref_counts_word;
#define XFFI_REF_COUNTS(obj) (&((xffi_ref_counts_word *)(void *)&(obj)->ref_counts)->value)

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

/* Exported forms of the inline functions above, for callers that cannot use
 * static inline functions (other languages' FFIs). Same semantics. */
XFFI_API void xffi_object_inc_ref(xffi_object *obj);
XFFI_API void xffi_object_dec_ref(xffi_object *obj);

/* A weak reference. It does not keep the object's contents alive, only its
 * memory, so it can tell whether the object is still there. The handle is
 * distinct from xffi_object so the two cannot be confused. */
typedef struct xffi_weak xffi_weak;

/* Makes a weak reference to obj (borrowed; obj must be alive). *out receives a
 * new weak reference, released with xffi_weak_release.
 * Errors: ValueError if out or obj is NULL. */
XFFI_API int xffi_weak_new(xffi_weak **out, xffi_object *obj);

/* Locks a weak reference: *out receives a new strong reference to the object,
 * or NULL if the object is already destroyed (this is not an error).
 * The weak reference stays valid (borrowed).
 * Errors: ValueError if out or weak is NULL. */
XFFI_API int xffi_weak_lock(xffi_object **out, xffi_weak *weak);

/* Releases a weak reference (stolen). NULL is allowed and ignored. */
XFFI_API void xffi_weak_release(xffi_weak *weak);

XFFI_EXTERN_C_END

#endif /* XFFI_OBJECT_H */
