//! The Rust plugin of the plugin matrix (tests/plugin_matrix/README.md).
//!
//! At load it registers the derived type `matrix.RustKernel` (fields
//! `scale: int` read-only, `gain: float` writable, `label: str` read-only;
//! `default`, so the JSON graph can make it;
//! `__ffi_init__(scale, label)`; method `apply(x) -> scale * x * gain`).
//! It exports, as `__tvm_ffi_<name>`:
//! - `add(a, b) -> a + b`;
//! - `fail(message)`: returns `Err(ValueError(message))`;
//! - `panic_now(message)`: panics (a RuntimeError at the boundary);
//! - `make_failing_function()`, `make_panicking_function()`: a `Function`
//!   (a Rust closure) that returns `Err(ValueError("callback failed"))`, or
//!   panics with "callback panicked", when called;
//! - `make_kernel(scale, label) -> matrix.RustKernel` (gain 1.0);
//! - `kernel_type_index()`: the index the plugin's registry gave the type;
//! - `register_product()`: registers the global function
//!   `matrix.rust.product` (`(a, b) -> a * b`), which the process's other
//!   code finds by name;
//! - `call_global(name, a, b)`: looks `name` up among the global functions
//!   (the process's: the host's, other plugins') and calls it with `(a, b)`;
//! - `is_instance(key, obj) -> bool`: whether `obj` is of the type registered
//!   under `key` (or derived from it), another plugin's type too (KeyError
//!   for a key no type has);
//! - `get_field(obj, name)`: `obj`'s field called `name`, read by name;
//! - on an object of any type the process has (its own, a C++ library's, one
//!   Python defined): `get_field(obj, name)` above, `call_method(obj, name, arg)`,
//!   `repr_of(obj)`, `structural_hash(obj)`, `structural_equal(a, b)` and
//!   `is_instance_of(obj, type_key)`, through the xffi crate.
use xffi::reflect::{AtomicF64, TypeRef};
use xffi::{Any, AnyView, Error, ErrorKind, Function, Object, ObjectRef, RustObject, export_func};

xffi::export_abi_marker!();

/// A kernel: `apply(x)` is `scale * x * gain`. `default`: other runtimes
/// can make it empty and set its fields (the JSON graph reader does);
/// compared structurally as a tree.
#[derive(xffi::Object, Default)]
#[xffi(type_key = "matrix.RustKernel", structural_eq = "tree", default)]
pub struct RustKernel {
    /// The factor (read-only).
    #[xffi(get)]
    scale: i64,
    /// The gain any language may change.
    #[xffi(get, set, default = 1.0)]
    gain: AtomicF64,
    /// Its name (read-only).
    #[xffi(get)]
    label: String,
}

#[xffi::methods]
impl RustKernel {
    /// Makes a kernel (Python's `RustKernel(scale, label)`).
    #[xffi(name = "__ffi_init__")]
    fn create(scale: i64, label: String) -> xffi::Result<ObjectRef<RustKernel>> {
        ObjectRef::new(RustKernel { scale, gain: AtomicF64::new(1.0), label })
    }
    /// `scale * x * gain`.
    fn apply(&self, x: f64) -> f64 {
        self.scale as f64 * x * self.gain.load()
    }
}

xffi::register_types_at_load!(RustKernel);

export_func!(
    fn add(a: i64, b: i64) -> i64 {
        Ok(a + b)
    }
);

export_func!(
    fn fail(message: String) -> () {
        Err(Error::value_error(&message))
    }
);

export_func!(
    fn panic_now(message: String) -> () {
        panic!("{message}")
    }
);

export_func!(
    fn make_failing_function() -> Function {
        Function::from_typed(|| -> xffi::Result<i64> { Err(Error::value_error("callback failed")) })
    }
);

export_func!(
    fn make_panicking_function() -> Function {
        Function::from_typed(|| -> xffi::Result<i64> { panic!("callback panicked") })
    }
);

export_func!(
    fn make_kernel(scale: i64, label: String) -> ObjectRef<RustKernel> {
        RustKernel::create(scale, label)
    }
);

export_func!(
    fn kernel_type_index() -> i64 {
        Ok(i64::from(RustKernel::try_type_index()?))
    }
);

export_func!(
    fn register_product() -> () {
        Function::from_typed(|a: i64, b: i64| -> xffi::Result<i64> { Ok(a * b) })?
            .register_global("matrix.rust.product", false)
    }
);

export_func!(
    fn call_global(name: String, a: i64, b: i64) -> i64 {
        let Some(f) = Function::get_global(&name)? else {
            return Err(Error::new(ErrorKind::KeyError, &format!("no global function named {name}")));
        };
        f.call_typed::<i64, _>((a, b))
    }
);

export_func!(
    fn is_instance(key: String, obj: ObjectRef<Object>) -> bool {
        let target = TypeRef::by_key(&key)?;
        let mut yes = 0;
        // SAFETY: a valid out slot and an object obj keeps alive for the call.
        let status = unsafe { xffi::sys::xffi_object_is_a(&mut yes, obj.as_ptr(), target.index()) };
        if status != 0 {
            return Err(Error::take_raised());
        }
        Ok(yes != 0)
    }
);

export_func!(
    fn get_field(obj: ObjectRef<Object>, name: String) -> Any {
        obj.get_field(&name)
    }
);

// Objects of any type the process has (its own, a C++ library's, one Python
// defined), read through the xffi crate (fields by name: get_field above): methods by name, repr,
// structural hash and equality, and the downcast test against a type found
// by key.
export_func!(
    fn call_method(obj: ObjectRef<Object>, name: String, arg: Any) -> Any {
        obj.call_method(&name, (arg,))
    }
);

export_func!(
    fn repr_of(obj: ObjectRef<Object>) -> String {
        xffi::reflect::repr(&AnyView::object(&obj))
    }
);

export_func!(
    fn structural_hash(obj: ObjectRef<Object>) -> i64 {
        Ok(xffi::structural_hash(&obj)? as i64)
    }
);

export_func!(
    fn structural_equal(a: ObjectRef<Object>, b: ObjectRef<Object>) -> bool {
        xffi::structural_equal(&a, &b)
    }
);

export_func!(
    fn is_instance_of(obj: ObjectRef<Object>, type_key: String) -> bool {
        Ok(obj.is_instance_of(&TypeRef::by_key(&type_key)?))
    }
);
