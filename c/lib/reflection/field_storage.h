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

/* The one check of a value against a field's declared type
 * (field->field_static_type_index), made by every write of a field:
 * xffi_field_assign and so construction, defaults and default factories,
 * JSON graph reads, deep copy, structural mutate (object types with a C
 * setter), and xffi_object_set_field (every field).
 * An object type takes an object of that type or a type derived from it, or
 * None; ffi.String and ffi.Bytes also a string or bytes of any form; int,
 * float, bool, opaque pointer, dtype and device what the xffi_any_to_*
 * accessors convert; Any, None and unknown indices anything. obj, field and
 * value are borrowed. Errors: TypeError "[function: ]field 'f' of 'T'
 * expects X, got Y" (function may be NULL). */
int xffi_field_check_value(const char *function, const xffi_object *obj, const xffi_field_info *field,
                           const xffi_any *value) XFFI_INTERNAL;

/* Writes value (borrowed) into field of obj through the field's setter: a C
 * setter, or a Function called with (the field's address, value) as tvm-ffi
 * calls it. A field of an object type with a C setter (xffi's own take
 * any object) is first checked by xffi_field_check_value; scalar setters
 * convert and refuse what does not, and a Function setter (a Python-defined
 * class's) converts by the field's type schema, as in tvm-ffi. Read-only
 * fields keep a setter (construction and copies use it); refusing writes to
 * them is the caller's business. Errors: TypeError from the check;
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
/* The bytes one of xffi's own getters (xffi_field_getter_for_type) or
 * setters (xffi_field_setter_for_type) reads or writes at a field's address,
 * or -1 for any other function (another runtime's, a user's): the layout
 * checks hold a record made with xffi's accessors to that size. */
int64_t xffi_field_getter_storage_size(xffi_field_getter getter) XFFI_INTERNAL;
int64_t xffi_field_setter_storage_size(xffi_field_setter setter) XFFI_INTERNAL;

#endif /* XFFI_FIELD_STORAGE_H */
