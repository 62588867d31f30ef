//! Type schemas: the type of a value, a field or a function as tvm-ffi's
//! reflection metadata writes it, so that tvm-ffi's Python side and its stub
//! generator (`tvm-ffi-stubgen`) see the types of Rust fields, methods and
//! exported functions.
//!
//! A schema is a JSON object: `{"type":"int"}`, `{"type":"ffi.Array","args":[{"type":"float"}]}`,
//! an object type by its key (`{"type":"mykernels.Gain"}`), a function as
//! `{"type":"ffi.Function","named_args":{"return":[R],"params":[P0,P1]}}`.
//! The metadata of a field, a method or a function is the JSON object
//! `{"type_schema":"<the schema, as a JSON string>"}` ([`metadata`]).
//!
//! `#[derive(xffi::Object)]` writes each reflected field's schema,
//! `#[xffi::methods]` each method's and [`export_func!`](crate::export_func)
//! each exported function's (the `__tvm_ffi__metadata_<name>` symbol). A type
//! without a [`TypeSchema`] is described as `Any`: implement the trait to name
//! it.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU32, AtomicU64};

use crate::reflect::AtomicF64;
use crate::{
    Any, AnyView, Array, Bytes, DataType, Dict, Element, Error, Function, List, Map, Module, ObjectRef, ObjectType,
    Shape, String, Tensor,
};

/// A Rust type whose values tvm-ffi describes with a type schema.
///
/// ```
/// use xffi::schema::TypeSchema;
/// assert_eq!(i32::type_schema(), r#"{"type":"int"}"#);
/// assert_eq!(<Option<xffi::Array<f64>>>::type_schema(),
///            r#"{"type":"Optional","args":[{"type":"ffi.Array","args":[{"type":"float"}]}]}"#);
/// ```
pub trait TypeSchema {
    /// The schema, a JSON object (a new string).
    fn type_schema() -> std::string::String;
}

/// `{"type":"<origin>"}` with `origin` quoted as a JSON string.
fn plain(origin: &str) -> std::string::String {
    format!("{{\"type\":{}}}", json_string(origin))
}

/// `{"type":"<origin>","args":[...]}`.
fn with_args(origin: &str, args: &[std::string::String]) -> std::string::String {
    format!("{{\"type\":{},\"args\":[{}]}}", json_string(origin), args.join(","))
}

macro_rules! plain_schema {
    ($origin:literal: $($t:ty),* $(,)?) => {$(
        impl TypeSchema for $t {
            fn type_schema() -> std::string::String { plain($origin) }
        }
    )*};
}

plain_schema!("int": i8, i16, i32, i64, isize, u8, u16, u32, u64, usize,
              AtomicI32, AtomicI64, AtomicU32, AtomicU64);
plain_schema!("float": f32, f64, AtomicF64);
plain_schema!("bool": bool, AtomicBool);
plain_schema!("None": ());
plain_schema!("Any": Any, AnyView<'_>);
plain_schema!("ffi.String": &str, std::string::String, String);
plain_schema!("ffi.Bytes": &[u8], Vec<u8>, Bytes);
plain_schema!("ffi.Function": Function);
plain_schema!("ffi.Module": Module);
plain_schema!("ffi.Shape": Shape);
plain_schema!("ffi.Tensor": Tensor);
plain_schema!("ffi.Error": Error);
plain_schema!("DataType": DataType);

/// An object reference is its type, named by its key.
impl<T: ObjectType> TypeSchema for ObjectRef<T> {
    fn type_schema() -> std::string::String {
        plain(T::TYPE_KEY)
    }
}

/// None or a `T`.
impl<T: TypeSchema> TypeSchema for Option<T> {
    fn type_schema() -> std::string::String {
        with_args("Optional", &[T::type_schema()])
    }
}

/// A field behind a lock holds a `T`.
impl<T: TypeSchema> TypeSchema for Mutex<T> {
    fn type_schema() -> std::string::String {
        T::type_schema()
    }
}

impl<T: Element + TypeSchema> TypeSchema for Array<T> {
    fn type_schema() -> std::string::String {
        with_args("ffi.Array", &[T::type_schema()])
    }
}

impl<T: Element + TypeSchema> TypeSchema for List<T> {
    fn type_schema() -> std::string::String {
        with_args("ffi.List", &[T::type_schema()])
    }
}

impl<K: Element + TypeSchema, V: Element + TypeSchema> TypeSchema for Map<K, V> {
    fn type_schema() -> std::string::String {
        with_args("ffi.Map", &[K::type_schema(), V::type_schema()])
    }
}

impl<K: Element + TypeSchema, V: Element + TypeSchema> TypeSchema for Dict<K, V> {
    fn type_schema() -> std::string::String {
        with_args("ffi.Dict", &[K::type_schema(), V::type_schema()])
    }
}

/// The schema of a function taking `params` and returning `ret` (schemas,
/// borrowed), as tvm-ffi writes a typed function's.
///
/// ```
/// use xffi::schema::{TypeSchema, function_schema};
/// assert_eq!(function_schema(&[f64::type_schema()], &bool::type_schema()),
///            r#"{"type":"ffi.Function","named_args":{"return":[{"type":"bool"}],"params":[{"type":"float"}]}}"#);
/// ```
pub fn function_schema(params: &[std::string::String], ret: &str) -> std::string::String {
    format!("{{\"type\":\"ffi.Function\",\"named_args\":{{\"return\":[{ret}],\"params\":[{}]}}}}", params.join(","))
}

/// The metadata JSON that carries `schema` (borrowed): `{"type_schema":"..."}`,
/// the schema quoted as a JSON string, as tvm-ffi's reflection reads it.
///
/// ```
/// assert_eq!(xffi::schema::metadata(r#"{"type":"int"}"#), r#"{"type_schema":"{\"type\":\"int\"}"}"#);
/// ```
pub fn metadata(schema: &str) -> std::string::String {
    format!("{{\"type_schema\":{}}}", json_string(schema))
}

/// `text` as a JSON string literal (quotes, backslashes and control
/// characters escaped).
fn json_string(text: &str) -> std::string::String {
    let mut out = std::string::String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[doc(hidden)]
pub mod private {
    //! What the macros expand to: the schema of a type, or `Any` for a type
    //! without a [`TypeSchema`] (chosen at compile time by method lookup:
    //! `(&&SchemaProbe::<T>(PhantomData)).schema()`).
    use super::*;
    use std::marker::PhantomData;

    pub struct SchemaProbe<T: ?Sized>(pub PhantomData<T>);

    pub trait KnownSchema {
        fn schema(&self) -> std::string::String;
    }
    impl<T: TypeSchema + ?Sized> KnownSchema for &SchemaProbe<T> {
        fn schema(&self) -> std::string::String {
            T::type_schema()
        }
    }
    pub trait UnknownSchema {
        fn schema(&self) -> std::string::String;
    }
    impl<T: ?Sized> UnknownSchema for SchemaProbe<T> {
        fn schema(&self) -> std::string::String {
            plain("Any")
        }
    }
}

/// The schema of the type `$t`, or `{"type":"Any"}` when `$t` has no
/// [`TypeSchema`](crate::schema::TypeSchema) (what the macros use, so that
/// any argument type works).
///
/// ```
/// struct Opaque;
/// assert_eq!(xffi::schema_of!(i64), r#"{"type":"int"}"#);
/// assert_eq!(xffi::schema_of!(Opaque), r#"{"type":"Any"}"#);
/// ```
#[macro_export]
macro_rules! schema_of {
    ($t:ty) => {{
        #[allow(unused_imports)]
        use $crate::schema::private::{KnownSchema as _, UnknownSchema as _};
        (&&$crate::schema::private::SchemaProbe::<$t>(::core::marker::PhantomData)).schema()
    }};
}
