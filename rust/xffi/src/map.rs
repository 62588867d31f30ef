//! [`Map<K, V>`] (immutable, copy-on-write) and [`Dict<K, V>`] (shared,
//! mutable): insertion-ordered hash maps from xffi values to xffi values.

use std::fmt;
use std::marker::PhantomData;
use std::ptr;

use xffi_sys as sys;

use crate::any::{Any, AnyView, FromAnyView};
use crate::array::{Element, lock_for};
use crate::error::{Error, Result, check};
use crate::object::{Object, ObjectRef, ObjectType};

/// Payload marker of Map objects (type index 72).
#[derive(Debug)]
pub struct MapObj {
    _private: [u8; 0],
}
unsafe impl Send for MapObj {}
unsafe impl Sync for MapObj {}
unsafe impl ObjectType for MapObj {
    const TYPE_KEY: &'static str = "Map";
    #[inline(always)]
    fn type_index() -> i32 {
        sys::XFFI_TYPE_MAP
    }
}

/// Payload marker of Dict objects (type index 76). Rust serialises its
/// accesses with a lock (see [`crate::List`]).
#[derive(Debug)]
pub struct DictObj {
    _private: [u8; 0],
}
unsafe impl Send for DictObj {}
unsafe impl Sync for DictObj {}
unsafe impl ObjectType for DictObj {
    const TYPE_KEY: &'static str = "Dict";
    #[inline(always)]
    fn type_index() -> i32 {
        sys::XFFI_TYPE_DICT
    }
}

fn pairs<K: Element, V: Element>(iter: impl IntoIterator<Item = (K, V)>) -> (Vec<Any>, Vec<Any>) {
    iter.into_iter().map(|(k, v)| (k.into(), v.into())).unzip()
}

/// Entries as owned copies, in insertion order (caller holds any lock needed).
fn snapshot(obj: *mut sys::xffi_object) -> Result<Vec<(Any, Any)>> {
    let mut out = Vec::new();
    let mut cursor = 0i64;
    loop {
        let mut item = sys::xffi_map_item { key: ptr::null(), value: ptr::null() };
        // SAFETY: a live Map or Dict.
        check(unsafe { sys::xffi_map_next(&mut item, obj, &mut cursor) })?;
        if item.key.is_null() {
            return Ok(out);
        }
        // SAFETY: borrowed entries valid until the map changes (it cannot now).
        let (k, v) = unsafe { (AnyView::from_raw(*item.key), AnyView::from_raw(*item.value)) };
        out.push((k.to_owned_any()?, v.to_owned_any()?));
    }
}

fn lookup(obj: *mut sys::xffi_object, key: &Any) -> Result<Option<Any>> {
    let mut out: *const sys::xffi_any = ptr::null();
    // SAFETY: a live Map or Dict; key a valid view.
    check(unsafe { sys::xffi_map_lookup(&mut out, obj, key.as_raw()) })?;
    if out.is_null() {
        return Ok(None);
    }
    // SAFETY: borrowed value, copied before anything can change.
    unsafe { AnyView::from_raw(*out) }.to_owned_any().map(Some)
}

fn convert_pair<K: Element, V: Element>(k: &Any, v: &Any) -> Result<(K, V)> {
    let key = k.get::<K>().map_err(|e| Error::new(e.kind(), &format!("key: {}", e.message())))?;
    let value = v.get::<V>().map_err(|e| Error::new(e.kind(), &format!("value of key {k:?}: {}", e.message())))?;
    Ok((key, value))
}

/// An immutable map from `K` to `V` (an xffi Map, type index 72), in
/// insertion order. Changing methods take `&mut self` and are copy-on-write,
/// so other holders never see a change. Converting a value into a
/// `Map<K, V>` checks every entry once, so reads cannot fail afterwards.
///
/// Keys: strings by content, ints/bools/floats as distinct kinds, other
/// objects by identity (see `xffi/map.h`).
///
/// `Send`/`Sync` when `K` and `V` are.
///
/// ```
/// use xffi::Map;
/// let mut m: Map<String, i64> = [("one".to_string(), 1), ("two".to_string(), 2)].into_iter().collect();
/// m.insert("three".to_string(), 3).unwrap();
/// assert_eq!(m.get("two".to_string()), Some(2));
/// assert_eq!(m.get("four".to_string()), None);
/// assert_eq!(m.keys().collect::<Vec<_>>(), vec!["one", "two", "three"]);
/// ```
pub struct Map<K: Element, V: Element> {
    obj: ObjectRef<MapObj>,
    _marker: PhantomData<(K, V)>,
}

impl<K: Element, V: Element> Clone for Map<K, V> {
    fn clone(&self) -> Self {
        Map { obj: self.obj.clone(), _marker: PhantomData }
    }
}

impl<K: Element, V: Element> Map<K, V> {
    /// An empty Map. Errors: MemoryError.
    ///
    /// ```
    /// let m = xffi::Map::<i64, i64>::new().unwrap();
    /// assert!(m.is_empty());
    /// ```
    pub fn new() -> Result<Self> {
        Self::from_anys(&[], &[])
    }

    fn from_anys(keys: &[Any], values: &[Any]) -> Result<Self> {
        let mut out = ptr::null_mut();
        // SAFETY: parallel arrays of valid views.
        check(unsafe {
            sys::xffi_map_new_from(&mut out, keys.as_ptr().cast(), values.as_ptr().cast(), keys.len() as i64)
        })?;
        // SAFETY: a new Map reference.
        Ok(Map { obj: unsafe { ObjectRef::from_raw(out) }.expect("xffi_map_new_from succeeded"), _marker: PhantomData })
    }

    /// The number of entries.
    ///
    /// ```
    /// let m: xffi::Map<i64, i64> = [(1, 1), (2, 4)].into_iter().collect();
    /// assert_eq!(m.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        let mut n = 0;
        // SAFETY: a live Map.
        unsafe { sys::xffi_map_length(&mut n, self.obj.as_ptr()) };
        n as usize
    }

    /// Whether the map is empty.
    ///
    /// ```
    /// assert!(xffi::Map::<i64, i64>::new().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value under `key`, or None.
    ///
    /// ```
    /// let m: xffi::Map<String, i64> = [("a".to_string(), 1)].into_iter().collect();
    /// assert_eq!(m.get("a"), Some(1));
    /// assert_eq!(m.get("b"), None);
    /// ```
    pub fn get(&self, key: impl Into<K>) -> Option<V> {
        let k: Any = key.into().into();
        lookup(self.obj.as_ptr(), &k).ok().flatten().map(|v| v.get::<V>().expect("entries were checked"))
    }

    /// Whether `key` is present.
    ///
    /// ```
    /// let m: xffi::Map<i64, bool> = [(1, true)].into_iter().collect();
    /// assert!(m.contains_key(1));
    /// assert!(!m.contains_key(2));
    /// ```
    pub fn contains_key(&self, key: impl Into<K>) -> bool {
        let k: Any = key.into().into();
        let mut out = 0;
        // SAFETY: a live Map; valid key view.
        unsafe { sys::xffi_map_contains(&mut out, self.obj.as_ptr(), k.as_raw()) == sys::XFFI_OK && out != 0 }
    }

    /// Iterates the entries in insertion order.
    ///
    /// ```
    /// let m: xffi::Map<String, f64> = [("a".to_string(), 0.5)].into_iter().collect();
    /// for (k, v) in m.iter() {
    ///     assert_eq!((k.as_str(), v), ("a", 0.5));
    /// }
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (K, V)> + '_ {
        let entries = snapshot(self.obj.as_ptr()).unwrap_or_default();
        entries.into_iter().map(|(k, v)| convert_pair(&k, &v).expect("entries were checked"))
    }

    /// Iterates the keys in insertion order.
    ///
    /// ```
    /// let m: xffi::Map<i64, bool> = [(3, true), (1, false)].into_iter().collect();
    /// assert_eq!(m.keys().collect::<Vec<_>>(), vec![3, 1]);
    /// ```
    pub fn keys(&self) -> impl Iterator<Item = K> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// Iterates the values in insertion order.
    ///
    /// ```
    /// let m: xffi::Map<i64, bool> = [(3, true), (1, false)].into_iter().collect();
    /// assert_eq!(m.values().collect::<Vec<_>>(), vec![true, false]);
    /// ```
    pub fn values(&self) -> impl Iterator<Item = V> + '_ {
        self.iter().map(|(_, v)| v)
    }

    fn cow(&mut self, f: impl FnOnce(*mut *mut sys::xffi_object) -> i32) -> Result<()> {
        let mut raw = self.obj.as_ptr();
        let status = f(&mut raw);
        if raw != self.obj.as_ptr() {
            // SAFETY: the C function released the old reference and gave a new one.
            let new = unsafe { ObjectRef::from_raw(raw) }.expect("non-NULL map");
            std::mem::forget(std::mem::replace(&mut self.obj, new));
        }
        check(status)
    }

    /// Sets `key` to `value` (copy-on-write). Errors: MemoryError.
    ///
    /// ```
    /// let mut m = xffi::Map::<String, i64>::new().unwrap();
    /// let before = m.clone();
    /// m.insert("k".into(), 1).unwrap();
    /// assert_eq!((m.len(), before.len()), (1, 0));
    /// ```
    pub fn insert(&mut self, key: K, value: V) -> Result<()> {
        let (k, v): (Any, Any) = (key.into(), value.into());
        // SAFETY: valid in/out reference and views.
        self.cow(|m| unsafe { sys::xffi_map_set(m, k.as_raw(), v.as_raw()) })
    }

    /// Removes `key`. Errors: KeyError if absent.
    ///
    /// ```
    /// let mut m: xffi::Map<i64, i64> = [(1, 2)].into_iter().collect();
    /// m.remove(1).unwrap();
    /// assert_eq!(m.remove(1).unwrap_err().kind(), xffi::ErrorKind::KeyError);
    /// ```
    pub fn remove(&mut self, key: K) -> Result<()> {
        let k: Any = key.into();
        // SAFETY: as insert.
        self.cow(|m| unsafe { sys::xffi_map_erase(m, k.as_raw()) })
    }

    /// The Map object as "any object".
    ///
    /// ```
    /// let m = xffi::Map::<i64, i64>::new().unwrap();
    /// assert_eq!(m.into_object().type_key(), "Map");
    /// ```
    pub fn into_object(self) -> ObjectRef<Object> {
        self.obj.into_object()
    }
    /// Borrowed as "any object".
    ///
    /// ```
    /// let m = xffi::Map::<i64, i64>::new().unwrap();
    /// assert_eq!(m.as_object().type_key(), "Map");
    /// ```
    pub fn as_object(&self) -> &ObjectRef<Object> {
        self.obj.as_object()
    }
    /// The Map object (borrowed).
    ///
    /// ```
    /// let m = xffi::Map::<i64, i64>::new().unwrap();
    /// assert_eq!(unsafe { (*m.as_ptr()).type_index }, xffi::sys::XFFI_TYPE_MAP);
    /// ```
    pub fn as_ptr(&self) -> *mut sys::xffi_object {
        self.obj.as_ptr()
    }
}

/// Panics only if memory runs out.
impl<K: Element, V: Element> FromIterator<(K, V)> for Map<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let (k, v) = pairs(iter);
        Map::from_anys(&k, &v).unwrap_or_else(|e| panic!("xffi: {e}"))
    }
}
impl<K: Element + fmt::Debug, V: Element + fmt::Debug> fmt::Debug for Map<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}
impl<K: Element + PartialEq, V: Element + PartialEq> PartialEq for Map<K, V> {
    /// Equal entries in the same order.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}
impl<K: Element, V: Element> From<Map<K, V>> for Any {
    fn from(m: Map<K, V>) -> Any {
        Any::from(m.obj)
    }
}
impl<'v, K: Element, V: Element> FromAnyView<'v> for Map<K, V> {
    /// Accepts a Map whose every entry converts to `(K, V)`.
    fn from_view(v: &'v AnyView<'_>) -> Result<Map<K, V>> {
        let obj = ObjectRef::<MapObj>::from_view(v)?;
        for (k, v) in snapshot(obj.as_ptr())? {
            convert_pair::<K, V>(&k, &v)?;
        }
        Ok(Map { obj, _marker: PhantomData })
    }
}

/// A shared, mutable map from `K` to `V` (an xffi Dict, type index 76):
/// every holder sees every change; methods take `&self`. Entries are checked
/// when read (C may store anything). `Send + Sync` when `K` and `V` are:
/// every access from Rust takes a lock.
///
/// ```
/// use xffi::Dict;
/// let d: Dict<String, i64> = Dict::new().unwrap();
/// let alias = d.clone();
/// d.insert("a".into(), 1).unwrap();
/// assert_eq!(alias.get("a".to_string()).unwrap(), Some(1));
/// assert_eq!(alias.pop("a".to_string()).unwrap(), 1);
/// assert!(d.is_empty());
/// ```
pub struct Dict<K: Element, V: Element> {
    obj: ObjectRef<DictObj>,
    _marker: PhantomData<(K, V)>,
}

impl<K: Element, V: Element> Clone for Dict<K, V> {
    /// Another handle to the same dict.
    fn clone(&self) -> Self {
        Dict { obj: self.obj.clone(), _marker: PhantomData }
    }
}

impl<K: Element, V: Element> Dict<K, V> {
    /// An empty Dict. Errors: MemoryError.
    ///
    /// ```
    /// let d = xffi::Dict::<i64, i64>::new().unwrap();
    /// assert!(d.is_empty());
    /// ```
    pub fn new() -> Result<Self> {
        let mut out = ptr::null_mut();
        // SAFETY: valid out slot.
        check(unsafe { sys::xffi_dict_new(&mut out) })?;
        // SAFETY: a new Dict reference.
        Ok(Dict { obj: unsafe { ObjectRef::from_raw(out) }.expect("xffi_dict_new succeeded"), _marker: PhantomData })
    }

    fn raw(&self) -> *mut sys::xffi_object {
        self.obj.as_ptr()
    }

    /// The number of entries (a snapshot).
    ///
    /// ```
    /// let d = xffi::Dict::<i64, i64>::new().unwrap();
    /// d.insert(1, 2).unwrap();
    /// assert_eq!(d.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        let _g = lock_for(self.raw());
        let mut n = 0;
        // SAFETY: a live Dict, under the lock.
        unsafe { sys::xffi_dict_length(&mut n, self.raw()) };
        n as usize
    }

    /// Whether the dict is empty (a snapshot).
    ///
    /// ```
    /// assert!(xffi::Dict::<i64, i64>::new().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value under `key` (a copy), or None. Errors: TypeError if the
    /// stored value is not a `V`.
    ///
    /// ```
    /// let d = xffi::Dict::<String, f64>::new().unwrap();
    /// d.insert("x".into(), 0.5).unwrap();
    /// assert_eq!(d.get("x").unwrap(), Some(0.5));
    /// assert_eq!(d.get("y").unwrap(), None);
    /// ```
    pub fn get(&self, key: impl Into<K>) -> Result<Option<V>> {
        let k: Any = key.into().into();
        let found = {
            let _g = lock_for(self.raw());
            lookup(self.raw(), &k)?
        };
        found.map(|v| v.get::<V>()).transpose()
    }

    /// Sets `key` to `value`. Errors: MemoryError.
    ///
    /// ```
    /// let d = xffi::Dict::<i64, String>::new().unwrap();
    /// d.insert(1, "one".into()).unwrap();
    /// d.insert(1, "uno".into()).unwrap();
    /// assert_eq!(d.get(1).unwrap().as_deref(), Some("uno"));
    /// ```
    pub fn insert(&self, key: K, value: V) -> Result<()> {
        let (k, v): (Any, Any) = (key.into(), value.into());
        let _old; // a replaced value is dropped after the lock is released
        let _g = lock_for(self.raw());
        _old = lookup(self.raw(), &k)?;
        // SAFETY: a live Dict, under the lock.
        check(unsafe { sys::xffi_dict_set(self.raw(), k.as_raw(), v.as_raw()) })
    }

    /// Removes `key` and returns its value. Errors: KeyError if absent.
    ///
    /// ```
    /// let d = xffi::Dict::<i64, i64>::new().unwrap();
    /// d.insert(1, 10).unwrap();
    /// assert_eq!(d.pop(1).unwrap(), 10);
    /// assert_eq!(d.pop(1).unwrap_err().kind(), xffi::ErrorKind::KeyError);
    /// ```
    pub fn pop(&self, key: impl Into<K>) -> Result<V> {
        let k: Any = key.into().into();
        let mut out = sys::xffi_any::none();
        {
            let _g = lock_for(self.raw());
            // SAFETY: a live Dict, under the lock.
            check(unsafe { sys::xffi_dict_pop(&mut out, self.raw(), k.as_raw()) })?;
        }
        // SAFETY: an owned value.
        unsafe { Any::from_raw(out) }.get::<V>()
    }

    /// Removes every entry.
    ///
    /// ```
    /// let d = xffi::Dict::<i64, i64>::new().unwrap();
    /// d.insert(1, 10).unwrap();
    /// d.clear().unwrap();
    /// assert!(d.is_empty());
    /// ```
    pub fn clear(&self) -> Result<()> {
        let _old; // the entries are dropped after the lock is released
        let _g = lock_for(self.raw());
        _old = snapshot(self.raw())?;
        // SAFETY: a live Dict, under the lock.
        check(unsafe { sys::xffi_dict_clear(self.raw()) })
    }

    /// A snapshot of the entries, in insertion order, converted.
    ///
    /// ```
    /// let d: xffi::Dict<i64, String> = xffi::Dict::new().unwrap();
    /// d.insert(1, "x".into()).unwrap();
    /// assert_eq!(d.to_vec().unwrap(), vec![(1, "x".to_string())]);
    /// ```
    pub fn to_vec(&self) -> Result<Vec<(K, V)>> {
        let entries = {
            let _g = lock_for(self.raw());
            snapshot(self.raw())?
        };
        entries.iter().map(|(k, v)| convert_pair(k, v)).collect()
    }

    /// The Dict object as "any object".
    ///
    /// ```
    /// let d = xffi::Dict::<i64, i64>::new().unwrap();
    /// assert_eq!(d.into_object().type_key(), "Dict");
    /// ```
    pub fn into_object(self) -> ObjectRef<Object> {
        self.obj.into_object()
    }
    /// Borrowed as "any object".
    ///
    /// ```
    /// let d = xffi::Dict::<i64, i64>::new().unwrap();
    /// assert_eq!(d.as_object().type_key(), "Dict");
    /// ```
    pub fn as_object(&self) -> &ObjectRef<Object> {
        self.obj.as_object()
    }
    /// The Dict object (borrowed).
    ///
    /// ```
    /// let d = xffi::Dict::<i64, i64>::new().unwrap();
    /// assert_eq!(unsafe { (*d.as_ptr()).type_index }, xffi::sys::XFFI_TYPE_DICT);
    /// ```
    pub fn as_ptr(&self) -> *mut sys::xffi_object {
        self.obj.as_ptr()
    }
}

impl<K: Element + fmt::Debug, V: Element + fmt::Debug> fmt::Debug for Dict<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_vec() {
            Ok(v) => f.debug_map().entries(v).finish(),
            Err(e) => write!(f, "Dict(<{e}>)"),
        }
    }
}
impl<K: Element, V: Element> From<Dict<K, V>> for Any {
    fn from(d: Dict<K, V>) -> Any {
        Any::from(d.obj)
    }
}
impl<'v, K: Element, V: Element> FromAnyView<'v> for Dict<K, V> {
    /// Accepts a Dict (entries are checked when read).
    fn from_view(v: &'v AnyView<'_>) -> Result<Dict<K, V>> {
        Ok(Dict { obj: ObjectRef::<DictObj>::from_view(v)?, _marker: PhantomData })
    }
}
