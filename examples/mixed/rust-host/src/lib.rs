//! Helpers shared by the Rust host programs: checks that print a line per
//! failure and end in an exit status, and registry lookups by key.

use std::ffi::CString;
use std::process::ExitCode;

/// Counts checks; each failure prints a `FAIL` line. [`Checks::finish`]
/// prints the summary and gives the exit status (failure after any failed check).
pub struct Checks {
    name: &'static str,
    passed: usize,
    failed: usize,
}

impl Checks {
    /// A new, empty set of checks for the program `name`.
    pub fn new(name: &'static str) -> Checks {
        Checks { name, passed: 0, failed: 0 }
    }

    /// Records a condition that must hold.
    #[track_caller]
    pub fn check(&mut self, ok: bool, what: impl AsRef<str>) {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
            eprintln!("FAIL {}: {}", std::panic::Location::caller(), what.as_ref());
        }
    }

    /// Records a result that must be `Ok`, giving its value.
    #[track_caller]
    pub fn ok<T>(&mut self, r: xffi::Result<T>, what: &str) -> Option<T> {
        match r {
            Ok(v) => {
                self.passed += 1;
                Some(v)
            }
            Err(e) => {
                self.failed += 1;
                eprintln!("FAIL {}: {what}: {e}", std::panic::Location::caller());
                None
            }
        }
    }

    /// Records a result that must be an error of `kind` with `message`.
    #[track_caller]
    pub fn fails<T>(&mut self, r: xffi::Result<T>, kind: &str, message: &str) {
        match r {
            Err(e) if e.kind() == xffi::ErrorKind::from(kind) && e.message() == message => self.passed += 1,
            Err(e) => {
                self.failed += 1;
                eprintln!("FAIL {}: expected {kind}: {message}\n      got {e}", std::panic::Location::caller());
            }
            Ok(_) => {
                self.failed += 1;
                eprintln!(
                    "FAIL {}: expected {kind}: {message}, but the call succeeded",
                    std::panic::Location::caller()
                );
            }
        }
    }

    /// The number of failed checks so far.
    pub fn failures(&self) -> usize {
        self.failed
    }

    /// Prints the summary; the exit status is a failure after any failed check.
    pub fn finish(self) -> ExitCode {
        println!("{}: {} checks passed, {} failed", self.name, self.passed, self.failed);
        if self.failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
    }
}

/// The index of the type registered under `key` in this process's registry,
/// or None.
pub fn type_index_of(key: &str) -> Option<i32> {
    let c = CString::new(key).ok()?;
    let mut info = std::ptr::null();
    // SAFETY: valid out slot and key; the record is immortal.
    if unsafe { xffi::sys::xffi_type_info_get_by_key(&mut info, c.as_ptr()) } != xffi::sys::XFFI_OK {
        drop(xffi::Error::take_raised()); // KeyError: not registered
        return None;
    }
    // SAFETY: a registered type's record.
    Some(unsafe { (*info).type_index })
}

/// How this program was linked to xffi, for its report.
pub fn linking() -> &'static str {
    if cfg!(feature = "system") {
        "the shared libxffi.so"
    } else {
        "xffi linked statically into this program (its symbols exported)"
    }
}
