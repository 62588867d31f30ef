/* c/recursive_walk_step.h: xffi_walk_next with the Map case inline too
 * (private), for the walks whose cost is a frame per container: structural
 * equality and hashing, deep copy. A header of its own because it needs
 * the Map's layout (c/map_table.h), which the other users of
 * c/recursive_walk.h do not see. */
#ifndef XFFI_RECURSIVE_WALK_STEP_H
#define XFFI_RECURSIVE_WALK_STEP_H

#include "map_table.h"
#include "recursive_walk.h"

/* As xffi_walk_next: *child (borrowed, valid until the next call or
 * xffi_walk_end) is the frame's next child; 1, 0 at the end, -1 raised. */
static inline int xffi_walk_step(xffi_walk_frame *f, const xffi_any **child, int64_t skip_flags) {
  if (f->kind != XFFI_WALK_MAP) return xffi_walk_next(f, child, skip_flags);
  if ((f->position & 1) == 0) {
    map_step(&f->item, map_of(f->held.v_obj), &f->map_cursor); /* the frame's own Map: checked at the start */
    if (!f->item.key) return 0;
    *child = f->item.key;
  } else {
    *child = f->item.value;
  }
  ++f->position;
  return 1;
}

#endif /* XFFI_RECURSIVE_WALK_STEP_H */
