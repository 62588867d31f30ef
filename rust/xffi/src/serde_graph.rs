//! `serde::Serialize` and `serde::Deserialize` for [`Any`], [`ObjectRef<T>`]
//! and the containers (feature `serde`), writing tvm-ffi's JSON graph.
//!
//! A value is written as the graph [`to_json`] makes —
//! `{"root_index": R, "nodes": [{"type": <type key>, "data": ...}, ...]}`,
//! one node per distinct value, sharing kept by node indices — through the
//! serde data model (a map, sequences, strings, integers, floats, bools and
//! unit for null). So `serde_json` writes, byte for byte, the text
//! `ffi.ToJSONGraphString` writes, which tvm-ffi's `FromJSONGraph` and
//! [`from_json`] read; any other self-describing serde
//! format (CBOR, MessagePack...) holds the same graph and reads back to a
//! structurally equal value. Formats that cannot read without a schema
//! (`deserialize_any`), such as bincode, can write but not read.
//!
//! ```
//! use xffi::{Any, Array};
//! let shared: Array<i64> = vec![1, 2].into_iter().collect();
//! let value: Array<Any> = vec![Any::from(&shared), Any::from(&shared)].into_iter().collect();
//! let text = serde_json::to_string(&value).unwrap();
//! assert_eq!(text, r#"{"root_index":3,"nodes":[{"type":"int","data":1},{"type":"int","data":2},{"type":"ffi.Array","data":[0,1]},{"type":"ffi.Array","data":[2,2]}]}"#);
//! let back: Array<Any> = serde_json::from_str(&text).unwrap();
//! assert!(xffi::structural_equal(&back, &value).unwrap());
//! ```
//!
//! Reading checks everything: a graph of the wrong shape, a node index out
//! of range, a node that leads back to itself, an unknown type key or data
//! of the wrong type is an error naming the node (from C), and nesting deeper
//! than [`MAX_DEPTH`] levels is an error before the stack can run out, in
//! formats that have no limit of their own. A float that is NaN or infinite
//! writes as JSON `null` in `serde_json` (which cannot write them), so such a
//! graph reads back with an error; binary formats keep them.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use xffi_sys as sys;

use crate::any::{Any, AnyView};
use crate::array::{Array, Element, List};
use crate::json::{from_json, to_json};
use crate::map::{Dict, Map};
use crate::object::{ObjectRef, ObjectType};
use crate::string::{Bytes, String};
use crate::tensor::Shape;

/// The deepest nesting of the graph's JSON values read or written (the
/// graph itself is 4 levels deep; metadata may add more). Deeper input is an
/// error, so hostile input cannot exhaust the stack of a format without a
/// recursion limit of its own.
pub const MAX_DEPTH: usize = 128;

/// A JSON-like value of the graph (Map, Array, string, number, bool, None)
/// at a nesting depth, written through serde.
struct GraphValue<'a> {
    value: AnyView<'a>,
    depth: usize,
}

impl Serialize for GraphValue<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.depth > MAX_DEPTH {
            return Err(ser::Error::custom(format_args!("xffi graph: nesting deeper than {MAX_DEPTH} levels")));
        }
        let v = &self.value;
        match v.type_index() {
            sys::XFFI_TYPE_NONE => s.serialize_unit(),
            sys::XFFI_TYPE_BOOL => s.serialize_bool(v.get::<bool>().map_err(ser::Error::custom)?),
            sys::XFFI_TYPE_INT => s.serialize_i64(v.get::<i64>().map_err(ser::Error::custom)?),
            sys::XFFI_TYPE_FLOAT => s.serialize_f64(v.get::<f64>().map_err(ser::Error::custom)?),
            sys::XFFI_TYPE_SMALL_STR | sys::XFFI_TYPE_RAW_STR | sys::XFFI_TYPE_STRING => {
                s.serialize_str(v.get::<&str>().map_err(ser::Error::custom)?)
            }
            sys::XFFI_TYPE_ARRAY => {
                let items: Array<Any> = v.get().map_err(ser::Error::custom)?;
                let views = items.views();
                let mut seq = s.serialize_seq(Some(views.len()))?;
                for item in views {
                    seq.serialize_element(&GraphValue { value: *item, depth: self.depth + 1 })?;
                }
                seq.end()
            }
            sys::XFFI_TYPE_MAP => {
                let entries: Map<Any, Any> = v.get().map_err(ser::Error::custom)?;
                let mut map = s.serialize_map(Some(entries.len()))?;
                for entry in entries.iter() {
                    let (key, value) = entry.map_err(ser::Error::custom)?;
                    map.serialize_entry(
                        &GraphValue { value: key.view(), depth: self.depth + 1 },
                        &GraphValue { value: value.view(), depth: self.depth + 1 },
                    )?;
                }
                map.end()
            }
            _ => Err(ser::Error::custom(format_args!(
                "xffi graph: a {} inside a JSON graph (expected a JSON value)",
                v.kind_name()
            ))),
        }
    }
}

/// Writes the JSON graph of `value` (borrowed) through `s`.
fn serialize_value<S: Serializer>(value: &AnyView<'_>, s: S) -> Result<S::Ok, S::Error> {
    let graph = to_json(value, &Any::none()).map_err(ser::Error::custom)?;
    GraphValue { value: graph.view(), depth: 0 }.serialize(s)
}

/// Reads a JSON-like value (the graph) at a nesting depth.
#[derive(Clone, Copy)]
struct GraphSeed {
    depth: usize,
}

impl GraphSeed {
    fn deeper<E: de::Error>(self) -> Result<GraphSeed, E> {
        if self.depth >= MAX_DEPTH {
            return Err(E::custom(format_args!("xffi graph: nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(GraphSeed { depth: self.depth + 1 })
    }
}

impl<'de> DeserializeSeed<'de> for GraphSeed {
    type Value = Any;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Any, D::Error> {
        d.deserialize_any(self)
    }
}

fn c_error<E: de::Error>(e: crate::Error) -> E {
    E::custom(e)
}

impl<'de> Visitor<'de> for GraphSeed {
    type Value = Any;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an xffi JSON graph value (map, sequence, string, number, bool or null)")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Any, E> {
        Ok(Any::none())
    }
    fn visit_none<E: de::Error>(self) -> Result<Any, E> {
        Ok(Any::none())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Any, D::Error> {
        self.deeper()?.deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Any, E> {
        Ok(Any::from(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Any, E> {
        Ok(Any::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Any, E> {
        // As json.Parse: an integer that does not fit in int64 is a float.
        Ok(i64::try_from(v).map(Any::from).unwrap_or_else(|_| Any::from(v as f64)))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Any, E> {
        Ok(i64::try_from(v).map(Any::from).unwrap_or_else(|_| Any::from(v as f64)))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Any, E> {
        Ok(i64::try_from(v).map(Any::from).unwrap_or_else(|_| Any::from(v as f64)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Any, E> {
        Ok(Any::from(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Any, E> {
        Any::from_str(v).map_err(c_error)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Any, A::Error> {
        let inner = self.deeper()?;
        // The size hint comes from the input: trust it only so far.
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Array::from_vec(items).map(Any::from).map_err(c_error)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Any, A::Error> {
        let inner = self.deeper()?;
        let mut out: Map<Any, Any> = Map::new().map_err(c_error)?;
        while let Some(key) = map.next_key_seed(inner)? {
            let value = map.next_value_seed(inner)?;
            out.insert(key, value).map_err(c_error)?;
        }
        Ok(Any::from(out))
    }
}

/// Reads a JSON graph through `d` and returns the value it stands for.
fn deserialize_value<'de, D: Deserializer<'de>>(d: D) -> Result<Any, D::Error> {
    let graph = GraphSeed { depth: 0 }.deserialize(d)?;
    from_json(&graph).map_err(de::Error::custom)
}

impl Serialize for AnyView<'_> {
    /// Writes the value's JSON graph (see the [module docs](self)).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_value(self, s)
    }
}

impl Serialize for Any {
    /// Writes the value's JSON graph (see the [module docs](self)).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_value(&self.view(), s)
    }
}

impl<'de> Deserialize<'de> for Any {
    /// Reads a JSON graph and makes the value it stands for.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Any, D::Error> {
        deserialize_value(d)
    }
}

impl<T: ObjectType> Serialize for ObjectRef<T> {
    /// Writes the object's JSON graph.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_value(&AnyView::object(self), s)
    }
}

impl<'de, T: ObjectType> Deserialize<'de> for ObjectRef<T> {
    /// Reads a JSON graph whose root must be a `T` (else a TypeError).
    /// A Rust-defined `T` (and the object types of its fields) is registered
    /// first, so that the graph's type keys are known even before the first
    /// `T` is made; the types held in `Any` fields register on their first use.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::checked_type_index().map_err(de::Error::custom)?;
        deserialize_value(d)?.get().map_err(de::Error::custom)
    }
}

/// Serialize and Deserialize for a handle type through its graph.
macro_rules! graph_serde {
    ($([$($gen:tt)*] $ty:ty),* $(,)?) => {$(
        impl<$($gen)*> Serialize for $ty {
            /// Writes the value's JSON graph.
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                serialize_value(&AnyView::object(self.as_object()), s)
            }
        }
        impl<'de, $($gen)*> Deserialize<'de> for $ty {
            /// Reads a JSON graph whose root must be of this type (elements
            /// converted as `get` converts them), else a TypeError.
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                deserialize_value(d)?.get().map_err(de::Error::custom)
            }
        }
    )*};
}

graph_serde!(
    [T: Element] Array<T>,
    [T: Element] List<T>,
    [K: Element, V: Element] Map<K, V>,
    [K: Element, V: Element] Dict<K, V>,
    [] String,
    [] Bytes,
    [] Shape,
);
