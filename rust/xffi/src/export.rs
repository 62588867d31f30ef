//! Exporting Rust functions from a shared library the way xffi's
//! `xffi_module_load` and tvm-ffi 0.1's loaders find them: function `NAME` is
//! the symbol `__tvm_ffi_NAME` with the safe-call signature
//!
//! ```c
//! int __tvm_ffi_NAME(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result);
//! ```
//!
//! [`export_func!`](crate::export_func) writes that symbol around a typed
//! Rust function, and [`export_abi_marker!`](crate::export_abi_marker)
//! defines the ABI marker the loader checks (once per library). A library
//! that tvm-ffi or C hosts load must use the process's libxffi: build it with
//! the crate's `system` feature (the linking rule, `docs/plugins.md`).
//!
//! The functions below are what the macro expands to; they are public for
//! the macro's sake, not for direct use.

use std::ffi::c_int;

use crate::{Any, AnyView, Error, FromAnyView, Result};

/// Exports a typed Rust function as `__tvm_ffi_<name>`:
///
/// ```
/// xffi::export_func!(fn add(a: i64, b: i64) -> i64 { Ok(a + b) });
///
/// // What a loader does with the symbol: call it with the safe-call convention.
/// use xffi::sys::xffi_any;
/// let call = |args: &[xffi_any]| {
///     let mut result = xffi_any::none();
///     // SAFETY: the safe-call contract: args.len() valid values, a writable result.
///     let status = unsafe { add(std::ptr::null_mut(), args.as_ptr(), args.len() as i32, &mut result) };
///     // SAFETY: result holds an owned value (None on failure), taken over once.
///     (status, unsafe { xffi::Any::from_raw(result) })
/// };
/// let (status, sum) = call(&[xffi_any::int(40), xffi_any::int(2)]);
/// assert_eq!((status, sum.get::<i64>().unwrap()), (0, 42));
/// // A wrong count or argument is a TypeError naming the function.
/// assert_ne!(call(&[xffi_any::int(1)]).0, 0);
/// assert_eq!(xffi::Error::take_raised().message(), "add: expected 2 arguments, got 1");
/// assert_ne!(call(&[xffi_any::int(1), xffi_any::float(2.5)]).0, 0);
/// assert_eq!(xffi::Error::take_raised().message(), "add: argument 1: xffi_any_to_int: expected int, got float");
/// ```
///
/// A `///` comment written inside the macro, before `fn`, documents the Rust
/// function and is exported as `__tvm_ffi__doc_<name>` (empty without one),
/// which tvm-ffi's `Module.get_function_doc` reads:
///
/// ```
/// xffi::export_func!(
///     /// Doubles `x`.
///     fn double(x: i64) -> i64 { Ok(2 * x) }
/// );
/// ```
///
/// It also exports `__tvm_ffi__metadata_<name>`, which returns the
/// function's metadata `{"type_schema":"..."}` (its parameter and return
/// types, [`crate::schema`]; `Any` for a type without a
/// [`TypeSchema`](crate::schema::TypeSchema)), as tvm-ffi's
/// `TVM_FFI_DLL_EXPORT_TYPED_FUNC` does: tvm-ffi's
/// `Module.get_function_metadata` and its stub generator read it.
///
/// Each argument type must implement [`FromAnyView`]: owned types (`i64` and
/// the other integers, `f64`, `bool`, `String`, `ObjectRef<T>`, `Function`,
/// `Array<T>`, `Any`...) or `&str` and `&[u8]`, borrowed from the caller's
/// argument for the call; the body returns `xffi::Result<R>` with `R: Into<Any>`.
///
/// ```
/// xffi::export_func!(fn shout(s: &str) -> String { Ok(s.to_uppercase()) });
/// let arg = xffi::Any::from("borrowed, not copied");
/// let mut result = xffi::sys::xffi_any::none();
/// // SAFETY: one valid value, a writable result.
/// assert_eq!(unsafe { shout(std::ptr::null_mut(), arg.as_raw(), 1, &mut result) }, 0);
/// // SAFETY: an owned value, taken over once.
/// assert_eq!(unsafe { xffi::Any::from_raw(result) }.get::<&str>().unwrap(), "BORROWED, NOT COPIED");
/// ```
///
/// The exported function checks the call (NULL `result`, negative
/// `num_args`, NULL `args` with arguments: ValueError), the argument count
/// (TypeError `"<name>: expected <n> arguments, got <m>"`) and each argument
/// (the conversion's error, its kind kept and its message after
/// `"<name>: argument <i>: "`); a panic becomes a RuntimeError
/// `"<name>: Rust panic: <message>"` ([`ffi_boundary!`](crate::ffi_boundary)); an `Err` from
/// the body is raised as it is. Errors go to
/// the calling thread's slot, or to tvm-ffi's when tvm-ffi is in the process
/// (as `XFFI_EXPORT_FUNCTION` does in C). The result is an owned value the caller
/// releases.
#[macro_export]
macro_rules! export_func {
    ($(#[doc = $doc:literal])* fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty $body:block) => {
        $(#[doc = $doc])*
        ///
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
            args: *const $crate::sys::xffi_any,
            num_args: i32,
            result: *mut $crate::sys::xffi_any,
        ) -> ::std::ffi::c_int {
            fn body($($arg: $ty),*) -> $crate::Result<$ret> $body
            const NAME: &str = stringify!($name);
            // SAFETY: the caller's safe-call contract, which `call` requires, is
            // this function's own (see # Safety above).
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
                    body($($arg),*).map($crate::Any::from)
                })
            }
        }

        // `__tvm_ffi__doc_<name>`: the `///` comment written inside the
        // macro (empty without one), which `Module.get_function_doc` reads.
        const _: () = {
            /// # Safety
            /// The safe-call contract (no arguments; `result` writable).
            #[unsafe(export_name = concat!("__tvm_ffi__doc_", stringify!($name)))]
            unsafe extern "C" fn doc(
                _handle: *mut ::std::ffi::c_void,
                args: *const $crate::sys::xffi_any,
                num_args: i32,
                result: *mut $crate::sys::xffi_any,
            ) -> ::std::ffi::c_int {
                const NAME: &str = concat!("__tvm_ffi__doc_", stringify!($name));
                // SAFETY: the caller's safe-call contract, as above.
                unsafe {
                    $crate::export::call(NAME, args, num_args, result, |_| {
                        ::std::result::Result::Ok($crate::Any::from($crate::export::doc_text(&[$($doc),*])))
                    })
                }
            }
        };

        // `__tvm_ffi__metadata_<name>`: the function's type schema, which
        // tvm-ffi's `Module.get_function_metadata` and stub generator read.
        const _: () = {
            /// # Safety
            /// The safe-call contract (no arguments; `result` writable).
            #[unsafe(export_name = concat!("__tvm_ffi__metadata_", stringify!($name)))]
            unsafe extern "C" fn metadata(
                _handle: *mut ::std::ffi::c_void,
                args: *const $crate::sys::xffi_any,
                num_args: i32,
                result: *mut $crate::sys::xffi_any,
            ) -> ::std::ffi::c_int {
                const NAME: &str = concat!("__tvm_ffi__metadata_", stringify!($name));
                // SAFETY: the caller's safe-call contract, as above.
                unsafe {
                    $crate::export::call(NAME, args, num_args, result, |_| {
                        let schema = $crate::schema::function_schema(
                            &[$($crate::schema_of!($ty)),*],
                            &$crate::schema_of!($ret),
                        );
                        ::std::result::Result::Ok($crate::Any::from($crate::schema::metadata(&schema)))
                    })
                }
            }
        };
    };
}

/// Defines the ABI marker `xffi_library_abi_version` that `xffi_module_load`
/// checks, with the ABI version this crate was built for; a library whose
/// marker differs from the running runtime's is refused. Use it once per
/// library, at the crate root. It is the Rust counterpart of C's
/// `XFFI_DEFINE_ABI_MARKER()`: a library mixing C and Rust writes one of the
/// two (both would define the symbol twice).
///
/// It also defines `xffi_library_bundled_runtime`, 1 when the library
/// carries the runtime inside it (the default features) and 0 with the
/// `system` feature: a Rust host that does not export its own runtime reads
/// it to refuse a plugin that would run on a second runtime
/// ([`Module::load`](crate::Module::load)).
///
/// ```
/// xffi::export_abi_marker!();
/// assert_eq!(xffi_library_abi_version, xffi::sys::XFFI_ABI_VERSION);
/// assert!(matches!(xffi_library_bundled_runtime, 0 | 1)); // 1 at the default features
/// ```
#[macro_export]
macro_rules! export_abi_marker {
    () => {
        /// The xffi ABI version this library was built for.
        #[allow(non_upper_case_globals)]
        #[unsafe(no_mangle)]
        pub static xffi_library_abi_version: i32 = $crate::sys::XFFI_ABI_VERSION;
        /// 1 when this library carries the xffi runtime inside it.
        #[allow(non_upper_case_globals)]
        #[unsafe(no_mangle)]
        pub static xffi_library_bundled_runtime: i32 = $crate::export::BUNDLED_RUNTIME;
    };
}

/// 1 when this crate links the runtime into the library or program that
/// uses it (the default features), 0 with the `system` feature; what
/// [`export_abi_marker!`] exports as `xffi_library_bundled_runtime`.
#[doc(hidden)]
pub const BUNDLED_RUNTIME: i32 = if cfg!(feature = "system") { 0 } else { 1 };

/// Registers Rust-defined types (and, for `#[derive(xffi::Object)]` types,
/// their fields and methods) when the library is loaded, as C++ libraries
/// built against tvm-ffi do in their static initialisers: a host that
/// loads the library (Python's `tvm_ffi.load_module`, `xffi_module_load`)
/// finds the types by key right after loading. Use it once per library,
/// at the crate root, with every type the host must find.
///
/// Runs from the loader's initialiser list (ELF `.init_array`, Mach-O
/// `__mod_init_func`; elsewhere the types register on first use as
/// always). A registration that fails is reported on stderr and every
/// later use of the type returns the same error; a panic aborts (there is
/// no caller to report to).
///
/// ```
/// #[derive(xffi::Object)]
/// #[xffi(type_key = "doc.AtLoad")]
/// struct AtLoad { #[xffi(get)] v: i64 }
/// xffi::register_types_at_load!(AtLoad);
/// // Registered before main: the key is known without a use of the type.
/// assert!(xffi::reflect::TypeRef::by_key("doc.AtLoad").is_ok());
/// ```
#[macro_export]
macro_rules! register_types_at_load {
    ($($ty:ty),+ $(,)?) => {
        const _: () = {
            extern "C" fn register_at_load() {
                $crate::ffi_boundary!("xffi::register_types_at_load!", {
                    $(
                        if let ::std::result::Result::Err(e) = <$ty as $crate::ObjectType>::checked_type_index() {
                            ::std::eprintln!("xffi: registering {} at load failed: {}", <$ty as $crate::ObjectType>::TYPE_KEY, e);
                        }
                    )+
                })
            }
            #[used]
            #[cfg_attr(any(target_os = "linux", target_os = "android", target_os = "freebsd"), unsafe(link_section = ".init_array"))]
            #[cfg_attr(target_vendor = "apple", unsafe(link_section = "__DATA,__mod_init_func"))]
            static REGISTER_AT_LOAD: extern "C" fn() = register_at_load;
        };
    };
}

/// The body of every exported function: checks the pointers, runs `f` on the
/// argument views inside the panic boundary, and stores the result or raises
/// the error (handing it to tvm-ffi's slot when tvm-ffi is in the process).
///
/// # Safety
/// The safe-call contract (see [`export_func!`](crate::export_func)).
#[doc(hidden)]
#[inline(always)]
pub unsafe fn call(
    name: &str,
    args: *const crate::sys::xffi_any,
    num_args: i32,
    result: *mut crate::sys::xffi_any,
    f: impl FnOnce(&[AnyView<'_>]) -> Result<Any>,
) -> c_int {
    // The contract's tests, ordered so that a call with no arguments never
    // tests `args`; their messages are built out of line (`bad_call`), so
    // the call sets up no frame for them.
    if result.is_null() || num_args < 0 {
        return bad_call(name, args, num_args, result);
    }
    let views = if num_args == 0 {
        &[]
    } else if args.is_null() {
        return bad_call(name, args, num_args, result);
    } else {
        // SAFETY: the caller's contract: args (checked non-NULL) holds
        // num_args (checked > 0) valid values, live for the call.
        unsafe { AnyView::slice_from_raw(args, num_args as usize) }
    };
    let status = crate::ffi_boundary!(name, {
        match f(views) {
            Ok(value) => {
                // SAFETY: checked non-NULL; the caller owns *result and left nothing in it.
                unsafe { result.write(value.into_raw()) };
                crate::sys::XFFI_OK
            }
            Err(err) => err.raise(),
        }
    });
    if status == crate::sys::XFFI_OK { status } else { forward_raised() }
}

/// The error of a call that breaks the safe-call contract (see `call`).
#[cold]
#[inline(never)]
fn bad_call(name: &str, args: *const crate::sys::xffi_any, num_args: i32, result: *mut crate::sys::xffi_any) -> c_int {
    fail(Error::value_error(&if result.is_null() {
        format!("{name}: result is NULL (expected a pointer to an xffi_any to receive the result)")
    } else if num_args < 0 {
        format!("{name}: num_args is {num_args} (expected 0 or more)")
    } else {
        debug_assert!(args.is_null());
        format!("{name}: args is NULL but num_args is {num_args}")
    }))
}

/// Raises `err` where the caller will look for it (see `forward_raised`).
fn fail(err: Error) -> c_int {
    err.raise();
    forward_raised()
}

/// Leaves the raised error where the caller will look for it: xffi's slot,
/// which every `TVMFFI*` caller served by xffi reads too, and also the slot of
/// a distinct tvm-ffi runtime when one is loaded. Returns `XFFI_FAIL`.
fn forward_raised() -> c_int {
    // SAFETY: no preconditions (it only hands the raised error to the slots).
    unsafe { crate::sys::xffi_error_forward_to_tvm() }
}

/// The text of a `///` comment from its `#[doc]` lines: each line without
/// the one space rustdoc keeps after `///`, joined with newlines.
#[doc(hidden)]
pub fn doc_text(lines: &[&str]) -> std::string::String {
    lines.iter().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect::<Vec<_>>().join("\n")
}

/// A TypeError unless there are exactly `expected` arguments.
#[doc(hidden)]
#[inline]
pub fn check_count(name: &str, views: &[AnyView<'_>], expected: usize) -> Result<()> {
    if views.len() == expected { Ok(()) } else { Err(wrong_count(name, expected, views.len())) }
}

/// The TypeError of `check_count`, out of line.
#[cold]
#[inline(never)]
fn wrong_count(name: &str, expected: usize, got: usize) -> Error {
    Error::type_error(&format!("{name}: expected {expected} arguments, got {got}"))
}

/// Converts argument `index`; a failure keeps its kind and names the argument.
#[doc(hidden)]
#[inline]
pub fn arg<'v, T: FromAnyView<'v>>(name: &str, index: usize, view: &'v AnyView<'_>) -> Result<T> {
    T::from_view(view).map_err(|e| argument_error(name, index, e))
}

/// The error of argument `index`, out of line: `e` with the argument named.
#[cold]
#[inline(never)]
fn argument_error(name: &str, index: usize, e: Error) -> Error {
    e.context(&format!("{name}: argument {index}"))
}
