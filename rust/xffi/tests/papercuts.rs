//! What a Rust plugin author reaches for first and the crate had to grow:
//! a `Map<xffi::String, V>` looked up by `&str`, `TryFrom<Any>` and
//! `Any::to`, `?` on any standard error type into `xffi::Error`, typed
//! functions borrowing `&str` and `&[u8]` arguments, and reflected fields of
//! every integer width and `f32`. Each of these failed to compile before.
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

use xffi::{Any, Array, Error, ErrorKind, Function, Map, ObjectRef};

#[test]
fn a_map_with_xffi_string_keys_is_looked_up_by_str() {
    let long = "a key longer than seven bytes";
    let m: Map<xffi::String, i64> =
        [(xffi::String::from("short"), 1), (xffi::String::from(long), 2)].into_iter().collect();
    assert_eq!(m.get("short").unwrap(), Some(1));
    assert_eq!(m.get(long).unwrap(), Some(2));
    assert_eq!(m.get("absent").unwrap(), None);
    assert!(m.contains_key(long).unwrap());
    let d = xffi::Dict::<xffi::String, i64>::new().unwrap();
    d.insert(xffi::String::from(long), 3).unwrap();
    assert_eq!(d.get(long).unwrap(), Some(3));
    let b: Map<xffi::Bytes, i64> = [(xffi::Bytes::new(b"\xff\x00raw").unwrap(), 4)].into_iter().collect();
    assert_eq!(b.get(b"\xff\x00raw".as_slice()).unwrap(), Some(4));
}

#[test]
fn any_converts_with_try_from_and_to() {
    assert_eq!(i64::try_from(Any::from(5i64)).unwrap(), 5);
    assert_eq!(u8::try_from(Any::from(255i64)).unwrap(), 255);
    let err = u8::try_from(Any::from(256i64)).unwrap_err();
    assert_eq!((err.kind(), err.message().as_ref()), (ErrorKind::ValueError, "expected uint8, got 256 (out of range)"));
    let s: std::string::String = Any::from("hello").try_into().unwrap();
    assert_eq!(s, "hello");
    let a: Array<i64> = [1i64, 2].into_iter().collect();
    let back: Array<i64> = Any::from(a).try_into().unwrap();
    assert_eq!(back.len(), 2);
    let err = Array::<i64>::try_from(Any::from(1.5)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeError);
    assert_eq!(Any::from(2.5).to::<f64>().unwrap(), 2.5);
    assert!(Any::from(true).to::<bool>().unwrap());
    assert_eq!(Any::from(7i64).to::<xffi::String>().unwrap_err().kind(), ErrorKind::TypeError);
}

/// A user's own error type, with a source.
#[derive(Debug)]
struct ConfigError {
    key: &'static str,
    source: std::num::ParseIntError,
}
impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad value for {}", self.key)
    }
}
impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

fn read_config(value: &str) -> Result<i64, ConfigError> {
    value.parse().map_err(|source| ConfigError { key: "threads", source })
}

fn exported(value: &str) -> xffi::Result<i64> {
    let n = read_config(value)?; // the papercut: a user error type through `?`
    let m: i64 = value.parse()?; // and a std one
    Ok(n + m)
}

#[test]
fn question_mark_converts_any_error_with_its_sources_as_causes() {
    assert_eq!(exported("4").unwrap(), 8);
    let err = exported("four").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::RuntimeError);
    assert_eq!(err.message(), "bad value for threads");
    assert_eq!(err.cause().unwrap().message(), "invalid digit found in string");
    // The same chain through the standard trait, by Deref.
    assert_eq!(err.source().unwrap().to_string(), "RuntimeError: invalid digit found in string");
    // The std library's conversion errors keep their kind.
    let bytes = vec![0xffu8];
    let utf8: xffi::Result<&str> = (|| Ok(std::str::from_utf8(&bytes)?))();
    assert_eq!(utf8.unwrap_err().kind(), ErrorKind::ValueError);
    // And an xffi error goes into Box<dyn Error> by `?`.
    let boxed: Result<i64, Box<dyn std::error::Error>> = (|| Ok(Any::from("x").get::<i64>()?))();
    assert_eq!(boxed.unwrap_err().to_string(), "TypeError: xffi_any_to_int: expected int, got str");
}

#[test]
fn an_error_raised_through_a_function_keeps_the_user_error_message() {
    let f = Function::from_typed(|s: &str| exported(s)).unwrap();
    let err = f.call_typed::<i64, _>(("nine",)).unwrap_err();
    assert_eq!(err.message(), "bad value for threads");
    assert_eq!(err.cause().unwrap().message(), "invalid digit found in string");
}

#[test]
fn typed_functions_borrow_str_and_bytes_arguments() {
    let upper = Function::from_typed(|s: &str| Ok(s.to_uppercase())).unwrap();
    let long = "longer than the seven inline bytes";
    assert_eq!(upper.call_typed::<std::string::String, _>((long,)).unwrap(), long.to_uppercase());
    let mixed = Function::from_typed(|n: i64, s: &str, b: &[u8], t: &str| Ok(n + (s.len() + b.len() + t.len()) as i64))
        .unwrap();
    let got: i64 = mixed.call_typed((1i64, "ab", xffi::Bytes::new(b"cde").unwrap(), "f")).unwrap();
    assert_eq!(got, 7);
    let err = upper.call_typed::<std::string::String, _>((3i64,)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeError);
    assert!(err.message().starts_with("argument 0: "), "{}", err.message());
    let err = mixed.call_typed::<i64, _>((1i64, "ab")).unwrap_err();
    assert_eq!(err.message(), "expected 4 arguments, got 2");
}

#[derive(xffi::Object, Default)]
#[xffi(type_key = "test.papercuts.Scalars", default)]
struct Scalars {
    #[xffi(get)]
    a: i8,
    #[xffi(get)]
    b: i16,
    #[xffi(get)]
    c: i32,
    #[xffi(get)]
    d: u8,
    #[xffi(get)]
    e: u16,
    #[xffi(get)]
    f: u32,
    #[xffi(get)]
    g: u64,
    #[xffi(get)]
    h: f32,
    #[xffi(get, set)]
    i: AtomicI32,
    #[xffi(get, set)]
    j: AtomicU32,
}

#[xffi::methods]
impl Scalars {
    /// A method borrowing its `&str` and `&[u8]` arguments.
    fn describe(&self, label: &str, tag: &[u8]) -> String {
        format!("{label}:{}:{}", self.c, tag.len())
    }
}

fn scalars() -> ObjectRef<Scalars> {
    ObjectRef::new(Scalars {
        a: -8,
        b: -16,
        c: -32,
        d: 8,
        e: 16,
        f: 32,
        g: 64,
        h: 0.5,
        i: AtomicI32::new(-1),
        j: AtomicU32::new(1),
    })
    .unwrap()
}

#[test]
fn fields_of_every_integer_width_and_f32_are_reflected() {
    let s = scalars();
    let ints: Vec<i64> =
        ["a", "b", "c", "d", "e", "f", "g", "i", "j"].iter().map(|n| s.get_field(n).unwrap().get().unwrap()).collect();
    assert_eq!(ints, [-8, -16, -32, 8, 16, 32, 64, -1, 1]);
    assert_eq!(s.get_field("h").unwrap().get::<f64>().unwrap(), 0.5);
    s.set_field("i", 1i64 << 20).unwrap();
    assert_eq!(s.i.load(Ordering::Relaxed), 1 << 20);
    let err = s.set_field("j", -1i64).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError);
    assert_eq!(s.j.load(Ordering::Relaxed), 1, "a refused write changes nothing");
    let err = s.set_field("i", 1i64 << 40).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError);
}

#[test]
fn methods_borrow_str_and_bytes_arguments() {
    let s = scalars();
    let got = s.call_method("describe", ("a label longer than seven", xffi::Bytes::new(b"xyz").unwrap())).unwrap();
    assert_eq!(got.get::<&str>().unwrap(), "a label longer than seven:-32:3");
}

#[test]
fn a_u64_field_over_i64_max_is_a_clear_error() {
    let s = ObjectRef::new(Scalars { g: u64::MAX, ..Default::default() }).unwrap();
    let err = s.get_field("g").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError);
    assert!(err.message().contains("integer out of range"), "{}", err.message());
}

#[test]
fn small_scalar_fields_survive_the_json_graph_both_ways() {
    let s = scalars();
    let text = xffi::to_json_string(&Any::from(&s), &Any::none()).unwrap();
    let back: ObjectRef<Scalars> = xffi::from_json_str(&text).unwrap().get().unwrap();
    assert_eq!((back.a, back.b, back.c, back.d, back.e, back.f, back.g, back.h), (-8, -16, -32, 8, 16, 32, 64, 0.5));
    assert_eq!((back.i.load(Ordering::Relaxed), back.j.load(Ordering::Relaxed)), (-1, 1));
    // A value out of a field's range is refused by its setter.
    let bad = text.replacen("-8", "-800", 1);
    assert_ne!(bad, text);
    let err = xffi::from_json_str(&bad).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError, "{err}");
}

#[test]
fn an_error_value_in_any_converts_back_with_to() {
    let e = Error::value_error("kept");
    let back: Error = Any::from(e).to().unwrap();
    assert_eq!(back.message(), "kept");
}
