/* xffi/sys/string.h: the String and Bytes cell (extension tier). */
#ifndef XFFI_SYS_STRING_H
#define XFFI_SYS_STRING_H

#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/sys/object.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* The cell of a String or Bytes object: a byte run, NUL-terminated. */
typedef xffi_byte_array xffi_string_cell;

/* The cell of a String or Bytes object, returned by value (two words): its
 * bytes, borrowed from obj and valid while obj lives. obj (borrowed) must be
 * a live String or Bytes: unchecked. The checked form is xffi_string_cell_of. */
static inline xffi_byte_array xffi_string_cell_of_unchecked(const xffi_object *obj) {
  return *XFFI_OBJECT_CELL(const xffi_string_cell, obj);
}

XFFI_EXTERN_C_END

#endif /* XFFI_SYS_STRING_H */
