/* xffi/sys/error.h: the Error cell (extension tier).
 *
 * The layout behind an Error object, shared with tvm-ffi 0.1, for runtimes
 * and bindings that read or build errors field by field. Everyday code uses
 * the functions of xffi/error.h. */
#ifndef XFFI_SYS_ERROR_H
#define XFFI_SYS_ERROR_H

#include <stdint.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/sys/object.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* The cell of an Error object (layout shared with tvm-ffi 0.1).
 * - kind, message: NUL-terminated, owned by the error.
 * - backtrace: NUL-terminated, most recent frame first, one frame a line.
 * - update_backtrace: replaces (mode 0) or appends to (mode 1) the backtrace;
 *   set by whoever allocated the error, so any runtime can update it.
 * - cause_chain: an owned Error object that caused this one, or NULL.
 * - extra_context: an owned object of any type, or NULL. */
typedef struct xffi_error_cell {
  xffi_byte_array kind;
  xffi_byte_array message;
  xffi_byte_array backtrace;
  void (*update_backtrace)(void *self, const xffi_byte_array *backtrace, int32_t mode);
  void *cause_chain;
  void *extra_context;
} xffi_error_cell;

/* An Error object's cell. err must be an Error (borrowed). */
static inline xffi_error_cell *xffi_error_cell_of_unchecked(xffi_object *err) {
  return XFFI_OBJECT_CELL(xffi_error_cell, err);
}

XFFI_EXTERN_C_END

#endif /* XFFI_SYS_ERROR_H */
