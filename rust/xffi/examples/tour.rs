//! The Rust part of the xffi tour: `cargo run --example tour` from the
//! repository root (or `cargo run -p xffi --example tour`).
//!
//! Each step prints what it does and what came out.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use xffi::{Any, AnyView, Array, DataType, Dict, Function, Map, ObjectRef, Tensor, object_type};

/// A Rust struct that becomes an xffi object type.
struct Sensor {
    name: std::string::String,
    reading: f64,
    drops: Arc<AtomicUsize>,
}
impl Drop for Sensor {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}
object_type!(Sensor, "tour.Sensor");

fn step(title: &str) {
    println!("\n== {title}");
}

fn main() -> xffi::Result<()> {
    println!("xffi Rust tour (C library {})", xffi::version());

    step("1. Values: Any holds ints, floats, strings, objects; conversions are checked");
    let values = [Any::from(42i64), Any::from(2.5), Any::from("hi"), Any::from("a longer string"), Any::none()];
    for v in &values {
        println!("  {:<20} kind={}", format!("{v:?}"), v.kind_name());
    }
    match values[2].get::<i64>() {
        Ok(_) => unreachable!(),
        Err(e) => println!("  \"hi\" as i64 -> Err({e})"),
    }

    step("2. A Rust struct as an xffi object: reference counted, Drop runs once");
    let drops = Arc::new(AtomicUsize::new(0));
    let sensor = ObjectRef::new(Sensor { name: "thermo".into(), reading: 21.5, drops: drops.clone() })?;
    let alias = sensor.clone();
    println!(
        "  {} '{}' reads {} (type index {}, strong count {})",
        sensor.type_key(),
        sensor.name,
        sensor.reading,
        sensor.type_index(),
        sensor.strong_count()
    );
    let weak = sensor.downgrade()?;
    drop(alias);
    drop(sensor);
    println!(
        "  after dropping both references: drops={}, weak upgrade={:?}",
        drops.load(Ordering::SeqCst),
        weak.upgrade().map(|s| s.reading)
    );

    step("3. Functions: a typed Rust closure becomes an xffi function anyone can call");
    let scale = Function::from_typed(|x: f64, factor: i64| Ok(x * factor as f64))?;
    scale.register_global("tour.scale", true)?;
    let found = Function::get_global("tour.scale")?.expect("just registered");
    let r: f64 = found.call_typed((1.5, 4i64))?;
    println!("  tour.scale(1.5, 4) = {r}");
    let err = found.call_typed::<f64, _>(("x", 4i64)).unwrap_err();
    println!("  tour.scale(\"x\", 4) -> Err({err})");
    let untyped = Function::from_closure(|args: &[AnyView]| Ok(Any::from(format!("got {} args", args.len()))))?;
    println!("  untyped closure -> {:?}", untyped.call(&[AnyView::int(1), AnyView::float(2.0)])?);
    let panicky = Function::from_typed(|| -> xffi::Result<i64> { panic!("a bug") })?;
    std::panic::set_hook(Box::new(|_| {}));
    println!("  a panicking function -> Err({})", panicky.call(&[]).unwrap_err());
    let _ = std::panic::take_hook();
    Function::remove_global("tour.scale")?;

    step("4. Containers: Array and Map are copy-on-write values; List and Dict are shared");
    let a: Array<i64> = (1..=5).collect();
    let mut b = a.clone();
    b.push(6)?;
    println!("  a = {a:?}, b = {b:?} (a unchanged)");
    let m: Map<std::string::String, f64> = [("one".to_string(), 1.0), ("half".to_string(), 0.5)].into_iter().collect();
    println!("  map = {m:?}, m[\"half\"] = {:?}", m.get("half"));
    let d: Dict<std::string::String, i64> = Dict::new()?;
    let shared = d.clone();
    shared.insert("seen".into(), 1)?;
    println!("  dict seen through another handle: {d:?}");

    step("5. Tensors: checked slice views and zero-copy DLPack exchange");
    let t = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    println!("  {t:?} strides={:?} data={:?}", t.strides(), t.as_slice::<f32>()?);
    println!("  as_slice::<i64>() -> Err({})", t.as_slice::<i64>().unwrap_err());
    let managed = t.to_dlpack()?;
    // SAFETY: managed is the live DLPack tensor just exported, handed back once.
    let back = unsafe { Tensor::from_dlpack(managed)? };
    println!("  exported to DLPack and imported back: same tensor = {}", back.as_object().ptr_eq(t.as_object()));
    println!("  a new {} tensor: {:?}", DataType::F64, Tensor::new(&[3], DataType::F64)?.as_slice::<f64>()?);

    step("6. Errors: C errors are Rust Errs; `?` carries them through both ways");
    // Ask C for something impossible and look at the error it raised.
    let mut out = std::ptr::null_mut();
    // SAFETY: out is writable; NULL data with a size is bad input C refuses.
    let status = unsafe { xffi::sys::xffi_string_new(&mut out, std::ptr::null(), 3) };
    let err = xffi::Error::take_raised();
    println!("  C status {status}: kind={} message={:?}", err.kind(), err.message());
    let strict = Function::from_typed(|x: i64| {
        if x < 0 { Err(xffi::Error::value_error(&format!("negative input {x}"))) } else { Ok(x) }
    })?;
    let relay =
        Function::from_typed(move |x: i64| -> xffi::Result<i64> { Ok(strict.call_typed::<i64, _>((x,))? * 2) })?;
    println!(
        "  relay(5) = {:?}, relay(-1) = {:?}",
        relay.call_typed::<i64, _>((5i64,))?,
        relay.call_typed::<i64, _>((-1i64,)).unwrap_err().to_string()
    );
    println!("\ntour done");
    Ok(())
}
