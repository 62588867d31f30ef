/* xffi/reflection.h: the records that describe a type's fields, methods
 * and metadata, and the columns of type attributes.
 *
 * Layouts shared with tvm-ffi 0.1 (TVMFFIFieldInfo, TVMFFIMethodInfo,
 * TVMFFITypeMetadata, TVMFFITypeAttrColumn), so that libraries of both
 * runtimes describe their types the same way. The registry copies every
 * text and keeps its own reference to every object and Any it is given. */
#ifndef XFFI_REFLECTION_H
#define XFFI_REFLECTION_H

#include <stdint.h>
#include <xffi/any.h>
#include <xffi/export.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* Field flags (bits of xffi_field_info.flags). */
enum {
  XFFI_FIELD_WRITABLE = 1 << 0,
  XFFI_FIELD_HAS_DEFAULT = 1 << 1,
  XFFI_FIELD_IS_STATIC_METHOD = 1 << 2, /* on xffi_method_info.flags */
  XFFI_FIELD_SEQ_HASH_IGNORE = 1 << 3,
  XFFI_FIELD_SEQ_HASH_DEF_PATTERN = 1 << 4,
  XFFI_FIELD_DEFAULT_FROM_FACTORY = 1 << 5,
  XFFI_FIELD_REPR_OFF = 1 << 6,
  XFFI_FIELD_COMPARE_OFF = 1 << 7,
  XFFI_FIELD_HASH_OFF = 1 << 8,
  XFFI_FIELD_INIT_OFF = 1 << 9,
  XFFI_FIELD_KW_ONLY = 1 << 10,
  XFFI_FIELD_SETTER_IS_FUNCTION = 1 << 11, /* setter is a Function object */
  XFFI_FIELD_SEQ_HASH_DEF_SIMPLE = 1 << 12
};

/* Reads the field at field_addr into *result (a new reference). 0 or -1 with an error raised. */
typedef int (*xffi_field_getter)(void *field_addr, xffi_any *result);
/* Writes *value (borrowed) into the field at field_addr. 0 or -1 with an error raised. */
typedef int (*xffi_field_setter)(void *field_addr, const xffi_any *value);
/* Makes a default-initialised object: *result receives a new reference. */
typedef int (*xffi_object_creator)(void **result);

/* 120 bytes on 64-bit targets. */
typedef struct xffi_field_info {
  xffi_byte_array name;
  xffi_byte_array doc;
  xffi_byte_array metadata; /* JSON text */
  int64_t flags;            /* XFFI_FIELD_* */
  int64_t size;
  int64_t alignment;
  int64_t offset; /* bytes from the object's start */
  xffi_field_getter getter;
  void *setter; /* an xffi_field_setter, or a Function object with XFFI_FIELD_SETTER_IS_FUNCTION */
  xffi_any default_value_or_factory;
  int32_t field_static_type_index;
} xffi_field_info;

/* 72 bytes on 64-bit targets. */
typedef struct xffi_method_info {
  xffi_byte_array name;
  xffi_byte_array doc;
  xffi_byte_array metadata; /* JSON text */
  int64_t flags;            /* XFFI_FIELD_IS_STATIC_METHOD or 0 */
  xffi_any method;          /* a Function */
} xffi_method_info;

/* Structural equality and hashing kinds (xffi_type_metadata.structural_eq_hash_kind). */
enum {
  XFFI_SEQ_HASH_UNSUPPORTED = 0,
  XFFI_SEQ_HASH_TREE_NODE = 1,
  XFFI_SEQ_HASH_FREE_VAR = 2,
  XFFI_SEQ_HASH_DAG_NODE = 3,
  XFFI_SEQ_HASH_CONST_TREE_NODE = 4,
  XFFI_SEQ_HASH_UNIQUE_INSTANCE = 5
};

/* 32 bytes on 64-bit targets. */
typedef struct xffi_type_metadata {
  xffi_byte_array doc;
  xffi_object_creator creator; /* NULL if the type cannot be made empty */
  int32_t total_size;          /* bytes of an object, header included */
  int32_t structural_eq_hash_kind;
} xffi_type_metadata;

/* A column of one type attribute: the value of type index t is
 * data[t - begin_index] when 0 <= t - begin_index < size and that entry is
 * not None; otherwise the type has no such attribute. A column lives as long
 * as the process at a fixed address; data may be replaced (never freed) as it
 * grows. 16 bytes on 64-bit targets. */
typedef struct xffi_type_attr_column {
  const xffi_any *data;
  int32_t size;
  int32_t begin_index;
} xffi_type_attr_column;

/* ---- Registration (thread-safe; what a type's record points at) ----
 * Each returns XFFI_OK, or XFFI_FAIL with the error raised and nothing kept. */

/* Appends a copy of *info (borrowed) to type_index's own fields: name, doc
 * and metadata are copied; default_value_or_factory is kept as an owned copy
 * when XFFI_FIELD_HAS_DEFAULT is set (else None); a Function setter
 * (XFFI_FIELD_SETTER_IS_FUNCTION) gets a reference of the registry's. The
 * record's fields pointer may change (the old array stays readable).
 * Errors: ValueError for NULL info, a NULL text with a size, or a name the
 * type already has; IndexError for an unregistered type_index; the errors of
 * xffi_any_copy for the default; MemoryError. */
XFFI_API int xffi_type_register_field(int32_t type_index, const xffi_field_info *info);

/* Appends a copy of *info (borrowed) to type_index's own methods: texts
 * copied, method kept as an owned copy. Errors as for fields (no name check). */
XFFI_API int xffi_type_register_method(int32_t type_index, const xffi_method_info *info);

/* Sets type_index's metadata to a copy of *metadata (borrowed; doc copied),
 * once. Errors: ValueError for NULL, IndexError for an unregistered index,
 * RuntimeError when the type has metadata already, MemoryError. */
XFFI_API int xffi_type_register_metadata(int32_t type_index, const xffi_type_metadata *metadata);

/* Sets attribute name (borrowed, copied) of type_index to an owned copy of
 * *value (borrowed). type_index XFFI_TYPE_NONE only makes sure the column
 * exists. Errors: ValueError for NULL name or value, IndexError for an
 * unregistered type_index, RuntimeError when the type has a (non-None) value
 * already, the errors of xffi_any_copy, MemoryError. */
XFFI_API int xffi_type_register_attr(int32_t type_index, const char *name, const xffi_any *value);

/* *out receives the column of attribute name (borrowed, immortal), or NULL
 * when no such column exists (not an error). Lock-free.
 * Errors: ValueError for NULL out or name. */
XFFI_API int xffi_type_attr_column_lookup(const xffi_type_attr_column **out, const char *name);

/* ---- Field storage (c/field_storage.c) ----
 * A field's static type index implies its storage, as in tvm-ffi: int is
 * int64_t, float double, bool a C bool, opaque pointer void*, dtype
 * DLDataType, device DLDevice, Any and None an xffi_any (16 bytes, owned by
 * the object), every object type one xffi_object* (owned reference; NULL is
 * None). */

/* *out receives the getter of a field stored as static_type_index implies:
 * it writes a new reference (or plain value) to its result and never fails.
 * Errors: ValueError for NULL out or an index with no storage (the view-only
 * kinds such as raw strings). */
XFFI_API int xffi_field_getter_for_type(xffi_field_getter *out, int32_t static_type_index);

/* *out receives the setter of a field stored as static_type_index implies:
 * it converts the borrowed value by the rules of xffi/any.h (a small string
 * becomes a new String object in a String field) and releases what the field
 * held. Setters of object types other than String and Bytes accept any
 * object or None; xffi_object_set_field checks the declared type first.
 * Errors: as xffi_field_getter_for_type. */
XFFI_API int xffi_field_setter_for_type(xffi_field_setter *out, int32_t static_type_index);

/* Writes the borrowed *value into the field at field_addr stored as
 * static_type_index implies (what the typed setters do). The field keeps its
 * old value on failure. Errors: ValueError for NULL arguments, a malformed
 * value or an index with no storage; TypeError "expected X, got Y";
 * MemoryError. */
XFFI_API int xffi_field_write(void *field_addr, int32_t static_type_index, const xffi_any *value);

/* ---- Lookup and access by name (c/field_storage.c; lock-free) ---- */

/* *out receives the record (borrowed, immortal) of the field called name
 * (borrowed) of type_index or of its nearest ancestor that has one, or NULL
 * when there is none (not an error). Errors: ValueError for NULL out or
 * name; IndexError for an unregistered type_index. */
XFFI_API int xffi_type_find_field(const xffi_field_info **out, int32_t type_index, const char *name);

/* The same for methods (instance and static). */
XFFI_API int xffi_type_find_method(const xffi_method_info **out, int32_t type_index, const char *name);

/* *out receives a new reference to (or the plain value of) obj's field
 * called name; obj and name are borrowed. *out is untouched on failure.
 * Errors: ValueError for NULL arguments; AttributeError "'T' has no field
 * 'name'" or for a field with no getter; TypeError for an object of an
 * unregistered type; what the getter raises. */
XFFI_API int xffi_object_get_field(xffi_any *out, const xffi_object *obj, const char *name);

/* Sets obj's field called name to the borrowed *value through the field's
 * setter (a function pointer or a Function called with the field's address
 * and the value), after checking the value against the field's static type:
 * TypeError "field 'name' of 'T' expects X, got Y". Errors: ValueError for
 * NULL arguments or a malformed value; AttributeError for an unknown or
 * read-only field; what the setter raises. */
XFFI_API int xffi_object_set_field(xffi_object *obj, const char *name, const xffi_any *value);

/* ---- Printing (c/repr.c): tvm-ffi's ffi.ReprPrint format ----
 * The text of a value, as tvm-ffi's ReprPrint writes it:
 * - None, True/False, ints in decimal, floats as C's "%g" ("3.14", "1e+10");
 * - strings as Python literals with double quotes ("a\nb", \xNN for other
 *   control bytes, \uXXXX/\UXXXXXXXX for non-ASCII); bytes as b"...";
 * - a dtype as "float32", a device as "cuda:1", a Shape as "Shape(2, 3)", a
 *   Tensor as "float32[3, 4]@cpu:0", a BigInt in decimal;
 * - Array as a tuple "(1, 2)" ("(1,)" for one element), List as "[1, 2]",
 *   Map and Dict as "{k: v, ...}" in iteration order;
 * - any other object by its reflected fields, parents' first, leaving out
 *   fields flagged XFFI_FIELD_REPR_OFF and repeated names:
 *   "testing.TestIntPair(a=1, b=2)", or just the type key when no field
 *   shows; a type whose "__ffi_repr__" attribute is a Function is printed
 *   by calling it with (object, repr) where repr is a Function printing
 *   any value (its String result is used as it is); an ffi.Enum as
 *   "<type key>.<name>"; ffi.GetInvalidObject's sentinel as "<MISSING>"
 *   and ffi.GetKwargsObject's as "<KWARGS>".
 * An object met again prints in full again (sharing); one met inside
 * itself prints as "..." (a cycle). With addresses on, each object's key is
 * followed by "@0x...", containers and tensors end with "@0x...", and a
 * cycle prints as "...@0x...". The walk uses an explicit stack: no C
 * recursion proportional to the value's depth. */

/* The bounds of a repr; zero-initialise for the defaults. */
typedef struct xffi_repr_options {
  /* Containers and objects open at once; a deeper one prints as
   * "<depth limit>". 0: XFFI_REPR_DEFAULT_MAX_DEPTH. */
  int64_t max_depth;
  /* The most bytes of text; a longer text is cut there (at a UTF-8
   * character boundary) and ends with "<truncated>". 0: XFFI_REPR_DEFAULT_MAX_BYTES. */
  int64_t max_bytes;
  /* Non-zero: show object addresses (as tvm-ffi's TVM_FFI_REPR_WITH_ADDR=1). */
  int32_t with_address;
} xffi_repr_options;

#define XFFI_REPR_DEFAULT_MAX_DEPTH ((int64_t)1 << 20)
#define XFFI_REPR_DEFAULT_MAX_BYTES ((int64_t)1 << 26)

/* *out receives a new String reference holding the text of *value (a view,
 * borrowed), exactly as ffi.ReprPrint makes it: default bounds, addresses
 * shown when the environment variable TVM_FFI_REPR_WITH_ADDR is "1".
 * Errors: ValueError for NULL out or value or a malformed value; what a
 * field getter or an __ffi_repr__ Function raises; TypeError when
 * __ffi_repr__ is not a Function or returns no string; MemoryError. *out is
 * NULL on failure. */
XFFI_API int xffi_repr(xffi_object **out, const xffi_any *value);

/* As xffi_repr with explicit bounds and address choice (options borrowed;
 * NULL for the defaults; the environment is not read).
 * Errors: as xffi_repr, and ValueError for a negative bound. */
XFFI_API int xffi_repr_with(xffi_object **out, const xffi_any *value, const xffi_repr_options *options);

XFFI_EXTERN_C_END

#endif /* XFFI_REFLECTION_H */
