//! Example 2, Rust host + C plugin: this program loads a C shared library
//! (examples/mixed/c-plugin/plugin.c, exporting its functions with
//! XFFI_EXPORT_FUNCTION) as an xffi Module. The plugin registered a type and a
//! global function when it was loaded; the host finds both, passes its own
//! Rust objects in, gets C objects back, stores them in xffi containers, lets
//! the plugin call a global function the host registered, sees the plugin's
//! errors as `Err`, and at the end checks that every deleter, Rust's and
//! C's, ran exactly once.
//!
//! Usage: xffi-mixed-rust-host PATH/TO/libxffi_mixed_c_plugin.so
//! Exit status 1 if any check fails.
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use xffi::{Any, Array, Function, Map, Module, Object, ObjectRef, object_type};
use xffi_mixed_rust_host::{Checks, linking, type_index_of};

static ITEMS_MADE: AtomicU64 = AtomicU64::new(0);
static ITEMS_DROPPED: AtomicU64 = AtomicU64::new(0);
static CLOSURES_MADE: AtomicU64 = AtomicU64::new(0);
static CLOSURES_DROPPED: AtomicU64 = AtomicU64::new(0);

/// A Rust object the host hands to the plugin.
struct Item {
    name: String,
    kilograms: i64,
}
object_type!(Item, "host.Item");

impl Item {
    fn new(name: &str, kilograms: i64) -> Item {
        ITEMS_MADE.fetch_add(1, Ordering::Relaxed);
        Item { name: name.to_owned(), kilograms }
    }
}

impl Drop for Item {
    fn drop(&mut self) {
        ITEMS_DROPPED.fetch_add(1, Ordering::Relaxed);
    }
}

/// Lives in the host's global function: counts its closure's drop.
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

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: xffi-mixed-rust-host PATH/TO/libxffi_mixed_c_plugin.so");
        return ExitCode::from(2);
    };
    println!("rust-host-c-plugin: {}", linking());
    let mut c = Checks::new("rust-host-c-plugin");
    run(&mut c, &path);

    // Every deleter ran exactly once: the Rust objects' (Drop), the host's
    // closure's, the C boxes' and the C global function's finalizer.
    let made = ITEMS_MADE.load(Ordering::Relaxed);
    let dropped = ITEMS_DROPPED.load(Ordering::Relaxed);
    c.check(made == 2 && dropped == 2, format!("host.Item: {made} made, {dropped} dropped"));
    let (made, dropped) = (CLOSURES_MADE.load(Ordering::Relaxed), CLOSURES_DROPPED.load(Ordering::Relaxed));
    c.check(made == 1 && dropped == 1, format!("host closures: {made} made, {dropped} dropped"));
    if c.failures() == 0 {
        println!("deleters: 2 C boxes, 1 C global function, 2 Rust items, 1 Rust closure: each ran once");
    }
    c.finish()
}

fn run(c: &mut Checks, path: &str) {
    // SAFETY: the path is the example's own C plugin (built next to this
    // host), whose `__tvm_ffi_*` symbols are all xffi functions.
    let Some(module) = c.ok(unsafe { Module::load(path) }, "loading the plugin") else {
        return;
    };
    c.check(module.abi_version().ok() == Some(xffi::sys::XFFI_ABI_VERSION), "the plugin carries xffi's ABI marker");
    // SAFETY: as above, every exported symbol is an xffi function.
    let get = |name: &str| unsafe { module.get_function(name) }.ok().flatten();
    let (Some(make_box), Some(box_label), Some(box_payload), Some(box_payload_is)) =
        (get("make_box"), get("box_label"), get("box_payload"), get("box_payload_is"))
    else {
        c.check(false, "the plugin exports make_box, box_label, box_payload, box_payload_is");
        return;
    };
    let (Some(call_global), Some(stats), Some(fail)) = (get("call_global"), get("stats"), get("fail")) else {
        c.check(false, "the plugin exports call_global, stats, fail");
        return;
    };

    // What the plugin registered when loaded is in the host's registries.
    let box_type = type_index_of("cplugin.Box");
    c.check(box_type.is_some(), "the type cplugin.Box, registered by the plugin, is in the host's registry");
    let global_make_box = Function::get_global("cplugin.make_box").ok().flatten();
    c.check(global_make_box.is_some(), "the global function cplugin.make_box, registered by the plugin, is found");

    // A global function of the host's, which the plugin will call.
    let t = Tracked::new();
    let describe = Function::from_typed(move |item: ObjectRef<Item>| {
        let _ = &t;
        Ok(format!("{} ({} kg)", item.name, item.kilograms))
    });
    if let Some(f) = c.ok(describe, "making host.describe_item") {
        c.ok(f.register_global("host.describe_item", false), "registering host.describe_item");
    }

    // Rust objects in, C objects back.
    let anvil = ObjectRef::new(Item::new("anvil", 50)).expect("allocating an Item");
    let feather = ObjectRef::new(Item::new("feather", 0)).expect("allocating an Item");
    let boxed: Option<ObjectRef<Object>> = c.ok(make_box.call_typed(("first box", anvil.clone())), "make_box");
    let Some(boxed) = boxed else { return };
    c.check(boxed.type_key() == "cplugin.Box", format!("a C object came back: {}", boxed.type_key()));
    c.check(Some(boxed.type_index()) == box_type, "its type index is the one in the host's registry");
    c.check(anvil.strong_count() == 2, "the box holds a reference to the Rust object");
    let back: Option<ObjectRef<Item>> = c.ok(box_payload.call_typed((boxed.clone(),)), "box_payload");
    c.check(back.is_some_and(|b| b.ptr_eq(&anvil)), "the same Rust object comes back out of the C box");
    let is_item: Option<bool> = c.ok(box_payload_is.call_typed((boxed.clone(), "host.Item")), "box_payload_is");
    c.check(is_item == Some(true), "the plugin finds host.Item by key and sees the payload is one");
    let label: Option<String> = c.ok(box_label.call_typed((boxed.clone(),)), "box_label");
    c.check(label.as_deref() == Some("first box"), format!("box label {label:?}"));

    // The plugin's global function, found in the registry, makes another box.
    let second: Option<ObjectRef<Object>> =
        global_make_box.as_ref().and_then(|g| c.ok(g.call_typed(("second box", feather.clone())), "cplugin.make_box"));

    // C objects stored in xffi containers, in Rust.
    let mut shelf: Map<String, Any> = Map::new().expect("a Map");
    c.ok(shelf.insert("first".into(), Any::from(boxed.clone())), "Map insert");
    if let Some(second) = &second {
        c.ok(shelf.insert("second".into(), Any::from(second.clone())), "Map insert");
    }
    let boxes: Option<Vec<ObjectRef<Object>>> =
        c.ok(shelf.values().map(|v| v?.get()).collect::<xffi::Result<_>>(), "the objects on the shelf");
    let box_keys: Vec<&str> = boxes.iter().flatten().map(|b| b.type_key()).collect();
    c.check(box_keys == ["cplugin.Box", "cplugin.Box"], format!("two boxes on the shelf, got {box_keys:?}"));

    // The plugin calls the host's global function with a Rust object.
    let described: Option<String> =
        c.ok(call_global.call_typed(("host.describe_item", anvil.clone())), "call_global(host.describe_item)");
    c.check(described.as_deref() == Some("anvil (50 kg)"), format!("described {described:?}"));

    // Errors raised in C arrive as Err with their kind and message.
    c.fails(fail.call_typed::<(), _>(("raised in the C plugin",)), "ValueError", "raised in the C plugin");
    c.fails(make_box.call_typed::<Any, _>((1i64, 2i64)), "TypeError", "make_box: argument 0: expected str, got int");
    c.fails(
        box_label.call_typed::<Any, _>((anvil.clone(),)),
        "TypeError",
        "box_label: argument 0: expected cplugin.Box, got host.Item",
    );
    c.fails(
        call_global.call_typed::<Any, _>(("host.no_such_function", 1i64)),
        "KeyError",
        "call_global: no global function named 'host.no_such_function'",
    );

    // Release everything, then read the plugin's counters.
    drop((boxed, second, shelf, boxes, anvil, feather, global_make_box));
    c.ok(Function::remove_global("host.describe_item"), "removing host.describe_item");
    c.ok(Function::remove_global("cplugin.make_box"), "removing cplugin.make_box");
    let counts: Option<Vec<i64>> =
        c.ok(stats.call_typed::<Array<i64>, _>(()).and_then(|a| a.iter().collect()), "stats");
    c.check(
        counts.as_deref() == Some(&[2, 2, 1]),
        format!("C deleters: [boxes made, boxes deleted, global finalized] = {counts:?}, expected [2, 2, 1]"),
    );
}
