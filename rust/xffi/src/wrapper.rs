//! [`wrapper!`]: the Rust handle of a built-in object type and its payload
//! marker, declared once instead of written out for every type; and the two
//! steps every handle's constructors and copy-on-write changes share
//! ([`new_object`], [`replace_object`]).
//!
//! The macro is crate-private on purpose: it writes `unsafe impl`s whose
//! soundness rests on the C layout of each built-in type, which only this
//! crate knows. User types use [`object_type!`](crate::object_type).

use std::ptr;

use xffi_sys as sys;

use crate::error::{Result, check};
use crate::object::{ObjectRef, ObjectType};

/// Declares a built-in object type: its payload marker and its handle.
///
/// ```text
/// wrapper! {
///     /// Docs of the handle.
///     pub struct Shape(ShapeObj);               // or `pub struct Array<T>(ArrayObj);`
///     /// Docs of the payload marker.
///     #[derive(Debug)]
///     pub struct ShapeObj { cell: sys::xffi_shape_cell }
///     type_key = "ffi.Shape", type_index = sys::XFFI_TYPE_SHAPE;
///     shared_because = "immutable";             // why any thread may use it
///     example = "xffi::Shape::new(&[1]).unwrap()";
///     doctest = "no_run";                       // optional: the examples' fence
///     from_any_view = object;                   // optional (see below)
/// }
/// ```
///
/// It generates:
/// - the payload marker, `unsafe impl Send/Sync` (the `shared_because`
///   reason goes into its docs) and `unsafe impl ObjectType`;
/// - the handle: a tuple struct over `ObjectRef<Payload>` (`.0`), or for a
///   generic container a struct with `obj` and a `PhantomData` of its
///   element types (every one bound by [`crate::Element`]); `Clone` (another
///   reference to the same object); `into_object`, `as_object`, `as_ptr`;
///   `from_object` for a tuple handle (a generic one checks its elements,
///   so it builds itself with the crate-private `from_checked`);
/// - `From<Handle>` and `From<&Handle>` for [`crate::Any`], and
///   [`crate::KeyView`] (a handle is a map key by identity, looked up with no
///   new reference);
/// - with `from_any_view = object`, [`crate::FromAnyView`] accepting exactly
///   the objects of the type (handles that convert more, or check their
///   elements, write their own).
///
/// `example` is an expression making a handle; the generated methods'
/// doctests run it (or only compile it, with `doctest = "no_run"`).
macro_rules! wrapper {
    // A non-generic handle: a tuple struct over the reference.
    (
        $(#[$meta:meta])*
        pub struct $name:ident($payload:ident);
        $(#[$payload_meta:meta])*
        pub struct $payload2:ident { $($field:ident : $field_ty:ty),* $(,)? }
        type_key = $key:literal, type_index = $index:path;
        shared_because = $why:literal;
        example = $example:literal;
        $(doctest = $fence:literal;)?
        $(from_any_view = $conv:ident;)?
    ) => {
        $crate::wrapper::wrapper!(@payload $payload2 { $($field: $field_ty),* } $key, $index, $why, [$(#[$payload_meta])*], $example, [$($fence)?]);
        // The handle names the payload declared with it (a compile error otherwise).
        const _: fn($crate::ObjectRef<$payload2>) -> $crate::ObjectRef<$payload> = |obj| obj;

        $(#[$meta])*
        #[derive(Clone)]
        pub struct $name($crate::ObjectRef<$payload>);

        impl $name {
            #[doc = concat!("Wraps a reference to a ", $key, " object (stolen: the handle owns it).")]
            #[doc = ""]
            #[doc = concat!("```", $($fence)?)]
            #[doc = concat!("let h = ", $example, ";")]
            #[doc = concat!("let back = xffi::", stringify!($name), "::from_object(h.clone().into_object().downcast().unwrap());")]
            /// assert!(back.as_object().ptr_eq(h.as_object()));
            /// ```
            #[inline(always)]
            pub fn from_object(obj: $crate::ObjectRef<$payload>) -> Self {
                $name(obj)
            }
        }
        $crate::wrapper::wrapper!(@handle $name [] [] 0, $key, $example, [$($fence)?]);
        $($crate::wrapper::wrapper!(@from_any_view $conv $name, $payload);)?
    };

    // A generic container: its element types ride in a PhantomData.
    (
        $(#[$meta:meta])*
        pub struct $name:ident<$($param:ident),+>($payload:ident);
        $(#[$payload_meta:meta])*
        pub struct $payload2:ident { $($field:ident : $field_ty:ty),* $(,)? }
        type_key = $key:literal, type_index = $index:path;
        shared_because = $why:literal;
        example = $example:literal;
    ) => {
        $crate::wrapper::wrapper!(@payload $payload2 { $($field: $field_ty),* } $key, $index, $why, [$(#[$payload_meta])*], $example, []);
        // The handle names the payload declared with it (a compile error otherwise).
        const _: fn($crate::ObjectRef<$payload2>) -> $crate::ObjectRef<$payload> = |obj| obj;

        $(#[$meta])*
        pub struct $name<$($param: $crate::Element),+> {
            obj: $crate::ObjectRef<$payload>,
            _marker: ::std::marker::PhantomData<($($param,)+)>,
        }

        impl<$($param: $crate::Element),+> Clone for $name<$($param),+> {
            /// Another reference to the same object.
            #[inline(always)]
            fn clone(&self) -> Self {
                $name { obj: self.obj.clone(), _marker: ::std::marker::PhantomData }
            }
        }

        impl<$($param: $crate::Element),+> $name<$($param),+> {
            /// Wraps a reference (stolen) whose elements the caller checked
            /// (or, for a shared container, that checks them when read).
            #[inline(always)]
            pub(crate) fn from_checked(obj: $crate::ObjectRef<$payload>) -> Self {
                $name { obj, _marker: ::std::marker::PhantomData }
            }
        }
        $crate::wrapper::wrapper!(@handle $name [$($param: $crate::Element),+] [$($param),+] obj, $key, $example, []);
    };

    (@payload $payload:ident { $($field:ident : $field_ty:ty),* } $key:literal, $index:path, $why:literal, [$(#[$payload_meta:meta])*], $example:literal, [$($fence:literal)?]) => {
        $(#[$payload_meta])*
        #[doc = ""]
        #[doc = concat!("`Send + Sync`: ", $why, ".")]
        #[doc = ""]
        /// Users meet it as the type parameter of a typed reference, e.g. a
        /// handle's object downcast back to its type:
        #[doc = ""]
        #[doc = concat!("```", $($fence)?)]
        #[doc = concat!("let h = ", $example, ";")]
        #[doc = concat!("let obj: xffi::ObjectRef<xffi::", stringify!($payload), "> = h.into_object().downcast().unwrap();")]
        #[doc = concat!("assert_eq!(obj.type_key(), \"", $key, "\");")]
        /// ```
        pub struct $payload {
            $($field: $field_ty),*
        }
        // SAFETY: the invoker of `wrapper!` states in `shared_because` (now
        // part of the docs above) why this type's objects may be used from any
        // thread: they are immutable, or every Rust access is locked.
        unsafe impl Send for $payload {}
        // SAFETY: as Send.
        unsafe impl Sync for $payload {}
        // SAFETY: the invoker passes the C type index of this built-in type,
        // whose cell (the payload fields above) starts right after the 24-byte
        // header (PAYLOAD_OFFSET), as the C headers lay it out.
        unsafe impl $crate::ObjectType for $payload {
            const TYPE_KEY: &'static str = $key;
            #[inline(always)]
            fn type_index() -> i32 {
                $index
            }
        }
    };

    // What every handle has; `$field` is `0` (tuple) or `obj`.
    (@handle $name:ident [$($bound:tt)*] [$($param:tt)*] $field:tt, $key:literal, $example:literal, [$($fence:literal)?]) => {
        impl<$($bound)*> $name<$($param)*> {
            #[doc = concat!("The ", $key, " object as \"any object\" (the reference moves).")]
            #[doc = ""]
            #[doc = concat!("```", $($fence)?)]
            #[doc = concat!("let h = ", $example, ";")]
            #[doc = concat!("assert_eq!(h.into_object().type_key(), \"", $key, "\");")]
            /// ```
            #[inline(always)]
            pub fn into_object(self) -> $crate::ObjectRef<$crate::Object> {
                self.$field.into_object()
            }
            /// Borrowed as "any object" (no reference taken).
            #[doc = ""]
            #[doc = concat!("```", $($fence)?)]
            #[doc = concat!("let h = ", $example, ";")]
            #[doc = concat!("assert_eq!(h.as_object().type_key(), \"", $key, "\");")]
            /// ```
            #[inline(always)]
            pub fn as_object(&self) -> &$crate::ObjectRef<$crate::Object> {
                self.$field.as_object()
            }
            #[doc = concat!("The ", $key, " object (borrowed: valid while `self` lives).")]
            #[doc = ""]
            #[doc = concat!("```", $($fence)?)]
            #[doc = concat!("let h = ", $example, ";")]
            /// assert!(!h.as_ptr().is_null());
            /// ```
            #[inline(always)]
            pub fn as_ptr(&self) -> *mut $crate::sys::xffi_object {
                self.$field.as_ptr()
            }
        }
        impl<$($bound)*> From<$name<$($param)*>> for $crate::Any {
            /// The reference moves into the value.
            #[inline(always)]
            fn from(h: $name<$($param)*>) -> $crate::Any {
                $crate::Any::from(h.$field)
            }
        }
        impl<$($bound)*> From<&$name<$($param)*>> for $crate::Any {
            /// A new reference to the same object.
            #[inline(always)]
            fn from(h: &$name<$($param)*>) -> $crate::Any {
                $crate::Any::from(h.$field.clone())
            }
        }
        impl<$($bound)*> TryFrom<$crate::Any> for $name<$($param)*>
        where
            Self: for<'v> $crate::FromAnyView<'v>,
        {
            type Error = $crate::Error;
            /// As [`Any::to`](crate::Any::to): the value's object, checked.
            #[inline(always)]
            fn try_from(a: $crate::Any) -> $crate::Result<Self> {
                a.get()
            }
        }
        impl<$($bound)*> $crate::KeyView for $name<$($param)*> {
            #[inline(always)]
            fn with_key_view<R>(&self, f: impl FnOnce(&$crate::AnyView<'_>) -> R) -> $crate::Result<R> {
                Ok(f(&$crate::AnyView::object(self.$field.as_object())))
            }
        }
    };

    (@from_any_view object $name:ident, $payload:ident) => {
        impl<'v> $crate::FromAnyView<'v> for $name {
            #[doc = concat!("Accepts a ", stringify!($payload), " object (a new reference).")]
            fn from_view(v: &'v $crate::AnyView<'_>) -> $crate::Result<$name> {
                <$crate::ObjectRef<$payload> as $crate::FromAnyView<'v>>::from_view(v).map($name)
            }
        }
    };
}
pub(crate) use wrapper;

/// Calls a C constructor and takes the new reference it writes to `*out`.
///
/// # Safety
/// On success, `make` must have written to its argument a new reference to
/// an object of type `P` (the reference is stolen).
pub(crate) unsafe fn new_object<P: ObjectType>(
    make: impl FnOnce(*mut *mut sys::xffi_object) -> i32,
) -> Result<ObjectRef<P>> {
    let mut out = ptr::null_mut();
    check(make(&mut out))?;
    // SAFETY: the caller's contract: a new reference to a P.
    let obj = unsafe { ObjectRef::from_raw(out) };
    Ok(obj.expect("a C constructor that succeeded wrote its object"))
}

/// Runs a copy-on-write change of an immutable container: `change` gets the
/// reference in/out, as the C functions take it, and may replace it (when
/// `obj` is shared, the C function changes a copy, releases the old
/// reference and writes a new one). The status is checked after the swap, so
/// on failure `obj` is still whatever the C function left (unchanged).
///
/// # Safety
/// `change` must leave behind either the same reference or, having released
/// it, a new reference to an object of type `P`.
pub(crate) unsafe fn replace_object<P: ObjectType>(
    obj: &mut ObjectRef<P>,
    change: impl FnOnce(*mut *mut sys::xffi_object) -> i32,
) -> Result<()> {
    let mut raw = obj.as_ptr();
    let status = change(&mut raw);
    if raw != obj.as_ptr() {
        // SAFETY: the caller's contract: a new reference to a P, and the old one was released.
        let new = unsafe { ObjectRef::from_raw(raw) }.expect("a copy-on-write change wrote its object");
        std::mem::forget(std::mem::replace(obj, new));
    }
    check(status)
}
