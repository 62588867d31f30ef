//! The Rust functions of the library, handed to C as xffi Function objects
//! (`xcapi_function_new`) or through the global registry
//! (`xcapi_register_globals`).

use std::ffi::{c_char, c_int};

use xffi::sys::xffi_object;
use xffi::{Any, AnyView, Array, Error, ErrorKind, Function, ObjectRef, Result};

use crate::boundary::{boundary, out_slot, str_arg};
use crate::objects::{Label, Point};
use crate::stats::{FUNCTIONS_CREATED, FUNCTIONS_DROPPED, bump, clear_out};

pub(crate) const NAMES: [&str; 6] = ["distance", "path_length", "centroid", "scale", "describe", "map_points"];

/// Lives inside each closure made into a Function: counts the closure when
/// made and when the Function's finalizer drops it.
struct Tracked;

impl Tracked {
    fn new() -> Tracked {
        bump(&FUNCTIONS_CREATED);
        Tracked
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        bump(&FUNCTIONS_DROPPED);
    }
}

fn path_length(points: &Array<ObjectRef<Point>>) -> Result<f64> {
    let mut total = 0.0;
    let mut prev: Option<ObjectRef<Point>> = None;
    for p in points.iter() {
        let p = p?;
        if let Some(q) = &prev {
            total += q.distance(&p);
        }
        prev = Some(p);
    }
    Ok(total)
}

/// Makes the Rust function `name` into a Function, or None for an unknown name.
fn make(name: &str) -> Result<Option<Function>> {
    if !NAMES.contains(&name) {
        return Ok(None);
    }
    let t = Tracked::new();
    let f = match name {
        // distance(a: Point, b: Point) -> float
        "distance" => Function::from_typed(move |a: ObjectRef<Point>, b: ObjectRef<Point>| {
            let _ = &t;
            Ok(a.distance(&b))
        }),
        // path_length(points: Array of Point) -> float: the length of the polyline.
        "path_length" => Function::from_typed(move |points: Array<ObjectRef<Point>>| {
            let _ = &t;
            path_length(&points)
        }),
        // centroid(points: Array of Point) -> Point (a new Rust object).
        "centroid" => Function::from_typed(move |points: Array<ObjectRef<Point>>| {
            let _ = &t;
            if points.is_empty() {
                return Err(Error::value_error("centroid: no points"));
            }
            let n = points.len() as f64;
            let (mut sx, mut sy) = (0.0, 0.0);
            for p in points.iter() {
                let p = p?;
                (sx, sy) = (sx + p.x(), sy + p.y());
            }
            Point::new_object(sx / n, sy / n)
        }),
        // scale(p: Point, factor: float) -> Point (a new Rust object).
        "scale" => Function::from_typed(move |p: ObjectRef<Point>, factor: f64| {
            let _ = &t;
            Point::new_object(p.x() * factor, p.y() * factor)
        }),
        // describe(label: Label) -> str
        "describe" => Function::from_typed(move |l: ObjectRef<Label>| {
            let _ = &t;
            let p = l.point();
            Ok(format!("'{}' at ({}, {})", l.text(), p.x(), p.y()))
        }),
        // map_points(f: Function, points: Array of Point) -> Array: f(p) for
        // each point, in order; the first error f raises is passed on.
        "map_points" => Function::from_typed(move |f: Function, points: Array<ObjectRef<Point>>| {
            let _ = &t;
            let results = points.iter().map(|p| f.call(&[AnyView::object(&p?)])).collect::<Result<Vec<Any>>>()?;
            Array::from_vec(results)
        }),
        _ => unreachable!("every name in NAMES has a function"),
    };
    f.map(Some)
}

/// Makes the Rust function `name` into an xffi Function object. The names
/// and signatures (arguments are checked; a mismatch is a TypeError
/// "argument <i>: expected <what>, got <what came>"):
///
/// - `distance(a: xcapi.Point, b: xcapi.Point) -> float`
/// - `path_length(points: Array of xcapi.Point) -> float` (of the polyline)
/// - `centroid(points: Array of xcapi.Point) -> xcapi.Point` (a new object;
///   ValueError "centroid: no points" for an empty array)
/// - `scale(p: xcapi.Point, factor: float) -> xcapi.Point` (a new object)
/// - `describe(label: xcapi.Label) -> str`, e.g. `'home' at (1, 2)`
/// - `map_points(f: Function, points: Array of xcapi.Point) -> Array`:
///   `f(p)` for each point (f may be a C function)
///
/// `name` is borrowed. `*out` receives a new reference to the Function (the
/// closure behind it is dropped when the last reference goes); it is NULL
/// after a failure. Errors: ValueError for a NULL `out` or `name`, or a
/// `name` that is not UTF-8; KeyError "xcapi_function_new: no function
/// named '<name>' (known: distance, ...)"; MemoryError.
///
/// # Safety
/// `out` must be NULL or valid for writing one pointer; `name` NULL or a
/// NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xcapi_function_new(out: *mut *mut xffi_object, name: *const c_char) -> c_int {
    const F: &str = "xcapi_function_new";
    // SAFETY: the caller's contract: out is NULL or valid for writing one pointer.
    unsafe { clear_out(out) };
    boundary(F, || {
        // SAFETY: the caller's contract: out is NULL or valid for writes.
        let out = unsafe { out_slot(F, "out", out, "a pointer to an xffi_object * to receive the Function") }?;
        // SAFETY: the caller's contract: name is NULL or a NUL-terminated string alive for the call.
        let name = unsafe { str_arg(F, "name", name) }?;
        match make(name)? {
            Some(f) => {
                *out = f.into_object().into_raw();
                Ok(())
            }
            None => Err(Error::new(
                ErrorKind::KeyError,
                &format!("{F}: no function named '{name}' (known: {})", NAMES.join(", ")),
            )),
        }
    })
}

/// Registers every function of `xcapi_function_new` in the global registry
/// as `xcapi.<name>` (e.g. `xcapi.distance`), so that any code in the
/// process finds them with `xffi_function_global_lookup`.
///
/// With `allow_override` zero, a name already taken is a ValueError (and
/// the functions registered before it stay registered); non-zero replaces
/// what was there. The registry holds the functions until
/// `xcapi_unregister_globals` (or `xffi_function_global_erase`) removes them.
/// Errors: those of `xffi_function_global_register`; MemoryError.
#[unsafe(no_mangle)]
pub extern "C" fn xcapi_register_globals(allow_override: c_int) -> c_int {
    const F: &str = "xcapi_register_globals";
    boundary(F, || {
        for name in NAMES {
            let f = make(name)?.expect("every name in NAMES is known");
            f.register_global(&format!("xcapi.{name}"), allow_override != 0).map_err(|e| e.context(F))?;
        }
        Ok(())
    })
}

/// Removes the global functions `xcapi.<name>` (for every name of
/// `xcapi_function_new`) that are registered; names that are not are
/// skipped. Functions already handed out stay valid.
/// Errors: those of `xffi_function_global_erase` other than a missing name.
#[unsafe(no_mangle)]
pub extern "C" fn xcapi_unregister_globals() -> c_int {
    const F: &str = "xcapi_unregister_globals";
    boundary(F, || {
        for name in NAMES {
            // Remove, and treat "not registered" as done: a look-up first
            // would race with another thread removing the same name.
            match Function::remove_global(&format!("xcapi.{name}")) {
                Err(e) if e.kind() == ErrorKind::KeyError => {}
                other => other?,
            }
        }
        Ok(())
    })
}
