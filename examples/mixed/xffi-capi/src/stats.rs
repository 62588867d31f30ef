//! Counters of what the library made and of the deleters that ran, so that
//! C callers (and tests) can check that each deleter ran exactly once.

use std::ffi::c_int;
use std::sync::atomic::{AtomicU64, Ordering};

use xffi::sys::xffi_object;

use crate::boundary::{boundary, out_slot};

pub(crate) static POINTS_CREATED: AtomicU64 = AtomicU64::new(0);
pub(crate) static POINTS_DROPPED: AtomicU64 = AtomicU64::new(0);
pub(crate) static LABELS_CREATED: AtomicU64 = AtomicU64::new(0);
pub(crate) static LABELS_DROPPED: AtomicU64 = AtomicU64::new(0);
pub(crate) static FUNCTIONS_CREATED: AtomicU64 = AtomicU64::new(0);
pub(crate) static FUNCTIONS_DROPPED: AtomicU64 = AtomicU64::new(0);

pub(crate) fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

/// What the library has made and released since the process started.
///
/// A `*_created` counter grows when a value is made, the matching
/// `*_dropped` counter when its Rust `Drop` runs (from the object's deleter,
/// or the Function's finalizer). Once every reference is gone the two are
/// equal; `dropped > created` would mean a deleter ran twice.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct xcapi_stats {
    /// Points made (by `xcapi_point_new` or by the Rust functions).
    pub points_created: u64,
    /// Points whose deleter ran.
    pub points_dropped: u64,
    /// Labels made.
    pub labels_created: u64,
    /// Labels whose deleter ran.
    pub labels_dropped: u64,
    /// Rust closures made into Function objects.
    pub functions_created: u64,
    /// Closures dropped (the Function's finalizer ran).
    pub functions_dropped: u64,
}

/// Copies the counters to `*out`.
///
/// `out`: written, owned by the caller. Errors: ValueError for a NULL `out`.
///
/// # Safety
/// `out` must be NULL or valid for writing one `xcapi_stats`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xcapi_stats_get(out: *mut xcapi_stats) -> c_int {
    const F: &str = "xcapi_stats_get";
    boundary(F, || {
        // SAFETY: the caller's contract: out is NULL or valid for writes.
        let out = unsafe { out_slot(F, "out", out, "a pointer to an xcapi_stats to fill") }?;
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        *out = xcapi_stats {
            points_created: get(&POINTS_CREATED),
            points_dropped: get(&POINTS_DROPPED),
            labels_created: get(&LABELS_CREATED),
            labels_dropped: get(&LABELS_DROPPED),
            functions_created: get(&FUNCTIONS_CREATED),
            functions_dropped: get(&FUNCTIONS_DROPPED),
        };
        Ok(())
    })
}

/// Sets `*out` to NULL if `out` is not NULL: the first thing every function
/// with an object out-parameter does, so a failure leaves NULL there.
///
/// # Safety
/// `out` must be NULL or valid for writing one pointer.
pub(crate) unsafe fn clear_out(out: *mut *mut xffi_object) {
    if !out.is_null() {
        // SAFETY: the caller's contract: a non-NULL out is valid for writes.
        unsafe { *out = std::ptr::null_mut() };
    }
}
