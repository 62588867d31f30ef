//! Structural equality and hashing: tvm-ffi's `StructuralEqual`,
//! `StructuralHash` and `GetFirstStructuralMismatch` for any value, over the
//! C functions of `xffi/structural.h`.
//!
//! Every function takes its values borrowed, as anything [`KeyView`] covers:
//! [`Any`], [`AnyView`](crate::AnyView), `ObjectRef<T>`, the containers, `str`, numbers.
//! Errors raised by C come back as [`Error`] with the C message.
//!
//! [`Structural<T>`] makes a value usable as a `HashMap` key by its
//! structure, e.g. a compiler caching kernels by structurally equal
//! configurations:
//!
//! ```
//! use std::collections::HashMap;
//! use xffi::{Any, Map, Structural};
//!
//! fn config(tile: i64, dtype: &str) -> Map<Any, Any> {
//!     [(Any::from("tile"), Any::from(tile)), (Any::from("dtype"), Any::from(dtype))].into_iter().collect()
//! }
//! let mut kernels: HashMap<Structural<Map<Any, Any>>, &str> = HashMap::new();
//! kernels.insert(Structural::new(config(32, "float32")).unwrap(), "kernel_a");
//! // Another object with the same structure finds the cached kernel.
//! let probe = Structural::new(config(32, "float32")).unwrap();
//! assert_eq!(kernels.get(&probe), Some(&"kernel_a"));
//! assert!(kernels.get(&Structural::new(config(64, "float32")).unwrap()).is_none());
//! ```

use std::fmt;
use std::hash::{Hash, Hasher};

use xffi_sys as sys;

use crate::any::Any;
use crate::error::{Error, Result, check};
use crate::key::{KeyView, with_two_views, with_view};
use crate::repr::repr;

// Deep copy and JSON have modules of their own; they are re-exported here
// too, so paths such as `xffi::structural::to_json` work.
pub use crate::deep_copy::deep_copy;
pub use crate::json::{
    from_json, from_json_str, json_parse, json_parse_bytes, json_stringify, to_json, to_json_string,
};

/// Options of the structural functions (tvm-ffi's `map_free_vars` and
/// `skip_tensor_content` arguments). `Default` is both off.
///
/// ```
/// use xffi::{Array, StructuralOptions};
/// let options = StructuralOptions { map_free_vars: true, ..Default::default() };
/// assert!(!options.skip_tensor_content);
/// let a: Array<i64> = vec![1, 2].into_iter().collect();
/// assert!(xffi::structural::structural_equal_with(&a, &a.clone(), options).unwrap());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StructuralOptions {
    /// Free variables may map to each other anywhere, not only inside a
    /// definition region.
    pub map_free_vars: bool,
    /// Tensors compare and hash by shape and dtype only, not by content.
    pub skip_tensor_content: bool,
}

impl StructuralOptions {
    fn bits(self) -> i32 {
        let mut bits = 0u32;
        if self.map_free_vars {
            bits |= sys::XFFI_STRUCTURAL_MAP_FREE_VARS;
        }
        if self.skip_tensor_content {
            bits |= sys::XFFI_STRUCTURAL_SKIP_TENSOR_CONTENT;
        }
        bits as i32
    }
}

/// Whether `lhs` and `rhs` (borrowed) are structurally equal, as tvm-ffi's
/// `structural_equal` says (default options). Errors: TypeError for an
/// object whose type has no structural kind; what a `__s_equal__` hook raises.
///
/// ```
/// use xffi::{Any, Array};
/// let a: Array<Any> = vec![Any::from(1i64), Any::from("x")].into_iter().collect();
/// let b: Array<Any> = vec![Any::from(1i64), Any::from("x")].into_iter().collect();
/// assert!(xffi::structural_equal(&a, &b).unwrap());
/// assert!(!xffi::structural_equal(&a, &Any::from(1i64)).unwrap());
/// ```
pub fn structural_equal<A, B>(lhs: &A, rhs: &B) -> Result<bool>
where
    A: KeyView + ?Sized,
    B: KeyView + ?Sized,
{
    structural_equal_with(lhs, rhs, StructuralOptions::default())
}

/// [`structural_equal`] with explicit options.
///
/// ```
/// use xffi::{Array, StructuralOptions};
/// use xffi::structural::structural_equal_with;
/// let a: Array<f64> = vec![1.0, 2.0].into_iter().collect();
/// let b: Array<f64> = vec![1.0, 2.5].into_iter().collect();
/// let options = StructuralOptions { skip_tensor_content: true, ..Default::default() };
/// assert!(structural_equal_with(&a, &a.clone(), options).unwrap());
/// assert!(!structural_equal_with(&a, &b, options).unwrap());
/// ```
pub fn structural_equal_with<A, B>(lhs: &A, rhs: &B, options: StructuralOptions) -> Result<bool>
where
    A: KeyView + ?Sized,
    B: KeyView + ?Sized,
{
    with_two_views(lhs, rhs, |l, r| {
        let mut out = 0;
        // SAFETY: both views are valid for the call; `out` is a valid slot.
        check(unsafe { sys::xffi_structural_equal(&mut out, l.as_raw(), r.as_raw(), options.bits()) })?;
        Ok(out != 0)
    })
}

/// The structural hash of `value` (borrowed): the number tvm-ffi's Python
/// `structural_hash` gives for the same value (its 64 bits, unsigned), so
/// caches keyed by it can be shared across runtimes. Structurally equal
/// values hash alike. Errors: as [`structural_equal`], and what a
/// `__s_hash__` hook raises.
///
/// ```
/// use xffi::Any;
/// let h1 = xffi::structural_hash(&Any::from("a longer string value")).unwrap();
/// let h2 = xffi::structural_hash("a longer string value").unwrap();
/// assert_eq!(h1, h2);
/// ```
pub fn structural_hash<V: KeyView + ?Sized>(value: &V) -> Result<u64> {
    structural_hash_with(value, StructuralOptions::default())
}

/// [`structural_hash`] with explicit options.
///
/// ```
/// use xffi::{Array, StructuralOptions};
/// use xffi::structural::structural_hash_with;
/// let a: Array<i64> = vec![1, 2].into_iter().collect();
/// let options = StructuralOptions { map_free_vars: true, ..Default::default() };
/// let h = structural_hash_with(&a, options).unwrap();
/// assert_eq!(h, structural_hash_with(&a.clone(), options).unwrap());
/// ```
pub fn structural_hash_with<V: KeyView + ?Sized>(value: &V, options: StructuralOptions) -> Result<u64> {
    with_view(value, |v| {
        let mut out = 0i64;
        // SAFETY: the view is valid for the call; `out` is a valid slot.
        check(unsafe { sys::xffi_structural_hash(&mut out, v.as_raw(), options.bits()) })?;
        // tvm-ffi's Python masks the signed C number to 64 unsigned bits.
        Ok(out as u64)
    })
}

/// Where two values first differ: an `ffi.reflection.AccessPath` on each
/// side (owned), and their text (`<root>[1]["key"].field`).
///
/// ```
/// use xffi::{Any, Map};
/// let a: Map<Any, Any> = [(Any::from("k"), Any::from(1i64))].into_iter().collect();
/// let b: Map<Any, Any> = [(Any::from("k"), Any::from(2i64))].into_iter().collect();
/// let m: xffi::Mismatch = xffi::first_mismatch(&a, &b).unwrap().unwrap();
/// assert_eq!(m.lhs(), m.rhs());
/// assert!(!m.lhs_path.is_none());
/// ```
#[derive(Clone)]
pub struct Mismatch {
    /// The path into the left value (an `ffi.reflection.AccessPath`).
    pub lhs_path: Any,
    /// The path into the right value.
    pub rhs_path: Any,
    lhs_text: std::string::String,
    rhs_text: std::string::String,
}

impl Mismatch {
    /// The left path as text, e.g. `<root>[1]`.
    ///
    /// ```
    /// use xffi::Array;
    /// let a: Array<i64> = vec![1, 2].into_iter().collect();
    /// let b: Array<i64> = vec![1, 3].into_iter().collect();
    /// assert_eq!(xffi::first_mismatch(&a, &b).unwrap().unwrap().lhs(), "<root>[1]");
    /// ```
    pub fn lhs(&self) -> &str {
        &self.lhs_text
    }
    /// The right path as text.
    ///
    /// ```
    /// use xffi::Array;
    /// let a: Array<i64> = vec![1, 2].into_iter().collect();
    /// let b: Array<i64> = vec![7, 2].into_iter().collect();
    /// assert_eq!(xffi::first_mismatch(&a, &b).unwrap().unwrap().rhs(), "<root>[0]");
    /// ```
    pub fn rhs(&self) -> &str {
        &self.rhs_text
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} vs {}", self.lhs_text, self.rhs_text)
    }
}

impl fmt::Debug for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mismatch").field("lhs", &self.lhs_text).field("rhs", &self.rhs_text).finish()
    }
}

/// `None` when `lhs` and `rhs` (borrowed) are structurally equal, else the
/// paths to the first difference (tvm-ffi's `get_first_structural_mismatch`;
/// a missing element or key is an `*_missing` step on the side that lacks
/// it). Errors: as [`structural_equal`].
///
/// ```
/// use xffi::Array;
/// let a: Array<i64> = vec![1, 2, 3].into_iter().collect();
/// let b: Array<i64> = vec![1, 5, 3].into_iter().collect();
/// let m = xffi::first_mismatch(&a, &b).unwrap().unwrap();
/// assert_eq!(m.to_string(), "<root>[1] vs <root>[1]");
/// assert!(xffi::first_mismatch(&a, &a.clone()).unwrap().is_none());
/// ```
pub fn first_mismatch<A, B>(lhs: &A, rhs: &B) -> Result<Option<Mismatch>>
where
    A: KeyView + ?Sized,
    B: KeyView + ?Sized,
{
    first_mismatch_with(lhs, rhs, StructuralOptions::default())
}

/// [`first_mismatch`] with explicit options.
///
/// ```
/// use xffi::{Array, StructuralOptions};
/// use xffi::structural::first_mismatch_with;
/// let a: Array<i64> = vec![1, 2].into_iter().collect();
/// let b: Array<i64> = vec![1, 2, 3].into_iter().collect();
/// let options = StructuralOptions::default();
/// assert!(first_mismatch_with(&a, &b, options).unwrap().is_some());
/// assert!(first_mismatch_with(&a, &a.clone(), options).unwrap().is_none());
/// ```
pub fn first_mismatch_with<A, B>(lhs: &A, rhs: &B, options: StructuralOptions) -> Result<Option<Mismatch>>
where
    A: KeyView + ?Sized,
    B: KeyView + ?Sized,
{
    let pair = with_two_views(lhs, rhs, |l, r| {
        let mut out = sys::xffi_any::none();
        // SAFETY: both views are valid for the call; `out` receives an owned value.
        check(unsafe { sys::xffi_structural_first_mismatch(&mut out, l.as_raw(), r.as_raw(), options.bits()) })?;
        // SAFETY: an owned value, taken once.
        Ok(unsafe { Any::from_raw(out) })
    })?;
    if pair.is_none() {
        return Ok(None);
    }
    let paths: crate::Array<Any> = pair.get()?;
    let (Some(lhs_path), Some(rhs_path)) = (paths.get(0)?, paths.get(1)?) else {
        return Err(Error::runtime_error("xffi_structural_first_mismatch: expected a pair of paths"));
    };
    let lhs_text = repr(&lhs_path.view())?;
    let rhs_text = repr(&rhs_path.view())?;
    Ok(Some(Mismatch { lhs_path, rhs_path, lhs_text, rhs_text }))
}

/// A value compared and hashed by structure, so it can key a `HashMap` or
/// `HashSet` (see the [module docs](self)). The hash is computed once, by
/// [`Structural::new`], which fails for a value that has no structural
/// hash; `Eq` holds when the hashes match and [`structural_equal`] says
/// equal (a comparison that raises, e.g. in a `__s_equal__` hook, counts as
/// unequal), so `Eq` and `Hash` always agree, even for the few values
/// tvm-ffi hashes apart though they compare equal (small bytes, which hash
/// by their payload, against a Bytes object).
///
/// The value should not change while it keys a map: a List or Dict inside
/// it that is mutated leaves the cached hash stale, as for any `HashMap` key.
///
/// ```
/// use std::collections::HashSet;
/// use xffi::{Array, Structural};
/// let mut seen = HashSet::new();
/// let a: Array<i64> = vec![1, 2].into_iter().collect();
/// assert!(seen.insert(Structural::new(a.clone()).unwrap()));
/// // A distinct object with the same structure is already there.
/// assert!(!seen.insert(Structural::new(vec![1i64, 2].into_iter().collect::<Array<i64>>()).unwrap()));
/// ```
#[derive(Clone)]
pub struct Structural<T: KeyView> {
    value: T,
    hash: u64,
}

impl<T: KeyView> Structural<T> {
    /// Wraps `value` (moved in), computing its structural hash. Errors: as
    /// [`structural_hash`].
    ///
    /// ```
    /// use xffi::{Array, Structural};
    /// let a: Array<i64> = vec![1, 2].into_iter().collect();
    /// let key = Structural::new(a).unwrap();
    /// assert_eq!(key.get().len(), 2);
    /// ```
    pub fn new(value: T) -> Result<Self> {
        let hash = structural_hash(&value)?;
        Ok(Structural { value, hash })
    }
    /// The value (borrowed).
    ///
    /// ```
    /// use xffi::{Array, Structural};
    /// let key = Structural::new(vec![4i64, 5].into_iter().collect::<Array<i64>>()).unwrap();
    /// assert_eq!(key.get().get(1).unwrap(), Some(5));
    /// ```
    pub fn get(&self) -> &T {
        &self.value
    }
    /// The value, unwrapped.
    ///
    /// ```
    /// use xffi::{Array, Structural};
    /// let a: Array<i64> = vec![4, 5].into_iter().collect();
    /// let back: Array<i64> = Structural::new(a.clone()).unwrap().into_inner();
    /// assert_eq!(back.get(0).unwrap(), Some(4));
    /// ```
    pub fn into_inner(self) -> T {
        self.value
    }
    /// The structural hash computed by [`Structural::new`].
    ///
    /// ```
    /// use xffi::{Array, Structural};
    /// let a: Array<i64> = vec![4, 5].into_iter().collect();
    /// let key = Structural::new(a.clone()).unwrap();
    /// assert_eq!(key.structural_hash(), xffi::structural_hash(&a).unwrap());
    /// ```
    pub fn structural_hash(&self) -> u64 {
        self.hash
    }
}

impl<T: KeyView> PartialEq for Structural<T> {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && structural_equal(&self.value, &other.value).unwrap_or(false)
    }
}

impl<T: KeyView> Eq for Structural<T> {}

impl<T: KeyView> Hash for Structural<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl<T: KeyView + fmt::Debug> fmt::Debug for Structural<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Structural").field(&self.value).finish()
    }
}
