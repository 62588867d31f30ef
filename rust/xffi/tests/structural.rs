//! The structural helpers of the safe crate (xffi::structural): equality,
//! hash numbers equal to tvm-ffi's, first mismatch paths, deep copy keeping
//! sharing, the JSON graph and JSON text both ways, errors with the C
//! message, and `Structural<T>` as a HashMap key (a kernel cache).
use std::collections::HashMap;

use xffi::{
    Any, Array, ErrorKind, List, Map, ObjectRef, Structural, StructuralOptions, deep_copy, first_mismatch, from_json,
    from_json_str, json_parse, json_stringify, object_type, structural_equal, structural_hash, to_json, to_json_string,
};

fn array(items: Vec<Any>) -> Array<Any> {
    items.into_iter().collect()
}

fn map(items: Vec<(Any, Any)>) -> Map<Any, Any> {
    items.into_iter().collect()
}

#[test]
fn equal_values_compare_equal_and_others_do_not() {
    let a = array(vec![Any::from(1i64), Any::from("ab"), Any::from(2.5)]);
    let b = array(vec![Any::from(1i64), Any::from("ab"), Any::from(2.5)]);
    let c = array(vec![Any::from(1i64), Any::from("ab")]);
    assert!(structural_equal(&a, &b).unwrap());
    assert!(structural_equal(&Any::from(&a), &b).unwrap());
    assert!(!structural_equal(&a, &c).unwrap());
    // Strings by content, whatever their form (inline, object, C string).
    assert!(
        structural_equal("a string long enough to be an object", &Any::from("a string long enough to be an object"))
            .unwrap()
    );
    // NaN equals NaN, as in tvm-ffi.
    assert!(structural_equal(&f64::NAN, &f64::NAN).unwrap());
}

#[test]
fn hash_numbers_are_tvm_ffi_s() {
    // The numbers tvm-ffi's Python structural_hash gives (checked against the
    // wheel's runtime by tests/c/walk/test_structural.c), unsigned as Python shows them.
    assert_eq!(structural_hash(&7i64).unwrap(), 2654435841);
    assert_eq!(structural_hash(&Any::none()).unwrap(), 2654435769);
    assert_eq!(structural_hash(&1.5f64).unwrap(), 4609434221268138618);
    assert_eq!(structural_hash("ab").unwrap(), 2654465067);
    // A &str longer than 7 bytes is viewed as a borrowed C string: it hashes by
    // content, as the String object does (3690337933 in tvm-ffi), not by address.
    let text = "a string long enough to be a String object";
    assert_eq!(structural_hash(text).unwrap(), 3690337933);
    assert_eq!(structural_hash(&Any::from(text)).unwrap(), 3690337933);
    assert_eq!(
        structural_hash(&b"\x00\x01"[..]).unwrap(),
        structural_hash(&Any::from_bytes(b"\x00\x01").unwrap()).unwrap()
    );
    let arr = array(vec![Any::from(1i64), Any::from("ab"), Any::from(2.5)]);
    assert_eq!(structural_hash(&arr).unwrap(), 3621650956060032632);
    let inner = array(vec![Any::from(2i64), Any::from(3i64)]);
    let list: List<Any> = List::from_vec(vec![Any::from(1i64), Any::from(inner)]).unwrap();
    assert_eq!(structural_hash(&list).unwrap(), 16332135292154224779);
    let m = map(vec![
        (Any::from("a"), Any::from(1i64)),
        (Any::from("bb"), Any::from(array(vec![Any::from(1i64), Any::from(2i64)]))),
        (Any::from(3i64), Any::none()),
    ]);
    assert_eq!(structural_hash(&m).unwrap(), 13161971041981070455);
    let opts = StructuralOptions { map_free_vars: true, ..Default::default() };
    assert_eq!(xffi::structural::structural_hash_with(&m, opts).unwrap(), 13161971041981070455);
}

#[test]
fn first_mismatch_names_both_paths() {
    let a = map(vec![(Any::from("k"), Any::from(array(vec![Any::from(1i64), Any::from(2i64)])))]);
    let b = map(vec![(Any::from("k"), Any::from(array(vec![Any::from(1i64), Any::from(3i64)])))]);
    let m = first_mismatch(&a, &b).unwrap().expect("they differ");
    assert_eq!(m.lhs(), r#"<root>["k"][1]"#);
    assert_eq!(m.rhs(), r#"<root>["k"][1]"#);
    assert_eq!(m.lhs_path.kind_name(), "ffi.reflection.AccessPath");
    // A missing element is a *_missing step on the side that lacks it.
    let short = array(vec![Any::from(1i64)]);
    let long = array(vec![Any::from(1i64), Any::from(2i64)]);
    let m = first_mismatch(&short, &long).unwrap().expect("they differ");
    assert_eq!(m.to_string(), format!("{} vs {}", m.lhs(), m.rhs()));
    assert_ne!(m.lhs(), m.rhs());
    assert!(first_mismatch(&a, &a).unwrap().is_none());
}

#[test]
fn deep_copy_keeps_sharing() {
    let shared: List<Any> = List::from_vec(vec![Any::from(1i64)]).unwrap();
    let outer = array(vec![Any::from(&shared), Any::from(&shared)]);
    let copy: Array<Any> = deep_copy(&outer).unwrap().get().unwrap();
    assert!(structural_equal(&outer, &copy).unwrap());
    let first: List<Any> = copy.get(0).unwrap().unwrap().get().unwrap();
    let second: List<Any> = copy.get(1).unwrap().unwrap().get().unwrap();
    assert!(first.as_object().ptr_eq(second.as_object()), "both slots hold one copied List");
    assert!(!first.as_object().ptr_eq(shared.as_object()), "the List was copied");
    first.push(Any::from(2i64)).unwrap();
    assert_eq!((shared.len(), second.len()), (1, 2));
}

struct Opaque;
object_type!(Opaque, "test.structural.Opaque");

#[test]
fn errors_come_with_the_c_message() {
    let obj = ObjectRef::new(Opaque).unwrap();
    let err = structural_hash(&obj).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeError);
    assert!(err.message().contains("test.structural.Opaque"), "{}", err.message());
    let err = structural_equal(&obj, &ObjectRef::new(Opaque).unwrap()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeError);
    assert!(Structural::new(obj.clone()).is_err());
    let err = json_parse("[1,").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError);
    assert!(err.message().contains("line 1 column"), "{}", err.message());
    let err = from_json(&json_parse(r#"{"root_index":3,"nodes":[]}"#).unwrap()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError);
    let err = to_json(&obj, &Any::none()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeError);
}

#[test]
fn json_graph_and_text_round_trip() {
    let shared = array(vec![Any::from("a string long enough to be an object"), Any::from(2.5)]);
    let value = map(vec![
        (Any::from("x"), Any::from(&shared)),
        (Any::from("y"), Any::from(&shared)),
        (Any::from("bytes"), Any::from_bytes(b"\x00\x01\x02").unwrap()),
    ]);
    let graph = to_json(&value, &Any::none()).unwrap();
    let text = json_stringify(&graph, 0).unwrap();
    assert!(text.starts_with(r#"{"root_index":"#), "{text}");
    // The text writer gives the same bytes, and the same error.
    assert_eq!(to_json_string(&value, &Any::none()).unwrap(), text);
    let meta = Any::from("meta");
    assert_eq!(to_json_string(&value, &meta).unwrap(), json_stringify(&to_json(&value, &meta).unwrap(), 0).unwrap());
    let float = Any::from(f64::NAN);
    let by_value = json_stringify(&to_json(&float, &Any::none()).unwrap(), 0).map(|_| ());
    let by_text = to_json_string(&float, &Any::none()).map(|_| ());
    assert_eq!(by_text.is_err(), by_value.is_err());
    if let (Err(t), Err(v)) = (by_text, by_value) {
        assert_eq!((t.kind(), t.message()), (v.kind(), v.message()));
    }
    let back = from_json(&json_parse(&text).unwrap()).unwrap();
    assert!(structural_equal(&value, &back).unwrap());
    // The text reader gives the same value, and the same error.
    assert!(structural_equal(&value, &from_json_str(&text).unwrap()).unwrap());
    let bad = r#"{"root_index":0,"nodes":[{"type":"ffi.Array","data":[0]}]}"#;
    let by_value = from_json(&json_parse(bad).unwrap()).unwrap_err();
    let by_text = from_json_str(bad).unwrap_err();
    assert_eq!((by_text.kind(), by_text.message()), (by_value.kind(), by_value.message()));
    assert_eq!(from_json_str("[1,").unwrap_err().kind(), ErrorKind::ValueError);
    // Sharing kept: both keys hold one Array.
    let back: Map<Any, Any> = back.get().unwrap();
    let x = back.get(&Any::from("x")).unwrap().unwrap();
    let y = back.get(&Any::from("y")).unwrap().unwrap();
    assert!(x.get::<ObjectRef<xffi::Object>>().unwrap().ptr_eq(&y.get::<ObjectRef<xffi::Object>>().unwrap()));
    // Indented text.
    assert_eq!(json_stringify(&array(vec![Any::from(1i64)]), 2).unwrap(), "[\n  1\n]");
    // Metadata goes under "metadata".
    let graph = to_json(&1i64, &Any::from("meta")).unwrap();
    assert_eq!(
        json_stringify(&graph, 0).unwrap(),
        r#"{"root_index":0,"nodes":[{"type":"int","data":1}],"metadata":"meta"}"#
    );
}

/// A compiler's cache of kernels keyed by structurally equal configurations.
#[test]
fn structural_keys_a_kernel_cache() {
    fn config(tile: i64, shape: &[i64]) -> Map<Any, Any> {
        let dims: Array<Any> = shape.iter().map(|&d| Any::from(d)).collect();
        map(vec![(Any::from("tile"), Any::from(tile)), (Any::from("shape"), Any::from(dims))])
    }
    let mut cache: HashMap<Structural<Map<Any, Any>>, usize> = HashMap::new();
    let mut compiled = 0;
    let mut kernel_for = |cfg: Map<Any, Any>| -> usize {
        *cache.entry(Structural::new(cfg).unwrap()).or_insert_with(|| {
            compiled += 1;
            compiled
        })
    };
    let k1 = kernel_for(config(32, &[128, 64]));
    let k2 = kernel_for(config(32, &[128, 64])); // a distinct but equal object
    let k3 = kernel_for(config(64, &[128, 64]));
    let k4 = kernel_for(config(32, &[128, 65]));
    assert_eq!((k1, k2, k3, k4), (1, 1, 2, 3));
    assert_eq!(compiled, 3);
    let key = Structural::new(config(32, &[128, 64])).unwrap();
    assert_eq!(key.structural_hash(), structural_hash(key.get()).unwrap());
    assert_eq!(cache.get(&key), Some(&1));
}

/// A derived configuration compared as a tree; `note` is left out of
/// equality and hashing (tvm-ffi's field(structural_eq="ignore")).
#[derive(xffi::Object)]
#[xffi(type_key = "test.structural.KernelConfig", structural_eq = "tree")]
struct KernelConfig {
    #[xffi(get)]
    tile: i64,
    #[xffi(get)]
    dtype: std::string::String,
    #[xffi(get, structural_eq = "ignore")]
    note: std::string::String,
}

fn kernel_config(tile: i64, dtype: &str, note: &str) -> ObjectRef<KernelConfig> {
    ObjectRef::new(KernelConfig { tile, dtype: dtype.into(), note: note.into() }).unwrap()
}

#[test]
fn derived_tree_types_compare_by_fields() {
    let a = kernel_config(32, "float32", "first");
    let b = kernel_config(32, "float32", "second"); // differs only in an ignored field
    let c = kernel_config(64, "float32", "first");
    assert!(structural_equal(&a, &b).unwrap());
    assert_eq!(structural_hash(&a).unwrap(), structural_hash(&b).unwrap());
    assert!(!structural_equal(&a, &c).unwrap());
    assert_ne!(structural_hash(&a).unwrap(), structural_hash(&c).unwrap());
    let m = first_mismatch(&a, &c).unwrap().unwrap();
    assert_eq!((m.lhs(), m.rhs()), ("<root>.tile", "<root>.tile"));
    assert_eq!(a.note, "first");
    // A kernel cache keyed by derived configurations.
    let mut cache: HashMap<Structural<ObjectRef<KernelConfig>>, &str> = HashMap::new();
    cache.insert(Structural::new(a).unwrap(), "kernel_32");
    assert_eq!(cache.get(&Structural::new(b).unwrap()), Some(&"kernel_32"));
    assert_eq!(cache.get(&Structural::new(c).unwrap()), None);
}

/// A variable (tvm-ffi's "var": equal to itself, or to the variable it is
/// bound to inside a definition) and a function binding one.
#[derive(xffi::Object)]
#[xffi(type_key = "test.structural.Var", structural_eq = "var")]
struct Var {
    #[xffi(get, structural_eq = "ignore")]
    name: std::string::String,
}

#[derive(xffi::Object)]
#[xffi(type_key = "test.structural.Lambda", structural_eq = "tree")]
struct Lambda {
    #[xffi(get, structural_eq = "def")]
    param: ObjectRef<Var>,
    #[xffi(get)]
    body: ObjectRef<Var>,
}

#[derive(xffi::Object)]
#[xffi(type_key = "test.structural.Token", structural_eq = "singleton")]
struct Token {}

#[test]
fn derived_kinds_follow_tvm_ffi() {
    let var = |name: &str| ObjectRef::new(Var { name: name.into() }).unwrap();
    let lambda =
        |p: &ObjectRef<Var>, b: &ObjectRef<Var>| ObjectRef::new(Lambda { param: p.clone(), body: b.clone() }).unwrap();
    let (x, y, z) = (var("x"), var("y"), var("z"));
    assert_eq!(x.name, "x");
    // fn x: x equals fn y: y (x bound to y by the definition); not fn x: z.
    assert!(structural_equal(&lambda(&x, &x), &lambda(&y, &y)).unwrap());
    assert_eq!(structural_hash(&lambda(&x, &x)).unwrap(), structural_hash(&lambda(&y, &y)).unwrap());
    assert!(!structural_equal(&lambda(&x, &z), &lambda(&y, &y)).unwrap());
    // Free variables outside a definition: equal only to themselves.
    assert!(structural_equal(&x, &x).unwrap());
    assert!(!structural_equal(&x, &y).unwrap());
    // Singletons: by identity.
    let (t1, t2) = (ObjectRef::new(Token {}).unwrap(), ObjectRef::new(Token {}).unwrap());
    assert!(structural_equal(&t1, &t1).unwrap());
    assert!(!structural_equal(&t1, &t2).unwrap());
}
