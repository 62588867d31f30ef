//! `#[derive(xffi::Object)]` and `#[xffi::methods]`: the registered records
//! (names, offsets, flags, static types), reads and writes by name through the
//! getters and setters any language uses, method calls, registration once
//! across threads, and the refusals (read-only, type mismatch, unknown name,
//! a field declared twice). Access by name to a C-defined type too.
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use xffi::reflect::{AtomicF64, TypeRef};
use xffi::{Any, ErrorKind, ObjectRef, ObjectType};

/// A sensor of the test zoo.
#[derive(xffi::Object)]
#[xffi(type_key = "test.derive.Sensor")]
struct Sensor {
    /// Its id (read-only).
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
    peer: Option<ObjectRef<Sensor>>,
    #[xffi(get, set, default = 7)]
    count: AtomicI64,
    #[xffi(get, set)]
    armed: AtomicBool,
    #[xffi(get, set)]
    gain: AtomicF64,
    #[xffi(get, set)]
    name: Mutex<String>,
    #[xffi(get, set)]
    link: Mutex<Option<ObjectRef<Sensor>>>,
    // Not reflected: no attribute.
    _secret: Vec<u8>,
}

#[xffi::methods]
impl Sensor {
    /// Makes a sensor with an id.
    #[xffi(name = "__ffi_init__")]
    fn create(id: i64, label: String) -> xffi::Result<ObjectRef<Sensor>> {
        ObjectRef::new(Sensor::plain(id, &label))
    }
    fn reading(&self, x: f64) -> f64 {
        self.scale * x + self.count.load(Ordering::Relaxed) as f64
    }
    fn describe(&self) -> xffi::Result<String> {
        Ok(format!("{}#{}", self.label, self.id))
    }
    fn bump(&self) {
        self.count.fetch_add(1, Ordering::Relaxed);
    }
    #[xffi(skip)]
    #[allow(dead_code)]
    fn hidden(&self) {}
}

impl Sensor {
    fn plain(id: i64, label: &str) -> Sensor {
        Sensor {
            id,
            scale: 2.0,
            enabled: true,
            label: label.into(),
            payload: Any::from("pay"),
            peer: None,
            count: AtomicI64::new(7),
            armed: AtomicBool::new(false),
            gain: AtomicF64::new(0.5),
            name: Mutex::new("n".into()),
            link: Mutex::new(None),
            _secret: vec![1, 2, 3],
        }
    }
}

fn field<'a>(fields: &'a [xffi::reflect::FieldDesc], name: &str) -> &'a xffi::reflect::FieldDesc {
    fields.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("field {name} listed"))
}

#[test]
fn the_marked_fields_are_registered_with_their_layout() {
    let s = ObjectRef::new(Sensor::plain(1, "a")).unwrap();
    let fields = s.fields();
    let names: Vec<_> = fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["id", "scale", "enabled", "label", "payload", "peer", "count", "armed", "gain", "name", "link"]);
    let base = 24 + std::mem::offset_of!(Sensor, id) as i64;
    assert_eq!(field(&fields, "id").offset, base);
    assert_eq!(field(&fields, "count").offset, 24 + std::mem::offset_of!(Sensor, count) as i64);
    assert_eq!(field(&fields, "id").type_key(), "int");
    assert_eq!(field(&fields, "label").type_key(), "ffi.String");
    assert_eq!(field(&fields, "payload").type_key(), "Any");
    assert_eq!(field(&fields, "peer").type_key(), "test.derive.Sensor");
    assert!(!field(&fields, "id").writable && !field(&fields, "label").writable);
    assert!(field(&fields, "count").writable && field(&fields, "link").writable);
    assert!(field(&fields, "count").has_default && !field(&fields, "armed").has_default);
    let t = TypeRef::by_key("test.derive.Sensor").unwrap();
    assert_eq!(t.index(), Sensor::type_index());
    let methods: Vec<_> = t.methods().into_iter().map(|m| (m.name, m.is_static)).collect();
    assert_eq!(
        methods,
        [("__ffi_init__".into(), true), ("reading".into(), false), ("describe".into(), false), ("bump".into(), false)]
    );
}

/// The type schema in a field's or method's metadata, unquoted.
fn schema_in(metadata: &str) -> String {
    let inner = metadata
        .strip_prefix("{\"type_schema\":\"")
        .and_then(|m| m.strip_suffix("\"}"))
        .unwrap_or_else(|| panic!("not a type_schema metadata: {metadata}"));
    inner.replace("\\\"", "\"")
}

#[test]
fn fields_and_methods_carry_their_type_schemas_in_their_metadata() {
    let t = TypeRef::by_key("test.derive.Sensor").unwrap();
    let fields = t.fields();
    let schemas: Vec<_> = fields.iter().map(|f| (f.name.as_str(), schema_in(&f.metadata))).collect();
    let sensor = r#"{"type":"test.derive.Sensor"}"#;
    let optional_sensor = format!(r#"{{"type":"Optional","args":[{sensor}]}}"#);
    assert_eq!(
        schemas,
        [
            ("id", r#"{"type":"int"}"#.to_string()),
            ("scale", r#"{"type":"float"}"#.into()),
            ("enabled", r#"{"type":"bool"}"#.into()),
            ("label", r#"{"type":"ffi.String"}"#.into()),
            ("payload", r#"{"type":"Any"}"#.into()),
            ("peer", optional_sensor.clone()),
            ("count", r#"{"type":"int"}"#.into()),
            ("armed", r#"{"type":"bool"}"#.into()),
            ("gain", r#"{"type":"float"}"#.into()),
            ("name", r#"{"type":"ffi.String"}"#.into()),
            ("link", optional_sensor),
        ]
    );
    let function = |ret: &str, params: &[&str]| {
        format!(r#"{{"type":"ffi.Function","named_args":{{"return":[{ret}],"params":[{}]}}}}"#, params.join(","))
    };
    let methods: Vec<_> = t.methods().into_iter().map(|m| (m.name.clone(), schema_in(&m.metadata))).collect();
    assert_eq!(
        methods,
        [
            // A Result's schema is its Ok type's; `&self` is the object, first.
            ("__ffi_init__".into(), function(sensor, &[r#"{"type":"int"}"#, r#"{"type":"ffi.String"}"#])),
            ("reading".into(), function(r#"{"type":"float"}"#, &[sensor, r#"{"type":"float"}"#])),
            ("describe".into(), function(r#"{"type":"ffi.String"}"#, &[sensor])),
            ("bump".into(), function(r#"{"type":"None"}"#, &[sensor])),
        ]
    );
}

#[test]
fn fields_read_by_name_match_the_direct_reads() {
    let peer = ObjectRef::new(Sensor::plain(9, "peer")).unwrap();
    let mut value = Sensor::plain(3, "kitchen");
    value.peer = Some(peer.clone());
    let s = ObjectRef::new(value).unwrap();
    assert_eq!(s.get_field("id").unwrap().get::<i64>().unwrap(), s.id);
    assert_eq!(s.get_field("scale").unwrap().get::<f64>().unwrap(), 2.0);
    assert!(s.get_field("enabled").unwrap().get::<bool>().unwrap());
    assert_eq!(s.get_field("label").unwrap().get::<String>().unwrap(), "kitchen");
    assert_eq!(s.get_field("payload").unwrap().get::<String>().unwrap(), "pay");
    let got: ObjectRef<Sensor> = s.get_field("peer").unwrap().get().unwrap();
    assert!(got.ptr_eq(&peer));
    assert!(s.get_field("link").unwrap().is_none());
    assert_eq!(s.get_field("count").unwrap().get::<i64>().unwrap(), 7);
    assert_eq!(s.get_field("gain").unwrap().get::<f64>().unwrap(), 0.5);
    assert_eq!(s.get_field("name").unwrap().get::<String>().unwrap(), "n");
}

#[test]
fn writable_fields_set_by_name_are_seen_by_rust() {
    let s = ObjectRef::new(Sensor::plain(1, "a")).unwrap();
    s.set_field("count", 41i64).unwrap();
    assert_eq!(s.count.load(Ordering::Relaxed), 41);
    s.set_field("armed", true).unwrap();
    assert!(s.armed.load(Ordering::Relaxed));
    s.set_field("gain", 1.25).unwrap();
    assert_eq!(s.gain.load(), 1.25);
    s.set_field("name", "renamed").unwrap();
    assert_eq!(*s.name.lock().unwrap(), "renamed");
    let other = ObjectRef::new(Sensor::plain(2, "b")).unwrap();
    s.set_field("link", other.clone()).unwrap();
    assert!(s.link.lock().unwrap().as_ref().unwrap().ptr_eq(&other));
    assert_eq!(other.strong_count(), 2);
    s.set_field("link", ()).unwrap();
    assert_eq!(other.strong_count(), 1);
}

#[test]
fn bad_writes_are_clear_errors_and_change_nothing() {
    let s = ObjectRef::new(Sensor::plain(1, "a")).unwrap();
    let err = s.set_field("id", 5i64).unwrap_err();
    assert!(err.message().contains("id"), "{}", err.message());
    assert_eq!(s.id, 1);
    let err = s.set_field("count", "seven").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeError);
    assert!(err.message().contains("count") && err.message().contains("int"), "{}", err.message());
    assert_eq!(s.count.load(Ordering::Relaxed), 7);
    let err = s.set_field("link", 3i64).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeError);
    assert!(s.link.lock().unwrap().is_none());
    let err = s.get_field("nope").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::from("AttributeError"));
    assert!(err.message().contains("nope"), "{}", err.message());
    assert!(s.set_field("nope", 1i64).is_err());
    // Names too long for the stack buffer, and names C cannot hold.
    let long = "n".repeat(100);
    assert!(s.get_field(&long).unwrap_err().message().contains(&long));
    assert_eq!(s.get_field("a\0b").unwrap_err().kind(), ErrorKind::ValueError);
    assert_eq!(s.set_field("count\0", 1i64).unwrap_err().kind(), ErrorKind::ValueError);
    assert_eq!(s.count.load(Ordering::Relaxed), 7);
    assert!(s.call_method("nope", ()).is_err());
}

#[test]
fn methods_are_called_by_name() {
    let t = TypeRef::by_key("test.derive.Sensor").unwrap();
    let made = t.call_static("__ffi_init__", (5i64, "hall")).unwrap();
    let s: ObjectRef<Sensor> = made.get().unwrap();
    assert_eq!((s.id, s.label.as_str()), (5, "hall"));
    let r = s.call_method("reading", (1.5,)).unwrap();
    assert_eq!(r.get::<f64>().unwrap(), 2.0 * 1.5 + 7.0);
    assert_eq!(s.call_method("describe", ()).unwrap().get::<String>().unwrap(), "hall#5");
    assert!(s.call_method("bump", ()).unwrap().is_none());
    assert_eq!(s.count.load(Ordering::Relaxed), 8);
    let err = s.call_method("reading", ("x",)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeError);
    assert!(t.call_static("reading", ()).is_err());
    assert!(t.method("hidden").is_err());
}

#[test]
fn registration_happens_once_across_threads() {
    #[derive(xffi::Object)]
    #[xffi(type_key = "test.derive.Raced")]
    struct Raced {
        #[xffi(get)]
        v: i64,
    }
    let handles: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                let r = ObjectRef::new(Raced { v: i }).unwrap();
                (r.type_index(), r.fields().len(), r.get_field("v").unwrap().get::<i64>().unwrap())
            })
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        let (index, nfields, v) = h.join().unwrap();
        assert_eq!((index, nfields, v), (Raced::type_index(), 1, i as i64));
    }
}

/// A parent and a child that embeds it.
#[derive(xffi::Object)]
#[xffi(type_key = "test.derive.Base")]
struct Base {
    #[xffi(get)]
    tag: i64,
}

#[repr(C)]
#[derive(xffi::Object)]
#[xffi(type_key = "test.derive.Child", parent = Base)]
struct Child {
    #[xffi(base)]
    base: Base,
    #[xffi(get)]
    extra: i64,
}

#[test]
fn a_child_lists_its_parents_fields_first_and_upcasts() {
    let c = ObjectRef::new(Child { base: Base { tag: 4 }, extra: 5 }).unwrap();
    let names: Vec<_> = c.fields().into_iter().map(|f| (f.name, f.declared_by)).collect();
    assert_eq!(names, [("tag".into(), "test.derive.Base"), ("extra".into(), "test.derive.Child")]);
    assert_eq!(c.get_field("tag").unwrap().get::<i64>().unwrap(), 4);
    assert_eq!(c.get_field("extra").unwrap().get::<i64>().unwrap(), 5);
    let b: ObjectRef<Base> = c.upcast();
    assert_eq!(b.tag, 4);
}

/// Declares `tag` again: its parent has it.
#[repr(C)]
#[derive(xffi::Object)]
#[xffi(type_key = "test.derive.Twice", parent = Base)]
struct Twice {
    #[xffi(base)]
    base: Base,
    #[xffi(get)]
    ok: i64,
    #[xffi(get)]
    tag: i64,
}

#[test]
fn a_field_declared_twice_is_refused_and_nothing_is_half_registered() {
    let err = ObjectRef::new(Twice { base: Base { tag: 1 }, ok: 2, tag: 3 }).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError);
    assert_eq!(
        err.message(),
        "derive(Object) test.derive.Twice: field `tag` is already a field of the type or an ancestor"
    );
    // None of its fields went in (not even `ok`, declared before `tag`).
    let t = TypeRef::by_key("test.derive.Twice").unwrap();
    assert_eq!(t.fields().len(), 1); // Base's tag only
    // Every later use reports the same error.
    let again = ObjectRef::new(Twice { base: Base { tag: 1 }, ok: 2, tag: 3 }).unwrap_err();
    assert_eq!(again.message(), err.message());
}

#[test]
fn objects_are_dropped_once_whoever_holds_the_last_reference() {
    static DROPS: AtomicI64 = AtomicI64::new(0);
    #[derive(xffi::Object)]
    #[xffi(type_key = "test.derive.Counted")]
    struct Counted {
        #[xffi(get)]
        v: i64,
    }
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }
    let c = ObjectRef::new(Counted { v: 1 }).unwrap();
    let through_c = c.get_field("v").unwrap();
    let held = Any::from(c.clone());
    drop(c);
    assert_eq!(DROPS.load(Ordering::SeqCst), 0);
    assert_eq!(through_c.get::<i64>().unwrap(), 1);
    drop(held);
    assert_eq!(DROPS.load(Ordering::SeqCst), 1);
}

#[test]
fn a_c_defined_type_is_reached_by_name_too() {
    // ffi.reflection.AccessPath and AccessStep: fields and methods registered by C.
    let path_type = TypeRef::by_key("ffi.reflection.AccessPath").unwrap();
    let root: ObjectRef<xffi::Object> = path_type.call_static("_root", ()).unwrap().get().unwrap();
    let path: ObjectRef<xffi::Object> = root.call_method("_attr", ("weight",)).unwrap().get().unwrap();
    assert_eq!(path.get_field("depth").unwrap().get::<i64>().unwrap(), 1);
    let step: ObjectRef<xffi::Object> = path.get_field("step").unwrap().get().unwrap();
    assert_eq!(step.type_key(), "ffi.reflection.AccessStep");
    assert_eq!(step.get_field("key").unwrap().get::<String>().unwrap(), "weight");
    let names: Vec<_> = path.fields().into_iter().map(|f| f.name).collect();
    assert_eq!(names, ["parent", "step", "depth"]);
}

#[test]
fn debug_prints_the_reflected_fields() {
    let peer = ObjectRef::new(Child { base: Base { tag: 1 }, extra: 2 }).unwrap();
    assert_eq!(format!("{peer:?}"), "test.derive.Child(tag=1, extra=2)");
    let s = ObjectRef::new(Sensor::plain(3, "hall")).unwrap();
    let text = format!("{s:?}");
    assert!(
        text.starts_with(
            "test.derive.Sensor(id=3, scale=2, enabled=True, label=\"hall\", payload=\"pay\", peer=None, count=7"
        ),
        "{text}"
    );
    // Any holding an object prints the same; sharing and cycles are the repr's.
    assert_eq!(format!("{:?}", Any::from(peer.clone())), "test.derive.Child(tag=1, extra=2)");
    s.set_field("link", s.clone()).unwrap();
    let cyclic = format!("{s:?}");
    assert!(cyclic.ends_with("link=...)"), "{cyclic}");
    s.set_field("link", ()).unwrap(); // break the cycle: the object is freed
}
