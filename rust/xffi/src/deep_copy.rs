//! Deep copy: tvm-ffi's `DeepCopy` of any value, over `xffi_deep_copy` of
//! `xffi/recursive.h`.

use xffi_sys as sys;

use crate::any::Any;
use crate::error::{Result, check};
use crate::key::{KeyView, with_view};

/// A deep copy of `value` (borrowed; tvm-ffi's `DeepCopy`): containers and
/// copyable reflected objects are copied, sharing and cycles kept; strings,
/// bytes and plain values are returned as they are. Errors: TypeError for
/// an object that cannot be copied (a Function, a Tensor, a type without
/// `__ffi_shallow_copy__`).
///
/// ```
/// use xffi::{Any, List};
/// let l: List<i64> = List::from_vec(vec![1, 2]).unwrap();
/// let copy: List<i64> = xffi::deep_copy(&l).unwrap().get().unwrap();
/// copy.push(3).unwrap();
/// assert_eq!((l.len(), copy.len()), (2, 3));
/// ```
pub fn deep_copy<V: KeyView + ?Sized>(value: &V) -> Result<Any> {
    with_view(value, |v| {
        let mut out = sys::xffi_any::none();
        // SAFETY: the view is valid for the call; `out` receives an owned value.
        check(unsafe { sys::xffi_deep_copy(&mut out, v.as_raw()) })?;
        // SAFETY: an owned value, taken once.
        Ok(unsafe { Any::from_raw(out) })
    })
}
