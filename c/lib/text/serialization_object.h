/* c/lib/text/serialization_object.h: how tvm-ffi's JSON graph holds a reflected
 * object (private; c/lib/text/serialization_object.c), for the writer
 * (c/lib/text/serialization_write.c) and the reader (c/lib/text/serialization_read.c).
 *
 * A node {"type": <the type key>, "data": ...} whose data is, by the
 * type's form:
 * - an ffi.IntEnum member: its canonical int index (_int_index);
 * - another ffi.Enum member: its canonical string index (_str_index);
 * - a type with a "__data_to_json__" attribute (writing) or
 *   "__data_from_json__" (reading): what that Function returns / takes;
 * - else an object {field name: value} over every field, ancestors' first,
 *   where None, bool, int, float and dtype fields (by their static type)
 *   hold the value itself (a dtype as its text) and every other field the
 *   index of its value's node. Reading needs a creator (or "__ffi_new__")
 *   to make the empty object, then sets each field through its setter; a
 *   field absent from data takes its default. */
#ifndef XFFI_SERIALIZATION_OBJECT_H
#define XFFI_SERIALIZATION_OBJECT_H

#include <xffi/reflection.h>

#include "runtime/internal.h"

typedef enum xffi_graph_form {
  XFFI_GRAPH_FIELDS = 0,
  XFFI_GRAPH_INT_ENUM,
  XFFI_GRAPH_STR_ENUM,
  XFFI_GRAPH_HOOK
} xffi_graph_form;

/* The form of type's nodes; for XFFI_GRAPH_HOOK *hook receives the
 * Function (borrowed: held by the type attribute) of "__data_to_json__"
 * when writing, "__data_from_json__" when reading. */
xffi_graph_form xffi_graph_form_of(const xffi_type_info *type, int writing, xffi_object **hook) XFFI_INTERNAL;

/* Whether a field of this static type index is written inline. */
static inline int xffi_graph_field_inlined(int32_t static_type_index) {
  return static_type_index == XFFI_TYPE_NONE || static_type_index == XFFI_TYPE_BOOL ||
         static_type_index == XFFI_TYPE_INT || static_type_index == XFFI_TYPE_FLOAT ||
         static_type_index == XFFI_TYPE_DTYPE;
}

/* Whether objects of type can be made empty (a creator or "__ffi_new__"). */
int xffi_graph_has_creator(const xffi_type_info *type) XFFI_INTERNAL;

/* *out receives a new reference to the canonical index of enum member obj
 * (borrowed): its int index when as_int, else its string index. */
int xffi_graph_enum_index(xffi_any *out, const xffi_object *obj, int as_int) XFFI_INTERNAL;

/* *out receives a new reference to the member of enum type whose canonical
 * index is index (borrowed), from the type's "__ffi_enum__" state.
 * Errors: ValueError "Enum `T` has no instance with index I". */
int xffi_graph_enum_member(xffi_any *out, const xffi_type_info *type, const xffi_any *index) XFFI_INTERNAL;

/* Gives field of obj (borrowed both) its default value (or its factory's
 * result). Errors: what the factory or the setter raises. */
int xffi_graph_field_default(xffi_object *obj, const xffi_field_info *field) XFFI_INTERNAL;

#endif /* XFFI_SERIALIZATION_OBJECT_H */
