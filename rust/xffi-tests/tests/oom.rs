//! Out of memory in the C library reaches Rust as a MemoryError, and
//! nothing Rust handed over is leaked or dropped twice. The test installs a
//! failing allocator (`xffi/sys/allocator.h`) that wraps the default one and
//! fails the calling thread's allocations on demand.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use xffi::{Any, AnyView, Array, Function, List, Map};

struct CountDrop(Arc<AtomicUsize>);
impl Drop for CountDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[path = "../../xffi/tests/support/mod.rs"]
mod support;
use support::{install as install_failing_allocator, with_allocations_failing};

fn fail_next<T>(f: impl FnOnce() -> xffi::Result<T>) -> xffi::Error {
    match with_allocations_failing(f) {
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
    assert_eq!(err.kind(), xffi::ErrorKind::MemoryError);
    assert_eq!(drops.load(Ordering::SeqCst), 1);

    assert_eq!(
        fail_next(|| xffi::String::new("a string longer than seven bytes")).kind(),
        xffi::ErrorKind::MemoryError
    );
    assert_eq!(fail_next(|| Any::from_str("a string longer than seven bytes")).kind(), xffi::ErrorKind::MemoryError);
    assert_eq!(fail_next(List::<i64>::new).kind(), xffi::ErrorKind::MemoryError);
    assert_eq!(fail_next(Map::<i64, i64>::new).kind(), xffi::ErrorKind::MemoryError);

    // Copy-on-write change of a shared array: on failure both stay as they were.
    let mut a: Array<i64> = (0..4).collect();
    let b = a.clone();
    assert_eq!(fail_next(|| a.push(5)).kind(), xffi::ErrorKind::MemoryError);
    assert_eq!(a.iter().collect::<xffi::Result<Vec<_>>>().unwrap(), vec![0, 1, 2, 3]);
    assert!(a.as_object().ptr_eq(b.as_object()));

    // Everything works again once allocations succeed.
    a.push(5).unwrap();
    assert_eq!(a.len(), 5);
    assert_eq!(b.len(), 4);
}
