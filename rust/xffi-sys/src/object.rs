//! `xffi/object.h` and `xffi/sys/object.h` (extension tier): the object
//! header, its reference counts (with the inline counting), weak references.

use core::ffi::{c_int, c_void};
use core::sync::atomic::{fence, AtomicU64, Ordering};

/// Deleter flag: the strong count reached zero (destroy contents, keep memory).
pub const XFFI_DELETE_CONTENTS: c_int = 1;
/// Deleter flag: the weak count reached zero (free the memory).
pub const XFFI_DELETE_MEMORY: c_int = 2;
/// Deleter flag: both at once.
pub const XFFI_DELETE_BOTH: c_int = 3;

/// An object's deleter, called with `XFFI_DELETE_*` flags.
pub type xffi_deleter = unsafe extern "C" fn(self_: *mut c_void, flags: c_int);

/// The deleter slot of the header: kept 8 bytes wide on every platform.
#[repr(C)]
#[derive(Clone, Copy)]
pub union xffi_object_deleter_slot {
    /// Frees the object (`XFFI_DELETER_*` flags say strong or weak).
    pub deleter: Option<xffi_deleter>,
    /// Keeps the slot 8 bytes on 32-bit targets.
    pub deleter_storage: u64,
}

/// The 24-byte object header that starts every xffi object.
///
/// `ref_counts` holds the strong count in its low 32 bits and the weak count
/// in its high 32 bits, and is only ever accessed atomically (see
/// [`xffi_object_ref_counts`]).
#[repr(C)]
pub struct xffi_object {
    /// Strong count (low 32 bits) and weak count (high 32 bits); accessed atomically only.
    pub ref_counts: u64,
    /// The object's type index.
    pub type_index: i32,
    /// Reserved (0).
    pub reserved: u32,
    /// Frees the object when its counts reach zero.
    pub deleter: xffi_object_deleter_slot,
}

/// One strong reference in `ref_counts`.
pub const XFFI_REF_STRONG_ONE: u64 = 1;
/// One weak reference in `ref_counts`.
pub const XFFI_REF_WEAK_ONE: u64 = 1 << 32;
/// The counts of a new object: one strong reference, and the weak one the strong ones hold
/// together.
pub const XFFI_REF_INITIAL: u64 = XFFI_REF_STRONG_ONE | XFFI_REF_WEAK_ONE;

/// Fills a freshly allocated header: strong 1, weak 1 (the mirror of the C
/// `xffi_object_init`). The caller owns the one strong reference.
///
/// # Safety
/// `obj` must point to writable memory for an `xffi_object`.
#[inline]
pub unsafe fn xffi_object_init(obj: *mut xffi_object, type_index: i32, deleter: xffi_deleter) {
    obj.write(xffi_object {
        ref_counts: XFFI_REF_INITIAL,
        type_index,
        reserved: 0,
        deleter: xffi_object_deleter_slot { deleter_storage: 0 },
    });
    (*obj).deleter.deleter = Some(deleter);
}

/// The reference-count word of a header as an atomic (C accesses it with
/// `__atomic_*` builtins on the same address, which is the same thing).
///
/// # Safety
/// `obj` must be a live object.
#[inline(always)]
pub unsafe fn xffi_object_ref_counts<'a>(obj: *const xffi_object) -> &'a AtomicU64 {
    // SAFETY: the word is only ever accessed atomically (by C and Rust), so
    // a shared pointer may carry the atomic writes; the caller vouches that
    // the object is live and aligned.
    unsafe { AtomicU64::from_ptr(core::ptr::addr_of!((*obj).ref_counts).cast_mut()) }
}

/// The largest strong count an increment may start from (the C
/// `XFFI_REF_COUNT_LIMIT`): past it the increment aborts rather than let
/// leaked references wrap the 32-bit count.
pub const XFFI_REF_COUNT_LIMIT: u32 = 0x8000_0000;

/// Takes one more strong reference: a relaxed atomic add, exactly as the C
/// `xffi_object_inc_ref_inline`, and the same abort if the strong count had
/// reached [`XFFI_REF_COUNT_LIMIT`] (like `std::sync::Arc`). NULL is ignored.
///
/// # Safety
/// `obj` must be NULL or a live object.
#[inline(always)]
pub unsafe fn xffi_object_inc_ref_inline(obj: *mut xffi_object) {
    if !obj.is_null() {
        let old = xffi_object_ref_counts(obj).fetch_add(XFFI_REF_STRONG_ONE, Ordering::Relaxed);
        if old as u32 >= XFFI_REF_COUNT_LIMIT {
            // A wrap would leave live handles on freed memory: stop here instead.
            xffi_object_ref_count_overflow_();
        }
    }
}

/// Drops one strong reference; the last one runs the deleter (flag 3, or 1
/// then 2 when weak references remain). The same atomics and orderings as the
/// C `xffi_object_dec_ref_inline`. NULL is ignored.
///
/// # Safety
/// `obj` must be NULL or a live object on which the caller owns a strong
/// reference (which this call consumes).
#[inline(always)]
pub unsafe fn xffi_object_dec_ref_inline(obj: *mut xffi_object) {
    if obj.is_null() {
        return;
    }
    let old = xffi_object_ref_counts(obj).fetch_sub(XFFI_REF_STRONG_ONE, Ordering::Release);
    if old != XFFI_REF_INITIAL && (old as u32) != 1 {
        return;
    }
    dec_ref_slow(obj, old);
}

/// The last strong reference went: runs the deleter (contents, then memory
/// once no weak reference remains).
///
/// # Safety
/// `obj` is a live object whose strong count this thread just took from 1 to
/// 0 (`old` is the word before that decrement).
#[cold]
#[inline(never)]
unsafe fn dec_ref_slow(obj: *mut xffi_object, old: u64) {
    fence(Ordering::Acquire);
    let deleter = (*obj).deleter.deleter;
    let Some(deleter) = deleter else { return };
    if old == XFFI_REF_INITIAL {
        deleter(obj.cast(), XFFI_DELETE_BOTH);
        return;
    }
    deleter(obj.cast(), XFFI_DELETE_CONTENTS);
    if xffi_object_ref_counts(obj).fetch_sub(XFFI_REF_WEAK_ONE, Ordering::Release) == XFFI_REF_WEAK_ONE {
        fence(Ordering::Acquire);
        deleter(obj.cast(), XFFI_DELETE_MEMORY);
    }
}

/// The current strong count (a snapshot).
///
/// # Safety
/// `obj` must be a live object.
#[inline]
pub unsafe fn xffi_object_strong_count(obj: *const xffi_object) -> u32 {
    xffi_object_ref_counts(obj).load(Ordering::Relaxed) as u32
}

/// The current weak count, including the unit held for the strong references.
///
/// # Safety
/// `obj` must be a live object (or one whose memory is kept by a weak reference).
#[inline]
pub unsafe fn xffi_object_weak_count(obj: *const xffi_object) -> u32 {
    (xffi_object_ref_counts(obj).load(Ordering::Relaxed) >> 32) as u32
}

/// The address of an object's cell (the struct after the header).
///
/// # Safety
/// `obj` must be a live object whose cell is a `T`.
#[inline(always)]
pub unsafe fn xffi_object_cell<T>(obj: *mut xffi_object) -> *mut T {
    obj.cast::<u8>().add(core::mem::size_of::<xffi_object>()).cast()
}

/// An opaque weak-reference handle.
#[repr(C)]
pub struct xffi_weak {
    _private: [u8; 0],
}

extern "C" {
    /// Exported form of the inline increment. NULL is ignored.
    pub fn xffi_object_inc_ref(obj: *mut xffi_object);
    /// Exported form of the inline decrement (consumes one strong reference). NULL is ignored.
    pub fn xffi_object_dec_ref(obj: *mut xffi_object);
    /// Reports a reference count at [`XFFI_REF_COUNT_LIMIT`] on stderr and
    /// aborts the process (called by the increments only).
    pub fn xffi_object_ref_count_overflow_() -> !;
    /// Opens a deleter's bounded-stack release bracket (the protocol is in
    /// `xffi/sys/object.h`): `self_` (borrowed) is the object being deleted,
    /// `flags` and `deleter` the deleter's own arguments and itself. 1: the
    /// call was parked (return at once; the deleter is called again with the
    /// same flags); 0: go on, then call [`xffi_object_release_end`] once. NULL
    /// `self_` or `deleter`: 0, not parked. Never raises.
    pub fn xffi_object_release_begin(self_: *mut xffi_object, flags: c_int, deleter: Option<xffi_deleter>) -> c_int;
    /// Closes the bracket [`xffi_object_release_begin`] opened with 0; the
    /// outermost runs every parked deleter first. Without an open bracket:
    /// does nothing.
    pub fn xffi_object_release_end();
    /// Makes a weak reference to `obj` (borrowed, alive): `*out` receives a new
    /// weak reference (release with [`xffi_weak_release`]).
    /// Errors: ValueError for NULL out or obj.
    pub fn xffi_weak_new(out: *mut *mut xffi_weak, obj: *mut xffi_object) -> c_int;
    /// Locks a weak reference: `*out` receives a new strong reference, or NULL
    /// if the object is destroyed (not an error). The weak stays valid.
    /// Errors: ValueError for NULL out or weak.
    pub fn xffi_weak_lock(out: *mut *mut xffi_object, weak: *mut xffi_weak) -> c_int;
    /// Releases a weak reference (stolen). NULL is ignored.
    pub fn xffi_weak_release(weak: *mut xffi_weak);
}
