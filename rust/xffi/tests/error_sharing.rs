//! Error::append_frame never changes an object another handle shares
//! (issue 12, item 2): a second handle (from `Any::get::<Error>()`) keeps
//! reading what it read, and threads appending to their own handles of one
//! error do not race.

use xffi::{Any, Error};

/// Two handles to one error object, and the Any that made the second.
fn shared(message: &str) -> (Error, Any) {
    let any = Any::from(Error::runtime_error(message));
    let first: Error = any.view().get().unwrap();
    (first, any)
}

#[test]
fn appending_to_a_shared_error_leaves_the_other_holders_untouched() {
    let (mut mine, any) = shared("boom");
    let theirs: Error = any.view().get().unwrap();
    assert_eq!(mine.as_ptr(), theirs.as_ptr());
    let before = theirs.backtrace(); // borrowed from the shared object
    mine.append_frame("in mine");
    assert_ne!(mine.as_ptr(), theirs.as_ptr(), "a shared error is copied before it changes");
    assert_eq!(before, "");
    assert_eq!(theirs.backtrace(), "");
    assert!(mine.backtrace().contains("in mine"));
    assert_eq!((mine.kind(), mine.message().as_ref()), (xffi::ErrorKind::RuntimeError, "boom"));
    // The copy keeps the frames it already had, and is now unshared.
    mine.append_frame("second");
    let copy = mine.as_ptr();
    mine.append_frame("third");
    assert_eq!(mine.as_ptr(), copy, "an unshared error changes in place");
    let backtrace = mine.backtrace();
    let lines: Vec<&str> = backtrace.lines().collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    for frame in ["in mine", "second", "third"] {
        assert!(lines.contains(&frame), "{lines:?}");
    }
}

#[test]
fn a_unique_error_is_appended_in_place() {
    let mut e = Error::value_error("v");
    let p = e.as_ptr();
    e.append_frame("one");
    e.append_frame("two");
    assert_eq!(e.as_ptr(), p);
    assert_eq!(e.backtrace().lines().count(), 2);
}

#[test]
fn a_weak_reference_counts_as_a_holder() {
    let any = Any::from(Error::runtime_error("w"));
    let obj: xffi::ObjectRef<xffi::Object> = any.view().get().unwrap();
    let weak = obj.downgrade().unwrap();
    drop(obj);
    let mut e: Error = any.view().get().unwrap();
    drop(any); // e is the only strong reference, but the weak one remains
    let p = e.as_ptr();
    e.append_frame("frame");
    // Copied: a weak holder could upgrade and read the original meanwhile.
    assert_ne!(e.as_ptr(), p);
    assert!(e.backtrace().contains("frame"));
    // The original, untouched, died with its last strong reference.
    assert!(weak.upgrade().is_none());
}

#[test]
fn threads_appending_to_handles_of_one_error_do_not_race() {
    const THREADS: usize = 4;
    const FRAMES: usize = 500;
    let (first, any) = shared("shared");
    let handles: Vec<Error> = (0..THREADS).map(|_| any.view().get().unwrap()).collect();
    let done: Vec<Error> = std::thread::scope(|s| {
        let workers: Vec<_> = handles
            .into_iter()
            .enumerate()
            .map(|(t, mut e)| {
                s.spawn(move || {
                    for i in 0..FRAMES {
                        e.append_frame(&format!("thread {t} frame {i}"));
                    }
                    e
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    assert_eq!(first.backtrace(), "");
    for (t, e) in done.iter().enumerate() {
        let backtrace = e.backtrace();
        let lines: Vec<&str> = backtrace.lines().collect();
        assert_eq!(lines.len(), FRAMES);
        assert!(lines.iter().all(|l| l.starts_with(&format!("thread {t} "))), "thread {t}: {lines:?}");
    }
}
