/* c/lib/text/serialization_keys.h: the "type" strings of tvm-ffi's JSON graph
 * nodes for the values with a fixed form (c/lib/text/serialization_write.c). They are
 * tvm-ffi's static type keys; reflected objects use their own type key. */
#ifndef XFFI_SERIALIZATION_KEYS_H
#define XFFI_SERIALIZATION_KEYS_H

#define XFFI_GRAPH_KEY_NONE "None"
#define XFFI_GRAPH_KEY_BOOL "bool"
#define XFFI_GRAPH_KEY_INT "int"
#define XFFI_GRAPH_KEY_FLOAT "float"
#define XFFI_GRAPH_KEY_DTYPE "DataType"
#define XFFI_GRAPH_KEY_DEVICE "Device"
#define XFFI_GRAPH_KEY_STR "ffi.String"
#define XFFI_GRAPH_KEY_BYTES "ffi.Bytes"
#define XFFI_GRAPH_KEY_ARRAY "ffi.Array"
#define XFFI_GRAPH_KEY_LIST "ffi.List"
#define XFFI_GRAPH_KEY_MAP "ffi.Map"
#define XFFI_GRAPH_KEY_DICT "ffi.Dict"
#define XFFI_GRAPH_KEY_SHAPE "ffi.Shape"

#endif /* XFFI_SERIALIZATION_KEYS_H */
