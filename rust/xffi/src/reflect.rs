//! Reflection of Rust-defined types: which Rust field types can be
//! reflected (read through a getter, written through a setter), and the
//! registration `#[derive(xffi::Object)]` and `#[xffi::methods]` expand to.
//!
//! A reflected field is read by any language through its getter, at the
//! field's address, while Rust reads the same field directly (a plain load:
//! no reflection on the Rust path). Soundness follows from two rules:
//!
//! - a read-only field (`#[xffi(get)]`, the default) is never written by
//!   anyone once the object exists, so a getter reading it while Rust holds
//!   `&T` is a shared read. Its storage may be C's ([`FieldStorage`] types
//!   `i64`, `f64`, `bool`, [`Any`], [`ObjectRef<T>`], `Option<ObjectRef<T>>`:
//!   xffi's typed getters read them, layouts checked at compile time below)
//!   or Rust's (`std::string::String`: a generated getter makes an xffi String;
//!   the other integers and `f32`: it widens them to an int or a float);
//! - a writable field (`#[xffi(get, set)]`) must be a [`SettableField`]:
//!   a type whose writes through `&self` are synchronised
//!   ([`AtomicI64`], [`AtomicI32`], [`AtomicU32`], [`AtomicBool`], [`AtomicF64`],
//!   `Mutex<T>`), because
//!   other languages and threads write it while Rust code holds `&T`. A
//!   plain `i64` marked `set` does not compile. A field whose value other
//!   fields depend on (a Rust invariant) stays read-only: export a method
//!   that checks the invariant instead;
//! - a type marked `#[xffi(default)]` is creatable by other runtimes (the
//!   JSON graph reader, serde, structural map's copies): its creator makes
//!   `T::default()` and its read-only fields get a setter ([`InitField`])
//!   that writes only while the caller holds the object's only reference
//!   (checked on every call: strong count 1, no weak reference), so no
//!   language writes a field Rust may be reading. A type with invariants
//!   between fields must not opt in: other languages choose every field.

use std::ffi::{c_int, c_void};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU32, AtomicU64, Ordering};

use xffi_sys as sys;

use crate::{Any, AnyView, Error, FromAnyView, Function, ObjectRef, ObjectType, Result};

mod access;

pub use crate::repr::repr;
pub use access::{FieldDesc, MethodDesc, TypeRef};

/// A Rust field type with a static type index: what the field holds, as
/// tvm-ffi's records say it (`field_static_type_index`).
///
/// ```
/// use xffi::reflect::FieldType;
/// assert_eq!(<i32 as FieldType>::static_type_index().unwrap(), xffi::sys::XFFI_TYPE_INT);
/// assert_eq!(<f32 as FieldType>::static_type_index().unwrap(), xffi::sys::XFFI_TYPE_FLOAT);
/// assert_eq!(<xffi::Any as FieldType>::static_type_index().unwrap(), xffi::sys::XFFI_TYPE_ANY);
/// ```
pub trait FieldType {
    /// The static type index (`XFFI_TYPE_INT`, ..., an object type's index;
    /// `XFFI_TYPE_ANY` for any value). For an object type this may register it.
    fn static_type_index() -> Result<i32>;
}

/// A Rust field type that `#[xffi(get)]` can reflect: readable by any
/// language through its getter.
///
/// # Safety
/// `getter()` must return a getter that reads a valid `Self` at the address
/// it is given (only through `&Self`) and writes an owned value to `*result`.
///
/// Users meet it as the bound on `#[xffi(get)]` fields; a getter reads
/// through [`FieldStorage::read`]:
///
/// ```
/// use xffi::reflect::FieldStorage;
/// #[derive(xffi::Object)]
/// #[xffi(type_key = "doc.reflect.FieldStorage")]
/// struct Sample {
///     #[xffi(get)]
///     rate: u16,
///     #[xffi(get)]
///     name: String,
/// }
/// let s = xffi::ObjectRef::new(Sample { rate: 440, name: "a4".into() }).unwrap();
/// assert_eq!(s.get_field("rate").unwrap().get::<i64>().unwrap(), 440);
/// assert_eq!(s.get_field("name").unwrap().get::<String>().unwrap(), "a4");
/// assert_eq!(7u16.read().unwrap().get::<i64>().unwrap(), 7);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a reflected field",
    label = "not a reflectable field type",
    note = "reflectable: i64, i32, i16, i8, u64, u32, u16, u8, f64, f32, bool, xffi::Any, ObjectRef<T>, Option<ObjectRef<T>>, String, AtomicI64, AtomicI32, AtomicU32, AtomicBool, xffi::reflect::AtomicF64, Mutex<T> of those"
)]
pub unsafe trait FieldStorage: FieldType + Sized + Send + Sync + 'static {
    /// The value as an [`Any`] (used by the generated getter).
    fn read(&self) -> Result<Any>;
    /// The getter C calls: xffi's typed getter where the storage is C's,
    /// otherwise one that calls [`FieldStorage::read`].
    fn getter() -> Result<sys::xffi_field_getter> {
        Ok(Some(read_field::<Self>))
    }
}

/// A field type that `#[xffi(get, set)]` can make writable from any
/// language: its writes through `&self` are synchronised.
///
/// # Safety
/// `write` must be sound while other threads read or write the same field
/// through `&Self`.
///
/// ```
/// use std::sync::Mutex;
/// #[derive(xffi::Object)]
/// #[xffi(type_key = "doc.reflect.SettableField")]
/// struct Label {
///     #[xffi(get, set)]
///     text: Mutex<String>,
/// }
/// let l = xffi::ObjectRef::new(Label { text: Mutex::new("old".into()) }).unwrap();
/// l.set_field("text", "new").unwrap();
/// assert_eq!(*l.text.lock().unwrap(), "new");
/// // A value that does not convert is a TypeError and changes nothing.
/// assert!(l.set_field("text", 5i64).is_err());
/// assert_eq!(*l.text.lock().unwrap(), "new");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a writable reflected field",
    label = "written from other languages while Rust holds `&Self`: needs synchronised writes",
    note = "writable: AtomicI64, AtomicI32, AtomicU32, AtomicBool, xffi::reflect::AtomicF64, Mutex<T> (T: i64, i32, u32, f64, f32, bool, Any, String, ObjectRef<U>, Option<ObjectRef<U>>)"
)]
pub unsafe trait SettableField: FieldStorage {
    /// Converts the borrowed `value` and stores it. Errors: the conversion's
    /// TypeError ("expected int, got str").
    fn write(&self, value: &AnyView<'_>) -> Result<()>;
}

/// The getter of fields whose storage is Rust's.
unsafe extern "C" fn read_field<F: FieldStorage>(field_addr: *mut c_void, result: *mut sys::xffi_any) -> c_int {
    crate::ffi_boundary!("a reflected field's getter", {
        if field_addr.is_null() || result.is_null() {
            return Error::value_error("field getter: NULL field address or result").raise();
        }
        // SAFETY: FieldStorage's contract: a live F at field_addr, read shared.
        match unsafe { &*field_addr.cast::<F>() }.read() {
            // SAFETY: checked non-NULL; the caller's slot receives an owned value.
            Ok(v) => unsafe {
                result.write(v.into_raw());
                sys::XFFI_OK
            },
            Err(e) => e.raise(),
        }
    })
}

macro_rules! c_storage {
    ($($t:ty => $index:expr),* $(,)?) => {$(
        impl FieldType for $t {
            fn static_type_index() -> Result<i32> { Ok($index) }
        }
        // SAFETY: the storage is C's for that index (layouts asserted below):
        // xffi's typed getter reads it and returns an owned value.
        unsafe impl FieldStorage for $t {
            fn read(&self) -> Result<Any> { Ok(Any::from(self.clone())) }
            fn getter() -> Result<sys::xffi_field_getter> { c_getter($index) }
        }
    )*};
}
c_storage!(i64 => sys::XFFI_TYPE_INT, f64 => sys::XFFI_TYPE_FLOAT, bool => sys::XFFI_TYPE_BOOL, Any => sys::XFFI_TYPE_ANY);

// The other scalars are Rust's storage (C's getters read only int64, double
// and bool): the default getter widens the value into an int or float.
macro_rules! rust_scalar {
    ($($t:ty => $index:expr),* $(,)?) => {$(
        impl FieldType for $t {
            fn static_type_index() -> Result<i32> { Ok($index) }
        }
        // SAFETY: the default getter reads the value through &Self.
        unsafe impl FieldStorage for $t {
            fn read(&self) -> Result<Any> { Ok(Any::from(*self)) }
        }
    )*};
}
rust_scalar!(i32 => sys::XFFI_TYPE_INT, i16 => sys::XFFI_TYPE_INT, i8 => sys::XFFI_TYPE_INT,
    u32 => sys::XFFI_TYPE_INT, u16 => sys::XFFI_TYPE_INT, u8 => sys::XFFI_TYPE_INT, f32 => sys::XFFI_TYPE_FLOAT);

impl FieldType for u64 {
    fn static_type_index() -> Result<i32> {
        Ok(sys::XFFI_TYPE_INT)
    }
}
// SAFETY: the default getter reads the value through &Self.
unsafe impl FieldStorage for u64 {
    /// Errors: ValueError for a value over `i64::MAX` (an xffi int is an i64).
    fn read(&self) -> Result<Any> {
        Ok(Any::from(i64::try_from(*self)?))
    }
}

fn c_getter(storage_index: i32) -> Result<sys::xffi_field_getter> {
    let mut out = None;
    // SAFETY: valid out slot.
    crate::error::check(unsafe { sys::xffi_field_getter_for_type(&mut out, storage_index) })?;
    Ok(out)
}

// The Rust types whose storage is C's, checked: an xffi_any's 16 bytes, an
// object pointer (NULL for None), C's int64/double and a one-byte bool.
const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<Any>() == size_of::<sys::xffi_any>() && align_of::<Any>() == align_of::<sys::xffi_any>());
    assert!(size_of::<ObjectRef<crate::Object>>() == size_of::<*mut sys::xffi_object>());
    assert!(size_of::<Option<ObjectRef<crate::Object>>>() == size_of::<*mut sys::xffi_object>());
    assert!(size_of::<bool>() == 1 && size_of::<i64>() == 8 && size_of::<f64>() == 8);
    assert!(size_of::<AtomicI64>() == 8 && size_of::<AtomicBool>() == 1);
};

impl<T: ObjectType> FieldType for ObjectRef<T> {
    fn static_type_index() -> Result<i32> {
        T::checked_type_index()
    }
}
// SAFETY: an ObjectRef is one non-NULL object pointer (asserted above): C's
// object storage, which the object getter reads with an inc-ref.
unsafe impl<T: ObjectType + Send + Sync> FieldStorage for ObjectRef<T> {
    fn read(&self) -> Result<Any> {
        Ok(Any::from(self))
    }
    fn getter() -> Result<sys::xffi_field_getter> {
        c_getter(sys::XFFI_TYPE_OBJECT)
    }
}
impl<T: ObjectType> FieldType for Option<ObjectRef<T>> {
    fn static_type_index() -> Result<i32> {
        T::checked_type_index()
    }
}
// SAFETY: None is the NULL pointer (asserted above), which C's object
// getter returns as None.
unsafe impl<T: ObjectType + Send + Sync> FieldStorage for Option<ObjectRef<T>> {
    fn read(&self) -> Result<Any> {
        Ok(self.as_ref().map_or_else(Any::default, Any::from))
    }
    fn getter() -> Result<sys::xffi_field_getter> {
        c_getter(sys::XFFI_TYPE_OBJECT)
    }
}

impl FieldType for std::string::String {
    fn static_type_index() -> Result<i32> {
        Ok(sys::XFFI_TYPE_STRING)
    }
}
// SAFETY: the default getter reads the String through &Self and makes an
// xffi String (a new value).
unsafe impl FieldStorage for std::string::String {
    fn read(&self) -> Result<Any> {
        Any::from_str(self)
    }
}

// Atomic integers: written by any language while Rust reads them.
macro_rules! atomic_int {
    ($($t:ty => $v:ty),* $(,)?) => {$(
        impl FieldType for $t {
            fn static_type_index() -> Result<i32> {
                Ok(sys::XFFI_TYPE_INT)
            }
        }
        // SAFETY: atomic load through &Self.
        unsafe impl FieldStorage for $t {
            fn read(&self) -> Result<Any> {
                Ok(Any::from(self.load(Ordering::Relaxed)))
            }
        }
        // SAFETY: atomic store through &Self.
        unsafe impl SettableField for $t {
            /// Errors: TypeError for a value that is not an int; ValueError out of range.
            fn write(&self, value: &AnyView<'_>) -> Result<()> {
                self.store(value.get::<$v>()?, Ordering::Relaxed);
                Ok(())
            }
        }
    )*};
}
atomic_int!(AtomicI64 => i64, AtomicI32 => i32, AtomicU32 => u32);

impl FieldType for AtomicBool {
    fn static_type_index() -> Result<i32> {
        Ok(sys::XFFI_TYPE_BOOL)
    }
}
// SAFETY: atomic load through &Self.
unsafe impl FieldStorage for AtomicBool {
    fn read(&self) -> Result<Any> {
        Ok(Any::from(self.load(Ordering::Relaxed)))
    }
}
// SAFETY: atomic store through &Self.
unsafe impl SettableField for AtomicBool {
    fn write(&self, value: &AnyView<'_>) -> Result<()> {
        self.store(value.get::<bool>()?, Ordering::Relaxed);
        Ok(())
    }
}

/// An `f64` that any language may write while Rust reads it: the bits in an
/// atomic (a plain load and store on common targets).
///
/// ```
/// let x = xffi::reflect::AtomicF64::new(1.5);
/// x.store(2.5);
/// assert_eq!(x.load(), 2.5);
/// ```
#[derive(Debug, Default)]
pub struct AtomicF64(AtomicU64);

impl AtomicF64 {
    /// A new value.
    ///
    /// ```
    /// static GAIN: xffi::reflect::AtomicF64 = xffi::reflect::AtomicF64::new(0.5);
    /// assert_eq!(GAIN.load(), 0.5);
    /// ```
    pub const fn new(v: f64) -> Self {
        AtomicF64(AtomicU64::new(v.to_bits()))
    }
    /// The current value.
    #[inline(always)]
    ///
    /// ```
    /// let x = xffi::reflect::AtomicF64::default();
    /// assert_eq!(x.load(), 0.0);
    /// ```
    pub fn load(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }
    /// Replaces the value.
    #[inline(always)]
    ///
    /// ```
    /// let x = xffi::reflect::AtomicF64::new(1.0);
    /// x.store(-3.25); // through `&self`: shared readers see the new value
    /// assert_eq!(x.load(), -3.25);
    /// ```
    pub fn store(&self, v: f64) {
        self.0.store(v.to_bits(), Ordering::Relaxed)
    }
}

impl FieldType for AtomicF64 {
    fn static_type_index() -> Result<i32> {
        Ok(sys::XFFI_TYPE_FLOAT)
    }
}
// SAFETY: atomic load through &Self.
unsafe impl FieldStorage for AtomicF64 {
    fn read(&self) -> Result<Any> {
        Ok(Any::from(self.load()))
    }
}
// SAFETY: atomic store through &Self.
unsafe impl SettableField for AtomicF64 {
    fn write(&self, value: &AnyView<'_>) -> Result<()> {
        self.store(value.get::<f64>()?);
        Ok(())
    }
}

/// Values a `Mutex<T>` field may hold: converted to an [`Any`] when read,
/// from one when written.
///
/// ```
/// use std::sync::Mutex;
/// #[derive(xffi::Object)]
/// #[xffi(type_key = "doc.reflect.MutexFieldValue")]
/// struct Counter {
///     #[xffi(get, set)]
///     count: Mutex<i64>,
/// }
/// let c = xffi::ObjectRef::new(Counter { count: Mutex::new(1) }).unwrap();
/// c.set_field("count", 2i64).unwrap();
/// assert_eq!(c.get_field("count").unwrap().get::<i64>().unwrap(), 2);
/// ```
pub trait MutexFieldValue: FieldType + Clone + Into<Any> + for<'v> FromAnyView<'v> + Send + 'static {}
impl<T: FieldType + Clone + Into<Any> + for<'v> FromAnyView<'v> + Send + 'static> MutexFieldValue for T {}

impl<T: MutexFieldValue> FieldType for Mutex<T> {
    fn static_type_index() -> Result<i32> {
        T::static_type_index()
    }
}
// SAFETY: read under the lock through &Self.
unsafe impl<T: MutexFieldValue> FieldStorage for Mutex<T> {
    fn read(&self) -> Result<Any> {
        Ok(self.lock().unwrap_or_else(|e| e.into_inner()).clone().into())
    }
}
// SAFETY: written under the lock through &Self; the conversion happens
// before the lock, so a failed one changes nothing.
unsafe impl<T: MutexFieldValue> SettableField for Mutex<T> {
    fn write(&self, value: &AnyView<'_>) -> Result<()> {
        let v = T::from_view(value)?;
        let old = std::mem::replace(&mut *self.lock().unwrap_or_else(|e| e.into_inner()), v);
        drop(old); // released after the lock: its deleter may run any code
        Ok(())
    }
}

/// A reflected field that other runtimes may fill while they construct an
/// object of a `#[xffi(default)]` type: the JSON graph reader (and
/// structural map and deep copy, copying through `__ffi_shallow_copy__`) makes the object,
/// then calls each field's setter on it while holding its only reference. The setter of a read-only field calls [`InitField::assign`]
/// (so a field of a creatable type is only ever written through its record's
/// setter, never as raw memory: wrong types are the conversion's error).
///
/// # Safety
/// `assign` must leave a valid `Self` whether it succeeds or fails.
///
/// ```
/// use xffi::Any;
/// use xffi::reflect::InitField;
/// let mut x = 0i64;
/// x.assign(&Any::from(5i64).view()).unwrap();
/// assert_eq!(x, 5);
/// // A wrong type is the conversion's error and leaves the value as it was.
/// assert!(x.assign(&Any::from("five").view()).is_err());
/// assert_eq!(x, 5);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be filled in by the construction of a `#[xffi(default)]` type",
    label = "a read-only field of a creatable type must be an InitField",
    note = "fillable: i64, i32, i16, i8, u64, u32, u16, u8, f64, f32, bool, xffi::Any, ObjectRef<T>, Option<ObjectRef<T>>, String, AtomicI64, AtomicI32, AtomicU32, AtomicBool, xffi::reflect::AtomicF64, Mutex<T> of those"
)]
pub unsafe trait InitField: FieldStorage {
    /// Converts the borrowed `value` and stores it; on error nothing
    /// changes. Errors: the conversion's TypeError ("expected int, got str";
    /// None for an `ObjectRef<T>`, which cannot be empty).
    fn assign(&mut self, value: &AnyView<'_>) -> Result<()>;
}

macro_rules! init_by_conversion {
    ($($t:ty),* $(,)?) => {$(
        // SAFETY: the converted value replaces the old one only on success.
        unsafe impl InitField for $t {
            fn assign(&mut self, value: &AnyView<'_>) -> Result<()> {
                *self = <$t>::from_view(value)?;
                Ok(())
            }
        }
    )*};
}
init_by_conversion!(i64, i32, i16, i8, u64, u32, u16, u8, f64, f32, bool, Any, std::string::String);

// SAFETY: the conversion checks the object's type (and refuses None) before
// the old reference is replaced.
unsafe impl<T: ObjectType + Send + Sync> InitField for ObjectRef<T> {
    fn assign(&mut self, value: &AnyView<'_>) -> Result<()> {
        *self = ObjectRef::<T>::from_view(value)?;
        Ok(())
    }
}
// SAFETY: as for ObjectRef<T>, None included.
unsafe impl<T: ObjectType + Send + Sync> InitField for Option<ObjectRef<T>> {
    fn assign(&mut self, value: &AnyView<'_>) -> Result<()> {
        *self = Option::<ObjectRef<T>>::from_view(value)?;
        Ok(())
    }
}

macro_rules! init_by_write {
    ($($t:ty),* $(,)?) => {$(
        // SAFETY: SettableField's synchronised write, sound through &Self.
        unsafe impl InitField for $t {
            fn assign(&mut self, value: &AnyView<'_>) -> Result<()> {
                self.write(value)
            }
        }
    )*};
}
init_by_write!(AtomicI64, AtomicI32, AtomicU32, AtomicBool, AtomicF64);
// SAFETY: SettableField's write under the lock (converted first).
unsafe impl<T: MutexFieldValue> InitField for Mutex<T> {
    fn assign(&mut self, value: &AnyView<'_>) -> Result<()> {
        self.write(value)
    }
}

#[doc(hidden)]
pub mod private {
    //! What the derive and the methods attribute expand to.
    use super::*;
    use std::ffi::CString;
    use std::marker::PhantomData;

    pub use crate::object::registry::ReflectFn;

    /// One reflected field, as the derive describes it.
    pub struct FieldDecl {
        pub name: &'static str,
        pub doc: &'static str,
        pub writable: bool,
        pub size: usize,
        pub alignment: usize,
        /// From the object's start (the header included).
        pub offset: usize,
        pub getter: Result<sys::xffi_field_getter>,
        pub setter: sys::xffi_field_setter,
        pub static_type_index: Result<i32>,
        pub default: Option<Any>,
        /// XFFI_FIELD_SEQ_HASH_* bits (`#[xffi(structural_eq = "...")]`).
        pub structural_flags: u32,
        /// The field's type schema ([`crate::schema`]), written to its metadata.
        pub type_schema: std::string::String,
    }

    fn bytes(s: &str) -> sys::xffi_byte_array {
        sys::xffi_byte_array { data: s.as_ptr().cast(), size: s.len() }
    }

    /// Registers `fields` (borrowed: the registry copies them) of
    /// `type_index`, all or none: every record is built and every name
    /// checked (not twice, not an ancestor's) before the first is added.
    /// Errors: ValueError naming the type and field; the getter's or the
    /// static type's error.
    pub fn register_fields(type_index: i32, type_key: &str, fields: Vec<FieldDecl>) -> Result<()> {
        let mut infos = Vec::with_capacity(fields.len());
        let metadata: Vec<_> = fields.iter().map(|f| crate::schema::metadata(&f.type_schema)).collect();
        for (i, f) in fields.iter().enumerate() {
            if fields[..i].iter().any(|g| g.name == f.name) {
                return Err(Error::value_error(&format!(
                    "derive(Object) {type_key}: field `{}` is declared twice",
                    f.name
                )));
            }
            let name = CString::new(f.name)?;
            let mut existing = std::ptr::null();
            // SAFETY: valid out slot and NUL-terminated name.
            crate::error::check(unsafe { sys::xffi_type_find_field(&mut existing, type_index, name.as_ptr()) })?;
            if !existing.is_null() {
                return Err(Error::value_error(&format!(
                    "derive(Object) {type_key}: field `{}` is already a field of the type or an ancestor",
                    f.name
                )));
            }
            let getter = f.getter.as_ref().map_err(|e| Error::new(e.kind(), &e.message()))?;
            let static_type_index = f.static_type_index.as_ref().map_err(|e| Error::new(e.kind(), &e.message()))?;
            let mut flags = 0u32;
            if f.writable {
                flags |= sys::XFFI_FIELD_WRITABLE;
            }
            if f.default.is_some() {
                flags |= sys::XFFI_FIELD_HAS_DEFAULT;
            }
            flags |= f.structural_flags;
            infos.push(sys::xffi_field_info {
                name: bytes(f.name),
                doc: bytes(f.doc),
                metadata: bytes(&metadata[i]),
                flags: flags as i64,
                size: f.size as i64,
                alignment: f.alignment as i64,
                offset: f.offset as i64,
                getter: *getter,
                setter: f.setter.map_or(std::ptr::null_mut(), |s| s as *mut c_void),
                default_value_or_factory: f.default.as_ref().map_or(sys::xffi_any::none(), |d| *d.as_raw()),
                field_static_type_index: *static_type_index,
            });
        }
        for info in &infos {
            // SAFETY: a complete record borrowing `fields`, which outlives the call.
            crate::error::check(unsafe { sys::xffi_type_register_field(type_index, info) })?;
        }
        Ok(())
    }

    /// Registers `function` as method `name` of `type_index` (static when
    /// `is_static`: no object argument), with `type_schema` (the function's
    /// schema, [`crate::schema::function_schema`]) in its metadata. The
    /// registry keeps its own reference and copies the texts.
    pub fn register_method(
        type_index: i32,
        name: &str,
        doc: &str,
        is_static: bool,
        type_schema: &str,
        function: Result<Function>,
    ) -> Result<()> {
        let function = Any::from(function?);
        let metadata = crate::schema::metadata(type_schema);
        let info = sys::xffi_method_info {
            name: bytes(name),
            doc: bytes(doc),
            metadata: bytes(&metadata),
            flags: if is_static { sys::XFFI_FIELD_IS_STATIC_METHOD as i64 } else { 0 },
            method: *function.as_raw(),
        };
        // SAFETY: a complete record borrowing `function` and the texts.
        crate::error::check(unsafe { sys::xffi_type_register_method(type_index, &info) })
    }

    /// Registers the type's metadata: its doc, size, structural kind (an
    /// XFFI_SEQ_HASH_* value, `#[xffi(structural_eq = "...")]`) and creator
    /// ([`create_default`] for a `#[xffi(default)]` type; otherwise none:
    /// construction goes through an exported static method such as
    /// `__ffi_init__`, and the JSON graph refuses the type).
    pub fn register_metadata(
        type_index: i32,
        doc: &str,
        total_size: usize,
        structural_kind: u32,
        creator: sys::xffi_object_creator,
    ) -> Result<()> {
        let metadata = sys::xffi_type_metadata {
            doc: bytes(doc),
            creator,
            total_size: i32::try_from(total_size)?,
            structural_eq_hash_kind: i32::try_from(structural_kind)?,
        };
        // SAFETY: a complete record borrowing `doc`.
        crate::error::check(unsafe { sys::xffi_type_register_metadata(type_index, &metadata) })
    }

    /// The setter of a writable field `F` named `field` (for the message).
    ///
    /// # Safety
    /// `field_addr` is a live `F`, `value` a valid borrowed value.
    pub unsafe fn write_field<F: SettableField>(
        field: &str,
        field_addr: *mut c_void,
        value: *const sys::xffi_any,
    ) -> c_int {
        crate::ffi_boundary!(field, {
            if field_addr.is_null() || value.is_null() {
                return Error::value_error(&format!("{field}: NULL field address or value")).raise();
            }
            // SAFETY: the caller's contract: a valid borrowed value, and a live F.
            let (view, slot) = unsafe { (AnyView::from_raw(*value), &*field_addr.cast::<F>()) };
            match slot.write(&view) {
                Ok(()) => sys::XFFI_OK,
                Err(e) => Error::new(e.kind(), &format!("field {field}: {}", e.message())).raise(),
            }
        })
    }

    /// The creator of a `#[xffi(default)]` type: `*result` receives a new
    /// reference to an object holding `T::default()`, allocated (and later
    /// freed) as [`ObjectRef::new`] does. A panic in `default()` is raised
    /// as a RuntimeError.
    ///
    /// # Safety
    /// `result` is NULL (an error) or a writable slot.
    pub unsafe extern "C" fn create_default<T: crate::object::RustObject + Default>(result: *mut *mut c_void) -> c_int {
        crate::ffi_boundary!(&format!("the creator of {}", T::TYPE_KEY), {
            if result.is_null() {
                return Error::value_error(&format!("the creator of {}: NULL result", T::TYPE_KEY)).raise();
            }
            match ObjectRef::new(T::default()) {
                // SAFETY: checked non-NULL; the slot receives the reference.
                Ok(obj) => unsafe {
                    result.write(obj.into_raw().cast());
                    sys::XFFI_OK
                },
                Err(e) => e.raise(),
            }
        })
    }

    /// Registers `__ffi_shallow_copy__` for a `#[xffi(default, clone)]` type:
    /// a Function making a new object holding `T::clone` of its argument,
    /// which structural map and deep copy then fill through the field setters
    /// (the copy is fresh: its maker holds the only reference). The registry
    /// keeps its own reference. Errors: MemoryError.
    pub fn register_shallow_copy<T: crate::object::RustObject + Clone>(type_index: i32) -> Result<()> {
        let copy = Function::from_closure(|args: &[AnyView<'_>]| {
            let [src] = args else {
                return Err(Error::type_error(&format!(
                    "__ffi_shallow_copy__ of {}: expected 1 argument, got {}",
                    T::TYPE_KEY,
                    args.len()
                )));
            };
            let src: ObjectRef<T> = src.get()?;
            Ok(Any::from(ObjectRef::new(T::clone(&src))?))
        })?;
        let copy = Any::from(copy);
        // SAFETY: a NUL-terminated name and a borrowed value the registry copies.
        crate::error::check(unsafe {
            sys::xffi_type_register_attr(type_index, c"__ffi_shallow_copy__".as_ptr(), copy.as_raw())
        })
    }

    /// The setter of a read-only field `F` named `field` of a
    /// `#[xffi(default)]` type, at `object_offset` bytes from the start of
    /// its object, for construction (see [`InitField`]). It writes only
    /// while the object has exactly one strong reference and no weak one
    /// (the constructing code's): a live object that anyone else holds —
    /// Rust reading the field through `&T`, or another thread — is refused
    /// with an AttributeError, whoever calls the setter (tvm-ffi's Python
    /// `FFIProperty.set` escape hatch included).
    ///
    /// # Safety
    /// `field_addr` is a live `F` at `object_offset` in a live object,
    /// `value` a valid borrowed value; the caller holds a strong reference.
    pub unsafe fn init_field<F: InitField>(
        field: &str,
        object_offset: usize,
        field_addr: *mut c_void,
        value: *const sys::xffi_any,
    ) -> c_int {
        crate::ffi_boundary!(field, {
            if field_addr.is_null() || value.is_null() {
                return Error::value_error(&format!("{field}: NULL field address or value")).raise();
            }
            // SAFETY: the caller's contract: the field lies object_offset bytes
            // into a live object, whose header starts the allocation.
            let obj = unsafe { field_addr.cast::<u8>().sub(object_offset) }.cast::<sys::xffi_object>();
            // SAFETY: a live object's header.
            let counts = unsafe { sys::xffi_object_ref_counts(obj) }.load(Ordering::Acquire);
            if counts != sys::XFFI_REF_INITIAL {
                return Error::new(
                    crate::ErrorKind::Other("AttributeError".into()),
                    &format!(
                        "field {field} is read-only: it is set only while the object is being made \
                         (its maker holding the only reference)"
                    ),
                )
                .raise();
            }
            // SAFETY: the caller's contract: a valid borrowed value, and a
            // live F in an object only the caller holds (checked above), so
            // nobody else reads or writes it during the call.
            let (view, slot) = unsafe { (AnyView::from_raw(*value), &mut *field_addr.cast::<F>()) };
            match slot.assign(&view) {
                Ok(()) => sys::XFFI_OK,
                Err(e) => Error::new(e.kind(), &format!("field {field}: {}", e.message())).raise(),
            }
        })
    }

    /// The fields' layout facts the derive needs without naming the type.
    pub const fn size_of_val_type<F>(_: fn(&F)) -> (usize, usize) {
        (std::mem::size_of::<F>(), std::mem::align_of::<F>())
    }

    /// Chooses, without specialisation, between the methods a
    /// `#[xffi::methods]` block exported and none.
    pub struct MethodsProbe<T>(pub PhantomData<T>);

    /// Implemented by `#[xffi::methods]` for the type of its `impl` block.
    pub trait ExportedMethods {
        fn register_methods(type_index: i32) -> Result<()>;
    }
    pub trait HasMethods {
        fn register_methods(&self, type_index: i32) -> Result<()>;
    }
    impl<T: ExportedMethods> HasMethods for &MethodsProbe<T> {
        fn register_methods(&self, type_index: i32) -> Result<()> {
            T::register_methods(type_index)
        }
    }
    pub trait NoMethods {
        fn register_methods(&self, type_index: i32) -> Result<()>;
    }
    impl<T> NoMethods for MethodsProbe<T> {
        fn register_methods(&self, _: i32) -> Result<()> {
            Ok(())
        }
    }
}
