//! Safe walks and maps over Rust closures (src/structural_visit.rs): order,
//! skipping, stopping with a payload, errors and panics in the closure
//! (errors, never unwinding through C), a 10^6-deep List, map's copy rules.
use std::time::{Duration, Instant};

use xffi::structural_visit::{Order, WalkAction, map, walk};
use xffi::{Any, AnyView, ErrorKind, List, structural_equal, sys};

fn ints(items: &[i64]) -> List<Any> {
    List::from_vec(items.iter().map(|&i| Any::from(i)).collect()).unwrap()
}

/// [[1, 2], 3]
fn nested() -> List<Any> {
    List::from_vec(vec![Any::from(&ints(&[1, 2])), Any::from(3i64)]).unwrap()
}

fn label(v: &AnyView<'_>) -> String {
    match v.get::<i64>() {
        Ok(i) => i.to_string(),
        Err(_) => "list".into(),
    }
}

#[test]
fn walks_in_either_order_and_skips() {
    let mut seen = Vec::new();
    let stopped = walk(&nested(), Order::Pre, |v| {
        seen.push(label(v));
        Ok(WalkAction::Advance)
    })
    .unwrap();
    assert!(stopped.is_none());
    assert_eq!(seen, ["list", "list", "1", "2", "3"]);
    seen.clear();
    walk(&nested(), Order::Post, |v| {
        seen.push(label(v));
        Ok(WalkAction::Advance)
    })
    .unwrap();
    assert_eq!(seen, ["1", "2", "list", "3", "list"]);
    // Skip the inner list's children.
    seen.clear();
    let mut depth0 = true;
    walk(&nested(), Order::Pre, |v| {
        seen.push(label(v));
        let root = std::mem::replace(&mut depth0, false);
        Ok(if !root && v.get::<i64>().is_err() { WalkAction::Skip } else { WalkAction::Advance })
    })
    .unwrap();
    assert_eq!(seen, ["list", "list", "3"]);
}

#[test]
fn a_stop_ends_the_walk_with_its_payload() {
    let mut seen = 0;
    let stopped = walk(&nested(), Order::Pre, |v| {
        seen += 1;
        Ok(if v.get::<i64>().ok() == Some(2) { WalkAction::Stop(Any::from("found two")) } else { WalkAction::Advance })
    })
    .unwrap()
    .expect("stopped");
    assert_eq!(stopped.get::<String>().unwrap(), "found two");
    assert_eq!(seen, 4, "nothing after the stop");
    // A payload of None is still a stop.
    let stopped = walk(&nested(), Order::Pre, |_| Ok(WalkAction::Stop(Any::none()))).unwrap();
    assert!(stopped.expect("stopped").is_none());
}

#[test]
fn closure_errors_and_panics_come_back_as_errors() {
    let err = walk(&nested(), Order::Pre, |v| {
        if v.get::<i64>().ok() == Some(1) {
            Err(xffi::Error::value_error("one is refused"))
        } else {
            Ok(WalkAction::Advance)
        }
    })
    .unwrap_err();
    assert_eq!((err.kind(), &*err.message()), (ErrorKind::ValueError, "one is refused"));
    let err = walk(&nested(), Order::Post, |v| {
        if v.get::<i64>().ok() == Some(2) {
            panic!("closure gave up at 2");
        }
        Ok(WalkAction::Advance)
    })
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::RuntimeError);
    assert!(err.message().contains("Rust panic: closure gave up at 2"), "{err}");
    let err =
        map(Any::from(&nested()), Order::Post, |_| -> xffi::Result<Option<Any>> { panic!("map closure panicked") })
            .unwrap_err();
    assert!(err.message().contains("Rust panic: map closure panicked"), "{err}");
    // Both still work afterwards.
    assert!(walk(&nested(), Order::Pre, |_| Ok(WalkAction::Advance)).unwrap().is_none());
}

#[test]
fn a_million_deep_list_is_walked_and_mapped_with_bounded_stack() {
    const DEPTH: usize = 1_000_000;
    let start = Instant::now();
    let mut v = Any::from(0i64);
    for _ in 0..DEPTH {
        v = Any::from(List::from_vec(vec![v]).unwrap());
    }
    let built = start.elapsed();
    let start = Instant::now();
    let mut lists = 0usize;
    let stopped = walk(&v, Order::Post, |x| {
        lists += (x.type_index() != sys::XFFI_TYPE_INT) as usize;
        Ok(WalkAction::Advance)
    })
    .unwrap();
    let walked = start.elapsed();
    assert!(stopped.is_none());
    assert_eq!(lists, DEPTH);
    // An interrupt deep down.
    let mut seen = 0usize;
    let stopped = walk(&v, Order::Pre, |x| {
        seen += 1;
        Ok(if x.type_index() == sys::XFFI_TYPE_INT {
            WalkAction::Stop(Any::from("bottom"))
        } else {
            WalkAction::Advance
        })
    })
    .unwrap();
    assert_eq!(stopped.unwrap().get::<String>().unwrap(), "bottom");
    assert_eq!(seen, DEPTH + 1);
    // Mapping the bottom int: every list on the path is rebuilt in place (unique).
    let start = Instant::now();
    let mapped = map(v, Order::Post, |x| {
        Ok((x.type_index() == sys::XFFI_TYPE_INT).then(|| Any::from(x.get::<i64>().unwrap() + 1)))
    })
    .unwrap();
    let mapped_in = start.elapsed();
    let mut bottom = None;
    walk(&mapped, Order::Pre, |x| {
        if x.type_index() == sys::XFFI_TYPE_INT {
            bottom = Some(x.get::<i64>().unwrap());
        }
        Ok(WalkAction::Advance)
    })
    .unwrap();
    assert_eq!(bottom, Some(1));
    eprintln!("10^6-deep List: built {built:?}, walked {walked:?}, mapped {mapped_in:?}");
    // Generous limits (measured figures in the report): far under these in a debug build.
    assert!(walked < Duration::from_secs(60) && mapped_in < Duration::from_secs(60));
}

#[test]
fn map_keeps_what_did_not_change_and_copies_what_is_shared() {
    let inner = ints(&[1, 2]);
    let outer = List::from_vec(vec![Any::from(&inner), Any::from(&ints(&[5]))]).unwrap();
    // Nothing changes: the very same object back.
    let same = map(Any::from(&outer), Order::Post, |_| Ok(None)).unwrap();
    assert!(same.get::<List<Any>>().unwrap().as_object().ptr_eq(outer.as_object()));
    // 2 -> 20: shared lists are copied, the originals stay.
    let changed = map(Any::from(&outer), Order::Post, |x| {
        Ok(if x.get::<i64>().ok() == Some(2) { Some(Any::from(20i64)) } else { None })
    })
    .unwrap();
    let expected = List::from_vec(vec![Any::from(&ints(&[1, 20])), Any::from(&ints(&[5]))]).unwrap();
    assert!(structural_equal(&changed, &expected).unwrap());
    assert_eq!(inner.get(1).unwrap().unwrap().get::<i64>().unwrap(), 2);
    // The unchanged sibling is kept, not copied.
    let changed: List<Any> = changed.get().unwrap();
    let kept = changed.get(1).unwrap().unwrap().get::<List<Any>>().unwrap();
    let original = outer.get(1).unwrap().unwrap().get::<List<Any>>().unwrap();
    assert!(kept.as_object().ptr_eq(original.as_object()));
    // Pre-order: a replacement is descended.
    let pre = map(Any::from(&ints(&[1])), Order::Pre, |x| {
        Ok(if x.get::<i64>().ok() == Some(1) { Some(Any::from(&ints(&[7]))) } else { None })
    })
    .unwrap();
    assert!(structural_equal(&pre, &List::from_vec(vec![Any::from(&ints(&[7]))]).unwrap()).unwrap());
    // A closure error: nothing returned, the input intact.
    let err = map(Any::from(&outer), Order::Post, |_| Err(xffi::Error::type_error("no"))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeError);
    assert_eq!(outer.len(), 2);
}
