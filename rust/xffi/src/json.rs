//! JSON: the text format (tvm-ffi's `json.Parse`/`json.Stringify`:
//! [`json_parse`], [`json_stringify`]) and tvm-ffi's JSON graph, which
//! writes any value, objects and sharing included, as JSON and reads it back
//! ([`to_json`], [`to_json_string`], [`from_json`], [`from_json_str`]),
//! over the C functions of `xffi/json.h`.
//!
//! Every function takes its values borrowed, as anything [`KeyView`] covers:
//! [`Any`], `AnyView`, `ObjectRef<T>`, the containers, `str`, numbers.
//! Errors raised by C come back as [`Error`] with the C message.
//!
//! ```
//! use xffi::{Any, Array};
//! let a: Array<Any> = vec![Any::from(1i64), Any::from("x")].into_iter().collect();
//! let text = xffi::to_json_string(&a, &Any::none()).unwrap();
//! let back: Array<Any> = xffi::from_json_str(&text).unwrap().get().unwrap();
//! assert!(xffi::structural_equal(&a, &back).unwrap());
//! ```

use std::ptr;

use xffi_sys as sys;

use crate::any::Any;
use crate::error::{Error, Result, check};
use crate::key::{KeyView, with_two_views, with_view};
use crate::object::ObjectRef;
use crate::string::StringObj;

/// The JSON graph of `value` (borrowed; tvm-ffi's `ToJSONGraph`) as a
/// value: a Map `{"root_index": .., "nodes": [..]}` (plus `"metadata"`
/// when `metadata` is not None). Errors: TypeError for a value with no
/// graph form; ValueError for a List or Dict that contains itself.
///
/// ```
/// use xffi::Any;
/// let graph = xffi::to_json(&Any::from(5i64), &Any::none()).unwrap();
/// assert_eq!(xffi::json_stringify(&graph, 0).unwrap(),
///            r#"{"root_index":0,"nodes":[{"type":"int","data":5}]}"#);
/// ```
pub fn to_json<V, M>(value: &V, metadata: &M) -> Result<Any>
where
    V: KeyView + ?Sized,
    M: KeyView + ?Sized,
{
    with_two_views(value, metadata, |v, m| {
        let mut out = sys::xffi_any::none();
        // SAFETY: both views are valid for the call; `out` receives an owned value.
        check(unsafe { sys::xffi_to_json(&mut out, v.as_raw(), m.as_raw()) })?;
        // SAFETY: an owned value, taken once.
        Ok(unsafe { Any::from_raw(out) })
    })
}

/// The JSON graph text of `value` (borrowed; tvm-ffi's `ToJSONGraphString`),
/// with `metadata` (borrowed; None for none): the same text, and the same
/// error, as [`json_stringify`] of [`to_json`]'s result with indent 0,
/// written straight from the walk without a Map per node (about a third of
/// the time). Errors: as [`to_json`], then a node's data JSON cannot hold.
///
/// ```
/// use xffi::Any;
/// let text = xffi::to_json_string(&Any::from(5i64), &Any::none()).unwrap();
/// assert_eq!(text, r#"{"root_index":0,"nodes":[{"type":"int","data":5}]}"#);
/// assert_eq!(xffi::from_json_str(&text).unwrap().get::<i64>().unwrap(), 5);
/// ```
pub fn to_json_string<V, M>(value: &V, metadata: &M) -> Result<std::string::String>
where
    V: KeyView + ?Sized,
    M: KeyView + ?Sized,
{
    with_two_views(value, metadata, |v, m| {
        let mut out = ptr::null_mut();
        // SAFETY: both views are valid for the call; `out` receives a new String reference.
        check(unsafe { sys::xffi_to_json_text(&mut out, v.as_raw(), m.as_raw()) })?;
        // SAFETY: success gives a new reference to an ffi.String.
        let text = unsafe { ObjectRef::<StringObj>::from_raw(out) }
            .ok_or_else(|| Error::runtime_error("xffi_to_json_text succeeded with no text"))?;
        Any::from(text).get::<std::string::String>()
    })
}

/// The value a JSON graph (borrowed; as [`to_json`] or tvm-ffi's
/// `ToJSONGraph` makes it, or [`json_parse`] reads it) stands for (tvm-ffi's
/// `FromJSONGraph`); a node reached twice gives the same object. Errors:
/// ValueError or TypeError naming the node for a malformed graph.
///
/// ```
/// let graph = xffi::json_parse(r#"{"root_index":0,"nodes":[{"type":"int","data":5}]}"#).unwrap();
/// assert_eq!(xffi::from_json(&graph).unwrap().get::<i64>().unwrap(), 5);
/// ```
pub fn from_json<G: KeyView + ?Sized>(graph: &G) -> Result<Any> {
    with_view(graph, |g| {
        let mut out = sys::xffi_any::none();
        // SAFETY: the view is valid for the call; `out` receives an owned value.
        check(unsafe { sys::xffi_from_json(&mut out, g.as_raw()) })?;
        // SAFETY: an owned value, taken once.
        Ok(unsafe { Any::from_raw(out) })
    })
}

/// The value the JSON graph text `text` (borrowed) stands for (tvm-ffi's
/// `FromJSONGraphString`): the same value, or the same error, as
/// [`from_json`] of [`json_parse`]'s result, read straight from the text
/// without building a Map per node (about half the time). Errors: a syntax
/// error first (ValueError with the position), then the graph's.
///
/// ```
/// let v = xffi::from_json_str(r#"{"root_index":0,"nodes":[{"type":"int","data":5}]}"#).unwrap();
/// assert_eq!(v.get::<i64>().unwrap(), 5);
/// assert!(xffi::from_json_str(r#"{"root_index":1,"nodes":[]}"#).is_err());
/// ```
pub fn from_json_str(text: &str) -> Result<Any> {
    let mut out = sys::xffi_any::none();
    // SAFETY: a valid byte run for the call; `out` receives an owned value.
    check(unsafe { sys::xffi_from_json_text(&mut out, text.as_ptr().cast(), text.len()) })?;
    // SAFETY: an owned value, taken once.
    Ok(unsafe { Any::from_raw(out) })
}

/// The value of the JSON text `text` (borrowed; tvm-ffi's `json.Parse`,
/// RFC 8259 strictly, plus NaN and ±Infinity): objects become Maps, arrays
/// Arrays. Errors: ValueError with the position, e.g. "Expecting value:
/// line 1 column 1 (char 0)".
///
/// ```
/// let v = xffi::json_parse("[1, 2.5, \"x\"]").unwrap();
/// assert_eq!(xffi::json_stringify(&v, 0).unwrap(), "[1,2.5,\"x\"]");
/// assert!(xffi::json_parse("[1,").is_err());
/// ```
pub fn json_parse(text: &str) -> Result<Any> {
    json_parse_bytes(text.as_bytes())
}

/// [`json_parse`] of bytes (which must be valid UTF-8 in strings).
///
/// ```
/// let v = xffi::json::json_parse_bytes(b"{\"n\": 3}").unwrap();
/// assert_eq!(xffi::json_stringify(&v, 0).unwrap(), "{\"n\":3}");
/// assert!(xffi::json::json_parse_bytes(b"\"\xff\"").is_err());
/// ```
pub fn json_parse_bytes(text: &[u8]) -> Result<Any> {
    let mut out = sys::xffi_any::none();
    // SAFETY: a valid byte run; `out` receives an owned value.
    check(unsafe { sys::xffi_json_parse(&mut out, text.as_ptr().cast(), text.len()) })?;
    // SAFETY: an owned value, taken once.
    Ok(unsafe { Any::from_raw(out) })
}

/// The JSON text of `value` (borrowed; tvm-ffi's `json.Stringify`): compact
/// for `indent` 0, else one element a line, `indent` spaces deeper per
/// level. Errors: ValueError for a value JSON cannot hold, a non-string
/// map key, a List that contains itself, or an indent past `i32::MAX`.
///
/// ```
/// use xffi::{Any, Array};
/// let a: Array<Any> = vec![Any::from(1i64), Any::from("x")].into_iter().collect();
/// assert_eq!(xffi::json_stringify(&a, 0).unwrap(), "[1,\"x\"]");
/// assert_eq!(xffi::json_stringify(&a, 2).unwrap(), "[\n  1,\n  \"x\"\n]");
/// ```
pub fn json_stringify<V: KeyView + ?Sized>(value: &V, indent: usize) -> Result<std::string::String> {
    let indent = i32::try_from(indent).map_err(|_| Error::value_error("json_stringify: indent too large"))?;
    with_view(value, |v| {
        let mut out = ptr::null_mut();
        // SAFETY: the view is valid for the call; `out` receives a new String reference.
        check(unsafe { sys::xffi_json_stringify(&mut out, v.as_raw(), indent) })?;
        // SAFETY: success gives a new reference to an ffi.String.
        let text = unsafe { ObjectRef::<StringObj>::from_raw(out) }
            .ok_or_else(|| Error::runtime_error("xffi_json_stringify succeeded with no text"))?;
        Any::from(text).get::<std::string::String>()
    })
}
