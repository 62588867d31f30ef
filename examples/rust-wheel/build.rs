//! `-z nodelete`: the library registers a type whose getters, setters and
//! methods live in it, so it must never be unmapped (docs/plugins.md).
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
}
