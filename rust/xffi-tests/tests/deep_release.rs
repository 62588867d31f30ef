//! Dropping a deeply nested container from Rust uses bounded stack: the C
//! deleters park each inner level instead of recursing, whichever language
//! drops the last reference. A 3x10^4-deep Dict used to overflow a Rust
//! thread's default 2 MiB stack; this one is 10^5 deep.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use xffi::{Any, AnyView, Dict, Function};

const DEPTH: usize = 100_000;
const RUST_DEFAULT_STACK: usize = 2 * 1024 * 1024;

#[test]
fn dropping_a_deep_dict_on_a_2_mib_thread() {
    let outermost = std::thread::Builder::new()
        .stack_size(RUST_DEFAULT_STACK)
        .spawn(|| {
            let mut inner: Dict<i64, Any> = Dict::new().unwrap();
            for _ in 0..DEPTH {
                let outer: Dict<i64, Any> = Dict::new().unwrap();
                outer.insert(0, Any::from(inner.into_object())).unwrap();
                inner = outer;
            }
            assert_eq!(inner.len(), 1);
            drop(inner); // the whole nesting goes here
            true
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(outermost);
}

/// Rust closures whose captured state owns the next Function: each level's
/// Rust drop glue runs inside the C deleter of the level above.
#[test]
fn dropping_a_deep_chain_of_closures_on_a_2_mib_thread() {
    let drops = Arc::new(AtomicUsize::new(0));
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let counter = drops.clone();
    std::thread::Builder::new()
        .stack_size(RUST_DEFAULT_STACK)
        .spawn(move || {
            let mut next: Option<Function> = None;
            for _ in 0..DEPTH {
                let owned = (next.take(), Counted(counter.clone()));
                let level = Function::from_closure(move |_args: &[AnyView]| {
                    let _keep = &owned;
                    Ok(Any::from(()))
                });
                next = Some(level.unwrap());
            }
            drop(next);
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(drops.load(Ordering::SeqCst), DEPTH);
}
