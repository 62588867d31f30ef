//! [`Function`]: xffi functions made from Rust closures (callable from C,
//! with panics caught at the boundary), calls of C functions with typed
//! arguments, and the global function registry.

use std::ffi::{CString, c_int, c_void};
use std::fmt;
use std::ptr;

use xffi_sys as sys;

use crate::any::{Any, AnyView, FromAnyView};
use crate::error::{Error, Result, check};
use crate::object::ObjectRef;
use crate::schema::TypeSchema;
use crate::wrapper::wrapper;

wrapper! {
    /// An xffi function (type index 68), made by C, Rust or another runtime.
    ///
    /// `Send + Sync`: functions are immutable, and Rust closures must be
    /// `Send + Sync` to become functions, because C may call them from any
    /// thread, at the same time.
    ///
    /// ```
    /// use xffi::{Any, Function};
    /// let add = Function::from_typed(|a: i64, b: i64| Ok(a + b)).unwrap();
    /// let sum: i64 = add.call_typed((2i64, 3i64)).unwrap();
    /// assert_eq!(sum, 5);
    /// let err = add.call_typed::<i64, _>(("x",)).unwrap_err();
    /// assert_eq!(err.message(), "expected 2 arguments, got 1");
    /// ```
    pub struct Function(FunctionObj);
    /// Payload marker of Function objects (type index 68).
    #[derive(Debug)]
    pub struct FunctionObj { cell: sys::xffi_function_cell }
    type_key = "ffi.Function", type_index = sys::XFFI_TYPE_FUNCTION;
    shared_because = "immutable, and a Rust closure must be `Send + Sync` to become a function";
    example = "xffi::Function::from_typed(|| Ok(1i64)).unwrap()";
    from_any_view = object;
}

type BoxedClosure = dyn Fn(&[AnyView<'_>]) -> Result<Any> + Send + Sync + 'static;

/// The name a panic in a Rust closure is reported under (closures have none).
const CLOSURE: &str = "Rust closure";

/// The C entry point of every Rust closure, called straight from the
/// Function's cell (a direct function: `handle` is the Function, whose
/// resource is the boxed closure). A Rust `Err` is raised as the same Error
/// object; a panic becomes a RuntimeError `"Rust closure: Rust panic: <message>"`.
/// When another tvm-ffi runtime is in the process (the wheel's, calling the
/// cell directly and reading only its own slot) the error moves to that
/// runtime's slot, as an exported function's does; an xffi caller takes it back.
///
/// # Safety
/// The packed-call contract: `handle` is a live Function made by
/// [`Function::from_closure`] with this `F`, `args` points at `num_args`
/// valid values (or is NULL with `num_args` 0) and `result` is writable.
unsafe extern "C" fn closure_entry<F>(
    handle: *mut c_void,
    args: *const sys::xffi_any,
    num_args: i32,
    result: *mut sys::xffi_any,
) -> c_int
where
    F: Fn(&[AnyView<'_>]) -> Result<Any> + Send + Sync + 'static,
{
    let status = crate::ffi_boundary!(CLOSURE, {
        // SAFETY: handle is a Function made by from_closure::<F>, whose
        // resource is a Box<F> that lives until the finalizer runs, after the
        // last call; F is Sync, so sharing it between calls is sound.
        let f = unsafe { &*(sys::xffi_function_resource_unchecked(handle) as *const F) };
        // SAFETY: the caller's contract: num_args valid views, live for the call.
        let args = unsafe { AnyView::slice_from_raw(args, num_args.max(0) as usize) };
        match f(args) {
            Ok(value) => {
                // SAFETY: the caller's contract: result is writable and holds
                // nothing of ours; it receives the owned value.
                unsafe { result.write(value.into_raw()) };
                sys::XFFI_OK
            }
            Err(err) => err.raise(),
        }
    });
    if status == sys::XFFI_OK {
        status
    } else {
        // SAFETY: no preconditions (it only hands the raised error to the slots).
        unsafe { sys::xffi_error_forward_to_tvm() }
    }
}

/// The finalizer of every Rust closure: drops the boxed closure, once, when
/// the Function's last reference goes. A panic in the closure's `Drop`
/// aborts (a finalizer has nothing to report it with; see [`crate::boundary`]).
///
/// # Safety
/// `resource` is the `Box<F>` handed to `xffi_function_new_direct` by
/// [`Function::from_closure`], given back exactly once.
unsafe extern "C" fn closure_finalizer<F>(resource: *mut c_void) {
    crate::ffi_boundary!("Rust closure finalizer", {
        // SAFETY: the caller's contract: our Box<F>, released once, here.
        drop(unsafe { Box::from_raw(resource as *mut F) })
    })
}

impl Function {
    /// Makes a function from a Rust closure taking borrowed argument views.
    /// The closure is dropped exactly once, when the last reference to the
    /// function goes (from Rust, C or another thread). Errors: MemoryError.
    ///
    /// ```
    /// use xffi::{Any, AnyView, Function};
    /// let count = Function::from_closure(|args: &[AnyView]| Ok(Any::from(args.len() as i64))).unwrap();
    /// let n: i64 = count.call(&[AnyView::int(1), AnyView::none()]).unwrap().get().unwrap();
    /// assert_eq!(n, 2);
    /// ```
    pub fn from_closure<F>(f: F) -> Result<Function>
    where
        F: Fn(&[AnyView<'_>]) -> Result<Any> + Send + Sync + 'static,
    {
        let boxed = Box::into_raw(Box::new(f));
        let mut out = ptr::null_mut();
        // SAFETY: closure_entry::<F> and closure_finalizer::<F> match the
        // resource's type; the resource passes to the function only on success.
        let status = unsafe {
            sys::xffi_function_new_direct(
                &mut out,
                Some(closure_entry::<F>),
                boxed.cast(),
                Some(closure_finalizer::<F>),
            )
        };
        if status != sys::XFFI_OK {
            // SAFETY: on failure the resource is still ours (the finalizer
            // did not take it), made by Box::into_raw above.
            drop(unsafe { Box::from_raw(boxed) });
            return Err(Error::take_raised());
        }
        // SAFETY: a new Function reference.
        Ok(Function(unsafe { ObjectRef::from_raw(out) }.expect("xffi_function_new_direct succeeded")))
    }

    /// Makes a function from a typed Rust function or closure: each
    /// argument is converted with [`FromAnyView`] (a mismatch is the
    /// conversion's error, its kind kept and its message after
    /// `"argument <i>: "`; a wrong count a TypeError
    /// `"expected <n> arguments, got <m>"`) and the result with `Into<Any>`.
    ///
    /// ```
    /// use xffi::{Array, Function};
    /// let repeat = Function::from_typed(|n: i64, s: String| -> xffi::Result<Array<xffi::String>> {
    ///     (0..n).map(|_| xffi::String::new(&s)).collect()
    /// }).unwrap();
    /// let out: Array<xffi::String> = repeat.call_typed((2i64, "ab")).unwrap();
    /// assert_eq!(out.len(), 2);
    /// let err = repeat.call_typed::<Array<xffi::String>, _>(("no", "ab")).unwrap_err();
    /// assert_eq!(err.message(), "argument 0: xffi_any_to_int: expected int, got str");
    ///
    /// // Strings and bytes may be borrowed from the caller's arguments (no copy).
    /// let count = Function::from_typed(|s: &str, b: &[u8]| Ok((s.len() + b.len()) as i64)).unwrap();
    /// assert_eq!(count.call_typed::<i64, _>(("abc", xffi::Bytes::new(b"de").unwrap())).unwrap(), 5);
    /// ```
    pub fn from_typed<Args, F: IntoFunction<Args>>(f: F) -> Result<Function> {
        f.into_function()
    }

    /// Calls the function with borrowed argument views; the result is owned.
    /// Errors: whatever the callee raises.
    ///
    /// ```
    /// use xffi::{Any, AnyView, Function};
    /// let f = Function::from_closure(|_| Err(xffi::Error::value_error("nope"))).unwrap();
    /// let err = f.call(&[]).unwrap_err();
    /// assert_eq!((err.kind(), err.message().as_ref()), (xffi::ErrorKind::ValueError, "nope"));
    /// ```
    #[inline(always)]
    pub fn call(&self, args: &[AnyView<'_>]) -> Result<Any> {
        let num_args = arg_count(args.len())?;
        let mut result = sys::xffi_any::none();
        // SAFETY: a live Function (the type guarantees it), a valid result,
        // and args holds num_args views: the unchecked call's preconditions.
        let status =
            unsafe { sys::xffi_function_call_unchecked(self.0.as_ptr(), args.as_ptr().cast(), num_args, &mut result) };
        if status != sys::XFFI_OK {
            return Err(Error::take_raised());
        }
        // SAFETY: on success the callee wrote an owned value into result,
        // which nothing else releases.
        Ok(unsafe { Any::from_raw(result) })
    }

    /// Calls the function with typed arguments (a tuple of values that
    /// convert into [`Any`]) and converts the result.
    ///
    /// ```
    /// let f = xffi::Function::from_typed(|s: String, n: i64| Ok(s.repeat(n as usize))).unwrap();
    /// let r: String = f.call_typed(("ab", 3i64)).unwrap();
    /// assert_eq!(r, "ababab");
    /// ```
    #[inline(always)]
    pub fn call_typed<R, A>(&self, args: A) -> Result<R>
    where
        A: IntoArgs,
        R: for<'v> FromAnyView<'v>,
    {
        let func = self.0.as_ptr();
        args.with_views(|views| {
            let mut result = sys::xffi_any::none();
            // SAFETY: as in `call` (a live Function, a writable result, and
            // views.len() valid views); a tuple holds far fewer than i32::MAX.
            let status = unsafe {
                sys::xffi_function_call_unchecked(func, views.as_ptr().cast(), views.len() as i32, &mut result)
            };
            if status != sys::XFFI_OK {
                return Err(Error::take_raised());
            }
            // Convert the result where the callee wrote it: moving the
            // 16-byte value first would read it back with one wide load from
            // two narrow stores (a store-forwarding stall of several ns).
            // SAFETY: AnyView is repr(transparent) over xffi_any, so the cast
            // reference is valid; it borrows result, which outlives the
            // conversion, and R takes its own references (released below once).
            let converted = R::from_view(unsafe { &*(&result as *const sys::xffi_any as *const AnyView<'_>) });
            if result.is_object() {
                // SAFETY: the object tag was checked: v_obj is the callee's
                // owned reference, released once, here, after the conversion.
                unsafe { sys::xffi_object_dec_ref_inline(result.value.v_obj) };
            }
            converted
        })
    }

    /// Registers the function globally under `name` (the registry takes its
    /// own reference). Errors: ValueError for an empty name or a taken name
    /// without `allow_override`; MemoryError.
    ///
    /// ```
    /// use xffi::Function;
    /// let f = Function::from_typed(|x: i64| Ok(x * 2)).unwrap();
    /// f.register_global("doc.double", false).unwrap();
    /// let g = Function::get_global("doc.double").unwrap().unwrap();
    /// assert_eq!(g.call_typed::<i64, _>((21i64,)).unwrap(), 42);
    /// assert!(f.register_global("doc.double", false).is_err());
    /// Function::remove_global("doc.double").unwrap();
    /// assert!(Function::get_global("doc.double").unwrap().is_none());
    /// ```
    pub fn register_global(&self, name: &str, allow_override: bool) -> Result<()> {
        let c = CString::new(name)?;
        // SAFETY: a live Function (borrowed; the registry takes its own
        // reference) and a NUL-terminated name, both valid for the call.
        check(unsafe { sys::xffi_function_global_register(c.as_ptr(), self.0.as_ptr(), allow_override as c_int) })
    }

    /// Registers the function globally under `name` with `doc` and
    /// `metadata` (JSON, `{"type_schema":"..."}`: [`crate::schema::metadata`];
    /// either may be empty), which tvm-ffi's `get_global_func_metadata` and
    /// stub generator read. The registry takes its own reference and copies
    /// the texts. Errors: as [`Function::register_global`].
    ///
    /// ```
    /// use xffi::Function;
    /// use xffi::schema::{TypeSchema, function_schema, metadata};
    /// let f = Function::from_closure(|args| Ok(xffi::Any::from(args.len() as i64))).unwrap();
    /// let schema = function_schema(&[], &i64::type_schema());
    /// f.register_global_with_info("doc.count_args", "How many arguments came.", &metadata(&schema), false).unwrap();
    /// assert_eq!(Function::global_metadata("doc.count_args").unwrap().unwrap(), metadata(&schema));
    /// Function::remove_global("doc.count_args").unwrap();
    /// ```
    pub fn register_global_with_info(&self, name: &str, doc: &str, metadata: &str, allow_override: bool) -> Result<()> {
        let c = CString::new(name)?;
        let text = |t: &str| sys::xffi_byte_array { data: t.as_ptr().cast(), size: t.len() };
        // SAFETY: a live Function (borrowed; the registry takes its own
        // reference), a NUL-terminated name and two byte runs, valid for the call.
        check(unsafe {
            sys::xffi_function_global_register_with_info(
                c.as_ptr(),
                self.0.as_ptr(),
                text(doc),
                text(metadata),
                allow_override as c_int,
            )
        })
    }

    /// Makes a Function of the typed closure `f` (as [`Function::from_typed`])
    /// and registers it globally under `name` with its type schema in the
    /// metadata (every parameter and the return type must have a
    /// [`TypeSchema`]) and `doc`. Errors: as [`Function::register_global`].
    ///
    /// ```
    /// use xffi::Function;
    /// Function::register_global_typed("doc.scale", "x * k.", |x: f64, k: f64| Ok(x * k), false).unwrap();
    /// let scale = Function::get_global("doc.scale").unwrap().unwrap();
    /// assert_eq!(scale.call_typed::<f64, _>((2.0, 3.0)).unwrap(), 6.0);
    /// assert_eq!(Function::global_metadata("doc.scale").unwrap().unwrap(),
    ///     r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"float\"}],\"params\":[{\"type\":\"float\"},{\"type\":\"float\"}]}}"}"#);
    /// Function::remove_global("doc.scale").unwrap();
    /// ```
    pub fn register_global_typed<Args, F>(name: &str, doc: &str, f: F, allow_override: bool) -> Result<()>
    where
        F: IntoFunction<Args> + FunctionSchema<Args>,
    {
        let metadata = crate::schema::metadata(&F::function_schema());
        f.into_function()?.register_global_with_info(name, doc, &metadata, allow_override)
    }

    /// The metadata (JSON) kept with the global function `name`: `Ok(None)`
    /// if no function has the name, an empty string if it has none.
    ///
    /// ```
    /// assert!(xffi::Function::global_metadata("doc.no.such.function").unwrap().is_none());
    /// ```
    pub fn global_metadata(name: &str) -> Result<Option<std::string::String>> {
        let mut metadata = sys::xffi_any::none();
        let mut found = 0;
        let b = sys::xffi_byte_array { data: name.as_ptr().cast(), size: name.len() };
        // SAFETY: b describes name's bytes for the call; the out slots are writable.
        check(unsafe { sys::xffi_function_global_info(ptr::null_mut(), &mut metadata, &mut found, b) })?;
        // SAFETY: on success the slot holds an owned value (a String or None), taken over once.
        let metadata = unsafe { Any::from_raw(metadata) };
        if found == 0 {
            return Ok(None);
        }
        Ok(Some(metadata.get::<std::string::String>()?))
    }

    /// Looks up a global function: `Ok(None)` if no function has the name.
    ///
    /// ```
    /// assert!(xffi::Function::get_global("doc.no.such.function").unwrap().is_none());
    /// ```
    pub fn get_global(name: &str) -> Result<Option<Function>> {
        let mut out = ptr::null_mut();
        let b = sys::xffi_byte_array { data: name.as_ptr().cast(), size: name.len() };
        // SAFETY: b describes name's bytes, borrowed for the call; out is writable.
        check(unsafe { sys::xffi_function_global_lookup_bytes(&mut out, b) })?;
        // SAFETY: on success out holds a new reference to a Function, or NULL.
        Ok(unsafe { ObjectRef::from_raw(out) }.map(Function))
    }

    /// Removes a global function. Errors: KeyError if no function has the name.
    ///
    /// ```
    /// let err = xffi::Function::remove_global("doc.never.registered").unwrap_err();
    /// assert_eq!(err.kind(), xffi::ErrorKind::KeyError);
    /// ```
    pub fn remove_global(name: &str) -> Result<()> {
        let c = CString::new(name)?;
        // SAFETY: a NUL-terminated name, borrowed for the call.
        check(unsafe { sys::xffi_function_global_erase(c.as_ptr()) })
    }

    /// The names of all global functions (in no particular order).
    ///
    /// ```
    /// let f = xffi::Function::from_typed(|| Ok(1i64)).unwrap();
    /// f.register_global("doc.listed", true).unwrap();
    /// assert!(xffi::Function::list_globals().unwrap().iter().any(|n| n == "doc.listed"));
    /// ```
    pub fn list_globals() -> Result<Vec<std::string::String>> {
        loop {
            let mut total = 0i64;
            // SAFETY: sizing call.
            check(unsafe { sys::xffi_function_global_names(ptr::null_mut(), &mut total, 0) })?;
            let mut names: Vec<*mut sys::xffi_object> = vec![ptr::null_mut(); total as usize];
            let mut count = 0i64;
            // SAFETY: names has room for `total` references.
            check(unsafe { sys::xffi_function_global_names(names.as_mut_ptr(), &mut count, total) })?;
            let got = count.min(total) as usize;
            let out = names[..got]
                .iter()
                .map(|&p| {
                    // SAFETY: each of the first min(count, total) slots holds a
                    // new String reference, taken over here exactly once.
                    let s = crate::String::from_object(unsafe { ObjectRef::from_raw(p) }.expect("a name"));
                    std::string::String::from_utf8_lossy(s.as_bytes()).into_owned()
                })
                .collect();
            if count <= total {
                return Ok(out);
            }
        }
    }

    /// Whether the function was made by xffi's C code (its safe call is set).
    ///
    /// ```
    /// assert!(xffi::Function::from_typed(|| Ok(())).unwrap().is_callable());
    /// ```
    pub fn is_callable(&self) -> bool {
        self.0.cell.safe_call.is_some()
    }
}

impl fmt::Debug for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Function({:p})", self.0.as_ptr())
    }
}

/// A tuple of arguments for [`Function::call_typed`]: each element converts
/// into [`Any`] (no allocation for numbers, bools and strings up to 7 bytes).
///
/// ```
/// use xffi::{Function, IntoArgs};
/// // Generic over any argument tuple.
/// fn call_i64(f: &Function, args: impl IntoArgs) -> xffi::Result<i64> {
///     f.call_typed(args)
/// }
/// let add = Function::from_typed(|a: i64, b: i64| Ok(a + b)).unwrap();
/// assert_eq!(call_i64(&add, (2i64, 3i64)).unwrap(), 5);
/// // The wrong number of arguments is the callee's error.
/// assert!(call_i64(&add, (2i64,)).is_err());
/// ```
pub trait IntoArgs {
    /// Converts the arguments and lends their views to `f`.
    fn with_views<R>(self, f: impl FnOnce(&[AnyView<'_>]) -> R) -> R;
}

/// A typed Rust function that can become a [`Function`]
/// (see [`Function::from_typed`]): implemented for `Fn(A0, ..., An) ->
/// Result<R>` with up to 6 arguments, each either owned (`for<'v>
/// FromAnyView<'v>`: numbers, `String`, objects, containers) or borrowed from
/// the caller's argument (`&str`, `&[u8]`; marked [`Ref`] in `Args`).
///
/// ```
/// use xffi::IntoFunction;
/// let f = (|a: i64, s: &str| Ok(format!("{s}{a}"))).into_function().unwrap();
/// assert_eq!(f.call_typed::<String, _>((7i64, "n")).unwrap(), "n7");
/// ```
pub trait IntoFunction<Args> {
    /// Makes the function.
    fn into_function(self) -> Result<Function>;
}

/// A typed closure whose parameter and return types all have a
/// [`TypeSchema`]: its function schema (what [`Function::register_global_typed`]
/// writes into the global's metadata).
///
/// ```
/// use xffi::function::FunctionSchema;
/// fn schema_of<Args, F: FunctionSchema<Args>>(_: &F) -> String { F::function_schema() }
/// let f = |s: &str, n: i64| Ok(s.len() as i64 * n);
/// assert_eq!(schema_of(&f),
///     r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"ffi.String"},{"type":"int"}]}}"#);
/// ```
pub trait FunctionSchema<Args> {
    /// The schema, JSON ([`crate::schema::function_schema`]).
    fn function_schema() -> std::string::String;
}

/// The argument count as the calling convention's i32. Errors: ValueError
/// for more than i32::MAX arguments.
#[inline(always)]
fn arg_count(len: usize) -> Result<i32> {
    match i32::try_from(len) {
        Ok(n) => Ok(n),
        Err(_) => Err(too_many_args(len)),
    }
}

#[cold]
fn too_many_args(len: usize) -> Error {
    Error::value_error(&format!("Function::call: {len} arguments, at most {} fit the calling convention", i32::MAX))
}

// The error paths of typed functions, out of line: the hot path of a call
// keeps only the count test and one branch per argument.
#[cold]
#[inline(never)]
fn wrong_arg_count(expected: usize, got: usize) -> Error {
    Error::type_error(&format!("expected {expected} arguments, got {got}"))
}

#[cold]
#[inline(never)]
fn wrong_arg(index: usize, e: Error) -> Error {
    e.context(&format!("argument {index}"))
}

macro_rules! arity {
    ($n:expr; $($a:ident $i:tt),*) => {
        impl<$($a: Into<Any>),*> IntoArgs for ($($a,)*) {
            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn with_views<R>(self, f: impl FnOnce(&[AnyView<'_>]) -> R) -> R {
                let owned: std::mem::ManuallyDrop<[Any; $n]> = std::mem::ManuallyDrop::new([$(Into::<Any>::into(self.$i)),*]);
                // Which arguments hold a reference, read before the call: the
                // callee gets borrowed const views and must not change them,
                // so plain values (ints, floats, small strings) need no drop
                // afterwards, and the compiler can see that.
                let holds: [bool; $n] = [$(owned[$i].as_raw().is_object()),*];
                // SAFETY: AnyView is repr(transparent) over xffi_any, as Any
                // is, so $n Anys are $n valid views; they borrow `owned`,
                // which lives until after the call.
                let views: &[AnyView<'_>] = unsafe { std::slice::from_raw_parts(owned.as_ptr().cast(), $n) };
                let r = f(views);
                for (a, h) in owned.iter().zip(holds) {
                    if h {
                        // SAFETY: `owned` is ManuallyDrop, so each object it
                        // holds (h: tag checked before the call) is released
                        // exactly once, here.
                        unsafe { sys::xffi_object_dec_ref_inline(a.as_raw().value.v_obj) };
                    }
                }
                r
            }
        }

        typed_fn!(@build $n; [] [] [] [] [] []; $($a $i)*);
    };
}

/// Marks an argument position of [`IntoFunction`] that the function takes by
/// reference, `&T` borrowed from the caller's argument for the call: `&str`
/// and `&[u8]` (what `&'v T: FromAnyView<'v>` holds for). Only a type
/// parameter: the `Args` of `IntoFunction<Args>` for `|s: &str| ...` is `(Ref<str>,)`.
///
/// ```
/// use xffi::IntoFunction;
/// use xffi::function::Ref;
/// // Spelling the `Args` of a borrowed-`&str` closure names `Ref`.
/// fn make<F: IntoFunction<(Ref<str>,)>>(f: F) -> xffi::Function {
///     f.into_function().unwrap()
/// }
/// let len = make(|s: &str| Ok(s.len() as i64));
/// assert_eq!(len.call_typed::<i64, _>(("four",)).unwrap(), 4);
/// ```
pub struct Ref<T: ?Sized>(std::marker::PhantomData<fn(&T)>);

// The `IntoFunction` impls of one arity: every position is either owned (`A`,
// converted with `for<'v> FromAnyView<'v>`) or borrowed (`&A`, marked `Ref<A>`
// in `Args`), so 2^n impls for n arguments. The two kinds cannot overlap:
// `Ref<A>` is no `FromAnyView`.
macro_rules! typed_fn {
    (@build $n:expr; [$($spec:tt)*] [$($arg:tt)*] [$($pred:tt)*] [$($conv:tt)*] [$($g:ident)*] [$($spred:tt)*]; ) => {
        impl<Fun, Ret, $($g),*> IntoFunction<($($spec)*)> for Fun
        where
            Fun: for<'x> Fn($($arg)*) -> Result<Ret> + Send + Sync + 'static,
            Ret: Into<Any>,
            $($pred)*
        {
            fn into_function(self) -> Result<Function> {
                Function::from_closure(move |args: &[AnyView<'_>]| {
                    if args.len() != $n {
                        return Err(wrong_arg_count($n, args.len()));
                    }
                    let r = (self)($(typed_fn!(@conv args $conv)),*)?;
                    Ok(r.into())
                })
            }
        }

        impl<Fun, Ret, $($g),*> FunctionSchema<($($spec)*)> for Fun
        where
            Fun: for<'x> Fn($($arg)*) -> Result<Ret> + Send + Sync + 'static,
            Ret: TypeSchema,
            $($pred)*
            $($spred)*
        {
            fn function_schema() -> std::string::String {
                crate::schema::function_schema(&[$(typed_fn!(@schema $conv)),*], &Ret::type_schema())
            }
        }
    };
    (@build $n:expr; [$($spec:tt)*] [$($arg:tt)*] [$($pred:tt)*] [$($conv:tt)*] [$($g:ident)*] [$($spred:tt)*]; $a:ident $i:tt $($rest:tt)*) => {
        typed_fn!(@build $n; [$($spec)* $a,] [$($arg)* $a,] [$($pred)* $a: for<'v> FromAnyView<'v>,]
            [$($conv)* (owned $a $i)] [$($g)* $a] [$($spred)* $a: TypeSchema,]; $($rest)*);
        typed_fn!(@build $n; [$($spec)* Ref<$a>,] [$($arg)* &'x $a,]
            [$($pred)* $a: ?Sized + 'static, for<'v> &'v $a: FromAnyView<'v>,]
            [$($conv)* (borrowed $a $i)] [$($g)* $a] [$($spred)* &'static $a: TypeSchema,]; $($rest)*);
    };
    (@schema (owned $a:ident $i:tt)) => { <$a as TypeSchema>::type_schema() };
    (@schema (borrowed $a:ident $i:tt)) => { <&'static $a as TypeSchema>::type_schema() };
    (@conv $args:ident (owned $a:ident $i:tt)) => {
        match <$a as FromAnyView>::from_view(&$args[$i]) {
            Ok(v) => v,
            Err(e) => return Err(wrong_arg($i, e)),
        }
    };
    (@conv $args:ident (borrowed $a:ident $i:tt)) => {
        match <&$a as FromAnyView>::from_view(&$args[$i]) {
            Ok(v) => v,
            Err(e) => return Err(wrong_arg($i, e)),
        }
    };
}

arity!(0;);
arity!(1; A0 0);
arity!(2; A0 0, A1 1);
arity!(3; A0 0, A1 1, A2 2);
arity!(4; A0 0, A1 1, A2 2, A3 3);
arity!(5; A0 0, A1 1, A2 2, A3 3, A4 4);
arity!(6; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5);

#[allow(dead_code)]
fn _assert_boxed_closure_is_object_safe(_: &BoxedClosure) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arg_count_refuses_more_than_the_convention_holds() {
        assert_eq!(arg_count(0).unwrap(), 0);
        assert_eq!(arg_count(i32::MAX as usize).unwrap(), i32::MAX);
        let err = arg_count(i32::MAX as usize + 1).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::ValueError);
        assert_eq!(
            err.message(),
            "Function::call: 2147483648 arguments, at most 2147483647 fit the calling convention"
        );
    }
}
