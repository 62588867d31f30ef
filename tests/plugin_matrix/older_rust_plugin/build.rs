//! `-z nodelete`: the plugin registers a type whose getters, setters, methods
//! and deleter live in it, so it must never be unmapped.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
}
