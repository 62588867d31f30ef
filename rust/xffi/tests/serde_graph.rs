//! The `serde` feature (src/serde_graph.rs): values written through serde as
//! tvm-ffi's JSON graph (serde_json's text byte for byte what
//! ffi.ToJSONGraphString writes, read by xffi_from_json), round trips through
//! a text and a binary format, typed containers and objects, and hostile
//! input to Deserialize: each case an error, never a panic.
use xffi::{
    Any, Array, Bytes, Dict, List, Map, ObjectRef, Shape, deep_copy, from_json, json_parse, json_stringify,
    structural_equal, to_json,
};

fn array(items: Vec<Any>) -> Array<Any> {
    items.into_iter().collect()
}

/// A graph of every plain kind and container, with sharing.
fn sample() -> Any {
    let shared: List<Any> =
        List::from_vec(vec![Any::from(1i64), Any::from("a string long enough to be an object")]).unwrap();
    let dict: Dict<Any, Any> = Dict::new().unwrap();
    dict.insert(Any::from("list"), Any::from(&shared)).unwrap();
    dict.insert(Any::from(7i64), Any::from(-2.5)).unwrap();
    let map: Map<Any, Any> = [
        (Any::from("none"), Any::none()),
        (Any::from("flag"), Any::from(true)),
        (Any::from("bytes"), Any::from(Bytes::new(b"\x00\xff binary").unwrap())),
        (Any::from("shape"), Any::from(Shape::new(&[2, 3, 4]).unwrap())),
        (Any::from("dict"), Any::from(dict)),
    ]
    .into_iter()
    .collect();
    Any::from(array(vec![Any::from(map), Any::from(&shared), Any::from(&shared), Any::from(i64::MIN)]))
}

fn ffi_graph_text(v: &Any) -> String {
    json_stringify(&to_json(v, &Any::none()).unwrap(), 0).unwrap()
}

#[test]
fn serde_json_writes_the_ffi_graph_byte_for_byte() {
    let v = sample();
    let text = serde_json::to_string(&v).unwrap();
    assert_eq!(text, ffi_graph_text(&v));
    // xffi's own graph reader takes it, sharing kept.
    let back = from_json(&json_parse(&text).unwrap()).unwrap();
    assert!(structural_equal(&v, &back).unwrap());
    let back: Array<Any> = back.get().unwrap();
    let (a, b) = (back.get(1).unwrap().unwrap(), back.get(2).unwrap().unwrap());
    assert!(a.get::<ObjectRef<xffi::Object>>().unwrap().ptr_eq(&b.get::<ObjectRef<xffi::Object>>().unwrap()));
}

#[test]
fn serde_json_round_trips() {
    let v = sample();
    let back: Any = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
    assert!(structural_equal(&v, &back).unwrap());
    // Pretty text is the same graph.
    let back: Any = serde_json::from_str(&serde_json::to_string_pretty(&v).unwrap()).unwrap();
    assert!(structural_equal(&v, &back).unwrap());
    // Reads graphs of tvm-ffi's writing too (this one written by tvm-ffi 0.1.15's ToJSONGraphString).
    let tvm_text = r#"{"root_index":3,"nodes":[{"type":"int","data":1},{"type":"ffi.String","data":"x"},{"type":"float","data":2.5},{"type":"ffi.Array","data":[0,1,2]}]}"#;
    let back: Any = serde_json::from_str(tvm_text).unwrap();
    assert!(structural_equal(&back, &array(vec![Any::from(1i64), Any::from("x"), Any::from(2.5)])).unwrap());
}

#[test]
fn cbor_round_trips_with_sharing() {
    let v = sample();
    let mut bytes = Vec::new();
    ciborium::into_writer(&v, &mut bytes).unwrap();
    let back: Any = ciborium::from_reader(bytes.as_slice()).unwrap();
    assert!(structural_equal(&v, &back).unwrap());
    let back: Array<Any> = back.get().unwrap();
    let (a, b) = (back.get(1).unwrap().unwrap(), back.get(2).unwrap().unwrap());
    assert!(a.get::<ObjectRef<xffi::Object>>().unwrap().ptr_eq(&b.get::<ObjectRef<xffi::Object>>().unwrap()));
    // A binary format keeps what JSON cannot write.
    let odd = array(vec![Any::from(f64::NAN), Any::from(f64::INFINITY)]);
    let mut bytes = Vec::new();
    ciborium::into_writer(&odd, &mut bytes).unwrap();
    let back: Array<Any> = ciborium::from_reader(bytes.as_slice()).unwrap();
    assert!(structural_equal(&odd, &back).unwrap());
}

#[test]
fn typed_containers_and_objects_round_trip() {
    let ints: Array<i64> = vec![1, 2, 3].into_iter().collect();
    let back: Array<i64> = serde_json::from_str(&serde_json::to_string(&ints).unwrap()).unwrap();
    assert_eq!(back.iter().map(|x| x.unwrap()).collect::<Vec<_>>(), vec![1, 2, 3]);
    let m: Map<Any, Any> = [(Any::from("k"), Any::from(1.5))].into_iter().collect();
    let back: Map<Any, Any> = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
    assert!(structural_equal(&m, &back).unwrap());
    let s = xffi::String::new("text of a String object").unwrap();
    let back: xffi::String = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(back.as_str().unwrap(), "text of a String object");
    let obj = ints.as_object().clone();
    let back: ObjectRef<xffi::Object> = serde_json::from_str(&serde_json::to_string(&obj).unwrap()).unwrap();
    assert_eq!(back.type_key(), "ffi.Array");
    // The root must be of the type asked for.
    let err = serde_json::from_str::<Map<Any, Any>>(&serde_json::to_string(&ints).unwrap()).unwrap_err();
    assert!(err.to_string().contains("Map"), "{err}");
    // A copy serialises as the original does.
    let copy = deep_copy(&sample()).unwrap();
    assert_eq!(serde_json::to_string(&copy).unwrap(), serde_json::to_string(&sample()).unwrap());
}

fn json_err(text: &str) -> String {
    match serde_json::from_str::<Any>(text) {
        Ok(v) => panic!("{text} read as {v:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn hostile_shapes_are_errors() {
    for (text, expected) in [
        ("[1, 2]", "expected an object, got ffi.Array"),
        ("5", "expected an object, got int"),
        ("null", "expected an object, got None"),
        (r#"{"nodes": []}"#, "expected `root_index` integer field"),
        (r#"{"root_index": 0}"#, "expected `nodes` array field"),
        (r#"{"root_index": "zero", "nodes": [{"type": "int", "data": 1}]}"#, "expected `root_index` integer field"),
        (r#"{"root_index": 0, "nodes": {"type": "int"}}"#, "expected `nodes` array field"),
        (r#"{"root_index": 0, "nodes": [5]}"#, "node 0 must be an object, got int"),
        (r#"{"root_index": 0, "nodes": [{"data": 1}]}"#, r#"node 0: "type" must be a string"#),
    ] {
        let err = json_err(text);
        assert!(err.contains("ffi.FromJSONGraph") && err.contains(expected), "{text}: {err}");
    }
    // Not JSON at all, or truncated: serde_json's own error.
    assert!(json_err(r#"{"root_index": 0, "nodes": ["#).contains("EOF"));
}

#[test]
fn hostile_indices_are_errors_naming_the_node() {
    let out_of_range = json_err(r#"{"root_index": 5, "nodes": [{"type": "int", "data": 1}]}"#);
    assert!(out_of_range.contains("root_index 5 out of range"), "{out_of_range}");
    let bad_child = json_err(r#"{"root_index": 0, "nodes": [{"type": "ffi.Array", "data": [9]}]}"#);
    assert!(bad_child.contains("node 0") && bad_child.contains('9'), "{bad_child}");
    let negative = json_err(r#"{"root_index": -1, "nodes": [{"type": "int", "data": 1}]}"#);
    assert!(negative.contains("root_index -1 out of range"), "{negative}");
    // The format has no cycles: a node that leads back to itself.
    let cycle = json_err(r#"{"root_index": 0, "nodes": [{"type": "ffi.Array", "data": [0]}]}"#);
    assert!(cycle.contains("node 0"), "{cycle}");
    let cycle2 = json_err(
        r#"{"root_index": 0, "nodes": [{"type": "ffi.Array", "data": [1]}, {"type": "ffi.List", "data": [0]}]}"#,
    );
    assert!(cycle2.contains("node 1 (ffi.List)") && cycle2.contains("no cycles"), "{cycle2}");
}

#[test]
fn hostile_types_are_errors() {
    let unknown = json_err(r#"{"root_index": 0, "nodes": [{"type": "no.such.Type", "data": 1}]}"#);
    assert!(unknown.contains("no.such.Type"), "{unknown}");
    let wrong_data = json_err(r#"{"root_index": 0, "nodes": [{"type": "int", "data": "one"}]}"#);
    assert!(wrong_data.contains(r#"node 0 (int): "data" must be an int, got str"#), "{wrong_data}");
    let bad_base64 = json_err(r#"{"root_index": 0, "nodes": [{"type": "ffi.Bytes", "data": "!!!"}]}"#);
    assert!(bad_base64.contains("node 0 (ffi.Bytes): base64"), "{bad_base64}");
    // An integer past int64 reads as a float, as json.Parse reads it, so it is no index.
    let huge = json_err(r#"{"root_index": 18446744073709551615, "nodes": [{"type": "int", "data": 1}]}"#);
    assert!(huge.contains("expected `root_index` integer field"), "{huge}");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // serde_json stops at its own limit (128).
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    let err = json_err(&deep);
    assert!(err.contains("recursion limit"), "{err}");
    // CBOR: ciborium's limit.
    let mut cbor = vec![0x81u8; 100_000];
    cbor.push(0x01);
    assert!(ciborium::from_reader::<Any, _>(cbor.as_slice()).is_err());
    // A format with no limit of its own (a serde_json::Value read as a
    // Deserializer): xffi's MAX_DEPTH stops it.
    let mut value = serde_json::Value::from(1);
    for _ in 0..(xffi::serde_graph::MAX_DEPTH + 10) {
        value = serde_json::Value::Array(vec![value]);
    }
    let err = <Any as serde::Deserialize>::deserialize(value).unwrap_err();
    assert!(err.to_string().contains("nesting deeper than 128"), "{err}");
    // Deep but within the limit: the graph is read, then refused by from_json as not a graph.
    let mut value = serde_json::Value::from(1);
    for _ in 0..100 {
        value = serde_json::Value::Array(vec![value]);
    }
    let err = <Any as serde::Deserialize>::deserialize(value).unwrap_err();
    assert!(!err.to_string().contains("nesting"), "{err}");
}

/// Cross-runtime, both ways: the serde_json text loads in tvm-ffi's own
/// runtime (the wheel, in a Python process) with the same structural hash,
/// and the text tvm-ffi writes back reads through serde to an equal value.
/// Needs python3 with the apache-tvm-ffi wheel; the test command sets
/// XFFI_REQUIRE_TVM_FFI=1, so there it must run.
#[test]
fn tvm_ffi_runtime_reads_and_writes_the_same_graph() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let script = "import sys, tvm_ffi\n\
        from tvm_ffi.serialization import from_json_graph_str, to_json_graph_str\n\
        v = from_json_graph_str(sys.stdin.read())\n\
        print(tvm_ffi.structural_hash(v))\n\
        print(to_json_graph_str(v))\n";
    let required = std::env::var("XFFI_REQUIRE_TVM_FFI").is_ok_and(|v| v == "1");
    let probe = Command::new("python3").args(["-c", "import tvm_ffi"]).output();
    if !probe.as_ref().is_ok_and(|o| o.status.success()) {
        assert!(!required, "XFFI_REQUIRE_TVM_FFI=1 but python3 cannot import tvm_ffi");
        eprintln!("tvm_ffi not importable: cross-runtime check not run");
        return;
    }
    let v = sample();
    let text = serde_json::to_string(&v).unwrap();
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut lines = stdout.lines();
    let tvm_hash: u64 = lines.next().unwrap().trim().parse().unwrap();
    assert_eq!(tvm_hash, xffi::structural_hash(&v).unwrap(), "both runtimes hash the graph alike");
    let tvm_text = lines.next().unwrap();
    let back: Any = serde_json::from_str(tvm_text).unwrap();
    assert!(structural_equal(&v, &back).unwrap());
}
