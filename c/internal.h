/* c/internal.h: what the library's own sources share and users never see.
 * Nothing here is exported (the build uses hidden visibility). */
#ifndef XFFI_INTERNAL_H
#define XFFI_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <xffi/xffi.h>

/* ---- Allocation ----
 * Every heap allocation of the library goes through these, so that tests can
 * make the Nth allocation fail (xffi_testing_fail_alloc_after) and count
 * them. xffi_alloc_aligned's memory is released with xffi_free_aligned. */
void *xffi_alloc_zeroed(size_t count, size_t size);
void *xffi_realloc(void *ptr, size_t size);
void xffi_free(void *ptr);
void *xffi_alloc_aligned(size_t alignment, size_t size);
void xffi_free_aligned(void *ptr);

/* xffi_alloc is on every object's creation path, so its common case (no
 * failure injection armed) is inline: a thread-local count and one relaxed
 * load, then malloc. */
/* Hidden on the declaration too, so that code in the shared library reaches
 * them directly: without it every allocation went through the GOT and called
 * __tls_get_addr. initial-exec needs no call at all; the library's static TLS
 * is a few bytes, well within what glibc reserves for libraries loaded with
 * dlopen. */
#if defined(__GNUC__) || defined(__clang__)
#  define XFFI_INTERNAL __attribute__((visibility("hidden")))
#  define XFFI_INTERNAL_TLS __attribute__((visibility("hidden"), tls_model("initial-exec")))
#else
#  define XFFI_INTERNAL
#  define XFFI_INTERNAL_TLS
#endif
extern _Thread_local uint64_t xffi_alloc_counter XFFI_INTERNAL_TLS;
extern int64_t xffi_alloc_failure_countdown XFFI_INTERNAL; /* negative: injection off */
void *xffi_alloc_injected(size_t size);

static inline void *xffi_alloc(size_t size) {
  extern void *malloc(size_t);
  if (XFFI_UNLIKELY(__atomic_load_n(&xffi_alloc_failure_countdown, __ATOMIC_RELAXED) >= 0))
    return xffi_alloc_injected(size);
  xffi_alloc_counter++;
  return malloc(size ? size : 1);
}

/* A deleter for objects whose whole allocation came from one xffi_alloc and
 * whose contents own nothing: frees the memory on flag 2 or 3. */
void xffi_deleter_plain(void *self, int flags);

/* ---- Errors ----
 * Message convention: "<function>: <what is wrong>", naming the argument,
 * what was expected and what came, e.g.
 *   "xffi_string_new: data is NULL but size is 5"
 *   "xffi_any_to_int: expected int, got String".
 * These raise and return XFFI_FAIL. */
int xffi_raise_null_arg(const char *function, const char *argument);
int xffi_raise_type_mismatch(const char *function, const char *expected, const xffi_any *got);

/* Object-kind check with a clear TypeError: "<function>: <argument> expected
 * <type key>, got <kind>". Returns XFFI_OK or XFFI_FAIL (raised). NULL obj is
 * a ValueError. */
int xffi_check_object_arg(const char *function, const char *argument, const xffi_object *obj, int32_t type_index);

/* If tvm-ffi is in the process and its raised slot holds an error, moves it
 * into xffi's slot and returns 1; otherwise returns 0 and changes nothing.
 * For callers that saw a callee fail with xffi's slot empty (c/tvm_error.c). */
int xffi_error_adopt_tvm_raised(void);

/* ---- Strings ---- */
/* The total allocation size for a String/Bytes of n bytes, or 0 on overflow. */
size_t xffi_string_alloc_size(size_t n);

#endif /* XFFI_INTERNAL_H */
