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

/* xffi_alloc is on every object's creation path, so its common case is
 * inline: one decrement of a thread-local budget and a sign test, then
 * malloc. The budget is the number of allocations the thread may still make
 * before failure injection (xffi_testing_fail_alloc_after) makes them fail;
 * it is INT64_MAX while injection is off, and the allocation count is read
 * off it, so no separate counter is kept. */
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
extern _Thread_local int64_t xffi_alloc_budget XFFI_INTERNAL_TLS;
/* The calling thread's raised error (one reference) or NULL: c/error.c owns
 * it; the call path (c/function.c) reads it directly to release an error
 * left unclaimed when a call begins. */
extern _Thread_local xffi_object *xffi_raised_slot XFFI_INTERNAL_TLS;
/* The allocation that took the budget below zero: NULL if injection is on. */
void *xffi_alloc_over_budget(size_t size);

/* Takes one allocation from the thread's budget; nonzero if that took it
 * below zero. On x86-64 one read-modify-write instruction and the sign flag:
 * gcc 12 otherwise loads, subtracts and stores in three. */
static inline int xffi_alloc_budget_take(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  int below_zero;
  __asm__("subq $1, %1" : "=@ccs"(below_zero), "+m"(xffi_alloc_budget));
  return below_zero;
#else
  return --xffi_alloc_budget < 0;
#endif
}

static inline void *xffi_alloc(size_t size) {
  extern void *malloc(size_t);
  if (XFFI_UNLIKELY(xffi_alloc_budget_take())) return xffi_alloc_over_budget(size);
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
