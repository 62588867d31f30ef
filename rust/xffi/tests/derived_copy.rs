//! `#[xffi(default, clone)]`: a derived type's `__ffi_shallow_copy__` is its
//! `Clone`, so structural map copies it, filling the fresh copy through the
//! field setters; the read-only setters write only into an object whose one
//! reference is its maker's.
use std::sync::atomic::{AtomicI64, Ordering};

use xffi::structural_visit::{Order, map};
use xffi::{Any, ErrorKind, ObjectRef, deep_copy};

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

/// Deep copy keeps its copies in a table while it fills them, so a copy
/// has more than one reference when its fields are set: the read-only
/// setters' guard (only the maker's reference) refuses, and deep copy of a
/// derived type is a clear error, never a write into a shared object.
#[test]
fn deep_copy_of_derived_objects_is_refused_by_the_setter_guard() {
    let shared = leaf("shared");
    let p = pair_of(&shared, &shared);
    let err = deep_copy(&p).unwrap_err();
    assert!(err.message().contains("Pair.left is read-only"), "{err}");
    assert_eq!(p.left.as_ref().unwrap().name, "shared", "the original is intact");
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
