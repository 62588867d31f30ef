/* xffi/structural_visit.h: structural visitors and mutators with tvm-ffi's
 * semantics (ffi.StructuralWalk, ffi.StructuralVisit, ffi.StructuralMap,
 * ffi.StructuralMutate, ffi.VisitInterrupt).
 *
 * They walk a value by the same rules as structural equality
 * (xffi/structural.h): an Array's or List's elements, a Map's or Dict's
 * values (never its keys), an object's reflected fields, ancestors' first,
 * without those flagged XFFI_FIELD_SEQ_HASH_IGNORE. A field flagged
 * XFFI_FIELD_SEQ_HASH_DEF_PATTERN or _DEF_SIMPLE opens a definition region
 * for its value (XFFI_DEF_REGION_*; a pattern region stays one below), and a
 * free variable's own fields are outside a simple region. Callbacks see the
 * region of the value they are given.
 *
 * The default descent keeps its frames on the heap, never one C stack frame
 * per level: a 10^6-deep value walks, maps and mutates with bounded stack
 * (past 2^20 levels a ValueError). A callback that recurses itself
 * (xffi_structural_visitor_visit, xffi_structural_mutator_mutate) uses the C
 * stack for its own nesting only.
 *
 * A visitor or mutator object is valid while the walk that made it runs;
 * one kept past it raises RuntimeError when used. */
#ifndef XFFI_STRUCTURAL_VISIT_H
#define XFFI_STRUCTURAL_VISIT_H

#include <stdint.h>
#include <xffi/any.h>
#include <xffi/export.h>

XFFI_EXTERN_C_BEGIN

/* Where a walk or map calls its callback (tvm-ffi's WalkOrder). */
enum { XFFI_STRUCTURAL_PREORDER = 0, XFFI_STRUCTURAL_POSTORDER = 1 };

/* What a walk callback asks for (tvm-ffi's WalkResult): go on into the
 * value's children, or leave them out. */
enum { XFFI_STRUCTURAL_ADVANCE = 0, XFFI_STRUCTURAL_SKIP = 1 };

/* Whether a value may be changed in place (tvm-ffi's InplaceMode): only when
 * the walk owns the only reference to it. */
enum { XFFI_STRUCTURAL_INPLACE_DISALLOW = 0, XFFI_STRUCTURAL_INPLACE_ALLOW = 1 };

/* The definition region a value is in (tvm-ffi's TVMFFIDefRegionKind). */
enum { XFFI_DEF_REGION_NONE = 0, XFFI_DEF_REGION_PATTERN = 1, XFFI_DEF_REGION_SIMPLE = 2 };

/* What a map or mutate callback returns when it does not handle the value
 * (then the default descent does); XFFI_OK when it does, XFFI_FAIL with the
 * error raised. */
#define XFFI_STRUCTURAL_DECLINED 1

/* ---- ffi.VisitInterrupt: stops a walk, carrying a payload ---- */

/* *out receives a new ffi.VisitInterrupt (owned by the caller) holding a
 * copy of value (borrowed; None for no payload). Errors: ValueError for NULL
 * arguments; TypeError for a value that cannot be stored (an rvalue);
 * MemoryError. */
XFFI_API int xffi_visit_interrupt_new(xffi_object **out, const xffi_any *value);

/* *out receives the payload of interrupt (borrowed): a new reference.
 * Errors: ValueError for NULL arguments; TypeError when interrupt is not an
 * ffi.VisitInterrupt. */
XFFI_API int xffi_visit_interrupt_value(xffi_any *out, const xffi_object *interrupt);

/* ---- Walk: a callback at every value, before or after its children ---- */

/* Called with value (borrowed, valid during the call) and the region it is
 * in. Writes to *result (owned by the walk; starts None): None or an int
 * XFFI_STRUCTURAL_ADVANCE to go on, XFFI_STRUCTURAL_SKIP to leave the
 * value's children out (pre-order only), or a new reference to an
 * ffi.VisitInterrupt to stop. Returns XFFI_OK (XFFI_STRUCTURAL_DECLINED
 * means advance) or XFFI_FAIL with the error raised. */
typedef int (*xffi_structural_walk_callback)(void *resource, const xffi_any *value, int32_t def_region,
                                             xffi_any *result);

/* Walks root (borrowed) as a tree (a value reached twice is walked twice;
 * None is not given to the callback), calling callback with resource
 * (borrowed) at each value in order (XFFI_STRUCTURAL_PREORDER/POSTORDER).
 * *out receives None when the walk completed, or the ffi.VisitInterrupt a
 * callback returned (a new reference). Errors: ValueError for NULL
 * arguments, a bad order or a value nested too deep; TypeError for a
 * callback result of another kind; whatever a callback or a field getter
 * raises (the walk stops there; *out is None). */
XFFI_API int xffi_structural_walk(xffi_any *out, const xffi_any *root, int32_t order,
                                  xffi_structural_walk_callback callback, void *resource);

/* ---- Visit: the callback owns the descent ---- */

/* Called with visitor (borrowed; an ffi.StructuralVisitor) and value
 * (borrowed). Returns XFFI_STRUCTURAL_DECLINED to let the default descent
 * visit the value's children; XFFI_OK having written None (go on; the
 * children are visited only if the callback did it through visitor) or a
 * new reference to an ffi.VisitInterrupt (stop) to *result; XFFI_FAIL with
 * the error raised. */
typedef int (*xffi_structural_visit_callback)(void *resource, xffi_object *visitor, const xffi_any *value,
                                              xffi_any *result);

/* Visits root (borrowed) with callback: *out receives None, or the
 * ffi.VisitInterrupt that stopped the visit (a new reference). Errors: as
 * xffi_structural_walk. */
XFFI_API int xffi_structural_visit(xffi_any *out, const xffi_any *root, xffi_structural_visit_callback callback,
                                   void *resource);

/* From inside a callback: visits value (borrowed) with the same callback
 * (visit), or its children (default_visit: the callback is not called for
 * value itself). *out: None or an ffi.VisitInterrupt (new reference).
 * Errors: RuntimeError for a visitor whose visit ended; as
 * xffi_structural_visit. */
XFFI_API int xffi_structural_visitor_visit(xffi_any *out, xffi_object *visitor, const xffi_any *value);
XFFI_API int xffi_structural_visitor_default_visit(xffi_any *out, xffi_object *visitor, const xffi_any *value);

/* *out receives the visitor's (borrowed) current XFFI_DEF_REGION_*. */
XFFI_API int xffi_structural_visitor_def_region(int32_t *out, const xffi_object *visitor);

/* Calls function (borrowed; no arguments) with the visitor's region set to
 * kind (unless the current one is a pattern region, which stays), then
 * restores it. *out receives the function's result (owned). */
XFFI_API int xffi_structural_visitor_with_def_region(xffi_any *out, xffi_object *visitor, int32_t kind,
                                                     xffi_object *function);

/* ---- Map: replace values, rebuilding what changed ---- */

/* Called with value (borrowed) and its region. Returns
 * XFFI_STRUCTURAL_DECLINED when it does not apply to value; XFFI_OK having
 * written the replacement (a new reference; value itself to keep it) to
 * *result; XFFI_FAIL with the error raised. */
typedef int (*xffi_structural_map_callback)(void *resource, const xffi_any *value, int32_t def_region,
                                            xffi_any *result);

/* Maps *root (stolen: the map owns it; *root is None after the call) with
 * callback at each value (XFFI_STRUCTURAL_PREORDER: the callback's result
 * is then descended; POSTORDER: the callback gets the value with its
 * children mapped), tvm-ffi's StructuralMap: a container or object whose
 * children did not change is kept (the same object); one that did is
 * copied with the new children (objects through their type's
 * `__ffi_shallow_copy__` and field setters), or changed in place when the
 * map owns the only reference to it (so pass a new reference to keep the
 * original intact). A free variable or DAG node is mapped once by the
 * default descent and its result reused; callbacks run at every
 * occurrence. Each child is read when the descent reaches it, so an item
 * a callback writes ahead is seen; a callback that changes the size (or,
 * of a Dict, the keys) of a List or Dict whose children are being mapped
 * makes the map raise ValueError ("a callback changed the size of the
 * ffi.List being mapped from 4 to 0 items") when that container's children
 * are done. *out receives the result (owned). Errors: ValueError for NULL
 * arguments, a bad order, a value nested too deep or a container changed
 * as above; TypeError for an object that changed but cannot be copied or
 * set; whatever a callback raises. On error *out is None, the root is released (it is taken over
 * on every path) and nothing half-built is left. */
XFFI_API int xffi_structural_map(xffi_any *out, xffi_any *root, int32_t order, xffi_structural_map_callback callback,
                                 void *resource);

/* ---- Mutate: the callback owns the recursion ---- */

/* Called with mutator (borrowed; an ffi.StructuralMutator), value
 * (borrowed) and XFFI_STRUCTURAL_INPLACE_ALLOW when the value is uniquely
 * owned along its path (else _DISALLOW). Returns XFFI_STRUCTURAL_DECLINED to
 * use the default descent; XFFI_OK having written the final result (a new
 * reference; not descended again) to *result; XFFI_FAIL with the error
 * raised. */
typedef int (*xffi_structural_mutate_callback)(void *resource, xffi_object *mutator, const xffi_any *value,
                                               int32_t inplace_mode, xffi_any *result);

/* Mutates *root (stolen, as xffi_structural_map) with callback, tvm-ffi's
 * StructuralMutate. *out receives the result (owned). Errors: as
 * xffi_structural_map. */
XFFI_API int xffi_structural_mutate(xffi_any *out, xffi_any *root, xffi_structural_mutate_callback callback,
                                    void *resource);

/* From inside a callback: mutates value (borrowed) with the same callback
 * (mutate) or by its default descent (default_mutate), never in place.
 * *out receives the result (owned; value itself when nothing changed).
 * Errors: RuntimeError for a mutator whose walk ended; as
 * xffi_structural_mutate. */
XFFI_API int xffi_structural_mutator_mutate(xffi_any *out, xffi_object *mutator, const xffi_any *value);
XFFI_API int xffi_structural_mutator_default_mutate(xffi_any *out, xffi_object *mutator, const xffi_any *value);

/* The mutator's variable remap: *out receives the replacement recorded for
 * var (borrowed; an object), a new reference, or None when there is none;
 * _set records mapped (borrowed, copied) for var. TypeError for a var that
 * is not an object. */
XFFI_API int xffi_structural_mutator_var_remap_get(xffi_any *out, xffi_object *mutator, const xffi_any *var);
XFFI_API int xffi_structural_mutator_var_remap_set(xffi_object *mutator, const xffi_any *var, const xffi_any *mapped);

/* As the visitor's (mutator borrowed). */
XFFI_API int xffi_structural_mutator_def_region(int32_t *out, const xffi_object *mutator);
XFFI_API int xffi_structural_mutator_with_def_region(xffi_any *out, xffi_object *mutator, int32_t kind,
                                                     xffi_object *function);

/* ---- ffi.VisitErrorContext: where in a value an error came from ----
 *
 * An error that comes out of a walk, visit, map or mutate carries, as its
 * extra_context, an ffi.VisitErrorContext (tvm-ffi's) naming the objects
 * the walk was inside, innermost first: its field reverse_visit_pattern
 * (a List) holds the value whose callback, hook or descent failed, then
 * each enclosing object up to the root (values that are not objects are
 * left out). An extra_context the error had already is kept in the
 * context's prev_error_context. xffi_visit_error_context_find_paths turns
 * the record into access paths from a root. */

/* *out receives the ffi.VisitErrorContext attached to err (an Error,
 * borrowed) as a new reference, or NULL when it has none (no extra_context,
 * or one of another type). Errors: ValueError for NULL arguments; TypeError
 * when err is not an ffi.Error. */
XFFI_API int xffi_visit_error_context_of(xffi_object **out, xffi_object *err);

/* tvm-ffi's VisitErrorContext::FindAccessPaths. *out receives a new Array
 * of ffi.reflection.AccessPath: the paths from root (borrowed; any value)
 * to the objects where context's (borrowed; an ffi.VisitErrorContext)
 * pattern ends. The pattern, read outermost entry first with runs of one
 * object and non-objects dropped, must occur along a path as a subsequence
 * of the objects met (a reflected object's fields, ancestors' first, then
 * an Array's or List's items, a Map's or Dict's values; None skipped;
 * containers are passed through, never matched; an object of a type
 * without reflection metadata is neither matched nor entered). A path
 * that matched it all ends there. With allow_prefix_match (non-zero), a
 * reflected object below the root with part of the pattern matched on its
 * path and no result under it is reported too. Depth costs heap, not
 * stack; a List, Dict or object that holds itself is followed to the 2^20
 * bound and refused there (tvm-ffi recurses without end). Errors:
 * ValueError for NULL arguments or a value nested deeper than 2^20 (such a
 * cycle); TypeError when
 * context is not an ffi.VisitErrorContext; what a field getter raises;
 * MemoryError. On error *out is None. */
XFFI_API int xffi_visit_error_context_find_paths(xffi_any *out, const xffi_any *root, const xffi_object *context,
                                                 int allow_prefix_match);

XFFI_EXTERN_C_END

#endif /* XFFI_STRUCTURAL_VISIT_H */
