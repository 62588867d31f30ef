//! Builds the bundled xffi C core with the `cc` crate (or, with the `system`
//! feature, links a shared library: the one in `XFFI_LIB_DIR` if that is set,
//! `libxffi` or xffi's drop-in `libtvm_ffi`, else the one pkg-config finds).
//!
//! Nothing else is needed: no CMake, no Python, no environment variables.
//! The C sources are `csrc/**/*.c` and the public headers `include/xffi/**.h`;
//! in the repository these two directories are symlinks to `../../c` and
//! `../../include`, and `cargo package` stores their contents, so the
//! published crate builds from itself alone.
//!
//! Dependents (crates with `xffi-sys` as a direct dependency) receive the
//! header directory as `DEP_XFFI_INCLUDE`, so they can compile C against the
//! same headers.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

#[path = "target_plan.rs"]
mod target_plan;
use target_plan::{CompilerFamily, Target};

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");

    println!("cargo:rerun-if-env-changed=XFFI_LIB_DIR");
    println!("cargo:rerun-if-env-changed=XFFI_LIB_NAME");
    if env::var_os("CARGO_FEATURE_SYSTEM").is_some() {
        link_system(&manifest, &out);
        return;
    }

    let csrc = manifest.join("csrc");
    let include_src = manifest.join("include");
    println!("cargo:rerun-if-changed={}", csrc.display());
    println!("cargo:rerun-if-changed={}", include_src.display());

    // Copy the public headers into OUT_DIR/include: a stable place that
    // dependents can use through DEP_XFFI_INCLUDE whatever the crate's source
    // layout (repository symlinks or unpacked .crate).
    let include_out = out.join("include");
    let _ = fs::remove_dir_all(&include_out);
    copy_headers(&include_src, &include_out);

    let mut sources = Vec::new();
    collect_c_sources(&csrc, &mut sources);
    sources.sort();
    if sources.is_empty() {
        panic!("xffi-sys: no C sources found in {}", csrc.display());
    }
    for src in &sources {
        println!("cargo:rerun-if-changed={}", src.display());
    }

    // The target's choices (flags, defines, system libraries) come from
    // target_plan.rs; the `cc` crate picks the compiler for TARGET.
    let cfg = |name: &str| env::var(name).unwrap_or_default();
    let (arch, os, target_env) =
        (cfg("CARGO_CFG_TARGET_ARCH"), cfg("CARGO_CFG_TARGET_OS"), cfg("CARGO_CFG_TARGET_ENV"));
    let mut build = cc::Build::new();
    build.files(&sources).include(&include_out).include(&csrc).define("XFFI_BUILDING", None).warnings(false);
    let compiler = build.get_compiler();
    let family = if compiler.is_like_clang_cl() {
        CompilerFamily::ClangCl
    } else if compiler.is_like_msvc() {
        CompilerFamily::Msvc
    } else {
        CompilerFamily::GnuLike
    };
    let plan = target_plan::plan(Target { arch: &arch, os: &os, env: &target_env }, family)
        .unwrap_or_else(|why| panic!("{why}"));
    build.pic(plan.pic);
    for flag in &plan.flags {
        build.flag(flag);
    }
    for (name, value) in &plan.defines {
        build.define(name, Some(*value));
    }
    build.compile("xffi");

    for lib in &plan.link_libs {
        println!("cargo:rustc-link-lib={lib}");
    }
    // C code of dependent crates compiled against DEP_XFFI_INCLUDE needs
    // these too (XFFI_STATIC on Windows): DEP_XFFI_DEFINES.
    println!("cargo:defines={}", plan.dependent_defines.join(" "));
    println!("cargo:include={}", include_out.display());
    println!("cargo:root={}", out.display());
    // ELF systems: a Mach-O or PE executable's symbols are found another way.
    if matches!(os.as_str(), "linux" | "android" | "freebsd" | "netbsd" | "openbsd" | "dragonfly" | "illumos") {
        write_host_link_args(&include_out, &out);
    }
}

/// Writes the linker arguments that make a program export the bundled
/// runtime (`OUT_DIR/host-exports.args`, one `--undefined` and one
/// `--export-dynamic-symbol` per name declared `XFFI_API` in the headers) and
/// hands them to dependents as `DEP_XFFI_HOST_LINK_ARG` (`-Wl,@FILE`). An ELF
/// executable exports none of its symbols, and a static library gives it only
/// what it calls, so the plugins it loads would not find its `TVMFFI*` and
/// `xffi_*` and would run on a runtime of their own. Cargo passes link
/// arguments only to the package that prints them, so a host's build script
/// prints this one (docs/plugin-runtime.md, "A Rust host").
fn write_host_link_args(include: &Path, out: &Path) {
    let mut names = Vec::new();
    exported_names(&include.join("xffi"), &mut names);
    names.sort();
    names.dedup();
    let mut args = std::string::String::new();
    for name in &names {
        args.push_str(&format!("--undefined={name}\n--export-dynamic-symbol={name}\n"));
    }
    let file = out.join("host-exports.args");
    fs::write(&file, args).unwrap_or_else(|e| panic!("xffi-sys: cannot write {}: {e}", file.display()));
    println!("cargo:host_link_arg=-Wl,@{}", file.display());
}

/// The names declared `XFFI_API` (`xffi_*` and `TVMFFI*`) in the headers
/// under `dir`. A declaration may span lines (`XFFI_API void` above its name):
/// it is read up to its `(` or `;`; a mention inside a line is no declaration.
fn exported_names(dir: &Path, out: &mut Vec<std::string::String>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("xffi-sys: cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("readable directory entry").path();
        if path.is_dir() {
            exported_names(&path, out);
            continue;
        }
        if !path.extension().is_some_and(|x| x == "h") {
            continue;
        }
        let text =
            fs::read_to_string(&path).unwrap_or_else(|e| panic!("xffi-sys: cannot read {}: {e}", path.display()));
        for (start, _) in text.match_indices("XFFI_API ") {
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            if !text[line_start..start].trim().is_empty() {
                continue;
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

fn link_system(manifest: &Path, out: &Path) {
    match env::var_os("XFFI_LIB_DIR") {
        Some(dir) => link_library_dir(manifest, out, Path::new(&dir)),
        None => link_pkg_config(),
    }
}

/// Links the libxffi that pkg-config finds (its `xffi.pc`).
fn link_pkg_config() {
    #[cfg(feature = "system")]
    {
        match pkg_config::Config::new().atleast_version("0.1").probe("xffi") {
            Ok(lib) => {
                if let Some(inc) = lib.include_paths.first() {
                    println!("cargo:include={}", inc.display());
                }
            }
            Err(e) => panic!(
                "xffi-sys: feature `system` is on but pkg-config cannot find libxffi ({e}); \
                 set XFFI_LIB_DIR to the directory of libxffi or of xffi's drop-in libtvm_ffi"
            ),
        }
    }
}

/// The shared library names a `system` build links, in the order looked for:
/// xffi's own library, then its drop-in for tvm-ffi (the same C API).
const SYSTEM_LIBRARIES: [&str; 2] = ["xffi", "tvm_ffi"];

/// Links the shared library in `dir` (`XFFI_LIB_NAME`, or the first of
/// [`SYSTEM_LIBRARIES`] found there), with the bundled headers for dependents.
/// The loader must find it at run time: an executable of this package gets an
/// rpath; any other finds it through `LD_LIBRARY_PATH` or an rpath of its own
/// (`DEP_XFFI_LIB_DIR` names the directory), or, as a plugin, in the process
/// that loaded it already.
fn link_library_dir(manifest: &Path, out: &Path, dir: &Path) {
    let dir = fs::canonicalize(dir).unwrap_or_else(|e| {
        panic!("xffi-sys: XFFI_LIB_DIR={} is not a directory that can be read: {e}", dir.display())
    });
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let file_of = |name: &str| match os.as_str() {
        "windows" => format!("{name}.lib"),
        "macos" | "ios" => format!("lib{name}.dylib"),
        _ => format!("lib{name}.so"),
    };
    let name = match env::var("XFFI_LIB_NAME") {
        Ok(name) if !name.is_empty() => name,
        _ => SYSTEM_LIBRARIES.iter().find(|n| dir.join(file_of(n)).exists()).map(|n| n.to_string()).unwrap_or_else(
            || {
                let looked: Vec<String> = SYSTEM_LIBRARIES.iter().map(|n| file_of(n)).collect();
                panic!(
                    "xffi-sys: XFFI_LIB_DIR={} holds none of {} (set XFFI_LIB_NAME to link another name)",
                    dir.display(),
                    looked.join(", ")
                )
            },
        ),
    };
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=dylib={name}");
    if os != "windows" {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }
    println!("cargo:lib_dir={}", dir.display());
    let include_out = out.join("include");
    let _ = fs::remove_dir_all(&include_out);
    copy_headers(&manifest.join("include"), &include_out);
    println!("cargo:include={}", include_out.display());
}

/// Every `.c` file below `dir` (the core's sources sit in folders by layer).
fn collect_c_sources(dir: &Path, sources: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("xffi-sys: cannot read the bundled C sources in {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("readable directory entry").path();
        if path.is_dir() {
            collect_c_sources(&path, sources);
        } else if path.extension().is_some_and(|x| x == "c") {
            sources.push(path);
        }
    }
}

fn copy_headers(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap_or_else(|e| panic!("xffi-sys: cannot create {}: {e}", to.display()));
    let entries =
        fs::read_dir(from).unwrap_or_else(|e| panic!("xffi-sys: cannot read headers in {}: {e}", from.display()));
    for entry in entries {
        let entry = entry.expect("readable directory entry");
        let path = entry.path();
        let dest = to.join(entry.file_name());
        if path.is_dir() {
            copy_headers(&path, &dest);
        } else if path.extension().is_some_and(|x| x == "h") {
            fs::copy(&path, &dest).unwrap_or_else(|e| panic!("xffi-sys: cannot copy {}: {e}", path.display()));
        }
    }
}
