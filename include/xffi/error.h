/* xffi/error.h: errors as objects, and the thread-local raised slot.
 *
 * A function that fails returns a non-zero status and leaves an Error object
 * in the calling thread's raised slot. The caller moves it out (taking
 * ownership), inspects it, and either handles it or raises it again, perhaps
 * after appending a frame to its backtrace. Nothing in xffi aborts, exits or
 * prints on bad input. */
#ifndef XFFI_ERROR_H
#define XFFI_ERROR_H

#include <stdarg.h>
#include <stdint.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* Error kinds used by xffi itself (users may use any kind string). */
#define XFFI_KIND_TYPE "TypeError"           /* a value of the wrong kind */
#define XFFI_KIND_VALUE "ValueError"         /* a bad value: NULL handle, empty key, bad number */
#define XFFI_KIND_INDEX "IndexError"         /* an index out of range */
#define XFFI_KIND_KEY "KeyError"             /* a missing key */
#define XFFI_KIND_ATTRIBUTE "AttributeError" /* no such field, or a read-only one */
#define XFFI_KIND_MEMORY "MemoryError"       /* out of memory */
#define XFFI_KIND_RUNTIME "RuntimeError"     /* anything else */

/* Backtrace update modes. */
#define XFFI_BACKTRACE_REPLACE 0
#define XFFI_BACKTRACE_APPEND 1

/* Makes a new Error object. *out receives a new reference. kind and message
 * are copied (borrowed). Errors: ValueError for a NULL out, kind or message;
 * MemoryError (then *out is NULL). */
XFFI_API int xffi_error_new(xffi_object **out, const char *kind, const char *message);

/* The same from byte runs (not necessarily NUL-terminated). */
XFFI_API int xffi_error_new_bytes(xffi_object **out, xffi_byte_array kind, xffi_byte_array message);

/* Puts err into the calling thread's raised slot. Steals the reference. A
 * previously raised error still in the slot is released. NULL simply clears
 * the slot. An object that is not an Error is released and a TypeError
 * saying so is raised in its place. */
XFFI_API void xffi_error_set_raised(xffi_object *err);

/* Moves the raised error out of the slot, which becomes empty. Returns a new
 * reference the caller must release, or NULL if nothing was raised. */
XFFI_API xffi_object *xffi_error_move_raised(void);

/* The raised error, borrowed (the slot keeps it), or NULL. */
XFFI_API xffi_object *xffi_error_peek_raised(void);

/* Makes an error of the given kind with a printf-style message and raises
 * it. Always returns XFFI_FAIL, so a failing function can end with
 * `return xffi_error_raise(XFFI_KIND_VALUE, "...", ...);`. If memory runs out
 * the raised error is the pre-made MemoryError instead. */
XFFI_API int xffi_error_raise(const char *kind, const char *format, ...) XFFI_PRINTF(2, 3);
XFFI_API int xffi_error_raise_v(const char *kind, const char *format, va_list args) XFFI_PRINTF(2, 0);

/* The same with a message taken as it is (no formatting): the cheapest raise. */
XFFI_API int xffi_error_raise_str(const char *kind, const char *message);

/* Raises the pre-made MemoryError (no allocation). Returns XFFI_FAIL. */
XFFI_API int xffi_error_raise_out_of_memory(void);

/* Appends one frame (a line; borrowed, copied) to err's backtrace through the
 * error's own update_backtrace, so it works on errors made by any runtime.
 * Errors: ValueError for a NULL or non-Error err or NULL frame; MemoryError. */
XFFI_API int xffi_error_append_frame(xffi_object *err, const char *frame);

/* Appends a frame to the raised error, if any, and returns XFFI_FAIL: the
 * one-liner for a layer that passes an error on. */
XFFI_API int xffi_error_pass(const char *frame);

/* Ends a failing function that tvm-ffi code may call: `return
 * xffi_error_forward_to_tvm();`. With one runtime in the process (xffi alone,
 * or xffi serving tvm-ffi's C ABI through its libtvm_ffi.so drop-in) the
 * raised error stays in the one slot, which TVMFFIErrorMoveFromRaised reads.
 * When a distinct tvm-ffi runtime is loaded as well (the wheel's
 * libtvm_ffi.so beside libxffi.so), the caller is that runtime, which reads
 * only its own slot: the error moves there. When none is raised a
 * RuntimeError is, so a caller never sees a failure without an error. Always
 * returns XFFI_FAIL. XFFI_EXPORT_FUNCTION does it for exported functions by
 * itself. Looks symbols up: meant for the failure path. */
XFFI_API int xffi_error_forward_to_tvm(void);

/* Sets err's cause (err borrowed; steals the reference to cause, even on
 * failure; releases any previous cause). An err that has been the cause of
 * another error walks cause's chain once, O(length of that chain); one that
 * never was is in no chain, so the call is O(1) and a chain built by giving
 * each new error the chain so far costs linear time. (Links written into
 * the cells directly, not through xffi, are seen only by the walk.)
 * Errors: TypeError unless err is an Error and cause is an Error or NULL;
 * ValueError if err is cause or is already in cause's chain (the cycle would
 * never be freed and no walk of it would end), or, when the chain is walked,
 * if cause's chain already loops (a loop written into the cells directly). */
XFFI_API int xffi_error_set_cause(xffi_object *err, xffi_object *cause);

/* Whether err's kind is kind (borrowed both). 0 for NULL or non-Error err. */
XFFI_API int xffi_error_is_kind(xffi_object *err, const char *kind);

XFFI_EXTERN_C_END

#endif /* XFFI_ERROR_H */
