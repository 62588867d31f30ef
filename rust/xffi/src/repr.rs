//! The text of a value: [`repr`] (tvm-ffi's ReprPrint, through the C
//! printer) and the `Debug` of [`Any`], [`AnyView`] and [`ObjectRef<T>`],
//! which print objects with it. These impls live here, not beside their
//! types, because printing an object needs the String type and the C
//! printer, which sit above the object and Any modules.

use std::fmt;
use std::ptr;

use xffi_sys as sys;

use crate::any::{Any, AnyView};
use crate::error::{Error, Result, check};
use crate::object::{ObjectRef, ObjectType, type_key_of};
use crate::string::StringObj;

/// The text of `value` in tvm-ffi's ReprPrint format (what Python's
/// `repr` and `ffi.ReprPrint` show): reflected objects by their fields,
/// containers by their elements, sharing and cycles marked, bounded in
/// depth and size. Errors: what a field getter or `__ffi_repr__` raises.
///
/// ```
/// assert_eq!(xffi::reflect::repr(&xffi::Any::from(3i64).view()).unwrap(), "3");
/// let a: xffi::Array<i64> = vec![1, 2].into_iter().collect();
/// assert_eq!(xffi::reflect::repr(&xffi::AnyView::object(a.as_object())).unwrap(), "(1, 2)");
/// ```
pub fn repr(value: &AnyView<'_>) -> Result<std::string::String> {
    let mut out = ptr::null_mut();
    // SAFETY: a valid borrowed value and a slot receiving a new String reference.
    check(unsafe { sys::xffi_repr(&mut out, value.as_raw()) })?;
    // SAFETY: success gives a new reference to an ffi.String.
    let text = unsafe { ObjectRef::<StringObj>::from_raw(out) }
        .ok_or_else(|| Error::runtime_error("xffi_repr succeeded with no text"))?;
    Any::from(text).get::<std::string::String>()
}

/// The `Debug` text of a value (borrowed).
fn debug_view(v: &AnyView<'_>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let raw = v.as_raw();
    // SAFETY: the union member read matches the type index in each arm.
    unsafe {
        match raw.type_index {
            sys::XFFI_TYPE_NONE => write!(f, "None"),
            sys::XFFI_TYPE_INT => write!(f, "{}", raw.value.v_int64),
            sys::XFFI_TYPE_BOOL => write!(f, "{}", raw.value.v_int64 != 0),
            sys::XFFI_TYPE_FLOAT => write!(f, "{:?}", raw.value.v_float64),
            sys::XFFI_TYPE_OPAQUE_PTR => write!(f, "void*({:p})", raw.value.v_ptr),
            sys::XFFI_TYPE_SMALL_STR | sys::XFFI_TYPE_RAW_STR | sys::XFFI_TYPE_STRING => match v.get::<&str>() {
                Ok(s) => write!(f, "{s:?}"),
                Err(_) => write!(f, "<non-UTF-8 string>"),
            },
            sys::XFFI_TYPE_SMALL_BYTES | sys::XFFI_TYPE_BYTES | sys::XFFI_TYPE_BYTE_ARRAY_PTR => match v.get::<&[u8]>()
            {
                Ok(b) => write!(f, "b{:?}", std::string::String::from_utf8_lossy(b)),
                Err(_) => write!(f, "<bytes>"),
            },
            // Objects print as their repr (reflected fields), or key@address
            // if printing fails.
            t if t >= sys::XFFI_TYPE_STATIC_OBJECT_BEGIN => match repr(v) {
                Ok(text) => f.write_str(&text),
                Err(_) => write!(f, "{}@{:p}", type_key_of(t), raw.value.v_obj),
            },
            _ => write!(f, "<{}>", v.kind_name()),
        }
    }
}

impl fmt::Debug for Any {
    /// ```
    /// assert_eq!(format!("{:?}", xffi::Any::from("hi")), "\"hi\"");
    /// assert_eq!(format!("{:?}", xffi::Any::from(3i64)), "3");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_view(&self.view(), f)
    }
}

impl fmt::Debug for AnyView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_view(self, f)
    }
}

impl<T: ObjectType> fmt::Debug for ObjectRef<T> {
    /// The object's repr ([`repr`]: a reflected type by its fields); if
    /// printing fails, the type key and address.
    ///
    /// ```
    /// #[derive(xffi::Object)]
    /// #[xffi(type_key = "doc.Debugged")]
    /// struct Debugged { #[xffi(get)] a: i64, #[xffi(get)] b: String }
    /// let d = xffi::ObjectRef::new(Debugged { a: 1, b: "x".into() }).unwrap();
    /// assert_eq!(format!("{d:?}"), "doc.Debugged(a=1, b=\"x\")");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match repr(&AnyView::object(self)) {
            Ok(text) => f.write_str(&text),
            Err(_) => write!(f, "ObjectRef<{}>({:p})", self.type_key(), self.as_ptr()),
        }
    }
}
