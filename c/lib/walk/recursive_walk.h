/* c/lib/walk/recursive_walk.h: what the recursive operations share (private):
 * ffi.DeepCopy (c/lib/walk/deep_copy.c), ffi.RecursiveHash (c/lib/walk/recursive_hash.c) and
 * ffi.Recursive{Eq,Lt,Le,Gt,Ge} (c/lib/walk/recursive_compare.c).
 *
 * Each walks an object graph with an explicit stack of frames on the heap,
 * never the C stack, so a 10^6-deep value costs memory, not stack. What a
 * frame walks (tvm-ffi's order): an Array's or List's elements, a Map's or
 * Dict's keys and values in insertion order, or an object's reflected
 * fields, its ancestors' first (parent to child), skipping fields with the
 * given flag bits. */
#ifndef XFFI_RECURSIVE_WALK_H
#define XFFI_RECURSIVE_WALK_H

#include <stdint.h>

#include <xffi/map.h>
#include <xffi/reflection.h>

#include "runtime/internal.h"

/* tvm-ffi's bound on the depth of these walks (kMaxTraversalStackDepth):
 * deeper values get a ValueError, not an exhausted heap. */
#define XFFI_WALK_MAX_DEPTH ((size_t)1 << 20)

/* tvm-ffi's first index after the built-in object types: types from here
 * on are "reflected" (user) types whose hooks and fields the walks use. */
#define XFFI_WALK_STATIC_OBJECT_END XFFI_TYPE_BUILTIN_END

/* ---- Values ---- */

static inline int xffi_walk_is_str(int32_t t) {
  return t == XFFI_TYPE_STRING || t == XFFI_TYPE_SMALL_STR || t == XFFI_TYPE_RAW_STR;
}
static inline int xffi_walk_is_bytes(int32_t t) {
  return t == XFFI_TYPE_BYTES || t == XFFI_TYPE_SMALL_BYTES || t == XFFI_TYPE_BYTE_ARRAY_PTR;
}

/* Whether obj (borrowed) is an instance of ffi.Enum: enum members are
 * singletons, shared by a copy. */
int xffi_walk_is_enum(const xffi_object *obj) XFFI_INTERNAL;

/* The value of type attribute `column` (the column of a name, borrowed) for
 * type_index, or NULL when the type has none (None). Lock-free. */
const xffi_any *xffi_walk_type_attr(const xffi_type_attr_column *column, int32_t type_index) XFFI_INTERNAL;

/* The column of the attribute name (a NUL-terminated literal; borrowed,
 * immortal), or NULL when no type has registered it yet. */
const xffi_type_attr_column *xffi_walk_column(const char *name) XFFI_INTERNAL;

/* Reads ahead (internal.h) the objects among n values (borrowed): a walk
 * that is about to visit them announces them together, so that their
 * first loads overlap instead of waiting one after another. */
XFFI_READ_AHEAD_FN void xffi_walk_read_ahead(const xffi_any *values, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (values[i].type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN) XFFI_READ_AHEAD(values[i].v_obj);
}

/* ---- Callbacks handed to hooks (fn_hash, fn_eq, fn_cmp) ----
 * A hook may keep the callback it is given and call it after the walk
 * ended: the Function's resource is a heap link to the walk, cleared when
 * the walk ends, so such a late call raises instead of touching a walk that
 * is gone. */

/* *out receives a new Function calling call with a link (a void ** whose
 * target is walk) as resource; *link receives the link. */
int xffi_walk_callback_new(xffi_object **out, void ***link, xffi_function_callback call, void *walk) XFFI_INTERNAL;
/* The walk a callback's resource links to, or NULL with a RuntimeError
 * "<name> was called after the walk that made it ended". */
void *xffi_walk_callback_target(void *resource, const char *name) XFFI_INTERNAL;
/* Ends the link and drops the walk's reference to fn (NULL: nothing). */
void xffi_walk_callback_end(xffi_object *fn, void **link) XFFI_INTERNAL;

/* ---- Identity tables: (object, object) -> state, word, value ----
 * Open addressing on the two addresses (linear probing, at most half
 * full). The value of an entry is owned by the table. */
typedef struct xffi_walk_entry {
  const void *a, *b;
  uint64_t word;
  xffi_any value;
  int32_t state;
} xffi_walk_entry;

typedef struct xffi_walk_table {
  xffi_walk_entry *entries;
  size_t capacity; /* a power of two, or 0 */
  size_t used;
} xffi_walk_table;

/* The entry of (a, b), or NULL. */
xffi_walk_entry *xffi_walk_table_find(const xffi_walk_table *t, const void *a, const void *b) XFFI_INTERNAL;
/* The entry of (a, b), made (state 0, value None) when new; NULL when out of
 * memory (MemoryError raised). Earlier entry pointers may move. */
xffi_walk_entry *xffi_walk_table_put(xffi_walk_table *t, const void *a, const void *b) XFFI_INTERNAL;
/* Removes the entry of (a, b), if any, releasing its value. Entry pointers
 * may move. */
void xffi_walk_table_remove(xffi_walk_table *t, const void *a, const void *b) XFFI_INTERNAL;
/* Releases every value and the storage. */
void xffi_walk_table_free(xffi_walk_table *t) XFFI_INTERNAL;

/* ---- Frames: one container or object being walked ---- */
enum { XFFI_WALK_SEQ, XFFI_WALK_MAP, XFFI_WALK_OBJECT };

typedef struct xffi_walk_frame {
  xffi_any held; /* owned */
  int32_t kind;
  int32_t type_index;
  int32_t child_owned; /* 1: child below is a reference to release */
  int64_t size;        /* elements or entries; -1 for an object (its fields are not counted) */
  int64_t position;    /* children given so far */
  /* Map: the entry being given (key, then value). */
  int64_t map_cursor;
  xffi_map_item item;
  /* Object: the next field (level 1..depth is an ancestor, depth the type itself). */
  const xffi_type_info *type;
  int32_t level, field_index;
  const xffi_field_info *field; /* the field of the last child given */
  xffi_any child;               /* the last field value read (owned when child_owned) */
} xffi_walk_frame;

/* Starts frame f on value (borrowed; an object: a container or any other
 * object, walked by its fields without those with skip_flags). Takes a
 * reference. XFFI_OK, or XFFI_FAIL (raised; f holds nothing). */
int xffi_walk_begin(xffi_walk_frame *f, const xffi_any *value, int64_t skip_flags) XFFI_INTERNAL;

/* xffi_walk_next of a Map or object frame (out of line). */
int xffi_walk_next_entry_or_field(xffi_walk_frame *f, const xffi_any **child, int64_t skip_flags) XFFI_INTERNAL;

/* *child receives the frame's next child (borrowed: valid until the next
 * call or xffi_walk_end). Returns 1, 0 when there are no more, or -1 with
 * the error raised (a field getter failed). Inline for sequences: called
 * once per element of every Array and List walked. */
static inline int xffi_walk_next(xffi_walk_frame *f, const xffi_any **child, int64_t skip_flags) {
  if (f->kind != XFFI_WALK_SEQ) return xffi_walk_next_entry_or_field(f, child, skip_flags);
  xffi_object *obj = f->held.v_obj;
  /* Re-read each time: a hook may have changed a List. */
  if (f->position >= xffi_seq_size_unchecked(obj)) return 0;
  *child = &xffi_seq_items_unchecked(obj)[f->position++];
  return 1;
}

/* Releases what the frame holds. */
void xffi_walk_end(xffi_walk_frame *f) XFFI_INTERNAL;

/* The field after (*level, *index) of type that has none of skip_flags,
 * advancing the position; NULL at the end. Start at level 1, index 0. */
const xffi_field_info *xffi_walk_next_field(const xffi_type_info *type, int32_t *level, int32_t *index,
                                            int64_t skip_flags) XFFI_INTERNAL;

/* ---- A growable array of fixed-size items (frames, hashes, values) ---- */
typedef struct xffi_walk_vec {
  char *data;
  size_t count, capacity, item_size;
} xffi_walk_vec;

/* A zeroed new last item, or NULL when out of memory (raised). */
void *xffi_walk_vec_push(xffi_walk_vec *v) XFFI_INTERNAL;
/* A new last item left as the buffer had it, for callers that set every
 * member (a frame per container: zeroing it first costs as much as
 * filling it); NULL when out of memory (raised). */
void *xffi_walk_vec_push_unset(xffi_walk_vec *v) XFFI_INTERNAL;
static inline void *xffi_walk_vec_at(const xffi_walk_vec *v, size_t i) { return v->data + i * v->item_size; }
static inline void *xffi_walk_vec_top(const xffi_walk_vec *v) { return v->data + (v->count - 1) * v->item_size; }
void xffi_walk_vec_free(xffi_walk_vec *v) XFFI_INTERNAL;

/* ValueError "<what>: maximum stack depth (1048576) exceeded". */
int xffi_walk_raise_too_deep(const char *what) XFFI_INTERNAL;

#endif /* XFFI_RECURSIVE_WALK_H */
