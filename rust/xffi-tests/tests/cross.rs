//! Cross-language ownership: Rust objects held and dropped by C, C objects
//! held and dropped by Rust, Rust closures called (and destroyed) on C
//! threads, weak references across the boundary, errors both ways, and
//! panics caught at the boundary. Counters prove every deleter ran exactly
//! once; run under valgrind or AddressSanitizer to prove nothing leaks and
//! nothing is touched after it is freed.
use std::cell::Cell;
use std::ffi::{c_char, CStr};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};

use xffi::{object_type, Any, AnyView, Error, Function, Map, Object, ObjectRef};
use xffi_sys as sys;
use xffi_tests::*;

/// A Rust object whose Drop counts itself.
struct Tracked {
    id: i64,
    drops: Arc<AtomicUsize>,
}
impl Drop for Tracked {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}
object_type!(Tracked, "cross.Tracked");

fn tracked(id: i64) -> (ObjectRef<Tracked>, Arc<AtomicUsize>) {
    let drops = Arc::new(AtomicUsize::new(0));
    (ObjectRef::new(Tracked { id, drops: drops.clone() }).unwrap(), drops)
}

/// The NUL-terminated text a C helper wrote into `buf` (zero-filled before the call).
fn c_text(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf.iter().map(|&c| c as u8).collect();
    CStr::from_bytes_until_nul(&bytes).expect("the C helper wrote a NUL").to_str().unwrap().to_owned()
}

/// The C node counters are process-wide: tests that read them run one at a time.
static C_COUNTERS: Mutex<()> = Mutex::new(());

fn c_counts() -> (i32, i32) {
    // SAFETY: the C counters are plain reads of process-wide ints.
    unsafe { (cross_node_contents_deleted(), cross_node_memory_freed()) }
}

#[test]
fn rust_object_in_a_c_array_is_dropped_exactly_once_when_c_drops_the_array() {
    let (obj, drops) = tracked(1);
    let mut array = ptr::null_mut();
    // SAFETY: a valid out slot and a live object (borrowed; the array takes its own reference).
    assert_eq!(unsafe { cross_array_of_one(&mut array, obj.as_ptr()) }, 0);
    assert_eq!(obj.strong_count(), 2, "the C array holds its own reference");
    drop(obj);
    assert_eq!(drops.load(Ordering::SeqCst), 0, "alive while the C array holds it");
    // SAFETY: `array` is the reference cross_array_of_one gave us, released once.
    unsafe { cross_release(array) };
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn rust_object_read_back_from_a_c_array_is_the_same_object() {
    let (obj, drops) = tracked(42);
    let mut array = ptr::null_mut();
    // SAFETY: a valid out slot and a live object (borrowed; the array takes its own reference).
    assert_eq!(unsafe { cross_array_of_one(&mut array, obj.as_ptr()) }, 0);
    let arr: xffi::Array<ObjectRef<Tracked>> =
        // SAFETY: `array` is a live Array we own; the view is read (and copied) before the release below.
        unsafe { AnyView::from_raw(sys::xffi_any::object(array)) }.get().unwrap();
    // SAFETY: `array` is the reference cross_array_of_one gave us, released once.
    unsafe { cross_release(array) };
    let back = arr.get(0).unwrap().expect("one element");
    assert!(back.ptr_eq(&obj));
    assert_eq!(back.id, 42);
    drop((arr, back, obj));
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn c_object_in_a_rust_map_is_freed_exactly_once_when_rust_drops_the_map() {
    let _g = C_COUNTERS.lock().unwrap();
    let (contents0, memory0) = c_counts();
    let node = new_c_node(7);
    assert_eq!(node.value, 7);
    let mut map: Map<String, ObjectRef<CNode>> = Map::new().unwrap();
    map.insert("seven".into(), node.clone()).unwrap();
    drop(node);
    assert_eq!(c_counts(), (contents0, memory0), "alive while the map holds it");
    assert_eq!(map.get("seven").unwrap().expect("present").value, 7);
    drop(map);
    assert_eq!(c_counts(), (contents0 + 1, memory0 + 1));
}

#[test]
fn c_adds_a_c_object_to_a_rust_map_and_rust_reads_and_frees_it() {
    let _g = C_COUNTERS.lock().unwrap();
    let (contents0, memory0) = c_counts();
    let map: Map<String, Any> = [("a".to_string(), Any::from(1i64))].into_iter().collect();
    let mut out = ptr::null_mut();
    // SAFETY: a live Map (borrowed), a valid out slot and a NUL-terminated key.
    let status = unsafe { cross_map_put_new_node(map.as_ptr(), &mut out, c"node".as_ptr(), 99) };
    assert_eq!(status, 0);
    // Copy-on-write: our map is shared with C's copy-on-write call, so C made a new one.
    // SAFETY: `out` is a live Map we own; the view is copied before the release below.
    let updated: Map<String, Any> = unsafe { AnyView::from_raw(sys::xffi_any::object(out)) }.get().unwrap();
    // SAFETY: `out` is the reference cross_map_put_new_node gave us, released once.
    unsafe { cross_release(out) };
    assert_eq!(map.len(), 1, "the Rust map never sees C's change");
    assert_eq!(updated.len(), 2);
    let node: ObjectRef<CNode> = updated.get("node").unwrap().expect("present").get().unwrap();
    assert_eq!(node.value, 99);
    assert_eq!(node.type_key(), "cross.CNode");
    assert!(node.clone().into_object().downcast::<Tracked>().is_err());
    drop((updated, node));
    assert_eq!(c_counts(), (contents0 + 1, memory0 + 1));
}

#[test]
fn rust_closure_is_called_from_c_threads_and_dropped_once() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (guard, guard_drops) = tracked(0);
    let c = calls.clone();
    let f = Function::from_typed(move |x: i64| {
        let _keep = &guard; // the closure owns a Rust object
        c.fetch_add(1, Ordering::SeqCst);
        Ok(x * 10)
    })
    .unwrap();
    let mut sum = 0;
    let mut msg = [0 as c_char; 256];
    // SAFETY: a live Function (borrowed), a valid sum slot and a message buffer of msg.len() bytes.
    let status = unsafe { cross_call_in_threads(&mut sum, f.as_ptr(), 8, msg.as_mut_ptr(), msg.len()) };
    assert_eq!(status, 0, "{}", c_text(&msg));
    assert_eq!(sum, 10 * (1..=8).sum::<i64>());
    assert_eq!(calls.load(Ordering::SeqCst), 8);
    assert_eq!(guard_drops.load(Ordering::SeqCst), 0);
    // The last reference is dropped on a C thread: the closure (and what it
    // owns) is destroyed there, exactly once.
    // SAFETY: the raw reference is ours and passes (stolen) to the C thread that drops it.
    assert_eq!(unsafe { cross_drop_on_thread(f.into_object().into_raw()) }, 0, "a thread was started");
    assert_eq!(guard_drops.load(Ordering::SeqCst), 1);
}

#[test]
fn rust_object_dropped_last_on_a_c_thread_runs_drop_once() {
    let (obj, drops) = tracked(3);
    // SAFETY: the raw reference is ours and passes (stolen) to the C thread that drops it.
    assert_eq!(unsafe { cross_drop_on_thread(obj.into_raw()) }, 0, "a thread was started");
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn c_weak_reference_to_a_rust_object_sees_it_die() {
    let (obj, drops) = tracked(5);
    let mut weak = ptr::null_mut();
    // SAFETY: a valid out slot and a live object.
    assert_eq!(unsafe { sys::xffi_weak_new(&mut weak, obj.as_ptr()) }, 0);
    // SAFETY: `weak` is a weak reference we hold.
    assert_eq!(unsafe { cross_weak_is_alive(weak) }, 1);
    drop(obj);
    // Drop ran (flag 1) but the memory stays for the weak reference.
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    // SAFETY: `weak` is a weak reference we hold (the memory is kept for it).
    assert_eq!(unsafe { cross_weak_is_alive(weak) }, 0);
    // SAFETY: `weak` is ours, released once.
    unsafe { sys::xffi_weak_release(weak) }; // flag 2: memory freed now
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn rust_weak_reference_to_a_c_object_sees_it_die() {
    let _g = C_COUNTERS.lock().unwrap();
    let (contents0, memory0) = c_counts();
    let node = new_c_node(11);
    let weak = node.downgrade().unwrap();
    assert_eq!(weak.upgrade().unwrap().value, 11);
    drop(node);
    assert!(weak.upgrade().is_none());
    assert_eq!(c_counts(), (contents0 + 1, memory0), "contents gone, memory kept for the weak ref");
    drop(weak);
    assert_eq!(c_counts(), (contents0 + 1, memory0 + 1));
}

#[test]
fn weak_reference_upgrades_concurrently_with_the_last_drop() {
    for _ in 0..50 {
        let (obj, drops) = tracked(9);
        let weak = obj.downgrade().unwrap();
        let t = std::thread::spawn(move || {
            let mut seen = 0;
            while let Some(o) = weak.upgrade() {
                assert_eq!(o.id, 9);
                seen += 1;
            }
            seen
        });
        std::thread::yield_now();
        drop(obj);
        t.join().unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }
}

#[test]
fn rust_error_reaches_c_with_kind_and_message() {
    let f = Function::from_typed(|x: i64| -> xffi::Result<i64> {
        Err(Error::new(xffi::ErrorKind::from("CrossError"), &format!("rust refused {x}")))
    })
    .unwrap();
    let mut kind = [0 as c_char; 128];
    let mut msg = [0 as c_char; 128];
    // SAFETY: a live Function (borrowed) and two 128-byte buffers.
    let r = unsafe { cross_call_expect_error(f.as_ptr(), kind.as_mut_ptr(), msg.as_mut_ptr(), 128) };
    assert_eq!(r, 1);
    assert_eq!(c_text(&kind), "CrossError");
    assert_eq!(c_text(&msg), "rust refused 7");
}

#[test]
fn c_error_reaches_rust_and_passes_back_to_c_through_question_mark() {
    let mut raw = ptr::null_mut();
    // SAFETY: a valid out slot.
    assert_eq!(unsafe { cross_make_failing_function(&mut raw) }, 0);
    // SAFETY: `raw` is a live Function we own; the view is copied before the release below.
    let c_fail: Function = unsafe { AnyView::from_raw(sys::xffi_any::object(raw)) }.get().unwrap();
    // SAFETY: `raw` is the reference cross_make_failing_function gave us, released once.
    unsafe { cross_release(raw) };

    // C -> Rust: an Err with the C error's kind and message.
    let err = c_fail.call_typed::<i64, _>((42i64,)).unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::ValueError);
    assert_eq!(err.message(), "cross_c_fail: argument 0 was 42");

    // C -> Rust -> C: `?` passes the same error object on.
    let inner = c_fail.clone();
    let relay = Function::from_typed(move |x: i64| -> xffi::Result<i64> {
        let v: i64 = inner.call_typed((x,))?;
        Ok(v)
    })
    .unwrap();
    let mut kind = [0 as c_char; 128];
    let mut msg = [0 as c_char; 128];
    // SAFETY: a live Function (borrowed) and two 128-byte buffers.
    assert_eq!(unsafe { cross_call_expect_error(relay.as_ptr(), kind.as_mut_ptr(), msg.as_mut_ptr(), 128) }, 1);
    assert_eq!(c_text(&kind), "ValueError");
    assert_eq!(c_text(&msg), "cross_c_fail: argument 0 was 7");
}

thread_local! {
    static QUIET_PANICS: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the panic messages of this thread silenced. Only this
/// thread's: a test failing on another thread meanwhile still says why
/// (swapping the process-wide hook for a silent one would hide that).
fn quietly<R>(f: impl FnOnce() -> R) -> R {
    static FILTER: Once = Once::new();
    FILTER.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET_PANICS.get() {
                default(info)
            }
        }));
    });
    QUIET_PANICS.set(true);
    let r = f();
    QUIET_PANICS.set(false);
    r
}

#[test]
fn panic_in_a_rust_callback_becomes_an_error_in_c_and_the_closure_is_still_dropped_once() {
    let (guard, guard_drops) = tracked(0);
    let f = Function::from_closure(move |args: &[AnyView]| -> xffi::Result<Any> {
        let _keep = &guard;
        let x: i64 = args[0].get()?;
        if x == 7 {
            panic!("boom at {x}");
        }
        Ok(Any::from(x))
    })
    .unwrap();
    let mut kind = [0 as c_char; 128];
    let mut msg = [0 as c_char; 128];
    // SAFETY: a live Function (borrowed) and two 128-byte buffers.
    let r = quietly(|| unsafe { cross_call_expect_error(f.as_ptr(), kind.as_mut_ptr(), msg.as_mut_ptr(), 128) });
    assert_eq!(r, 1);
    assert_eq!(c_text(&kind), "RuntimeError");
    assert_eq!(c_text(&msg), "Rust closure: Rust panic: boom at 7");
    // The function still works after the panic.
    assert_eq!(f.call_typed::<i64, _>((1i64,)).unwrap(), 1);
    drop(f);
    assert_eq!(guard_drops.load(Ordering::SeqCst), 1);
}

#[test]
fn rust_objects_in_an_array_of_1000_are_each_dropped_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let arr: xffi::Array<ObjectRef<Tracked>> =
        (0..1000).map(|i| ObjectRef::new(Tracked { id: i, drops: drops.clone() }).unwrap()).collect();
    assert_eq!(arr.iter().map(|o| o.unwrap().id).sum::<i64>(), 999 * 1000 / 2);
    let any = Any::from(arr.clone());
    drop(arr);
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    drop(any);
    assert_eq!(drops.load(Ordering::SeqCst), 1000);
}

#[test]
fn checked_downcasts_between_rust_and_c_types() {
    let (obj, _drops) = tracked(1);
    let as_any = Any::from(obj.clone());
    let err = as_any.get::<ObjectRef<CNode>>().unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::TypeError);
    assert_eq!(err.message(), "expected cross.CNode, got cross.Tracked");
    let base: ObjectRef<Object> = as_any.get().unwrap();
    assert!(base.downcast::<Tracked>().unwrap().ptr_eq(&obj));
}
