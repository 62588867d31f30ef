//! The one-runtime test: a Rust host and the plugins it loads (C and Rust)
//! share one type registry and one global function registry.
//!
//! Usage: one-runtime [--expect-split] PLUGIN.so...
//!
//! The host registers a type and a global function; each plugin registers
//! its own (when loaded, or in its exported `register` function) and reports
//! their names through `registered_names`. Then, for every pair of sides
//! (host and plugin, plugin and plugin), each side must find the names the
//! other registered, a type key must have the same index on both sides, and
//! a plugin must be able to call the host's global function.
//!
//! Built twice by scripts/test-mixed.sh: with xffi linked statically into
//! this program (the default) and with the shared libxffi.so (`system`).
//!
//! With `--expect-split` the test is turned around, as a control that it can
//! fail: every plugin must be one that carries its own copy of xffi, and the
//! program checks that the host sees none of its names and it none of the
//! host's.
use std::process::ExitCode;

use xffi::{Array, Function, Module, RustObject, object_type};
use xffi_mixed_rust_host::{Checks, linking, type_index_of};

/// The host's type, registered in its registry.
struct HostProbe;
object_type!(HostProbe, "host.one_runtime.Probe");

const HOST_TYPE: &str = "host.one_runtime.Probe";
const HOST_GLOBAL: &str = "host.one_runtime.double";

/// A loaded plugin and what it says it registered.
struct Plugin {
    path: String,
    module: Module,
    type_key: String,
    global: String,
}

impl Plugin {
    fn call<R: for<'v> xffi::FromAnyView<'v>>(&self, name: &str, args: impl xffi::IntoArgs) -> xffi::Result<R> {
        // SAFETY: the plugins this host loads are the example's own, whose
        // `__tvm_ffi_*` symbols are all xffi functions.
        let f = unsafe { self.module.get_function(name) }?.ok_or_else(|| {
            xffi::Error::new(xffi::ErrorKind::KeyError, &format!("{} exports no function {name}", self.path))
        })?;
        f.call_typed(args)
    }
    fn type_index(&self, key: &str) -> Option<i64> {
        self.call::<i64>("probe_type_index", (key,)).ok().filter(|&i| i >= 0)
    }
    fn has_global(&self, name: &str) -> bool {
        self.call::<bool>("probe_has_global", (name,)).unwrap_or(false)
    }
}

fn load(c: &mut Checks, path: &str) -> Option<Plugin> {
    // SAFETY: the example's own plugins (see Plugin::call), built with it.
    let module = c.ok(unsafe { Module::load(path) }, &format!("loading {path}"))?;
    // SAFETY: as above.
    if let Some(register) = c.ok(unsafe { module.get_function("register") }, "looking up register")? {
        c.ok(register.call(&[]), &format!("{path}: register"))?;
    }
    // SAFETY: as above.
    let registered_names = unsafe { module.get_function("registered_names") };
    let names: Array<String> = c.ok(registered_names.and_then(|f| f.unwrap().call_typed(())), "registered_names")?;
    let (type_key, global) = (c.ok(names.get(0), "registered_names[0]")?, c.ok(names.get(1), "registered_names[1]")?);
    let (Some(type_key), Some(global)) = (type_key, global) else {
        c.check(false, format!("{path}: registered_names gave {} names", names.len()));
        return None;
    };
    println!("  {path}\n    registered type {type_key} and global function {global}");
    Some(Plugin { path: path.to_owned(), module, type_key, global })
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let expect_split = args.first().is_some_and(|a| a == "--expect-split");
    if expect_split {
        args.remove(0);
    }
    if args.is_empty() {
        eprintln!("usage: one-runtime [--expect-split] PLUGIN.so...");
        return ExitCode::from(2);
    }
    println!("one-runtime: host uses {}", linking());
    let mut c = Checks::new(if expect_split { "one-runtime (control: split runtimes)" } else { "one-runtime" });

    let host_type = HostProbe::try_type_index().expect("registering the host's type");
    let double = Function::from_typed(|x: i64| Ok(x * 2)).expect("a Function");
    c.ok(double.register_global(HOST_GLOBAL, true), "registering the host's global function");

    let plugins: Vec<Plugin> = args.iter().filter_map(|p| load(&mut c, p)).collect();
    if plugins.len() != args.len() {
        return c.finish();
    }

    for p in &plugins {
        let host_sees_global = Function::get_global(&p.global).ok().flatten().is_some();
        let host_index = type_index_of(&p.type_key);
        let plugin_index = p.type_index(&p.type_key);
        let plugin_sees_global = p.has_global(HOST_GLOBAL);
        let plugin_host_index = p.type_index(HOST_TYPE);
        if expect_split {
            c.check(!host_sees_global, format!("split: the host must not see {}", p.global));
            c.check(host_index.is_none(), format!("split: the host must not know the type {}", p.type_key));
            c.check(!plugin_sees_global, format!("split: {} must not see {HOST_GLOBAL}", p.path));
            c.check(plugin_host_index.is_none(), format!("split: {} must not know {HOST_TYPE}", p.path));
            continue;
        }
        let failures_before = c.failures();
        c.check(host_sees_global, format!("the host finds {}, registered by the plugin", p.global));
        c.check(
            host_index.is_some() && host_index.map(i64::from) == plugin_index,
            format!("{}: index {host_index:?} in the host, {plugin_index:?} in the plugin", p.type_key),
        );
        c.check(plugin_sees_global, format!("the plugin finds {HOST_GLOBAL}, registered by the host"));
        c.check(
            plugin_host_index == Some(i64::from(host_type)),
            format!("{HOST_TYPE}: index {host_type} in the host, {plugin_host_index:?} in the plugin"),
        );
        let doubled: Option<i64> = c.ok(p.call("call_global", (HOST_GLOBAL, 21i64)), "call_global");
        c.check(doubled == Some(42), format!("the plugin called the host's function: {doubled:?}"));
        if c.failures() == failures_before {
            println!(
                "    shared with the host: {} has index {} on both sides, {HOST_TYPE} {host_type}; each finds the \
                 other's global function and the plugin calls the host's",
                p.type_key,
                host_index.unwrap_or(-1)
            );
        }
    }

    // Plugin and plugin: each finds what the other registered.
    for p in &plugins {
        for q in plugins.iter().filter(|q| q.path != p.path) {
            let sees = p.has_global(&q.global);
            let index = p.type_index(&q.type_key);
            let own = q.type_index(&q.type_key);
            if expect_split {
                c.check(!sees && index.is_none(), format!("split: {} must not see {}'s names", p.path, q.path));
            } else {
                c.check(sees, format!("{} finds {}", p.path, q.global));
                c.check(
                    index.is_some() && index == own,
                    format!("{}: {index:?} in one plugin, {own:?} in the other", q.type_key),
                );
            }
        }
    }
    if expect_split && c.failures() == 0 {
        println!("    split detected, as expected: the plugin's registrations are invisible to the host and back");
    }
    drop(plugins);
    c.ok(Function::remove_global(HOST_GLOBAL), "removing the host's global function");
    c.finish()
}
