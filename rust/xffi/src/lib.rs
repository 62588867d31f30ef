//! # xffi: objects, values and functions shared between Rust and C
//!
//! xffi is a C11 cross-language object and function ABI, layout-compatible
//! with tvm-ffi 0.1. This crate is its safe Rust layer; the C core is
//! compiled from source by `xffi-sys` (`cargo add xffi` is all you need).
//!
//! - [`ObjectRef<T>`]: the owning, reference-counted pointer (Clone is an
//!   inc-ref, Drop a dec-ref; never `&mut`), [`WeakRef<T>`] weak references,
//!   and [`object_type!`] to make a Rust struct an xffi type.
//! - [`Any`] / [`AnyView`]: owned and borrowed 16-byte values with checked
//!   conversions ([`FromAnyView`], `Into<Any>`).
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
//! - Feature `serde` (off by default): `Serialize`/`Deserialize` for [`Any`],
//!   [`ObjectRef<T>`] and the containers as tvm-ffi's JSON graph, in any serde
//!   format (module `serde_graph`).
//!
//! ```
//! use xffi::{object_type, Any, Array, Function, ObjectRef};
//!
//! struct Greeter { greeting: std::string::String }
//! object_type!(Greeter, "doc.lib.Greeter");
//!
//! let g = ObjectRef::new(Greeter { greeting: "hello".into() }).unwrap();
//! let greet = Function::from_typed(|g: ObjectRef<Greeter>, name: std::string::String| {
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
pub use function::{Function, FunctionObj, IntoArgs, IntoFunction};
pub use json::{from_json, from_json_str, json_parse, json_stringify, to_json, to_json_string};
pub use key::KeyView;
pub use map::{Dict, DictObj, Map, MapObj};
pub use module::{Module, ModuleObj};
pub use object::{IsA, Object, ObjectRef, ObjectType, RustObject, WeakRef};
pub use string::{Bytes, BytesObj, String, StringObj};
pub use structural::{Mismatch, Structural, StructuralOptions, first_mismatch, structural_equal, structural_hash};
pub use tensor::{DataType, Scalar, Shape, ShapeObj, Tensor, TensorObj};
pub use tensor_owned::UniqueTensor;
/// `#[derive(xffi::Object)]` and `#[xffi::methods]`: see [`reflect`] and the `xffi-derive` crate.
pub use xffi_derive::{Object, methods};

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
