//! Strong counts stop before they wrap: cloning (or upgrading, or
//! downgrading) a handle whose count reached `XFFI_REF_COUNT_LIMIT` aborts,
//! as `std::sync::Arc` does, instead of letting ~2^32 forgotten clones wrap
//! the count and leave live handles on freed memory. The tests write the
//! header's count word directly; the increments that must abort run in a
//! child process (this test binary re-run with one test selected).

use std::os::unix::process::ExitStatusExt;
use std::process::Command;
use std::sync::atomic::Ordering;

use xffi::sys::{XFFI_REF_COUNT_LIMIT, xffi_object_ref_counts};
use xffi::{Object, ObjectRef, object_type};

struct Payload(#[allow(dead_code)] u64);
object_type!(Payload, "refcount.Payload");

const CHILD_ENV: &str = "XFFI_REF_COUNT_LIMIT_CHILD";
const SIGABRT: i32 = 6; // on every Unix this runs on (Linux, macOS, the BSDs)

fn set_counts<T: xffi::ObjectType>(obj: &ObjectRef<T>, strong: u32, weak: u32) {
    // SAFETY: a live object; the test owns every reference it pretends exist.
    unsafe { xffi_object_ref_counts(obj.as_ptr()) }.store(((weak as u64) << 32) | strong as u64, Ordering::Relaxed);
}

/// In the child: the object with its count at the limit. Never restored:
/// the step must abort.
fn at_limit(strong: u32, weak: u32) -> ObjectRef<Object> {
    let obj = ObjectRef::new(Payload(1)).unwrap().into_object();
    set_counts(&obj, strong, weak);
    obj
}

/// Re-runs this binary with only `test` selected and the child flag set,
/// and asserts that the child died of SIGABRT.
fn assert_child_aborts(test: &str) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--test-threads=1", "--nocapture"])
        .env(CHILD_ENV, "1")
        .output()
        .unwrap();
    let stderr = std::string::String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.signal(), Some(SIGABRT), "child {test}: {:?}\n{stderr}", out.status);
    assert!(stderr.contains("reference count overflow"), "{stderr}");
}

fn in_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

#[test]
fn clone_at_the_limit_aborts() {
    if in_child() {
        let obj = at_limit(XFFI_REF_COUNT_LIMIT, 1);
        std::mem::forget(obj.clone());
        return; // not reached
    }
    assert_child_aborts("clone_at_the_limit_aborts");
}

#[test]
fn upgrade_at_the_limit_aborts() {
    if in_child() {
        let obj = ObjectRef::new(Payload(1)).unwrap().into_object();
        let weak = obj.downgrade().unwrap();
        set_counts(&obj, XFFI_REF_COUNT_LIMIT, 2);
        std::mem::forget(weak.upgrade());
        return;
    }
    assert_child_aborts("upgrade_at_the_limit_aborts");
}

#[test]
fn downgrade_at_the_weak_limit_aborts() {
    if in_child() {
        let obj = at_limit(1, XFFI_REF_COUNT_LIMIT);
        std::mem::forget(obj.downgrade());
        return;
    }
    assert_child_aborts("downgrade_at_the_weak_limit_aborts");
}

#[test]
fn counts_below_the_limit_still_work() {
    let obj = ObjectRef::new(Payload(1)).unwrap().into_object();
    set_counts(&obj, XFFI_REF_COUNT_LIMIT - 2, 1);
    let a = obj.clone();
    let weak = obj.downgrade().unwrap();
    let b = weak.upgrade().unwrap();
    assert_eq!(obj.strong_count(), XFFI_REF_COUNT_LIMIT);
    drop((a, b, weak));
    assert_eq!(obj.strong_count(), XFFI_REF_COUNT_LIMIT - 2);
    set_counts(&obj, 1, 1); // back to the one real reference, freed normally
}
