//! Allocation failure for the tests: the one place that knows how it is
//! injected into the C library (today the per-thread test budget of
//! `sys/testing.h`; a failing allocator can replace it here alone).

use xffi::sys;

/// Lets every C allocation of this thread succeed again when dropped (also
/// when the test panics, so later tests on the thread are unaffected).
pub struct AllocationsFailing(());

impl Drop for AllocationsFailing {
    fn drop(&mut self) {
        // SAFETY: a test-only hook with no preconditions; n < 0 turns it off.
        unsafe { sys::xffi_testing_fail_alloc_after(-1) };
    }
}

/// Makes every C allocation of the calling thread fail until the guard drops.
pub fn fail_allocations() -> AllocationsFailing {
    // SAFETY: a test-only hook with no preconditions; it affects this thread only.
    unsafe { sys::xffi_testing_fail_alloc_after(0) };
    AllocationsFailing(())
}

/// Runs `f` with every C allocation of this thread failing.
pub fn with_allocations_failing<R>(f: impl FnOnce() -> R) -> R {
    let _failing = fail_allocations();
    f()
}

/// The heap allocations the C library made so far on this thread.
pub fn c_allocations() -> u64 {
    // SAFETY: a test-only counter with no preconditions.
    unsafe { sys::xffi_testing_alloc_count() }
}
