/* c/runtime/internal.h: what the library's own sources share and users never see.
 * Nothing here is exported (the build uses hidden visibility). */
#ifndef XFFI_INTERNAL_H
#define XFFI_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <xffi/xffi.h>
#include <xffi/sys/array.h>
#include <xffi/sys/error.h>
#include <xffi/sys/function.h>
#include <xffi/sys/object.h>
#include <xffi/sys/shape.h>
#include <xffi/sys/string.h>
#include <xffi/sys/tensor.h>
#include <xffi/sys/type.h>

/* ---- Allocation ----
 * Every heap allocation of the library goes through these, and they through
 * the allocator of include/xffi/sys/allocator.h (c/runtime/alloc.c). A size of 0 is
 * asked as 1. Memory from xffi_alloc, xffi_alloc_zeroed and xffi_realloc is
 * released with xffi_free; xffi_alloc_aligned's (alignment: a power of two)
 * with xffi_free_aligned. Both frees ignore NULL. The inline functions are
 * defined below. */
void *xffi_alloc_zeroed(size_t count, size_t size);

/* Thread-local storage: every thread-local variable of the library uses
 * the compiler's default model (general- or local-dynamic in the shared
 * library, relaxed to local-exec when the static library is linked into a
 * program). Never initial-exec: that makes the shared library need room in
 * the static TLS block, and dlopen of it fails ("cannot allocate memory in
 * static TLS block") once plugins or Python extensions loaded before it
 * have used up glibc's small surplus (tests/c/platform/tls/test_tls_dlopen.c).
 * Hidden on the declaration too, so that the shared library reaches its
 * own thread-locals through its own TLS module with no GOT entry. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#  define XFFI_INTERNAL __attribute__((visibility("hidden")))
#  define XFFI_INTERNAL_TLS __attribute__((visibility("hidden")))
#else
/* PE/COFF: nothing is exported without XFFI_API's dllexport anyway. */
#  define XFFI_INTERNAL
#  define XFFI_INTERNAL_TLS
#endif
/* The calling thread's raised error (one reference) or NULL: c/runtime/error.c owns
 * it; the call path (c/runtime/function.c) reads it on failure. */
extern _Thread_local xffi_object *xffi_raised_slot XFFI_INTERNAL_TLS;
/* The raise clock (xffi_raise_clock, declared in xffi/sys/function.h, where
 * the inline call reads it): advanced (by any thread) each time an error is
 * put in a raised slot, which remembers the tick. A call reads it as it
 * begins; if the call fails, an error raised at or before that tick is older
 * than the call and is released (xffi_error_release_raised_before), so the
 * call reports its callee's error only. One shared word: the success path of
 * a call reads it and touches no thread-local storage. */
static inline uint64_t xffi_raise_clock_now(void) {
  return atomic_load_explicit(&xffi_raise_clock, memory_order_relaxed);
}
/* Releases the raised error if it was raised at or before tick begun. */
void xffi_error_release_raised_before(uint64_t begun);
/* Which allocator is in use (c/runtime/alloc.c): UNFIXED until the first
 * allocation or install, then DEFAULT (the C library's) or INSTALLED, for
 * good. While the default allocator is in use, each function below calls
 * the C library after one relaxed load and compare (no thread-local access,
 * which costs a call in the shared library); the rest (fixing the
 * allocator, an installed one) is in the _slow functions, which take the
 * same arguments. xffi_alloc, on every object's creation path, is inline;
 * the others are out of line, which keeps the library small (they are
 * called from many places). */
enum { XFFI_ALLOCATOR_UNFIXED, XFFI_ALLOCATOR_DEFAULT, XFFI_ALLOCATOR_INSTALLED };
extern atomic_int xffi_allocator_state XFFI_INTERNAL;
void *xffi_alloc_slow(size_t size);
void *xffi_realloc_slow(void *ptr, size_t size);
void xffi_free_slow(void *ptr);
void *xffi_alloc_aligned_slow(size_t alignment, size_t size);
void xffi_free_aligned_slow(void *ptr);

static inline int xffi_allocator_is_default(void) {
  return atomic_load_explicit(&xffi_allocator_state, memory_order_relaxed) == XFFI_ALLOCATOR_DEFAULT;
}

static inline void *xffi_alloc(size_t size) {
  if (XFFI_LIKELY(xffi_allocator_is_default())) return malloc(size ? size : 1);
  return xffi_alloc_slow(size);
}

/* ptr NULL: the same as xffi_alloc(size). */
void *xffi_realloc(void *ptr, size_t size);
void xffi_free(void *ptr);
void *xffi_alloc_aligned(size_t alignment, size_t size);
void xffi_free_aligned(void *ptr);

/* ---- The object allocator protocol (c/runtime/object_alloc.c) ----
 * Every object the runtime allocates has an xffi_object_alloc_header (its
 * delete_space) in the 8 bytes immediately before its body, and its deleter
 * gives the memory back through it on the last weak release, so each object
 * returns to the allocator that made it. The body comes from the allocator
 * set by TVMFFISetCustomAllocator, or from the built-in one, which takes its
 * blocks from xffi's allocator (xffi_alloc: the default or the one
 * installed with xffi_allocator_install) with a 16-byte prefix:
 *   [8 bytes private][delete_space][body...]
 * xffi_runtime_object_alloc returns a body of size bytes aligned to
 * alignment (a power of two), or NULL with an error raised (MemoryError, or
 * the custom allocator's). xffi_runtime_object_free (NULL ignored) calls the
 * body's delete_space. Never call it on an object another runtime or C++
 * inline code allocated: those have no header. */
#define XFFI_OBJECT_SPACE_PREFIX 16
/* The allocator set by TVMFFISetCustomAllocator, or NULL for the built-in one. */
extern _Atomic(struct xffi_custom_allocator *) xffi_custom_allocator_set XFFI_INTERNAL;
/* delete_space of the built-in allocator's plain blocks (body - 16 is the block). */
void xffi_object_space_free_prefixed(void *body);
void *xffi_runtime_object_alloc_slow(size_t size, size_t alignment, int32_t type_index);
void xffi_runtime_object_free(void *body);
/* The allocator objects come from now: the one set, or the built-in one
 * (borrowed; static or the setter's). */
struct xffi_custom_allocator *xffi_object_allocator_in_use(void);
/* Sets the allocator of objects made from now on (NULL: the built-in one);
 * the caller has checked it. Objects made before keep theirs. */
void xffi_object_allocator_set(struct xffi_custom_allocator *allocator);

/* Whether objects come from the built-in allocator (one acquire load: the
 * custom allocator's struct is read after it). */
static inline int xffi_runtime_allocator_is_builtin(void) {
  return atomic_load_explicit(&xffi_custom_allocator_set, memory_order_acquire) == NULL;
}

/* The block behind a built-in body of size bytes: prefix, then the body;
 * NULL when out of memory (nothing raised). For callers that fill the
 * prefix's private word themselves (c/runtime/string.c keeps its hash there). */
static inline char *xffi_object_space_block(size_t size) {
  if (XFFI_UNLIKELY(size > SIZE_MAX - XFFI_OBJECT_SPACE_PREFIX)) return NULL;
  char *block = (char *)xffi_alloc(XFFI_OBJECT_SPACE_PREFIX + size);
  if (XFFI_UNLIKELY(!block)) return NULL;
  void (**delete_space)(void *) = (void (**)(void *))(void *)(block + XFFI_OBJECT_SPACE_PREFIX - sizeof(void *));
  *delete_space = xffi_object_space_free_prefixed;
  return block;
}

static inline void *xffi_runtime_object_alloc(size_t size, size_t alignment, int32_t type_index) {
  if (XFFI_LIKELY(alignment <= _Alignof(max_align_t) && xffi_runtime_allocator_is_builtin())) {
    char *block = xffi_object_space_block(size);
    if (XFFI_LIKELY(block != NULL)) return block + XFFI_OBJECT_SPACE_PREFIX;
    xffi_error_raise_out_of_memory();
    return NULL;
  }
  return xffi_runtime_object_alloc_slow(size, alignment, type_index);
}

/* ---- Releasing nested objects with bounded stack ----
 * A deleter that releases other objects (elements, causes, owners) brackets
 * that work with these, so that releasing a deep nesting does not recurse
 * once per level. Only the outermost such deleter on a thread runs its
 * contents at once; one that starts while another is running (a child that
 * reached zero) is parked, with its deleter and flags, on a thread-local
 * stack in heap memory, and the outermost runs the parked ones, newest
 * first, before it returns. If that stack cannot grow (out of memory) the
 * deleter runs at once instead (recursion: correct, only deeper). The
 * exported form for users' deleters is xffi_object_release_begin/_end
 * (xffi/sys/object.h, which documents the protocol).
 *
 *   static void my_deleter(void *self, int flags) {
 *     if (flags & XFFI_DELETE_CONTENTS) {
 *       if (xffi_release_begin(self, flags, my_deleter)) return;  // parked
 *       ...release what the object owns...
 *       xffi_release_end();
 *     }
 *     if (flags & XFFI_DELETE_MEMORY) free self;
 *   }
 *
 * xffi_release_begin: obj (borrowed) is the object being deleted, flags and
 * deleter the deleter's own arguments and itself. Returns 1 if the call was
 * parked (the deleter must return at once: it will be called again with the
 * same flags), 0 to go on, in which case xffi_release_end must follow. */
typedef struct xffi_parked_release {
  xffi_object *obj; /* strong count zero; an extra weak unit keeps its memory */
  xffi_deleter deleter;
  int32_t flags;
} xffi_parked_release;

typedef struct xffi_release_state {
  int32_t running;             /* deleters between xffi_release_begin and _end on this thread */
  size_t parked_count;         /* entries of parked in use */
  size_t parked_capacity;      /* entries parked has room for */
  xffi_parked_release *parked; /* the parked deleters, oldest first (heap, owned by the thread) */
  xffi_object *resuming;       /* the parked object whose deleter runs again, or NULL */
} xffi_release_state;
extern _Thread_local xffi_release_state xffi_releasing XFFI_INTERNAL_TLS;
int xffi_release_begin_nested(void *obj, int flags, xffi_deleter deleter);
void xffi_release_end_outer(void);

/* Inline for the common case, a release with nothing nested: two loads and
 * two stores of the thread's state in all. */
static inline int xffi_release_begin(void *obj, int flags, xffi_deleter deleter) {
  if (XFFI_LIKELY(xffi_releasing.running == 0)) {
    xffi_releasing.running = 1;
    return 0;
  }
  return xffi_release_begin_nested(obj, flags, deleter);
}

static inline void xffi_release_end(void) {
  if (XFFI_LIKELY(xffi_releasing.running == 1 && !xffi_releasing.parked_count)) {
    xffi_releasing.running = 0;
    return;
  }
  xffi_release_end_outer();
}

/* ---- Errors ----
 * Argument checks and their messages ("<function>: <argument> <detail>")
 * are in c/runtime/check.h. */

/* A callee that failed with xffi's slot empty may be another tvm-ffi
 * runtime's Function (the wheel's libtvm_ffi.so loaded beside xffi): when
 * such a distinct runtime is loaded and its slot holds an error, moves it
 * into xffi's slot and returns 1; otherwise returns 0 and changes nothing
 * (c/compat/abi/tvm_error.c). With one runtime in the process it finds nothing. */
int xffi_error_adopt_tvm_raised(void);

/* After a direct Function's code failed (status non-zero) in a process with
 * another tvm-ffi runtime: moves the error raised here to that runtime,
 * unless that runtime's slot already holds one (the code moved its own
 * error there; the one here is older and is released). Returns status, or
 * XFFI_FAIL (c/runtime/error_foreign.c). */
int xffi_error_forward_after_direct(int status);

/* ---- The process's other tvm-ffi runtime (c/runtime/foreign.c) ----
 * Another runtime in the process (the wheel's libtvm_ffi.so, or xffi's
 * drop-in when this is a plugin's own copy of xffi) serves the callers that
 * read its error slot and registry; this one hands them what they read. */

/* name in another tvm-ffi runtime loaded in the process, or NULL when there
 * is none or the one found is this library. Never loads anything. */
void *xffi_foreign_symbol(const char *name);

/* Whether there is such a runtime: 0 none, 1 one this xffi binds to, 2 one
 * it cannot bind to (an ABI other than tvm-ffi's 0.1, or an entry point the
 * binding needs is missing). Probed once and remembered;
 * xffi_foreign_runtime_forget makes the next call probe again (a library
 * just loaded may have brought one). */
int xffi_foreign_runtime_present(void);
void xffi_foreign_runtime_forget(void);

/* The other runtime's error entry points, found once by the probe: the
 * ones a runtime this xffi binds to has (set_raised, move_from_raised), and
 * the text one a runtime it cannot bind to may have (set_raised_from_text);
 * NULL where absent. NULL altogether when there is no other runtime. Kept
 * for the process's life: failures pay a load, not a symbol lookup. */
typedef struct {
  void (*set_raised)(void *error);
  void (*move_from_raised)(void **result);
  void (*set_raised_from_text)(const char *kind, const char *message);
} xffi_foreign_error_entries;
const xffi_foreign_error_entries *xffi_foreign_errors(void);
/* The probe's remembered answer: 0 not probed yet, 1 no other runtime, 2 one
 * this xffi binds to, 3 one it cannot bind to. For hot paths that only need
 * "certainly none" (1) in one load; anything else goes to the functions here. */
extern atomic_int xffi_foreign_state_ XFFI_INTERNAL;
static inline int xffi_foreign_runtime_known_absent(void) {
  return atomic_load_explicit(&xffi_foreign_state_, memory_order_relaxed) == 1;
}

/* XFFI_OK unless there is a runtime this xffi cannot bind to; then a
 * RuntimeError "WHAT 'KEY': xffi cannot bind to the process's tvm-ffi
 * runtime (ITS LIBRARY...): WHAT IT LACKS" (what and key borrowed). Called
 * where going on would make a second, private runtime: a type index, a
 * global function. */
int xffi_foreign_runtime_check(const char *what, const char *key, size_t key_size);

/* The other runtime's global function registry, which a bound runtime's
 * globals go to and come from (c/runtime/func_registry.c): set registers
 * func (borrowed) there, with its doc and metadata (borrowed; empty when
 * size 0) when it has any (TVMFFIFunctionSetGlobalFromMethodInfo, else
 * TVMFFIFunctionSetGlobal); get gives its function
 * of that name (*out a new reference, NULL when it has none or there is no
 * runtime this one binds to); remove takes name off there
 * (ffi.FunctionRemoveGlobal). Each XFFI_OK when there is no other runtime;
 * a runtime this xffi cannot bind to makes set a RuntimeError
 * (xffi_foreign_runtime_check); the other runtime's errors arrive as its own. */
int xffi_foreign_global_set(xffi_byte_array name, xffi_object *func, xffi_byte_array doc, xffi_byte_array metadata,
                            int allow_override);
int xffi_foreign_global_get(xffi_object **out, xffi_byte_array name);
int xffi_foreign_global_remove(xffi_byte_array name);

/* With another runtime, the index it has for a new dynamic type key (size
 * bytes, borrowed: *created 2), allocated there (*created 1) when it has
 * none; *out -1
 * when there is no other runtime or the arguments are not ones this
 * registry accepts (it says why). An error raised here (its own, or the
 * other runtime's, moved) on failure. */
int xffi_foreign_type_index(int32_t *out, int *created, const char *key, size_t size, int32_t static_index,
                            int32_t depth, int32_t num_child_slots, int32_t can_overflow, int32_t parent_index);

/* Tells the other runtime count new records of a type this runtime created
 * there: xffi_field_info, xffi_method_info or one xffi_type_metadata,
 * immortal records (it copies what it keeps). For a type it had already, the
 * fields' offsets and sizes and the total size are compared with its: a
 * RuntimeError when they differ. Nothing for any other type. */
typedef enum xffi_foreign_record { XFFI_FOREIGN_FIELD, XFFI_FOREIGN_METHOD, XFFI_FOREIGN_METADATA } xffi_foreign_record;
int xffi_foreign_tell(xffi_foreign_record what, int32_t type_index, const void *records, int32_t count);
/* The same for a type attribute (name: name_size bytes; value borrowed). */
int xffi_foreign_tell_attr(int32_t type_index, const char *name, size_t name_size, const xffi_any *value);

/* A new Error (a new reference) with copies of kind, message and
 * backtrace (each a view whose data may be NULL only when its size is 0),
 * taking its own references to cause (an Error, or NULL) and extra_context
 * (any object, or NULL), both borrowed. NULL when out of memory, with
 * nothing raised: TVMFFIErrorCreate must not touch the raised slot. */
xffi_object *xffi_error_create_quiet(xffi_byte_array kind, xffi_byte_array message, xffi_byte_array backtrace,
                                     xffi_object *cause, xffi_object *extra_context);

/* Where err (an Error, borrowed) keeps its extra_context (an owned object
 * or NULL), for code that changes it while the error unwinds; NULL for the
 * pre-made MemoryError, which every thread shares and nobody may change. */
void **xffi_error_extra_context_slot(xffi_object *err) XFFI_INTERNAL;

/* ---- Validation of Any values that callers hand in ----
 * A foreign caller can fill an Any with any bits. The shapes that would make
 * the library read through a NULL or past the 16 bytes of the Any are
 * malformed: a borrowed C string or byte array view whose pointer is NULL
 * (or a byte array with NULL data and a non-zero size), a DLTensor view
 * with a NULL pointer, an object kind with a NULL object, a small string or
 * small bytes value longer than 7 bytes, and a negative type index (no kind
 * has one; the map uses one to mark erased entries). Every entry point that
 * reads an Any's payload checks it first (v borrowed, not NULL). */
static inline int xffi_any_is_well_formed(const xffi_any *v) {
  int32_t t = v->type_index;
  /* None, int, bool, float, opaque pointer, dtype, device: nothing to check
   * (one compare for the commonest keys and arguments). */
  if (XFFI_LIKELY((uint32_t)t < XFFI_TYPE_DLTENSOR_PTR)) return 1;
  if (t >= XFFI_TYPE_STATIC_OBJECT_BEGIN) return v->v_obj != NULL;
  switch (t) {
    case XFFI_TYPE_RAW_STR: return v->v_c_str != NULL;
    case XFFI_TYPE_BYTE_ARRAY_PTR: return v->v_bytes_ptr != NULL && (v->v_bytes_ptr->data || !v->v_bytes_ptr->size);
    case XFFI_TYPE_DLTENSOR_PTR: return v->v_dltensor != NULL;
    case XFFI_TYPE_SMALL_STR:
    case XFFI_TYPE_SMALL_BYTES: return v->small_len <= XFFI_SMALL_STR_MAX;
    default: return t >= 0;
  }
}

/* Raises ValueError "<fn>: <what> is malformed: <which shape>" for a value
 * that is not well formed, and returns XFFI_FAIL. what names the argument
 * ("view", "key", "argument 2"). */
int xffi_any_raise_malformed(const char *fn, const char *what, const xffi_any *v);

/* XFFI_OK for a well-formed v, else the ValueError above. */
static inline int xffi_any_check(const char *fn, const char *what, const xffi_any *v) {
  return XFFI_LIKELY(xffi_any_is_well_formed(v)) ? XFFI_OK : xffi_any_raise_malformed(fn, what, v);
}

/* ---- Strings ---- */
/* The total allocation size for a String/Bytes of n bytes, or 0 on overflow. */
size_t xffi_string_alloc_size(size_t n);

/* Reading ahead: a hint that the memory at address is read soon, so its
 * load may start now and overlap others (a walk of an object graph waits on
 * memory, not on instructions). A hint only: it never faults and changes no
 * result. Helpers that only give hints are XFFI_READ_AHEAD_FN: GCC deems a
 * function without effects removable and drops calls to it before inlining
 * them, so they are inlined first. */
#if defined(__GNUC__) || defined(__clang__)
#  define XFFI_READ_AHEAD(address) __builtin_prefetch(address)
#  define XFFI_READ_AHEAD_FN __attribute__((always_inline)) static inline
#else
#  define XFFI_READ_AHEAD(address) ((void)(address))
#  define XFFI_READ_AHEAD_FN static inline
#endif
/* The span of one read-ahead hint: a cache line on the targets xffi is
 * built for (a wrong guess costs hints, never results). */
#define XFFI_READ_AHEAD_SPAN 64

#endif /* XFFI_INTERNAL_H */
