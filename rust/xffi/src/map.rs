//! [`Map<K, V>`] (immutable, copy-on-write) and [`Dict<K, V>`] (shared,
//! mutable): insertion-ordered hash maps from xffi values to xffi values,
//! and the reads they share (through `Access`).

use std::fmt;
use std::ptr;

use xffi_sys as sys;

use crate::any::{Any, AnyView, FromAnyView};
use crate::array::{Access, Element, lock_for};
use crate::error::{Result, check};
use crate::key::{BorrowKey, KeyView};
use crate::object::ObjectRef;
use crate::wrapper::{new_object, replace_object, wrapper};

fn pairs<K: Element, V: Element>(iter: impl IntoIterator<Item = (K, V)>) -> (Vec<Any>, Vec<Any>) {
    iter.into_iter().map(|(k, v)| (k.into(), v.into())).unzip()
}

/// The entry at `*cursor` of a live Map or Dict (borrowed views, valid until
/// it changes), advancing the cursor; None after the last.
///
/// # Safety
/// `obj` must be a live Map or Dict that nobody changes while the views are
/// used (immutable, or under its lock).
unsafe fn next_entry<'m>(obj: *mut sys::xffi_object, cursor: &mut i64) -> Result<Option<(AnyView<'m>, AnyView<'m>)>> {
    let mut item = sys::xffi_map_item { key: ptr::null(), value: ptr::null() };
    // SAFETY: a live Map or Dict; valid out slot and cursor.
    check(unsafe { sys::xffi_map_next(&mut item, obj, cursor) })?;
    if item.key.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's contract: the entry stays unchanged while used.
    Ok(Some(unsafe { (AnyView::from_raw(*item.key), AnyView::from_raw(*item.value)) }))
}

/// Entries as owned copies, in insertion order (the caller holds any lock
/// needed). Errors: what copying an entry raises.
fn snapshot(obj: *mut sys::xffi_object) -> Result<Vec<(Any, Any)>> {
    let mut out = Vec::new();
    let mut cursor = 0i64;
    // SAFETY: a live Map or Dict, unchanged while the caller holds its lock
    // (or it is immutable); each entry is copied before the next call.
    while let Some((k, v)) = unsafe { next_entry(obj, &mut cursor) }? {
        out.push((k.to_owned_any()?, v.to_owned_any()?));
    }
    Ok(out)
}

/// The number of entries of a Map or Dict.
fn map_len(obj: *mut sys::xffi_object, access: Access) -> usize {
    let _g = access.guard(obj);
    let mut n = 0;
    // SAFETY: a live Map or Dict, immutable or locked. It fails only for a
    // NULL or non-map argument, which the handle's type rules out.
    let status = unsafe { sys::xffi_map_length(&mut n, obj) };
    debug_assert_eq!(status, sys::XFFI_OK);
    n as usize
}

/// The value under `key`, copied (under the lock when `access` says so) and
/// then converted. Errors: the key's (see [`KeyView`]), the lookup's
/// (TypeError for a key kind maps cannot hold), the conversion's.
fn map_get<V: Element, Q: KeyView + ?Sized>(obj: *mut sys::xffi_object, access: Access, key: &Q) -> Result<Option<V>> {
    let found = key.with_key_view(|k| {
        let _g = access.guard(obj);
        let mut out: *const sys::xffi_any = ptr::null();
        // SAFETY: a live Map or Dict, immutable or locked; a valid key view.
        check(unsafe { sys::xffi_map_lookup(&mut out, obj, k.as_raw()) })?;
        if out.is_null() {
            return Ok(None);
        }
        // SAFETY: a borrowed value, copied before anything can change it.
        unsafe { AnyView::from_raw(*out) }.to_owned_any().map(Some)
    })??;
    found.map(|v| v.get::<V>()).transpose()
}

/// Whether `key` is present. Errors: as [`map_get`]'s key and lookup.
fn map_contains<Q: KeyView + ?Sized>(obj: *mut sys::xffi_object, access: Access, key: &Q) -> Result<bool> {
    key.with_key_view(|k| {
        let _g = access.guard(obj);
        let mut out = 0;
        // SAFETY: a live Map or Dict, immutable or locked; a valid key view.
        check(unsafe { sys::xffi_map_contains(&mut out, obj, k.as_raw()) }).map(|()| out != 0)
    })?
}

fn convert_pair<K: Element, V: Element>(k: &AnyView<'_>, v: &AnyView<'_>) -> Result<(K, V)> {
    let key = k.get::<K>().map_err(|e| e.context("key"))?;
    let value = v.get::<V>().map_err(|e| e.context(&format!("value of key {k:?}")))?;
    Ok((key, value))
}

wrapper! {
    /// An immutable map from `K` to `V` (an xffi Map, type index 72), in
    /// insertion order. Changing methods take `&mut self` and are copy-on-write,
    /// so other holders never see a change. Converting a value into a
    /// `Map<K, V>` checks every entry once, so a read fails only where making
    /// a `K` or `V` needs memory (an [`crate::String`] from a short string).
    ///
    /// Keys: strings by content, ints/bools/floats as distinct kinds (floats
    /// by their bits: `0.0` and `-0.0` are two keys), other objects by
    /// identity, as tvm-ffi compares them (see `xffi/map.h`). Setting an
    /// existing key of a map of more than 4 entries moves it to the end of
    /// the order, as tvm-ffi's Map does. Lookups take a borrowed key,
    /// `&Q` where `K: BorrowKey<Q>` (as `K: Borrow<Q>` for `std`'s maps; an
    /// [`crate::String`] key is looked up by `&str`; see [`KeyView`]), and report errors rather
    /// than "absent".
    ///
    /// `Send`/`Sync` when `K` and `V` are.
    ///
    /// ```
    /// use xffi::Map;
    /// let mut m: Map<String, i64> = [("one".to_string(), 1), ("two".to_string(), 2)].into_iter().collect();
    /// m.insert("three".to_string(), 3).unwrap();
    /// assert_eq!(m.get("two").unwrap(), Some(2));
    /// assert_eq!(m.get("four").unwrap(), None);
    /// assert_eq!(m.keys().collect::<xffi::Result<Vec<_>>>().unwrap(), vec!["one", "two", "three"]);
    /// ```
    pub struct Map<K, V>(MapObj);
    /// Payload marker of Map objects (type index 72).
    #[derive(Debug)]
    pub struct MapObj { _private: [u8; 0] }
    type_key = "ffi.Map", type_index = sys::XFFI_TYPE_MAP;
    shared_because = "immutable while shared (changes are copy-on-write)";
    example = "xffi::Map::<i64, i64>::new().unwrap()";
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
        // SAFETY: parallel arrays of valid views (Any and xffi_any share a
        // layout); xffi_map_new writes a new Map reference.
        let obj = unsafe {
            new_object(|out| sys::xffi_map_new(out, keys.as_ptr().cast(), values.as_ptr().cast(), keys.len() as i64))
        }?;
        Ok(Map::from_checked(obj))
    }

    /// The number of entries.
    ///
    /// ```
    /// let m: xffi::Map<i64, i64> = [(1, 1), (2, 4)].into_iter().collect();
    /// assert_eq!(m.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        map_len(self.obj.as_ptr(), Access::Direct)
    }

    /// Whether the map is empty.
    ///
    /// ```
    /// assert!(xffi::Map::<i64, i64>::new().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value under `key` (a new value), or `Ok(None)` if absent: the
    /// same as [`Dict::get`]. Errors: TypeError for a key kind maps cannot
    /// hold; MemoryError.
    ///
    /// ```
    /// let m: xffi::Map<String, i64> = [("a".to_string(), 1)].into_iter().collect();
    /// assert_eq!(m.get("a").unwrap(), Some(1));
    /// assert_eq!(m.get("b").unwrap(), None);
    /// ```
    pub fn get<Q: KeyView + ?Sized>(&self, key: &Q) -> Result<Option<V>>
    where
        K: BorrowKey<Q>,
    {
        map_get(self.obj.as_ptr(), Access::Direct, key)
    }

    /// Whether `key` is present. Errors: as [`Map::get`].
    ///
    /// ```
    /// let m: xffi::Map<i64, bool> = [(1, true)].into_iter().collect();
    /// assert!(m.contains_key(&1).unwrap());
    /// assert!(!m.contains_key(&2).unwrap());
    /// ```
    pub fn contains_key<Q: KeyView + ?Sized>(&self, key: &Q) -> Result<bool>
    where
        K: BorrowKey<Q>,
    {
        map_contains(self.obj.as_ptr(), Access::Direct, key)
    }

    /// Iterates the entries in insertion order, each converted when reached
    /// (no copy of the map is made; it cannot change while borrowed). An
    /// item is `Err` where making the `K` or `V` fails (MemoryError), and
    /// the iteration ends after it; `collect::<Result<Vec<_>>>()` gives all
    /// or the first error.
    ///
    /// ```
    /// let m: xffi::Map<String, f64> = [("a".to_string(), 0.5)].into_iter().collect();
    /// for entry in m.iter() {
    ///     let (k, v) = entry.unwrap();
    ///     assert_eq!((k.as_str(), v), ("a", 0.5));
    /// }
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = Result<(K, V)>> + '_ {
        let obj = self.obj.as_ptr();
        let mut cursor = 0i64;
        let mut failed = false;
        std::iter::from_fn(move || {
            if failed {
                return None;
            }
            // SAFETY: a live Map, unchanged while `self` is borrowed (changes
            // need &mut self); the views are converted before the next call.
            let entry = unsafe { next_entry(obj, &mut cursor) }.transpose()?;
            let item = entry.and_then(|(k, v)| convert_pair(&k, &v));
            failed = item.is_err();
            Some(item)
        })
    }

    /// Iterates the keys in insertion order (items as [`Map::iter`]'s).
    ///
    /// ```
    /// let m: xffi::Map<i64, bool> = [(3, true), (1, false)].into_iter().collect();
    /// assert_eq!(m.keys().collect::<xffi::Result<Vec<_>>>().unwrap(), vec![3, 1]);
    /// ```
    pub fn keys(&self) -> impl Iterator<Item = Result<K>> + '_ {
        self.iter().map(|e| e.map(|(k, _)| k))
    }

    /// Iterates the values in insertion order (items as [`Map::iter`]'s).
    ///
    /// ```
    /// let m: xffi::Map<i64, bool> = [(3, true), (1, false)].into_iter().collect();
    /// assert_eq!(m.values().collect::<xffi::Result<Vec<_>>>().unwrap(), vec![true, false]);
    /// ```
    pub fn values(&self) -> impl Iterator<Item = Result<V>> + '_ {
        self.iter().map(|e| e.map(|(_, v)| v))
    }

    /// Runs a copy-on-write C change on the map.
    fn change(&mut self, f: impl FnOnce(*mut *mut sys::xffi_object) -> i32) -> Result<()> {
        // SAFETY: every caller passes an xffi_map_* change, which leaves the
        // same Map or, having released it, a new Map reference.
        unsafe { replace_object(&mut self.obj, f) }
    }

    /// Sets `key` to `value` (copy-on-write). Errors: MemoryError; ValueError
    /// when too many keys collide (hash flooding, see `xffi/map.h`).
    ///
    /// ```
    /// let mut m = xffi::Map::<String, i64>::new().unwrap();
    /// let before = m.clone();
    /// m.insert("k".into(), 1).unwrap();
    /// assert_eq!((m.len(), before.len()), (1, 0));
    /// ```
    pub fn insert(&mut self, key: K, value: V) -> Result<()> {
        let (k, v): (Any, Any) = (key.into(), value.into());
        // SAFETY: a valid in/out reference and views.
        self.change(|m| unsafe { sys::xffi_map_set(m, k.as_raw(), v.as_raw()) })
    }

    /// Removes `key` (copy-on-write). Errors: KeyError if absent; as [`Map::get`].
    ///
    /// ```
    /// let mut m: xffi::Map<i64, i64> = [(1, 2)].into_iter().collect();
    /// m.remove(&1).unwrap();
    /// assert_eq!(m.remove(&1).unwrap_err().kind(), xffi::ErrorKind::KeyError);
    /// ```
    pub fn remove<Q: KeyView + ?Sized>(&mut self, key: &Q) -> Result<()>
    where
        K: BorrowKey<Q>,
    {
        // SAFETY: as insert.
        key.with_key_view(|k| self.change(|m| unsafe { sys::xffi_map_erase(m, k.as_raw()) }))?
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
        match self.iter().collect::<Result<Vec<_>>>() {
            Ok(v) => f.debug_map().entries(v).finish(),
            Err(e) => write!(f, "Map(<{e}>)"),
        }
    }
}
/// Equal entries in the same order; panics only if memory runs out making them.
impl<K: Element + PartialEq, V: Element + PartialEq> PartialEq for Map<K, V> {
    fn eq(&self, other: &Self) -> bool {
        let entries = |m: &Self| m.iter().map(|e| e.unwrap_or_else(|e| panic!("xffi: {e}"))).collect::<Vec<_>>();
        self.len() == other.len() && entries(self) == entries(other)
    }
}
impl<'v, K: Element, V: Element> FromAnyView<'v> for Map<K, V> {
    /// Accepts a Map whose every entry converts to `(K, V)`.
    fn from_view(v: &'v AnyView<'_>) -> Result<Map<K, V>> {
        let m = Map::from_checked(ObjectRef::<MapObj>::from_view(v)?);
        for entry in m.iter() {
            entry?;
        }
        Ok(m)
    }
}

wrapper! {
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
    /// assert_eq!(alias.get("a").unwrap(), Some(1));
    /// assert_eq!(alias.pop("a").unwrap(), 1);
    /// assert!(d.is_empty());
    /// ```
    pub struct Dict<K, V>(DictObj);
    /// Payload marker of Dict objects (type index 76). Rust serialises its
    /// accesses with a lock (see [`crate::List`]).
    #[derive(Debug)]
    pub struct DictObj { _private: [u8; 0] }
    type_key = "ffi.Dict", type_index = sys::XFFI_TYPE_DICT;
    shared_because = "this crate serialises every access from Rust under the Dict's lock";
    example = "xffi::Dict::<i64, i64>::new().unwrap()";
}

impl<K: Element, V: Element> Dict<K, V> {
    /// An empty Dict. Errors: MemoryError.
    ///
    /// ```
    /// let d = xffi::Dict::<i64, i64>::new().unwrap();
    /// assert!(d.is_empty());
    /// ```
    pub fn new() -> Result<Self> {
        // SAFETY: xffi_dict_new writes a new Dict reference.
        let obj = unsafe { new_object(|out| sys::xffi_dict_new(out, core::ptr::null(), core::ptr::null(), 0)) }?;
        Ok(Dict::from_checked(obj))
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
        map_len(self.raw(), Access::Locked)
    }

    /// Whether the dict is empty (a snapshot).
    ///
    /// ```
    /// assert!(xffi::Dict::<i64, i64>::new().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value under `key` (a copy), or `Ok(None)` if absent: the same as
    /// [`Map::get`]. Errors: TypeError if the stored value is not a `V`, or
    /// for a key kind maps cannot hold; MemoryError.
    ///
    /// ```
    /// let d = xffi::Dict::<String, f64>::new().unwrap();
    /// d.insert("x".into(), 0.5).unwrap();
    /// assert_eq!(d.get("x").unwrap(), Some(0.5));
    /// assert_eq!(d.get("y").unwrap(), None);
    /// ```
    pub fn get<Q: KeyView + ?Sized>(&self, key: &Q) -> Result<Option<V>>
    where
        K: BorrowKey<Q>,
    {
        map_get(self.raw(), Access::Locked, key)
    }

    /// Whether `key` is present (a snapshot). Errors: as [`Dict::get`]'s key.
    ///
    /// ```
    /// let d = xffi::Dict::<i64, i64>::new().unwrap();
    /// d.insert(1, 10).unwrap();
    /// assert!(d.contains_key(&1).unwrap());
    /// assert!(!d.contains_key(&2).unwrap());
    /// ```
    pub fn contains_key<Q: KeyView + ?Sized>(&self, key: &Q) -> Result<bool>
    where
        K: BorrowKey<Q>,
    {
        map_contains(self.raw(), Access::Locked, key)
    }

    /// Sets `key` to `value`. Errors: MemoryError; ValueError when too many
    /// keys collide (hash flooding, see `xffi/map.h`).
    ///
    /// ```
    /// let d = xffi::Dict::<i64, String>::new().unwrap();
    /// d.insert(1, "one".into()).unwrap();
    /// d.insert(1, "uno".into()).unwrap();
    /// assert_eq!(d.get(&1).unwrap().as_deref(), Some("uno"));
    /// ```
    pub fn insert(&self, key: K, value: V) -> Result<()> {
        let (k, v): (Any, Any) = (key.into(), value.into());
        let _old; // a replaced value is dropped after the lock is released
        let _g = lock_for(self.raw());
        _old = map_get::<Any, Any>(self.raw(), Access::Direct, &k)?;
        // SAFETY: a live Dict, under the lock.
        check(unsafe { sys::xffi_dict_set(self.raw(), k.as_raw(), v.as_raw()) })
    }

    /// Removes `key` and returns its value. Errors: KeyError if absent;
    /// TypeError if the value is not a `V` (it is removed all the same).
    ///
    /// ```
    /// let d = xffi::Dict::<i64, i64>::new().unwrap();
    /// d.insert(1, 10).unwrap();
    /// assert_eq!(d.pop(&1).unwrap(), 10);
    /// assert_eq!(d.pop(&1).unwrap_err().kind(), xffi::ErrorKind::KeyError);
    /// ```
    pub fn pop<Q: KeyView + ?Sized>(&self, key: &Q) -> Result<V>
    where
        K: BorrowKey<Q>,
    {
        let mut out = sys::xffi_any::none();
        key.with_key_view(|k| {
            let _g = lock_for(self.raw());
            // SAFETY: a live Dict, under the lock; a valid key view.
            check(unsafe { sys::xffi_dict_pop(&mut out, self.raw(), k.as_raw()) })
        })??;
        // SAFETY: xffi_dict_pop wrote an owned value.
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
        entries.iter().map(|(k, v)| convert_pair(&k.view(), &v.view())).collect()
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
impl<'v, K: Element, V: Element> FromAnyView<'v> for Dict<K, V> {
    /// Accepts a Dict (entries are checked when read).
    fn from_view(v: &'v AnyView<'_>) -> Result<Dict<K, V>> {
        Ok(Dict::from_checked(ObjectRef::<DictObj>::from_view(v)?))
    }
}
