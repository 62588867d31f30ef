/* c/lib/container/list_edit.h: range edits of a List that xffi/array.h does not offer
 * (private; used by the ffi.List* globals, c/compat/globals/globals_container_seq.c).
 *
 * Each takes a List (borrowed; it must be a List), changes it in place,
 * visible to every holder, and leaves it exactly as it was on failure.
 * Released elements are released after the List is consistent again, so a
 * deleter that looks at the List never sees a freed element. */
#ifndef XFFI_LIST_EDIT_H
#define XFFI_LIST_EDIT_H

#include "runtime/internal.h"

/* Removes elements [begin, end) (released), 0 <= begin <= end <= length.
 * Errors: ValueError for NULL list, TypeError if it is not a List,
 * IndexError for a bad range. Never fails for lack of memory (it falls
 * back to a slower way). */
int xffi_list_erase_range(xffi_object *list, int64_t begin, int64_t end);

/* Replaces elements [begin, end) (0 <= begin <= end <= length; released)
 * with owned copies of the views items[0..count) (borrowed; items may point
 * into the List itself, they are copied before anything changes; NULL only
 * when count is 0). Errors: ValueError for NULL arguments, a negative count
 * or a malformed item; TypeError for a non-List or an item that cannot be
 * stored (an rvalue); IndexError for a bad range; MemoryError. */
int xffi_list_replace_slice(xffi_object *list, int64_t begin, int64_t end, const xffi_any *items, int64_t count);

/* Reverses the order of the elements. Errors: ValueError, TypeError. */
int xffi_list_reverse(xffi_object *list);

#endif /* XFFI_LIST_EDIT_H */
