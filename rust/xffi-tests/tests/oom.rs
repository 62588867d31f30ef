//! Out of memory in the C library reaches Rust as a MemoryError, and
//! nothing Rust handed over is leaked or dropped twice. The test installs a
//! failing allocator (`xffi/sys/allocator.h`) that wraps the default one and
//! fails the calling thread's allocations on demand.
use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Once};

use xffi::{Any, AnyView, Array, Function, List, Map};
use xffi_sys as sys;

struct CountDrop(Arc<AtomicUsize>);
impl Drop for CountDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

thread_local! {
    /// Whether this thread's allocations fail (per thread: tests run side by side).
    static FAILING: Cell<bool> = const { Cell::new(false) };
}

/// The default allocator, filled in once by `install_failing_allocator`.
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

fn failing() -> bool {
    FAILING.with(|f| f.get())
}

unsafe extern "C" fn allocate(_: *mut c_void, size: usize) -> *mut c_void {
    let a = inner();
    if failing() {
        return std::ptr::null_mut();
    }
    // SAFETY: forwards the library's call, with its arguments, to the default allocator.
    unsafe { a.allocate.unwrap()(a.context, size) }
}

unsafe extern "C" fn reallocate(_: *mut c_void, ptr: *mut c_void, size: usize) -> *mut c_void {
    let a = inner();
    if failing() {
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
    if failing() {
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

/// Installs the failing allocator before anything in this program allocates through xffi.
fn install_failing_allocator() {
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

fn fail_next<T>(f: impl FnOnce() -> xffi::Result<T>) -> xffi::Error {
    install_failing_allocator();
    FAILING.with(|x| x.set(true));
    let r = f();
    FAILING.with(|x| x.set(false));
    match r {
        Ok(_) => panic!("expected a MemoryError"),
        Err(e) => e,
    }
}

#[test]
fn memory_errors_from_c_become_err_and_leak_nothing() {
    install_failing_allocator();
    // A closure whose function cannot be made is dropped exactly once.
    let drops = Arc::new(AtomicUsize::new(0));
    let guard = CountDrop(drops.clone());
    let err = fail_next(|| {
        Function::from_closure(move |_: &[AnyView]| {
            let _g = &guard;
            Ok(Any::none())
        })
    });
    assert_eq!(err.kind(), "MemoryError");
    assert_eq!(drops.load(Ordering::SeqCst), 1);

    assert_eq!(fail_next(|| xffi::String::new("a string longer than seven bytes")).kind(), "MemoryError");
    assert_eq!(fail_next(|| Any::from_str("a string longer than seven bytes")).kind(), "MemoryError");
    assert_eq!(fail_next(List::<i64>::new).kind(), "MemoryError");
    assert_eq!(fail_next(Map::<i64, i64>::new).kind(), "MemoryError");

    // Copy-on-write change of a shared array: on failure both stay as they were.
    let mut a: Array<i64> = (0..4).collect();
    let b = a.clone();
    assert_eq!(fail_next(|| a.push(5)).kind(), "MemoryError");
    assert_eq!(a.iter().collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert!(a.as_object().ptr_eq(b.as_object()));

    // Everything works again once allocations succeed.
    a.push(5).unwrap();
    assert_eq!(a.len(), 5);
    assert_eq!(b.len(), 4);
}
