//! Errors: [`Error`] owns an xffi Error object (kind, message, backtrace), so
//! an error raised by C reaches Rust intact and a Rust `Err` handed back to C
//! is the same object C would have made.

use std::ffi::{CString, c_int};
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::Ordering;

use xffi_sys as sys;

/// The result type of every fallible xffi call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Error kinds used by xffi itself (any string may be a kind).
pub mod kind {
    /// A value of the wrong kind.
    pub const TYPE: &str = "TypeError";
    /// A bad value: NULL handle, empty key, bad number.
    pub const VALUE: &str = "ValueError";
    /// An index out of range.
    pub const INDEX: &str = "IndexError";
    /// A missing key.
    pub const KEY: &str = "KeyError";
    /// Out of memory.
    pub const MEMORY: &str = "MemoryError";
    /// Anything else (and Rust panics caught at the C boundary).
    pub const RUNTIME: &str = "RuntimeError";
}

/// An xffi error: a kind (`"TypeError"`, `"ValueError"`, ...), a message
/// and a backtrace (most recent frame first, one frame a line).
///
/// It owns an xffi Error object, so it crosses the C boundary both ways
/// without losing anything: an error C raises becomes an `Err(Error)` in
/// Rust, and an `Err(Error)` returned by a Rust function called from C is
/// raised in C as the same object.
///
/// `Send` and `Sync`: the object's kind and message never change, and safe
/// Rust never changes an object another holder can see. Other handles to
/// the same object do exist (`Any::get::<Error>()` makes one, C may hold
/// one), so [`Error::append_frame`] writes in place only when this handle
/// is the object's only reference, and otherwise first swaps in a copy.
///
/// ```
/// use xffi::{Error, Result};
/// fn parse(s: &str) -> Result<i64> {
///     s.parse::<i64>().map_err(|e| Error::new("ValueError", &format!("parse: {e}")))
/// }
/// let err = parse("x").unwrap_err();
/// assert_eq!(err.kind(), "ValueError");
/// assert_eq!(err.message(), "parse: invalid digit found in string");
/// assert_eq!(err.to_string(), "ValueError: parse: invalid digit found in string");
/// ```
pub struct Error {
    obj: NonNull<sys::xffi_object>,
}

// SAFETY: see the type's docs: immutable except through &mut self.
unsafe impl Send for Error {}
unsafe impl Sync for Error {}

fn bytes_to_str<'a>(b: sys::xffi_byte_array) -> &'a str {
    if b.data.is_null() || b.size == 0 {
        return "";
    }
    // SAFETY: the error owns the bytes, which live as long as the object.
    let bytes = unsafe { std::slice::from_raw_parts(b.data.cast::<u8>(), b.size) };
    match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            // Keep the valid prefix rather than failing to report an error.
            // SAFETY: valid_up_to marks a UTF-8 boundary.
            unsafe { std::str::from_utf8_unchecked(&bytes[..e.valid_up_to()]) }
        }
    }
}

impl Error {
    /// Makes an error of `kind` with `message`. If memory runs out, the
    /// result is the library's pre-made MemoryError.
    ///
    /// ```
    /// let e = xffi::Error::new("KeyError", "no such key: 'x'");
    /// assert_eq!(e.kind(), "KeyError");
    /// ```
    pub fn new(kind: &str, message: &str) -> Error {
        let k = sys::xffi_byte_array { data: kind.as_ptr().cast(), size: kind.len() };
        let m = sys::xffi_byte_array { data: message.as_ptr().cast(), size: message.len() };
        let mut out = std::ptr::null_mut();
        // SAFETY: the byte runs are valid for the call; out is a valid slot.
        let status = unsafe { sys::xffi_error_new_bytes(&mut out, k, m) };
        match NonNull::new(out) {
            Some(obj) if status == sys::XFFI_OK => Error { obj },
            _ => Error::take_raised(),
        }
    }

    /// A TypeError.
    ///
    /// ```
    /// assert_eq!(xffi::Error::type_error("expected int").kind(), "TypeError");
    /// ```
    pub fn type_error(message: &str) -> Error {
        Error::new(kind::TYPE, message)
    }

    /// A ValueError.
    ///
    /// ```
    /// assert_eq!(xffi::Error::value_error("bad").kind(), "ValueError");
    /// ```
    pub fn value_error(message: &str) -> Error {
        Error::new(kind::VALUE, message)
    }

    /// A RuntimeError.
    ///
    /// ```
    /// assert_eq!(xffi::Error::runtime_error("oops").kind(), "RuntimeError");
    /// ```
    pub fn runtime_error(message: &str) -> Error {
        Error::new(kind::RUNTIME, message)
    }

    /// Moves the error C raised in this thread out of the raised slot. If
    /// nothing was raised (a C function failed without raising: a bug in it),
    /// the result is a RuntimeError saying so.
    ///
    /// ```
    /// // A C call failed: take what it raised.
    /// let mut out = std::ptr::null_mut();
    /// let status = unsafe { xffi_sys::xffi_string_new(&mut out, std::ptr::null(), 5) };
    /// assert_eq!(status, xffi_sys::XFFI_FAIL);
    /// let err = xffi::Error::take_raised();
    /// assert_eq!(err.kind(), "ValueError");
    /// assert_eq!(err.message(), "xffi_string_new: data is NULL but size is 5");
    /// ```
    #[cold]
    #[inline(never)]
    pub fn take_raised() -> Error {
        // SAFETY: plain call; the result is a new reference or NULL.
        let raised = unsafe { sys::xffi_error_move_raised() };
        if let Some(obj) = NonNull::new(raised) {
            return Error { obj };
        }
        let msg = "a call failed without raising an error";
        let k = sys::xffi_byte_array { data: kind::RUNTIME.as_ptr().cast(), size: kind::RUNTIME.len() };
        let m = sys::xffi_byte_array { data: msg.as_ptr().cast(), size: msg.len() };
        let mut out = std::ptr::null_mut();
        // SAFETY: as in `new`.
        unsafe {
            if sys::xffi_error_new_bytes(&mut out, k, m) == sys::XFFI_OK {
                if let Some(obj) = NonNull::new(out) {
                    return Error { obj };
                }
            }
            // Out of memory: the pre-made MemoryError needs no allocation.
            sys::xffi_error_raise_out_of_memory();
            Error {
                obj: NonNull::new(sys::xffi_error_move_raised()).expect("the pre-made MemoryError is always there"),
            }
        }
    }

    /// Raises this error in the calling thread's raised slot (for C to pick
    /// up) and returns `XFFI_FAIL`: the last line of an `extern "C"` function
    /// that fails.
    ///
    /// ```
    /// let status = xffi::Error::value_error("bad input").raise();
    /// assert_eq!(status, xffi_sys::XFFI_FAIL);
    /// assert_eq!(xffi::Error::take_raised().message(), "bad input");
    /// ```
    pub fn raise(self) -> c_int {
        // SAFETY: set_raised steals our reference.
        unsafe { sys::xffi_error_set_raised(self.into_raw()) };
        sys::XFFI_FAIL
    }

    /// Runs `body` and returns what it returns; a panic inside it is caught
    /// and becomes a RuntimeError `"<context>: Rust panic: <message>"`, so
    /// that an `extern "C"` function never unwinds into its C caller. The
    /// panic's payload is dropped inside a second guard (dropping it could
    /// panic too).
    ///
    /// ```
    /// use xffi::Error;
    /// let ok: xffi::Result<i64> = Error::catch_panic("my_export", || Ok(42));
    /// assert_eq!(ok.unwrap(), 42);
    /// let err = Error::catch_panic("my_export", || -> xffi::Result<()> { panic!("a bug") }).unwrap_err();
    /// assert_eq!((err.kind(), err.message()), ("RuntimeError", "my_export: Rust panic: a bug"));
    /// ```
    pub fn catch_panic<R>(context: &str, body: impl FnOnce() -> Result<R>) -> Result<R> {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
            Ok(result) => result,
            Err(payload) => {
                let msg = panic_message(&*payload);
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(payload)));
                Err(Error::runtime_error(&format!("{context}: Rust panic: {msg}")))
            }
        }
    }

    /// Takes ownership of an Error object (a new reference, stolen).
    ///
    /// # Safety
    /// `obj` must be NULL or a live Error object whose reference the caller
    /// gives up. Returns None for NULL or a non-Error object (whose reference
    /// is then released).
    ///
    /// ```
    /// let raw = xffi::Error::value_error("v").into_raw();
    /// let e = unsafe { xffi::Error::from_raw(raw) }.unwrap();
    /// assert_eq!(e.kind(), "ValueError");
    /// ```
    pub unsafe fn from_raw(obj: *mut sys::xffi_object) -> Option<Error> {
        unsafe {
            let obj = NonNull::new(obj)?;
            if (*obj.as_ptr()).type_index != sys::XFFI_TYPE_ERROR {
                sys::xffi_object_dec_ref_inline(obj.as_ptr());
                return None;
            }
            Some(Error { obj })
        }
    }

    /// Gives up ownership: the caller receives the reference.
    ///
    /// ```
    /// let raw = xffi::Error::runtime_error("x").into_raw();
    /// let back = unsafe { xffi::Error::from_raw(raw) }.unwrap();
    /// assert_eq!(back.message(), "x");
    /// ```
    pub fn into_raw(self) -> *mut sys::xffi_object {
        let p = self.obj.as_ptr();
        std::mem::forget(self);
        p
    }

    /// The Error object (borrowed).
    ///
    /// ```
    /// let e = xffi::Error::value_error("v");
    /// assert_eq!(unsafe { (*e.as_ptr()).type_index }, xffi::sys::XFFI_TYPE_ERROR);
    /// ```
    pub fn as_ptr(&self) -> *mut sys::xffi_object {
        self.obj.as_ptr()
    }

    fn cell(&self) -> &sys::xffi_error_cell {
        // SAFETY: obj is a live Error.
        unsafe { &*sys::xffi_error_cell_of_unchecked(self.obj.as_ptr()) }
    }

    /// The kind, e.g. `"TypeError"`.
    ///
    /// ```
    /// assert_eq!(xffi::Error::new("Mine", "m").kind(), "Mine");
    /// ```
    pub fn kind(&self) -> &str {
        bytes_to_str(self.cell().kind)
    }

    /// The message.
    ///
    /// ```
    /// assert_eq!(xffi::Error::new("Mine", "m").message(), "m");
    /// ```
    pub fn message(&self) -> &str {
        bytes_to_str(self.cell().message)
    }

    /// The backtrace: most recent frame first, one frame a line (may be empty).
    ///
    /// ```
    /// let mut e = xffi::Error::runtime_error("x");
    /// e.append_frame("in my_fn");
    /// assert!(e.backtrace().contains("in my_fn"));
    /// ```
    pub fn backtrace(&self) -> &str {
        bytes_to_str(self.cell().backtrace)
    }

    /// Appends a frame (one line) to the backtrace, through the error's own
    /// update function (so it works on errors made by any runtime). Out of
    /// memory leaves the backtrace as it was.
    ///
    /// If another reference to the object exists (another `Error` or `Any`,
    /// a weak reference, C code), the object is left untouched: `self`
    /// first becomes a new Error with the same kind, message, backtrace,
    /// cause and context (copy-on-write), and the frame goes there.
    ///
    /// ```
    /// let mut e = xffi::Error::runtime_error("x");
    /// e.append_frame("frame one");
    /// assert!(e.backtrace().contains("frame one"));
    /// ```
    pub fn append_frame(&mut self, frame: &str) {
        let Ok(c) = CString::new(frame.replace('\0', " ")) else { return };
        if !self.is_unique() {
            match self.unshared_copy() {
                Some(copy) => *self = copy,
                None => return, // out of memory: the backtrace stays as it was
            }
        }
        // SAFETY: live Error that no one else references; frame borrowed for the call.
        if unsafe { sys::xffi_error_append_frame(self.obj.as_ptr(), c.as_ptr()) } != sys::XFFI_OK {
            // SAFETY: drop the MemoryError this failure raised.
            unsafe { sys::xffi_object_dec_ref(sys::xffi_error_move_raised()) };
        }
    }

    /// Whether this handle holds the object's only reference, strong or
    /// weak. Then no one else can read the object or make a new reference
    /// to it while `&mut self` is held. The acquire load pairs with the
    /// release decrement of every former holder, so their reads of the
    /// backtrace happen before our write.
    fn is_unique(&self) -> bool {
        // SAFETY: a live object.
        let counts = unsafe { sys::xffi_object_ref_counts(self.obj.as_ptr()) };
        counts.load(Ordering::Acquire) == sys::XFFI_REF_INITIAL
    }

    /// A new Error (a new, unshared object) equal to this one: kind,
    /// message and backtrace copied, cause and context shared (new
    /// references). None if memory runs out (nothing is left raised).
    fn unshared_copy(&self) -> Option<Error> {
        let cell = self.cell();
        let mut out = std::ptr::null_mut();
        // SAFETY: the byte runs live as long as self; out is a valid slot.
        if unsafe { sys::xffi_error_new_bytes(&mut out, cell.kind, cell.message) } != sys::XFFI_OK {
            drop(Error::take_raised());
            return None;
        }
        let copy = Error { obj: NonNull::new(out)? };
        // SAFETY: copy is a fresh Error only we reference.
        let new_cell = unsafe { &mut *sys::xffi_error_cell_of_unchecked(copy.obj.as_ptr()) };
        if cell.backtrace.size > 0 {
            let update = new_cell.update_backtrace?;
            // SAFETY: the copy's own update function; it copies the bytes.
            unsafe { update(copy.obj.as_ptr().cast(), &cell.backtrace, sys::XFFI_BACKTRACE_REPLACE) };
            if new_cell.backtrace.size != cell.backtrace.size {
                return None; // out of memory; dropping the copy frees it
            }
        }
        // SAFETY: both are owned Error objects or NULL; the copy's deleter
        // releases the references taken here.
        unsafe {
            sys::xffi_object_inc_ref_inline(cell.cause_chain.cast());
            new_cell.cause_chain = cell.cause_chain;
            sys::xffi_object_inc_ref_inline(cell.extra_context.cast());
            new_cell.extra_context = cell.extra_context;
        }
        Some(copy)
    }

    /// Whether this error has the given kind.
    ///
    /// ```
    /// assert!(xffi::Error::value_error("x").is_kind("ValueError"));
    /// ```
    pub fn is_kind(&self, kind: &str) -> bool {
        self.kind() == kind
    }
}

impl Drop for Error {
    fn drop(&mut self) {
        // SAFETY: we own one strong reference.
        unsafe { sys::xffi_object_dec_ref_inline(self.obj.as_ptr()) }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind(), self.message())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind())
            .field("message", &self.message())
            .field("backtrace", &self.backtrace())
            .finish()
    }
}

impl std::error::Error for Error {}

impl From<std::str::Utf8Error> for Error {
    fn from(e: std::str::Utf8Error) -> Error {
        Error::value_error(&format!("invalid UTF-8: {e}"))
    }
}

impl From<std::string::FromUtf8Error> for Error {
    fn from(e: std::string::FromUtf8Error) -> Error {
        Error::value_error(&format!("invalid UTF-8: {e}"))
    }
}

impl From<std::num::TryFromIntError> for Error {
    fn from(e: std::num::TryFromIntError) -> Error {
        Error::value_error(&format!("integer out of range: {e}"))
    }
}

impl From<std::ffi::NulError> for Error {
    fn from(e: std::ffi::NulError) -> Error {
        Error::value_error(&format!("string contains a NUL byte: {e}"))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::runtime_error(&format!("I/O error: {e}"))
    }
}

/// Turns a C status into a `Result`, taking the raised error on failure.
#[inline(always)]
pub(crate) fn check(status: c_int) -> Result<()> {
    if status == sys::XFFI_OK { Ok(()) } else { Err(Error::take_raised()) }
}

/// A message for a caught panic payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> std::string::String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<std::string::String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_owned()
    }
}
