//! [`Array<T>`] (immutable, copy-on-write) and [`List<T>`] (shared, mutable).

use std::cell::UnsafeCell;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::ptr;
use std::sync::{Mutex, MutexGuard};

use xffi_sys as sys;

use crate::any::{Any, AnyView, FromAnyView};
use crate::error::{Error, ErrorKind, Result, check};
use crate::object::{Object, ObjectRef, ObjectType};

/// Element types of the typed containers: converted from a stored value
/// with [`FromAnyView`] and stored through `Into<Any>`.
pub trait Element: for<'v> FromAnyView<'v> + Into<Any> {}
impl<T: for<'v> FromAnyView<'v> + Into<Any>> Element for T {}

/// Payload marker of Array objects (type index 71).
#[derive(Debug)]
pub struct ArrayObj {
    _cell: sys::xffi_seq_cell,
}
unsafe impl Send for ArrayObj {}
unsafe impl Sync for ArrayObj {}
unsafe impl ObjectType for ArrayObj {
    const TYPE_KEY: &'static str = "Array";
    #[inline(always)]
    fn type_index() -> i32 {
        sys::XFFI_TYPE_ARRAY
    }
}

/// Payload marker of List objects (type index 75). The cell changes under
/// shared references (any holder may push), so it sits in an `UnsafeCell`
/// and is read only under the List's lock (see `lock_for`), Debug included.
pub struct ListObj {
    cell: UnsafeCell<sys::xffi_seq_cell>,
}
// Shared mutable objects: this crate serialises every access from Rust
// (see `lock_for`), so Rust handles may be shared between threads.
unsafe impl Send for ListObj {}
unsafe impl Sync for ListObj {}
unsafe impl ObjectType for ListObj {
    const TYPE_KEY: &'static str = "List";
    #[inline(always)]
    fn type_index() -> i32 {
        sys::XFFI_TYPE_LIST
    }
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

static LOCKS: [Mutex<()>; 64] = [const { Mutex::new(()) }; 64];

/// The lock that serialises Rust's accesses to one shared mutable object
/// (List or Dict): C's functions take no lock, so Rust takes one of 64
/// striped locks chosen by address. C code that changes the same List or
/// Dict concurrently must synchronise itself (the C contract).
pub(crate) fn lock_for(obj: *mut sys::xffi_object) -> MutexGuard<'static, ()> {
    let slot = ((obj as usize) >> 5) % LOCKS.len();
    LOCKS[slot].lock().unwrap_or_else(|p| p.into_inner())
}

/// Owned copies of elements `[begin, end)` of a sequence (clamped), taken
/// under the caller's lock so that a C call which releases them cannot run
/// their deleters (arbitrary Rust `Drop` code) while the lock is held: the
/// copies are dropped after the lock is released.
fn keep_alive(obj: *mut sys::xffi_object, begin: usize, end: usize) -> Vec<Any> {
    // SAFETY: a live Array or List under the caller's lock.
    let c = unsafe { &*sys::xffi_seq_cell_of(obj) };
    let end = end.min(c.size as usize);
    let views = unsafe { AnyView::slice_from_raw(c.data as *const sys::xffi_any, c.size as usize) };
    views.get(begin.min(end)..end).unwrap_or(&[]).iter().map(|v| v.to_owned_any().unwrap_or_default()).collect()
}

fn collect_views<T: Element>(items: impl IntoIterator<Item = T>) -> Vec<Any> {
    items.into_iter().map(Into::into).collect()
}

fn index_error(index: usize, len: usize) -> Error {
    Error::new(ErrorKind::IndexError, &format!("index {index} out of range for length {len}"))
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
    T::from_view(v).map_err(|e| Error::new(e.kind(), &format!("element {index}: {}", e.message())))
}

/// An immutable sequence of `T` (an xffi Array, type index 71). Changing
/// methods take `&mut self` and are copy-on-write: in place when this is the
/// only reference, otherwise on a copy, so other holders (in any language)
/// never see a change.
///
/// Converting a value into an `Array<T>` checks every element once; after
/// that, reads cannot fail. `Array<Any>` holds anything.
///
/// `Send`/`Sync` when `T` is (immutable while shared).
///
/// ```
/// use xffi::Array;
/// let mut a: Array<i64> = (1..=3).collect();
/// let b = a.clone();
/// a.push(4).unwrap();
/// assert_eq!(a.iter().collect::<Vec<_>>(), vec![1, 2, 3, 4]);
/// assert_eq!(b.len(), 3); // b never saw the change
/// assert_eq!(format!("{b:?}"), "[1, 2, 3]");
/// ```
pub struct Array<T: Element> {
    obj: ObjectRef<ArrayObj>,
    _marker: PhantomData<T>,
}

impl<T: Element> Clone for Array<T> {
    fn clone(&self) -> Self {
        Array { obj: self.obj.clone(), _marker: PhantomData }
    }
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
    /// assert_eq!(a.get(1).unwrap(), "b");
    /// ```
    pub fn from_vec(items: Vec<T>) -> Result<Self> {
        Self::from_anys(&collect_views(items))
    }

    fn from_anys(items: &[Any]) -> Result<Self> {
        let mut out = ptr::null_mut();
        // SAFETY: Any and xffi_any share a layout; views valid for the call.
        check(unsafe { sys::xffi_array_new(&mut out, items.as_ptr().cast(), items.len() as i64) })?;
        // SAFETY: a new Array reference.
        Ok(Array { obj: unsafe { ObjectRef::from_raw(out) }.expect("xffi_array_new succeeded"), _marker: PhantomData })
    }

    fn cell(&self) -> &sys::xffi_seq_cell {
        // SAFETY: a live Array.
        unsafe { &*sys::xffi_seq_cell_of(self.obj.as_ptr()) }
    }

    /// The elements as borrowed views (valid while `self` is borrowed).
    ///
    /// ```
    /// let a: xffi::Array<i64> = vec![5, 6].into_iter().collect();
    /// assert_eq!(a.views()[1].get::<i64>().unwrap(), 6);
    /// ```
    pub fn views(&self) -> &[AnyView<'_>] {
        let c = self.cell();
        // SAFETY: `size` owned elements; immutable while we hold &self
        // (changes need &mut self, and a shared array is copied first).
        unsafe { AnyView::slice_from_raw(c.data as *const sys::xffi_any, c.size as usize) }
    }

    /// The number of elements.
    ///
    /// ```
    /// let a: xffi::Array<i64> = vec![1, 2].into_iter().collect();
    /// assert_eq!(a.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.cell().size as usize
    }

    /// Whether there are no elements.
    ///
    /// ```
    /// assert!(xffi::Array::<bool>::new().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `index`, or None if out of range.
    ///
    /// ```
    /// let a: xffi::Array<f64> = vec![0.5].into_iter().collect();
    /// assert_eq!(a.get(0), Some(0.5));
    /// assert_eq!(a.get(1), None);
    /// ```
    pub fn get(&self, index: usize) -> Option<T> {
        self.views().get(index).map(|v| T::from_view(v).expect("elements were checked"))
    }

    /// Iterates the elements (converted to `T`).
    ///
    /// ```
    /// let a: xffi::Array<i64> = (1..=3).collect();
    /// assert_eq!(a.iter().sum::<i64>(), 6);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = T> + '_ {
        self.views().iter().map(|v| T::from_view(v).expect("elements were checked"))
    }

    fn cow(&mut self, f: impl FnOnce(*mut *mut sys::xffi_object) -> i32) -> Result<()> {
        let mut raw = self.obj.as_ptr();
        let status = f(&mut raw);
        if raw != self.obj.as_ptr() {
            // The C function released our old reference and gave a new one.
            // SAFETY: a new Array reference.
            let new = unsafe { ObjectRef::from_raw(raw) }.expect("non-NULL array");
            std::mem::forget(std::mem::replace(&mut self.obj, new));
        }
        check(status)
    }

    /// Appends an element (copy-on-write). Errors: MemoryError.
    ///
    /// ```
    /// let mut a = xffi::Array::<String>::new().unwrap();
    /// a.push("x".to_string()).unwrap();
    /// assert_eq!(a.get(0).unwrap(), "x");
    /// ```
    pub fn push(&mut self, value: T) -> Result<()> {
        let v: Any = value.into();
        // SAFETY: valid in/out reference and view.
        self.cow(|a| unsafe { sys::xffi_array_push(a, v.as_raw()) })
    }

    /// Replaces element `index`. Errors: IndexError, MemoryError.
    ///
    /// ```
    /// let mut a: xffi::Array<i64> = vec![1, 2].into_iter().collect();
    /// a.set(0, 9).unwrap();
    /// assert_eq!(a.get(0), Some(9));
    /// assert_eq!(a.set(5, 0).unwrap_err().kind(), xffi::ErrorKind::IndexError);
    /// ```
    pub fn set(&mut self, index: usize, value: T) -> Result<()> {
        let index = c_index("xffi_array_set", index, self.len())?;
        let v: Any = value.into();
        // SAFETY: as push.
        self.cow(|a| unsafe { sys::xffi_array_set(a, index, v.as_raw()) })
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
        self.cow(|a| unsafe { sys::xffi_array_pop(&mut out, a) })?;
        // SAFETY: an owned value.
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
        self.cow(|a| unsafe { sys::xffi_array_clear(a) })
    }

    /// The Array object as "any object".
    ///
    /// ```
    /// let a: xffi::Array<i64> = vec![1].into_iter().collect();
    /// assert_eq!(a.into_object().type_key(), "Array");
    /// ```
    pub fn into_object(self) -> ObjectRef<Object> {
        self.obj.into_object()
    }
    /// Borrowed as "any object".
    ///
    /// ```
    /// let a = xffi::Array::<i64>::new().unwrap();
    /// assert_eq!(a.as_object().strong_count(), 1);
    /// ```
    pub fn as_object(&self) -> &ObjectRef<Object> {
        self.obj.as_object()
    }
    /// The Array object (borrowed).
    ///
    /// ```
    /// let a = xffi::Array::<i64>::new().unwrap();
    /// assert_eq!(unsafe { (*a.as_ptr()).type_index }, xffi::sys::XFFI_TYPE_ARRAY);
    /// ```
    pub fn as_ptr(&self) -> *mut sys::xffi_object {
        self.obj.as_ptr()
    }
}

impl<T: Element> Array<T> {
    /// Builds an Array by moving each value's reference into a fresh array
    /// (no inc-ref/dec-ref pair per element): the array is new, so this code
    /// is its only user, and the public sequence layout says its first
    /// `size` of `capacity` slots are the owned elements.
    fn try_from_iter_moved(iter: impl Iterator<Item = T>) -> Result<Self> {
        let (lower, _) = iter.size_hint();
        let mut out = ptr::null_mut();
        // SAFETY: valid out slot.
        check(unsafe { sys::xffi_array_new_with_capacity(&mut out, lower as i64) })?;
        // SAFETY: a new Array reference.
        let mut array = Array { obj: unsafe { ObjectRef::from_raw(out) }.expect("new array"), _marker: PhantomData };
        for value in iter {
            let any: Any = value.into();
            // SAFETY: a fresh array only we can see.
            let cell = unsafe { &mut *sys::xffi_seq_cell_of(array.obj.as_ptr()) };
            if cell.size < cell.capacity {
                // SAFETY: slot `size` is free; the reference moves into it.
                unsafe { (cell.data as *mut sys::xffi_any).add(cell.size as usize).write(any.into_raw()) };
                cell.size += 1;
            } else {
                // Past the hint: the C push grows the array (in place: we hold the only reference).
                // SAFETY: valid in/out reference and view.
                array.cow(|a| unsafe { sys::xffi_array_push(a, any.as_raw()) })?;
            }
        }
        Ok(array)
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
        f.debug_list().entries(self.iter()).finish()
    }
}
impl<T: Element + PartialEq> PartialEq for Array<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}
impl<T: Element + Hash> Hash for Array<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        for x in self.iter() {
            x.hash(state);
        }
    }
}
impl<T: Element> From<Array<T>> for Any {
    fn from(a: Array<T>) -> Any {
        Any::from(a.obj)
    }
}
impl<'v, T: Element> FromAnyView<'v> for Array<T> {
    /// Accepts an Array whose every element converts to `T`.
    fn from_view(v: &'v AnyView<'_>) -> Result<Array<T>> {
        let obj = ObjectRef::<ArrayObj>::from_view(v)?;
        let a = Array { obj, _marker: PhantomData };
        for (i, e) in a.views().iter().enumerate() {
            with_elem::<T>(e, i)?;
        }
        Ok(a)
    }
}

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
pub struct List<T: Element> {
    obj: ObjectRef<ListObj>,
    _marker: PhantomData<T>,
}

impl<T: Element> Clone for List<T> {
    /// Another handle to the same list.
    fn clone(&self) -> Self {
        List { obj: self.obj.clone(), _marker: PhantomData }
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
        let mut out = ptr::null_mut();
        // SAFETY: as Array::from_anys.
        check(unsafe { sys::xffi_list_new(&mut out, items.as_ptr().cast(), items.len() as i64) })?;
        // SAFETY: a new List reference.
        Ok(List { obj: unsafe { ObjectRef::from_raw(out) }.expect("xffi_list_new succeeded"), _marker: PhantomData })
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
        let _g = lock_for(self.raw());
        self.len_locked()
    }

    /// The length; the caller holds the List's lock.
    fn len_locked(&self) -> usize {
        // SAFETY: a live List, accessed under the caller's lock.
        unsafe { (*sys::xffi_seq_cell_of(self.raw())).size as usize }
    }

    /// Whether the list is empty (a snapshot).
    ///
    /// ```
    /// assert!(xffi::List::<f64>::new().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `index` (an owned copy). Errors: IndexError; TypeError if
    /// the element is not a `T`.
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![10i64]).unwrap();
    /// assert_eq!(l.get(0).unwrap(), 10);
    /// assert_eq!(l.get(3).unwrap_err().message(), "index 3 out of range for length 1");
    /// ```
    pub fn get(&self, index: usize) -> Result<T> {
        let any = {
            let _g = lock_for(self.raw());
            // SAFETY: a live List, under the lock.
            let c = unsafe { &*sys::xffi_seq_cell_of(self.raw()) };
            if index >= c.size as usize {
                return Err(index_error(index, c.size as usize));
            }
            // SAFETY: in range; copy takes a new reference under the lock.
            let v = unsafe { *(c.data as *const sys::xffi_any).add(index) };
            unsafe { AnyView::from_raw(v) }.to_owned_any()?
        };
        with_elem(&any.view(), index)
    }

    /// All elements, converted (a snapshot). Errors: TypeError for an
    /// element that is not a `T`.
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![1i64, 2]).unwrap();
    /// assert_eq!(l.to_vec().unwrap(), vec![1, 2]);
    /// ```
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let anys: Vec<Any> = {
            let _g = lock_for(self.raw());
            // SAFETY: a live List, under the lock.
            let c = unsafe { &*sys::xffi_seq_cell_of(self.raw()) };
            let views = unsafe { AnyView::slice_from_raw(c.data as *const sys::xffi_any, c.size as usize) };
            views.iter().map(|v| v.to_owned_any()).collect::<Result<_>>()?
        };
        anys.iter().enumerate().map(|(i, a)| with_elem(&a.view(), i)).collect()
    }

    /// Iterates over a snapshot of the elements.
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
    /// assert_eq!(l.get(0).unwrap(), 5);
    /// ```
    pub fn push(&self, value: T) -> Result<()> {
        let v: Any = value.into();
        let _g = lock_for(self.raw());
        // SAFETY: live List, under the lock.
        check(unsafe { sys::xffi_list_push(self.raw(), v.as_raw()) })
    }

    /// Replaces element `index`. Errors: IndexError, MemoryError.
    ///
    /// ```
    /// let l = xffi::List::from_vec(vec![1i64]).unwrap();
    /// l.set(0, 2).unwrap();
    /// assert_eq!(l.get(0).unwrap(), 2);
    /// ```
    pub fn set(&self, index: usize, value: T) -> Result<()> {
        let v: Any = value.into();
        let _old;
        let _g = lock_for(self.raw());
        _old = keep_alive(self.raw(), index, index.saturating_add(1));
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
        _old = keep_alive(self.raw(), index, index.saturating_add(1));
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
        // SAFETY: an owned value.
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
        _old = keep_alive(self.raw(), 0, usize::MAX);
        // SAFETY: as push.
        check(unsafe { sys::xffi_list_clear(self.raw()) })
    }

    /// The List object as "any object".
    ///
    /// ```
    /// let l = xffi::List::<i64>::new().unwrap();
    /// assert_eq!(l.into_object().type_key(), "List");
    /// ```
    pub fn into_object(self) -> ObjectRef<Object> {
        self.obj.into_object()
    }
    /// Borrowed as "any object".
    ///
    /// ```
    /// let l = xffi::List::<i64>::new().unwrap();
    /// assert_eq!(l.as_object().type_key(), "List");
    /// ```
    pub fn as_object(&self) -> &ObjectRef<Object> {
        self.obj.as_object()
    }
    /// The List object (borrowed).
    ///
    /// ```
    /// let l = xffi::List::<i64>::new().unwrap();
    /// assert_eq!(unsafe { (*l.as_ptr()).type_index }, xffi::sys::XFFI_TYPE_LIST);
    /// ```
    pub fn as_ptr(&self) -> *mut sys::xffi_object {
        self.obj.as_ptr()
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
impl<T: Element> From<List<T>> for Any {
    fn from(l: List<T>) -> Any {
        Any::from(l.obj)
    }
}
impl<'v, T: Element> FromAnyView<'v> for List<T> {
    /// Accepts a List (elements are checked when read).
    fn from_view(v: &'v AnyView<'_>) -> Result<List<T>> {
        Ok(List { obj: ObjectRef::<ListObj>::from_view(v)?, _marker: PhantomData })
    }
}
