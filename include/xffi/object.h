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
 * - ref_counts: strong count in the low 32 bits, weak count in the high 32
 *   (xffi/sys/object.h). A new object has strong 1 and weak 1: the weak count
 *   holds one unit on behalf of all strong references. Accessed only
 *   atomically.
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

/* Takes one more strong reference to obj (borrowed). NULL is allowed and
 * ignored. Aborts if the strong count had reached XFFI_REF_COUNT_LIMIT
 * (xffi/sys/object.h): only leaked references get there. */
XFFI_API void xffi_object_inc_ref(xffi_object *obj);

/* Drops one strong reference to obj (stolen); the last one runs the
 * deleter. NULL is allowed and ignored. The inline forms of both
 * (xffi_object_inc_ref_inline, xffi_object_dec_ref_inline) are in
 * xffi/sys/object.h. */
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
