/* c/lib/reflection/field_storage.h: reading and writing a field through its record
 * (private; c/lib/reflection/field_storage.c). One place calls a record's getter and
 * setter, whatever the setter's form, for every walker of fields: access by
 * name, construction, repr, copy and comparison. */
#ifndef XFFI_FIELD_STORAGE_H
#define XFFI_FIELD_STORAGE_H

#include <xffi/reflection.h>

#include "runtime/internal.h"

/* Reads field of obj (both borrowed) into *out: a new reference, or None on
 * failure. Errors: AttributeError for a field with no getter; what the
 * getter raises. */
int xffi_field_read(xffi_any *out, const xffi_object *obj, const xffi_field_info *field) XFFI_INTERNAL;

/* Writes value (borrowed) into field of obj through the field's setter: a C
 * setter, or a Function called with (the field's address, value) as tvm-ffi
 * calls it. Read-only fields keep a setter (construction and copies use
 * it); refusing writes to them is the caller's business. Errors:
 * AttributeError for a field with no setter; what the setter raises. */
int xffi_field_assign(xffi_object *obj, const xffi_field_info *field, const xffi_any *value) XFFI_INTERNAL;

/* How a reflected field holds its value, as tvm-ffi decides it: an Any
 * (16 bytes, owned), an object pointer (owned, NULL is None), or plain
 * bytes that own nothing. An Any-typed field of pointer size is an object
 * pointer (a C++ parent's ObjectRef declared as Any). */
typedef enum xffi_field_storage {
  XFFI_FIELD_STORAGE_PLAIN,
  XFFI_FIELD_STORAGE_ANY,
  XFFI_FIELD_STORAGE_OBJECT
} xffi_field_storage;

xffi_field_storage xffi_field_storage_of(const xffi_field_info *field) XFFI_INTERNAL;

#endif /* XFFI_FIELD_STORAGE_H */
