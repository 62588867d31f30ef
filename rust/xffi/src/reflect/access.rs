//! Access by name to any object's reflected fields and methods, whoever
//! defined its type (Rust's derive, C's registration macros, a C++ library
//! built against tvm-ffi's headers): [`ObjectRef::get_field`],
//! [`ObjectRef::set_field`], [`ObjectRef::call_method`], and [`TypeRef`] for
//! a type's field and method lists and its static methods.

use std::ffi::CString;
use std::ptr;

use xffi_sys as sys;

use crate::error::check;
use crate::{Any, AnyView, Error, Function, IntoArgs, ObjectRef, ObjectType, Result};

/// A reflected field, as listed by [`TypeRef::fields`].
///
/// ```
/// #[derive(xffi::Object)]
/// #[xffi(type_key = "doc.access.FieldDesc")]
/// struct Point {
///     #[xffi(get)]
///     x: i64,
///     #[xffi(get, set)]
///     y: std::sync::atomic::AtomicI64,
/// }
/// let p = xffi::ObjectRef::new(Point { x: 1, y: 2.into() }).unwrap();
/// let fields = p.fields();
/// assert_eq!(fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["x", "y"]);
/// assert_eq!((fields[0].writable, fields[1].writable), (false, true));
/// assert_eq!(fields[0].declared_by, "doc.access.FieldDesc");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDesc {
    /// The field's name.
    pub name: std::string::String,
    /// The static type index of what it holds (`XFFI_TYPE_INT`, an object type...).
    pub static_type_index: i32,
    /// Whether a setter exists (`XFFI_FIELD_WRITABLE`).
    pub writable: bool,
    /// Whether the field has a default (`XFFI_FIELD_HAS_DEFAULT`).
    pub has_default: bool,
    /// Bytes from the object's start.
    pub offset: i64,
    /// The type that declared it (the type itself or an ancestor).
    pub declared_by: &'static str,
    /// Its metadata, JSON (`{"type_schema":"..."}`, [`crate::schema`]); empty when none.
    pub metadata: std::string::String,
}

impl FieldDesc {
    /// The key of the static type (`"int"`, `"ffi.String"`, `"Any"`...).
    ///
    /// ```
    /// #[derive(xffi::Object)]
    /// #[xffi(type_key = "doc.access.type_key")]
    /// struct Point {
    ///     #[xffi(get)]
    ///     x: i64,
    ///     #[xffi(get)]
    ///     label: String,
    /// }
    /// let p = xffi::ObjectRef::new(Point { x: 1, label: "p".into() }).unwrap();
    /// let keys: Vec<_> = p.fields().iter().map(|f| f.type_key()).collect();
    /// assert_eq!(keys, ["int", "ffi.String"]);
    /// ```
    pub fn type_key(&self) -> &'static str {
        if self.static_type_index == sys::XFFI_TYPE_ANY {
            return "Any";
        }
        crate::object::type_key_of(self.static_type_index)
    }
}

/// A reflected method, as listed by [`TypeRef::methods`].
///
/// ```
/// #[derive(xffi::Object)]
/// #[xffi(type_key = "doc.access.MethodDesc")]
/// struct Point {
///     #[xffi(get)]
///     x: i64,
/// }
/// #[xffi::methods]
/// impl Point {
///     fn origin() -> xffi::Result<xffi::ObjectRef<Point>> {
///         xffi::ObjectRef::new(Point { x: 0 })
///     }
///     fn norm(&self) -> i64 {
///         self.x.abs()
///     }
/// }
/// let p = Point::origin().unwrap();
/// let t = xffi::reflect::TypeRef::by_index(p.type_index()).unwrap();
/// let methods: Vec<_> = t.methods().into_iter().map(|m| (m.name, m.is_static)).collect();
/// assert!(methods.contains(&("origin".to_string(), true)));
/// assert!(methods.contains(&("norm".to_string(), false)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodDesc {
    /// The method's name.
    pub name: std::string::String,
    /// Static (no object argument) or instance (the object first).
    pub is_static: bool,
    /// Its metadata, JSON (`{"type_schema":"..."}`, [`crate::schema`]); empty when none.
    pub metadata: std::string::String,
}

/// A registered type, for reflection by name.
///
/// ```
/// let t = xffi::reflect::TypeRef::by_key("ffi.String").unwrap();
/// assert_eq!(t.index(), 65);
/// assert!(xffi::reflect::TypeRef::by_key("no.such.Type").is_err());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TypeRef {
    info: &'static sys::xffi_type_info,
}

/// Runs `f` with `name` as a NUL-terminated string: on the stack when short
/// (no allocation on the common path), else in a CString. Errors:
/// ValueError for a name with a NUL byte.
fn with_c_name<R>(name: &str, f: impl FnOnce(*const std::ffi::c_char) -> Result<R>) -> Result<R> {
    const SHORT: usize = 64;
    if name.len() < SHORT && !name.as_bytes().contains(&0) {
        let mut buf = [0u8; SHORT];
        buf[..name.len()].copy_from_slice(name.as_bytes());
        return f(buf.as_ptr().cast());
    }
    let c = CString::new(name)?;
    f(c.as_ptr())
}

fn text(b: &sys::xffi_byte_array) -> &'static str {
    if b.data.is_null() {
        return "";
    }
    // SAFETY: the registry's records and their texts are immortal.
    let bytes = unsafe { std::slice::from_raw_parts(b.data.cast::<u8>(), b.size) };
    std::str::from_utf8(bytes).unwrap_or("<non-UTF-8>")
}

impl PartialEq for TypeRef {
    fn eq(&self, other: &Self) -> bool {
        self.index() == other.index()
    }
}
impl Eq for TypeRef {}

impl TypeRef {
    /// The type registered under `key`. Errors: KeyError for an unknown key.
    ///
    /// ```
    /// use xffi::reflect::TypeRef;
    /// assert_eq!(TypeRef::by_key("ffi.Array").unwrap().key(), "ffi.Array");
    /// let err = TypeRef::by_key("no.such.Type").unwrap_err();
    /// assert_eq!(err.kind(), xffi::ErrorKind::from("KeyError"));
    /// ```
    pub fn by_key(key: &str) -> Result<TypeRef> {
        let c = CString::new(key)?;
        let mut info = ptr::null();
        // SAFETY: valid out slot and NUL-terminated key.
        check(unsafe { sys::xffi_type_info_get_by_key(&mut info, c.as_ptr()) })?;
        // SAFETY: success gives an immortal record.
        Ok(TypeRef { info: unsafe { &*info } })
    }

    /// The type of index `index`. Errors: IndexError for an unknown index.
    ///
    /// ```
    /// use xffi::reflect::TypeRef;
    /// let s = xffi::String::new("a string longer than seven bytes").unwrap().into_object();
    /// assert_eq!(TypeRef::by_index(s.type_index()).unwrap().key(), "ffi.String");
    /// assert!(TypeRef::by_index(-5).is_err());
    /// ```
    pub fn by_index(index: i32) -> Result<TypeRef> {
        let mut info = ptr::null();
        // SAFETY: valid out slot.
        check(unsafe { sys::xffi_type_info_get(&mut info, index) })?;
        // SAFETY: success gives an immortal record.
        Ok(TypeRef { info: unsafe { &*info } })
    }

    /// The type index.
    ///
    /// ```
    /// let t = xffi::reflect::TypeRef::by_key("ffi.Array").unwrap();
    /// assert_eq!(t.index(), xffi::Array::<i64>::new().unwrap().into_object().type_index());
    /// ```
    pub fn index(&self) -> i32 {
        self.info.type_index
    }

    /// The type key.
    ///
    /// ```
    /// let t = xffi::reflect::TypeRef::by_index(65).unwrap();
    /// assert_eq!(t.key(), "ffi.String");
    /// ```
    pub fn key(&self) -> &'static str {
        text(&self.info.type_key)
    }

    /// The type and its ancestors, root first.
    fn lineage(&self) -> Vec<&'static sys::xffi_type_info> {
        let depth = usize::try_from(self.info.type_depth).unwrap_or(0);
        let mut out = Vec::with_capacity(depth + 1);
        for i in 0..depth {
            // SAFETY: type_ancestors holds type_depth immortal records.
            let a = unsafe { *self.info.type_ancestors.add(i) };
            if !a.is_null() {
                // SAFETY: immortal record.
                out.push(unsafe { &*a });
            }
        }
        out.push(self.info);
        out
    }

    /// Every reflected field, the ancestors' first (the order of tvm-ffi's
    /// records and of construction from arguments).
    ///
    /// ```
    /// #[derive(xffi::Object)]
    /// #[xffi(type_key = "doc.access.TypeRef.fields")]
    /// struct Point {
    ///     #[xffi(get)]
    ///     x: i64,
    /// }
    /// xffi::ObjectRef::new(Point { x: 1 }).unwrap(); // registers the type
    /// let t = xffi::reflect::TypeRef::by_key("doc.access.TypeRef.fields").unwrap();
    /// assert_eq!(t.fields()[0].name, "x");
    /// assert!(xffi::reflect::TypeRef::by_key("ffi.Array").unwrap().fields().is_empty());
    /// ```
    pub fn fields(&self) -> Vec<FieldDesc> {
        let mut out = Vec::new();
        for t in self.lineage() {
            for i in 0..usize::try_from(t.num_fields).unwrap_or(0) {
                // SAFETY: `fields` holds num_fields immortal records.
                let f = unsafe { &*t.fields.add(i) };
                out.push(FieldDesc {
                    name: text(&f.name).to_owned(),
                    static_type_index: f.field_static_type_index,
                    writable: f.flags & sys::XFFI_FIELD_WRITABLE as i64 != 0,
                    has_default: f.flags & sys::XFFI_FIELD_HAS_DEFAULT as i64 != 0,
                    offset: f.offset,
                    declared_by: text(&t.type_key),
                    metadata: text(&f.metadata).to_owned(),
                });
            }
        }
        out
    }

    /// Every reflected method, the ancestors' first.
    ///
    /// ```
    /// #[derive(xffi::Object)]
    /// #[xffi(type_key = "doc.access.TypeRef.methods")]
    /// struct Point {
    ///     #[xffi(get)]
    ///     x: i64,
    /// }
    /// #[xffi::methods]
    /// impl Point {
    ///     fn doubled(&self) -> i64 {
    ///         2 * self.x
    ///     }
    /// }
    /// xffi::ObjectRef::new(Point { x: 1 }).unwrap(); // registers the type
    /// let t = xffi::reflect::TypeRef::by_key("doc.access.TypeRef.methods").unwrap();
    /// assert!(t.methods().iter().any(|m| m.name == "doubled" && !m.is_static));
    /// ```
    pub fn methods(&self) -> Vec<MethodDesc> {
        let mut out = Vec::new();
        for t in self.lineage() {
            for i in 0..usize::try_from(t.num_methods).unwrap_or(0) {
                // SAFETY: `methods` holds num_methods immortal records.
                let m = unsafe { &*t.methods.add(i) };
                out.push(MethodDesc {
                    name: text(&m.name).to_owned(),
                    is_static: m.flags & sys::XFFI_FIELD_IS_STATIC_METHOD as i64 != 0,
                    metadata: text(&m.metadata).to_owned(),
                });
            }
        }
        out
    }

    /// The method `name` (of the type or an ancestor) and whether it is static.
    /// Errors: AttributeError naming the type and method.
    ///
    /// ```
    /// #[derive(xffi::Object)]
    /// #[xffi(type_key = "doc.access.TypeRef.method")]
    /// struct Point {
    ///     #[xffi(get)]
    ///     x: i64,
    /// }
    /// #[xffi::methods]
    /// impl Point {
    ///     fn shifted(&self, by: i64) -> i64 {
    ///         self.x + by
    ///     }
    /// }
    /// let p = xffi::ObjectRef::new(Point { x: 1 }).unwrap();
    /// let t = xffi::reflect::TypeRef::by_key("doc.access.TypeRef.method").unwrap();
    /// let (shifted, is_static) = t.method("shifted").unwrap();
    /// assert!(!is_static);
    /// // An instance method takes the object first.
    /// assert_eq!(shifted.call_typed::<i64, _>((p, 10i64)).unwrap(), 11);
    /// assert!(t.method("missing").is_err());
    /// ```
    pub fn method(&self, name: &str) -> Result<(Function, bool)> {
        let mut info = ptr::null();
        // SAFETY: valid out slot and NUL-terminated name.
        with_c_name(name, |c| check(unsafe { sys::xffi_type_find_method(&mut info, self.index(), c) }))?;
        if info.is_null() {
            return Err(Error::new(
                crate::ErrorKind::from("AttributeError"),
                &format!("'{}' has no method '{name}'", self.key()),
            ));
        }
        // SAFETY: an immortal record; its method is a borrowed Function value.
        let (method, flags) = unsafe { ((*info).method, (*info).flags) };
        // SAFETY: a valid borrowed value held by the record.
        let f: Function = unsafe { AnyView::from_raw(method) }.get()?;
        Ok((f, flags & sys::XFFI_FIELD_IS_STATIC_METHOD as i64 != 0))
    }

    /// Calls the static method `name` (e.g. `__ffi_init__`, a constructor).
    /// Errors: AttributeError; TypeError for an instance method; the call's.
    /// `args` is a tuple of values (`(1i64, "x")`, `()` for none).
    ///
    /// ```
    /// #[derive(xffi::Object)]
    /// #[xffi(type_key = "doc.access.call_static")]
    /// struct Point {
    ///     #[xffi(get)]
    ///     x: i64,
    /// }
    /// #[xffi::methods]
    /// impl Point {
    ///     #[xffi(name = "__ffi_init__")]
    ///     fn create(x: i64) -> xffi::Result<xffi::ObjectRef<Point>> {
    ///         xffi::ObjectRef::new(Point { x })
    ///     }
    /// }
    /// Point::create(0).unwrap(); // registers the type
    /// let t = xffi::reflect::TypeRef::by_key("doc.access.call_static").unwrap();
    /// let p: xffi::ObjectRef<Point> = t.call_static("__ffi_init__", (5i64,)).unwrap().get().unwrap();
    /// assert_eq!(p.x, 5);
    /// ```
    pub fn call_static(&self, name: &str, args: impl IntoArgs) -> Result<Any> {
        let (f, is_static) = self.method(name)?;
        if !is_static {
            return Err(Error::type_error(&format!(
                "{}.{name} is an instance method: call it on an object",
                self.key()
            )));
        }
        args.with_views(|views| f.call(views))
    }
}

impl<T: ObjectType> ObjectRef<T> {
    /// Whether the object is an instance of `t` (or of a type derived from
    /// it): the downcast test for a type known only at run time, such as one
    /// the process's tvm-ffi runtime registered (a C++ library's, one Python
    /// defined), found with [`TypeRef::by_key`]. O(1).
    ///
    /// ```
    /// use xffi::reflect::TypeRef;
    /// let s = xffi::String::new("a string longer than seven bytes").unwrap().into_object();
    /// assert!(s.is_instance_of(&TypeRef::by_key("ffi.Object").unwrap()));
    /// assert!(!s.is_instance_of(&TypeRef::by_key("ffi.Array").unwrap()));
    /// ```
    pub fn is_instance_of(&self, t: &TypeRef) -> bool {
        // SAFETY: a live object and a type's immortal record.
        unsafe { sys::xffi_object_is_a_type_unchecked(self.as_ptr(), t.info) != 0 }
    }

    /// A new value read from the reflected field `name` (of the object's own
    /// type or an ancestor) through its getter. Errors: AttributeError
    /// naming the type and field.
    ///
    /// ```
    /// let s = xffi::String::new("hi").unwrap().into_object();
    /// assert!(s.get_field("no_such_field").is_err());
    /// ```
    pub fn get_field(&self, name: &str) -> Result<Any> {
        with_c_name(name, |c| {
            let mut out = sys::xffi_any::none();
            // SAFETY: live object, NUL-terminated name, a slot receiving an owned value.
            check(unsafe { sys::xffi_object_get_field(&mut out, self.as_ptr(), c) })?;
            // SAFETY: an owned value, taken once.
            Ok(unsafe { Any::from_raw(out) })
        })
    }

    /// Writes `value` into the reflected field `name` through its setter.
    /// Errors: AttributeError (no such field, or read-only), TypeError (the
    /// value does not convert), each naming the field.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicI64, Ordering};
    /// #[derive(xffi::Object)]
    /// #[xffi(type_key = "doc.access.set_field")]
    /// struct Point {
    ///     #[xffi(get)]
    ///     x: i64,
    ///     #[xffi(get, set)]
    ///     y: AtomicI64,
    /// }
    /// let p = xffi::ObjectRef::new(Point { x: 1, y: AtomicI64::new(2) }).unwrap();
    /// p.set_field("y", 7i64).unwrap();
    /// assert_eq!(p.y.load(Ordering::Relaxed), 7);
    /// // A read-only field has no setter.
    /// assert!(p.set_field("x", 3i64).is_err());
    /// ```
    pub fn set_field(&self, name: &str, value: impl Into<Any>) -> Result<()> {
        let value = value.into();
        with_c_name(name, |c| {
            // SAFETY: live object (setters of Rust-defined types synchronise
            // their writes, see crate::reflect), NUL-terminated name, a borrowed value.
            check(unsafe { sys::xffi_object_set_field(self.as_ptr(), c, value.as_raw()) })
        })
    }

    /// Calls the method `name` of the object's type (or an ancestor): an
    /// instance method gets the object first, then `args`; a static one
    /// `args` alone; `args` is a tuple of values (`(1.5,)`, `()` for none).
    /// Errors: AttributeError; the call's.
    ///
    /// ```
    /// #[derive(xffi::Object)]
    /// #[xffi(type_key = "doc.access.call_method")]
    /// struct Point {
    ///     #[xffi(get)]
    ///     x: i64,
    /// }
    /// #[xffi::methods]
    /// impl Point {
    ///     fn scaled(&self, k: i64) -> i64 {
    ///         self.x * k
    ///     }
    /// }
    /// let p = xffi::ObjectRef::new(Point { x: 3 }).unwrap();
    /// assert_eq!(p.call_method("scaled", (2i64,)).unwrap().get::<i64>().unwrap(), 6);
    /// assert!(p.call_method("no_such_method", ()).is_err());
    /// ```
    pub fn call_method(&self, name: &str, args: impl IntoArgs) -> Result<Any> {
        let (f, is_static) = TypeRef::by_index(self.type_index())?.method(name)?;
        args.with_views(|views| {
            if is_static {
                return f.call(views);
            }
            let mut all = Vec::with_capacity(views.len() + 1);
            all.push(AnyView::object(self));
            all.extend_from_slice(views);
            f.call(&all)
        })
    }

    /// The reflected fields of the object's own type, the ancestors' first.
    ///
    /// ```
    /// #[derive(xffi::Object)]
    /// #[xffi(type_key = "doc.access.ObjectRef.fields")]
    /// struct Point {
    ///     #[xffi(get)]
    ///     x: i64,
    /// }
    /// let p = xffi::ObjectRef::new(Point { x: 1 }).unwrap();
    /// let names: Vec<_> = p.fields().into_iter().map(|f| f.name).collect();
    /// assert_eq!(names, ["x"]);
    /// ```
    pub fn fields(&self) -> Vec<FieldDesc> {
        TypeRef::by_index(self.type_index()).map(|t| t.fields()).unwrap_or_default()
    }
}
