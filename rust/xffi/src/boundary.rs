//! The panic boundary: every Rust function that C calls (closure
//! trampolines, finalizers, deleters, exported functions, plugin entry
//! points) runs its body inside [`ffi_boundary!`](crate::ffi_boundary), so a
//! panic never unwinds into C, and it ends the same way everywhere.
//!
//! What a panic becomes depends on what the function can give back to C,
//! that is on its return type ([`PanicOutcome`]):
//!
//! - a status (`c_int`): a RuntimeError `"<function>: Rust panic: <message>"`
//!   is raised in the calling thread's slot and the status is `XFFI_FAIL`,
//!   as for any other failure;
//! - nothing (`()`: deleters and finalizers): the same message goes to
//!   stderr and the process aborts. Unwinding into C is undefined behaviour;
//!   there is no status to fail with; raising would replace whatever error
//!   the thread is carrying (a deleter runs inside any release, error paths
//!   included) and no caller looks for it; and going on silently would keep
//!   running after a destructor stopped half-way (what it held leaked, or
//!   left inconsistent). Rust itself aborts when a destructor panics while
//!   unwinding, for the same reason.

use std::any::Any as PanicPayload;
use std::ffi::c_int;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::error::Error;

/// Runs `$body` (a block) for the function C called, named `$function` (a
/// `&str`, used only if the body panics), and evaluates to the body's value;
/// a panic becomes the [`PanicOutcome`] of the body's type instead: for a
/// `c_int` status a raised RuntimeError and `XFFI_FAIL`, for `()` an abort
/// (see [the module](crate::boundary) for why).
///
/// The body runs in a closure: `return` inside it leaves the body only, and
/// state it touched may be seen again after a caught panic, so it must stay
/// memory-safe if interrupted (safe Rust is).
///
/// ```
/// use std::ffi::c_int;
/// use xffi::{ErrorKind, ffi_boundary, sys};
///
/// extern "C" fn check_even(x: i64) -> c_int {
///     ffi_boundary!("check_even", {
///         assert!(x % 2 == 0, "{x} is odd");
///         sys::XFFI_OK
///     })
/// }
///
/// assert_eq!(check_even(8), sys::XFFI_OK);
/// assert_eq!(check_even(7), sys::XFFI_FAIL);
/// let err = xffi::Error::take_raised();
/// assert_eq!(err.kind(), ErrorKind::RuntimeError);
/// assert_eq!(err.message(), "check_even: Rust panic: 7 is odd");
/// ```
#[macro_export]
macro_rules! ffi_boundary {
    ($function:expr, $body:block) => {
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $body)) {
            ::std::result::Result::Ok(outcome) => outcome,
            ::std::result::Result::Err(payload) => $crate::boundary::PanicOutcome::on_panic($function, payload),
        }
    };
}

/// What a function called from C returns when its body panics (see
/// [`ffi_boundary!`](crate::ffi_boundary)).
///
/// ```
/// use std::ffi::c_int;
/// use xffi::boundary::PanicOutcome;
/// // What ffi_boundary! does with a caught panic's payload in a status-returning function.
/// let status = <c_int as PanicOutcome>::on_panic("my_callback", Box::new("boom"));
/// assert_eq!(status, xffi::sys::XFFI_FAIL);
/// assert_eq!(xffi::Error::take_raised().message(), "my_callback: Rust panic: boom");
/// ```
pub trait PanicOutcome {
    /// The outcome for a panic in `function` carrying `payload` (taken).
    fn on_panic(function: &str, payload: Box<dyn PanicPayload + Send>) -> Self;
}

/// A status: the panic is raised as a RuntimeError
/// `"<function>: Rust panic: <message>"`, and the status is `XFFI_FAIL`.
impl PanicOutcome for c_int {
    #[cold]
    fn on_panic(function: &str, payload: Box<dyn PanicPayload + Send>) -> c_int {
        let message = panic_message(function, &*payload);
        // Dropping the payload runs user code that may panic in turn: that
        // must not unwind into C either, and the error is reported anyway.
        let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
        Error::runtime_error(&message).raise()
    }
}

/// Nothing to return (deleters, finalizers): the message goes to stderr and
/// the process aborts.
impl PanicOutcome for () {
    #[cold]
    fn on_panic(function: &str, payload: Box<dyn PanicPayload + Send>) {
        let message = panic_message(function, &*payload);
        // Not eprintln!: it panics if stderr is closed, and nothing may panic here.
        let _ = writeln!(
            std::io::stderr(),
            "{message}\n{function} returns nothing to C, so the panic cannot be reported: aborting"
        );
        // The payload is not dropped: its destructor is user code that could panic again.
        std::process::abort()
    }
}

/// The one wording of a caught panic: `"<function>: Rust panic: <message>"`.
fn panic_message(function: &str, payload: &(dyn PanicPayload + Send)) -> std::string::String {
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<std::string::String>() {
        s.as_str()
    } else {
        "a panic with a non-string payload"
    };
    format!("{function}: Rust panic: {message}")
}
