/* xffi/type.h: type indices and the type registry.
 *
 * Plain values (None, int, ...) and built-in objects have fixed indices shared
 * with tvm-ffi 0.1. User types are registered at run time by a unique key and
 * receive an index from 128 up (or inside a parent's reserved child slots).
 * Single inheritance: each type records its depth and its ancestors, so
 * is-instance is O(1) with no call (xffi/sys/type.h). */
#ifndef XFFI_TYPE_H
#define XFFI_TYPE_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/export.h>
#include <xffi/object.h>

XFFI_EXTERN_C_BEGIN

/* Built-in type indices (fixed; identical to tvm-ffi 0.1). */
enum {
  XFFI_TYPE_ANY = -1, /* annotations only */
  XFFI_TYPE_NONE = 0,
  XFFI_TYPE_INT = 1, /* int64_t */
  XFFI_TYPE_BOOL = 2,
  XFFI_TYPE_FLOAT = 3,          /* double */
  XFFI_TYPE_OPAQUE_PTR = 4,     /* void* */
  XFFI_TYPE_DTYPE = 5,          /* DLDataType */
  XFFI_TYPE_DEVICE = 6,         /* DLDevice */
  XFFI_TYPE_DLTENSOR_PTR = 7,   /* borrowed DLTensor* */
  XFFI_TYPE_RAW_STR = 8,        /* borrowed NUL-terminated const char* (views only) */
  XFFI_TYPE_BYTE_ARRAY_PTR = 9, /* borrowed const xffi_byte_array* (views only) */
  XFFI_TYPE_OBJECT_RVALUE = 10, /* an object being moved (views only) */
  XFFI_TYPE_SMALL_STR = 11,     /* up to 7 bytes of string stored inline */
  XFFI_TYPE_SMALL_BYTES = 12,   /* up to 7 bytes stored inline */
  XFFI_TYPE_UNCHANGED = 13,     /* "leave as it is" marker (tvm-ffi's kTVMFFIUnchanged) */
  XFFI_TYPE_STATIC_OBJECT_BEGIN = 64,
  XFFI_TYPE_OBJECT = 64, /* the root of all objects */
  XFFI_TYPE_STRING = 65,
  XFFI_TYPE_BYTES = 66,
  XFFI_TYPE_ERROR = 67,
  XFFI_TYPE_FUNCTION = 68,
  XFFI_TYPE_SHAPE = 69,
  XFFI_TYPE_TENSOR = 70,
  XFFI_TYPE_ARRAY = 71,
  XFFI_TYPE_MAP = 72,
  XFFI_TYPE_MODULE = 73,
  XFFI_TYPE_OPAQUE_FOREIGN = 74,
  XFFI_TYPE_LIST = 75,
  XFFI_TYPE_DICT = 76,
  XFFI_TYPE_VISIT_INTERRUPT = 77, /* ffi.VisitInterrupt (structural visitors) */
  XFFI_TYPE_BIGINT = 78,          /* ffi.BigInt: integers wider than 64 bits */
  XFFI_TYPE_BUILTIN_END = 79,     /* one past the last built-in index */
  XFFI_TYPE_DYNAMIC_BEGIN = 128
};

/* A borrowed run of bytes (not necessarily NUL-terminated). */
typedef struct xffi_byte_array {
  const char *data;
  size_t size;
} xffi_byte_array;

struct xffi_field_info;    /* xffi/reflection.h */
struct xffi_method_info;   /* xffi/reflection.h */
struct xffi_type_metadata; /* xffi/reflection.h */

/* What the registry knows about a type: tvm-ffi's TVMFFITypeInfo (72 bytes
 * on 64-bit targets). Records live as long as the process at a fixed
 * address, so pointers to them may be cached; everything in them is owned by
 * the registry (borrowed by readers).
 * - type_depth: 0 for the root Object and for plain values, parent depth + 1 otherwise.
 * - type_ancestors[d], for d < type_depth, is the record of the ancestor at
 *   depth d (type_ancestors[type_depth - 1] is the parent); NULL at depth 0.
 * - type_key_hash: libstdc++'s std::hash of the key bytes (_Hash_bytes, seed
 *   0xc70f6907), the value tvm-ffi's Linux builds store (xffi_type_key_hash).
 * - num_fields/fields, num_methods/methods: the type's own reflection records
 *   (not inherited); the arrays may move when a record is added (the old one
 *   stays readable), so read the count first, then the pointer.
 * - metadata: NULL until set (once). */
typedef struct xffi_type_info {
  int32_t type_index;
  int32_t type_depth;
  xffi_byte_array type_key;
  const struct xffi_type_info *const *type_ancestors;
  uint64_t type_key_hash;
  int32_t num_fields;
  int32_t num_methods;
  const struct xffi_field_info *fields;
  const struct xffi_method_info *methods;
  const struct xffi_type_metadata *metadata;
} xffi_type_info;

/* The deepest type depth a registered type may have (Object is depth 0, a
 * direct child of it depth 1). Each record keeps all its ancestors, so
 * is-instance stays O(1); the limit bounds a record to 4 KiB of ancestors. */
#define XFFI_TYPE_MAX_DEPTH 1024

/* The most child slots a type may reserve (TVMFFITypeGetOrAllocIndex): each
 * slot is a row of the index table, so the limit bounds what one call can
 * make the table grow by. */
#define XFFI_TYPE_MAX_CHILD_SLOTS 65535

/* libstdc++'s std::hash<std::string_view> of size bytes at data (its
 * _Hash_bytes with seed 0xc70f6907): the type_key_hash of a record. data is
 * borrowed; NULL is allowed when size is 0. */
XFFI_API uint64_t xffi_type_key_hash(const char *data, size_t size);

/* Registers a type under a unique key with a parent object type and writes
 * its index to *out_type_index. Registering the same key with the same
 * parent again returns the same index; the same key with another parent is a
 * ValueError. The type reserves no child slots of its own and takes its
 * index as tvm-ffi's TVMFFITypeGetOrAllocIndex(key, -1, depth, 0, 1, parent)
 * would (xffi/tvm_ffi.h): a free slot of the parent's range, else the next
 * index at the end of the table. Thread-safe. type_key is copied (borrowed).
 * Errors: ValueError for a NULL out, NULL or empty key, a key of a built-in
 * type with no parent (Object, int, ...), or a parent already at
 * XFFI_TYPE_MAX_DEPTH; TypeError if parent_type_index is not a registered
 * object type or takes no subtypes (no free child slot and no overflow: every
 * built-in object type but ffi.Object); MemoryError. */
XFFI_API int xffi_type_register(int32_t *out_type_index, const char *type_key, int32_t parent_type_index);

/* Looks up a type by key. *out receives a borrowed, immortal record. A copy
 * of xffi bound to the process's other tvm-ffi runtime (docs/plugin-runtime.md)
 * finds a type only that runtime knows too (another plugin's, a C++
 * library's, a Python-defined one): *out is then this registry's record of
 * it at its index, its fields, methods and metadata that runtime's.
 * Errors: ValueError for NULL arguments, KeyError "no type registered with key ..." */
XFFI_API int xffi_type_info_get_by_key(const xffi_type_info **out, const char *type_key);

/* Looks up a type by index. *out receives a borrowed, immortal record.
 * Errors: ValueError for NULL out, IndexError for an index no type has. */
XFFI_API int xffi_type_info_get(const xffi_type_info **out, int32_t type_index);

/* The key of a type index, for messages. Never NULL: an index no type has
 * yields "<unregistered type>". Borrowed, immortal. */
XFFI_API const char *xffi_type_key(int32_t type_index);

/* The number of type indices in use, one past the largest (for iteration). */
XFFI_API int32_t xffi_type_count(void);

/* 1 when this registry itself registered type_index (a built-in, or a type
 * registered through it), 0 otherwise: no type has it, or only the process's
 * other tvm-ffi runtime does (a type the lookups above found there). */
XFFI_API int xffi_type_registered_here(int32_t type_index);

/* Whether obj (borrowed) is an instance of type_index or of a type derived
 * from it: writes 1 or 0 to *out. A copy of xffi bound to the process's
 * other tvm-ffi runtime answers for objects and target types only that
 * runtime knows from its records (a target index unknown to both is then
 * 0, not an error). The inline, unchecked forms are in xffi/sys/type.h and
 * read this runtime's table only. Errors: ValueError for NULL out or obj,
 * IndexError for an unregistered type_index. */
XFFI_API int xffi_object_is_a(int *out, const xffi_object *obj, int32_t type_index);

XFFI_EXTERN_C_END

#endif /* XFFI_TYPE_H */
