//! [`KeyView`]: a borrowed map key, looked up without making an owned one.

use std::borrow::Borrow;
use std::ffi::CString;

use xffi_sys as sys;

use crate::any::{Any, AnyView};
use crate::error::{Error, Result};
use crate::object::{ObjectRef, ObjectType};

/// A borrowed form of a map key, viewed as an xffi value for a lookup.
///
/// [`crate::Map`] and [`crate::Dict`] look keys up by `&Q` where
/// `K: BorrowKey<Q>` (as `std`'s maps do with `Borrow`): a `Map<String, V>`
/// and a `Map<xffi::String, V>` take `&str`, and
/// no owned key (no Rust `String`, no xffi String object) is made to ask.
/// Numbers, bools, None, byte runs, values and objects are viewed in place;
/// a string over 7 bytes is viewed through a NUL-terminated copy on the Rust
/// heap, or, if it contains a NUL, through a new xffi String (which is the
/// only way a key can fail: MemoryError).
///
/// ```
/// use xffi::Map;
/// let m: Map<String, i64> = [("a key longer than seven".to_string(), 1)].into_iter().collect();
/// assert_eq!(m.get("a key longer than seven").unwrap(), Some(1)); // &str, no String made
/// assert!(!m.contains_key("b").unwrap());
/// ```
pub trait KeyView {
    /// Lends a view of the key to `f`, for the duration of the call.
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R>;
}

/// Which borrowed forms `&Q` look up a map whose keys are `Self`: every `Q`
/// that `Self` borrows as (`K: Borrow<Q>`, as for `std`'s maps), and `str`
/// for [`crate::String`] keys, `[u8]` for [`crate::Bytes`] keys, which hold
/// bytes that need not be UTF-8 and so cannot implement `Borrow<str>`. The
/// lookup itself goes by the C map's hash and equality of the viewed key
/// (a `&str` equals the String object with the same bytes); this trait only
/// says which key types make sense for a map.
///
/// ```
/// use xffi::Map;
/// let m: Map<xffi::String, i64> = [(xffi::String::from("alpha"), 1)].into_iter().collect();
/// assert_eq!(m.get("alpha").unwrap(), Some(1)); // &str: no xffi::String made
/// assert_eq!(m.get(&xffi::String::from("alpha")).unwrap(), Some(1));
/// assert_eq!(m.get("beta").unwrap(), None);
/// ```
pub trait BorrowKey<Q: ?Sized> {}
impl<K: Borrow<Q>, Q: ?Sized> BorrowKey<Q> for K {}
impl BorrowKey<str> for crate::String {}
impl BorrowKey<[u8]> for crate::Bytes {}

macro_rules! int_keys {
    ($($t:ty),*) => {$(
        impl KeyView for $t {
            #[inline(always)]
            fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
                Ok(f(&AnyView::int(i64::from(*self))))
            }
        }
    )*};
}
int_keys!(i64, i32, i16, i8, u32, u16, u8);

impl KeyView for f64 {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        Ok(f(&AnyView::float(*self)))
    }
}
impl KeyView for f32 {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        Ok(f(&AnyView::float(f64::from(*self))))
    }
}
impl KeyView for bool {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        Ok(f(&AnyView::bool(*self)))
    }
}
impl KeyView for () {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        Ok(f(&AnyView::none()))
    }
}

/// The longest string or byte run an xffi value holds inline.
const SMALL_MAX: usize = 7;

impl KeyView for str {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        if self.len() <= SMALL_MAX {
            // Inline: nothing is allocated.
            return Ok(f(&Any::from_str(self)?.view()));
        }
        match CString::new(self) {
            Ok(c) => Ok(f(&AnyView::from_c_str(&c))),
            // A NUL inside: only an xffi String holds all of it.
            Err(_) => Ok(f(&Any::from_str(self)?.view())),
        }
    }
}
impl KeyView for std::string::String {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        self.as_str().with_key_view(f)
    }
}

impl KeyView for [u8] {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        let run = sys::xffi_byte_array { data: self.as_ptr().cast(), size: self.len() };
        let mut raw = sys::xffi_any::none();
        raw.type_index = sys::XFFI_TYPE_BYTE_ARRAY_PTR;
        raw.value.v_bytes_ptr = &run;
        // SAFETY: `run` and the bytes it describes outlive the view, which
        // lives only for the call of `f`.
        Ok(f(&unsafe { AnyView::from_raw(raw) }))
    }
}
impl KeyView for Vec<u8> {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        self.as_slice().with_key_view(f)
    }
}

impl KeyView for Any {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        Ok(f(&self.view()))
    }
}
impl KeyView for AnyView<'_> {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        Ok(f(self))
    }
}
impl<T: ObjectType> KeyView for ObjectRef<T> {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        Ok(f(&AnyView::object(self)))
    }
}
impl KeyView for Error {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        // SAFETY: a live Error object, borrowed for the call of `f`.
        let view = unsafe { AnyView::from_raw(sys::xffi_any::object(self.as_ptr())) };
        Ok(f(&view))
    }
}
impl<T: KeyView> KeyView for Option<T> {
    fn with_key_view<R>(&self, f: impl FnOnce(&AnyView<'_>) -> R) -> Result<R> {
        match self {
            Some(k) => k.with_key_view(f),
            None => Ok(f(&AnyView::none())),
        }
    }
}

/// Calls `f` with a view of `value`. A borrowed C string or byte run (what
/// `KeyView` makes of `str` and `[u8]`) is first copied into a value of its
/// own: the C hash takes such a view by its address, not its content.
pub(crate) fn with_view<V: KeyView + ?Sized, R>(value: &V, f: impl FnOnce(&AnyView<'_>) -> Result<R>) -> Result<R> {
    value.with_key_view(|v| {
        let ti = v.type_index();
        if ti == sys::XFFI_TYPE_RAW_STR || ti == sys::XFFI_TYPE_BYTE_ARRAY_PTR {
            f(&v.to_owned_any()?.view())
        } else {
            f(v)
        }
    })?
}

/// Calls `f` with views of both values (as [`with_view`]).
pub(crate) fn with_two_views<A, B, R>(
    a: &A,
    b: &B,
    f: impl FnOnce(&AnyView<'_>, &AnyView<'_>) -> Result<R>,
) -> Result<R>
where
    A: KeyView + ?Sized,
    B: KeyView + ?Sized,
{
    with_view(a, |va| with_view(b, |vb| f(va, vb)))
}
