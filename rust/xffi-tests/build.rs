//! Compiles the C layout probe and the C side of the cross-language tests
//! (the repository's tests/cross_language/*.c) against the headers xffi-sys exports
//! to its dependents as DEP_XFFI_INCLUDE, and copies the README's Rust
//! snippet where a doctest of src/lib.rs reads it.
use std::env;
use std::path::PathBuf;

fn main() {
    let include = env::var("DEP_XFFI_INCLUDE").expect("xffi-sys exports DEP_XFFI_INCLUDE");
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let mut files = vec![manifest.join("probe/layout_probe.c")];
    let cross = manifest.join("../../tests/cross_language");
    if let Ok(dir) = std::fs::read_dir(&cross) {
        let mut extra: Vec<PathBuf> =
            dir.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "c")).collect();
        extra.sort();
        files.extend(extra);
    }
    println!("cargo:rerun-if-changed=probe");
    println!("cargo:rerun-if-changed={}", cross.display());
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    cc::Build::new()
        .files(&files)
        .include(&include)
        .include(&cross)
        .flag("-std=c11")
        .flag("-D_POSIX_C_SOURCE=200809L")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("xffi_tests_c");
    println!("cargo:rustc-link-lib=pthread");

    // The project's benchmark harness, for the benchmarks only: it defines
    // malloc (to count allocations), so it must not reach the tests.
    let harness = manifest.join("../../bench/bench_harness.c");
    if harness.exists() {
        println!("cargo:rerun-if-changed={}", harness.display());
        cc::Build::new()
            .file(&harness)
            .include(harness.parent().unwrap())
            .flag("-std=c11")
            .cargo_metadata(false)
            .compile("xffi_bench_harness");
        let out = std::env::var("OUT_DIR").unwrap();
        println!("cargo:rustc-link-arg-benches={out}/libxffi_bench_harness.a");
    }

    // A shared library for the Module test: compiled and linked with the
    // same C compiler, against the same headers.
    let plugin_src = cross.join("plugin/rust_plugin.c");
    if plugin_src.exists() {
        println!("cargo:rerun-if-changed={}", plugin_src.display());
        let out = std::env::var("OUT_DIR").unwrap();
        let so = format!("{out}/libxffi_rust_plugin.so");
        let compiler = cc::Build::new().get_compiler();
        let status = compiler
            .to_command()
            .args(["-std=c11", "-shared", "-fPIC", "-o", &so])
            .arg(format!("-I{include}"))
            .arg(&plugin_src)
            .status()
            .expect("run the C compiler");
        assert!(status.success(), "building {} failed", plugin_src.display());
        println!("cargo:rustc-env=XFFI_RUST_PLUGIN={so}");
    }

    build_tvm_exports(&cross.join("../interop/lib_tvm_exports.c"));
    copy_readme_rust(&manifest.join("../../README.md"));
}

/// Writes OUT_DIR/readme_rust.md: every `rust` code block of the README
/// (`readme`), each followed by the hidden line `# Ok::<(), xffi::Error>(())`
/// that lets rustdoc run a block using `?` (the README leaves it out to stay
/// short), and a line naming where the block is. src/lib.rs takes the file as
/// the docs of an item, so `cargo test` compiles and runs the snippet exactly
/// as the README shows it, as rustdoc does for doc comments.
fn copy_readme_rust(readme: &std::path::Path) {
    println!("cargo:rerun-if-changed={}", readme.display());
    let text = std::fs::read_to_string(readme).unwrap_or_else(|e| panic!("reading {}: {e}", readme.display()));
    let mut doc = std::string::String::new();
    let mut block_start = None;
    for (i, line) in text.lines().enumerate() {
        match (block_start, line.trim_end()) {
            (None, "```rust") => {
                block_start = Some(i + 1);
                doc.push_str(&format!("README.md, the Rust block at line {}:\n\n```rust\n", i + 1));
            }
            (Some(_), "```") => {
                block_start = None;
                doc.push_str("# Ok::<(), xffi::Error>(())\n```\n\n");
            }
            (Some(_), _) => {
                doc.push_str(line);
                doc.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(
        block_start.is_none(),
        "{}: a rust block opened at line {} is never closed",
        readme.display(),
        block_start.unwrap_or(0)
    );
    assert!(!doc.is_empty(), "{}: no rust code block (the Rust snippet the test command runs)", readme.display());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("readme_rust.md");
    std::fs::write(&out, doc).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}

/// A library written for tvm-ffi alone (tests/interop/lib_tvm_exports.c,
/// built against the apache-tvm-ffi wheel's headers and linked to its
/// libtvm_ffi.so) for the tvm_interop test. Without the wheel that test is
/// not compiled, unless XFFI_REQUIRE_TVM_FFI=1 (the project's test command
/// sets it), which makes a missing wheel a build error instead.
fn build_tvm_exports(src: &std::path::Path) {
    println!("cargo::rustc-check-cfg=cfg(xffi_tvm_ffi)");
    println!("cargo:rerun-if-env-changed=XFFI_REQUIRE_TVM_FFI");
    println!("cargo:rerun-if-changed={}", src.display());
    let required = env::var("XFFI_REQUIRE_TVM_FFI").is_ok_and(|v| v == "1");
    let config = |what: &str| {
        let out = std::process::Command::new("python3").args(["-m", "tvm_ffi.config", what]).output().ok()?;
        let text = std::string::String::from_utf8(out.stdout).ok()?;
        (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
    };
    let (Some(include), Some(libdir)) = (config("--includedir"), config("--libdir")) else {
        assert!(
            !required,
            "XFFI_REQUIRE_TVM_FFI=1 but the apache-tvm-ffi wheel was not found (pip install apache-tvm-ffi)"
        );
        return;
    };
    let out = env::var("OUT_DIR").unwrap();
    let so = format!("{out}/libxffi_tvm_exports.so");
    let status = cc::Build::new()
        .get_compiler()
        .to_command()
        .args(["-std=c11", "-shared", "-fPIC", "-o", &so])
        .arg(format!("-I{include}"))
        .arg(src)
        .arg(format!("-L{libdir}"))
        .arg("-ltvm_ffi")
        .arg(format!("-Wl,-rpath,{libdir}"))
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "building {} failed", src.display());
    println!("cargo:rustc-env=XFFI_TVM_EXPORTS_LIB={so}");
    println!("cargo:rustc-cfg=xffi_tvm_ffi");
}
