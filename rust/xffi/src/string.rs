//! [`String`] and [`Bytes`]: immutable xffi String and Bytes objects.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use xffi_sys as sys;

use crate::any::{AnyView, FromAnyView, bytes_of};
use crate::error::{Error, Result, check};
use crate::object::{ObjectRef, ObjectType};
use crate::wrapper::wrapper;

wrapper! {
    /// An immutable xffi String object (type index 65): its bytes live inline
    /// in one allocation. Strings from C are not checked for UTF-8 when made,
    /// so [`String::as_str`] checks and [`String::as_bytes`] never fails.
    ///
    /// `Send + Sync`: immutable. Derefs to `[u8]`; `PartialEq`, `Hash`, `Ord`
    /// compare the bytes.
    ///
    /// ```
    /// let s = xffi::String::new("hello, xffi").unwrap();
    /// assert_eq!(s.as_str().unwrap(), "hello, xffi");
    /// assert_eq!(s.len(), 11);
    /// assert_eq!(s, xffi::String::from("hello, xffi"));
    /// ```
    pub struct String(StringObj);
    /// Payload marker of String objects (type index 65).
    #[derive(Debug)]
    pub struct StringObj { cell: sys::xffi_string_cell }
    type_key = "ffi.String", type_index = sys::XFFI_TYPE_STRING;
    shared_because = "immutable";
    example = "xffi::String::new(\"x\").unwrap()";
}

wrapper! {
    /// An immutable xffi Bytes object (type index 66). `Send + Sync`.
    ///
    /// ```
    /// let b = xffi::Bytes::new(&[0, 1, 2]).unwrap();
    /// assert_eq!(&b[..], &[0, 1, 2]);
    /// ```
    pub struct Bytes(BytesObj);
    /// Payload marker of Bytes objects (type index 66).
    #[derive(Debug)]
    pub struct BytesObj { cell: sys::xffi_string_cell }
    type_key = "ffi.Bytes", type_index = sys::XFFI_TYPE_BYTES;
    shared_because = "immutable";
    example = "xffi::Bytes::new(b\"x\").unwrap()";
}

macro_rules! string_like {
    ($name:ident, $obj:ident, $new:ident, $what:literal) => {
        impl $name {
            /// The bytes (borrowed from the object).
            ///
            /// ```
            /// assert_eq!(xffi::String::new("ab").unwrap().as_bytes(), b"ab");
            /// ```
            #[inline(always)]
            pub fn as_bytes(&self) -> &[u8] {
                // SAFETY: the cell describes the object's own bytes, which
                // never change and live as long as the object, so at least
                // as long as this borrow of self.
                unsafe { bytes_of(self.0.cell) }
            }
            /// The number of bytes.
            ///
            /// ```
            /// assert_eq!(xffi::Bytes::new(&[1, 2, 3]).unwrap().len(), 3);
            /// ```
            #[inline(always)]
            pub fn len(&self) -> usize {
                self.0.cell.size
            }
            /// Whether there are no bytes.
            ///
            /// ```
            /// assert!(xffi::String::new("").unwrap().is_empty());
            /// ```
            #[inline(always)]
            pub fn is_empty(&self) -> bool {
                self.0.cell.size == 0
            }
        }
        impl Deref for $name {
            type Target = [u8];
            fn deref(&self) -> &[u8] {
                self.as_bytes()
            }
        }
        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.as_bytes() == other.as_bytes()
            }
        }
        impl Eq for $name {}
        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for $name {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.as_bytes().cmp(other.as_bytes())
            }
        }
        impl Hash for $name {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.as_bytes().hash(state)
            }
        }
        impl<'v> FromAnyView<'v> for $name {
            /// Accepts a $what object, or a small/borrowed value of the same
            /// kind (copied into a new object).
            fn from_view(v: &'v AnyView<'_>) -> Result<$name> {
                if v.type_index() == <$obj as ObjectType>::type_index() {
                    return Ok($name(ObjectRef::<$obj>::from_view(v)?));
                }
                let b = <&[u8]>::from_view(v)
                    .ok()
                    .filter(|_| ($what == "ffi.Bytes") || <&str>::from_view(v).is_ok())
                    .ok_or_else(|| {
                    Error::type_error(&format!(concat!("expected ", $what, ", got {}"), v.kind_name()))
                })?;
                $name::$new(b)
            }
        }
    };
}

string_like!(String, StringObj, from_utf8_bytes, "ffi.String");
string_like!(Bytes, BytesObj, new, "ffi.Bytes");

impl String {
    /// Makes a String (the characters are copied). Errors: MemoryError.
    ///
    /// ```
    /// assert_eq!(xffi::String::new("x").unwrap().as_str().unwrap(), "x");
    /// ```
    pub fn new(s: &str) -> Result<String> {
        String::from_utf8_bytes(s.as_bytes())
    }

    fn from_utf8_bytes(b: &[u8]) -> Result<String> {
        let mut out = std::ptr::null_mut();
        // SAFETY: b is b.len() readable bytes, borrowed for the call (copied);
        // out is a writable slot.
        check(unsafe { sys::xffi_string_new(&mut out, b.as_ptr().cast(), b.len()) })?;
        // SAFETY: on success out holds a new reference to a String, now ours.
        Ok(String(unsafe { ObjectRef::from_raw(out) }.expect("xffi_string_new succeeded")))
    }

    /// The characters as `&str`. Errors: ValueError if they are not UTF-8
    /// (C may make such Strings).
    ///
    /// ```
    /// assert_eq!(xffi::String::new("é").unwrap().as_str().unwrap(), "é");
    /// ```
    pub fn as_str(&self) -> Result<&str> {
        Ok(std::str::from_utf8(self.as_bytes())?)
    }
}

impl Bytes {
    /// Makes a Bytes object (copied). Errors: MemoryError.
    ///
    /// ```
    /// assert_eq!(xffi::Bytes::new(b"ab").unwrap().len(), 2);
    /// ```
    pub fn new(b: &[u8]) -> Result<Bytes> {
        let mut out = std::ptr::null_mut();
        // SAFETY: b is b.len() readable bytes, borrowed for the call (copied);
        // out is a writable slot.
        check(unsafe { sys::xffi_bytes_new(&mut out, b.as_ptr().cast(), b.len()) })?;
        // SAFETY: on success out holds a new reference to a Bytes, now ours.
        Ok(Bytes(unsafe { ObjectRef::from_raw(out) }.expect("xffi_bytes_new succeeded")))
    }
}

/// Panics only if memory runs out (use [`String::new`] for a `Result`).
impl From<&str> for String {
    fn from(s: &str) -> String {
        String::new(s).unwrap_or_else(|e| panic!("xffi: {e}"))
    }
}

impl PartialEq<str> for String {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}
impl PartialEq<&str> for String {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl fmt::Debug for String {
    /// ```
    /// assert_eq!(format!("{:?}", xffi::String::from("a\"b")), "\"a\\\"b\"");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&std::string::String::from_utf8_lossy(self.as_bytes()), f)
    }
}
impl fmt::Display for String {
    /// ```
    /// assert_eq!(xffi::String::from("hi").to_string(), "hi");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&std::string::String::from_utf8_lossy(self.as_bytes()), f)
    }
}
impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes({:?})", self.as_bytes())
    }
}
