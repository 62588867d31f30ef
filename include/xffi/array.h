/* xffi/array.h: Array (immutable, copy-on-write) and List (mutable, shared).
 *
 * Both are sequences of owned 16-byte Any values in the sequence cell shared
 * with tvm-ffi 0.1 (xffi_seq_cell below). They differ in meaning:
 *
 * - An Array is a value. Functions that "change" one take `xffi_object **array`
 *   (in/out). If the caller's reference is the only one (strong count 1 and
 *   no weak references) the array is changed in place; otherwise a changed
 *   copy is made, the caller's reference to the old array is released and the
 *   new array (a new reference) is stored in *array. Other holders of the old
 *   array never see a change. On failure *array is left exactly as it was.
 * - A List is a shared, mutable object: every holder sees every change. It
 *   takes no lock: changing a List while another thread uses it needs the
 *   caller's own synchronisation. A List that (directly or not) contains
 *   itself is a reference cycle and is never freed.
 *
 * Elements are always owned copies of the views passed in (xffi_any_copy):
 * objects gain a reference, borrowed C strings and byte arrays become small
 * strings or String/Bytes objects.
 *
 * Read-only functions exist once, under Array names (xffi_array_length, _get,
 * _items), and accept either an Array or a List (xffi_array_get(list)
 * works); slice exists under both names because it makes its own kind.
 * Changing functions exist under both names, copy-on-write for an Array and
 * in place for a List, and accept only their own kind. Indices are int64_t and must be in range
 * (0 <= index < length; insert also allows index == length): anything else is
 * an IndexError, never a crash. Every function raises a ValueError for a NULL
 * pointer argument and a TypeError for an object of the wrong type. */
#ifndef XFFI_ARRAY_H
#define XFFI_ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/any.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* ======================= Array (immutable, copy-on-write) ======================= */

/* Makes an Array of `count` elements copied from the views items[0..count)
 * (borrowed). items may be NULL when count is 0. *out receives a new
 * reference (NULL on failure).
 * Errors: ValueError for NULL out, NULL items with count > 0 or a negative
 * count; TypeError for an item xffi_any_copy refuses (an rvalue); MemoryError. */
XFFI_API int xffi_array_new(xffi_object **out, const xffi_any *items, int64_t count);

/* Makes an empty Array with room for `capacity` elements (one allocation).
 * *out receives a new reference. Errors: ValueError for NULL out or a
 * negative capacity; MemoryError. */
XFFI_API int xffi_array_new_with_capacity(xffi_object **out, int64_t capacity);

/* *out receives the number of elements of an Array or List (borrowed).
 * Errors: ValueError, TypeError. */
XFFI_API int xffi_array_length(int64_t *out, const xffi_object *array);

/* *out (which must hold nothing needing release) receives an owned copy of
 * element `index` (a new reference for an object) of an Array or List
 * (borrowed). Errors: ValueError, TypeError, IndexError. */
XFFI_API int xffi_array_get(xffi_any *out, const xffi_object *array, int64_t index);

/* *out_items receives the elements (borrowed, valid until the sequence
 * changes) and *out_size their number, of an Array or List (borrowed).
 * Errors: ValueError, TypeError. */
XFFI_API int xffi_array_items(const xffi_any **out_items, int64_t *out_size, const xffi_object *array);

/* *out receives a new Array holding copies of elements [begin, end) of an
 * Array or List (borrowed). 0 <= begin <= end <= length. The whole range is a
 * shallow copy (elements shared, not cloned).
 * Errors: ValueError, TypeError, IndexError for a bad range; MemoryError. */
XFFI_API int xffi_array_slice(xffi_object **out, const xffi_object *array, int64_t begin, int64_t end);

/* The changing operations below are copy-on-write (see the top of this file):
 * *array is an Array reference owned by the caller, possibly replaced by a
 * new reference (the old one released). On failure nothing changes. */

/* Replaces element `index` with a copy of value (borrowed view); the old
 * element is released. Errors: ValueError, TypeError, IndexError, MemoryError. */
XFFI_API int xffi_array_set(xffi_object **array, int64_t index, const xffi_any *value);

/* Appends a copy of value (borrowed view). Amortised O(1) when unshared.
 * Errors: ValueError, TypeError, MemoryError. */
XFFI_API int xffi_array_push(xffi_object **array, const xffi_any *value);

/* Removes the last element and moves it into *out (which must hold nothing
 * needing release; the caller owns the result). out may be NULL to release
 * the element instead. Errors: ValueError, TypeError, IndexError if empty,
 * MemoryError (only when a shared array must be copied). */
XFFI_API int xffi_array_pop(xffi_any *out, xffi_object **array);

/* Inserts a copy of value (borrowed view) before element `index`
 * (0 <= index <= length; index == length appends). O(length - index).
 * Errors: ValueError, TypeError, IndexError, MemoryError. */
XFFI_API int xffi_array_insert(xffi_object **array, int64_t index, const xffi_any *value);

/* Removes element `index` (released) and closes the gap. O(length - index).
 * Errors: ValueError, TypeError, IndexError, MemoryError (shared array copy). */
XFFI_API int xffi_array_erase(xffi_object **array, int64_t index);

/* Removes every element. A shared array is replaced by a new empty one.
 * Errors: ValueError, TypeError, MemoryError (shared array only). */
XFFI_API int xffi_array_clear(xffi_object **array);

/* Makes room for at least `capacity` elements so that pushes up to it do not
 * allocate, as xffi_list_reserve. A shared array is replaced by an unshared
 * copy with that room (a new reference in *array, the old one released);
 * the elements are unchanged either way.
 * Errors: ValueError (also for a negative capacity), TypeError, MemoryError
 * (then *array is left as it was). */
XFFI_API int xffi_array_reserve(xffi_object **array, int64_t capacity);

/* ======================= List (mutable, shared) ======================= */

/* As xffi_array_new and xffi_array_new_with_capacity, making a List. */
XFFI_API int xffi_list_new(xffi_object **out, const xffi_any *items, int64_t count);
XFFI_API int xffi_list_new_with_capacity(xffi_object **out, int64_t capacity);

/* Read-only access to a List: xffi_array_length, xffi_array_get and
 * xffi_array_items (above), which accept an Array or a List. */

/* *out receives a new List holding copies of elements [begin, end) of an
 * Array or a List (borrowed): the way to copy a List or turn an Array into a
 * List. Errors: ValueError, TypeError, IndexError, MemoryError. */
XFFI_API int xffi_list_slice(xffi_object **out, const xffi_object *list, int64_t begin, int64_t end);

/* Changing a List (borrowed; it must be a List). Semantics as the Array
 * functions of the same name, in place and visible to every holder. */
XFFI_API int xffi_list_set(xffi_object *list, int64_t index, const xffi_any *value);
XFFI_API int xffi_list_push(xffi_object *list, const xffi_any *value);
XFFI_API int xffi_list_pop(xffi_any *out, xffi_object *list);
XFFI_API int xffi_list_insert(xffi_object *list, int64_t index, const xffi_any *value);
XFFI_API int xffi_list_erase(xffi_object *list, int64_t index);
/* Never fails on a valid List (raises only ValueError / TypeError). */
XFFI_API int xffi_list_clear(xffi_object *list);

/* Makes room for at least `capacity` elements so that pushes up to it do not
 * allocate. Errors: ValueError (also for a negative capacity), TypeError,
 * MemoryError. */
XFFI_API int xffi_list_reserve(xffi_object *list, int64_t capacity);

XFFI_EXTERN_C_END

#endif /* XFFI_ARRAY_H */
