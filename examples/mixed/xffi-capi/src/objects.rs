//! The Rust-defined object types, [`Point`] and [`Label`], and the C
//! functions that make and read them.

use std::ffi::{CString, c_char, c_int};

use xffi::sys::xffi_object;
use xffi::{Error, ObjectRef, Result, RustObject, object_type};

use crate::boundary::{boundary, object_arg, out_slot, str_arg};
use crate::stats::{LABELS_CREATED, LABELS_DROPPED, POINTS_CREATED, POINTS_DROPPED, bump, clear_out};

/// A point in the plane (type key `xcapi.Point`): two finite coordinates,
/// immutable once made.
#[derive(Debug)]
pub struct Point {
    x: f64,
    y: f64,
}
object_type!(Point, "xcapi.Point");

impl Point {
    /// Makes a Point object. Errors: ValueError for a coordinate that is
    /// NaN or infinite; MemoryError.
    ///
    /// ```
    /// let p = xffi_capi::Point::new_object(1.0, 2.0).unwrap();
    /// assert_eq!((p.x(), p.y()), (1.0, 2.0));
    /// let err = xffi_capi::Point::new_object(f64::NAN, 0.0).unwrap_err();
    /// assert_eq!(err.message(), "point coordinates must be finite, got (NaN, 0)");
    /// ```
    pub fn new_object(x: f64, y: f64) -> Result<ObjectRef<Point>> {
        if !x.is_finite() || !y.is_finite() {
            return Err(Error::value_error(&format!("point coordinates must be finite, got ({x}, {y})")));
        }
        bump(&POINTS_CREATED);
        ObjectRef::new(Point { x, y })
    }

    /// The x coordinate.
    pub fn x(&self) -> f64 {
        self.x
    }

    /// The y coordinate.
    pub fn y(&self) -> f64 {
        self.y
    }

    /// The Euclidean distance to `other`.
    ///
    /// ```
    /// let a = xffi_capi::Point::new_object(0.0, 0.0).unwrap();
    /// let b = xffi_capi::Point::new_object(3.0, 4.0).unwrap();
    /// assert_eq!(a.distance(&b), 5.0);
    /// ```
    pub fn distance(&self, other: &Point) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }
}

impl Drop for Point {
    fn drop(&mut self) {
        bump(&POINTS_DROPPED);
    }
}

/// A text attached to a [`Point`] (type key `xcapi.Label`). It holds a
/// strong reference to its point, released when the label's deleter runs.
#[derive(Debug)]
pub struct Label {
    text: CString,
    point: ObjectRef<Point>,
}
object_type!(Label, "xcapi.Label");

impl Label {
    /// Makes a Label object holding a new reference to `point`. Errors:
    /// ValueError for a text with a NUL byte; MemoryError.
    ///
    /// ```
    /// let p = xffi_capi::Point::new_object(1.0, 2.0).unwrap();
    /// let l = xffi_capi::Label::new_object("home", &p).unwrap();
    /// assert_eq!(l.text(), "home");
    /// assert!(l.point().ptr_eq(&p));
    /// ```
    pub fn new_object(text: &str, point: &ObjectRef<Point>) -> Result<ObjectRef<Label>> {
        let text = CString::new(text)?;
        bump(&LABELS_CREATED);
        ObjectRef::new(Label { text, point: point.clone() })
    }

    /// The text.
    pub fn text(&self) -> &str {
        // Made from a &str, so valid UTF-8.
        self.text.to_str().unwrap_or_default()
    }

    /// The point (borrowed from the label).
    pub fn point(&self) -> &ObjectRef<Point> {
        &self.point
    }
}

impl Drop for Label {
    fn drop(&mut self) {
        bump(&LABELS_DROPPED);
    }
}

fn check_finite(func: &str, arg: &str, v: f64) -> Result<()> {
    if v.is_finite() { Ok(()) } else { Err(Error::value_error(&format!("{func}: {arg} must be finite, got {v}"))) }
}

/// Makes a Point with coordinates `x` and `y`.
///
/// `*out` receives a new reference (release it with `xffi_object_dec_ref`;
/// the last release runs the Point's deleter); it is NULL after a failure.
/// Errors: ValueError for a NULL `out`, or for an `x` or `y` that is NaN
/// or infinite; MemoryError.
///
/// # Safety
/// `out` must be NULL or valid for writing one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xcapi_point_new(out: *mut *mut xffi_object, x: f64, y: f64) -> c_int {
    const F: &str = "xcapi_point_new";
    // SAFETY: the caller's contract: out is NULL or valid for writing one pointer.
    unsafe { clear_out(out) };
    boundary(F, || {
        // SAFETY: the caller's contract: out is NULL or valid for writes.
        let out = unsafe { out_slot(F, "out", out, "a pointer to an xffi_object * to receive the new Point") }?;
        check_finite(F, "x", x)?;
        check_finite(F, "y", y)?;
        *out = Point::new_object(x, y)?.into_raw();
        Ok(())
    })
}

/// Reads the coordinates of `point` into `*out_x` and `*out_y`.
///
/// `point` is borrowed. Errors: ValueError for a NULL `out_x`, `out_y` or
/// `point`; TypeError "xcapi_point_coords: point: expected xcapi.Point, got
/// <its type>" for another kind of object.
///
/// # Safety
/// `out_x` and `out_y` must be NULL or valid for writing a double; `point`
/// must be NULL or a live xffi object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xcapi_point_coords(out_x: *mut f64, out_y: *mut f64, point: *const xffi_object) -> c_int {
    const F: &str = "xcapi_point_coords";
    boundary(F, || {
        // SAFETY: the caller's contract: out_x is NULL or valid for writes.
        let out_x = unsafe { out_slot(F, "out_x", out_x, "a pointer to a double to receive x") }?;
        // SAFETY: the caller's contract: out_y is NULL or valid for writes.
        let out_y = unsafe { out_slot(F, "out_y", out_y, "a pointer to a double to receive y") }?;
        // SAFETY: the caller's contract: point is NULL or a live xffi object, borrowed for the call.
        let point = unsafe { object_arg::<Point>(F, "point", point) }?;
        *out_x = point.x;
        *out_y = point.y;
        Ok(())
    })
}

/// Writes the type index of `xcapi.Point` to `*out` (registering the type
/// on first use). Indices of run-time types depend on registration order:
/// look them up, never hard-code them.
///
/// Errors: ValueError for a NULL `out`; whatever registering the type raises.
///
/// # Safety
/// `out` must be NULL or valid for writing an `int32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xcapi_point_type_index(out: *mut i32) -> c_int {
    const F: &str = "xcapi_point_type_index";
    boundary(F, || {
        // SAFETY: the caller's contract: out is NULL or valid for writes.
        let out = unsafe { out_slot(F, "out", out, "a pointer to an int32_t to receive the type index") }?;
        *out = Point::try_type_index()?;
        Ok(())
    })
}

/// Makes a Label with a copy of `text` attached to `point`.
///
/// `text` is borrowed (copied); `point` is borrowed (the label takes its own
/// reference, released by the label's deleter). `*out` receives a new
/// reference; it is NULL after a failure.
/// Errors: ValueError for a NULL `out`, `text` or `point`, or a `text` that
/// is not UTF-8; TypeError if `point` is not an `xcapi.Point`; MemoryError.
///
/// # Safety
/// `out` must be NULL or valid for writing one pointer; `text` NULL or a
/// NUL-terminated string; `point` NULL or a live xffi object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xcapi_label_new(
    out: *mut *mut xffi_object,
    text: *const c_char,
    point: *mut xffi_object,
) -> c_int {
    const F: &str = "xcapi_label_new";
    // SAFETY: the caller's contract: out is NULL or valid for writing one pointer.
    unsafe { clear_out(out) };
    boundary(F, || {
        // SAFETY: the caller's contract: out is NULL or valid for writes.
        let out = unsafe { out_slot(F, "out", out, "a pointer to an xffi_object * to receive the new Label") }?;
        // SAFETY: the caller's contract: text is NULL or a NUL-terminated string alive for the call.
        let text = unsafe { str_arg(F, "text", text) }?;
        // SAFETY: the caller's contract: point is NULL or a live xffi object, borrowed for the call.
        let point = unsafe { object_arg::<Point>(F, "point", point) }?;
        *out = Label::new_object(text, &point)?.into_raw();
        Ok(())
    })
}

/// Points `*out` at the text of `label`: NUL-terminated UTF-8, borrowed
/// from the label (valid while the label lives; do not free it).
///
/// `label` is borrowed. Errors: ValueError for a NULL `out` or `label`;
/// TypeError if `label` is not an `xcapi.Label`.
///
/// # Safety
/// `out` must be NULL or valid for writing one pointer; `label` NULL or a
/// live xffi object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xcapi_label_text(out: *mut *const c_char, label: *const xffi_object) -> c_int {
    const F: &str = "xcapi_label_text";
    if !out.is_null() {
        // SAFETY: non-NULL out is valid for writes (the caller's contract).
        unsafe { *out = std::ptr::null() };
    }
    boundary(F, || {
        // SAFETY: the caller's contract: out is NULL or valid for writes.
        let out = unsafe { out_slot(F, "out", out, "a pointer to a const char * to receive the text") }?;
        // SAFETY: the caller's contract: label is NULL or a live xffi object, borrowed for the call.
        let label = unsafe { object_arg::<Label>(F, "label", label) }?;
        // The text lives in the object, not in this reference: it stays
        // valid after `label` (a second reference) is dropped here.
        *out = label.text.as_ptr();
        Ok(())
    })
}

/// Writes the point of `label` to `*out`.
///
/// `label` is borrowed. `*out` receives a new reference to the point; it is
/// NULL after a failure. Errors: ValueError for a NULL `out` or `label`;
/// TypeError if `label` is not an `xcapi.Label`.
///
/// # Safety
/// `out` must be NULL or valid for writing one pointer; `label` NULL or a
/// live xffi object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xcapi_label_point(out: *mut *mut xffi_object, label: *const xffi_object) -> c_int {
    const F: &str = "xcapi_label_point";
    // SAFETY: the caller's contract: out is NULL or valid for writing one pointer.
    unsafe { clear_out(out) };
    boundary(F, || {
        // SAFETY: the caller's contract: out is NULL or valid for writes.
        let out = unsafe { out_slot(F, "out", out, "a pointer to an xffi_object * to receive the point") }?;
        // SAFETY: the caller's contract: label is NULL or a live xffi object, borrowed for the call.
        let label = unsafe { object_arg::<Label>(F, "label", label) }?;
        *out = label.point.clone().into_raw();
        Ok(())
    })
}

/// Writes the type index of `xcapi.Label` to `*out` (registering the type
/// on first use).
///
/// Errors: ValueError for a NULL `out`; whatever registering the type raises.
///
/// # Safety
/// `out` must be NULL or valid for writing an `int32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xcapi_label_type_index(out: *mut i32) -> c_int {
    const F: &str = "xcapi_label_type_index";
    boundary(F, || {
        // SAFETY: the caller's contract: out is NULL or valid for writes.
        let out = unsafe { out_slot(F, "out", out, "a pointer to an int32_t to receive the type index") }?;
        *out = Label::try_type_index()?;
        Ok(())
    })
}
