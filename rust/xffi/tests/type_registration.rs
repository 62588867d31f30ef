//! object_type! registration refuses every declaration that would let safe
//! code read one layout as another (issue 12, item 1).
#![allow(dead_code)] // the payloads exist to differ in layout, not to be read

use xffi::{Any, Object, ObjectRef, ObjectType, StringObj, object_type};

struct First(u64);
object_type!(First, "reg.Shared");
struct Second(std::string::String);
object_type!(Second, "reg.Shared");

#[test]
fn a_key_belongs_to_one_rust_type() {
    let first = ObjectRef::new(First(7)).unwrap();
    let err = ObjectRef::new(Second("not a u64".into())).unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::ValueError);
    assert!(err.message().contains("reg.Shared"), "{}", err.message());
    assert!(err.message().contains("already registered"), "{}", err.message());
    // The owner keeps working, and the other type never matches its objects.
    let again = ObjectRef::new(First(8)).unwrap();
    assert_eq!(first.type_index(), again.type_index());
    let obj = first.into_object();
    assert!(!obj.is_instance::<Second>());
    assert!(Any::from(obj.clone()).view().get::<ObjectRef<Second>>().is_err());
    assert_eq!(obj.downcast::<First>().unwrap().0, 7);
}

struct FakeFunction(u64);
object_type!(FakeFunction, "ffi.Function");
struct FakeObject(u64);
object_type!(FakeObject, "ffi.Object");

#[test]
fn built_in_keys_are_refused() {
    for err in [ObjectRef::new(FakeFunction(0)).unwrap_err(), ObjectRef::new(FakeObject(0)).unwrap_err()] {
        assert_eq!(err.kind(), xffi::ErrorKind::ValueError);
        assert!(err.message().contains("already registered"), "{}", err.message());
    }
    assert!(FakeFunction::checked_type_index().is_err());
    // A real Function is not handed out as the impostor.
    let f = xffi::Function::from_typed(|| Ok(1i64)).unwrap().into_object();
    assert!(!f.is_instance::<FakeFunction>());
    assert!(f.downcast::<FakeFunction>().is_err());
}

struct FakeString(u64);
object_type!(FakeString, "reg.FakeString", parent = StringObj);

/// A hand-written (unsafe) binding of a built-in type with a payload Rust
/// code can build: used as a `base` it must still be refused.
struct ForeignFunction([u64; 2]);
// SAFETY: a Function object's cell, right after the header, starts with two
// pointer-sized words, which [u64; 2] reads as plain integers (never called
// or dereferenced); the test only checks that it is refused as a base.
unsafe impl ObjectType for ForeignFunction {
    const TYPE_KEY: &'static str = "ffi.Function";
    fn type_index() -> i32 {
        xffi::sys::XFFI_TYPE_FUNCTION
    }
}
#[repr(C)]
struct OnForeign {
    base: ForeignFunction,
}
object_type!(OnForeign, "reg.OnForeign", parent = ForeignFunction, base = base);

#[test]
fn built_in_and_foreign_parents_are_refused() {
    let err = ObjectRef::new(FakeString(0)).unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::TypeError);
    assert!(err.message().contains("parent ffi.String needs `base = field`"), "{}", err.message());
    let err = ObjectRef::new(OnForeign { base: ForeignFunction([0; 2]) }).unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::TypeError);
    assert!(err.message().contains("not a type defined with object_type!"), "{}", err.message());
    // Real strings never downcast to the impostor.
    let s = xffi::String::new("x").unwrap().into_object();
    assert!(s.downcast::<FakeString>().is_err());
}

struct Base(u8);
object_type!(Base, "reg.Base");
struct NoBase(std::string::String);
object_type!(NoBase, "reg.NoBase", parent = Base);
#[repr(C)]
struct WithBase {
    base: Base,
    extra: u64,
}
object_type!(WithBase, "reg.WithBase", parent = Base, base = base);
struct UnderObject(u8);
object_type!(UnderObject, "reg.UnderObject", parent = Object);

#[test]
fn a_parent_other_than_object_needs_a_base() {
    let err = ObjectRef::new(NoBase("x".into())).unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::TypeError);
    assert!(err.message().contains("reg.NoBase"), "{}", err.message());
    // The checked forms keep working.
    let d = ObjectRef::new(WithBase { base: Base(3), extra: 4 }).unwrap();
    assert_eq!(d.extra, 4);
    let b: ObjectRef<Base> = d.upcast();
    assert_eq!(b.0, 3);
    assert_eq!(b.into_object().downcast::<WithBase>().unwrap().extra, 4);
    assert_eq!(ObjectRef::new(UnderObject(1)).unwrap().0, 1);
}
