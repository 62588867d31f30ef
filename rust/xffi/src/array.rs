//! [`Array<T>`] (immutable, copy-on-write) and [`List<T>`] (shared, mutable),
//! and what they share: element checks, reads through `Access`, the lock.

use std::cell::UnsafeCell;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, MutexGuard};

use xffi_sys as sys;

use crate::any::{Any, AnyView, FromAnyView};
use crate::error::{Error, ErrorKind, Result, check};
use crate::object::{ObjectRef, ObjectType};
use crate::wrapper::{new_object, replace_object, wrapper};

/// Element types of the typed containers: converted from a stored value
/// with [`FromAnyView`] and stored through `Into<Any>`.
/// Implemented for every such type; users meet it as the bound of the
/// containers' element types, e.g. in a function generic over them:
///
/// ```
/// use xffi::{Array, Element};
/// fn first_or<T: Element>(a: &Array<T>, fallback: T) -> xffi::Result<T> {
///     Ok(a.get(0)?.unwrap_or(fallback))
/// }
/// let a: Array<i64> = vec![5, 6].into_iter().collect();
/// assert_eq!(first_or(&a, 0).unwrap(), 5);
/// assert_eq!(first_or(&Array::<String>::new().unwrap(), "none".to_string()).unwrap(), "none");
/// ```
pub trait Element: for<'v> FromAnyView<'v> + Into<Any> {}
impl<T: for<'v> FromAnyView<'v> + Into<Any>> Element for T {}

static LOCKS: [Mutex<()>; 64] = [const { Mutex::new(()) }; 64];

/// The lock that serialises Rust's accesses to one shared mutable object
/// (List or Dict): C's functions take no lock, so Rust takes one of 64
/// striped locks chosen by address. C code that changes the same List or
/// Dict concurrently must synchronise itself (the C contract).
pub(crate) fn lock_for(obj: *mut sys::xffi_object) -> MutexGuard<'static, ()> {
    let slot = ((obj as usize) >> 5) % LOCKS.len();
    LOCKS[slot].lock().unwrap_or_else(|p| p.into_inner())
}

/// How Rust reads a container. An immutable one (Array, Map) cannot change
/// while borrowed, so it is read directly; a shared mutable one (List, Dict)
/// is read under its lock, and what is read is copied out before the lock
/// is released.
#[derive(Clone, Copy)]
pub(crate) enum Access {
    /// Read as it is: an immutable container, or one whose lock the caller holds.
    Direct,
    /// Take the container's lock around the read.
    Locked,
}

impl Access {
    /// The guard to hold while reading `obj` (None for an immutable one).
    pub(crate) fn guard(self, obj: *mut sys::xffi_object) -> Option<MutexGuard<'static, ()>> {
        match self {
            Access::Direct => None,
            Access::Locked => Some(lock_for(obj)),
        }
    }
}

/// The elements of a live Array or List (borrowed; valid until it changes).
///
/// # Safety
/// `obj` must be a live Array or List that nobody changes while the slice
/// is used (immutable, or under its lock).
unsafe fn elements<'s>(obj: *mut sys::xffi_object) -> &'s [AnyView<'s>] {
    // SAFETY: the caller's contract: a live sequence, unchanged meanwhile;
    // its first `size` slots are owned values.
    unsafe {
        let c = &*sys::xffi_seq_cell_of_unchecked(obj);
        AnyView::slice_from_raw(c.data as *const sys::xffi_any, c.size as usize)
    }
}

/// The number of elements of an Array or List.
fn seq_len(obj: *mut sys::xffi_object, access: Access) -> usize {
    let _g = access.guard(obj);
    // SAFETY: a live sequence, immutable or locked.
    unsafe { (*sys::xffi_seq_cell_of_unchecked(obj)).size as usize }
}

/// Element `index` of an Array or List, converted; None past the end.
/// Errors: what converting the element to `T` raises, prefixed "element i".
fn seq_get<T: Element>(obj: *mut sys::xffi_object, access: Access, index: usize) -> Result<Option<T>> {
    let copy = {
        let _g = access.guard(obj);
        // SAFETY: a live sequence, immutable or locked while the slice is used.
        match unsafe { elements(obj) }.get(index) {
            None => return Ok(None),
            Some(v) => v.to_owned_any()?,
        }
    };
    with_elem(&copy.view(), index).map(Some)
}

/// Owned copies of elements `[begin, end)` of a sequence (clamped), taken
/// under the caller's lock so that a C call which releases them cannot run
/// their deleters (arbitrary Rust `Drop` code) while the lock is held: the
/// copies are dropped after the lock is released. Errors: what copying an
/// element raises (then nothing was changed).
fn keep_alive(obj: *mut sys::xffi_object, begin: usize, end: usize) -> Result<Vec<Any>> {
    // SAFETY: a live List under the caller's lock.
    let views = unsafe { elements(obj) };
    let end = end.min(views.len());
    views[begin.min(end)..end].iter().map(AnyView::to_owned_any).collect()
}

fn collect_views<T: Element>(items: impl IntoIterator<Item = T>) -> Vec<Any> {
    items.into_iter().map(Into::into).collect()
}

/// `index` as the C functions' i64. An index past i64::MAX is out of range
/// for any sequence; it is reported as the IndexError C would raise, with
/// the real index (a cast would wrap it to a negative one).
fn c_index(func: &str, index: usize, len: usize) -> Result<i64> {
    i64::try_from(index).map_err(|_| {
        Error::new(ErrorKind::IndexError, &format!("{func}: index {index} is out of range for length {len}"))
    })
}

fn with_elem<T: Element>(v: &AnyView<'_>, index: usize) -> Result<T> {
    T::from_view(v).map_err(|e| e.context(&format!("element {index}")))
}

wrapper! {
    /// An immutable sequence of `T` (an xffi Array, type index 71). Changing
    /// methods take `&mut self` and are copy-on-write: in place when this is the
    /// only reference, otherwise on a copy, so other holders (in any language)
    /// never see a change.
    ///
    /// Converting a value into an `Array<T>` checks every element once, so a
    /// read fails only where making a `T` needs memory (an [`crate::String`]
    /// from a short string). `Array<Any>` holds anything.
    ///
    /// `Send`/`Sync` when `T` is (immutable while shared).
    ///
    /// ```
    /// use xffi::Array;
    /// let mut a: Array<i64> = (1..=3).collect();
    /// let b = a.clone();
    /// a.push(4).unwrap();
    /// assert_eq!(a.iter().collect::<xffi::Result<Vec<_>>>().unwrap(), vec![1, 2, 3, 4]);
    /// assert_eq!(b.len(), 3); // b never saw the change
    /// assert_eq!(format!("{b:?}"), "[1, 2, 3]");
    /// ```
    pub struct Array<T>(ArrayObj);
    /// Payload marker of Array objects (type index 71).
    #[derive(Debug)]
    pub struct ArrayObj { _cell: sys::xffi_seq_cell }
    type_key = "ffi.Array", type_index = sys::XFFI_TYPE_ARRAY;
    shared_because = "immutable while shared (changes are copy-on-write)";
    example = "xffi::Array::<i64>::new().unwrap()";
}

impl<T: Element> Array<T> {
    /// An empty Array. Errors: MemoryError.
    ///
    /// ```
    /// assert!(xffi::Array::<i64>::new().unwrap().is_empty());
    /// ```
    pub fn new() -> Result<Self> {
        Self::from_anys(&[])
    }

    /// An Array of the given items. Errors: MemoryError.
    ///
    /// ```
    /// let a = xffi::Array::from_vec(vec!["a".to_string(), "b".to_string()]).unwrap();
    /// assert_eq!(a.get(1).unwrap().as_deref(), Some("b"));
    /// ```
    pub fn from_vec(items: Vec<T>) -> Result<Self> {
        Self::from_anys(&collect_views(items))
    }

    fn from_anys(items: &[Any]) -> Result<Self> {
        // SAFETY: Any and xffi_any share a layout; the views are valid for the
        // call; xffi_array_new writes a new Array reference.
        let obj = unsafe { new_object(|out| sys::xffi_array_new(out, items.as_ptr().cast(), items.len() as i64)) }?;
        Ok(Array::from_checked(obj))
    }

    /// The elements as borrowed views (valid while `self` is borrowed).
    ///
    /// ```
    /// let a: xffi::Array<i64> = vec![5, 6].into_iter().collect();
    /// assert_eq!(a.views()[1].get::<i64>().unwrap(), 6);
    /// ```
    pub fn views(&self) -> &[AnyView<'_>] {
        // SAFETY: a live Array, immutable while we hold &self (changes need
        // &mut self, and a shared array is copied first).
        unsafe { elements(self.obj.as_ptr()) }
    }

    /// The number of elements.
    ///
    /// ```
    /// let a: xffi::Array<i64> = vec![1, 2].into_iter().collect();
    /// assert_eq!(a.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        seq_len(self.obj.as_ptr(), Access::Direct)
    }

    /// Whether there are no elements.
    ///
    /// ```
    /// assert!(xffi::Array::<bool>::new().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `index` (a new value), or `Ok(None)` past the end: the same
    /// as [`List::get`]. Errors: MemoryError if making the `T` needs memory.
    ///
    /// ```
    /// let a: xffi::Array<f64> = vec![0.5].into_iter().collect();
    /// assert_eq!(a.get(0).unwrap(), Some(0.5));
    /// assert_eq!(a.get(1).unwrap(), None);
    /// ```
    pub fn get(&self, index: usize) -> Result<Option<T>> {
        self.views().get(index).map(|v| with_elem(v, index)).transpose()
    }

    /// Iterates the elements, each converted to `T` when reached (no copy
    /// of the array is made). An item is `Err` only where making the `T`
    /// needs memory and none is left; `collect::<Result<Vec<_>>>()` stops
    /// at the first error.
    ///
    /// ```
    /// let a: xffi::Array<i64> = (1..=3).collect();
    /// assert_eq!(a.iter().sum::<xffi::Result<i64>>().unwrap(), 6);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Result<T>> + '_ {
        self.views().iter().enumerate().map(|(i, v)| with_elem(v, i))
    }

    /// Runs a copy-on-write C change on the array.
    fn change(&mut self, f: impl FnOnce(*mut *mut sys::xffi_object) -> i32) -> Result<()> {
        // SAFETY: every caller passes an xffi_array_* function, which leaves
        // the same Array or, having released it, a new Array reference.
        unsafe { replace_object(&mut self.obj, f) }
    }

    /// Appends an element (copy-on-write). Errors: MemoryError.
    ///
    /// ```
    /// let mut a = xffi::Array::<String>::new().unwrap();
    /// a.push("x".to_string()).unwrap();
    /// assert_eq!(a.get(0).unwrap().as_deref(), Some("x"));
    /// ```
    pub fn push(&mut self, value: T) -> Result<()> {
        let v: Any = value.into();
        // SAFETY: a valid in/out reference and view.
        self.change(|a| unsafe { sys::xffi_array_push(a, v.as_raw()) })
    }

    /// Replaces element `index`. Errors: IndexError, MemoryError.
    ///
    /// ```
    /// let mut a: xffi::Array<i64> = vec![1, 2].into_iter().collect();
    /// a.set(0, 9).unwrap();
    /// assert_eq!(a.get(0).unwrap(), Some(9));
    /// assert_eq!(a.set(5, 0).unwrap_err().kind(), xffi::ErrorKind::IndexError);
    /// ```
    pub fn set(&mut self, index: usize, value: T) -> Result<()> {
        let index = c_index("xffi_array_set", index, self.len())?;
        let v: Any = value.into();
        // SAFETY: as push.
        self.change(|a| unsafe { sys::xffi_array_set(a, index, v.as_raw()) })
    }

    /// Removes and returns the last element. Errors: IndexError if empty.
    ///
    /// ```
    /// let mut a: xffi::Array<i64> = vec![1, 2].into_iter().collect();
    /// assert_eq!(a.pop().unwrap(), 2);
    /// assert_eq!(a.len(), 1);
    /// ```
    pub fn pop(&mut self) -> Result<T> {
        let mut out = sys::xffi_any::none();
        // SAFETY: as push.
        self.change(|a| unsafe { sys::xffi_array_pop(&mut out, a) })?;
        // SAFETY: xffi_array_pop wrote an owned value.
        let any = unsafe { Any::from_raw(out) };
        any.get::<T>()
    }

    /// Removes every element.
    ///
    /// ```
    /// let mut a: xffi::Array<i64> = vec![1].into_iter().collect();
    /// a.clear().unwrap();
    /// assert!(a.is_empty());
    /// ```
    pub fn clear(&mut self) -> Result<()> {
        // SAFETY: as push.
        self.change(|a| unsafe { sys::xffi_array_clear(a) })
    }

    /// Builds an Array by moving each value's reference into a fresh array
    /// (no inc-ref/dec-ref pair per element): the array is new, so this code
    /// is its only user, and the public sequence layout says its first
    /// `size` of `capacity` slots are the owned elements.
    fn try_from_iter_moved(iter: impl Iterator<Item = T>) -> Result<Self> {
        let (lower, _) = iter.size_hint();
        // SAFETY: xffi_array_new_with_capacity writes a new Array reference.
        let obj = unsafe { new_object(|out| sys::xffi_array_new_with_capacity(out, lower as i64)) }?;
        let mut array = Array::from_checked(obj);
        for value in iter {
            let any: Any = value.into();
            // SAFETY: a fresh array only we can see.
            let cell = unsafe { &mut *sys::xffi_seq_cell_of_unchecked(array.obj.as_ptr()) };
            if cell.size < cell.capacity {
                // SAFETY: slot `size` is free and inside the capacity; the reference moves into it.
                unsafe { (cell.data as *mut sys::xffi_any).add(cell.size as usize).write(any.into_raw()) };
                cell.size += 1;
            } else {
                // Past the hint: the C push grows the array (in place: we hold the only reference).
                // SAFETY: a valid in/out reference and view.
                array.change(|a| unsafe { sys::xffi_array_push(a, any.as_raw()) })?;
            }
        }
        Ok(array)
    }

    /// The elements converted, for the traits that cannot return an error.
    fn converted_or_panic(&self) -> impl Iterator<Item = T> + '_ {
        self.iter().map(|r| r.unwrap_or_else(|e| panic!("xffi: {e}")))
    }
}

/// Panics only if memory runs out.
impl<T: Element> FromIterator<T> for Array<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Array::try_from_iter_moved(iter.into_iter()).unwrap_or_else(|e| panic!("xffi: {e}"))
    }
}

impl<T: Element + fmt::Debug> fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.iter().collect::<Result<Vec<T>>>() {
            Ok(v) => f.debug_list().entries(v).finish(),
            Err(e) => write!(f, "Array(<{e}>)"),
        }
    }
}
/// Compares the elements as `T`; panics only if memory runs out making them.
impl<T: Element + PartialEq> PartialEq for Array<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.converted_or_panic().eq(other.converted_or_panic())
    }
}
/// Hashes the elements as `T`; panics only if memory runs out making them.
impl<T: Element + Hash> Hash for Array<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        for x in self.converted_or_panic() {
            x.hash(state);
        }
    }
}
impl<'v, T: Element> FromAnyView<'v> for Array<T> {
    /// Accepts an Array whose every element converts to `T`.
    fn from_view(v: &'v AnyView<'_>) -> Result<Array<T>> {
        let a = Array::from_checked(ObjectRef::<ArrayObj>::from_view(v)?);
        for (i, e) in a.views().iter().enumerate() {
            with_elem::<T>(e, i)?;
        }
        Ok(a)
    }
}

wrapper! {
    /// A shared, mutable sequence of `T` (an xffi List, type index 75): every
    /// holder, in any language, sees every change. Methods take `&self`.
    ///
    /// Elements are checked when read (C may store anything), so reads return
    /// `Result`. Reads return owned copies: no borrow can dangle when another
    /// holder changes the list.
    ///
    /// `Send + Sync` when `T` is: every access from Rust takes a lock (C's List
    /// functions take none; C code sharing the list must synchronise itself).
    ///
    /// ```
    /// use xffi::List;
    /// let l: List<i64> = List::new().unwrap();
    /// let alias = l.clone();
    /// l.push(1).unwrap();
    /// alias.push(2).unwrap();
    /// assert_eq!(l.to_vec().unwrap(), vec![1, 2]);
    /// assert_eq!(l.pop().unwrap(), 2);
    /// ```
    pub struct List<T>(ListObj);
    /// Payload marker of List objects (type index 75). The cell changes under
    /// shared references (any holder may push), so it sits in an `UnsafeCell`
    /// and is read only under the List's lock (see `lock_for`), Debug included.
    pub struct ListObj { cell: UnsafeCell<sys::xffi_seq_cell> }
    type_key = "ffi.List", type_index = sys::XFFI_TYPE_LIST;
    shared_because = "this crate serialises every access from Rust under the List's lock";
    example = "xffi::List::<i64>::new().unwrap()";
}

impl fmt::Debug for ListObj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The header sits just before the payload (ObjectType::PAYLOAD_OFFSET).
        let obj = self.cell.get().cast::<u8>().wrapping_sub(Self::PAYLOAD_OFFSET).cast::<sys::xffi_object>();
        let len = {
            let _g = lock_for(obj);
            // SAFETY: a live List (we are borrowed from it), under its lock.
            unsafe { (*self.cell.get()).size }
        };
        f.debug_struct("ListObj").field("len", &len).finish()
    }
}

impl<T: Element> List<T> {
    /// An empty List. Errors: MemoryError.
    ///
    /// ```
    /// let l = xffi::List::<i64>::new().unwrap();
    /// assert!(l.is_empty());
    /// ```
    pub fn new() -> Result<Self> {
        Self::from_anys(&[])
    }

    /// A List of the given items. Errors: MemoryError.
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![true, false]).unwrap();
    /// assert_eq!(l.len(), 2);
    /// ```
    pub fn from_vec(items: Vec<T>) -> Result<Self> {
        Self::from_anys(&collect_views(items))
    }

    fn from_anys(items: &[Any]) -> Result<Self> {
        // SAFETY: as Array::from_anys; xffi_list_new writes a new List reference.
        let obj = unsafe { new_object(|out| sys::xffi_list_new(out, items.as_ptr().cast(), items.len() as i64)) }?;
        Ok(List::from_checked(obj))
    }

    fn raw(&self) -> *mut sys::xffi_object {
        self.obj.as_ptr()
    }

    /// The number of elements (a snapshot).
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![1i64, 2]).unwrap();
    /// assert_eq!(l.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        seq_len(self.raw(), Access::Locked)
    }

    /// The length; the caller holds the List's lock.
    fn len_locked(&self) -> usize {
        seq_len(self.raw(), Access::Direct)
    }

    /// Whether the list is empty (a snapshot).
    ///
    /// ```
    /// assert!(xffi::List::<f64>::new().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `index` (an owned copy), or `Ok(None)` past the end: the same
    /// as [`Array::get`]. Errors: TypeError if the element is not a `T`;
    /// MemoryError.
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![10i64]).unwrap();
    /// assert_eq!(l.get(0).unwrap(), Some(10));
    /// assert_eq!(l.get(3).unwrap(), None);
    /// ```
    pub fn get(&self, index: usize) -> Result<Option<T>> {
        seq_get(self.raw(), Access::Locked, index)
    }

    /// All elements, converted (a snapshot). Errors: TypeError for an
    /// element that is not a `T`; MemoryError.
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![1i64, 2]).unwrap();
    /// assert_eq!(l.to_vec().unwrap(), vec![1, 2]);
    /// ```
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let anys = {
            let _g = lock_for(self.raw());
            keep_alive(self.raw(), 0, usize::MAX)?
        };
        anys.iter().enumerate().map(|(i, a)| with_elem(&a.view(), i)).collect()
    }

    /// Iterates over a snapshot of the elements (taken, and checked, before
    /// the first: other holders may change the list meanwhile).
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![1i64, 2, 3]).unwrap();
    /// let sum: i64 = l.iter().unwrap().sum();
    /// assert_eq!(sum, 6);
    /// ```
    pub fn iter(&self) -> Result<std::vec::IntoIter<T>> {
        Ok(self.to_vec()?.into_iter())
    }

    /// Appends an element. Errors: MemoryError.
    ///
    /// ```
    /// let l = xffi::List::<i64>::new().unwrap();
    /// l.push(5).unwrap();
    /// assert_eq!(l.get(0).unwrap(), Some(5));
    /// ```
    pub fn push(&self, value: T) -> Result<()> {
        let v: Any = value.into();
        let _g = lock_for(self.raw());
        // SAFETY: a live List, under the lock.
        check(unsafe { sys::xffi_list_push(self.raw(), v.as_raw()) })
    }

    /// Replaces element `index`. Errors: IndexError, MemoryError.
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![1i64]).unwrap();
    /// l.set(0, 2).unwrap();
    /// assert_eq!(l.get(0).unwrap(), Some(2));
    /// ```
    pub fn set(&self, index: usize, value: T) -> Result<()> {
        let v: Any = value.into();
        let _old;
        let _g = lock_for(self.raw());
        _old = keep_alive(self.raw(), index, index.saturating_add(1))?;
        let index = c_index("xffi_list_set", index, self.len_locked())?;
        // SAFETY: as push.
        check(unsafe { sys::xffi_list_set(self.raw(), index, v.as_raw()) })
    }

    /// Inserts before `index` (`index == len` appends). Errors: IndexError, MemoryError.
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![1i64, 3]).unwrap();
    /// l.insert(1, 2).unwrap();
    /// assert_eq!(l.to_vec().unwrap(), vec![1, 2, 3]);
    /// ```
    pub fn insert(&self, index: usize, value: T) -> Result<()> {
        let v: Any = value.into();
        let _g = lock_for(self.raw());
        let index = c_index("xffi_list_insert", index, self.len_locked())?;
        // SAFETY: as push.
        check(unsafe { sys::xffi_list_insert(self.raw(), index, v.as_raw()) })
    }

    /// Removes element `index`. Errors: IndexError.
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![1i64, 2]).unwrap();
    /// l.remove(0).unwrap();
    /// assert_eq!(l.to_vec().unwrap(), vec![2]);
    /// ```
    pub fn remove(&self, index: usize) -> Result<()> {
        let _old;
        let _g = lock_for(self.raw());
        _old = keep_alive(self.raw(), index, index.saturating_add(1))?;
        let index = c_index("xffi_list_erase", index, self.len_locked())?;
        // SAFETY: as push.
        check(unsafe { sys::xffi_list_erase(self.raw(), index) })
    }

    /// Removes and returns the last element. Errors: IndexError if empty;
    /// TypeError if it is not a `T` (it is removed all the same).
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![1i64]).unwrap();
    /// assert_eq!(l.pop().unwrap(), 1);
    /// assert_eq!(l.pop().unwrap_err().kind(), xffi::ErrorKind::IndexError);
    /// ```
    pub fn pop(&self) -> Result<T> {
        let mut out = sys::xffi_any::none();
        {
            let _g = lock_for(self.raw());
            // SAFETY: as push.
            check(unsafe { sys::xffi_list_pop(&mut out, self.raw()) })?;
        }
        // SAFETY: xffi_list_pop wrote an owned value.
        let any = unsafe { Any::from_raw(out) };
        any.get::<T>()
    }

    /// Removes every element.
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![1i64]).unwrap();
    /// l.clear().unwrap();
    /// assert!(l.is_empty());
    /// ```
    pub fn clear(&self) -> Result<()> {
        let _old;
        let _g = lock_for(self.raw());
        _old = keep_alive(self.raw(), 0, usize::MAX)?;
        // SAFETY: as push.
        check(unsafe { sys::xffi_list_clear(self.raw()) })
    }
}

impl<T: Element + fmt::Debug> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_vec() {
            Ok(v) => f.debug_list().entries(v).finish(),
            Err(e) => write!(f, "List(<{e}>)"),
        }
    }
}
impl<'v, T: Element> FromAnyView<'v> for List<T> {
    /// Accepts a List (elements are checked when read).
    fn from_view(v: &'v AnyView<'_>) -> Result<List<T>> {
        Ok(List::from_checked(ObjectRef::<ListObj>::from_view(v)?))
    }
}
