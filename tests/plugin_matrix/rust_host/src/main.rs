//! One check of the plugin matrix in a Rust host: a program on the `xffi`
//! crate (default features: the runtime bundled inside it, exported to the
//! plugins by build.rs) that loads the plugin with `xffi::Module::load`
//! (run.py starts one process per check).
//!
//!     xffi-matrix-rust-host {c|rust} PLUGIN.so CHECK
//!
//! The checks are python_client.py's and c_host.c's, through the crate's safe
//! API. Exit status 0 and "ok" when the check holds; 1 with what failed on
//! stderr.
use std::process::ExitCode;

use xffi::reflect::TypeRef;
use xffi::{Any, AnyView, Error, ErrorKind, Function, Module, Object, ObjectRef};

/// What a check reports: Err names the condition that did not hold.
type Outcome = Result<(), String>;

/// The plugin and the key of its type (`matrix.CKernel`, `matrix.RustKernel`).
struct Plugin {
    module: Module,
    key: &'static str,
}

/// Err(`what`, and the error) unless `result` is Ok.
fn ok<T>(result: xffi::Result<T>, what: &str) -> Result<T, String> {
    result.map_err(|e| format!("{what}: {}: {}", e.kind().as_str(), e.message()))
}

/// Err(`what`) unless `cond`.
fn expect(cond: bool, what: &str) -> Outcome {
    if cond { Ok(()) } else { Err(format!("check failed: {what}")) }
}

/// Ok when `result` is the error of `kind` whose message contains `text`.
fn fails_with<T>(result: xffi::Result<T>, kind: ErrorKind, text: &str, what: &str) -> Outcome {
    match result {
        Ok(_) => Err(format!("{what}: succeeded, expected {}", kind.as_str())),
        Err(e) if e.kind().as_str() == kind.as_str() && e.message().contains(text) => Ok(()),
        Err(e) => Err(format!(
            "{what}: {}: {}, expected {} containing {text:?}",
            e.kind().as_str(),
            e.message(),
            kind.as_str()
        )),
    }
}

impl Plugin {
    /// The plugin's exported function `name`.
    fn function(&self, name: &str) -> Result<Function, String> {
        // SAFETY: the matrix's plugins export only xffi packed functions as
        // `__tvm_ffi_<name>` (c_plugin.c, rust_plugin/src/lib.rs).
        ok(unsafe { self.module.get_function(name) }, name)?.ok_or_else(|| format!("the plugin exports no {name}"))
    }

    /// A kernel made by the plugin: scale 3, label "k3", gain 1.
    fn make_kernel(&self) -> Result<ObjectRef<Object>, String> {
        ok(self.function("make_kernel")?.call_typed((3i64, "k3")), "make_kernel")
    }

    fn functions(&self) -> Outcome {
        let sum: i64 = ok(self.function("add")?.call_typed((2i64, 40i64)), "add")?;
        expect(sum == 42, "add(2, 40) == 42")
    }

    fn error(&self) -> Outcome {
        let result = self.function("fail")?.call_typed::<(), _>(("bad input here",));
        fails_with(result, ErrorKind::ValueError, "bad input here", "fail")
    }

    fn panic(&self) -> Outcome {
        let result = self.function("panic_now")?.call_typed::<(), _>(("it broke",));
        fails_with(result, ErrorKind::RuntimeError, "it broke", "panic_now")
    }

    /// The Function `maker` returns fails with `kind` and `text` when called.
    fn function_value_fails(&self, maker: &str, kind: ErrorKind, text: &str) -> Outcome {
        let f: Function = ok(self.function(maker)?.call_typed(()), maker)?;
        fails_with(f.call(&[]), kind, text, "calling the returned Function")
    }

    fn function_value_error(&self) -> Outcome {
        self.function_value_fails("make_failing_function", ErrorKind::ValueError, "callback failed")
    }

    fn function_value_panic(&self) -> Outcome {
        self.function_value_fails("make_panicking_function", ErrorKind::RuntimeError, "callback panicked")
    }

    fn direct_function_value_error(&self) -> Outcome {
        self.function_value_fails("make_failing_direct_function", ErrorKind::ValueError, "direct function failed")
    }

    /// The global function the plugin registers is in the host's registry (the
    /// process's), callable by name; a second registration is refused.
    fn global_registered(&self) -> Outcome {
        let name = format!("matrix.{}.product", if self.key == "matrix.CKernel" { "c" } else { "rust" });
        expect(ok(Function::get_global(&name), "lookup before")?.is_none(), "no product before registration")?;
        ok(self.function("register_product")?.call_typed::<(), _>(()), "register_product")?;
        let product = ok(Function::get_global(&name), "lookup after")?.ok_or("product not found after registration")?;
        let p: i64 = ok(product.call_typed((6i64, 7i64)), "product(6, 7)")?;
        expect(p == 42, "product(6, 7) == 42")?;
        let again = self.function("register_product")?.call_typed::<(), _>(());
        fails_with(again, ErrorKind::ValueError, "already registered", "registering again")
    }

    /// The plugin's global lookups find the host's functions.
    fn global_lookup(&self) -> Outcome {
        let sub = ok(Function::from_typed(|a: i64, b: i64| Ok(a - b)), "the host's sub")?;
        ok(sub.register_global("matrix.host.sub", false), "registering matrix.host.sub")?;
        let call_global = self.function("call_global")?;
        let d: i64 = ok(call_global.call_typed(("matrix.host.sub", 50i64, 8i64)), "call_global(matrix.host.sub)")?;
        expect(d == 42, "matrix.host.sub(50, 8) == 42")?;
        let missing = call_global.call_typed::<i64, _>(("matrix.host.none", 50i64, 8i64));
        fails_with(missing, ErrorKind::KeyError, "matrix.host.none", "call_global(matrix.host.none)")
    }

    fn type_by_key(&self) -> Outcome {
        let t = ok(TypeRef::by_key(self.key), "the type by key")?;
        let names: Vec<String> = t.fields().into_iter().map(|f| f.name).collect();
        expect(names == ["scale", "gain", "label"], &format!("fields scale, gain, label; found {names:?}"))
    }

    fn object_type(&self) -> Outcome {
        let t = ok(TypeRef::by_key(self.key), "the type by key")?;
        let k = self.make_kernel()?;
        expect(k.type_index() == t.index() && k.type_key() == self.key, "the kernel's type is the one found by key")
    }

    fn fields(&self) -> Outcome {
        let k = self.make_kernel()?;
        expect(ok(ok(k.get_field("scale"), "scale")?.get::<i64>(), "scale")? == 3, "scale == 3")?;
        expect(ok(ok(k.get_field("label"), "label")?.get::<String>(), "label")? == "k3", "label == \"k3\"")?;
        expect(ok(ok(k.get_field("gain"), "gain")?.get::<f64>(), "gain")? == 1.0, "gain == 1.0")?;
        ok(k.set_field("gain", 2.5), "writing gain")?;
        expect(ok(ok(k.get_field("gain"), "gain")?.get::<f64>(), "gain")? == 2.5, "gain == 2.5 once written")?;
        expect(k.set_field("scale", 4i64).is_err(), "writing the read-only scale is refused")?;
        expect(ok(ok(k.get_field("scale"), "scale")?.get::<i64>(), "scale")? == 3, "scale still 3")
    }

    fn methods(&self) -> Outcome {
        let t = ok(TypeRef::by_key(self.key), "the type by key")?;
        let args = [Any::from(3i64), Any::from("made in rust")];
        let raw: Vec<xffi::sys::xffi_any> = args.iter().map(|a| *a.as_raw()).collect();
        let mut out = xffi::sys::xffi_any::none();
        // SAFETY: a slot receiving an owned value and two borrowed arguments
        // that `args` keeps alive for the call.
        let status = unsafe { xffi::sys::xffi_object_construct(&mut out, t.index(), raw.as_ptr(), 2) };
        if status != 0 {
            return ok(Err(Error::take_raised()), "constructing by the type's index");
        }
        // SAFETY: success gave an owned value, taken once.
        let k: ObjectRef<Object> = ok(unsafe { Any::from_raw(out) }.get(), "the constructed object")?;
        expect(ok(ok(k.get_field("label"), "label")?.get::<String>(), "label")? == "made in rust", "label")?;
        ok(k.set_field("gain", 2.0), "writing gain")?;
        let applied: f64 = ok(ok(k.call_method("apply", (5.0,)), "apply")?.get(), "apply's result")?;
        expect(applied == 30.0, &format!("apply(5.0) == 30.0, got {applied}"))
    }

    fn repr(&self) -> Outcome {
        let k = self.make_kernel()?;
        let text = ok(xffi::reflect::repr(&AnyView::object(&k)), "repr")?;
        let expected = format!("{}(scale=3, gain=1, label=\"k3\")", self.key);
        expect(text == expected, &format!("repr {text:?} == {expected:?}"))
    }

    fn json_graph(&self) -> Outcome {
        let k = Any::from(self.make_kernel()?);
        let text = ok(xffi::to_json_string(&k, &Any::none()), "to_json_string")?;
        let back = ok(xffi::from_json_str(&text), "from_json_str")?;
        let back_kernel: ObjectRef<Object> = ok(back.get(), "the graph's root")?;
        let kernel: ObjectRef<Object> = ok(k.get(), "the kernel")?;
        expect(back_kernel.type_index() == kernel.type_index() && !back_kernel.ptr_eq(&kernel), "a new kernel")?;
        expect(ok(xffi::structural_equal(&back, &k), "structural_equal")?, "structurally equal to the original")
    }
}

/// A check: its name and what runs it.
type Check = (&'static str, fn(&Plugin) -> Outcome);

const CHECKS: [Check; 14] = [
    ("functions", Plugin::functions),
    ("error", Plugin::error),
    ("panic", Plugin::panic),
    ("function_value_error", Plugin::function_value_error),
    ("function_value_panic", Plugin::function_value_panic),
    ("direct_function_value_error", Plugin::direct_function_value_error),
    ("type_by_key", Plugin::type_by_key),
    ("object_type", Plugin::object_type),
    ("fields", Plugin::fields),
    ("methods", Plugin::methods),
    ("repr", Plugin::repr),
    ("json_graph", Plugin::json_graph),
    ("global_registered", Plugin::global_registered),
    ("global_lookup", Plugin::global_lookup),
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let [_, kind, path, check] = args.as_slice() else {
        eprintln!("usage: xffi-matrix-rust-host {{c|rust}} PLUGIN.so CHECK");
        return ExitCode::from(2);
    };
    let Some((_, run)) = CHECKS.iter().find(|(name, _)| name == check) else {
        eprintln!("unknown check {check}");
        return ExitCode::from(2);
    };
    let key = if kind == "c" { "matrix.CKernel" } else { "matrix.RustKernel" };
    // SAFETY: the matrix's own plugins, built against xffi; loading them only
    // registers their type.
    let module = match unsafe { Module::load(path) } {
        Ok(module) => module,
        Err(e) => {
            eprintln!("cannot load {path}: {}", e.message());
            return ExitCode::from(1);
        }
    };
    match run(&Plugin { module, key }) {
        Ok(()) => {
            println!("ok");
            ExitCode::SUCCESS
        }
        Err(what) => {
            eprintln!("{what}");
            ExitCode::from(1)
        }
    }
}
