//! `#[xffi(default, clone)]`: a derived type's `__ffi_shallow_copy__` is its
//! `Clone`, so deep copy and structural map copy it, filling the fresh copy
//! through the field setters; without `clone` the copy is refused.
use std::sync::atomic::{AtomicI64, Ordering};

use xffi::structural_visit::{Order, map};
use xffi::{Any, Array, ErrorKind, ObjectRef, deep_copy, structural_equal};

#[derive(xffi::Object, Default, Clone)]
#[xffi(type_key = "test.derived_copy.Leaf", structural_eq = "tree", default, clone)]
struct Leaf {
    #[xffi(get)]
    name: String,
}

#[derive(xffi::Object, Default)]
#[xffi(type_key = "test.derived_copy.Pair", structural_eq = "tree", default, clone)]
struct Pair {
    #[xffi(get)]
    left: Option<ObjectRef<Leaf>>,
    #[xffi(get)]
    right: Option<ObjectRef<Leaf>>,
    #[xffi(get, set)]
    hits: AtomicI64,
}

impl Clone for Pair {
    fn clone(&self) -> Self {
        Pair {
            left: self.left.clone(),
            right: self.right.clone(),
            hits: AtomicI64::new(self.hits.load(Ordering::Relaxed)),
        }
    }
}

/// Creatable but not clonable.
#[derive(xffi::Object, Default)]
#[xffi(type_key = "test.derived_copy.NoClone", structural_eq = "tree", default)]
struct NoClone {
    #[xffi(get)]
    x: i64,
}

fn leaf(name: &str) -> ObjectRef<Leaf> {
    ObjectRef::new(Leaf { name: name.into() }).unwrap()
}

fn pair_of(l: &ObjectRef<Leaf>, r: &ObjectRef<Leaf>) -> ObjectRef<Pair> {
    ObjectRef::new(Pair { left: Some(l.clone()), right: Some(r.clone()), hits: AtomicI64::new(3) }).unwrap()
}

#[test]
fn deep_copy_copies_derived_objects_keeping_sharing() {
    let shared = leaf("shared");
    let p = pair_of(&shared, &shared);
    let v: Array<Any> = vec![Any::from(&p), Any::from(&shared)].into_iter().collect();
    let copy: Array<Any> = deep_copy(&v).unwrap().get().unwrap();
    assert!(structural_equal(&v, &copy).unwrap());
    let cp = copy.get(0).unwrap().unwrap().get::<ObjectRef<Pair>>().unwrap();
    let cshared = copy.get(1).unwrap().unwrap().get::<ObjectRef<Leaf>>().unwrap();
    assert!(!cp.ptr_eq(&p) && !cshared.ptr_eq(&shared), "new objects");
    let (l, r) = (cp.left.as_ref().unwrap(), cp.right.as_ref().unwrap());
    assert!(l.ptr_eq(r) && l.ptr_eq(&cshared), "sharing kept inside the copy");
    assert_eq!((l.name.as_str(), cp.hits.load(Ordering::Relaxed)), ("shared", 3));
    // The copy is independent: writing it leaves the original alone.
    cp.hits.store(9, Ordering::Relaxed);
    assert_eq!(p.hits.load(Ordering::Relaxed), 3);
}

#[test]
fn structural_map_copies_a_derived_object_whose_field_changed() {
    let p = pair_of(&leaf("a"), &leaf("b"));
    let mapped = map(Any::from(&p), Order::Post, |v| {
        Ok(match v.get::<&str>() {
            Ok("a") => Some(Any::from("A, renamed by the map")),
            _ => None,
        })
    })
    .unwrap();
    let mp = mapped.get::<ObjectRef<Pair>>().unwrap();
    assert!(!mp.ptr_eq(&p));
    assert_eq!(mp.left.as_ref().unwrap().name, "A, renamed by the map");
    assert!(mp.right.as_ref().unwrap().ptr_eq(p.right.as_ref().unwrap()), "unchanged child kept");
    assert_eq!(p.left.as_ref().unwrap().name, "a", "the original is intact");
}

#[test]
fn a_creatable_type_without_clone_is_not_copied() {
    let n = ObjectRef::new(NoClone { x: 1 }).unwrap();
    assert_eq!(n.x, 1);
    let err = deep_copy(&n).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::RuntimeError);
    assert!(err.message().contains("not copy-constructible"), "{err}");
}
