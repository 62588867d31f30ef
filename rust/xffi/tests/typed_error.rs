//! The typed error: every kind C raises maps to its `ErrorKind` variant,
//! other kinds are `Other(name)`, `source()` follows the cause chain, and
//! messages arrive exactly as C stored them (nothing cut or rewritten).

use std::ffi::CString;

use xffi::sys;
use xffi::{Any, Array, Error, ErrorKind, Map};

const BUILT_IN: [(&str, ErrorKind); 6] = [
    ("TypeError", ErrorKind::TypeError),
    ("ValueError", ErrorKind::ValueError),
    ("IndexError", ErrorKind::IndexError),
    ("KeyError", ErrorKind::KeyError),
    ("MemoryError", ErrorKind::MemoryError),
    ("RuntimeError", ErrorKind::RuntimeError),
];

/// Raises `kind` with `message` in C and takes the error.
fn raised_by_c(kind: &str, message: &str) -> Error {
    let (k, m) = (CString::new(kind).unwrap(), CString::new(message).unwrap());
    // SAFETY: both are NUL-terminated strings, borrowed for the call.
    assert_eq!(unsafe { sys::xffi_error_raise_str(k.as_ptr(), m.as_ptr()) }, sys::XFFI_FAIL);
    Error::take_raised()
}

/// Takes the error of a C call that must fail.
fn failure(status: i32) -> Error {
    assert_eq!(status, sys::XFFI_FAIL, "the call succeeded");
    Error::take_raised()
}

#[test]
fn every_built_in_kind_name_maps_to_its_variant_and_back() {
    for (name, kind) in BUILT_IN {
        let err = raised_by_c(name, "m");
        assert_eq!(err.kind(), kind, "{name}");
        assert!(!matches!(err.kind(), ErrorKind::Other(_)), "{name} is built in");
        assert_eq!(err.kind().as_str(), name);
        assert_eq!(ErrorKind::from(name), kind);
        assert_eq!(err.to_string(), format!("{name}: m"));
        // A Rust error of the variant is the same kind in C.
        let made = Error::new(kind.clone(), "m");
        let c_kind = CString::new(name).unwrap();
        // SAFETY: a live Error and a NUL-terminated kind, both borrowed.
        assert_eq!(unsafe { sys::xffi_error_is_kind(made.as_ptr(), c_kind.as_ptr()) }, 1, "{name}");
    }
}

#[test]
fn each_built_in_kind_raised_by_a_real_c_failure_is_typed() {
    let mut out_any = sys::xffi_any::none();
    let text = Any::from("a string longer than seven bytes");
    let mut int = 0;
    // SAFETY: valid pointers for each call; every call here fails on purpose.
    let type_error = failure(unsafe { sys::xffi_any_to_int(&mut int, text.as_raw()) });
    let mut obj = std::ptr::null_mut();
    // SAFETY: as above (NULL data with a size is the bad input).
    let value_error = failure(unsafe { sys::xffi_string_new(&mut obj, std::ptr::null(), 5) });
    let empty = Array::<i64>::new().unwrap();
    // SAFETY: a live Array, a writable out.
    let index_error = failure(unsafe { sys::xffi_array_get(&mut out_any, empty.as_ptr(), 3) });
    let map = Map::<i64, i64>::new().unwrap();
    let key = sys::xffi_any::int(9);
    // SAFETY: a live Map, a valid key, a writable out.
    let key_error = failure(unsafe { sys::xffi_map_get(&mut out_any, map.as_ptr(), &key) });
    // SAFETY: no preconditions.
    let memory_error = failure(unsafe { sys::xffi_error_raise_out_of_memory() });
    let path = CString::new("/no/such/library.so").unwrap();
    // SAFETY: a NUL-terminated path naming no library: no foreign code runs.
    let runtime_error = failure(unsafe { sys::xffi_module_load(&mut obj, path.as_ptr()) });
    let got = [type_error, value_error, index_error, key_error, memory_error, runtime_error];
    for (err, (name, kind)) in got.iter().zip(BUILT_IN) {
        assert_eq!(err.kind(), kind, "{name}: {err}");
    }
}

#[test]
fn any_other_kind_is_other_with_its_name() {
    let err = raised_by_c("LookupError", "from C");
    assert_eq!(err.kind(), ErrorKind::Other("LookupError".into()));
    assert_eq!(err.kind().as_str(), "LookupError");
    assert_eq!(err.to_string(), "LookupError: from C");
    let mine = Error::new(ErrorKind::from("tvm.InternalError"), "m");
    assert_eq!(mine.kind(), ErrorKind::Other("tvm.InternalError".into()));
    // Kinds compare by name: an Other holding a built-in name is that kind.
    assert_eq!(ErrorKind::Other("KeyError".into()), ErrorKind::KeyError);
    assert_ne!(ErrorKind::Other("keyerror".into()), ErrorKind::KeyError);
    // The empty kind is a kind like any other.
    assert_eq!(raised_by_c("", "m").kind(), ErrorKind::Other(std::string::String::new()));
}

/// What `source()` yields, link by link, from `err` down.
fn sources(err: &dyn std::error::Error) -> Vec<std::string::String> {
    let mut chain = vec![];
    let mut next = err.source();
    while let Some(e) = next {
        chain.push(e.to_string());
        next = e.source();
    }
    chain
}

#[test]
fn source_follows_a_cause_chain_of_depth_three() {
    // Built in Rust: top -> first -> second -> root.
    let mut second = Error::new(ErrorKind::KeyError, "second");
    second.set_cause(Error::new("RootError".into(), "root")).unwrap();
    let mut first = Error::value_error("first");
    first.set_cause(second).unwrap();
    let mut top = Error::runtime_error("top");
    top.set_cause(first).unwrap();
    assert_eq!(sources(&*top), ["ValueError: first", "KeyError: second", "RootError: root"]);
    assert_eq!(top.cause().unwrap().cause().unwrap().cause().unwrap().kind(), ErrorKind::Other("RootError".into()));

    // Built in C with xffi_error_set_cause, read from Rust.
    let raw: Vec<_> = ["a", "b", "c", "d"].iter().map(|m| Error::value_error(m).into_raw()).collect();
    for pair in raw.windows(2) {
        // SAFETY: live Errors; set_cause borrows the first and takes a new reference to the second.
        unsafe {
            sys::xffi_object_inc_ref(pair[1]);
            assert_eq!(sys::xffi_error_set_cause(pair[0], pair[1]), sys::XFFI_OK);
        }
    }
    for &e in &raw[1..] {
        // SAFETY: the reference each into_raw gave us; the chain holds its own.
        unsafe { sys::xffi_object_dec_ref(e) };
    }
    // SAFETY: the reference into_raw gave us, handed back.
    let head = unsafe { Error::from_raw(raw[0]) }.unwrap();
    assert_eq!(sources(&*head), ["ValueError: b", "ValueError: c", "ValueError: d"]);
}

#[test]
fn set_cause_on_a_shared_error_leaves_the_other_holder_untouched() {
    let mut err = Error::runtime_error("shared");
    // SAFETY: a live Error; the new reference is handed to `alias`.
    let alias = unsafe {
        sys::xffi_object_inc_ref(err.as_ptr());
        Error::from_raw(err.as_ptr())
    }
    .unwrap();
    err.set_cause(Error::value_error("why")).unwrap();
    assert_eq!(err.cause().unwrap().message(), "why");
    assert!(alias.cause().is_none(), "the other handle saw the change");
    assert_ne!(err.as_ptr(), alias.as_ptr());
    // A cycle is refused and leaves the error as it was.
    let mut a = Error::value_error("a");
    let mut b = Error::value_error("b");
    // SAFETY: a live Error; the new reference goes into b's chain.
    let a_again = unsafe {
        sys::xffi_object_inc_ref(a.as_ptr());
        Error::from_raw(a.as_ptr())
    }
    .unwrap();
    b.set_cause(a_again).unwrap();
    // a is now shared (b's chain holds it), so a copy of it takes b: no cycle.
    a.set_cause(b).unwrap();
    assert_eq!(a.cause().unwrap().cause().unwrap().message(), "a");
    assert!(a.cause().unwrap().cause().unwrap().cause().is_none());
}

#[test]
fn messages_arrive_exactly_as_c_stored_them() {
    // C's accessor names itself; Rust passes the text on unchanged.
    let err = Any::from("a string longer than seven bytes").get::<i64>().unwrap_err();
    assert_eq!(err.message(), "xffi_any_to_int: expected int, got ffi.String");
    assert_eq!(err.to_string(), "TypeError: xffi_any_to_int: expected int, got ffi.String");

    // Bytes that are not UTF-8 are kept: all of them in message_bytes, and
    // message/Display show each invalid one as U+FFFD instead of cutting there.
    let kind = b"ValueError";
    let message = b"bad \xff byte, then more";
    let mut out = std::ptr::null_mut();
    let k = sys::xffi_byte_array { data: kind.as_ptr().cast(), size: kind.len() };
    let m = sys::xffi_byte_array { data: message.as_ptr().cast(), size: message.len() };
    // SAFETY: valid byte runs for the call, a writable out.
    assert_eq!(unsafe { sys::xffi_error_new_bytes(&mut out, k, m) }, sys::XFFI_OK);
    // SAFETY: the new reference just made.
    let err = unsafe { Error::from_raw(out) }.unwrap();
    assert_eq!(err.message_bytes(), message);
    assert_eq!(err.message(), "bad \u{FFFD} byte, then more");
    assert_eq!(err.to_string(), "ValueError: bad \u{FFFD} byte, then more");

    // Rust's own messages too, with every character kept.
    let text = "line one\n\ttab, ünïcödé, trailing space ";
    assert_eq!(Error::value_error(text).message(), text);
    assert_eq!(Error::value_error(text).message_bytes(), text.as_bytes());
}
