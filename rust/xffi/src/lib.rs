//! # xffi: objects, values and functions shared between Rust, C and Python
//!
//! xffi is a C11 cross-language object and function ABI, layout-compatible
//! with tvm-ffi 0.1 (so with its Python package, `tvm_ffi`). This crate is its
//! safe Rust layer; the C core is compiled from source by `xffi-sys`, so
//! `cargo add xffi` is all a build needs (a C compiler, no CMake or Python).
//!
//! ## A plugin: functions and types other languages load
//!
//! A plugin is a `cdylib` (`[lib] crate-type = ["cdylib"]` in Cargo.toml)
//! that exports functions with [`export_func!`] and registers its types when
//! it is loaded with [`register_types_at_load!`]:
//!
//! ```
//! use xffi::{ObjectRef, reflect::AtomicF64};
//!
//! xffi::export_abi_marker!(); // once per library: the ABI version loaders check
//!
//! // Exported as `__tvm_ffi_scale`: callable from C, Python and Rust hosts.
//! xffi::export_func!(fn scale(x: f64, k: f64) -> f64 { Ok(x * k) });
//!
//! /// A reflected type: its marked fields are read (and, if synchronised,
//! /// written) by name from any language; Rust reads them directly.
//! #[derive(xffi::Object)]
//! #[xffi(type_key = "mykernels.Gain")]
//! pub struct Gain {
//!     #[xffi(get)]
//!     channels: i32,
//!     #[xffi(get, set)]
//!     factor: AtomicF64,
//! }
//!
//! #[xffi::methods]
//! impl Gain {
//!     /// Python's `Gain(channels, factor)` calls the method named `__ffi_init__`.
//!     #[xffi(name = "__ffi_init__")]
//!     fn create(channels: i32, factor: f64) -> xffi::Result<ObjectRef<Gain>> {
//!         ObjectRef::new(Gain { channels, factor: AtomicF64::new(factor) })
//!     }
//!     fn apply(&self, x: f64) -> f64 {
//!         x * self.factor.load()
//!     }
//! }
//!
//! xffi::register_types_at_load!(Gain); // a host finds "mykernels.Gain" right after loading
//!
//! # let g = Gain::create(2, 1.5).unwrap();
//! # assert_eq!(g.call_method("apply", (2.0,)).unwrap().get::<f64>().unwrap(), 3.0);
//! # assert_eq!(g.get_field("channels").unwrap().get::<i64>().unwrap(), 2);
//! ```
//!
//! From Python, through tvm-ffi's package (`apache-tvm-ffi`) running on xffi's
//! runtime, its drop-in `libtvm_ffi.so` (the repository's
//! `docs/guide-rust-plugin.md` walks through it, `docs/tvm-ffi.md` says which
//! runtime serves in each arrangement):
//!
//! ```python
//! import tvm_ffi
//! lib = tvm_ffi.load_module("target/release/libmykernels.so")
//! assert lib.scale(2.0, 3.0) == 6.0
//!
//! @tvm_ffi.register_object("mykernels.Gain")
//! class Gain(tvm_ffi.Object): pass
//! g = Gain(2, 1.5); g.factor = 2.0; assert g.apply(3.0) == 6.0
//! ```
//!
//! A plugin loaded into a process that has a runtime already (Python's
//! `tvm_ffi`, a C host linked with libxffi) must use that runtime rather than a
//! copy of its own: build it with the **`system` feature**, which links the
//! shared library in `XFFI_LIB_DIR` (`libxffi`, or xffi's drop-in
//! `libtvm_ffi`) or the `libxffi` that pkg-config finds, instead of compiling
//! the C core in. Without the feature the core is linked statically, which is
//! right for a self-contained program.
//!
//! ## A host: load a library and call into it
//!
//! ```no_run
//! use xffi::{Function, Module};
//! // SAFETY: the library is a plugin built as above; loading it runs its initialisers.
//! let lib = unsafe { Module::load("target/release/libmykernels.so") }?;
//! // SAFETY: `scale` follows the safe-call convention (export_func! wrote it).
//! let scale: Function = unsafe { lib.get_function("scale") }?.expect("exported");
//! let y: f64 = scale.call_typed((2.0, 3.0))?;
//! assert_eq!(y, 6.0);
//! # Ok::<(), xffi::Error>(())
//! ```
//!
//! Functions also come from Rust closures ([`Function::from_typed`], whose
//! arguments may be owned or borrowed, `&str` and `&[u8]`) and from the
//! process's global registry ([`Function::get_global`]). Errors cross every
//! boundary as [`Error`]s: `?` converts any standard error into one, and an
//! `Err` returned to C, C++ or Python is raised there.
//!
//! ## What the crate holds
//!
//! - [`ObjectRef<T>`]: the owning, reference-counted pointer (Clone is an
//!   inc-ref, Drop a dec-ref; never `&mut`), [`WeakRef<T>`] weak references,
//!   and [`object_type!`] to make a Rust struct an xffi type without reflection;
//!   `#[derive(xffi::Object)]` and `#[xffi::methods]` ([`reflect`]) to reflect
//!   its fields and methods.
//! - [`Any`] / [`AnyView`]: owned and borrowed 16-byte values with checked
//!   conversions ([`Any::get`], [`Any::to`], `TryFrom<Any>`, `Into<Any>`).
//! - [`Error`] and [`Result`]: errors raised by C become `Err`, and a Rust
//!   `Err` returned to C is raised there, so `?` works across the boundary;
//!   [`ErrorKind`] is the kind as an enum, and `source()` follows the cause chain.
//! - [`ffi_boundary!`]: the one panic boundary of every function C calls
//!   (a panic becomes a RuntimeError, or an abort where nothing can be reported).
//! - [`Function`]: Rust closures and typed functions callable from C
//!   (panics are caught at the boundary), C functions callable with typed
//!   arguments, the global registry; [`Module`] loads shared libraries.
//! - Containers: [`String`], [`Bytes`], [`Array`], [`List`], [`Map`],
//!   [`Dict`], [`Shape`], [`Tensor`] (DLPack import/export, checked slices).
//! - [`structural`]: tvm-ffi's structural equality and hashing
//!   ([`structural_equal`], [`structural_hash`], [`first_mismatch`],
//!   [`Structural`] as a `HashMap` key); [`deep_copy`]; [`json`]: the JSON
//!   graph ([`to_json`], [`to_json_string`], [`from_json`], [`from_json_str`])
//!   and JSON text ([`json_parse`], [`json_stringify`]); [`reflect::repr`],
//!   the text of any value (what `Debug` prints for objects).
//!
//! ## Features
//!
//! - `system` (off): link a shared libxffi or xffi's drop-in `libtvm_ffi`
//!   instead of the bundled C core (see above; `xffi-sys` documents
//!   `XFFI_LIB_DIR`, `XFFI_LIB_NAME` and how the loader finds the library).
//! - `serde` (off): `Serialize`/`Deserialize` for [`Any`], [`ObjectRef<T>`]
//!   and the containers as tvm-ffi's JSON graph, in any serde format (module
//!   `serde_graph`).
//!
//! ```
//! use xffi::{object_type, Any, Array, Function, ObjectRef};
//!
//! struct Greeter { greeting: std::string::String }
//! object_type!(Greeter, "doc.lib.Greeter");
//!
//! let g = ObjectRef::new(Greeter { greeting: "hello".into() }).unwrap();
//! let greet = Function::from_typed(|g: ObjectRef<Greeter>, name: &str| {
//!     Ok(format!("{}, {name}", g.greeting))
//! }).unwrap();
//! let s: std::string::String = greet.call_typed((g.clone(), "xffi")).unwrap();
//! assert_eq!(s, "hello, xffi");
//!
//! let a: Array<Any> = vec![Any::from(1i64), Any::from("two"), Any::from(g)].into_iter().collect();
//! assert_eq!(a.len(), 3);
//! ```
#![warn(missing_docs)]

// Bottom up: a module uses only those listed before it (the macros of
// `boundary`, `wrapper` and `object` expand where they are used).
pub mod error;
mod error_std;
pub mod boundary;
pub mod object;
pub mod any;
mod wrapper;
pub mod string;
pub mod array;
pub mod key;
pub mod map;
pub mod tensor;
mod tensor_scalar;
mod tensor_owned;
#[cfg(feature = "ndarray")]
mod tensor_ndarray;
#[cfg(feature = "dlpark")]
mod tensor_dlpark;
pub mod function;
pub mod module;
pub mod export;
mod repr;
pub mod reflect;
pub mod schema;
mod deep_copy;
pub mod json;
pub mod structural;
pub mod structural_visit;
#[cfg(feature = "serde")]
pub mod serde_graph;

pub use any::{Any, AnyView, FromAnyView};
pub use array::{Array, ArrayObj, Element, List, ListObj};
pub use deep_copy::deep_copy;
pub use error::{Error, ErrorKind, Result};
pub use function::{Function, FunctionObj, FunctionSchema, IntoArgs, IntoFunction};
pub use json::{from_json, from_json_str, json_parse, json_stringify, to_json, to_json_string};
pub use key::{BorrowKey, KeyView};
pub use map::{Dict, DictObj, Map, MapObj};
pub use module::{Module, ModuleObj};
pub use object::{IsA, Object, ObjectRef, ObjectType, RustObject, WeakRef};
pub use string::{Bytes, BytesObj, String, StringObj};
pub use structural::{Mismatch, Structural, StructuralOptions, first_mismatch, structural_equal, structural_hash};
pub use tensor::{DataType, Scalar, Shape, ShapeObj, Tensor, TensorObj};
pub use tensor_owned::UniqueTensor;
/// `#[derive(xffi::Object)]`: a struct as an xffi object type whose
/// `#[xffi(get)]` fields (and synchronised `#[xffi(get, set)]` ones) any
/// language reads and writes by name; see [`reflect`] and the `xffi-derive`
/// crate's README for the attributes.
///
/// ```
/// use std::sync::atomic::{AtomicI64, Ordering};
/// #[derive(xffi::Object)]
/// #[xffi(type_key = "doc.derive.Account")]
/// struct Account {
///     #[xffi(get)]
///     owner: String,
///     #[xffi(get, set)]
///     balance: AtomicI64,
/// }
/// let a = xffi::ObjectRef::new(Account { owner: "ann".into(), balance: AtomicI64::new(10) }).unwrap();
/// assert_eq!(a.get_field("owner").unwrap().get::<String>().unwrap(), "ann");
/// a.set_field("balance", 25i64).unwrap();
/// assert_eq!(a.balance.load(Ordering::Relaxed), 25);
/// assert!(a.set_field("owner", "bob").is_err()); // read-only
/// ```
pub use xffi_derive::Object;
/// `#[xffi::methods]`: an `impl` block's methods as the type's reflected
/// methods, `&self` ones as instance methods and the others as static ones,
/// callable by name from any language; see [`reflect`] and the
/// `xffi-derive` crate's README.
///
/// ```
/// #[derive(xffi::Object)]
/// #[xffi(type_key = "doc.methods.Range")]
/// struct Range {
///     #[xffi(get)]
///     start: i64,
///     #[xffi(get)]
///     end: i64,
/// }
///
/// #[xffi::methods]
/// impl Range {
///     /// Python's `Range(start, end)` calls `__ffi_init__`.
///     #[xffi(name = "__ffi_init__")]
///     fn create(start: i64, end: i64) -> xffi::Result<xffi::ObjectRef<Range>> {
///         if start > end {
///             return Err(xffi::Error::value_error("Range: start after end"));
///         }
///         xffi::ObjectRef::new(Range { start, end })
///     }
///     fn len(&self) -> i64 {
///         self.end - self.start
///     }
/// }
///
/// let r = Range::create(2, 5).unwrap(); // the type registers on first use
/// assert_eq!(r.call_method("len", ()).unwrap().get::<i64>().unwrap(), 3);
/// // By name, as another language calls it.
/// let t = xffi::reflect::TypeRef::by_key("doc.methods.Range").unwrap();
/// let r: xffi::ObjectRef<Range> = t.call_static("__ffi_init__", (1i64, 5i64)).unwrap().get().unwrap();
/// assert_eq!(r.len(), 4);
/// assert!(t.call_static("__ffi_init__", (5i64, 2i64)).is_err());
/// ```
pub use xffi_derive::methods;

/// The raw bindings, re-exported.
pub use xffi_sys as sys;

/// The version of the linked C library ("MAJOR.MINOR.PATCH").
///
/// ```
/// assert_eq!(xffi::version(), "0.1.0");
/// ```
pub fn version() -> &'static str {
    // SAFETY: xffi_version returns a NUL-terminated string in static
    // storage, never NULL, so it lives for 'static.
    unsafe { std::ffi::CStr::from_ptr(sys::xffi_version()) }.to_str().unwrap_or("?")
}
