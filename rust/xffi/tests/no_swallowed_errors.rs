//! Errors reach the caller: a container read that fails (here: out of
//! memory making an xffi String from a short inline string, or viewing a key)
//! is an `Err`, never an empty iteration, `false`, `None` or a panic; and
//! Array and List agree on `get`.
mod support;

use support::{c_allocations, with_allocations_failing};
use xffi::{Any, Array, Dict, List, Map};

fn xstr(s: &str) -> xffi::String {
    xffi::String::new(s).unwrap()
}

fn is_memory_error<T: std::fmt::Debug>(r: xffi::Result<T>) -> bool {
    matches!(r, Err(e) if e.kind() == xffi::ErrorKind::MemoryError)
}

#[test]
fn map_iteration_out_of_memory_is_an_error_item_not_an_empty_iteration() {
    support::install(); // before this test allocates through xffi
    // Short strings are stored inline; reading one as an xffi String allocates.
    let inline: Map<String, i64> = [("a".to_string(), 1), ("b".to_string(), 2)].into_iter().collect();
    let m: Map<xffi::String, i64> = Any::from(inline).get().unwrap();
    let items: Vec<_> = with_allocations_failing(|| m.iter().collect());
    assert_eq!(items.len(), 1, "the iteration ends after its error: {items:?}");
    assert!(is_memory_error(items.into_iter().next().unwrap()));
    let keys: Vec<_> = with_allocations_failing(|| m.keys().collect());
    assert!(keys.len() == 1 && keys[0].as_ref().is_err_and(|e| e.kind() == xffi::ErrorKind::MemoryError));

    // With memory, every entry, in order.
    let entries = m.iter().collect::<xffi::Result<Vec<_>>>().unwrap();
    assert_eq!(entries, vec![(xstr("a"), 1), (xstr("b"), 2)]);
}

#[test]
fn lookups_report_errors_instead_of_absent() {
    support::install(); // before this test allocates through xffi
    // A long key with a NUL inside can only be viewed through a new xffi String.
    let key = "a key longer than seven bytes, with a \0 inside";
    let m: Map<String, i64> = [(key.to_string(), 1)].into_iter().collect();
    let d: Dict<String, i64> = Dict::new().unwrap();
    d.insert(key.to_string(), 2).unwrap();

    assert!(is_memory_error(with_allocations_failing(|| m.contains_key(key))));
    assert!(is_memory_error(with_allocations_failing(|| m.get(key))));
    assert!(is_memory_error(with_allocations_failing(|| d.contains_key(key))));
    assert!(is_memory_error(with_allocations_failing(|| d.get(key))));
    assert!(is_memory_error(with_allocations_failing(|| d.pop(key))));
    assert_eq!(d.len(), 1, "a failed pop removes nothing");

    assert!(m.contains_key(key).unwrap());
    assert_eq!(m.get(key).unwrap(), Some(1));
    assert_eq!(d.pop(key).unwrap(), 2);
    assert!(!d.contains_key(key).unwrap());
}

#[test]
fn lookups_by_borrowed_key_make_no_owned_key() {
    support::install(); // before this test allocates through xffi
    let long = "a key longer than seven bytes";
    let mut m: Map<String, i64> = [(long.to_string(), 1)].into_iter().collect();
    let d: Dict<String, i64> = Dict::new().unwrap();
    d.insert(long.to_string(), 2).unwrap();

    let before = c_allocations();
    assert_eq!(m.get(long).unwrap(), Some(1));
    assert!(m.contains_key(long).unwrap());
    assert_eq!(m.get("absent, and also longer than seven").unwrap(), None);
    assert_eq!(d.get(long).unwrap(), Some(2));
    assert!(d.contains_key(long).unwrap());
    assert_eq!(c_allocations() - before, 0, "no xffi String is made to look a &str up");

    // The same holds for every key kind that is viewed in place.
    let ints: Map<i64, bool> = [(7, true)].into_iter().collect();
    let bytes: Map<Vec<u8>, i64> = [(b"bytes longer than seven".to_vec(), 3)].into_iter().collect();
    let before = c_allocations();
    assert_eq!(ints.get(&7).unwrap(), Some(true));
    assert_eq!(bytes.get(&b"bytes longer than seven"[..]).unwrap(), Some(3));
    assert_eq!(c_allocations() - before, 0);

    m.remove(long).unwrap();
    assert!(m.is_empty());
}

#[test]
fn array_and_list_get_agree() {
    support::install(); // before this test allocates through xffi
    // Element 0 is a short string, stored inline: reading it as an xffi String allocates.
    let items = || vec![Any::from("x"), Any::from("a string longer than seven bytes")];
    let array: Array<xffi::String> = Any::from(Array::from_vec(items()).unwrap()).get().unwrap();
    let list: List<xffi::String> = Any::from(List::from_vec(items()).unwrap()).get().unwrap();

    // In range: the element; past the end: Ok(None), for both.
    assert_eq!(array.get(1).unwrap(), Some(xstr("a string longer than seven bytes")));
    assert_eq!(list.get(1).unwrap(), Some(xstr("a string longer than seven bytes")));
    assert_eq!(array.get(2).unwrap(), None);
    assert_eq!(list.get(2).unwrap(), None);
    assert_eq!(array.get(usize::MAX).unwrap(), None);
    assert_eq!(list.get(usize::MAX).unwrap(), None);

    // A failure is an Err, for both.
    assert!(is_memory_error(with_allocations_failing(|| array.get(0))));
    assert!(is_memory_error(with_allocations_failing(|| list.get(0))));
    let first = with_allocations_failing(|| array.iter().next().unwrap());
    assert!(is_memory_error(first));
}

#[test]
fn a_list_element_of_the_wrong_type_is_an_error_with_its_index() {
    support::install(); // before this test allocates through xffi
    let l: List<Any> = List::from_vec(vec![Any::from(1i64), Any::from("two")]).unwrap();
    let as_ints: List<i64> = Any::from(l).get().unwrap();
    let err = as_ints.get(1).unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::TypeError);
    assert_eq!(err.message(), "element 1: xffi_any_to_int: expected int, got str");
}
