//! Link options of the plugin:
//! - `-z nodelete`: the plugin registers a global function whose code lives
//!   in it, so it must never be unloaded (dlclose keeps it mapped);
//! - with the `system` feature, an rpath to libxffi.so's directory (from
//!   pkg-config), so the plugin's dependency on it resolves wherever it is
//!   loaded. (In a process that has libxffi.so loaded already, the loader
//!   reuses that one.)
use std::env;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
    if env::var_os("CARGO_FEATURE_SYSTEM").is_some() {
        match pkg_config::get_variable("xffi", "libdir") {
            Ok(dir) => {
                let dir = std::fs::canonicalize(&dir).map(|d| d.display().to_string()).unwrap_or(dir);
                println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,{dir}");
            }
            Err(e) => panic!("the `system` feature needs libxffi's pkg-config file: {e}"),
        }
    }
}
