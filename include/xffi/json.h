/* xffi/json.h: a JSON reader and writer (RFC 8259), tvm-ffi's ffi.json.Parse
 * and ffi.json.Stringify.
 *
 * Values map to JSON as tvm-ffi does: an object is a Map from string keys,
 * an array an Array (a List writes as an array too), a string a String, a
 * number an int when it has no fraction or exponent and fits in int64_t,
 * else a float; true/false are bools, null is None. Beyond RFC 8259, as
 * tvm-ffi (and Python's json module), NaN, Infinity and -Infinity read and
 * write as such.
 *
 * Both walk with a heap stack, never the C stack: 10^6 nested arrays read
 * and write; nesting deeper than 2^20 is a ValueError ("maximum stack
 * depth (1048576) exceeded"), as in the recursive walks (xffi/recursive.h). */
#ifndef XFFI_JSON_H
#define XFFI_JSON_H
#include <stddef.h>

#include <xffi/any.h>
#include <xffi/export.h>

XFFI_EXTERN_C_BEGIN

/* *out receives a new reference to the value of the JSON text
 * text[0, size) (borrowed; need not be NUL-terminated). The grammar is
 * RFC 8259's, strictly (no leading zeros, no "1.", no trailing commas),
 * strings must be valid UTF-8 and \u escapes valid UTF-16 (surrogates in
 * pairs). Errors: ValueError with tvm-ffi's message and position, e.g.
 * "Expecting value: line 1 column 5 (char 4)", for malformed text (then
 * *out is untouched and nothing is leaked); MemoryError. */
XFFI_API int xffi_json_parse(xffi_any *out, const char *text, size_t size);

/* The longest JSON text the writers make (xffi_json_stringify,
 * xffi_to_json_text): 2^30 bytes. Indentation grows with depth and a value
 * shared n times is written n times, so a small value can stand for a
 * text too large to hold; past this bound the writer stops with a
 * MemoryError ("the JSON text would be longer than 1073741824 bytes") before
 * it uses more memory. */
#define XFFI_JSON_MAX_TEXT_BYTES ((size_t)1 << 30)

/* *out receives a new String: the JSON text of value (borrowed). indent 0
 * writes compactly ("[1,2]"); indent n > 0 puts each element on its own
 * line, n spaces deeper per level, and a space after each ':'. Floats with
 * an integer value write with ".0", others with 17 significant digits.
 * Errors: ValueError for a value JSON cannot hold ("Unsupported type:
 * `ffi.Bytes`"), a map key that is not a string, a List that contains
 * itself ("Cycle detected: List contains itself") or a negative indent, and
 * for a String that is not valid UTF-8 ("a string is not valid UTF-8 at
 * byte 1 of 3 (0xff)": the reader would refuse the text); MemoryError,
 * also for a text longer than XFFI_JSON_MAX_TEXT_BYTES. Nothing is leaked
 * on failure. */
XFFI_API int xffi_json_stringify(xffi_object **out, const xffi_any *value, int indent);

/* ---- tvm-ffi's JSON graph format (ffi.ToJSONGraph) ----
 * {"root_index": R, "nodes": [{"type": <type key>, "data": ...}, ...],
 *  "metadata": ...}: one node per distinct value (strings by content,
 * objects by identity), children numbered before their parent, byte for
 * byte as tvm-ffi writes it: None, bool, int, float, dtype, device,
 * strings, bytes (base64), Shape, Array, List, Map and Dict, and reflected
 * objects: an ffi.IntEnum / ffi.Enum member as its canonical int / string
 * index, a type with a "__data_to_json__" attribute as what it returns
 * (read back by "__data_from_json__"), any other object as {field name:
 * value} over all its fields, ancestors' first, None/bool/int/float/dtype
 * fields inline and the others as node indices. */

/* *out receives a new reference to the graph of value (borrowed), with
 * metadata (borrowed; NULL or None for none) under "metadata". Errors:
 * TypeError for a value with no graph form, and for an object whose type
 * has neither a creator nor "__ffi_new__" nor "__data_to_json__" ("Type `T`
 * does not support ToJSONGraph"); ValueError for a List, Dict or object
 * that contains itself ("Cycle detected during serialization: a List
 * contains itself") or nesting past 2^20; what a field getter or
 * "__data_to_json__" raises; MemoryError. Nothing leaks. */
XFFI_API int xffi_to_json(xffi_any *out, const xffi_any *value, const xffi_any *metadata);

/* ffi.ToJSONGraphString: *out receives a new String, the compact JSON text
 * of value's graph (value and metadata borrowed, as xffi_to_json takes
 * them): the same bytes, and the same error, as xffi_to_json then
 * xffi_json_stringify(.., 0) (every graph error before any error of writing
 * a node's data as JSON), written straight from the walk without a Map per
 * node. ValueError for a NULL out or value. Nothing leaks. */
XFFI_API int xffi_to_json_text(xffi_object **out, const xffi_any *value, const xffi_any *metadata);

/* *out receives a new reference to the value graph (borrowed: a Map as
 * xffi_to_json or tvm-ffi's ToJSONGraph makes, or ffi.json.Parse reads)
 * stands for; a node reached twice gives the same object. An object is
 * made empty by its type's creator (or "__ffi_new__") and each field set
 * through its setter; a field absent from the data takes its default; an
 * enum member is the canonical singleton of its index. Errors, each naming
 * the node, its type and the bad part (the field, for an object):
 * ValueError for a graph that is not an object or lacks "root_index"/
 * "nodes", an unknown type key, a node index out of range, a node that
 * leads back to itself (the format has no cycles), bad base64 or dtype
 * text, an enum index with no member; TypeError for data of the wrong type,
 * a required field absent ("Required field `f` not set in type `T`"), a
 * field value the setter refuses; RuntimeError for a type that cannot be
 * made empty; what "__data_from_json__" raises; MemoryError. Nothing
 * leaks: objects made before an error are released. */
XFFI_API int xffi_from_json(xffi_any *out, const xffi_any *graph);

/* ffi.FromJSONGraphString: *out receives a new reference to the value the
 * JSON graph text[0, size) (borrowed; UTF-8, no NUL needed) stands for: the
 * same value, and the same error, as xffi_json_parse then xffi_from_json
 * (a syntax error comes before any graph error), read straight from the
 * text without building each node's Map. Nothing leaks. */
XFFI_API int xffi_from_json_text(xffi_any *out, const char *text, size_t size);

XFFI_EXTERN_C_END
#endif /* XFFI_JSON_H */
