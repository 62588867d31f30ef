/* xffi/reflection.h: the records that describe a type's fields, methods
 * and metadata, and the columns of type attributes.
 *
 * Layouts shared with tvm-ffi 0.1 (TVMFFIFieldInfo, TVMFFIMethodInfo,
 * TVMFFITypeMetadata, TVMFFITypeAttrColumn), so that libraries of both
 * runtimes describe their types the same way. The registry copies every
 * text and keeps its own reference to every object and Any it is given. */
#ifndef XFFI_REFLECTION_H
#define XFFI_REFLECTION_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/any.h>
#include <xffi/export.h>
#include <xffi/function.h>
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
 * Each returns XFFI_OK, or XFFI_FAIL with the error raised and nothing kept.
 *
 * Registering again: two copies of one library in a process (the same
 * plugin loaded from two paths, both on one libxffi) register the same type
 * twice. A field, a checked method (xffi_reflect_method) or metadata that
 * the type has already is accepted as a no-op when it matches, and the type
 * keeps the first registration's records (texts, default, creator, getter,
 * setter and method Function: each copy has its own addresses). Matching
 * means: for a field, the same offset, size, alignment, flags and static
 * type; for a method, the same flags; for metadata, the same total size and
 * structural kind. Anything else is refused with an error that names the
 * first difference ("... is already a field of T, registered with offset
 * 24, not 32"). A type attribute is set once (xffi_type_register_attr). */

/* Appends a copy of *info (borrowed) to type_index's own fields: name, doc
 * and metadata are copied; default_value_or_factory is kept as an owned copy
 * when XFFI_FIELD_HAS_DEFAULT is set (else None); a Function setter
 * (XFFI_FIELD_SETTER_IS_FUNCTION) gets a reference of the registry's. The
 * record's fields pointer may change (the old array stays readable). A
 * name the type has already, with a matching record, keeps the type's
 * record and returns XFFI_OK ("Registering again" above).
 * Errors: ValueError for NULL info, a NULL text with a size, or a name the
 * type already has with another record; IndexError for an unregistered
 * type_index; the errors of xffi_any_copy for the default; MemoryError. */
XFFI_API int xffi_type_register_field(int32_t type_index, const xffi_field_info *info);

/* Appends a copy of *info (borrowed) to type_index's own methods: texts
 * copied, method kept as an owned copy. Errors as for fields (no name
 * check: a name registered again is one more record, as in tvm-ffi). */
XFFI_API int xffi_type_register_method(int32_t type_index, const xffi_method_info *info);

/* Sets type_index's metadata to a copy of *metadata (borrowed; doc copied),
 * once: metadata with the type's total size and structural kind again is a
 * no-op that keeps the type's ("Registering again" above). Errors:
 * ValueError for NULL, IndexError for an unregistered index, RuntimeError
 * when the type has other metadata already, MemoryError. */
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

/* ---- Field storage (c/lib/reflection/field_storage.c) ----
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
 * object or None; every write of a field through the runtime
 * (xffi_object_set_field, construction and defaults, JSON graph reads, deep
 * copy, structural mutate) checks the declared type first.
 * Errors: as xffi_field_getter_for_type. */
XFFI_API int xffi_field_setter_for_type(xffi_field_setter *out, int32_t static_type_index);

/* Writes the borrowed *value into the field at field_addr stored as
 * static_type_index implies (what the typed setters do). The field keeps its
 * old value on failure. Errors: ValueError for NULL arguments, a malformed
 * value or an index with no storage; TypeError "expected X, got Y";
 * MemoryError. */
XFFI_API int xffi_field_write(void *field_addr, int32_t static_type_index, const xffi_any *value);

/* ---- Lookup and access by name (c/lib/reflection/field_storage.c; lock-free) ---- */

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

/* ---- Reflecting a C struct (c/lib/reflection/reflection_register.c) ----
 * A struct whose first member is the xffi_object header describes its
 * members in one line each; size and offset come from the struct, the
 * alignment, getter and setter from the static type index (the storage
 * conventions above). Every call registers all it is given or nothing, and
 * raises a ValueError naming the field (or method) on bad input. A
 * registration the type has already, matching, is a no-op ("Registering
 * again" above). */

/* One field of a C struct, as the XFFI_FIELD_SPEC macros fill it. Texts are
 * NUL-terminated and borrowed (the registry copies them). */
typedef struct xffi_reflect_field_spec {
  const char *name;
  const char *doc;      /* or NULL */
  const char *metadata; /* JSON text, or NULL */
  int64_t offset;       /* offsetof(struct, member): the header included */
  int64_t size;         /* sizeof the member: must be the storage's size */
  int32_t static_type_index;
  int64_t flags;          /* XFFI_FIELD_WRITABLE, XFFI_FIELD_HAS_DEFAULT, ... (no setter flag) */
  xffi_any default_value; /* borrowed; kept (as a copy) with XFFI_FIELD_HAS_DEFAULT; a Function
                             with XFFI_FIELD_DEFAULT_FROM_FACTORY */
} xffi_reflect_field_spec;

/* The spec of member of struct_type, stored as static_type implies. Usable
 * in a static table (C only: designated initializers). */
#define XFFI_FIELD_SPEC(struct_type, member, static_type, field_flags, field_doc)                                   \
  {                                                                                                                 \
    .name = #member, .doc = (field_doc), .offset = (int64_t)offsetof(struct_type, member),                          \
    .size = (int64_t)sizeof(((struct_type *)0)->member), .static_type_index = (static_type), .flags = (field_flags) \
  }

/* Registers the count fields specs[0..count) (borrowed) of type_index, all
 * or none. A batch whose every field the type has already, matching, is a
 * no-op; a known name beside a new one is refused. Errors (ValueError
 * naming the field unless said): NULL specs or a count below 1, a NULL
 * name, a static type with no storage, a size that is not the storage's,
 * XFFI_FIELD_SETTER_IS_FUNCTION in flags, and every check of
 * xffi_type_register_field (a name the type has with another record, an
 * offset in the header, misaligned or past the metadata's total size);
 * IndexError for an unregistered type_index; MemoryError. */
XFFI_API int xffi_reflect_fields(int32_t type_index, const xffi_reflect_field_spec *specs, int32_t count);

/* One field in one line: XFFI_REFLECT_FIELD(index, sensor, count, XFFI_TYPE_INT,
 * XFFI_FIELD_WRITABLE, "readings so far"). Returns XFFI_OK or XFFI_FAIL. */
#define XFFI_REFLECT_FIELD(type_index, struct_type, member, static_type, field_flags, field_doc)                     \
  xffi_reflect_fields(                                                                                               \
      (type_index),                                                                                                  \
      &(const xffi_reflect_field_spec)XFFI_FIELD_SPEC(struct_type, member, static_type, (field_flags), (field_doc)), \
      1)

/* A field that writes by name (xffi_object_set_field, Python attributes)
 * refuse; construction and copies still set it through its setter, as
 * tvm-ffi's read-only fields. */
#define XFFI_REFLECT_FIELD_READONLY(type_index, struct_type, member, static_type, field_doc) \
  XFFI_REFLECT_FIELD(type_index, struct_type, member, static_type, 0, field_doc)

/* A field with a default value (an xffi_any, borrowed: the registry keeps a
 * copy), taken when construction leaves the field out. */
#define XFFI_REFLECT_FIELD_DEFAULT(type_index, struct_type, member, static_type, field_flags, field_doc, value)      \
  xffi_reflect_field_with_default(                                                                                   \
      (type_index),                                                                                                  \
      &(const xffi_reflect_field_spec)XFFI_FIELD_SPEC(struct_type, member, static_type, (field_flags), (field_doc)), \
      (value))

/* xffi_reflect_fields for one spec (borrowed), with default_value (borrowed)
 * and XFFI_FIELD_HAS_DEFAULT set. Errors: as xffi_reflect_fields. */
XFFI_API int xffi_reflect_field_with_default(int32_t type_index, const xffi_reflect_field_spec *spec,
                                             xffi_any default_value);

/* Registers a method of type_index called name (borrowed, copied) that runs
 * callback(resource, args, num_args, result); an instance method receives
 * the object as args[0]. flags is 0 or XFFI_FIELD_IS_STATIC_METHOD. The
 * Function made for it belongs to the registry (resource is never freed).
 * A name the type has already among its own methods, with the same flags,
 * keeps the type's method and returns XFFI_OK ("Registering again" above).
 * Errors: ValueError for a NULL name or callback, other flags, or a name
 * the type has already among its own methods with other flags; IndexError
 * for an unregistered type_index; MemoryError. */
XFFI_API int xffi_reflect_method(int32_t type_index, const char *name, xffi_function_callback callback, void *resource,
                                 int64_t flags, const char *doc);

#define XFFI_REFLECT_METHOD(type_index, name, callback, doc) \
  xffi_reflect_method((type_index), (name), (callback), NULL, 0, (doc))
#define XFFI_REFLECT_STATIC_METHOD(type_index, name, callback, doc) \
  xffi_reflect_method((type_index), (name), (callback), NULL, XFFI_FIELD_IS_STATIC_METHOD, (doc))

/* Registers type_index's metadata: doc (borrowed, copied; may be NULL), the
 * creator that makes an empty object (may be NULL), the object's total size
 * in bytes (header included) and its structural equality kind (an
 * XFFI_SEQ_HASH_* value). Fields registered before must fit in total_size;
 * fields registered after are checked against it. The same total size and
 * kind again is a no-op that keeps the type's metadata. Errors: ValueError
 * for a total size below the header's or past INT32_MAX, an unknown kind,
 * fields outside total_size; RuntimeError when the type has other metadata
 * already; IndexError; MemoryError. */
XFFI_API int xffi_reflect_type(int32_t type_index, int64_t total_size, xffi_object_creator creator,
                               int32_t structural_eq_hash_kind, const char *doc);

#define XFFI_REFLECT_TYPE(type_index, struct_type, creator, structural_eq_hash_kind, doc) \
  xffi_reflect_type((type_index), (int64_t)sizeof(struct_type), (creator), (structural_eq_hash_kind), (doc))

/* ---- Construction from arguments (c/lib/reflection/reflection_construct.c) ---- */

/* The KWARGS sentinel (what ffi.GetKwargsObject returns): in an argument
 * list, the arguments after it are name/value pairs. A borrowed view of an
 * immortal object (releasing it is harmless). */
XFFI_API xffi_any xffi_kwargs_marker(void);

/* *out receives a new reference to an object of type_index made from the
 * borrowed args: positional arguments, then optionally xffi_kwargs_marker()
 * followed by name/value pairs (names are strings). The type's own
 * "__ffi_init__" attribute makes it when the type has one; otherwise its
 * creator (or "__ffi_new__") makes an empty object whose fields are bound as
 * tvm-ffi's generated constructor binds them (positional arguments to the
 * init fields that are not keyword-only, required ones first, root
 * ancestor's fields first), the others taking their defaults. *out is
 * untouched on failure and nothing is kept. Errors: ValueError for NULL out,
 * NULL args with num_args > 0, a negative count or a malformed argument;
 * TypeError for an unregistered object type, too many positional arguments,
 * a missing required field, an unknown or repeated keyword, a value of the
 * wrong type (naming the field), or an __ffi_init__ that returns something
 * else; RuntimeError for a type that cannot be made empty; what
 * __ffi_init__ raises. */
XFFI_API int xffi_object_construct(xffi_any *out, int32_t type_index, const xffi_any *args, int32_t num_args);

/* ---- Reading the records (c/lib/reflection/reflection_records.c; lock-free) ----
 * Positions count the root ancestor's fields (or methods) first, then each
 * descendant's down to the type's own, each level in registration order.
 * Errors: ValueError for NULL out (or name), IndexError for an unregistered
 * type_index or a position out of range. */

/* *out receives the number of fields of type_index, its ancestors' included. */
XFFI_API int xffi_type_count_fields(int32_t *out, int32_t type_index);
/* *out receives the record (borrowed, immortal) at position. */
XFFI_API int xffi_type_field_at(const xffi_field_info **out, int32_t type_index, int32_t position);
/* The same for methods (instance and static). */
XFFI_API int xffi_type_count_methods(int32_t *out, int32_t type_index);
XFFI_API int xffi_type_method_at(const xffi_method_info **out, int32_t type_index, int32_t position);
/* *out receives type_index's metadata (borrowed, immortal), or NULL when it
 * has none (not an error). */
XFFI_API int xffi_type_get_metadata(const xffi_type_metadata **out, int32_t type_index);
/* *out receives a new reference to type_index's own value of attribute name
 * (borrowed), or None when it has none (not an error). */
XFFI_API int xffi_type_get_attr(xffi_any *out, int32_t type_index, const char *name);

/* ---- Printing (c/lib/text/repr.c): tvm-ffi's ffi.ReprPrint format ----
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
