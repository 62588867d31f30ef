//! A reflected Rust type for Python: `rustdemo.Point`, registered when the
//! library is loaded (`tvm_ffi.load_module`), so Python can bind a class to
//! it with `tvm_ffi.register_object("rustdemo.Point")`.
//!
//! From Python: `Point(3, 4, "p")` constructs it (the static method exported
//! as `__ffi_init__`), `p.x`/`p.y`/`p.label` read the read-only fields,
//! `p.weight` and `p.note` are writable, `p.norm()`/`p.scaled(k)` call
//! methods, and `repr(p)` prints the fields. `rustdemo.Tree` (src/graph.rs)
//! goes through tvm-ffi's JSON graph both ways.
use std::sync::Mutex;

use xffi::ObjectRef;
use xffi::reflect::AtomicF64;

/// A point with a label, a weight and a note.
#[derive(xffi::Object)]
#[xffi(type_key = "rustdemo.Point")]
pub struct Point {
    /// The x coordinate (read-only: `norm` depends on it).
    #[xffi(get)]
    x: i64,
    /// The y coordinate (read-only).
    #[xffi(get)]
    y: i64,
    /// A label (a Rust String, shown to Python as str).
    #[xffi(get)]
    label: String,
    /// A weight any language may change.
    #[xffi(get, set, default = 1.0)]
    weight: AtomicF64,
    /// A note any language may change.
    #[xffi(get, set)]
    note: Mutex<String>,
}

#[xffi::methods]
impl Point {
    /// Makes a point (Python's `Point(x, y, label)`).
    #[xffi(name = "__ffi_init__")]
    fn create(x: i64, y: i64, label: String) -> xffi::Result<ObjectRef<Point>> {
        ObjectRef::new(Point {
            x,
            y,
            label,
            weight: AtomicF64::new(1.0),
            note: Mutex::new(String::new()),
        })
    }
    /// The distance from the origin, times the weight.
    fn norm(&self) -> f64 {
        ((self.x * self.x + self.y * self.y) as f64).sqrt() * self.weight.load()
    }
    /// A new point, k times as far (the label and note kept).
    fn scaled(&self, k: i64) -> xffi::Result<ObjectRef<Point>> {
        let note = self.note.lock().unwrap_or_else(|e| e.into_inner()).clone();
        ObjectRef::new(Point {
            x: self.x * k,
            y: self.y * k,
            label: self.label.clone(),
            weight: AtomicF64::new(self.weight.load()),
            note: Mutex::new(note),
        })
    }
    /// A static method: the type's name as Rust knows it.
    fn rust_name() -> &'static str {
        "Point"
    }
}

pub mod graph;

xffi::register_types_at_load!(Point, graph::Tree);
