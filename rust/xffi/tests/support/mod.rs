//! Allocation failure for the tests: a failing allocator
//! (`xffi/sys/allocator.h`) that wraps the default one, fails the calling
//! thread's allocations on demand and counts them. Shared by the xffi and
//! xffi-tests integration tests (the latter include this file by path).
//!
//! The allocator must be installed before anything in the test program
//! allocates through xffi: every test that uses it calls [`install`] first
//! (every helper here does), and a program whose tests use it must not
//! allocate through xffi in a test that does not.
#![allow(dead_code)]

use std::cell::Cell;
use std::ffi::c_void;
use std::sync::Once;

use xffi::sys;

thread_local! {
    /// Whether this thread's allocations fail (per thread: tests run side by side).
    static FAILING: Cell<bool> = const { Cell::new(false) };
    /// This thread's allocation attempts (failed ones included).
    static ATTEMPTS: Cell<u64> = const { Cell::new(0) };
}

/// The default allocator, filled in once by `install`.
static mut INNER: sys::xffi_allocator = sys::xffi_allocator {
    context: std::ptr::null_mut(),
    allocate: None,
    reallocate: None,
    deallocate: None,
    allocate_aligned: None,
    deallocate_aligned: None,
};
static INSTALL: Once = Once::new();

fn inner() -> sys::xffi_allocator {
    // SAFETY: INNER is written once inside INSTALL.call_once, before the
    // allocator that reads it is installed, and never again.
    unsafe { *std::ptr::addr_of!(INNER) }
}

/// Counts one attempt; true if it must fail.
fn attempt_fails() -> bool {
    ATTEMPTS.with(|a| a.set(a.get() + 1));
    FAILING.with(|f| f.get())
}

unsafe extern "C" fn allocate(_: *mut c_void, size: usize) -> *mut c_void {
    let a = inner();
    if attempt_fails() {
        return std::ptr::null_mut();
    }
    // SAFETY: forwards the library's call, with its arguments, to the default allocator.
    unsafe { a.allocate.unwrap()(a.context, size) }
}

unsafe extern "C" fn reallocate(_: *mut c_void, ptr: *mut c_void, size: usize) -> *mut c_void {
    let a = inner();
    if attempt_fails() {
        return std::ptr::null_mut();
    }
    // SAFETY: as in `allocate`; ptr came from the default allocator.
    unsafe { a.reallocate.unwrap()(a.context, ptr, size) }
}

unsafe extern "C" fn deallocate(_: *mut c_void, ptr: *mut c_void) {
    let a = inner();
    // SAFETY: as in `allocate`; ptr came from the default allocator.
    unsafe { a.deallocate.unwrap()(a.context, ptr) }
}

unsafe extern "C" fn allocate_aligned(_: *mut c_void, alignment: usize, size: usize) -> *mut c_void {
    let a = inner();
    if attempt_fails() {
        return std::ptr::null_mut();
    }
    // SAFETY: as in `allocate`.
    unsafe { a.allocate_aligned.unwrap()(a.context, alignment, size) }
}

unsafe extern "C" fn deallocate_aligned(_: *mut c_void, ptr: *mut c_void) {
    let a = inner();
    // SAFETY: as in `allocate`; ptr came from the default allocator's allocate_aligned.
    unsafe { a.deallocate_aligned.unwrap()(a.context, ptr) }
}

/// Installs the failing allocator (once per program; later calls wait for
/// the first and return).
pub fn install() {
    INSTALL.call_once(|| {
        // SAFETY: INNER is not read before this closure returns (the allocator
        // that reads it is installed last); xffi_allocator_default writes a
        // whole struct through a valid pointer.
        unsafe {
            assert_eq!(sys::xffi_allocator_default(std::ptr::addr_of_mut!(INNER)), 0);
        }
        let failing = sys::xffi_allocator {
            context: std::ptr::null_mut(),
            allocate: Some(allocate),
            reallocate: Some(reallocate),
            deallocate: Some(deallocate),
            allocate_aligned: Some(allocate_aligned),
            deallocate_aligned: Some(deallocate_aligned),
        };
        // SAFETY: a valid struct, copied by the call; the functions are thread-safe.
        assert_eq!(unsafe { sys::xffi_allocator_install(&failing) }, 0, "the allocator was fixed already");
    });
}

/// Lets every C allocation of this thread succeed again when dropped (also
/// when the test panics, so later tests on the thread are unaffected).
pub struct AllocationsFailing(());

impl Drop for AllocationsFailing {
    fn drop(&mut self) {
        FAILING.with(|f| f.set(false));
    }
}

/// Makes every C allocation of the calling thread fail until the guard drops.
pub fn fail_allocations() -> AllocationsFailing {
    install();
    FAILING.with(|f| f.set(true));
    AllocationsFailing(())
}

/// Runs `f` with every C allocation of this thread failing.
pub fn with_allocations_failing<R>(f: impl FnOnce() -> R) -> R {
    let _failing = fail_allocations();
    f()
}

/// The allocation attempts the C library made so far on this thread.
pub fn c_allocations() -> u64 {
    install();
    ATTEMPTS.with(|a| a.get())
}
