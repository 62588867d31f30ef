/* c/lib/walk/structural_visit_object.h: what the structural walks (c/lib/walk/structural_visit.c)
 * and maps (c/lib/walk/structural_mutate.c) share (private): the ffi.StructuralVisitor
 * and ffi.StructuralMutator objects handed to callbacks, and the
 * definition-region rules of their descent. */
#ifndef XFFI_STRUCTURAL_VISIT_OBJECT_H
#define XFFI_STRUCTURAL_VISIT_OBJECT_H

#include <xffi/structural_visit.h>

#include "runtime/internal.h"
#include "lib/walk/recursive_walk.h"

/* A visitor or mutator: a link to the engine running it. The engine clears
 * it when its walk ends, so a callback that kept the object gets an error,
 * not a dangling engine. Its first members are those of tvm-ffi's
 * StructuralVisitorObj and StructuralMutatorObj (the header, the table of the
 * walker's functions, the definition region), so that a type's native hook
 * (an `__s_visit__` registered as an opaque pointer, as C++ types built
 * with tvm-ffi's headers register it) can be handed the visitor. */
typedef struct structural_engine_link {
  xffi_object header;
  const void *table;       /* the walker's functions for native hooks (visit, or mutate's four) */
  int32_t def_region_kind; /* the region of the value a native hook was called on */
  void *engine;            /* borrowed; NULL once the walk ended */
} structural_engine_link;

/* *out receives a new link object of the runtime type type_key
 * ("ffi.StructuralVisitor" or "ffi.StructuralMutator") to engine. */
int xffi_structural_link_new(xffi_object **out, const char *type_key, void *engine) XFFI_INTERNAL;

/* *out receives a new link of type_index (ffi.StructuralVisitor or
 * ffi.StructuralMutator) with the table and region of src (borrowed, of
 * that type or derived from it), as tvm-ffi's copy constructor makes it,
 * and no walk: a copy used as a walker gets the error of a walk that has
 * ended. Errors: MemoryError. */
int xffi_structural_link_copy(xffi_object **out, const xffi_object *src, int32_t type_index) XFFI_INTERNAL;

/* The engine behind link (borrowed), or NULL with an error raised naming fn:
 * TypeError for another kind of object, RuntimeError after its walk. */
void *xffi_structural_link_engine(const xffi_object *link, const char *type_key, const char *fn) XFFI_INTERNAL;

/* tvm-ffi's WithDefRegionKind: the region a scope asking for kind gets when
 * the current one is current (a pattern region is never left). */
static inline int32_t xffi_structural_scoped_region(int32_t current, int32_t kind) {
  return current == XFFI_DEF_REGION_PATTERN ? current : kind;
}

/* Calls function (borrowed, no arguments) into *out with *region set as
 * xffi_structural_scoped_region says, then restores it. */
int xffi_structural_call_in_region(xffi_any *out, int32_t *region, int32_t kind, xffi_object *function,
                                   const char *fn) XFFI_INTERNAL;

/* The region an object's own fields start in when the object is met in
 * region (a free variable's fields are not in its simple definition). */
int32_t xffi_structural_fields_region(const xffi_object *obj, int32_t region) XFFI_INTERNAL;

/* Whether a and b (borrowed) are the same value: the same object, or the
 * same bits of a plain value. */
static inline int xffi_structural_same(const xffi_any *a, const xffi_any *b) {
  return a->type_index == b->type_index && a->small_len == b->small_len && a->v_int64 == b->v_int64;
}

#endif /* XFFI_STRUCTURAL_VISIT_OBJECT_H */
