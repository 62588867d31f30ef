//! Safe structural visitors and mappers over Rust closures: [`walk`] calls a
//! closure at every value of a tree of containers and reflected objects
//! (tvm-ffi's `StructuralWalk`, `xffi_structural_walk`), and [`map`]
//! replaces values, rebuilding only what changed (`StructuralMap`,
//! `xffi_structural_map`). The descent is C's: bounded stack at any depth.
//!
//! A closure's error comes back as the function's error (the same object);
//! a panic in it is caught at the C boundary and comes back as a
//! RuntimeError `"...: Rust panic: <message>"` — it never unwinds through C.
//!
//! ```
//! use xffi::structural_visit::{Order, WalkAction, walk};
//! use xffi::{Any, List};
//! let l: List<i64> = List::from_vec(vec![1, 2, 3]).unwrap();
//! let mut ints = 0;
//! let stopped = walk(&l, Order::Pre, |v| {
//!     ints += v.get::<i64>().is_ok() as i64;
//!     Ok(WalkAction::Advance)
//! })
//! .unwrap();
//! assert_eq!((ints, stopped.is_none()), (3, true));
//! ```

use std::ffi::{c_int, c_void};

use xffi_sys as sys;

use crate::any::{Any, AnyView};
use crate::error::{Result, check};
use crate::key::KeyView;
use crate::key::with_view;

/// When the closure sees a value: before its children or after them.
///
/// ```
/// use xffi::structural_visit::{Order, WalkAction, walk};
/// use xffi::List;
/// let l: List<i64> = List::from_vec(vec![1, 2]).unwrap();
/// // Each order, whether every value seen is an int (the List is not).
/// let seen = |order| {
///     let mut ints = Vec::new();
///     walk(&l, order, |v| {
///         ints.push(v.get::<i64>().is_ok());
///         Ok(WalkAction::Advance)
///     })
///     .unwrap();
///     ints
/// };
/// assert_eq!(seen(Order::Pre), [false, true, true]);
/// assert_eq!(seen(Order::Post), [true, true, false]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Before the value's children (parents first).
    Pre,
    /// After the value's children (leaves first).
    Post,
}

impl Order {
    fn raw(self) -> i32 {
        match self {
            Order::Pre => sys::XFFI_STRUCTURAL_PREORDER as i32,
            Order::Post => sys::XFFI_STRUCTURAL_POSTORDER as i32,
        }
    }
}

/// What a [`walk`] closure asks for after seeing a value.
///
/// ```
/// use xffi::structural_visit::{Order, WalkAction, walk};
/// use xffi::{Any, List};
/// let l: List<i64> = List::from_vec(vec![1, 7, 3]).unwrap();
/// // Stops at the first int above 5 and hands it back.
/// let found = walk(&l, Order::Pre, |v| match v.get::<i64>() {
///     Ok(n) if n > 5 => Ok(WalkAction::Stop(Any::from(n))),
///     _ => Ok(WalkAction::Advance),
/// })
/// .unwrap();
/// assert_eq!(found.unwrap().get::<i64>().unwrap(), 7);
/// // Skip at the root: its children are not seen.
/// let mut count = 0;
/// walk(&l, Order::Pre, |_| {
///     count += 1;
///     Ok(WalkAction::Skip)
/// })
/// .unwrap();
/// assert_eq!(count, 1);
/// ```
#[derive(Debug)]
pub enum WalkAction {
    /// Go on (into the value's children in pre-order).
    Advance,
    /// Leave the value's children out (pre-order only; post-order: the
    /// children were already seen, so it is the same as `Advance`).
    Skip,
    /// Stop the walk: [`walk`] returns `Some(payload)`.
    Stop(Any),
}

/// The closure and what it needs, behind the C callback's `resource`.
struct WalkState<F> {
    f: F,
}

unsafe extern "C" fn walk_callback<F>(
    resource: *mut c_void,
    value: *const sys::xffi_any,
    _def_region: i32,
    result: *mut sys::xffi_any,
) -> c_int
where
    F: FnMut(&AnyView<'_>) -> Result<WalkAction>,
{
    crate::ffi_boundary!("xffi::structural_visit::walk's closure", {
        // SAFETY: the walk passes our resource, a borrowed value valid for the
        // call and its result slot (None).
        let (state, view) = unsafe { (&mut *resource.cast::<WalkState<F>>(), AnyView::from_raw(*value)) };
        let action = match (state.f)(&view) {
            Ok(a) => a,
            Err(e) => return e.raise(),
        };
        let written = match action {
            WalkAction::Advance => sys::xffi_any::int(sys::XFFI_STRUCTURAL_ADVANCE as i64),
            WalkAction::Skip => sys::xffi_any::int(sys::XFFI_STRUCTURAL_SKIP as i64),
            WalkAction::Stop(payload) => {
                let mut interrupt = std::ptr::null_mut();
                // SAFETY: valid out slot and borrowed payload.
                if let Err(e) = check(unsafe { sys::xffi_visit_interrupt_new(&mut interrupt, payload.as_raw()) }) {
                    return e.raise();
                }
                // SAFETY: a new reference, handed to the walk's slot.
                unsafe { sys::xffi_any::object(interrupt) }
            }
        };
        // SAFETY: the walk's result slot, None before the call.
        unsafe { result.write(written) };
        sys::XFFI_OK
    })
}

/// Walks `value` (borrowed) as a tree — a value reached twice is seen twice,
/// None is not seen — calling `f` at every value in `order`. Returns
/// `Ok(None)` when the walk completed, `Ok(Some(payload))` when `f` stopped
/// it with [`WalkAction::Stop`]. Errors: `f`'s error; a RuntimeError for a
/// panic in `f`; what C raises (a field getter's error; ValueError for a
/// value nested deeper than C's limit).
///
/// ```
/// use xffi::structural_visit::{Order, WalkAction, walk};
/// use xffi::{Any, Array};
/// let a: Array<Any> = vec![Any::from(2i64), Any::from("x"), Any::from(5i64)].into_iter().collect();
/// let mut sum = 0;
/// let stopped = walk(&a, Order::Post, |v| {
///     sum += v.get::<i64>().unwrap_or(0);
///     Ok(WalkAction::Advance)
/// })
/// .unwrap();
/// assert!(stopped.is_none());
/// assert_eq!(sum, 7);
/// ```
pub fn walk<V, F>(value: &V, order: Order, f: F) -> Result<Option<Any>>
where
    V: KeyView + ?Sized,
    F: FnMut(&AnyView<'_>) -> Result<WalkAction>,
{
    let mut state = WalkState { f };
    with_view(value, |v| {
        let mut out = sys::xffi_any::none();
        // SAFETY: the view is valid for the call; the callback matches F and
        // the resource is `state`, alive until the walk returns.
        check(unsafe {
            sys::xffi_structural_walk(
                &mut out,
                v.as_raw(),
                order.raw(),
                Some(walk_callback::<F>),
                (&mut state as *mut WalkState<F>).cast(),
            )
        })?;
        // SAFETY: an owned value (None or a VisitInterrupt), taken once.
        let out = unsafe { Any::from_raw(out) };
        if out.is_none() {
            return Ok(None);
        }
        let mut payload = sys::xffi_any::none();
        let obj = out.as_raw();
        // SAFETY: a live VisitInterrupt (the walk's result); a new reference comes back.
        check(unsafe { sys::xffi_visit_interrupt_value(&mut payload, obj.value.v_obj) })?;
        // SAFETY: an owned value, taken once.
        Ok(Some(unsafe { Any::from_raw(payload) }))
    })
}

unsafe extern "C" fn map_callback<F>(
    resource: *mut c_void,
    value: *const sys::xffi_any,
    _def_region: i32,
    result: *mut sys::xffi_any,
) -> c_int
where
    F: FnMut(&AnyView<'_>) -> Result<Option<Any>>,
{
    crate::ffi_boundary!("xffi::structural_visit::map's closure", {
        // SAFETY: as in walk_callback.
        let (f, view) = unsafe { (&mut *resource.cast::<F>(), AnyView::from_raw(*value)) };
        match f(&view) {
            // SAFETY: the map's result slot receives the owned replacement.
            Ok(Some(replacement)) => unsafe {
                result.write(replacement.into_raw());
                sys::XFFI_OK
            },
            Ok(None) => sys::XFFI_STRUCTURAL_DECLINED as c_int,
            Err(e) => e.raise(),
        }
    })
}

/// Maps `value` (taken) with `f`: at each value `f` returns `Some(new)` to
/// replace it or `None` to leave it to the default descent (its children
/// mapped). In `Order::Pre` a replacement is then descended; in
/// `Order::Post` `f` sees the value with its children already mapped.
/// Containers and objects whose children did not change are kept (the same
/// object); changed ones are copied — or changed in place when `value` held
/// the only reference, so keep a clone to keep the original. Errors: `f`'s
/// error; a RuntimeError for a panic in `f`; TypeError for an object that
/// changed but cannot be copied; ValueError for nesting past C's limit.
/// Nothing half-built is left on error.
///
/// ```
/// use xffi::structural_visit::{Order, map};
/// use xffi::{Any, List};
/// let l: List<i64> = List::from_vec(vec![1, 2, 3]).unwrap();
/// let doubled = map(Any::from(&l), Order::Post, |v| {
///     Ok(v.get::<i64>().ok().map(|x| Any::from(x * 2)))
/// })
/// .unwrap();
/// let doubled: List<i64> = doubled.get().unwrap();
/// assert_eq!(doubled.iter().unwrap().collect::<Vec<_>>(), vec![2, 4, 6]);
/// assert_eq!(l.get(0).unwrap(), Some(1)); // l was shared: copied, not changed
/// ```
pub fn map<F>(value: Any, order: Order, mut f: F) -> Result<Any>
where
    F: FnMut(&AnyView<'_>) -> Result<Option<Any>>,
{
    let mut root = value.into_raw();
    let mut out = sys::xffi_any::none();
    // SAFETY: root is owned and stolen by the call (None after it, released on
    // every path); the callback matches F and the resource is `f`, alive
    // until the map returns.
    let status = unsafe {
        sys::xffi_structural_map(&mut out, &mut root, order.raw(), Some(map_callback::<F>), (&mut f as *mut F).cast())
    };
    // SAFETY: whatever the call left in root (None) is ours to release.
    drop(unsafe { Any::from_raw(root) });
    check(status)?;
    // SAFETY: an owned value, taken once.
    Ok(unsafe { Any::from_raw(out) })
}
