//! Example 3's plugin: a Rust cdylib a C program loads with
//! `xffi_module_load` (examples/mixed/c-host-rust-plugin/main.c). It defines
//! the Rust object type `rplugin.Counter` and exports, as `__tvm_ffi_<name>`:
//!
//! - `register()`: registers the type and the global function
//!   `rplugin.make_counter` (call once, after loading);
//! - `make_counter(start: int) -> rplugin.Counter`, `counter_add(counter,
//!   n: int) -> int` (the new value), `counter_value(counter) -> int`;
//! - `call_global(name: str, arg: any) -> any`: calls a global function;
//! - `probe_type_index(key: str) -> int` (-1 if unknown),
//!   `probe_has_global(name: str) -> bool`, `registered_names() -> Array[str]`
//!   (its type key and global name): for the one-runtime test;
//! - `stats() -> Array[int]`: [counters made, counters dropped, closures
//!   made, closures dropped];
//! - `fail(message: str)` raises ValueError(message); `panic(message: str)`
//!   panics, which the export turns into a RuntimeError.
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use xffi::{Any, Array, Error, Function, ObjectRef, RustObject, export_func, object_type};

// The marker xffi_module_load checks: one per library.
xffi::export_abi_marker!();

const COUNTER_KEY: &str = "rplugin.Counter";
const GLOBAL_NAME: &str = "rplugin.make_counter";

static COUNTERS_MADE: AtomicU64 = AtomicU64::new(0);
static COUNTERS_DROPPED: AtomicU64 = AtomicU64::new(0);
static CLOSURES_MADE: AtomicU64 = AtomicU64::new(0);
static CLOSURES_DROPPED: AtomicU64 = AtomicU64::new(0);

/// A shared counter (type key `rplugin.Counter`): any holder may add to it.
pub struct Counter {
    value: AtomicI64,
}
object_type!(Counter, "rplugin.Counter");

impl Counter {
    fn new_object(start: i64) -> xffi::Result<ObjectRef<Counter>> {
        COUNTERS_MADE.fetch_add(1, Ordering::Relaxed);
        ObjectRef::new(Counter { value: AtomicI64::new(start) })
    }
}

impl Drop for Counter {
    fn drop(&mut self) {
        COUNTERS_DROPPED.fetch_add(1, Ordering::Relaxed);
    }
}

/// Lives inside the registered closure: counts it made and dropped.
struct Tracked;
impl Tracked {
    fn new() -> Tracked {
        CLOSURES_MADE.fetch_add(1, Ordering::Relaxed);
        Tracked
    }
}
impl Drop for Tracked {
    fn drop(&mut self) {
        CLOSURES_DROPPED.fetch_add(1, Ordering::Relaxed);
    }
}

export_func!(
    fn register() -> () {
        Counter::try_type_index()?;
        let t = Tracked::new();
        let make = Function::from_typed(move |start: i64| {
            let _ = &t;
            Counter::new_object(start)
        })?;
        make.register_global(GLOBAL_NAME, false)
    }
);

export_func!(
    fn make_counter(start: i64) -> ObjectRef<Counter> {
        Counter::new_object(start)
    }
);

export_func!(
    fn counter_add(counter: ObjectRef<Counter>, n: i64) -> i64 {
        Ok(counter.value.fetch_add(n, Ordering::SeqCst) + n)
    }
);

export_func!(
    fn counter_value(counter: ObjectRef<Counter>) -> i64 {
        Ok(counter.value.load(Ordering::SeqCst))
    }
);

export_func!(
    fn call_global(name: String, arg: Any) -> Any {
        let f = Function::get_global(&name)?.ok_or_else(|| {
            Error::new(xffi::ErrorKind::KeyError, &format!("call_global: no global function named '{name}'"))
        })?;
        f.call(&[arg.view()])
    }
);

export_func!(
    fn probe_type_index(key: String) -> i64 {
        let c = std::ffi::CString::new(key)?;
        let mut info = std::ptr::null();
        // SAFETY: valid out slot and key; the record is immortal.
        if unsafe { xffi::sys::xffi_type_info_get_by_key(&mut info, c.as_ptr()) } != xffi::sys::XFFI_OK {
            drop(Error::take_raised()); // KeyError: not registered in this runtime
            return Ok(-1);
        }
        // SAFETY: a registered type's record.
        Ok(i64::from(unsafe { (*info).type_index }))
    }
);

export_func!(
    fn probe_has_global(name: String) -> bool {
        Ok(Function::get_global(&name)?.is_some())
    }
);

export_func!(
    fn registered_names() -> Array<xffi::String> {
        Ok([xffi::String::new(COUNTER_KEY)?, xffi::String::new(GLOBAL_NAME)?].into_iter().collect())
    }
);

export_func!(
    fn stats() -> Array<i64> {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed) as i64;
        Ok([get(&COUNTERS_MADE), get(&COUNTERS_DROPPED), get(&CLOSURES_MADE), get(&CLOSURES_DROPPED)]
            .into_iter()
            .collect())
    }
);

export_func!(
    fn fail(message: String) -> () {
        Err(Error::value_error(&message))
    }
);

export_func!(
    fn panic(message: String) -> () {
        panic!("{message}")
    }
);
