//! Builds tests/one_runtime/kernel_lib.cc (C++ against the apache-tvm-ffi
//! wheel's headers, linked to no runtime) and makes this crate's test binaries
//! export the statically linked runtime's TVMFFI* and xffi_* functions, as a
//! Rust program that loads such libraries must (examples/mixed/rust-host/build.rs
//! does the same for xffi_*): an executable exports nothing by itself, and a
//! static library contributes only what the program uses. The names are those
//! declared XFFI_API in the headers xffi-sys exports (DEP_XFFI_INCLUDE).
//! Without the wheel the test is not compiled, unless XFFI_REQUIRE_TVM_FFI=1.
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(xffi_tvm_ffi)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=XFFI_REQUIRE_TVM_FFI");
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let kernel = manifest.join("../../tests/one_runtime/kernel_lib.cc");
    println!("cargo:rerun-if-changed={}", kernel.display());
    let required = env::var("XFFI_REQUIRE_TVM_FFI").is_ok_and(|v| v == "1");
    let config = |what: &str| {
        let out = Command::new("python3").args(["-m", "tvm_ffi.config", what]).output().ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
    };
    let (Some(include), Some(libdir)) = (config("--includedir"), config("--libdir")) else {
        assert!(!required, "XFFI_REQUIRE_TVM_FFI=1 but the apache-tvm-ffi wheel was not found");
        return;
    };
    let out = env::var("OUT_DIR").unwrap();
    let so = format!("{out}/libxffi_arrangement_kernel.so");
    let status = cc::Build::new()
        .cpp(true)
        .get_compiler()
        .to_command()
        .args(["-std=c++17", "-Wno-unused-parameter", "-shared", "-fPIC", "-o", &so])
        .arg(format!("-I{include}"))
        .arg(&kernel)
        .status()
        .expect("run the C++ compiler");
    assert!(status.success(), "building {} failed", kernel.display());
    println!("cargo:rustc-env=XFFI_ARRANGEMENT_KERNEL={so}");

    // An empty library whose SONAME is libtvm_ffi.so: loaded first, it
    // satisfies the wheel's testing library's NEEDED libtvm_ffi.so, so the
    // wheel's runtime stays out and the testing library's TVMFFI* imports
    // bind to this program's runtime (tests/testing_library.rs).
    let stub_src = format!("{out}/soname_stub.c");
    fs::write(&stub_src, "/* no definitions: only the SONAME matters */\ntypedef int xffi_soname_stub_unused;\n")
        .unwrap();
    let stub = format!("{out}/libxffi_soname_stub.so");
    let status = cc::Build::new()
        .get_compiler()
        .to_command()
        .args(["-shared", "-fPIC", "-Wl,-soname,libtvm_ffi.so", "-o", &stub, &stub_src])
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "building the SONAME stub failed");
    println!("cargo:rustc-env=XFFI_TVM_FFI_SONAME_STUB={stub}");
    println!("cargo:rustc-env=XFFI_WHEEL_TESTING_LIB={libdir}/libtvm_ffi_testing.so");
    println!("cargo:rustc-env=XFFI_WHEEL_RUNTIME={libdir}/libtvm_ffi.so");
    println!("cargo:rustc-cfg=xffi_tvm_ffi");

    let headers = env::var("DEP_XFFI_INCLUDE").expect("xffi-sys exports DEP_XFFI_INCLUDE");
    let mut names = Vec::new();
    exported_names(&Path::new(&headers).join("xffi"), &mut names);
    names.sort();
    names.dedup();
    for name in &names {
        println!("cargo:rustc-link-arg-tests=-Wl,--undefined={name}");
        println!("cargo:rustc-link-arg-tests=-Wl,--export-dynamic-symbol={name}");
    }
}

/// The names declared `XFFI_API` (xffi_* and TVMFFI*) in the headers under dir.
fn exported_names(dir: &Path, out: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            exported_names(&path, out);
            continue;
        }
        if path.extension() != Some(std::ffi::OsStr::new("h")) {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        for (start, _) in text.match_indices("XFFI_API ") {
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            if !text[line_start..start].trim().is_empty() {
                continue; // inside a line (a comment, a macro body), not a declaration
            }
            let decl = &text[start + "XFFI_API ".len()..];
            let decl = &decl[..decl.find(['(', ';']).unwrap_or(decl.len())];
            let name = decl.rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).find(|s| !s.is_empty());
            if let Some(name) = name.filter(|n| n.starts_with("xffi_") || n.starts_with("TVMFFI")) {
                out.push(name.to_owned());
            }
        }
    }
}
