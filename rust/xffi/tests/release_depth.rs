//! Dropping a 10^6-deep chain of Rust-derived objects (each holding the
//! next in a field) uses bounded stack: every Rust object's deleter drops
//! its value inside xffi's release bracket (`xffi_object_release_begin`),
//! so a link released while another release runs is parked, not recursed
//! into. Each chain is dropped on a thread with a 256 KiB stack; a drop
//! counter checks that every link was dropped once.
use std::sync::atomic::{AtomicUsize, Ordering};

use xffi::{Any, List, ObjectRef};

const DEPTH: usize = 1_000_000;
const SMALL_STACK: usize = 256 * 1024;

/// Counts the drops of the links of one test (each test its own counter).
struct DropCounter(&'static AtomicUsize);

impl Drop for DropCounter {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[derive(xffi::Object)]
#[xffi(type_key = "test.release_depth.Link")]
struct Link {
    #[xffi(get)]
    next: Option<ObjectRef<Link>>,
    // Not reflected: counts this link's drop.
    _dropped: DropCounter,
}

/// A link holding any value: here a List that holds the next link, so the
/// chain alternates between Rust's deleter and the library's List deleter.
#[derive(xffi::Object)]
#[xffi(type_key = "test.release_depth.AnyLink")]
struct AnyLink {
    #[xffi(get)]
    next: Any,
    _dropped: DropCounter,
}

/// Drops `value` on a new thread whose stack is SMALL_STACK bytes.
fn drop_on_small_stack<T: Send + 'static>(value: T) {
    std::thread::Builder::new().stack_size(SMALL_STACK).spawn(move || drop(value)).unwrap().join().unwrap();
}

#[test]
fn a_deep_chain_of_derived_objects_drops_on_bounded_stack() {
    static DROPPED: AtomicUsize = AtomicUsize::new(0);
    let mut head: Option<ObjectRef<Link>> = None;
    for _ in 0..DEPTH {
        head = Some(ObjectRef::new(Link { next: head, _dropped: DropCounter(&DROPPED) }).unwrap());
    }
    drop_on_small_stack(head);
    assert_eq!(DROPPED.load(Ordering::Relaxed), DEPTH);
}

#[test]
fn a_deep_chain_through_lists_drops_on_bounded_stack() {
    static DROPPED: AtomicUsize = AtomicUsize::new(0);
    let mut next = Any::default();
    for _ in 0..DEPTH / 2 {
        let link = ObjectRef::new(AnyLink { next, _dropped: DropCounter(&DROPPED) }).unwrap();
        let list: List<Any> = List::new().unwrap();
        list.push(Any::from(&link)).unwrap();
        next = Any::from(&list);
    }
    drop_on_small_stack(next);
    assert_eq!(DROPPED.load(Ordering::Relaxed), DEPTH / 2);
}

/// A link kept alive elsewhere is not dropped with the chain, and the
/// part of the chain it holds is dropped when it goes.
#[test]
fn a_shared_link_outlives_the_chain() {
    static DROPPED: AtomicUsize = AtomicUsize::new(0);
    let mut head: Option<ObjectRef<Link>> = None;
    let mut kept = None;
    for i in 0..1000 {
        head = Some(ObjectRef::new(Link { next: head, _dropped: DropCounter(&DROPPED) }).unwrap());
        if i == 499 {
            kept = head.clone();
        }
    }
    drop(head);
    assert_eq!(DROPPED.load(Ordering::Relaxed), 500);
    drop(kept);
    assert_eq!(DROPPED.load(Ordering::Relaxed), 1000);
}
