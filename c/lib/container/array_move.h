/* c/lib/container/array_move.h: an Array made from values the caller owns, moved in
 * rather than copied (c/lib/container/array.c), for readers that collect an Array's items
 * before making it (c/lib/text/json_parse.c). Private to the library. */
#ifndef XFFI_ARRAY_MOVE_H
#define XFFI_ARRAY_MOVE_H

#include "runtime/internal.h"

/* *out receives a new Array of items[0, count) (stolen: owned values, no
 * rvalue or borrowed text; their references move into the Array, so the
 * caller drops them without releasing). On failure (MemoryError) the items
 * are released. count >= 0 is the caller's check. */
int xffi_array_new_moved(xffi_object **out, xffi_any *items, int64_t count) XFFI_INTERNAL;

#endif /* XFFI_ARRAY_MOVE_H */
