//! Test-only crate (never published): the C layout probe and the C side of
//! the cross-language ownership tests (`tests/cross_language/*.c` in the repository),
//! compiled by build.rs against the headers xffi-sys exports; and the
//! README's Rust snippet, run as a doctest ([`readme`]).
use std::ffi::{c_char, c_int};

use xffi_sys::{xffi_object, xffi_weak};

extern "C" {
    pub fn cross_node_type_index() -> i32;
    pub fn cross_node_new(out: *mut *mut xffi_object, value: i64) -> c_int;
    pub fn cross_node_value(node: *const xffi_object) -> i64;
    pub fn cross_node_contents_deleted() -> c_int;
    pub fn cross_node_memory_freed() -> c_int;
    pub fn cross_array_of_one(out: *mut *mut xffi_object, obj: *mut xffi_object) -> c_int;
    pub fn cross_release(obj: *mut xffi_object);
    pub fn cross_map_put_new_node(
        map_in: *mut xffi_object,
        map_out: *mut *mut xffi_object,
        key: *const c_char,
        value: i64,
    ) -> c_int;
    pub fn cross_call_in_threads(
        out_sum: *mut i64,
        func: *mut xffi_object,
        num_threads: c_int,
        message: *mut c_char,
        size: usize,
    ) -> c_int;
    /// Drops `obj` (stolen) on a new thread: 0, or -1 if no thread could be
    /// started (it is dropped here then).
    pub fn cross_drop_on_thread(obj: *mut xffi_object) -> c_int;
    pub fn cross_weak_is_alive(weak: *mut xffi_weak) -> c_int;
    pub fn cross_make_failing_function(out: *mut *mut xffi_object) -> c_int;
    pub fn cross_call_expect_error(
        func: *mut xffi_object,
        kind: *mut c_char,
        message: *mut c_char,
        size: usize,
    ) -> c_int;
    pub fn cross_make_c_add(out: *mut *mut xffi_object) -> c_int;
    pub fn cross_make_c_add_direct(out: *mut *mut xffi_object) -> c_int;
    pub fn cross_call_loop(out_sum: *mut i64, func: *mut xffi_object, iterations: i64) -> c_int;
}

/// The C-defined type "cross.CNode" as seen from Rust: a payload of one i64.
#[derive(Debug)]
pub struct CNode {
    pub value: i64,
}
// SAFETY: objects of type cross.CNode carry an i64 right after the header
// (tests/cross_language/cross.c), which is CNode's layout, and C never changes it
// after creation.
unsafe impl xffi::ObjectType for CNode {
    const TYPE_KEY: &'static str = "cross.CNode";
    fn type_index() -> i32 {
        // SAFETY: no arguments; registers the type once (thread-safe in C).
        unsafe { cross_node_type_index() }
    }
}
// SAFETY: a CNode is an immutable i64: sending or sharing it is sound.
unsafe impl Send for CNode {}
// SAFETY: as above.
unsafe impl Sync for CNode {}

/// Makes a C node (a new reference owned by Rust).
pub fn new_c_node(value: i64) -> xffi::ObjectRef<CNode> {
    let mut out = std::ptr::null_mut();
    // SAFETY: a valid out slot.
    assert_eq!(unsafe { cross_node_new(&mut out, value) }, 0);
    // SAFETY: `out` is a new reference to a live CNode, handed to the ObjectRef.
    unsafe { xffi::ObjectRef::from_raw(out) }.unwrap()
}

/// The Rust snippet of the repository's README.md, as a doctest: build.rs
/// copies each Rust code block of the README into this module's docs, so
/// `cargo test` fails when the snippet no longer compiles or an assert in it
/// fails.
#[doc = ""]
#[doc = include_str!(concat!(env!("OUT_DIR"), "/readme_rust.md"))]
pub mod readme {}
