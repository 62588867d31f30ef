//! Objects: the owning smart pointer [`ObjectRef`], weak references
//! ([`WeakRef`]), and Rust-defined object types ([`object_type!`](crate::object_type)).

use std::alloc::{self, Layout};
use std::ffi::{CStr, c_int, c_void};
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicI32, Ordering};

use xffi_sys as sys;

use crate::error::{Error, Result, check};

/// A type of xffi object that Rust code can hold in an [`ObjectRef`].
///
/// Implemented by the built-in types' payload markers ([`Object`],
/// [`crate::StringObj`], ...) and, through [`object_type!`](crate::object_type),
/// by Rust structs that become xffi types.
///
/// # Safety
/// `type_index()` must be the index of the xffi type whose objects carry a
/// `Self` at byte offset `PAYLOAD_OFFSET` from the start of the header, and
/// every object of that type (or of a type derived from it) must do so.
///
/// ```
/// use xffi::{Object, ObjectRef, ObjectType, StringObj};
/// // Generic code names a type through it: is this object a `T`?
/// fn is_a<T: ObjectType>(obj: &ObjectRef<Object>) -> bool {
///     obj.clone().downcast::<T>().is_ok()
/// }
/// let s = xffi::String::new("a string longer than seven bytes").unwrap().into_object();
/// assert!(is_a::<StringObj>(&s));
/// assert!(!is_a::<xffi::ArrayObj>(&s));
/// assert_eq!(StringObj::TYPE_KEY, "ffi.String");
/// assert_eq!(StringObj::type_index(), s.type_index());
/// ```
pub unsafe trait ObjectType: Sized + 'static {
    /// The type key (`"my.Node"`).
    const TYPE_KEY: &'static str;
    /// Where the `Self` payload starts, counted from the object header.
    const PAYLOAD_OFFSET: usize = 24;
    /// The type index (cached: no string lookup after the first call).
    /// For a Rust-defined type whose registration fails this panics; use
    /// [`ObjectType::checked_type_index`] to get the error instead.
    fn type_index() -> i32;
    /// The type index, or the error registering the type raised (a
    /// Rust-defined type registers on first use; built-in types never fail).
    #[inline(always)]
    fn checked_type_index() -> Result<i32> {
        Ok(Self::type_index())
    }
}

/// Marks that objects of `Self`'s type are also of type `P` with a `P`
/// payload at the same place, so an `ObjectRef<Self>` may be used as an
/// `ObjectRef<P>` with no check ([`ObjectRef::upcast`]).
///
/// # Safety
/// Only [`object_type!`](crate::object_type) implements it, after checking
/// the layout at compile time.
///
/// ```
/// use xffi::{IsA, ObjectRef, object_type};
/// struct Shape { sides: i64 }
/// object_type!(Shape, "doc.IsA.Shape");
/// #[repr(C)]
/// struct Square { shape: Shape, side: f64 }
/// object_type!(Square, "doc.IsA.Square", parent = Shape, base = shape);
///
/// // Any subtype of Shape, upcast with no check at run time.
/// fn sides<T: IsA<Shape>>(obj: ObjectRef<T>) -> i64 {
///     obj.upcast::<Shape>().sides
/// }
/// assert_eq!(sides(ObjectRef::new(Square { shape: Shape { sides: 4 }, side: 1.0 }).unwrap()), 4);
/// ```
pub unsafe trait IsA<P: ObjectType>: ObjectType {}

/// The root of all objects (type index 64). As a payload it is empty:
/// `ObjectRef<Object>` is "any object".
///
/// ```
/// use xffi::{Object, ObjectRef};
/// let s = xffi::String::new("hi").unwrap();
/// let obj: ObjectRef<Object> = s.into_object();
/// assert_eq!(obj.type_key(), "ffi.String");
/// ```
#[derive(Debug)]
pub struct Object {
    _private: (),
}

// SAFETY: every object is an instance of the root type 64, and the root's
// payload is empty, so nothing is read at PAYLOAD_OFFSET.
unsafe impl ObjectType for Object {
    const TYPE_KEY: &'static str = "ffi.Object";
    #[inline(always)]
    fn type_index() -> i32 {
        sys::XFFI_TYPE_OBJECT
    }
}

/// An owning, reference-counted pointer to an xffi object whose type is `T`
/// (or derived from it). `Clone` takes a strong reference (an atomic add);
/// `Drop` releases it, and the last release runs the object's own deleter,
/// whoever allocated it (C, Rust, another runtime).
///
/// It dereferences to `&T` only: never `&mut`, because other holders (in
/// any language) may read the object at the same time. Mutation goes
/// through interior mutability in `T`.
///
/// `Send`/`Sync` exactly when `T: Send + Sync`: the counts are atomic, the
/// object may be dropped (so destroyed) on any thread, and every holder
/// gets `&T` concurrently.
///
/// ```
/// use xffi::{object_type, ObjectRef};
/// struct Point { x: i64, y: i64 }
/// object_type!(Point, "doc.Point");
///
/// let p = ObjectRef::new(Point { x: 1, y: 2 }).unwrap();
/// let q = p.clone();
/// assert_eq!(p.strong_count(), 2);
/// assert_eq!(q.x + q.y, 3);
/// ```
// transparent: one object pointer, as C stores an object field (and
// Option<ObjectRef<T>> is that pointer with None as NULL).
#[repr(transparent)]
pub struct ObjectRef<T: ObjectType> {
    ptr: NonNull<sys::xffi_object>,
    _marker: PhantomData<T>,
}

// SAFETY: the reference counts are atomic, so the reference may be released
// (and the object destroyed) on any thread; the payload is `Send + Sync`.
unsafe impl<T: ObjectType + Send + Sync> Send for ObjectRef<T> {}
// SAFETY: `&ObjectRef<T>` gives `&T` (T is Sync) or takes an atomic reference.
unsafe impl<T: ObjectType + Send + Sync> Sync for ObjectRef<T> {}

impl<T: ObjectType> ObjectRef<T> {
    /// Takes ownership of a strong reference (stolen) without checking its type.
    ///
    /// # Safety
    /// `ptr` must be NULL or a live object that is an instance of `T`'s type,
    /// and the caller gives up one strong reference to it.
    ///
    /// ```
    /// let mut raw = std::ptr::null_mut();
    /// unsafe { xffi_sys::xffi_string_new(&mut raw, b"x".as_ptr().cast(), 1) };
    /// let s = unsafe { xffi::ObjectRef::<xffi::StringObj>::from_raw(raw) }.unwrap(); // takes the reference
    /// assert_eq!(s.strong_count(), 1);
    /// ```
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *mut sys::xffi_object) -> Option<Self> {
        NonNull::new(ptr).map(|ptr| ObjectRef { ptr, _marker: PhantomData })
    }

    /// Takes a new strong reference to a borrowed object, without checking its type.
    ///
    /// # Safety
    /// `ptr` must be NULL or a live object that is an instance of `T`'s type.
    ///
    /// ```
    /// let s = xffi::String::new("x").unwrap().into_object();
    /// let t = unsafe { xffi::ObjectRef::<xffi::Object>::from_borrowed(s.as_ptr()) }.unwrap();
    /// assert_eq!(s.strong_count(), 2);
    /// drop(t);
    /// ```
    #[inline(always)]
    pub unsafe fn from_borrowed(ptr: *mut sys::xffi_object) -> Option<Self> {
        // SAFETY: the caller's contract: NULL (ignored by the inc-ref) or a
        // live instance of T, whose new reference the ObjectRef owns.
        unsafe {
            sys::xffi_object_inc_ref_inline(ptr);
            Self::from_raw(ptr)
        }
    }

    /// Takes ownership of a strong reference after checking that the object
    /// is an instance of `T`; on a mismatch the reference is released and a
    /// TypeError "expected <T's key>, got <the object's key>" returned.
    ///
    /// # Safety
    /// `ptr` must be a live object whose reference the caller gives up.
    ///
    /// ```
    /// use xffi::{ObjectRef, StringObj};
    /// let mut raw = std::ptr::null_mut();
    /// unsafe { xffi_sys::xffi_string_new(&mut raw, b"x".as_ptr().cast(), 1) };
    /// let s = unsafe { ObjectRef::<StringObj>::from_raw_checked(raw) }.unwrap();
    /// assert_eq!(s.type_key(), "ffi.String");
    /// ```
    pub unsafe fn from_raw_checked(ptr: *mut sys::xffi_object) -> Result<Self> {
        // SAFETY: the caller's contract: a live object and its reference;
        // as an Object it needs no type check, and downcast checks T.
        unsafe {
            let Some(obj) = ObjectRef::<Object>::from_raw(ptr) else {
                return Err(Error::value_error(&format!("expected {}, got NULL", T::TYPE_KEY)));
            };
            obj.downcast::<T>()
                .map_err(|o| Error::type_error(&format!("expected {}, got {}", T::TYPE_KEY, o.type_key())))
        }
    }

    /// Gives up ownership: the caller receives the strong reference.
    ///
    /// ```
    /// let s = xffi::String::new("x").unwrap().into_object();
    /// let raw = s.into_raw();
    /// let back = unsafe { xffi::ObjectRef::<xffi::Object>::from_raw(raw) }.unwrap();
    /// assert_eq!(back.strong_count(), 1);
    /// ```
    #[inline(always)]
    pub fn into_raw(self) -> *mut sys::xffi_object {
        let p = self.ptr.as_ptr();
        std::mem::forget(self);
        p
    }

    /// The object (borrowed: valid while `self` lives).
    ///
    /// ```
    /// let s = xffi::String::new("x").unwrap().into_object();
    /// assert_eq!(unsafe { (*s.as_ptr()).type_index }, 65);
    /// ```
    #[inline(always)]
    pub fn as_ptr(&self) -> *mut sys::xffi_object {
        self.ptr.as_ptr()
    }

    /// The object's own type index (maybe a type derived from `T`).
    ///
    /// ```
    /// assert_eq!(xffi::String::new("x").unwrap().into_object().type_index(), 65);
    /// ```
    #[inline(always)]
    pub fn type_index(&self) -> i32 {
        // SAFETY: live object.
        unsafe { (*self.ptr.as_ptr()).type_index }
    }

    /// The object's own type key.
    ///
    /// ```
    /// assert_eq!(xffi::String::new("x").unwrap().into_object().type_key(), "ffi.String");
    /// ```
    pub fn type_key(&self) -> &'static str {
        type_key_of(self.type_index())
    }

    /// The current strong count (a snapshot).
    ///
    /// ```
    /// let s = xffi::String::new("x").unwrap();
    /// assert_eq!(s.as_object().strong_count(), 1);
    /// ```
    pub fn strong_count(&self) -> u32 {
        // SAFETY: live object.
        unsafe { sys::xffi_object_strong_count(self.ptr.as_ptr()) }
    }

    /// Whether two references point at the same object.
    ///
    /// ```
    /// let a = xffi::String::new("x").unwrap().into_object();
    /// let b = a.clone();
    /// assert!(a.ptr_eq(&b));
    /// ```
    pub fn ptr_eq<U: ObjectType>(&self, other: &ObjectRef<U>) -> bool {
        self.ptr == other.ptr
    }

    /// Whether the object is an instance of `U` (O(1), no call).
    ///
    /// ```
    /// use xffi::{Object, StringObj};
    /// let s = xffi::String::new("x").unwrap().into_object();
    /// assert!(s.is_instance::<StringObj>());
    /// assert!(s.is_instance::<Object>());
    /// ```
    #[inline(always)]
    pub fn is_instance<U: ObjectType>(&self) -> bool {
        // A type that cannot be registered has no instances.
        let Ok(index) = U::checked_type_index() else { return false };
        // SAFETY: live object; U's index is registered.
        unsafe { sys::xffi_object_is_a_unchecked(self.ptr.as_ptr(), index) }
    }

    /// Checked downcast: `Ok` if the object is an instance of `U`, else the
    /// reference back unchanged.
    ///
    /// ```
    /// use xffi::{BytesObj, StringObj};
    /// let s = xffi::String::new("x").unwrap().into_object();
    /// let s = s.downcast::<BytesObj>().unwrap_err();
    /// let s = s.downcast::<StringObj>().unwrap();
    /// assert_eq!(s.type_key(), "ffi.String");
    /// ```
    #[inline(always)]
    pub fn downcast<U: ObjectType>(self) -> std::result::Result<ObjectRef<U>, Self> {
        if self.is_instance::<U>() {
            Ok(ObjectRef { ptr: self.into_nonnull(), _marker: PhantomData })
        } else {
            Err(self)
        }
    }

    /// The reference as "any object".
    ///
    /// ```
    /// let o = xffi::String::new("x").unwrap().into_object();
    /// assert_eq!(o.type_index(), 65);
    /// ```
    #[inline(always)]
    pub fn into_object(self) -> ObjectRef<Object> {
        ObjectRef { ptr: self.into_nonnull(), _marker: PhantomData }
    }

    /// Borrowed as "any object" (no reference taken).
    ///
    /// ```
    /// let s = xffi::String::new("x").unwrap();
    /// let o: &xffi::ObjectRef<xffi::Object> = s.as_object();
    /// assert_eq!(o.type_key(), "ffi.String");
    /// ```
    pub fn as_object(&self) -> &ObjectRef<Object> {
        // SAFETY: ObjectRef<T> and ObjectRef<Object> have the same layout
        // (a pointer and a zero-sized marker) and every object is an Object.
        unsafe { &*(self as *const Self as *const ObjectRef<Object>) }
    }

    /// Static upcast to a declared parent type (no check at run time).
    ///
    /// ```
    /// use xffi::{object_type, ObjectRef};
    /// struct Base { id: i64 }
    /// object_type!(Base, "doc.Base");
    /// #[repr(C)]
    /// struct Derived { base: Base, extra: i64 }
    /// object_type!(Derived, "doc.Derived", parent = Base, base = base);
    ///
    /// let d = ObjectRef::new(Derived { base: Base { id: 7 }, extra: 1 }).unwrap();
    /// let b: ObjectRef<Base> = d.upcast();
    /// assert_eq!(b.id, 7);
    /// assert!(b.clone().into_object().downcast::<Derived>().is_ok());
    /// ```
    #[inline(always)]
    pub fn upcast<P: ObjectType>(self) -> ObjectRef<P>
    where
        T: IsA<P>,
    {
        ObjectRef { ptr: self.into_nonnull(), _marker: PhantomData }
    }

    /// Makes a weak reference to the object.
    ///
    /// ```
    /// let s = xffi::String::new("x").unwrap().into_object();
    /// let w = s.downgrade().unwrap();
    /// assert!(w.upgrade().is_some());
    /// drop(s);
    /// assert!(w.upgrade().is_none());
    /// ```
    pub fn downgrade(&self) -> Result<WeakRef<T>> {
        let mut out = ptr::null_mut();
        // SAFETY: live object.
        check(unsafe { sys::xffi_weak_new(&mut out, self.ptr.as_ptr()) })?;
        Ok(WeakRef { ptr: NonNull::new(out).expect("xffi_weak_new succeeded"), _marker: PhantomData })
    }

    #[inline(always)]
    fn into_nonnull(self) -> NonNull<sys::xffi_object> {
        let p = self.ptr;
        std::mem::forget(self);
        p
    }
}

pub(crate) fn type_key_of(index: i32) -> &'static str {
    // SAFETY: xffi_type_key never returns NULL and the keys are immortal.
    let c = unsafe { CStr::from_ptr(sys::xffi_type_key(index)) };
    c.to_str().unwrap_or("<non-UTF-8 type key>")
}

impl<T: ObjectType + RustObject> ObjectRef<T> {
    /// Allocates a new object of the Rust-defined type `T` (see
    /// [`object_type!`](crate::object_type)) holding `value`. Its deleter runs
    /// `T`'s `Drop` exactly once, when the last strong reference goes
    /// (from Rust, C, a container or another thread), and frees the memory
    /// when the last weak reference goes.
    ///
    /// Errors: MemoryError; the ValueError or TypeError of a refused
    /// registration (see [`object_type!`](crate::object_type)).
    ///
    /// ```
    /// use xffi::{object_type, ObjectRef};
    /// struct Counter(std::sync::atomic::AtomicI64);
    /// object_type!(Counter, "doc.Counter");
    /// let c = ObjectRef::new(Counter(0.into())).unwrap();
    /// c.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    /// assert_eq!(c.type_key(), "doc.Counter");
    /// ```
    pub fn new(value: T) -> Result<Self> {
        let index = T::try_type_index()?;
        let layout = Layout::new::<RustBox<T>>();
        // SAFETY: RustBox<T> is never zero-sized (it has a 24-byte header).
        let raw = unsafe { alloc::alloc(layout) } as *mut RustBox<T>;
        if raw.is_null() {
            // SAFETY: plain call.
            unsafe { sys::xffi_error_raise_out_of_memory() };
            return Err(Error::take_raised());
        }
        // SAFETY: raw is a fresh allocation of the right layout.
        unsafe {
            ptr::addr_of_mut!((*raw).value).write(value);
            sys::xffi_object_init(ptr::addr_of_mut!((*raw).header), index, rust_deleter::<T>);
            Ok(ObjectRef { ptr: NonNull::new_unchecked(raw.cast()), _marker: PhantomData })
        }
    }
}

impl<T: ObjectType> Clone for ObjectRef<T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        // SAFETY: live object.
        unsafe { sys::xffi_object_inc_ref_inline(self.ptr.as_ptr()) };
        ObjectRef { ptr: self.ptr, _marker: PhantomData }
    }
}

impl<T: ObjectType> Drop for ObjectRef<T> {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: we own one strong reference.
        unsafe { sys::xffi_object_dec_ref_inline(self.ptr.as_ptr()) }
    }
}

impl<T: ObjectType> Deref for ObjectRef<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        // SAFETY: ObjectType's contract: a T lives at PAYLOAD_OFFSET.
        unsafe { &*(self.ptr.as_ptr().cast::<u8>().add(T::PAYLOAD_OFFSET).cast::<T>()) }
    }
}

// `Debug` for ObjectRef is in repr.rs: objects print through the C printer.

impl<T: ObjectType> PartialEq for ObjectRef<T> {
    /// Identity: the same object.
    fn eq(&self, other: &Self) -> bool {
        self.ptr == other.ptr
    }
}
impl<T: ObjectType> Eq for ObjectRef<T> {}
impl<T: ObjectType> std::hash::Hash for ObjectRef<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.ptr.hash(state)
    }
}

/// A weak reference: keeps the object's memory, not its contents, and can
/// tell whether the object is still alive ([`WeakRef::upgrade`]).
/// `Send`/`Sync` as [`ObjectRef`].
///
/// ```
/// use xffi::{object_type, ObjectRef};
/// struct Node(i32);
/// object_type!(Node, "doc.WeakNode");
/// let n = ObjectRef::new(Node(5)).unwrap();
/// let w = n.downgrade().unwrap();
/// assert_eq!(w.upgrade().unwrap().0, 5);
/// drop(n);
/// assert!(w.upgrade().is_none());
/// ```
pub struct WeakRef<T: ObjectType> {
    ptr: NonNull<sys::xffi_weak>,
    _marker: PhantomData<T>,
}

// SAFETY: as ObjectRef: the weak handle's counts are atomic and upgrading
// gives an ObjectRef<T>, which is Send + Sync under the same bounds.
unsafe impl<T: ObjectType + Send + Sync> Send for WeakRef<T> {}
// SAFETY: as Send: `&WeakRef` only upgrades (atomically) or reads the pointer.
unsafe impl<T: ObjectType + Send + Sync> Sync for WeakRef<T> {}

impl<T: ObjectType> WeakRef<T> {
    /// A new strong reference if the object is still alive.
    ///
    /// ```
    /// let s = xffi::String::new("x").unwrap().into_object();
    /// let w = s.downgrade().unwrap();
    /// assert!(w.upgrade().unwrap().ptr_eq(&s));
    /// ```
    pub fn upgrade(&self) -> Option<ObjectRef<T>> {
        let mut out = ptr::null_mut();
        // SAFETY: live weak handle.
        let status = unsafe { sys::xffi_weak_lock(&mut out, self.ptr.as_ptr()) };
        debug_assert_eq!(status, sys::XFFI_OK);
        // SAFETY: a new strong reference to an instance of T (or NULL).
        unsafe { ObjectRef::from_raw(out) }
    }

    /// The weak handle (borrowed).
    ///
    /// ```
    /// let s = xffi::String::new("x").unwrap().into_object();
    /// let w = s.downgrade().unwrap();
    /// assert!(!w.as_ptr().is_null());
    /// ```
    pub fn as_ptr(&self) -> *mut sys::xffi_weak {
        self.ptr.as_ptr()
    }
}

impl<T: ObjectType> Drop for WeakRef<T> {
    fn drop(&mut self) {
        // SAFETY: we own the weak handle.
        unsafe { sys::xffi_weak_release(self.ptr.as_ptr()) }
    }
}

impl<T: ObjectType> fmt::Debug for WeakRef<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WeakRef<{}>", T::TYPE_KEY)
    }
}

// ---------------------------------------------------------------------------
// Rust-defined object types
// ---------------------------------------------------------------------------

/// The allocation of a Rust-defined object: the 24-byte header, then the value.
///
/// ```
/// use xffi::{ObjectRef, object_type};
/// use xffi::object::RustBox;
/// struct Cell(u64);
/// object_type!(Cell, "doc.RustBox.Cell");
/// // ObjectRef::new allocates a RustBox<Cell>: the header, then the value.
/// assert_eq!(std::mem::size_of::<RustBox<Cell>>(), 24 + 8);
/// let c = ObjectRef::new(Cell(9)).unwrap();
/// assert_eq!(c.0, 9);
/// ```
#[repr(C)]
pub struct RustBox<T> {
    header: sys::xffi_object,
    value: T,
}

/// Rust-defined object types (implemented by [`object_type!`](crate::object_type)).
///
/// `Send + Sync` are required: the object may be shared with C code and other
/// threads, and is destroyed on whichever thread drops the last reference.
///
/// # Safety
/// Only [`object_type!`](crate::object_type) should implement it.
///
/// ```
/// use xffi::{ObjectType, RustObject, object_type};
/// struct Tag(u8);
/// object_type!(Tag, "doc.RustObject.Tag");
/// let index = Tag::try_type_index().unwrap();
/// assert_eq!(index, Tag::type_index());
/// assert_eq!(xffi::reflect::TypeRef::by_index(index).unwrap().key(), "doc.RustObject.Tag");
/// // A key a built-in type holds cannot be registered.
/// struct Clash(u8);
/// object_type!(Clash, "ffi.Array");
/// assert_eq!(Clash::try_type_index().unwrap_err().kind(), xffi::ErrorKind::ValueError);
/// ```
pub unsafe trait RustObject: ObjectType + Send + Sync {
    /// The type index, registering the type on first use.
    /// Errors: ValueError for a key already held by anything but `Self`;
    /// TypeError for a parent that is neither Object nor a Rust-defined
    /// `base`; MemoryError (see [`object_type!`](crate::object_type)).
    fn try_type_index() -> Result<i32>;
}

/// The deleter of every Rust-defined object: runs `Drop` on flag 1 (once:
/// the header protocol calls flag 1 or 3 exactly once) and frees on flag 2.
/// A value that needs dropping (its fields may hold objects) is dropped
/// inside xffi's bounded-stack release bracket
/// ([`sys::xffi_object_release_begin`]): when another release runs on this
/// thread the call is parked and made again later, so dropping a 10^6-deep
/// chain of Rust objects does not recurse per level.
/// A panic in `Drop` aborts the process (a deleter has nothing to report it
/// with, and must not unwind into C; see [`crate::boundary`]).
///
/// # Safety
/// `obj` is a `RustBox<T>` allocated by `ObjectRef::new`, and the header
/// protocol calls each flag at most once (a parked call is made again with
/// the same flags, and the parked one did nothing).
unsafe extern "C" fn rust_deleter<T>(obj: *mut c_void, flags: c_int) {
    crate::ffi_boundary!(&format!("the deleter of {}", std::any::type_name::<T>()), {
        let raw = obj as *mut RustBox<T>;
        if flags & sys::XFFI_DELETE_CONTENTS != 0 {
            let bracket = std::mem::needs_drop::<T>();
            // SAFETY: obj is the live object being deleted, with this deleter's own arguments.
            if bracket && unsafe { sys::xffi_object_release_begin(obj.cast(), flags, Some(rust_deleter::<T>)) } != 0 {
                return; // parked: called again with the same flags
            }
            // SAFETY: the caller's contract: a live RustBox<T> whose value is
            // dropped once, here, and never read again.
            unsafe { ptr::drop_in_place(ptr::addr_of_mut!((*raw).value)) };
            if bracket {
                // SAFETY: closes the bracket release_begin opened with 0 above.
                unsafe { sys::xffi_object_release_end() };
            }
        }
        if flags & sys::XFFI_DELETE_MEMORY != 0 {
            // SAFETY: the caller's contract: allocated with this layout, freed once.
            unsafe { alloc::dealloc(raw.cast(), Layout::new::<RustBox<T>>()) };
        }
    })
}

#[doc(hidden)]
pub mod registry;

/// Makes a Rust struct an xffi object type: registers it (by key, with a
/// parent type) on first use, caching the index in a static (no string
/// lookup per cast), and lets [`ObjectRef::new`] allocate instances.
///
/// Forms:
/// - `object_type!(Type, "key")`: parent is the root [`Object`];
/// - `object_type!(Type, "key", parent = P, base = field)`: registered
///   under `P`, which must itself be defined with `object_type!`, and lets
///   `ObjectRef<Type>` upcast to `ObjectRef<P>`; `field` must be a `P` at
///   offset 0 of `Type` (checked at compile time; use `#[repr(C)]`);
/// - `object_type!(Type, "key", parent = P)`: accepted only for
///   `P = Object`; any other parent needs `base =`, since a checked
///   downcast to `P` reads a `P` where `Type` stores its value.
///
/// Registration happens on first use and is checked: a key already held by
/// anything but this Rust type (another Rust type, a built-in such as
/// `"Function"`, a type registered by C) is a ValueError; a built-in or
/// foreign parent, or a parent without `base`, is a TypeError. The error
/// comes back from [`ObjectRef::new`] (and [`ObjectType::checked_type_index`]);
/// a checked downcast to a type that cannot be registered simply fails.
///
/// ```
/// use xffi::{object_type, ObjectRef, StringObj};
/// struct Impostor(u64);
/// object_type!(Impostor, "ffi.Function"); // a built-in's key
/// assert_eq!(ObjectRef::new(Impostor(0)).unwrap_err().kind(), xffi::ErrorKind::ValueError);
/// struct FakeString(u64);
/// object_type!(FakeString, "doc.FakeString", parent = StringObj);
/// assert_eq!(ObjectRef::new(FakeString(0)).unwrap_err().kind(), xffi::ErrorKind::TypeError);
/// ```
///
/// The type must be `Send + Sync + 'static`.
///
/// ```
/// use xffi::{object_type, Any, ObjectRef};
/// struct Animal { legs: u32 }
/// object_type!(Animal, "doc.Animal");
/// let a = ObjectRef::new(Animal { legs: 4 }).unwrap();
/// let any = Any::from(a.clone());
/// let back: ObjectRef<Animal> = any.view().get().unwrap();
/// assert_eq!(back.legs, 4);
/// assert!(back.ptr_eq(&a));
/// ```
#[macro_export]
macro_rules! object_type {
    (@impl $ty:ty, $key:literal, $parent:ty, $has_base:literal) => {
        $crate::object_type!(@impl $ty, $key, $parent, $has_base, ::core::option::Option::None);
    };
    (@impl $ty:ty, $key:literal, $parent:ty, $has_base:literal, $reflect:expr) => {
        // SAFETY: the index is the one registered for this Rust type (its
        // own key, checked to belong to it), whose objects are all made by
        // ObjectRef::new as a RustBox<$ty>: the value at PAYLOAD_OFFSET.
        unsafe impl $crate::ObjectType for $ty {
            const TYPE_KEY: &'static str = $key;
            const PAYLOAD_OFFSET: usize = $crate::object::registry::payload_offset::<$ty>();
            #[inline(always)]
            fn type_index() -> i32 {
                match <$ty as $crate::RustObject>::try_type_index() {
                    Ok(i) => i,
                    Err(e) => panic!("xffi: cannot register type {}: {}", $key, e),
                }
            }
            #[inline(always)]
            fn checked_type_index() -> $crate::Result<i32> {
                <$ty as $crate::RustObject>::try_type_index()
            }
        }
        // SAFETY: implemented here, by object_type!, as the trait requires.
        unsafe impl $crate::RustObject for $ty {
            #[inline(always)]
            fn try_type_index() -> $crate::Result<i32> {
                static CACHE: $crate::object::registry::TypeIndexCache = $crate::object::registry::TypeIndexCache::new();
                // SAFETY: this type's own registration, with the parent it
                // declares; has_base only from the form that checks the base.
                unsafe {
                    CACHE.get_reflected::<$ty>(
                        $key,
                        $crate::object::registry::ParentDecl {
                            id: ::core::any::TypeId::of::<$parent>(),
                            key: <$parent as $crate::ObjectType>::TYPE_KEY,
                            index: <$parent as $crate::ObjectType>::checked_type_index,
                            has_base: $has_base,
                        },
                        $reflect,
                    )
                }
            }
        }
    };
    (@base $ty:ty, $parent:ty, $field:ident) => {
        const _: () = {
            assert!(::core::mem::offset_of!($ty, $field) == 0, "the base field must be the first (use #[repr(C)])");
            assert!(
                $crate::object::registry::payload_offset::<$ty>() == <$parent as $crate::ObjectType>::PAYLOAD_OFFSET,
                "the derived type's alignment moves its payload away from the parent's"
            );
            fn _base_has_parent_type(v: &$ty) -> &$parent {
                &v.$field
            }
        };
        // SAFETY: the const block above checked, at compile time, that the
        // base field is a $parent at offset 0 and the payloads line up.
        unsafe impl $crate::IsA<$parent> for $ty {}
    };
    ($ty:ty, $key:literal) => {
        $crate::object_type!(@impl $ty, $key, $crate::Object, false);
    };
    ($ty:ty, $key:literal, parent = $parent:ty) => {
        $crate::object_type!(@impl $ty, $key, $parent, false);
    };
    ($ty:ty, $key:literal, parent = $parent:ty, base = $field:ident) => {
        $crate::object_type!(@impl $ty, $key, $parent, true);
        $crate::object_type!(@base $ty, $parent, $field);
    };
}
