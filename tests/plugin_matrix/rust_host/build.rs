//! What a Rust host adds so that the plugins it loads bind to its runtime:
//! the link argument xffi-sys hands over (docs/plugin-runtime.md, "A Rust
//! host"), which makes the program export the bundled runtime's `TVMFFI*`
//! and `xffi_*`. Absent with the `system` feature (the shared libxffi
//! exports them) and on systems that need no such argument.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DEP_XFFI_HOST_LINK_ARG");
    if let Ok(arg) = std::env::var("DEP_XFFI_HOST_LINK_ARG") {
        println!("cargo:rustc-link-arg-bins={arg}");
    }
}
