//! [`Any`] (an owned 16-byte tagged value) and [`AnyView`] (a borrowed one),
//! with checked conversions to and from Rust types.

use std::ffi::CStr;
use std::marker::PhantomData;

use xffi_sys as sys;

use crate::error::{Error, Result, check};
use crate::object::{ObjectRef, ObjectType};

/// An owned xffi value: None, int, bool, float, a string, bytes, an
/// object... the 16-byte `xffi_any` of the C ABI. Holds a strong reference
/// when it holds an object; `Clone` takes another, `Drop` releases it.
///
/// `Send` and `Sync`: every object an `Any` can hold is safe to share
/// (built-in objects are immutable or, for List and Dict, locked by this
/// crate; Rust-defined objects are `Send + Sync`); plain values are copied.
///
/// ```
/// use xffi::Any;
/// let a = Any::from(42i64);
/// assert_eq!(a.get::<i64>().unwrap(), 42);
/// let s = Any::from("a string longer than seven bytes");
/// assert_eq!(s.get::<&str>().unwrap(), "a string longer than seven bytes");
/// let err = s.get::<i64>().unwrap_err();
/// assert_eq!(err.kind(), xffi::ErrorKind::TypeError);
/// assert_eq!(err.message(), "xffi_any_to_int: expected int, got ffi.String"); // as C raised it
/// ```
#[repr(transparent)]
pub struct Any {
    raw: sys::xffi_any,
}

// SAFETY: an Any is a plain 16-byte value plus, for an object, a strong
// reference whose count is atomic; every object it can hold may be used from
// any thread (see the type's docs).
unsafe impl Send for Any {}
// SAFETY: `&Any` only reads the value or takes another (atomic) reference.
unsafe impl Sync for Any {}

/// A borrowed xffi value: what functions receive as arguments. It owns
/// nothing and cannot outlive what it borrows (`'a`). Small strings live
/// inside the view itself, so a `&str` taken from a view borrows the view.
///
/// `Send`/`Sync` as [`Any`]; the C strings and byte runs it may borrow are
/// never written through it.
///
/// ```
/// use xffi::{Any, AnyView};
/// let owned = Any::from(1.5f64);
/// let view: AnyView<'_> = owned.view();
/// assert_eq!(view.get::<f64>().unwrap(), 1.5);
/// let c = AnyView::from_c_str(c"borrowed");
/// assert_eq!(c.get::<&str>().unwrap(), "borrowed");
/// ```
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct AnyView<'a> {
    raw: sys::xffi_any,
    _borrow: PhantomData<&'a ()>,
}

// SAFETY: as Any; what a view borrows (an object, a C string, a byte run)
// is only read through it, and the borrow `'a` keeps it alive.
unsafe impl Send for AnyView<'_> {}
// SAFETY: as Send: shared access only reads.
unsafe impl Sync for AnyView<'_> {}

/// Conversion from a borrowed value: implemented for `i64`, `i32`, `u32`,
/// `u64`, `usize`, `f64`, `f32`, `bool`, `()`, `&str`, `String`, `&[u8]`,
/// `Vec<u8>`, [`Any`], `ObjectRef<T>`, the wrappers ([`crate::String`],
/// [`crate::Function`], [`crate::Array`]...), and `Option<T>` of them
/// (None becomes `None`). Failures are a TypeError `"expected <what>, got <what came>"`
/// (or a ValueError for an integer out of range); where the C accessor
/// checks the value, its error comes as C raised it ("xffi_any_to_int: ...").
///
/// ```
/// use xffi::{Any, FromAnyView};
/// let v = Any::from(7i64);
/// let x: u32 = FromAnyView::from_view(&v.view()).unwrap();
/// assert_eq!(x, 7);
/// ```
pub trait FromAnyView<'v>: Sized {
    /// Converts the value `v`, borrowing from it if the type borrows.
    fn from_view(v: &'v AnyView<'_>) -> Result<Self>;
}

/// The short name of what a value holds ("int", "None", "String", a user key).
fn kind_name(raw: &sys::xffi_any) -> &'static str {
    // SAFETY: never NULL, immortal.
    let c = unsafe { CStr::from_ptr(sys::xffi_any_kind_name(raw)) };
    c.to_str().unwrap_or("?")
}

/// The accessors `Any` and `AnyView` share (both wrap one raw value in
/// `raw`); `$example` makes a value holding type `$index`, kind `$kind`.
macro_rules! value_accessors {
    ($example:literal, $index:literal, $kind:literal) => {
        /// The raw value (borrowed).
        ///
        /// ```
        #[doc = concat!("assert_eq!(", $example, ".as_raw().type_index, ", $index, ");")]
        /// ```
        #[inline(always)]
        pub fn as_raw(&self) -> &sys::xffi_any {
            &self.raw
        }

        /// The type index of what the value holds.
        ///
        /// ```
        #[doc = concat!("assert_eq!(", $example, ".type_index(), ", $index, ");")]
        /// ```
        #[inline(always)]
        pub fn type_index(&self) -> i32 {
            self.raw.type_index
        }

        /// A short name of what the value holds, for messages.
        ///
        /// ```
        #[doc = concat!("assert_eq!(", $example, ".kind_name(), \"", $kind, "\");")]
        /// ```
        pub fn kind_name(&self) -> &'static str {
            kind_name(&self.raw)
        }

        /// Whether the value is None.
        ///
        /// ```
        #[doc = concat!("assert!(!", $example, ".is_none());")]
        /// ```
        #[inline(always)]
        pub fn is_none(&self) -> bool {
            self.raw.type_index == sys::XFFI_TYPE_NONE
        }
    };
}

impl<'a> AnyView<'a> {
    /// Wraps a raw view.
    ///
    /// # Safety
    /// Whatever `raw` points at must stay valid and unchanged for `'a`.
    ///
    /// ```
    /// let raw = xffi_sys::xffi_any::int(4);
    /// let v = unsafe { xffi::AnyView::from_raw(raw) };
    /// assert_eq!(v.get::<i64>().unwrap(), 4);
    /// ```
    #[inline(always)]
    pub unsafe fn from_raw(raw: sys::xffi_any) -> Self {
        AnyView { raw, _borrow: PhantomData }
    }

    /// Views a slice of raw values (function arguments).
    ///
    /// # Safety
    /// `args` must point at `n` values valid for `'a` (or `n` is 0).
    ///
    /// ```
    /// let raw = [xffi_sys::xffi_any::int(1), xffi_sys::xffi_any::float(2.0)];
    /// let views = unsafe { xffi::AnyView::slice_from_raw(raw.as_ptr(), 2) };
    /// assert_eq!(views[1].get::<f64>().unwrap(), 2.0);
    /// ```
    #[inline(always)]
    pub unsafe fn slice_from_raw<'s>(args: *const sys::xffi_any, n: usize) -> &'s [AnyView<'a>] {
        // A branch to a cold function, not a select: as a select, the
        // pointer every argument is loaded through waited for the tests
        // (about 0.7 ns on each call of a typed Rust function).
        if n != 0 && !args.is_null() {
            // SAFETY: the caller's contract: `n` values valid for 'a; AnyView
            // is repr(transparent) over xffi_any.
            unsafe { std::slice::from_raw_parts(args.cast::<AnyView<'a>>(), n) }
        } else {
            no_views()
        }
    }

    /// None.
    ///
    /// ```
    /// assert!(xffi::AnyView::none().is_none());
    /// ```
    #[inline(always)]
    pub const fn none() -> Self {
        AnyView { raw: sys::xffi_any::none(), _borrow: PhantomData }
    }

    /// An int.
    ///
    /// ```
    /// assert_eq!(xffi::AnyView::int(3).get::<i64>().unwrap(), 3);
    /// ```
    #[inline(always)]
    pub const fn int(x: i64) -> Self {
        AnyView { raw: sys::xffi_any::int(x), _borrow: PhantomData }
    }

    /// A float.
    ///
    /// ```
    /// assert_eq!(xffi::AnyView::float(0.5).get::<f64>().unwrap(), 0.5);
    /// ```
    #[inline(always)]
    pub const fn float(x: f64) -> Self {
        AnyView { raw: sys::xffi_any::float(x), _borrow: PhantomData }
    }

    /// A bool.
    ///
    /// ```
    /// assert!(xffi::AnyView::bool(true).get::<bool>().unwrap());
    /// ```
    #[inline(always)]
    pub const fn bool(x: bool) -> Self {
        AnyView { raw: sys::xffi_any::bool(x), _borrow: PhantomData }
    }

    /// A borrowed NUL-terminated string (no copy).
    ///
    /// ```
    /// assert_eq!(xffi::AnyView::from_c_str(c"hi").get::<String>().unwrap(), "hi");
    /// ```
    #[inline(always)]
    pub fn from_c_str(s: &'a CStr) -> Self {
        let mut raw = sys::xffi_any::none();
        raw.type_index = sys::XFFI_TYPE_RAW_STR;
        raw.value.v_c_str = s.as_ptr();
        AnyView { raw, _borrow: PhantomData }
    }

    /// A borrowed object (no reference taken).
    ///
    /// ```
    /// let s = xffi::String::new("x").unwrap();
    /// let v = xffi::AnyView::object(s.as_object());
    /// assert_eq!(v.type_index(), 65);
    /// ```
    #[inline(always)]
    pub fn object<T: ObjectType>(obj: &'a ObjectRef<T>) -> Self {
        // SAFETY: live object, borrowed for 'a.
        AnyView { raw: unsafe { sys::xffi_any::object(obj.as_ptr()) }, _borrow: PhantomData }
    }

    value_accessors!("xffi::AnyView::int(3)", 1, "int");

    /// Converts the value (see [`FromAnyView`] for the types).
    ///
    /// ```
    /// let v = xffi::AnyView::int(5);
    /// assert_eq!(v.get::<i64>().unwrap(), 5);
    /// assert_eq!(v.get::<f64>().unwrap(), 5.0);
    /// assert!(v.get::<String>().is_err());
    /// ```
    #[inline(always)]
    pub fn get<'v, T: FromAnyView<'v>>(&'v self) -> Result<T> {
        T::from_view(self)
    }

    /// An owned copy (objects gain a reference; borrowed strings are copied).
    ///
    /// ```
    /// let owned = xffi::AnyView::from_c_str(c"copied").to_owned_any().unwrap();
    /// assert_eq!(owned.get::<&str>().unwrap(), "copied");
    /// ```
    pub fn to_owned_any(&self) -> Result<Any> {
        let mut out = sys::xffi_any::none();
        // SAFETY: valid view; out holds nothing.
        check(unsafe { sys::xffi_any_copy(&mut out, &self.raw) })?;
        Ok(Any { raw: out })
    }
}

impl Any {
    /// None.
    ///
    /// ```
    /// assert!(xffi::Any::none().is_none());
    /// ```
    #[inline(always)]
    pub const fn none() -> Any {
        Any { raw: sys::xffi_any::none() }
    }

    /// A view of this value, borrowing it.
    ///
    /// ```
    /// let a = xffi::Any::from("text");
    /// assert_eq!(a.view().get::<&str>().unwrap(), "text");
    /// ```
    #[inline(always)]
    pub fn view(&self) -> AnyView<'_> {
        AnyView { raw: self.raw, _borrow: PhantomData }
    }

    /// Converts the value (see [`FromAnyView`]).
    ///
    /// ```
    /// let a = xffi::Any::from(true);
    /// assert_eq!(a.get::<bool>().unwrap(), true);
    /// assert_eq!(a.get::<i64>().unwrap(), 1);
    /// ```
    #[inline(always)]
    pub fn get<'v, T: FromAnyView<'v>>(&'v self) -> Result<T> {
        // SAFETY: AnyView is repr(transparent) over the same raw value, and
        // the borrow of self covers everything it points at.
        T::from_view(unsafe { &*(self as *const Any as *const AnyView<'v>) })
    }

    /// Converts the value into an owned `T`: the same conversion as
    /// [`Any::get`], for the types that borrow nothing from the value (for
    /// `&str` and `&[u8]` use `get`). `T::try_from(any)` does the same.
    ///
    /// ```
    /// let a = xffi::Any::from(7i64);
    /// assert_eq!(a.to::<i32>().unwrap(), 7);
    /// assert_eq!(a.to::<std::string::String>().unwrap_err().message(), "xffi_any_to_str: expected str, got int");
    /// let s: std::string::String = xffi::Any::from("hi").to().unwrap();
    /// assert_eq!(s, "hi");
    /// ```
    #[inline(always)]
    pub fn to<T: for<'v> FromAnyView<'v>>(&self) -> Result<T> {
        self.get()
    }

    /// A string value: small strings (up to 7 bytes) inline, longer ones a
    /// new String object. Errors: MemoryError.
    ///
    /// ```
    /// let a = xffi::Any::from_str("hello").unwrap();
    /// assert_eq!(a.kind_name(), "str");
    /// ```
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(s: &str) -> Result<Any> {
        let mut out = sys::xffi_any::none();
        // SAFETY: valid byte run.
        check(unsafe { sys::xffi_any_from_str(&mut out, s.as_ptr().cast(), s.len()) })?;
        Ok(Any { raw: out })
    }

    /// A bytes value (small inline or a new Bytes object). Errors: MemoryError.
    ///
    /// ```
    /// let a = xffi::Any::from_bytes(b"\x00\x01").unwrap();
    /// assert_eq!(a.get::<&[u8]>().unwrap(), b"\x00\x01");
    /// ```
    pub fn from_bytes(b: &[u8]) -> Result<Any> {
        let mut out = sys::xffi_any::none();
        // SAFETY: valid byte run.
        check(unsafe { sys::xffi_any_from_bytes(&mut out, b.as_ptr().cast(), b.len()) })?;
        Ok(Any { raw: out })
    }

    /// Takes ownership of a raw owned value.
    ///
    /// # Safety
    /// `raw` must be an owned value (its object reference, if any, is given up).
    ///
    /// ```
    /// let raw = xffi::Any::from("owned").into_raw();
    /// let a = unsafe { xffi::Any::from_raw(raw) };
    /// assert_eq!(a.get::<&str>().unwrap(), "owned");
    /// ```
    #[inline(always)]
    pub unsafe fn from_raw(raw: sys::xffi_any) -> Any {
        Any { raw }
    }

    /// Gives up ownership of the raw value.
    ///
    /// ```
    /// let raw = xffi::Any::from(3i64).into_raw();
    /// assert_eq!(unsafe { raw.value.v_int64 }, 3);
    /// ```
    #[inline(always)]
    pub fn into_raw(self) -> sys::xffi_any {
        let raw = self.raw;
        std::mem::forget(self);
        raw
    }

    value_accessors!("xffi::Any::from(true)", 2, "bool");
}

impl Default for Any {
    fn default() -> Self {
        Any::none()
    }
}

impl Clone for Any {
    #[inline(always)]
    fn clone(&self) -> Any {
        if self.raw.is_object() {
            // SAFETY: an owned value holding an object holds a reference.
            unsafe { sys::xffi_object_inc_ref_inline(self.raw.value.v_obj) };
        }
        Any { raw: self.raw }
    }
}

impl Drop for Any {
    #[inline(always)]
    fn drop(&mut self) {
        if self.raw.is_object() {
            // SAFETY: we own the reference.
            unsafe { sys::xffi_object_dec_ref_inline(self.raw.value.v_obj) };
        }
    }
}

impl<'a> From<&'a Any> for AnyView<'a> {
    #[inline(always)]
    fn from(a: &'a Any) -> AnyView<'a> {
        a.view()
    }
}

// `Debug` for Any and AnyView is in repr.rs: objects print through the C printer.

// ---------------------------------------------------------------------------
// Rust -> Any
// ---------------------------------------------------------------------------

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Any {
            #[inline(always)]
            fn from(x: $t) -> Any { Any { raw: sys::xffi_any::int(x as i64) } }
        }
    )*};
}
from_int!(i64, i32, i16, i8, u32, u16, u8);

impl From<f64> for Any {
    #[inline(always)]
    fn from(x: f64) -> Any {
        Any { raw: sys::xffi_any::float(x) }
    }
}
impl From<f32> for Any {
    #[inline(always)]
    fn from(x: f32) -> Any {
        Any { raw: sys::xffi_any::float(x as f64) }
    }
}
impl From<bool> for Any {
    #[inline(always)]
    fn from(x: bool) -> Any {
        Any { raw: sys::xffi_any::bool(x) }
    }
}
impl From<()> for Any {
    #[inline(always)]
    fn from(_: ()) -> Any {
        Any::none()
    }
}

/// Panics only if memory runs out (like `std`'s own string allocation);
/// use [`Any::from_str`] to get a `MemoryError` instead.
impl From<&str> for Any {
    fn from(s: &str) -> Any {
        Any::from_str(s).unwrap_or_else(|e| panic!("xffi: {e}"))
    }
}
impl From<std::string::String> for Any {
    fn from(s: std::string::String) -> Any {
        Any::from(s.as_str())
    }
}
impl From<&std::string::String> for Any {
    fn from(s: &std::string::String) -> Any {
        Any::from(s.as_str())
    }
}
/// Byte slices become Bytes (panics only if memory runs out).
impl From<&[u8]> for Any {
    fn from(b: &[u8]) -> Any {
        Any::from_bytes(b).unwrap_or_else(|e| panic!("xffi: {e}"))
    }
}
impl From<Vec<u8>> for Any {
    fn from(b: Vec<u8>) -> Any {
        Any::from(b.as_slice())
    }
}
impl<T: ObjectType> From<ObjectRef<T>> for Any {
    #[inline(always)]
    fn from(o: ObjectRef<T>) -> Any {
        let p = o.into_raw();
        // SAFETY: the reference moves into the Any.
        Any { raw: unsafe { sys::xffi_any::object(p) } }
    }
}
impl<T: ObjectType> From<&ObjectRef<T>> for Any {
    #[inline(always)]
    fn from(o: &ObjectRef<T>) -> Any {
        Any::from(o.clone())
    }
}
impl<T: Into<Any>> From<Option<T>> for Any {
    #[inline(always)]
    fn from(o: Option<T>) -> Any {
        match o {
            Some(v) => v.into(),
            None => Any::none(),
        }
    }
}
impl From<Error> for Any {
    fn from(e: Error) -> Any {
        // SAFETY: the Error's reference moves into the Any.
        Any { raw: unsafe { sys::xffi_any::object(e.into_raw()) } }
    }
}
impl From<AnyView<'_>> for Any {
    /// Panics only if memory runs out; use [`AnyView::to_owned_any`] to get an error.
    fn from(v: AnyView<'_>) -> Any {
        v.to_owned_any().unwrap_or_else(|e| panic!("xffi: {e}"))
    }
}

// ---------------------------------------------------------------------------
// Any -> Rust
// ---------------------------------------------------------------------------

impl<'v> FromAnyView<'v> for i64 {
    #[inline(always)]
    fn from_view(v: &'v AnyView<'_>) -> Result<i64> {
        if v.raw.type_index == sys::XFFI_TYPE_INT {
            // SAFETY: tag checked.
            return Ok(unsafe { v.raw.value.v_int64 });
        }
        int_slow(v)
    }
}

#[cold]
#[inline(never)]
fn int_slow(v: &AnyView<'_>) -> Result<i64> {
    let mut out = 0;
    // SAFETY: valid pointers.
    check(unsafe { sys::xffi_any_to_int(&mut out, &v.raw) })?;
    Ok(out)
}

#[cold]
#[inline(never)]
fn float_slow(v: &AnyView<'_>) -> Result<f64> {
    let mut out = 0.0;
    // SAFETY: valid pointers.
    check(unsafe { sys::xffi_any_to_float(&mut out, &v.raw) })?;
    Ok(out)
}

macro_rules! from_view_int {
    ($($t:ty => $name:literal),*) => {$(
        impl<'v> FromAnyView<'v> for $t {
            #[inline(always)]
            fn from_view(v: &'v AnyView<'_>) -> Result<$t> {
                let x = i64::from_view(v)?;
                <$t>::try_from(x).map_err(|_| Error::value_error(&format!(concat!("expected ", $name, ", got {} (out of range)"), x)))
            }
        }
    )*};
}
from_view_int!(i32 => "int32", u32 => "uint32", u64 => "uint64", usize => "usize", i16 => "int16", u16 => "uint16", i8 => "int8", u8 => "uint8");

impl<'v> FromAnyView<'v> for f64 {
    #[inline(always)]
    fn from_view(v: &'v AnyView<'_>) -> Result<f64> {
        if v.raw.type_index == sys::XFFI_TYPE_FLOAT {
            // SAFETY: tag checked.
            return Ok(unsafe { v.raw.value.v_float64 });
        }
        float_slow(v)
    }
}
impl<'v> FromAnyView<'v> for f32 {
    fn from_view(v: &'v AnyView<'_>) -> Result<f32> {
        Ok(f64::from_view(v)? as f32)
    }
}
impl<'v> FromAnyView<'v> for bool {
    fn from_view(v: &'v AnyView<'_>) -> Result<bool> {
        let mut out = 0;
        // SAFETY: valid pointers.
        check(unsafe { sys::xffi_any_to_bool(&mut out, &v.raw) })?;
        Ok(out != 0)
    }
}
impl<'v> FromAnyView<'v> for () {
    fn from_view(v: &'v AnyView<'_>) -> Result<()> {
        if v.is_none() { Ok(()) } else { Err(Error::type_error(&format!("expected None, got {}", v.kind_name()))) }
    }
}
impl<'v> FromAnyView<'v> for &'v str {
    fn from_view(v: &'v AnyView<'_>) -> Result<&'v str> {
        let mut out = sys::xffi_byte_array { data: std::ptr::null(), size: 0 };
        // SAFETY: valid pointers; the characters live in the view (small
        // strings) or in what it borrows, both at least 'v.
        check(unsafe { sys::xffi_any_to_str(&mut out, &v.raw) })?;
        // SAFETY: as above: the bytes live at least 'v.
        let bytes = unsafe { bytes_of(out) };
        Ok(std::str::from_utf8(bytes)?)
    }
}
impl<'v> FromAnyView<'v> for std::string::String {
    fn from_view(v: &'v AnyView<'_>) -> Result<std::string::String> {
        Ok(<&str>::from_view(v)?.to_owned())
    }
}
impl<'v> FromAnyView<'v> for &'v [u8] {
    fn from_view(v: &'v AnyView<'_>) -> Result<&'v [u8]> {
        let mut out = sys::xffi_byte_array { data: std::ptr::null(), size: 0 };
        // SAFETY: as for &str.
        check(unsafe { sys::xffi_any_to_bytes(&mut out, &v.raw) })?;
        // SAFETY: as for &str: the bytes live at least 'v.
        Ok(unsafe { bytes_of(out) })
    }
}
impl<'v> FromAnyView<'v> for Vec<u8> {
    fn from_view(v: &'v AnyView<'_>) -> Result<Vec<u8>> {
        Ok(<&[u8]>::from_view(v)?.to_vec())
    }
}
impl<'v> FromAnyView<'v> for Any {
    fn from_view(v: &'v AnyView<'_>) -> Result<Any> {
        v.to_owned_any()
    }
}
impl<'v, T: ObjectType> FromAnyView<'v> for ObjectRef<T> {
    #[inline(always)]
    fn from_view(v: &'v AnyView<'_>) -> Result<ObjectRef<T>> {
        if v.raw.is_object() {
            // SAFETY: object tag: v_obj is a live object.
            let obj = unsafe { v.raw.value.v_obj };
            // SAFETY: a live object (borrowed by the view) and a registered index.
            if unsafe { sys::xffi_object_is_a_unchecked(obj, T::checked_type_index()?) } {
                // SAFETY: checked instance; take a new reference.
                return Ok(unsafe { ObjectRef::from_borrowed(obj) }.expect("non-NULL object"));
            }
        }
        Err(Error::type_error(&format!("expected {}, got {}", T::TYPE_KEY, v.kind_name())))
    }
}
impl<'v, T: FromAnyView<'v>> FromAnyView<'v> for Option<T> {
    #[inline(always)]
    fn from_view(v: &'v AnyView<'_>) -> Result<Option<T>> {
        if v.is_none() { Ok(None) } else { T::from_view(v).map(Some) }
    }
}
impl<'v> FromAnyView<'v> for Error {
    fn from_view(v: &'v AnyView<'_>) -> Result<Error> {
        if v.raw.type_index == sys::XFFI_TYPE_ERROR {
            // SAFETY: an Error object; take a new reference.
            unsafe {
                let obj = v.raw.value.v_obj;
                sys::xffi_object_inc_ref_inline(obj);
                return Ok(Error::from_raw(obj).expect("an Error object"));
            }
        }
        Err(Error::type_error(&format!("expected ffi.Error, got {}", v.kind_name())))
    }
}

/// `TryFrom<Any>` for the owned types [`FromAnyView`] makes (the containers'
/// and other handles' impls are made with them, in `wrapper.rs`).
macro_rules! try_from_any {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> TryFrom<Any> for $t {
            type Error = Error;
            /// As [`Any::to`].
            #[inline(always)]
            fn try_from(a: Any) -> Result<$t> {
                a.get()
            }
        }
    )*};
}
try_from_any!([] i64, [] i32, [] i16, [] i8, [] u64, [] u32, [] u16, [] u8, [] usize, [] f64, [] f32, [] bool,
    [] std::string::String, [] Vec<u8>, [] Error, [T: ObjectType] ObjectRef<T>);

/// # Safety
/// `b` must describe valid bytes for the chosen lifetime.
pub(crate) unsafe fn bytes_of<'x>(b: sys::xffi_byte_array) -> &'x [u8] {
    // SAFETY: the caller's contract; an empty or NULL run is never dereferenced.
    unsafe { if b.size == 0 || b.data.is_null() { &[] } else { std::slice::from_raw_parts(b.data.cast(), b.size) } }
}

/// The empty argument list, out of line so that callers branch to it.
#[cold]
#[inline(never)]
fn no_views<'s, 'a>() -> &'s [AnyView<'a>] {
    &[]
}
