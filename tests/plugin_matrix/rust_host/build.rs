//! What a Rust host adds so that the plugins it loads bind to its runtime:
//! the link argument xffi-sys hands over (docs/plugin-runtime.md, "A Rust
//! host"), which makes the program export the bundled runtime's `TVMFFI*`
//! and `xffi_*`. Absent with the `system` feature (the shared libxffi
//! exports them) and on systems that need no such argument.
//!
//! With XFFI_MATRIX_HOST_UNEXPORTED set, the line is left out: the host a
//! program without it is, which run.py builds once more (into a target
//! directory of its own) to check that `Module::load` refuses a plugin that
//! brings a runtime of its own there.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DEP_XFFI_HOST_LINK_ARG");
    println!("cargo:rerun-if-env-changed=XFFI_MATRIX_HOST_UNEXPORTED");
    if std::env::var_os("XFFI_MATRIX_HOST_UNEXPORTED").is_some() {
        return;
    }
    if let Ok(arg) = std::env::var("DEP_XFFI_HOST_LINK_ARG") {
        println!("cargo:rustc-link-arg-bins={arg}");
    }
}
