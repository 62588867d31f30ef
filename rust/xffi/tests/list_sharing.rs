//! A List shared between threads: its Debug reads the cell under the List's
//! lock, and an index that does not fit C's i64 is reported as itself
//! (issue 12, item 5).

use xffi::{Array, List, ListObj, ObjectRef};

fn list_obj(l: &List<i64>) -> ObjectRef<ListObj> {
    l.as_object().clone().downcast::<ListObj>().unwrap()
}

fn debug_len(obj: &ListObj) -> usize {
    let text = format!("{obj:?}");
    let len = text.strip_prefix("ListObj { len: ").and_then(|t| t.strip_suffix(" }"));
    len.unwrap_or_else(|| panic!("unexpected Debug output {text:?}")).parse().unwrap()
}

#[test]
fn debug_shows_the_length_taken_under_the_lock() {
    let l = List::from_vec(vec![1i64, 2, 3]).unwrap();
    assert_eq!(format!("{:?}", &*list_obj(&l)), "ListObj { len: 3 }");
}

#[test]
fn debug_while_another_thread_pushes_sees_consistent_lengths() {
    const PUSHES: usize = 20_000;
    let l = List::<i64>::new().unwrap();
    let obj = list_obj(&l);
    std::thread::scope(|s| {
        let pusher = s.spawn(|| {
            for i in 0..PUSHES {
                l.push(i as i64).unwrap();
            }
        });
        let mut last = 0;
        while !pusher.is_finished() {
            let len = debug_len(&obj);
            assert!(len >= last && len <= PUSHES, "length {len} after {last}");
            last = len;
        }
    });
    assert_eq!(debug_len(&obj), PUSHES);
}

#[test]
fn an_index_past_i64_max_is_reported_as_itself() {
    let l = List::from_vec(vec![1i64]).unwrap();
    let huge = usize::MAX;
    let errors = [
        ("xffi_list_set", l.set(huge, 2).unwrap_err()),
        ("xffi_list_insert", l.insert(huge, 2).unwrap_err()),
        ("xffi_list_erase", l.remove(huge).unwrap_err()),
    ];
    for (func, err) in errors {
        assert_eq!(err.kind(), xffi::ErrorKind::IndexError);
        assert_eq!(err.message(), format!("{func}: index {huge} is out of range for length 1"));
    }
    assert_eq!(l.to_vec().unwrap(), vec![1], "nothing changed");
    let mut a: Array<i64> = vec![1, 2].into_iter().collect();
    let err = a.set(huge, 0).unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::IndexError);
    assert_eq!(err.message(), format!("xffi_array_set: index {huge} is out of range for length 2"));
    // An index that fits keeps C's own message, with the same index.
    assert!(l.set(5, 0).unwrap_err().message().contains("index 5 is out of range for length 1"));
}
