//! Types made with `#[derive(xffi::Object)]` and `#[xffi(default)]` through
//! tvm-ffi's JSON graph: created by the graph reader from `Default`, their
//! fields filled through the record setters. Round trips (to_json/from_json,
//! serde_json, CBOR) keep the value and its sharing; hostile graphs naming
//! the type are errors, never a panic or a half-built value.
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

use xffi::{
    Any, Array, ErrorKind, ObjectRef, ObjectType, from_json, json_parse, json_stringify, structural_equal, to_json,
};

#[derive(xffi::Object, Default)]
#[xffi(type_key = "test.serde_derived.Leaf", structural_eq = "tree", default)]
struct Leaf {
    #[xffi(get)]
    name: String,
    #[xffi(get)]
    weight: f64,
}

/// Every kind of field: C storage (i64, f64, bool, Any, ObjectRef,
/// Option<ObjectRef>) and Rust storage (String, Mutex, atomics), read-only
/// and writable, with and without a default.
#[derive(xffi::Object)]
#[xffi(type_key = "test.serde_derived.Node", structural_eq = "tree", default)]
struct Node {
    #[xffi(get)]
    id: i64,
    #[xffi(get)]
    scale: f64,
    #[xffi(get)]
    enabled: bool,
    #[xffi(get)]
    label: String,
    #[xffi(get)]
    payload: Any,
    #[xffi(get)]
    leaf: ObjectRef<Leaf>,
    #[xffi(get)]
    other: Option<ObjectRef<Leaf>>,
    #[xffi(get, set)]
    counter: AtomicI64,
    #[xffi(get, set)]
    note: Mutex<String>,
    #[xffi(get, default = 7i64)]
    level: i64,
    /// Not reflected: keeps its default in a read object.
    #[allow(dead_code)]
    cache: Vec<u8>,
}

impl Default for Node {
    fn default() -> Self {
        Node {
            id: 0,
            scale: 0.0,
            enabled: false,
            label: String::new(),
            payload: Any::none(),
            leaf: ObjectRef::new(Leaf::default()).expect("a Leaf"),
            other: None,
            counter: AtomicI64::new(0),
            note: Mutex::new(String::new()),
            level: 7,
            cache: vec![1, 2, 3],
        }
    }
}

/// A type without `#[xffi(default)]`: no creator.
#[derive(xffi::Object, Default)]
#[xffi(type_key = "test.serde_derived.Sealed")]
struct Sealed {
    #[xffi(get)]
    x: i64,
}

fn leaf(name: &str, weight: f64) -> ObjectRef<Leaf> {
    ObjectRef::new(Leaf { name: name.into(), weight }).unwrap()
}

/// Two nodes sharing one leaf, in an array with the leaf again.
fn sample() -> Array<Any> {
    let shared = leaf("shared leaf", 0.5);
    let payload: Array<Any> = vec![Any::from(1i64), Any::from("two"), Any::from(&shared)].into_iter().collect();
    let a = ObjectRef::new(Node {
        id: 1,
        scale: 2.5,
        enabled: true,
        label: "first node, a label long enough to be an object".into(),
        payload: Any::from(&payload),
        leaf: shared.clone(),
        other: Some(leaf("other", -1.0)),
        counter: AtomicI64::new(41),
        note: Mutex::new("note".into()),
        level: 3,
        cache: Vec::new(),
    })
    .unwrap();
    let b = ObjectRef::new(Node { id: -2, label: "second".into(), leaf: shared.clone(), ..Node::default() }).unwrap();
    vec![Any::from(&a), Any::from(&b), Any::from(&shared)].into_iter().collect()
}

fn node_at(array: &Array<Any>, i: usize) -> ObjectRef<Node> {
    array.get(i).unwrap().unwrap().get::<ObjectRef<Node>>().unwrap()
}

/// The read value equals the sample, field by field, and keeps the sharing.
fn check_read_back(back: &Array<Any>) {
    let v = sample();
    assert!(structural_equal(&v, back).unwrap());
    let (a, b) = (node_at(back, 0), node_at(back, 1));
    assert_eq!((a.id, a.scale, a.enabled, a.level), (1, 2.5, true, 3));
    assert_eq!(a.label, "first node, a label long enough to be an object");
    assert_eq!(a.counter.load(Ordering::Relaxed), 41);
    assert_eq!(*a.note.lock().unwrap(), "note");
    assert_eq!(a.leaf.name, "shared leaf");
    assert_eq!(a.other.as_ref().unwrap().weight, -1.0);
    assert_eq!(a.cache, vec![1, 2, 3], "a field not reflected keeps its default");
    assert!(b.other.is_none());
    assert_eq!((b.id, b.label.as_str(), b.level), (-2, "second", 7));
    // One leaf, shared by both nodes, the payload and the array.
    let shared = back.get(2).unwrap().unwrap().get::<ObjectRef<Leaf>>().unwrap();
    assert!(a.leaf.ptr_eq(&shared) && b.leaf.ptr_eq(&shared));
    let payload: Array<Any> = a.payload.get().unwrap();
    assert!(payload.get(2).unwrap().unwrap().get::<ObjectRef<Leaf>>().unwrap().ptr_eq(&shared));
}

#[test]
fn derived_objects_round_trip_through_the_ffi_graph() {
    let v = sample();
    let graph = to_json(&v, &Any::none()).unwrap();
    let back: Array<Any> = from_json(&graph).unwrap().get().unwrap();
    check_read_back(&back);
    // Through the text too.
    let text = json_stringify(&graph, 0).unwrap();
    assert!(text.contains(r#""type":"test.serde_derived.Node""#), "{text}");
    let back: Array<Any> = from_json(&json_parse(&text).unwrap()).unwrap().get().unwrap();
    check_read_back(&back);
}

#[test]
fn derived_objects_round_trip_through_serde_json_and_cbor() {
    let v = sample();
    let text = serde_json::to_string(&v).unwrap();
    assert_eq!(text, json_stringify(&to_json(&v, &Any::none()).unwrap(), 0).unwrap());
    let back: Array<Any> = serde_json::from_str(&text).unwrap();
    check_read_back(&back);
    let mut bytes = Vec::new();
    ciborium::into_writer(&v, &mut bytes).unwrap();
    let back: Array<Any> = ciborium::from_reader(bytes.as_slice()).unwrap();
    check_read_back(&back);
    // A typed root.
    let node = node_at(&v, 0);
    let back: ObjectRef<Node> = serde_json::from_str(&serde_json::to_string(&node).unwrap()).unwrap();
    assert!(structural_equal(&node, &back).unwrap());
    assert!(!back.ptr_eq(&node));
    let err = serde_json::from_str::<ObjectRef<Leaf>>(&serde_json::to_string(&node).unwrap()).unwrap_err();
    assert!(err.to_string().contains("test.serde_derived.Leaf"), "{err}");
}

#[test]
fn types_without_default_keep_the_c_error() {
    let s = ObjectRef::new(Sealed { x: 1 }).unwrap();
    assert_eq!(s.x, 1);
    let err = serde_json::to_string(&s).unwrap_err();
    let c_err = to_json(&s, &Any::none()).unwrap_err();
    assert_eq!(c_err.kind(), ErrorKind::TypeError);
    assert!(c_err.message().contains("does not support ToJSONGraph"), "{c_err}");
    assert!(err.to_string().contains(&*c_err.message()), "{err} / {c_err}");
    assert!(err.to_string().contains("test.serde_derived.Sealed"), "{err}");
    // Nor can a graph naming it make one.
    let text =
        r#"{"root_index":1,"nodes":[{"type":"int","data":1},{"type":"test.serde_derived.Sealed","data":{"x":0}}]}"#;
    assert!(serde_json::from_str::<Any>(text).is_err());
}

/// A graph with one Node whose data is `fields` (node 0 is a Leaf, node 1
/// the String "s", node 2 an int, node 3 None).
fn node_graph(fields: &str) -> String {
    format!(
        r#"{{"root_index":4,"nodes":[{{"type":"test.serde_derived.Leaf","data":{{"name":1,"weight":2.0}}}},{{"type":"ffi.String","data":"s"}},{{"type":"int","data":5}},{{"type":"None"}},{{"type":"test.serde_derived.Node","data":{{{fields}}}}}]}}"#
    )
}

const GOOD: &str =
    r#""id":2,"scale":1.5,"enabled":true,"label":1,"payload":2,"leaf":0,"other":3,"counter":4,"note":1,"level":9"#;

fn read_node(fields: &str) -> xffi::Result<ObjectRef<Node>> {
    // Types register on first use: this test may run before any Node is made.
    Node::checked_type_index()?;
    from_json(&json_parse(&node_graph(fields))?)?.get::<ObjectRef<Node>>()
}

#[test]
fn a_well_formed_hand_written_graph_reads() {
    let n = read_node(GOOD).unwrap();
    assert_eq!((n.id, n.scale, n.enabled, n.level), (2, 1.5, true, 9));
    assert_eq!((n.label.as_str(), n.leaf.name.as_str(), n.leaf.weight), ("s", "s", 2.0));
    assert_eq!(n.payload.get::<i64>().unwrap(), 5);
    assert!(n.other.is_none());
    assert_eq!(n.counter.load(Ordering::Relaxed), 4);
    // A missing field with a default takes it; unknown keys are ignored.
    let n = read_node(&GOOD.replace(r#","level":9"#, r#","no_such_field":1"#)).unwrap();
    assert_eq!(n.level, 7);
}

#[test]
fn hostile_graphs_naming_a_derived_type_are_errors() {
    for (fields, expected) in [
        // Wrong types, for C storage and for Rust storage.
        (GOOD.replace(r#""id":2"#, r#""id":"two""#), "field `id` must be an int, got str"),
        (GOOD.replace(r#""scale":1.5"#, r#""scale":"x""#), "field `scale` must be a float, got str"),
        (
            GOOD.replace(r#""label":1"#, r#""label":0"#),
            "field 'label' of 'test.serde_derived.Node' expects ffi.String, got test.serde_derived.Leaf",
        ),
        (GOOD.replace(r#""note":1"#, r#""note":0"#), "field 'note' of 'test.serde_derived.Node' expects ffi.String"),
        (GOOD.replace(r#""counter":4"#, r#""counter":1.5"#), "field `counter` must be an int, got float"),
        // An ObjectRef field given None, or another type.
        (GOOD.replace(r#""leaf":0"#, r#""leaf":3"#), "Node.leaf: expected test.serde_derived.Leaf, got None"),
        (
            GOOD.replace(r#""leaf":0"#, r#""leaf":1"#),
            "field 'leaf' of 'test.serde_derived.Node' expects test.serde_derived.Leaf, got str",
        ),
        (
            GOOD.replace(r#""other":3"#, r#""other":2"#),
            "field 'other' of 'test.serde_derived.Node' expects test.serde_derived.Leaf, got int",
        ),
        // A node index out of range in a field.
        (GOOD.replace(r#""leaf":0"#, r#""leaf":99"#), "field `leaf`: node index 99 out of range"),
        // A required field missing.
        (GOOD.replace(r#""id":2,"#, ""), "Required field `id`"),
        (GOOD.replace(r#","leaf":0"#, ""), "Required field `leaf`"),
    ] {
        let err = match read_node(&fields) {
            Ok(_) => panic!("{fields} was read"),
            Err(e) => e,
        };
        assert!(err.message().contains(expected), "{fields}: {err}");
        assert!(err.message().contains("test.serde_derived.Node"), "{fields}: {err}");
        // serde gives the same error, never a panic.
        let serde_err = serde_json::from_str::<Any>(&node_graph(&fields)).unwrap_err();
        assert!(serde_err.to_string().contains(expected), "{serde_err}");
    }
    // Data that is not an object of fields.
    Node::checked_type_index().unwrap();
    for data in ["5", "[1]", "\"x\"", "null"] {
        let text = format!(r#"{{"root_index":0,"nodes":[{{"type":"test.serde_derived.Node","data":{data}}}]}}"#);
        let err = from_json(&json_parse(&text).unwrap()).unwrap_err();
        assert!(err.message().contains("node 0"), "{data}: {err}");
    }
    // A node whose field leads back to itself.
    let cycle = node_graph(&GOOD.replace(r#""payload":2"#, r#""payload":4"#));
    assert!(from_json(&json_parse(&cycle).unwrap()).is_err());
}

/// A type no other test makes: reading it through serde registers it.
#[derive(xffi::Object, Default)]
#[xffi(type_key = "test.serde_derived.Lonely", structural_eq = "tree", default)]
struct Lonely {
    #[xffi(get)]
    leaf: Option<ObjectRef<Leaf>>,
}

#[test]
fn serde_registers_the_root_type_before_reading() {
    let text = r#"{"root_index":2,"nodes":[{"type":"ffi.String","data":"l"},{"type":"test.serde_derived.Leaf","data":{"name":0,"weight":1.0}},{"type":"test.serde_derived.Lonely","data":{"leaf":1}}]}"#;
    let lonely: ObjectRef<Lonely> = serde_json::from_str(text).unwrap();
    assert_eq!(lonely.leaf.as_ref().unwrap().name, "l");
    assert_eq!(serde_json::to_string(&lonely).unwrap(), text);
}

/// A creator whose `Default` panics: the panic is an error at the boundary.
#[derive(xffi::Object)]
#[xffi(type_key = "test.serde_derived.Grumpy", default)]
struct Grumpy {
    #[xffi(get)]
    x: i64,
}
impl Default for Grumpy {
    fn default() -> Self {
        panic!("no default today")
    }
}

#[test]
fn a_panicking_default_is_an_error() {
    let g = ObjectRef::new(Grumpy { x: 3 }).unwrap();
    assert_eq!(g.x, 3);
    let graph = to_json(&g, &Any::none()).unwrap();
    let err = from_json(&graph).unwrap_err();
    assert!(err.message().contains("no default today"), "{err}");
    assert!(err.message().contains("test.serde_derived.Grumpy"), "{err}");
}

#[test]
fn ten_thousand_derived_objects_round_trip_in_time() {
    use std::time::{Duration, Instant};
    const N: i64 = 10_000;
    let shared = leaf("shared", 1.0);
    let nodes: Array<Any> = (0..N)
        .map(|i| {
            let n = Node { id: i, label: format!("node {i}"), leaf: shared.clone(), ..Node::default() };
            Any::from(ObjectRef::new(n).unwrap())
        })
        .collect();
    let start = Instant::now();
    let text = serde_json::to_string(&nodes).unwrap();
    let written = start.elapsed();
    let start = Instant::now();
    let back: Array<Any> = serde_json::from_str(&text).unwrap();
    let read = start.elapsed();
    assert_eq!(back.len(), N as usize);
    assert_eq!(node_at(&back, 9_999).label, "node 9999");
    assert!(node_at(&back, 0).leaf.ptr_eq(&node_at(&back, 1).leaf));
    eprintln!("{N} derived objects: {} bytes, written {written:?}, read {read:?}", text.len());
    // Generous limits (figures in the report).
    assert!(written < Duration::from_secs(30) && read < Duration::from_secs(30));
}
