//! [`Error`] and Rust's [`std::error::Error`]: any standard error converts
//! into an [`Error`] (so `?` works on a function returning [`crate::Result`]
//! whatever error type the failing call had), and an [`Error`] is seen as a
//! standard error through `Deref`, `AsRef` and `Box<dyn Error>`.
//!
//! The design is anyhow's: the blanket conversion
//! `impl<E: std::error::Error + Send + Sync + 'static> From<E> for Error` is
//! coherent only if [`Error`] itself does not implement `std::error::Error`
//! (otherwise it would overlap `impl<T> From<T> for T`).
//! So [`Error`] derefs to `dyn std::error::Error + Send + Sync` instead: the
//! standard methods (`source()`) and `&dyn Error` arguments still work
//! (`&*err`), and `?` into `Box<dyn Error>` works through the `From` impls below.

use std::any::Any as StdAny;
use std::error::Error as StdError;
use std::fmt;
use std::ops::Deref;

use crate::error::{Error, ErrorKind};

/// Converts any standard error: the kind is RuntimeError, but for the standard
/// library's own conversion errors (a ValueError: invalid UTF-8, an integer out
/// of range, a NUL byte in a C string); the message is the error's `Display`,
/// prefixed for those; each `source()` of it becomes a cause, in order.
///
/// ```
/// #[derive(Debug)]
/// struct NotFound(&'static str);
/// impl std::fmt::Display for NotFound {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         write!(f, "no kernel named {}", self.0)
///     }
/// }
/// impl std::error::Error for NotFound {}
///
/// fn find(name: &'static str) -> Result<i64, NotFound> { Err(NotFound(name)) }
/// fn exported(name: &'static str) -> xffi::Result<i64> {
///     Ok(find(name)? + 1) // `?` converts NotFound into xffi::Error
/// }
/// let err = exported("gemm").unwrap_err();
/// assert_eq!(err.kind(), xffi::ErrorKind::RuntimeError);
/// assert_eq!(err.message(), "no kernel named gemm");
/// ```
impl<E: StdError + Send + Sync + 'static> From<E> for Error {
    #[cold]
    fn from(e: E) -> Error {
        let (kind, prefix) = std_kind(&e);
        let mut err = Error::new(kind, &format!("{prefix}{e}"));
        link_sources(&mut err, e.source());
        err
    }
}

/// The kind and message prefix of a standard error.
fn std_kind(e: &(dyn StdAny + Send + Sync)) -> (ErrorKind, &'static str) {
    if e.is::<std::str::Utf8Error>() || e.is::<std::string::FromUtf8Error>() {
        (ErrorKind::ValueError, "invalid UTF-8: ")
    } else if e.is::<std::num::TryFromIntError>() {
        (ErrorKind::ValueError, "integer out of range: ")
    } else if e.is::<std::ffi::NulError>() {
        (ErrorKind::ValueError, "string contains a NUL byte: ")
    } else if e.is::<std::num::ParseIntError>() || e.is::<std::num::ParseFloatError>() {
        (ErrorKind::ValueError, "")
    } else if e.is::<std::io::Error>() {
        (ErrorKind::RuntimeError, "I/O error: ")
    } else {
        (ErrorKind::RuntimeError, "")
    }
}

/// Makes the chain of `source` the cause chain of `err` (RuntimeErrors with
/// each link's `Display`). A link that cannot be attached (out of memory) ends
/// the chain there; the top message is kept either way.
fn link_sources(err: &mut Error, source: Option<&(dyn StdError + 'static)>) {
    let mut messages = vec![];
    let mut next = source;
    while let Some(s) = next {
        messages.push(s.to_string());
        next = s.source();
    }
    // Built from the root up, since set_cause attaches one link at a time.
    let mut chain: Option<Error> = None;
    for message in messages.iter().rev() {
        let mut link = Error::new(ErrorKind::RuntimeError, message);
        if let Some(cause) = chain.take() {
            let _ = link.set_cause(cause);
        }
        chain = Some(link);
    }
    if let Some(cause) = chain {
        let _ = err.set_cause(cause);
    }
}

/// [`Error`] seen as a standard error: the same object, whose `source()` is
/// its cause.
#[repr(transparent)]
struct StdView(Error);

impl fmt::Debug for StdView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for StdView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl StdError for StdView {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.0.cause().map(|cause| StdView::of(cause) as &(dyn StdError + 'static))
    }
}

impl StdView {
    fn of(e: &Error) -> &StdView {
        // SAFETY: StdView is repr(transparent) over Error, so the reference
        // points at a valid StdView with the same lifetime.
        unsafe { &*(e as *const Error).cast::<StdView>() }
    }
}

/// The standard error's methods on an [`Error`]: `err.source()` follows the
/// cause chain, and `&*err` is a `&dyn std::error::Error`.
///
/// ```
/// let mut e = xffi::Error::runtime_error("outer");
/// e.set_cause(xffi::Error::value_error("inner")).unwrap();
/// assert_eq!(e.source().unwrap().to_string(), "ValueError: inner");
/// let as_std: &dyn std::error::Error = &*e;
/// assert_eq!(as_std.to_string(), "RuntimeError: outer");
/// ```
impl Deref for Error {
    type Target = dyn StdError + Send + Sync + 'static;
    fn deref(&self) -> &Self::Target {
        StdView::of(self)
    }
}

impl AsRef<dyn StdError + Send + Sync + 'static> for Error {
    fn as_ref(&self) -> &(dyn StdError + Send + Sync + 'static) {
        StdView::of(self)
    }
}

impl AsRef<dyn StdError + 'static> for Error {
    fn as_ref(&self) -> &(dyn StdError + 'static) {
        StdView::of(self)
    }
}

/// `?` from xffi into `Box<dyn Error + Send + Sync>` (and `Box<dyn Error>`
/// below), as from any standard error.
///
/// ```
/// fn main_like() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
///     let n: i64 = xffi::Any::from("x").get()?;
///     Ok(println!("{n}"))
/// }
/// assert_eq!(main_like().unwrap_err().to_string(), "TypeError: xffi_any_to_int: expected int, got str");
/// ```
impl From<Error> for Box<dyn StdError + Send + Sync + 'static> {
    fn from(e: Error) -> Self {
        Box::new(StdView(e))
    }
}

/// `?` from xffi into `Box<dyn Error>` (a `main` returning `Result<(), Box<dyn Error>>`).
impl From<Error> for Box<dyn StdError + 'static> {
    fn from(e: Error) -> Self {
        Box::new(StdView(e))
    }
}
