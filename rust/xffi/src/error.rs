//! Errors: [`Error`] owns an xffi Error object (kind, message, backtrace,
//! cause), so an error raised by C reaches Rust intact and a Rust `Err`
//! handed back to C is the same object C would have made. [`ErrorKind`] is
//! the kind as a Rust enum.

use std::borrow::Cow;
use std::ffi::{CString, c_int};
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::Ordering;

use xffi_sys as sys;

/// The result type of every fallible xffi call.
///
/// ```
/// fn half(n: i64) -> xffi::Result<i64> {
///     if n % 2 == 0 { Ok(n / 2) } else { Err(xffi::Error::value_error("half: odd number")) }
/// }
/// assert_eq!(half(4).unwrap(), 2);
/// assert_eq!(half(3).unwrap_err().message(), "half: odd number");
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The kind of an [`Error`]: the kinds xffi's C core raises, and
/// [`ErrorKind::Other`] for any other kind string (xffi errors may carry
/// any kind, as tvm-ffi's do).
///
/// Two kinds are equal when their names are, so `Other("KeyError".into())`
/// equals `KeyError`; [`ErrorKind::from`] a `&str` gives the built-in
/// variant for a built-in name.
///
/// ```
/// use xffi::ErrorKind;
/// assert_eq!(ErrorKind::from("KeyError"), ErrorKind::KeyError);
/// assert_eq!(ErrorKind::from("LookupError"), ErrorKind::Other("LookupError".into()));
/// assert_eq!(ErrorKind::IndexError.as_str(), "IndexError");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `"TypeError"`: a value of the wrong kind.
    TypeError,
    /// `"ValueError"`: a bad value (NULL handle, empty key, bad number).
    ValueError,
    /// `"IndexError"`: an index out of range.
    IndexError,
    /// `"KeyError"`: a missing key.
    KeyError,
    /// `"MemoryError"`: out of memory.
    MemoryError,
    /// `"RuntimeError"`: anything else, and Rust panics caught at the C boundary.
    RuntimeError,
    /// Any other kind, by name.
    Other(std::string::String),
}

impl ErrorKind {
    /// The kinds xffi's C core raises (the `XFFI_KIND_*` names of `xffi/error.h`).
    const BUILT_IN: [(ErrorKind, &'static str); 6] = [
        (ErrorKind::TypeError, "TypeError"),
        (ErrorKind::ValueError, "ValueError"),
        (ErrorKind::IndexError, "IndexError"),
        (ErrorKind::KeyError, "KeyError"),
        (ErrorKind::MemoryError, "MemoryError"),
        (ErrorKind::RuntimeError, "RuntimeError"),
    ];

    /// The kind's name, as C stores it (`"TypeError"`, or `Other`'s string).
    ///
    /// ```
    /// assert_eq!(xffi::ErrorKind::Other("Mine".into()).as_str(), "Mine");
    /// ```
    pub fn as_str(&self) -> &str {
        match self {
            ErrorKind::TypeError => "TypeError",
            ErrorKind::ValueError => "ValueError",
            ErrorKind::IndexError => "IndexError",
            ErrorKind::KeyError => "KeyError",
            ErrorKind::MemoryError => "MemoryError",
            ErrorKind::RuntimeError => "RuntimeError",
            ErrorKind::Other(name) => name,
        }
    }

    /// The kind named by `bytes`: a built-in variant, or `Other` holding the
    /// name (invalid UTF-8 shown as U+FFFD, as `String::from_utf8_lossy` does).
    fn from_bytes(bytes: &[u8]) -> ErrorKind {
        for (kind, name) in ErrorKind::BUILT_IN {
            if bytes == name.as_bytes() {
                return kind;
            }
        }
        ErrorKind::Other(std::string::String::from_utf8_lossy(bytes).into_owned())
    }
}

impl From<&str> for ErrorKind {
    fn from(name: &str) -> ErrorKind {
        ErrorKind::from_bytes(name.as_bytes())
    }
}

impl PartialEq for ErrorKind {
    fn eq(&self, other: &ErrorKind) -> bool {
        self.as_str() == other.as_str()
    }
}
impl Eq for ErrorKind {}

impl std::hash::Hash for ErrorKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An xffi error: a kind ([`ErrorKind`]), a message, a backtrace (most
/// recent frame first, one frame a line) and an optional cause, the error
/// that led to it ([`Error::cause`], and `source()` of [`std::error::Error`]).
///
/// Any standard error converts into it (`?` works on every error type in a
/// function returning [`Result`]), and it derefs to `dyn std::error::Error`
/// rather than implementing that trait, which is what makes the blanket
/// conversion coherent (the design of `anyhow::Error`; see the `From` impl).
///
/// It owns an xffi Error object, so it crosses the C boundary both ways
/// without losing anything: an error C raises becomes an `Err(Error)` in
/// Rust, and an `Err(Error)` returned by a Rust function called from C is
/// raised in C as the same object.
///
/// The message and kind are shown exactly as C stored them: `Display` is
/// `"<kind>: <message>"` and nothing is added or cut; [`Error::message_bytes`]
/// gives the bytes themselves (C does not require UTF-8).
///
/// `Send` and `Sync`: the object's kind, message and cause never change
/// while a Rust handle can see them, and safe Rust never changes an object
/// another holder can see. Other handles to the same object do exist
/// (`Any::get::<Error>()` makes one, C may hold one), so
/// [`Error::append_frame`] and [`Error::set_cause`] write in place only when
/// this handle is the object's only reference, and otherwise first swap in a
/// copy. (C code that holds a reference must not change the cause either.)
///
/// ```
/// use xffi::{Error, ErrorKind, Result};
/// fn parse(s: &str) -> Result<i64> {
///     s.parse::<i64>().map_err(|e| Error::new(ErrorKind::ValueError, &format!("parse: {e}")))
/// }
/// let err = parse("x").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::ValueError);
/// assert_eq!(err.message(), "parse: invalid digit found in string");
/// assert_eq!(err.to_string(), "ValueError: parse: invalid digit found in string");
/// ```
// repr(transparent): a cause pointer stored in an error cell is viewed as an
// `Error` in place (see `Error::cause`).
#[repr(transparent)]
pub struct Error {
    obj: NonNull<sys::xffi_object>,
}

// SAFETY: the object's reference count is atomic, and what a shared handle
// reads (kind, message, backtrace, cause) is only written through `&mut self`
// on an object no other holder references (see the type's docs).
unsafe impl Send for Error {}
// SAFETY: as for Send: `&Error` only reads, and no one writes what it reads.
unsafe impl Sync for Error {}

/// The bytes of a byte run from an error cell (empty for NULL data).
///
/// # Safety
/// `b` must describe `b.size` readable bytes (or have NULL data) that stay
/// alive and unchanged for the caller-chosen lifetime `'a`: the lifetime is
/// not tied to anything, so each caller must bound it by the object that
/// owns the bytes (in practice by `&self` of the `Error` holding them).
unsafe fn cell_bytes<'a>(b: sys::xffi_byte_array) -> &'a [u8] {
    if b.data.is_null() || b.size == 0 {
        return &[];
    }
    // SAFETY: the caller's contract: b.size readable bytes alive for 'a.
    unsafe { std::slice::from_raw_parts(b.data.cast::<u8>(), b.size) }
}

impl Error {
    /// Makes an error of `kind` with `message` (both copied). If memory
    /// runs out, the result is the library's pre-made MemoryError.
    ///
    /// ```
    /// use xffi::{Error, ErrorKind};
    /// let e = Error::new(ErrorKind::KeyError, "no such key: 'x'");
    /// assert_eq!(e.kind(), ErrorKind::KeyError);
    /// let mine = Error::new("LookupError".into(), "m");
    /// assert_eq!(mine.kind(), ErrorKind::Other("LookupError".into()));
    /// ```
    pub fn new(kind: ErrorKind, message: &str) -> Error {
        let kind = kind.as_str();
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
    /// assert_eq!(xffi::Error::type_error("expected int").kind(), xffi::ErrorKind::TypeError);
    /// ```
    pub fn type_error(message: &str) -> Error {
        Error::new(ErrorKind::TypeError, message)
    }

    /// A ValueError.
    ///
    /// ```
    /// assert_eq!(xffi::Error::value_error("bad").kind(), xffi::ErrorKind::ValueError);
    /// ```
    pub fn value_error(message: &str) -> Error {
        Error::new(ErrorKind::ValueError, message)
    }

    /// A RuntimeError.
    ///
    /// ```
    /// assert_eq!(xffi::Error::runtime_error("oops").kind(), xffi::ErrorKind::RuntimeError);
    /// ```
    pub fn runtime_error(message: &str) -> Error {
        Error::new(ErrorKind::RuntimeError, message)
    }

    /// Moves the error C raised in this thread out of the raised slot. If
    /// nothing was raised (a C function failed without raising: a bug in it),
    /// the result is a RuntimeError saying so.
    ///
    /// ```
    /// // A C call failed: take what it raised.
    /// let mut out = std::ptr::null_mut();
    /// // SAFETY: out is writable; NULL data with a size is bad input C refuses.
    /// let status = unsafe { xffi_sys::xffi_string_new(&mut out, std::ptr::null(), 5) };
    /// assert_eq!(status, xffi_sys::XFFI_FAIL);
    /// let err = xffi::Error::take_raised();
    /// assert_eq!(err.kind(), xffi::ErrorKind::ValueError);
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
        let kind = ErrorKind::RuntimeError.as_str();
        let k = sys::xffi_byte_array { data: kind.as_ptr().cast(), size: kind.len() };
        let m = sys::xffi_byte_array { data: msg.as_ptr().cast(), size: msg.len() };
        let mut out = std::ptr::null_mut();
        // SAFETY: the byte runs are valid for the call; out is a valid slot.
        if unsafe { sys::xffi_error_new_bytes(&mut out, k, m) } == sys::XFFI_OK {
            if let Some(obj) = NonNull::new(out) {
                return Error { obj };
            }
        }
        Error::out_of_memory()
    }

    /// The pre-made MemoryError (a new reference; reporting it allocates nothing).
    #[cold]
    fn out_of_memory() -> Error {
        // SAFETY: plain calls; move_raised returns the reference raised just before.
        let raised = unsafe {
            sys::xffi_error_raise_out_of_memory();
            sys::xffi_error_move_raised()
        };
        Error { obj: NonNull::new(raised).expect("the pre-made MemoryError is always there") }
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

    /// Takes ownership of an Error object (a new reference, stolen).
    ///
    /// # Safety
    /// `obj` must be NULL or a live object (of any type) whose reference
    /// the caller gives up. Returns None for NULL or a non-Error object
    /// (whose reference is then released).
    ///
    /// ```
    /// let raw = xffi::Error::value_error("v").into_raw();
    /// // SAFETY: the reference into_raw gave up, taken back once.
    /// let e = unsafe { xffi::Error::from_raw(raw) }.unwrap();
    /// assert_eq!(e.kind(), xffi::ErrorKind::ValueError);
    /// ```
    pub unsafe fn from_raw(obj: *mut sys::xffi_object) -> Option<Error> {
        let obj = NonNull::new(obj)?;
        // SAFETY: the caller's contract: a live object whose reference we own,
        // so its header can be read and the reference released.
        unsafe {
            if (*obj.as_ptr()).type_index != sys::XFFI_TYPE_ERROR {
                sys::xffi_object_dec_ref_inline(obj.as_ptr());
                return None;
            }
        }
        Some(Error { obj })
    }

    /// Gives up ownership: the caller receives the reference.
    ///
    /// ```
    /// let raw = xffi::Error::runtime_error("x").into_raw();
    /// // SAFETY: the reference into_raw gave up, taken back once.
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
    /// // SAFETY: e keeps the object alive; its header is readable.
    /// assert_eq!(unsafe { (*e.as_ptr()).type_index }, xffi::sys::XFFI_TYPE_ERROR);
    /// ```
    pub fn as_ptr(&self) -> *mut sys::xffi_object {
        self.obj.as_ptr()
    }

    fn cell(&self) -> &sys::xffi_error_cell {
        // SAFETY: obj is a live Error (checked when the handle was made), so
        // its cell is there for as long as the handle, which borrows it.
        unsafe { &*sys::xffi_error_cell_of_unchecked(self.obj.as_ptr()) }
    }

    /// The kind. A kind string that is not built in is `Other`.
    ///
    /// ```
    /// use xffi::{Error, ErrorKind};
    /// assert_eq!(Error::value_error("v").kind(), ErrorKind::ValueError);
    /// assert_eq!(Error::new("Mine".into(), "m").kind(), ErrorKind::Other("Mine".into()));
    /// ```
    pub fn kind(&self) -> ErrorKind {
        // SAFETY: the kind's bytes belong to the object, which outlives
        // &self and never changes its kind; the slice does not outlive this call.
        ErrorKind::from_bytes(unsafe { cell_bytes(self.cell().kind) })
    }

    /// The message as C stored it: borrowed when it is UTF-8 (C's own
    /// messages always are), otherwise with each invalid sequence shown as
    /// U+FFFD (see [`Error::message_bytes`] for the bytes themselves).
    ///
    /// ```
    /// assert_eq!(xffi::Error::new("Mine".into(), "m").message(), "m");
    /// ```
    pub fn message(&self) -> Cow<'_, str> {
        std::string::String::from_utf8_lossy(self.message_bytes())
    }

    /// The message's bytes, exactly as C stored them (no NUL).
    ///
    /// ```
    /// assert_eq!(xffi::Error::value_error("m").message_bytes(), b"m");
    /// ```
    pub fn message_bytes(&self) -> &[u8] {
        // SAFETY: the message belongs to the object, which outlives &self
        // (the returned borrow) and never changes its message.
        unsafe { cell_bytes(self.cell().message) }
    }

    /// The backtrace: most recent frame first, one frame a line (may be
    /// empty); invalid UTF-8, if any, shown as U+FFFD.
    ///
    /// ```
    /// let mut e = xffi::Error::runtime_error("x");
    /// e.append_frame("in my_fn");
    /// assert!(e.backtrace().contains("in my_fn"));
    /// ```
    pub fn backtrace(&self) -> Cow<'_, str> {
        // SAFETY: the backtrace belongs to the object and changes only
        // through &mut self (append_frame), so it outlives this borrow of self.
        std::string::String::from_utf8_lossy(unsafe { cell_bytes(self.cell().backtrace) })
    }

    /// The error that caused this one (borrowed from it), if any: the next
    /// link of the cause chain, which [`std::error::Error::source`] follows.
    ///
    /// ```
    /// use xffi::{Error, ErrorKind};
    /// let mut outer = Error::runtime_error("loading the model failed");
    /// outer.set_cause(Error::new(ErrorKind::KeyError, "no such file")).unwrap();
    /// assert_eq!(outer.cause().unwrap().message(), "no such file");
    /// assert!(outer.cause().unwrap().cause().is_none());
    /// ```
    pub fn cause(&self) -> Option<&Error> {
        let cause = &self.cell().cause_chain;
        let ptr = NonNull::new(cause.cast::<sys::xffi_object>())?;
        // SAFETY: a non-NULL cause is an object the cell holds a reference to,
        // alive while this error is; reading its header is sound.
        if unsafe { (*ptr.as_ptr()).type_index } != sys::XFFI_TYPE_ERROR {
            return None; // a cell written directly with something else: no Error to show
        }
        // SAFETY: `Error` is repr(transparent) over a non-NULL object pointer,
        // and the field holds one (checked just above), so the field read as an
        // `Error` is a valid handle to a live Error. The reference is borrowed
        // from &self: the field is written only through &mut self (set_cause,
        // on an unshared object), and no `Error` is ever moved out of it, so
        // the cell keeps its one reference (never released twice).
        Some(unsafe { &*(cause as *const *mut std::ffi::c_void).cast::<Error>() })
    }

    /// Sets the cause (taking it), releasing any previous cause. Like
    /// [`Error::append_frame`], it writes in place only if this handle is the
    /// object's only reference, and otherwise on a copy that `self` becomes.
    /// Errors: ValueError if this error is in `cause`'s own chain (a cycle) or
    /// is the shared pre-made MemoryError; MemoryError (copying). On failure
    /// `self` is unchanged and `cause` is released.
    ///
    /// ```
    /// use xffi::{Error, ErrorKind};
    /// let mut e = Error::runtime_error("outer");
    /// e.set_cause(Error::value_error("inner")).unwrap();
    /// let source = e.source().unwrap(); // std::error::Error's, through Deref
    /// assert_eq!(source.to_string(), "ValueError: inner");
    /// ```
    pub fn set_cause(&mut self, cause: Error) -> Result<()> {
        if !self.is_unique() {
            *self = self.unshared_copy().ok_or_else(Error::out_of_memory)?;
        }
        // SAFETY: a live Error that no one else references; set_cause steals
        // the cause's reference, even on failure.
        check(unsafe { sys::xffi_error_set_cause(self.obj.as_ptr(), cause.into_raw()) })
    }

    /// The same error seen from a wider place: a new error of the same kind
    /// whose message is `"<prefix>: <message>"` and whose cause is `self`
    /// (taken), so the original error object, its backtrace and its own
    /// causes stay reachable through [`Error::cause`] and `source()`. If
    /// linking the cause runs out of memory, the new error is returned
    /// without it (its message still says everything).
    ///
    /// ```
    /// let inner = xffi::Error::type_error("expected int, got float");
    /// let outer = inner.context("argument 1");
    /// assert_eq!(outer.kind(), xffi::ErrorKind::TypeError);
    /// assert_eq!(outer.message(), "argument 1: expected int, got float");
    /// assert_eq!(outer.cause().unwrap().message(), "expected int, got float");
    /// ```
    pub fn context(self, prefix: &str) -> Error {
        let mut outer = Error::new(self.kind(), &format!("{prefix}: {}", self.message()));
        // On failure set_cause has released `self`; `outer` is unchanged.
        let _ = outer.set_cause(self);
        outer
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
        // SAFETY: a live Error that no one else references (so no borrow of
        // its backtrace exists); frame is NUL-terminated and borrowed for the call.
        if unsafe { sys::xffi_error_append_frame(self.obj.as_ptr(), c.as_ptr()) } != sys::XFFI_OK {
            // The failure raised a MemoryError; the backtrace stays as it was.
            drop(Error::take_raised());
        }
    }

    /// Whether this handle holds the object's only reference, strong or
    /// weak. Then no one else can read the object or make a new reference
    /// to it while `&mut self` is held. The acquire load pairs with the
    /// release decrement of every former holder, so their reads of the
    /// backtrace happen before our write.
    fn is_unique(&self) -> bool {
        // SAFETY: a live object (we hold a reference); the counts word lives as long.
        let counts = unsafe { sys::xffi_object_ref_counts(self.obj.as_ptr()) };
        counts.load(Ordering::Acquire) == sys::XFFI_REF_INITIAL
    }

    /// A new Error (a new, unshared object) equal to this one: kind,
    /// message and backtrace copied, cause and context shared (new
    /// references). None if memory runs out or the backtrace cannot be
    /// copied (nothing is left raised).
    fn unshared_copy(&self) -> Option<Error> {
        let cell = self.cell();
        let mut out = std::ptr::null_mut();
        // SAFETY: the byte runs live as long as self; out is a valid slot.
        if unsafe { sys::xffi_error_new_bytes(&mut out, cell.kind, cell.message) } != sys::XFFI_OK {
            drop(Error::take_raised());
            return None;
        }
        let copy = Error { obj: NonNull::new(out)? };
        // SAFETY: copy is a fresh Error only we reference: no other borrow of its cell exists.
        let new_cell = unsafe { &mut *sys::xffi_error_cell_of_unchecked(copy.obj.as_ptr()) };
        if cell.backtrace.size > 0 {
            let update = new_cell.update_backtrace?;
            // SAFETY: the copy's own update function, called on the copy; it
            // copies the bytes, which belong to self and live through the call.
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
}

impl Drop for Error {
    fn drop(&mut self) {
        // SAFETY: we own one strong reference, released once, here.
        unsafe { sys::xffi_object_dec_ref_inline(self.obj.as_ptr()) }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: the kind belongs to the object, which outlives this call.
        let kind = unsafe { cell_bytes(self.cell().kind) };
        write!(f, "{}: {}", std::string::String::from_utf8_lossy(kind), self.message())
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

/// Turns a C status into a `Result`, taking the raised error on failure.
#[inline(always)]
pub(crate) fn check(status: c_int) -> Result<()> {
    if status == sys::XFFI_OK { Ok(()) } else { Err(Error::take_raised()) }
}
