/* bindings/xffi_capi.h: the C API of the Rust crate examples/mixed/xffi-capi.
 *
 * GENERATED FILE, DO NOT EDIT: written by cbindgen from the Rust sources
 * (examples/mixed/xffi-capi/src); the doc comments below are theirs. Regenerate with
 *   cbindgen --config examples/mixed/xffi-capi/cbindgen.toml --crate xffi-capi \
 *            --output bindings/xffi_capi.h examples/mixed/xffi-capi
 * scripts/test-mixed.sh fails when this file differs from what cbindgen makes.
 *
 * Conventions (those of xffi): every function that can fail returns XFFI_OK
 * (0) or XFFI_FAIL (-1) with an Error object in the calling thread's raised
 * slot (xffi_error_move_raised). Out-parameters come first. Ownership is
 * stated on every function: "new reference" (the caller releases it with
 * xffi_object_dec_ref), "borrowed" (the caller keeps its own) or "stolen".
 * A Rust panic never crosses into C: it becomes a RuntimeError
 * "<function>: Rust panic: <message>".
 *
 * Link rule: one xffi runtime per process; see examples/mixed/README.md. */

#ifndef XFFI_CAPI_H
#define XFFI_CAPI_H

/* Generated with cbindgen:0.29.4 */

#include <stdint.h>
#include <xffi/xffi.h>

/**
 * What the library has made and released since the process started.
 *
 * A `*_created` counter grows when a value is made, the matching
 * `*_dropped` counter when its Rust `Drop` runs (from the object's deleter,
 * or the Function's finalizer). Once every reference is gone the two are
 * equal; `dropped > created` would mean a deleter ran twice.
 */
typedef struct xcapi_stats {
  /**
   * Points made (by `xcapi_point_new` or by the Rust functions).
   */
  uint64_t points_created;
  /**
   * Points whose deleter ran.
   */
  uint64_t points_dropped;
  /**
   * Labels made.
   */
  uint64_t labels_created;
  /**
   * Labels whose deleter ran.
   */
  uint64_t labels_dropped;
  /**
   * Rust closures made into Function objects.
   */
  uint64_t functions_created;
  /**
   * Closures dropped (the Function's finalizer ran).
   */
  uint64_t functions_dropped;
} xcapi_stats;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * Makes the Rust function `name` into an xffi Function object. The names
 * and signatures (arguments are checked; a mismatch is a TypeError
 * "argument <i>: expected <what>, got <what came>"):
 *
 * - `distance(a: xcapi.Point, b: xcapi.Point) -> float`
 * - `path_length(points: Array of xcapi.Point) -> float` (of the polyline)
 * - `centroid(points: Array of xcapi.Point) -> xcapi.Point` (a new object;
 *   ValueError "centroid: no points" for an empty array)
 * - `scale(p: xcapi.Point, factor: float) -> xcapi.Point` (a new object)
 * - `describe(label: xcapi.Label) -> str`, e.g. `'home' at (1, 2)`
 * - `map_points(f: Function, points: Array of xcapi.Point) -> Array`:
 *   `f(p)` for each point (f may be a C function)
 *
 * `name` is borrowed. `*out` receives a new reference to the Function (the
 * closure behind it is dropped when the last reference goes); it is NULL
 * after a failure. Errors: ValueError for a NULL `out` or `name`, or a
 * `name` that is not UTF-8; KeyError "xcapi_function_new: no function
 * named '<name>' (known: distance, ...)"; MemoryError.
 *
 * # Safety
 * `out` must be NULL or valid for writing one pointer; `name` NULL or a
 * NUL-terminated string.
 */
int xcapi_function_new(xffi_object **out, const char *name);

/**
 * Registers every function of `xcapi_function_new` in the global registry
 * as `xcapi.<name>` (e.g. `xcapi.distance`), so that any code in the
 * process finds them with `xffi_function_global_lookup`.
 *
 * With `allow_override` zero, a name already taken is a ValueError (and
 * the functions registered before it stay registered); non-zero replaces
 * what was there. The registry holds the functions until
 * `xcapi_unregister_globals` (or `xffi_function_global_erase`) removes them.
 * Errors: those of `xffi_function_global_register`; MemoryError.
 */
int xcapi_register_globals(int allow_override);

/**
 * Removes the global functions `xcapi.<name>` (for every name of
 * `xcapi_function_new`) that are registered; names that are not are
 * skipped. Functions already handed out stay valid.
 * Errors: those of `xffi_function_global_erase` other than a missing name.
 */
int xcapi_unregister_globals(void);

/**
 * Makes a Point with coordinates `x` and `y`.
 *
 * `*out` receives a new reference (release it with `xffi_object_dec_ref`;
 * the last release runs the Point's deleter); it is NULL after a failure.
 * Errors: ValueError for a NULL `out`, or for an `x` or `y` that is NaN
 * or infinite; MemoryError.
 *
 * # Safety
 * `out` must be NULL or valid for writing one pointer.
 */
int xcapi_point_new(xffi_object **out, double x, double y);

/**
 * Reads the coordinates of `point` into `*out_x` and `*out_y`.
 *
 * `point` is borrowed. Errors: ValueError for a NULL `out_x`, `out_y` or
 * `point`; TypeError "xcapi_point_coords: point: expected xcapi.Point, got
 * <its type>" for another kind of object.
 *
 * # Safety
 * `out_x` and `out_y` must be NULL or valid for writing a double; `point`
 * must be NULL or a live xffi object.
 */
int xcapi_point_coords(double *out_x, double *out_y, const xffi_object *point);

/**
 * Writes the type index of `xcapi.Point` to `*out` (registering the type
 * on first use). Indices of run-time types depend on registration order:
 * look them up, never hard-code them.
 *
 * Errors: ValueError for a NULL `out`; whatever registering the type raises.
 *
 * # Safety
 * `out` must be NULL or valid for writing an `int32_t`.
 */
int xcapi_point_type_index(int32_t *out);

/**
 * Makes a Label with a copy of `text` attached to `point`.
 *
 * `text` is borrowed (copied); `point` is borrowed (the label takes its own
 * reference, released by the label's deleter). `*out` receives a new
 * reference; it is NULL after a failure.
 * Errors: ValueError for a NULL `out`, `text` or `point`, or a `text` that
 * is not UTF-8; TypeError if `point` is not an `xcapi.Point`; MemoryError.
 *
 * # Safety
 * `out` must be NULL or valid for writing one pointer; `text` NULL or a
 * NUL-terminated string; `point` NULL or a live xffi object.
 */
int xcapi_label_new(xffi_object **out, const char *text, xffi_object *point);

/**
 * Points `*out` at the text of `label`: NUL-terminated UTF-8, borrowed
 * from the label (valid while the label lives; do not free it).
 *
 * `label` is borrowed. Errors: ValueError for a NULL `out` or `label`;
 * TypeError if `label` is not an `xcapi.Label`.
 *
 * # Safety
 * `out` must be NULL or valid for writing one pointer; `label` NULL or a
 * live xffi object.
 */
int xcapi_label_text(const char **out, const xffi_object *label);

/**
 * Writes the point of `label` to `*out`.
 *
 * `label` is borrowed. `*out` receives a new reference to the point; it is
 * NULL after a failure. Errors: ValueError for a NULL `out` or `label`;
 * TypeError if `label` is not an `xcapi.Label`.
 *
 * # Safety
 * `out` must be NULL or valid for writing one pointer; `label` NULL or a
 * live xffi object.
 */
int xcapi_label_point(xffi_object **out, const xffi_object *label);

/**
 * Writes the type index of `xcapi.Label` to `*out` (registering the type
 * on first use).
 *
 * Errors: ValueError for a NULL `out`; whatever registering the type raises.
 *
 * # Safety
 * `out` must be NULL or valid for writing an `int32_t`.
 */
int xcapi_label_type_index(int32_t *out);

/**
 * Copies the counters to `*out`.
 *
 * `out`: written, owned by the caller. Errors: ValueError for a NULL `out`.
 *
 * # Safety
 * `out` must be NULL or valid for writing one `xcapi_stats`.
 */
int xcapi_stats_get(struct xcapi_stats *out);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* XFFI_CAPI_H */
