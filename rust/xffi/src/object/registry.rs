//! The registration of Rust-defined types (`object_type!` and
//! `#[derive(xffi::Object)]`): one type index per Rust type, and for derived
//! types their reflection (fields, methods, metadata) registered once, before
//! the index is handed out, so no object exists before its type is complete.
use super::*;
use crate::ErrorKind;
use std::any::TypeId;
use std::ffi::CString;
use std::sync::Mutex;

/// Where a Rust-defined type's value sits after the header.
pub const fn payload_offset<T>() -> usize {
    std::mem::offset_of!(RustBox<T>, value)
}

/// The parent an [`object_type!`](crate::object_type) declares.
#[derive(Clone, Copy)]
pub struct ParentDecl {
    /// The parent's Rust type, its key (for messages) and its index.
    pub id: TypeId,
    pub key: &'static str,
    pub index: fn() -> Result<i32>,
    /// Whether the child declared `base = field` (a parent value at
    /// offset 0, checked at compile time).
    pub has_base: bool,
}

/// A type index registered through `object_type!`: the Rust type that
/// owns it (a key belongs to one Rust type only) and its parent's index.
struct RustType {
    index: i32,
    id: TypeId,
    parent_index: i32,
    reflection: Reflection,
}

/// How far a type's reflection got (changed only under [`REGISTRATION`]).
#[derive(Clone)]
enum Reflection {
    /// Not registered yet (or being registered by the thread holding the lock).
    Pending,
    Done,
    /// The registration failed: every later use reports the same error.
    Failed(ErrorKind, std::string::String),
}

/// Registers a type's reflection (fields, methods, metadata) once, given its
/// new type index; made by `#[derive(xffi::Object)]`.
pub type ReflectFn = fn(i32) -> Result<()>;

/// Serialises registrations across threads. Re-entrant on one thread: a
/// type whose fields name other Rust types registers them while it holds it.
static REGISTRATION: Mutex<()> = Mutex::new(());

thread_local! {
    /// Whether this thread holds REGISTRATION, and the types whose
    /// reflection it is running (a field of type `ObjectRef<Self>` asks for
    /// its own type's index while that type is being reflected).
    static HOLDS_REGISTRATION: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static REFLECTING: std::cell::RefCell<Vec<i32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` holding REGISTRATION (taken once per thread: nested calls run directly).
fn with_registration<R>(f: impl FnOnce() -> R) -> R {
    if HOLDS_REGISTRATION.with(|h| h.get()) {
        return f();
    }
    let _guard = REGISTRATION.lock().unwrap_or_else(|e| e.into_inner());
    struct Release;
    impl Drop for Release {
        fn drop(&mut self) {
            HOLDS_REGISTRATION.with(|h| h.set(false));
        }
    }
    HOLDS_REGISTRATION.with(|h| h.set(true));
    let _release = Release;
    f()
}

/// Every type index registered through `object_type!` in this process.
static RUST_TYPES: Mutex<Vec<RustType>> = Mutex::new(Vec::new());

fn find(types: &[RustType], index: i32) -> Option<&RustType> {
    types.iter().find(|t| t.index == index)
}

/// The index of the parent a Rust type may be registered under. Only
/// the root Object (empty payload) or a Rust-defined type that the
/// child embeds as its `base` qualify: a built-in parent would let a
/// checked downcast read Rust data as the built-in's cell, and a parent
/// without `base` would let it read the child as the parent.
fn parent_index(key: &str, parent: ParentDecl) -> Result<i32> {
    if parent.id == TypeId::of::<Object>() {
        return Ok(sys::XFFI_TYPE_OBJECT);
    }
    if !parent.has_base {
        return Err(Error::type_error(&format!(
            "object_type!({key}): parent {} needs `base = field` naming a {} at offset 0",
            parent.key, parent.key
        )));
    }
    let index = (parent.index)()?;
    let types = RUST_TYPES.lock().unwrap_or_else(|e| e.into_inner());
    if find(&types, index).map(|t| t.id) != Some(parent.id) {
        return Err(Error::type_error(&format!(
            "object_type!({key}): parent {} is not a type defined with object_type! (built-in and foreign types cannot be extended from Rust)",
            parent.key
        )));
    }
    Ok(index)
}

/// Whether this runtime's own registry has `key` at `index` (not only the
/// process's other runtime, whose types the lookup by key also finds).
fn registered_here(key: &str, index: i32) -> bool {
    // SAFETY: any index is accepted.
    if unsafe { sys::xffi_type_registered_here(index) } == 0 {
        return false; // only the process's other runtime has it (mirrored here)
    }
    let mut info = ptr::null();
    // SAFETY: valid out slot; any index is accepted.
    if unsafe { sys::xffi_type_info_get(&mut info, index) } != sys::XFFI_OK {
        drop(Error::take_raised()); // the IndexError: nothing at that index here
        return false;
    }
    // SAFETY: a borrowed, immortal record whose key is valid UTF-8 bytes of its size.
    let here = unsafe { std::slice::from_raw_parts((*info).type_key.data.cast::<u8>(), (*info).type_key.size) };
    here == key.as_bytes()
}

/// Registers the Rust type `id` under `key` and the parent index (checked
/// by [`parent_index`]). Refuses (ValueError) a key already registered in
/// this runtime by anything but this Rust type (another Rust type, a
/// built-in, C). A key only the process's other runtime has (another
/// plugin's type, or another copy of this plugin's, registered there) is
/// registered here too: it takes that runtime's index, and the binding
/// refuses it (RuntimeError) if its fields or size differ there.
fn register_rust_key(key: &str, id: TypeId, parent_index: i32) -> Result<i32> {
    let c_key = CString::new(key)?;
    // Held across the lookup and the registration so that two Rust
    // types racing for one key cannot both see it free.
    let mut types = RUST_TYPES.lock().unwrap_or_else(|e| e.into_inner());
    let mut info = ptr::null();
    // SAFETY: valid out slot and NUL-terminated key.
    let found = unsafe { sys::xffi_type_info_get_by_key(&mut info, c_key.as_ptr()) } == sys::XFFI_OK;
    // SAFETY: a borrowed, immortal record when found.
    let index = if found { unsafe { (*info).type_index } } else { -1 };
    if found && (find(&types, index).is_some() || registered_here(key, index)) {
        return match find(&types, index) {
            Some(t) if t.id == id && t.parent_index == parent_index => Ok(index),
            Some(t) if t.id == id => Err(Error::type_error(&format!(
                "object_type!({key}): already registered under parent index {}, not {parent_index}",
                t.parent_index
            ))),
            _ => Err(Error::value_error(&format!(
                "object_type!({key}): the type key is already registered by another type (index {index})"
            ))),
        };
    }
    if !found {
        drop(Error::take_raised()); // the KeyError of the lookup: the key is free here
    }
    let mut index = 0;
    // SAFETY: valid out slot, NUL-terminated key, a registered parent.
    check(unsafe { sys::xffi_type_register(&mut index, c_key.as_ptr(), parent_index) })?;
    types.push(RustType { index, id, parent_index, reflection: Reflection::Pending });
    Ok(index)
}

/// A cached type index: 0 until registered (dynamic indices are >= 128).
#[derive(Default)]
pub struct TypeIndexCache(AtomicI32);

impl TypeIndexCache {
    pub const fn new() -> Self {
        TypeIndexCache(AtomicI32::new(0))
    }
    /// The index of the Rust type `T` registered under `key` with `parent`.
    ///
    /// # Safety
    /// Only [`object_type!`](crate::object_type) may call it, for its
    /// own type, with the parent it declares (and `has_base` only when
    /// it checked the base field's type and offset).
    #[inline(always)]
    pub unsafe fn get<T: 'static>(&self, key: &'static str, parent: ParentDecl) -> Result<i32> {
        // SAFETY: the caller's contract, passed on; no reflection.
        unsafe { self.get_reflected::<T>(key, parent, None) }
    }

    /// As [`TypeIndexCache::get`], and on first registration runs `reflect`
    /// with the new index before any thread receives it (a failure is
    /// kept: every later call returns the same error).
    ///
    /// # Safety
    /// As [`TypeIndexCache::get`]; `reflect` registers `T`'s own records.
    #[inline(always)]
    pub unsafe fn get_reflected<T: 'static>(
        &self,
        key: &'static str,
        parent: ParentDecl,
        reflect: Option<ReflectFn>,
    ) -> Result<i32> {
        let v = self.0.load(Ordering::Acquire);
        if v != 0 {
            return Ok(v);
        }
        self.register(key, TypeId::of::<T>(), parent, reflect)
    }

    #[cold]
    fn register(&self, key: &'static str, id: TypeId, parent: ParentDecl, reflect: Option<ReflectFn>) -> Result<i32> {
        // The parent first, outside this type's registration: it may be
        // a derived type with reflection of its own.
        let parent_index = parent_index(key, parent)?;
        with_registration(|| {
            let v = self.0.load(Ordering::Acquire);
            if v != 0 {
                return Ok(v);
            }
            let index = register_rust_key(key, id, parent_index)?;
            let state = state_of(index);
            match state {
                Reflection::Done => {}
                Reflection::Failed(kind, message) => return Err(Error::new(kind, &message)),
                Reflection::Pending => {
                    if REFLECTING.with(|r| r.borrow().contains(&index)) {
                        // Asked for by its own reflection (a field naming the
                        // type itself): the index, not cached until done.
                        return Ok(index);
                    }
                    let result = match reflect {
                        None => Ok(()),
                        Some(f) => {
                            REFLECTING.with(|r| r.borrow_mut().push(index));
                            let result = f(index);
                            REFLECTING.with(|r| r.borrow_mut().retain(|&i| i != index));
                            result
                        }
                    };
                    let outcome = match &result {
                        Ok(()) => Reflection::Done,
                        Err(e) => Reflection::Failed(e.kind(), e.message().into_owned()),
                    };
                    set_state(index, outcome);
                    result?;
                }
            }
            self.0.store(index, Ordering::Release);
            Ok(index)
        })
    }
}

fn state_of(index: i32) -> Reflection {
    let types = RUST_TYPES.lock().unwrap_or_else(|e| e.into_inner());
    find(&types, index).map_or(Reflection::Pending, |t| t.reflection.clone())
}

fn set_state(index: i32, state: Reflection) {
    let mut types = RUST_TYPES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = types.iter_mut().find(|t| t.index == index) {
        t.reflection = state;
    }
}
