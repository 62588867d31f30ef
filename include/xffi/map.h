/* xffi/map.h: Map (immutable, copy-on-write) and Dict (mutable, shared).
 *
 * Hash maps from Any keys to Any values that iterate in insertion order, in
 * tvm-ffi's layout (docs/map.md): the same objects are read, changed and
 * freed by C++ code compiled against tvm-ffi's headers, so a Map made here is
 * a tvm::ffi::Map there and the reverse. A map of at most 4 entries keeps
 * them in an array scanned in order (no hashing); a larger one is a hash
 * table of 16-slot blocks, 49 bytes per slot, 50% to 99% full (about 50 to
 * 100 bytes per entry, the two Anys included). Lookups, inserts and erases
 * are O(1) on average; erases leave no tombstones; tables never shrink.
 *
 * Meaning, as for Array and List (xffi/array.h):
 * - A Map is a value. Functions that "change" one take `xffi_object **map`
 *   (in/out): if the caller's reference is the only one (strong count 1 and
 *   no weak references) the map changes in place, otherwise a changed copy
 *   replaces *map and the caller's reference to the old map is released.
 *   Other holders never see a change. On failure *map is left as it was.
 * - A Dict is shared and mutable: every holder sees every change. It takes no
 *   lock; changing it while another thread uses it needs the caller's own
 *   synchronisation. A Dict that contains itself is never freed (a cycle).
 *
 * Keys. Stored keys and values are owned copies of the views passed in
 * (xffi_any_copy: a borrowed C string becomes a small string or a String).
 * Key equality is tvm-ffi's AnyEqual:
 * - strings compare by bytes: a small string, a String object and a borrowed
 *   C string with the same bytes are the same key; likewise bytes (small
 *   bytes, Bytes objects, borrowed byte arrays). A string is never equal to
 *   bytes with the same content;
 * - int, bool and float are distinct kinds: int 1, bool true and float 1.0
 *   are three different keys (no cross-kind numeric equality, unlike Python);
 * - floats compare by their bits: 0.0 and -0.0 are two keys, a NaN is found
 *   again only by a NaN with the same bits;
 * - None, opaque pointers, DLTensor pointers, dtypes and devices compare by
 *   value; other objects compare by identity (the same object), unless their
 *   type registers `__any_equal__`/`__any_hash__` attributes (type attribute
 *   columns, xffi/tvm_ffi.h), which then decide; their errors are returned.
 * An object rvalue reference (a move) is refused as a key or value (TypeError),
 * a malformed key or value (xffi/any.h) too (ValueError).
 *
 * Order. New keys go last. Setting an existing key keeps its place in a map
 * of at most 4 entries, and moves it to the end in a larger one (tvm-ffi's
 * rule; a map that once held 5 entries keeps the larger layout).
 *
 * Hash flooding. The hash is tvm-ffi's, unkeyed (C++ code computes it
 * too), so callers can choose keys that collide. xffi's own inserts refuse,
 * with a ValueError, a key whose collision chain already holds 1024 keys or
 * a table that cannot place its keys while mostly empty: a flood costs
 * bounded time per insert and ends in an error. C++ code inserting into the
 * same map is not bounded (docs/map.md).
 *
 * Read-only functions exist once, under Map names (xffi_map_length, _get,
 * _lookup, _contains, _next), and accept either a Map or a Dict; copy exists
 * under both names because it makes its own kind. Changing functions exist
 * under both names, copy-on-write for a Map and in place for a Dict, and
 * accept only their own kind. Every function raises a ValueError for a NULL pointer argument and a
 * TypeError for an object of the wrong type. */
#ifndef XFFI_MAP_H
#define XFFI_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/any.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* One entry seen during iteration: both pointers borrowed, valid until the
 * map changes or is freed. key is NULL when the iteration is over. */
typedef struct xffi_map_item {
  const xffi_any *key;
  const xffi_any *value;
} xffi_map_item;

/* ======================= Map (immutable, copy-on-write) ======================= */

/* Makes a Map of `count` pairs keys[i] -> values[i] (views, borrowed, copied),
 * set in that order; a repeated key gets its last value (and, from 4 pairs
 * on, moves to the end, as each set does).
 * keys and values may be NULL when count is 0: xffi_map_new(&m, NULL, NULL, 0)
 * makes an empty Map (as xffi_array_new does an empty Array). *out receives a
 * new reference.
 * Errors: ValueError for NULL arguments or a negative count; TypeError for a
 * key or value that cannot be stored; MemoryError. */
XFFI_API int xffi_map_new(xffi_object **out, const xffi_any *keys, const xffi_any *values, int64_t count);

/* *out receives the number of entries of a Map or Dict (borrowed). */
XFFI_API int xffi_map_length(int64_t *out, const xffi_object *map);

/* *out (which must hold nothing needing release) receives an owned copy of
 * the value under key (a view, borrowed) in a Map or Dict (borrowed).
 * Errors: ValueError, TypeError, KeyError if the key is absent. */
XFFI_API int xffi_map_get(xffi_any *out, const xffi_object *map, const xffi_any *key);

/* The fast lookup: *out receives a borrowed pointer to the value stored
 * under key, valid until the map changes or is freed, or NULL when the key is
 * absent (not an error). Nothing is allocated or reference-counted.
 * Errors: ValueError, TypeError. */
XFFI_API int xffi_map_lookup(const xffi_any **out, const xffi_object *map, const xffi_any *key);

/* *out receives 1 if key is in the Map or Dict, else 0. Errors: ValueError, TypeError. */
XFFI_API int xffi_map_contains(int *out, const xffi_object *map, const xffi_any *key);

/* Iterates a Map or Dict in insertion order. *cursor starts at 0 and is
 * advanced by each call (an opaque position); *out receives the next entry
 * (borrowed pointers), or key NULL when there is none left:
 *
 *   int64_t cursor = 0; xffi_map_item item;
 *   while (xffi_map_next(&item, map, &cursor) == XFFI_OK && item.key) { ... }
 *
 * Changing a Dict while iterating is memory-safe but may skip or repeat
 * entries. Errors: ValueError, TypeError, IndexError for a negative cursor. */
XFFI_API int xffi_map_next(xffi_map_item *out, const xffi_object *map, int64_t *cursor);

/* *out receives a new Map with the entries of a Map or Dict (borrowed), in
 * the same order (values shared, not cloned). Errors: ValueError, TypeError,
 * MemoryError. */
XFFI_API int xffi_map_copy(xffi_object **out, const xffi_object *map);

/* Copy-on-write changes (see the top of this file): *map is a Map reference
 * owned by the caller, possibly replaced. */

/* Sets key -> value (views, borrowed, copied). A new key goes last in the
 * iteration order; an existing key keeps its stored key, its old value is
 * released, and it keeps its place (at most 4 entries) or moves to the end
 * (more). Errors: ValueError (also for a flood of colliding keys), TypeError,
 * MemoryError. */
XFFI_API int xffi_map_set(xffi_object **map, const xffi_any *key, const xffi_any *value);

/* Removes key and its value (both released). Errors: ValueError, TypeError,
 * KeyError if absent, MemoryError (shared map copy only). */
XFFI_API int xffi_map_erase(xffi_object **map, const xffi_any *key);

/* Removes key and moves its value into *out (which must hold nothing needing
 * release; the caller owns the result), as xffi_dict_pop does for a Dict.
 * Errors: ValueError, TypeError, KeyError if absent, MemoryError (shared map
 * copy only); on failure *map and *out are unchanged. */
XFFI_API int xffi_map_pop(xffi_any *out, xffi_object **map, const xffi_any *key);

/* Removes every entry (released); a unique map keeps its storage. A shared
 * map is replaced by a new empty one.
 * Errors: ValueError, TypeError, MemoryError (shared map only). */
XFFI_API int xffi_map_clear(xffi_object **map);

/* ======================= Dict (mutable, shared) ======================= */

/* As xffi_map_new, making a Dict. */
XFFI_API int xffi_dict_new(xffi_object **out, const xffi_any *keys, const xffi_any *values, int64_t count);

/* Read-only access to a Dict: the xffi_map_* functions above (length, get,
 * lookup, contains, next), which accept a Map or a Dict. */

/* *out receives a new Dict with the entries of a Map or Dict (borrowed): the
 * way to copy a Dict or to turn a Map into a Dict. */
XFFI_API int xffi_dict_copy(xffi_object **out, const xffi_object *dict);

/* Changing a Dict (borrowed; it must be a Dict), in place. */
XFFI_API int xffi_dict_set(xffi_object *dict, const xffi_any *key, const xffi_any *value);
/* Removes key (KeyError if absent). Never allocates. */
XFFI_API int xffi_dict_erase(xffi_object *dict, const xffi_any *key);
/* Removes key and moves its value into *out (which must hold nothing needing
 * release; the caller owns the result). KeyError if absent. Never allocates. */
XFFI_API int xffi_dict_pop(xffi_any *out, xffi_object *dict, const xffi_any *key);
/* Removes every entry (released), keeping the storage. */
XFFI_API int xffi_dict_clear(xffi_object *dict);

/* *out receives the bytes of heap memory a Map or Dict uses (the object
 * with its inline pairs, and the pair array or blocks it owns), for
 * measurements. Errors: ValueError, TypeError. */
XFFI_API int xffi_map_memory_bytes(size_t *out, const xffi_object *map);

XFFI_EXTERN_C_END

#endif /* XFFI_MAP_H */
