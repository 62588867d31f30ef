//! `#[xffi(default, clone)]`: a derived type's `__ffi_shallow_copy__` is its
//! `Clone`, so structural map copies it, filling the fresh copy through the
//! field setters; the read-only setters write only into an object whose one
//! reference is its maker's. Deep copy fills its copies the same way.
use std::sync::atomic::{AtomicI64, Ordering};

use xffi::structural_visit::{Order, map};
use xffi::{Any, ErrorKind, Function, List, ObjectRef, deep_copy};

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

/// A derived object holding any value (here, a List that leads back to it).
#[derive(xffi::Object, Default, Clone)]
#[xffi(type_key = "test.derived_copy.Holder", default, clone)]
struct Holder {
    #[xffi(get)]
    items: Any,
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

/// Deep copy fills each copy while its walk holds the only reference (its
/// table of copies borrows a copy until it is done), so the read-only
/// setters' guard lets it write: a derived graph copies, sharing kept.
#[test]
fn deep_copy_of_a_derived_graph_keeps_sharing() {
    let shared = leaf("shared");
    let p = pair_of(&shared, &shared);
    let q = pair_of(&leaf("other"), &shared);
    let outer: List<Any> = List::new().unwrap();
    for v in [Any::from(&p), Any::from(&q), Any::from(&p)] {
        outer.push(v).unwrap();
    }
    let copied: List<Any> = deep_copy(&outer).unwrap().get().unwrap();
    let cp = copied.get(0).unwrap().unwrap().get::<ObjectRef<Pair>>().unwrap();
    let cq = copied.get(1).unwrap().unwrap().get::<ObjectRef<Pair>>().unwrap();
    assert!(!cp.ptr_eq(&p) && !cq.ptr_eq(&q), "objects are copied");
    assert!(copied.get(2).unwrap().unwrap().get::<ObjectRef<Pair>>().unwrap().ptr_eq(&cp), "p copied once");
    let copied_shared = cp.left.as_ref().unwrap();
    assert!(!copied_shared.ptr_eq(&shared));
    assert_eq!(copied_shared.name, "shared");
    assert!(cp.right.as_ref().unwrap().ptr_eq(copied_shared), "sharing inside an object kept");
    assert!(cq.right.as_ref().unwrap().ptr_eq(copied_shared), "sharing across objects kept");
    assert_eq!(cq.left.as_ref().unwrap().name, "other");
    assert_eq!(cp.hits.load(Ordering::Relaxed), 3);
    // cp: the List twice and this handle; the leaf: three fields.
    assert_eq!((cp.strong_count(), copied_shared.strong_count()), (3, 3), "no reference left behind");
    assert!(p.left.as_ref().unwrap().ptr_eq(&shared), "the original is intact");
}

/// The same through the global other languages call, `ffi.DeepCopy`.
#[test]
fn ffi_deep_copy_copies_a_derived_object() {
    let shared = leaf("via ffi");
    let p = pair_of(&shared, &shared);
    let deep_copy_global = Function::get_global("ffi.DeepCopy").unwrap().expect("ffi.DeepCopy is registered");
    let arg = Any::from(&p);
    let got = deep_copy_global.call(&[arg.view()]).unwrap().get::<ObjectRef<Pair>>().unwrap();
    assert!(!got.ptr_eq(&p));
    let l = got.left.as_ref().unwrap();
    assert!(!l.ptr_eq(&shared) && l.ptr_eq(got.right.as_ref().unwrap()));
    assert_eq!(l.name, "via ffi");
    assert_eq!(got.strong_count(), 1);
}

/// A cycle through a derived object cannot be copied: the copy must be
/// shared (by the copy of what leads back to it) before its fields are set,
/// and its setters write only into an unshared object. DeepCopy fails
/// clearly and the original is untouched.
#[test]
fn deep_copy_of_a_cycle_through_a_derived_object_is_refused() {
    let items: List<Any> = List::new().unwrap();
    let holder = ObjectRef::new(Holder { items: Any::from(&items) }).unwrap();
    items.push(Any::from(&holder)).unwrap(); // holder -> items -> holder
    let err = deep_copy(&holder).unwrap_err();
    assert!(err.message().contains("Holder.items is read-only"), "{err}");
    assert!(items.get(0).unwrap().unwrap().get::<ObjectRef<Holder>>().unwrap().ptr_eq(&holder));
    items.clear().unwrap(); // break the cycle
}

/// The setter of a read-only field writes only while its caller holds the
/// object's only reference: calling it on a live object that Rust also
/// holds (as tvm-ffi's Python `FFIProperty.set` escape hatch would) is an
/// AttributeError, and the field is unchanged.
#[test]
fn a_read_only_setter_refuses_a_live_shared_object() {
    use std::ffi::CString;
    use xffi::{ObjectType, sys};
    let l = leaf("kept");
    let name = CString::new("name").unwrap();
    let mut info: *const sys::xffi_field_info = std::ptr::null();
    // SAFETY: valid out slot and name.
    assert_eq!(unsafe { sys::xffi_type_find_field(&mut info, Leaf::type_index(), name.as_ptr()) }, sys::XFFI_OK);
    // SAFETY: the registry's record, alive for the process.
    let info = unsafe { &*info };
    assert!(!info.setter.is_null(), "a creatable type's read-only field has a construction setter");
    // SAFETY: a plain C setter (no XFFI_FIELD_SETTER_IS_FUNCTION flag) of this signature.
    let setter: unsafe extern "C" fn(*mut std::ffi::c_void, *const sys::xffi_any) -> std::ffi::c_int =
        unsafe { std::mem::transmute(info.setter) };
    let held_elsewhere = l.clone();
    let value = Any::from("overwritten");
    // SAFETY: the field's address in a live object, and a valid value.
    let status = unsafe { setter(l.as_ptr().cast::<u8>().add(info.offset as usize).cast(), value.as_raw()) };
    assert_ne!(status, sys::XFFI_OK);
    let err = xffi::Error::take_raised();
    assert!(err.message().contains("Leaf.name is read-only"), "{err}");
    assert_eq!(held_elsewhere.name, "kept");
    // Held once, by its maker: the construction case, allowed.
    drop(held_elsewhere);
    // SAFETY: as above; this test holds the only reference and reads nothing meanwhile.
    let status = unsafe { setter(l.as_ptr().cast::<u8>().add(info.offset as usize).cast(), value.as_raw()) };
    assert_eq!(status, sys::XFFI_OK);
    assert_eq!(l.name, "overwritten");
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
