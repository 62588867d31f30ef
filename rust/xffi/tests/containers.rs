//! Shared containers from several threads, and element destructors that
//! use the container they are removed from (no deadlock, no lost update).
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use xffi::{Any, Dict, List, ObjectRef, object_type};

struct Reentrant {
    list: List<Any>,
    drops: Arc<AtomicUsize>,
}
impl Drop for Reentrant {
    fn drop(&mut self) {
        // Runs when the element is released: touches the very list it is
        // being removed from (and so the lock that guards it).
        self.list.push(Any::from(99i64)).unwrap();
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}
object_type!(Reentrant, "tests.Reentrant");

#[test]
fn list_set_remove_clear_run_element_destructors_outside_the_lock() {
    let drops = Arc::new(AtomicUsize::new(0));
    let list: List<Any> = List::new().unwrap();
    let mk = || Any::from(ObjectRef::new(Reentrant { list: list.clone(), drops: drops.clone() }).unwrap());
    list.push(mk()).unwrap();
    list.set(0, Any::from(1i64)).unwrap(); // drops the element, which pushes 99
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    assert_eq!(list.to_vec().unwrap().iter().map(|a| a.get::<i64>().unwrap()).collect::<Vec<_>>(), vec![1, 99]);
    list.insert(0, mk()).unwrap();
    list.remove(0).unwrap();
    assert_eq!(drops.load(Ordering::SeqCst), 2);
    list.push(mk()).unwrap();
    list.clear().unwrap();
    assert_eq!(drops.load(Ordering::SeqCst), 3);
    assert_eq!(list.len(), 1, "the destructor's push lands after the clear");
}

#[test]
fn dict_replace_and_clear_run_value_destructors_outside_the_lock() {
    let log: List<Any> = List::new().unwrap();
    let drops = Arc::new(AtomicUsize::new(0));
    let d: Dict<i64, Any> = Dict::new().unwrap();
    let mk = || Any::from(ObjectRef::new(Reentrant { list: log.clone(), drops: drops.clone() }).unwrap());
    d.insert(1, mk()).unwrap();
    d.insert(2, mk()).unwrap();
    d.insert(1, Any::from(0i64)).unwrap(); // replaces (and drops) the first
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    d.clear().unwrap();
    assert_eq!(drops.load(Ordering::SeqCst), 2);
}

#[test]
fn list_pushes_from_many_threads_are_all_kept() {
    let l: List<i64> = List::new().unwrap();
    std::thread::scope(|s| {
        for t in 0..4 {
            let l = l.clone();
            s.spawn(move || {
                for i in 0..500 {
                    l.push(t * 1000 + i).unwrap();
                }
            });
        }
    });
    let mut v = l.to_vec().unwrap();
    v.sort();
    let mut want: Vec<i64> = (0..4).flat_map(|t| (0..500).map(move |i| t * 1000 + i)).collect();
    want.sort();
    assert_eq!(v, want);
}

#[test]
fn list_elements_of_the_wrong_type_are_reported_with_their_index() {
    let l: List<Any> = List::from_vec(vec![Any::from(1i64), Any::from("two")]).unwrap();
    let as_ints: List<i64> = Any::from(l).get().unwrap();
    assert_eq!(as_ints.get(0).unwrap(), Some(1));
    let err = as_ints.get(1).unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::TypeError);
    assert_eq!(err.message(), "element 1: xffi_any_to_int: expected int, got str");
}

#[test]
fn array_conversion_checks_every_element_once() {
    let a: xffi::Array<Any> = vec![Any::from(1i64), Any::from(2.5)].into_iter().collect();
    let err = Any::from(a.clone()).get::<xffi::Array<i64>>().unwrap_err();
    assert_eq!(err.message(), "element 1: xffi_any_to_int: expected int, got float");
    let floats: xffi::Array<f64> = Any::from(a).get().unwrap();
    assert_eq!(floats.iter().collect::<xffi::Result<Vec<_>>>().unwrap(), vec![1.0, 2.5]);
}

#[test]
fn map_lookup_by_small_and_large_string_keys() {
    let long = "a key longer than seven bytes".to_string();
    let m: xffi::Map<String, i64> = [("k".to_string(), 1), (long.clone(), 2)].into_iter().collect();
    assert_eq!(m.get("k").unwrap(), Some(1));
    assert_eq!(m.get(long.as_str()).unwrap(), Some(2));
    let err = Any::from(m).get::<xffi::Map<String, String>>().unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::TypeError);
    assert_eq!(err.message(), "value of key \"k\": xffi_any_to_str: expected str, got int");
}
