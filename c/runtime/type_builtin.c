/* c/runtime/type_builtin.c: the records of the built-in types, static so that
 * loading the library runs nothing and allocates nothing.
 *
 * Indices, keys, depths and child slots are tvm-ffi 0.1.15's: value types
 * and ffi.Object are roots; every other built-in object is a child of
 * ffi.Object with no child slots and no overflow (no type can derive from
 * ffi.String, ffi.Map, ...); ffi.Object reserves no slots but overflows, so
 * dynamic types take indices from 128 on. type_key_hash is precomputed
 * (xffi_type_key_hash of the key; tests/c/compat/test_tvm_type.c checks each). */
#include "runtime/type_internal.h"

#define OBJECT_ENTRY (XFFI_TYPE_BUILTIN_VALUE_COUNT) /* ffi.Object's position in the array */

static const xffi_type_info *const ancestors_of_object_children[1] = {
    &xffi_type_builtin_entries[OBJECT_ENTRY].stored.info};
static const int32_t ancestor_indices_of_object_children[1] = {XFFI_TYPE_OBJECT};

#define ENTRY(index, depth, key, ancestors, ancestor_indices, hash, overflow, metadata)                       \
  {                                                                                                           \
    {{(index), (depth), {(key), sizeof(key) - 1}, (ancestors), UINT64_C(hash), 0, 0, NULL, NULL, (metadata)}, \
     (ancestor_indices)},                                                                                     \
        1, 1, (overflow), 0, 0, {{NULL, 0}, NULL, 0, 0}, NULL, 1, 0, NULL                                     \
  }
#define VALUE(index, key, hash) ENTRY(index, 0, key, NULL, NULL, hash, 0, NULL)
#define CHILD_WITH(index, key, hash, metadata) \
  ENTRY(index, 1, key, ancestors_of_object_children, ancestor_indices_of_object_children, hash, 0, metadata)
#define CHILD(index, key, hash) CHILD_WITH(index, key, hash, NULL)

/* ffi.Object's own metadata, as tvm-ffi registers it: 24 bytes (the header), no creator. */
static const xffi_type_metadata object_metadata = {
    {"", 0}, NULL, (int32_t)sizeof(xffi_object), XFFI_SEQ_HASH_UNSUPPORTED};

/* tvm-ffi's ObjectDef metadata of three static types (sizeof of its C++
 * classes; no creator, structural kind unsupported), which its stub
 * generator reads to check layouts: ModuleObj is a vtable pointer, the
 * header and two references (48); VisitInterruptObj the header and an Any
 * (40); BigIntObj the header and a word count (32). */
static const xffi_type_metadata module_metadata = {{"", 0}, NULL, 48, XFFI_SEQ_HASH_UNSUPPORTED};
static const xffi_type_metadata visit_interrupt_metadata = {{"", 0}, NULL, 40, XFFI_SEQ_HASH_UNSUPPORTED};
static const xffi_type_metadata bigint_metadata = {{"", 0}, NULL, 32, XFFI_SEQ_HASH_UNSUPPORTED};

xffi_type_entry xffi_type_builtin_entries[XFFI_TYPE_BUILTIN_COUNT] = {
    VALUE(XFFI_TYPE_NONE, "None", 0xfb6ac968ce0ca5aa),
    VALUE(XFFI_TYPE_INT, "int", 0xaed305094b3d4a9f),
    VALUE(XFFI_TYPE_BOOL, "bool", 0xe5d6c19a7b27cfca),
    VALUE(XFFI_TYPE_FLOAT, "float", 0x30fc3255e503d0f0),
    VALUE(XFFI_TYPE_OPAQUE_PTR, "void*", 0x93fff46616d48774),
    VALUE(XFFI_TYPE_DTYPE, "DataType", 0x4f8fea07e78b865b),
    VALUE(XFFI_TYPE_DEVICE, "Device", 0xbd3ec6f35b0ce31c),
    VALUE(XFFI_TYPE_DLTENSOR_PTR, "DLTensor*", 0xcb2d26b2d1d8c04e),
    VALUE(XFFI_TYPE_RAW_STR, "const char*", 0xcd50ff68030dbbab),
    VALUE(XFFI_TYPE_BYTE_ARRAY_PTR, "TVMFFIByteArray*", 0x32519e4e9ab631a9),
    VALUE(XFFI_TYPE_OBJECT_RVALUE, "ObjectRValueRef", 0x189c622331ab3f34),
    VALUE(XFFI_TYPE_SMALL_STR, "ffi.SmallStr", 0xf2ac8dbc73691e03),
    VALUE(XFFI_TYPE_SMALL_BYTES, "ffi.SmallBytes", 0x168b84b7018a151d),
    VALUE(XFFI_TYPE_UNCHANGED, "ffi.Unchanged", 0x852fac5f072fc19e),
    ENTRY(XFFI_TYPE_OBJECT, 0, "ffi.Object", NULL, NULL, 0x33a211b274fa0106, 1, &object_metadata),
    CHILD(XFFI_TYPE_STRING, "ffi.String", 0x9cffcd16e9064976),
    CHILD(XFFI_TYPE_BYTES, "ffi.Bytes", 0x5ddcbe18da0b4aa8),
    CHILD(XFFI_TYPE_ERROR, "ffi.Error", 0xf5caa49da693165e),
    CHILD(XFFI_TYPE_FUNCTION, "ffi.Function", 0xb3b21b94552cae3d),
    CHILD(XFFI_TYPE_SHAPE, "ffi.Shape", 0x98b3ac768e268d1e),
    CHILD(XFFI_TYPE_TENSOR, "ffi.Tensor", 0xa0c01a8167c48cc0),
    CHILD(XFFI_TYPE_ARRAY, "ffi.Array", 0x811300c104284401),
    CHILD(XFFI_TYPE_MAP, "ffi.Map", 0x66acedc0a716b876),
    CHILD_WITH(XFFI_TYPE_MODULE, "ffi.Module", 0xfd67a8eacd498400, &module_metadata),
    CHILD(XFFI_TYPE_OPAQUE_FOREIGN, "ffi.OpaquePyObject", 0xad85a0b68e3b37a5),
    CHILD(XFFI_TYPE_LIST, "ffi.List", 0x073959a12faa06c3),
    CHILD(XFFI_TYPE_DICT, "ffi.Dict", 0x2fc59098b8d363a4),
    CHILD_WITH(XFFI_TYPE_VISIT_INTERRUPT, "ffi.VisitInterrupt", 0xcdf134df0ae8c86f, &visit_interrupt_metadata),
    CHILD_WITH(XFFI_TYPE_BIGINT, "ffi.BigInt", 0x487cadd8abd8177b, &bigint_metadata),
};

#define V(i) [i] = &xffi_type_builtin_entries[i].stored.info
#define O(i) [i] = &xffi_type_builtin_entries[OBJECT_ENTRY + (i)-XFFI_TYPE_OBJECT].stored.info
const xffi_type_info *xffi_type_builtin_table[XFFI_TYPE_DYNAMIC_BEGIN] = {
    V(0),  V(1),  V(2),  V(3),  V(4),  V(5),  V(6),  V(7),  V(8),  V(9),  V(10), V(11), V(12), V(13), O(64),
    O(65), O(66), O(67), O(68), O(69), O(70), O(71), O(72), O(73), O(74), O(75), O(76), O(77), O(78),
};
#undef V
#undef O
