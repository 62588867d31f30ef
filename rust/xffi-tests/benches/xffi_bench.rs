//! Rust benchmarks, measured by the project's own harness
//! (bench/bench_harness.c, linked into this program only): rounds
//! interleaved with a baseline measured in the same run, heap allocations
//! counted per iteration, exact instruction counts under callgrind, and the
//! same table + JSON lines as the C benchmarks:
//!   {"op":"...","impl":"...","ns":1.23,"instructions":45.6,"mallocs":0}
//!
//! Run: `cargo bench -p xffi-tests --bench xffi_bench` (add `-- --quick` or
//! `-- --no-callgrind`).
use std::ffi::{c_char, c_int, c_void, CString};
use std::hint::black_box;
use std::sync::Arc;

use xffi::{object_type, Array, Function, ObjectRef};
use xffi_sys as sys;
use xffi_tests::{cross_call_loop, cross_make_c_add, cross_make_c_add_direct};

#[repr(C)]
struct BenchCase {
    impl_: *const c_char,
    func: extern "C" fn(*mut c_void, u64),
    ctx: *mut c_void,
}

extern "C" {
    fn bench_init(argc: c_int, argv: *mut *mut c_char);
    fn bench_op(op: *const c_char, cases: *const BenchCase, num_cases: c_int);
    fn bench_finish() -> c_int;
}

fn op(name: &str, cases: &[(&str, extern "C" fn(*mut c_void, u64), *mut c_void)]) {
    let names: Vec<CString> = cases.iter().map(|c| CString::new(c.0).unwrap()).collect();
    let raw: Vec<BenchCase> =
        cases.iter().zip(&names).map(|(c, n)| BenchCase { impl_: n.as_ptr(), func: c.1, ctx: c.2 }).collect();
    let op = CString::new(name).unwrap();
    // SAFETY: a NUL-terminated name and raw.len() cases whose names (`names`) outlive the call.
    unsafe { bench_op(op.as_ptr(), raw.as_ptr(), raw.len() as c_int) };
}

fn ctx<T>(v: &T) -> *mut c_void {
    v as *const T as *mut c_void
}

// ---- 1. A C function called from Rust: xffi-sys directly vs the safe wrapper.

extern "C" fn call_c_via_sys(ctx: *mut c_void, n: u64) {
    // SAFETY: ctx is the `ctx(&value)` this case was registered with in main, alive for the whole bench_op call.
    let f = unsafe { &*(ctx as *const Function) };
    let raw = f.as_ptr();
    let mut sum = 0i64;
    for i in 0..n as i64 {
        let args = [sys::xffi_any::int(i), sys::xffi_any::int(1)];
        let mut result = sys::xffi_any::none();
        // SAFETY: a live Function, two argument views and a result slot.
        let status = unsafe { sys::xffi_function_call_inline(raw, args.as_ptr(), 2, &mut result) };
        if status != sys::XFFI_OK || result.type_index != sys::XFFI_TYPE_INT {
            panic!("call failed");
        }
        // SAFETY: checked just above: the result holds an int.
        sum += unsafe { result.value.v_int64 };
    }
    black_box(sum);
}

extern "C" fn call_c_via_safe(ctx: *mut c_void, n: u64) {
    // SAFETY: ctx is the `ctx(&value)` this case was registered with in main, alive for the whole bench_op call.
    let f = unsafe { &*(ctx as *const Function) };
    let mut sum = 0i64;
    for i in 0..n as i64 {
        sum += f.call_typed::<i64, _>((i, 1i64)).unwrap();
    }
    black_box(sum);
}

// ---- 2. A function called from C: C callback vs Rust closure.

extern "C" fn c_calls(ctx: *mut c_void, n: u64) {
    // SAFETY: ctx is the `ctx(&value)` this case was registered with in main, alive for the whole bench_op call.
    let f = unsafe { &*(ctx as *const Function) };
    let mut sum = 0;
    // SAFETY: a valid sum slot and a live Function (borrowed).
    assert_eq!(unsafe { cross_call_loop(&mut sum, f.as_ptr(), n as i64) }, 0);
    black_box(sum);
}

// ---- 3. Create and drop a Rust-defined object.

#[allow(dead_code)]
struct Particle {
    pos: [f64; 3],
    id: i64,
}
object_type!(Particle, "bench.Particle");

extern "C" fn box_new_drop(_: *mut c_void, n: u64) {
    for i in 0..n as i64 {
        black_box(Arc::new(Particle { pos: [1.0, 2.0, 3.0], id: i }));
    }
}

extern "C" fn object_new_drop(_: *mut c_void, n: u64) {
    for i in 0..n as i64 {
        black_box(ObjectRef::new(Particle { pos: [1.0, 2.0, 3.0], id: i }).unwrap());
    }
}

// ---- 3b. Clone + drop of one handle (the strong-count increment with its
// overflow check, then the decrement).

extern "C" fn arc_clone_drop(ctx: *mut c_void, n: u64) {
    // SAFETY: ctx is the `ctx(&value)` this case was registered with in main, alive for the whole bench_op call.
    let a = unsafe { &*(ctx as *const Arc<Particle>) };
    for _ in 0..n {
        black_box(a.clone());
    }
}

extern "C" fn object_clone_drop(ctx: *mut c_void, n: u64) {
    // SAFETY: ctx is the `ctx(&value)` this case was registered with in main, alive for the whole bench_op call.
    let o = unsafe { &*(ctx as *const ObjectRef<Particle>) };
    for _ in 0..n {
        black_box(o.clone());
    }
}

// ---- 4. An Array of 1,000 Rust-defined objects, made and dropped.

extern "C" fn vec_of_arcs(_: *mut c_void, n: u64) {
    for _ in 0..n {
        let v: Vec<Arc<Particle>> = (0..1000).map(|i| Arc::new(Particle { pos: [0.0; 3], id: i })).collect();
        black_box(v);
    }
}

extern "C" fn array_of_objects(_: *mut c_void, n: u64) {
    for _ in 0..n {
        let a: Array<ObjectRef<Particle>> =
            (0..1000).map(|i| ObjectRef::new(Particle { pos: [0.0; 3], id: i }).unwrap()).collect();
        black_box(a);
    }
}

// ---- 5. An int field of a derived type: Rust's direct load, the same
// field by name (xffi_object_get_field: lookup, then the getter), and
// through the field record's getter looked up once (what Python's
// attribute read does per access).

#[derive(xffi::Object)]
#[xffi(type_key = "bench.Reading")]
struct Reading {
    #[xffi(get)]
    a: i64,
    #[xffi(get)]
    b: i64,
}

extern "C" fn field_direct(ctx: *mut c_void, n: u64) {
    // SAFETY: ctx is the `ctx(&value)` this case was registered with in main, alive for the whole bench_op call.
    let r = unsafe { &*(ctx as *const ObjectRef<Reading>) };
    for _ in 0..n {
        black_box(black_box(r).a);
    }
}

extern "C" fn field_by_name(ctx: *mut c_void, n: u64) {
    // SAFETY: ctx is the `ctx(&value)` this case was registered with in main, alive for the whole bench_op call.
    let r = unsafe { &*(ctx as *const ObjectRef<Reading>) };
    for _ in 0..n {
        black_box(black_box(r).get_field("a").unwrap());
    }
}

extern "C" fn field_by_name_sys(ctx: *mut c_void, n: u64) {
    // SAFETY: ctx is the `ctx(&value)` this case was registered with in main, alive for the whole bench_op call.
    let r = unsafe { &*(ctx as *const ObjectRef<Reading>) };
    for _ in 0..n {
        let mut out = sys::xffi_any::none();
        // SAFETY: a live object, a NUL-terminated name, a slot for a plain int.
        let status = unsafe { sys::xffi_object_get_field(&mut out, black_box(r).as_ptr(), c"a".as_ptr()) };
        black_box((status, out.type_index));
    }
}

extern "C" fn field_by_getter(ctx: *mut c_void, n: u64) {
    // SAFETY: ctx is the `ctx(&value)` this case was registered with in main, alive for the whole bench_op call.
    let r = unsafe { &*(ctx as *const ObjectRef<Reading>) };
    let mut info = std::ptr::null();
    // SAFETY: valid out slot, a registered type, a NUL-terminated name.
    unsafe { sys::xffi_type_find_field(&mut info, r.type_index(), c"a".as_ptr()) };
    // SAFETY: the field's immortal record, found above.
    let (getter, offset) = unsafe { ((*info).getter.unwrap(), (*info).offset as usize) };
    for _ in 0..n {
        let mut out = sys::xffi_any::none();
        // SAFETY: the field's address in a live object, and a slot for a plain int.
        let status = unsafe { getter(black_box(r).as_ptr().cast::<u8>().add(offset).cast(), &mut out) };
        black_box((status, out.type_index));
    }
}

fn main() {
    // cargo bench passes --bench: the harness does not know it.
    let args: Vec<CString> = std::env::args().filter(|a| a != "--bench").map(|a| CString::new(a).unwrap()).collect();
    let mut argv: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    // SAFETY: argv holds argv.len() NUL-terminated strings owned by `args`, alive until exit.
    unsafe { bench_init(argv.len() as c_int, argv.as_mut_ptr()) };

    let mut raw = std::ptr::null_mut();
    // SAFETY: a valid out slot.
    assert_eq!(unsafe { cross_make_c_add(&mut raw) }, 0);
    // SAFETY: `raw` is a live Function we own; get() takes its own reference.
    let c_add: Function = unsafe { xffi::AnyView::from_raw(sys::xffi_any::object(raw)) }.get().unwrap();
    // SAFETY: drops the reference the constructor gave us, once.
    unsafe { sys::xffi_object_dec_ref(raw) };
    // SAFETY: a valid out slot.
    assert_eq!(unsafe { cross_make_c_add_direct(&mut raw) }, 0);
    // SAFETY: `raw` is a live Function we own; get() takes its own reference.
    let c_add_direct: Function = unsafe { xffi::AnyView::from_raw(sys::xffi_any::object(raw)) }.get().unwrap();
    // SAFETY: drops the reference the constructor gave us, once.
    unsafe { sys::xffi_object_dec_ref(raw) };
    let rust_add = Function::from_typed(|a: i64, b: i64| Ok(a + b)).unwrap();
    let rust_add_untyped = Function::from_closure(|args: &[xffi::AnyView]| {
        let a: i64 = args[0].get()?;
        let b: i64 = args[1].get()?;
        Ok(xffi::Any::from(a + b))
    })
    .unwrap();

    op(
        "rust calls C add(i, 1)",
        &[("xffi-sys", call_c_via_sys, ctx(&c_add)), ("xffi safe", call_c_via_safe, ctx(&c_add))],
    );
    op(
        "C calls add(i, 1)",
        &[
            ("C callback", c_calls, ctx(&c_add)),
            ("C direct fn", c_calls, ctx(&c_add_direct)),
            ("Rust typed fn", c_calls, ctx(&rust_add)),
            ("Rust closure", c_calls, ctx(&rust_add_untyped)),
        ],
    );
    op(
        "create+drop object",
        &[("Arc::new", box_new_drop, std::ptr::null_mut()), ("ObjectRef::new", object_new_drop, std::ptr::null_mut())],
    );
    let arc = Arc::new(Particle { pos: [0.0; 3], id: 0 });
    let object = ObjectRef::new(Particle { pos: [0.0; 3], id: 0 }).unwrap();
    op("clone+drop handle", &[("Arc", arc_clone_drop, ctx(&arc)), ("ObjectRef", object_clone_drop, ctx(&object))]);
    op(
        "1000 objects in a container",
        &[
            ("Vec<Arc>", vec_of_arcs, std::ptr::null_mut()),
            ("Array<ObjectRef>", array_of_objects, std::ptr::null_mut()),
        ],
    );
    let reading = ObjectRef::new(Reading { a: 1, b: 2 }).unwrap();
    black_box(reading.b);
    op(
        "read an int field",
        &[
            ("Rust direct load", field_direct, ctx(&reading)),
            ("getter from the record", field_by_getter, ctx(&reading)),
            ("xffi_object_get_field", field_by_name_sys, ctx(&reading)),
            ("obj.get_field(name)", field_by_name, ctx(&reading)),
        ],
    );
    // SAFETY: after bench_init, as the harness requires.
    std::process::exit(unsafe { bench_finish() });
}
