//! Exporting Rust functions from a shared library the way xffi (and tvm-ffi
//! 0.1) loads them: function `NAME` is the symbol `__tvm_ffi_NAME` with the
//! safe-call signature
//!
//! ```c
//! int __tvm_ffi_NAME(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result);
//! ```
//!
//! [`export_func!`] writes that symbol around a typed Rust function: it
//! checks the call (NULL pointers, the argument count, each argument's type,
//! with xffi's messages), catches panics, and raises errors in the calling
//! thread's error slot, which is the host's, since the plugin uses the
//! host's runtime (or tvm-ffi's, when tvm-ffi is in the process, as
//! `XFFI_EXPORT_FUNC` does). This module also defines the ABI marker the loader reads.

use std::ffi::c_int;

pub use xffi::sys::xffi_any;
use xffi::{Any, AnyView, Error, FromAnyView, Result};

/// The xffi ABI version this library was built for: `xffi_module_load`
/// refuses a library whose marker differs from the running runtime's (the
/// C headers define the same symbol in every C plugin).
#[allow(non_upper_case_globals)]
#[unsafe(no_mangle)]
pub static xffi_library_abi_version: i32 = xffi::sys::XFFI_ABI_VERSION;

/// Exports a typed Rust function as `__tvm_ffi_<name>`:
///
/// ```ignore
/// export_func!(fn add(a: i64, b: i64) -> i64 { Ok(a + b) });
/// ```
///
/// Each argument type must implement `for<'v> FromAnyView<'v>` (owned types:
/// `i64`, `f64`, `bool`, `String`, `ObjectRef<T>`, `Function`, `Array<T>`,
/// `Any`...); the body returns `xffi::Result<R>` with `R: Into<Any>`.
/// Errors: a wrong argument count is a TypeError
/// "<name>: expected <n> arguments, got <m>", a wrong argument
/// "<name>: argument <i>: expected <what>, got <what came>" (kind kept), a
/// panic a RuntimeError "<name>: Rust panic: <message>"; an `Err` from the
/// body is raised as it is.
macro_rules! export_func {
    (fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty $body:block) => {
        #[doc = concat!("The exported function `", stringify!($name), "` (symbol `__tvm_ffi_", stringify!($name), "`).")]
        ///
        /// `args` are borrowed views (valid for the call); `*result`
        /// receives an owned value (a new reference if it is an object),
        /// which the caller releases. Errors: ValueError for a NULL
        /// `result`, a negative `num_args` or NULL `args` with arguments;
        /// TypeError for a wrong count or argument; RuntimeError for a panic.
        ///
        /// # Safety
        /// The safe-call contract: `args` points at `num_args` valid values
        /// (or is NULL with `num_args` 0) and `result` is writable.
        #[unsafe(export_name = concat!("__tvm_ffi_", stringify!($name)))]
        pub unsafe extern "C" fn $name(
            _handle: *mut ::std::ffi::c_void,
            args: *const $crate::export::xffi_any,
            num_args: i32,
            result: *mut $crate::export::xffi_any,
        ) -> ::std::ffi::c_int {
            fn body($($arg: $ty),*) -> ::xffi::Result<$ret> $body
            const NAME: &str = stringify!($name);
            // SAFETY: forwarded from the caller.
            unsafe {
                $crate::export::call(NAME, args, num_args, result, |views| {
                    $crate::export::check_count(NAME, views, <[&str]>::len(&[$(stringify!($arg)),*]))?;
                    #[allow(unused_mut, unused_variables)]
                    let mut views = views.iter().enumerate();
                    $(
                        let $arg: $ty = {
                            let (i, v) = views.next().expect("the count was checked");
                            $crate::export::arg(NAME, i, v)?
                        };
                    )*
                    body($($arg),*).map(::xffi::Any::from)
                })
            }
        }
    };
}
pub(crate) use export_func;

/// The body of every exported function: checks the pointers, runs `f` on the
/// argument views with panics caught, and stores the result or raises the error.
///
/// # Safety
/// The safe-call contract (see [`export_func!`]).
pub unsafe fn call(
    name: &str,
    args: *const xffi_any,
    num_args: i32,
    result: *mut xffi_any,
    f: impl FnOnce(&[AnyView<'_>]) -> Result<Any>,
) -> c_int {
    if result.is_null() {
        return Error::value_error(&format!(
            "{name}: result is NULL (expected a pointer to an xffi_any to receive the result)"
        ))
        .raise();
    }
    if num_args < 0 {
        return Error::value_error(&format!("{name}: num_args is {num_args} (expected 0 or more)")).raise();
    }
    if args.is_null() && num_args > 0 {
        return Error::value_error(&format!("{name}: args is NULL but num_args is {num_args}")).raise();
    }
    // SAFETY: the caller's contract.
    let views = unsafe { AnyView::slice_from_raw(args, num_args as usize) };
    match Error::catch_panic(name, || f(views)) {
        Ok(value) => {
            // SAFETY: checked non-NULL; the caller owns *result and left nothing in it.
            unsafe { result.write(value.into_raw()) };
            xffi::sys::XFFI_OK
        }
        Err(err) => {
            err.raise();
            // tvm-ffi's loader may have loaded this library: its callers read
            // tvm-ffi's slot (xffi callers take the error back from there).
            // SAFETY: no preconditions.
            unsafe { xffi::sys::xffi_error_forward_to_tvm() }
        }
    }
}

/// A TypeError unless there are exactly `expected` arguments.
pub fn check_count(name: &str, views: &[AnyView<'_>], expected: usize) -> Result<()> {
    if views.len() == expected {
        Ok(())
    } else {
        Err(Error::type_error(&format!("{name}: expected {expected} arguments, got {}", views.len())))
    }
}

/// Converts argument `index`; a failure keeps its kind and names the argument.
pub fn arg<T: for<'v> FromAnyView<'v>>(name: &str, index: usize, view: &AnyView<'_>) -> Result<T> {
    T::from_view(view).map_err(|e| Error::new(e.kind(), &format!("{name}: argument {index}: {}", e.message())))
}
