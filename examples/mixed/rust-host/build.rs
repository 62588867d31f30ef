//! The linking rule for a Rust program that loads plugins (see
//! examples/mixed/README.md): the process must have one xffi runtime, and the
//! plugins must bind to the program's.
//!
//! - With the `system` feature the program links the shared libxffi.so, which
//!   plugins bind to as well; this script only adds an rpath to it: the
//!   directory xffi-sys linked it from (`DEP_XFFI_LIB_DIR`, when it was given
//!   `XFFI_LIB_DIR`), else the one in libxffi's pkg-config file.
//! - By default the C core is linked statically into the program. A static
//!   library contributes only the objects the program uses, and an executable
//!   exports no symbols, so this script makes the linker keep every public
//!   xffi function (`--undefined`) and export it (`--export-dynamic-symbol`).
//!   The names are the declarations marked XFFI_API in the headers xffi-sys
//!   exports as DEP_XFFI_INCLUDE.
use std::env;
use std::fs;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if env::var_os("CARGO_FEATURE_SYSTEM").is_some() {
        println!("cargo:rerun-if-env-changed=DEP_XFFI_LIB_DIR");
        match env::var("DEP_XFFI_LIB_DIR").or_else(|_| pkg_config::get_variable("xffi", "libdir")) {
            Ok(dir) => {
                let dir = std::fs::canonicalize(&dir).map(|d| d.display().to_string()).unwrap_or(dir);
                println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
            }
            Err(e) => panic!("the `system` feature needs libxffi's pkg-config file: {e}"),
        }
        return;
    }
    let include = env::var("DEP_XFFI_INCLUDE").expect("xffi-sys exports DEP_XFFI_INCLUDE");
    let mut names = Vec::new();
    exported_names(Path::new(&include).join("xffi").as_path(), &mut names);
    names.sort();
    names.dedup();
    assert!(names.len() > 100, "found only {} XFFI_API declarations under {include}", names.len());
    for name in &names {
        println!("cargo:rustc-link-arg-bins=-Wl,--undefined={name}");
        println!("cargo:rustc-link-arg-bins=-Wl,--export-dynamic-symbol={name}");
    }
}

/// The names declared with XFFI_API (`XFFI_API int xffi_f(...)`,
/// `XFFI_API extern const T *xffi_v;`) in the headers under `dir`.
fn exported_names(dir: &Path, out: &mut Vec<String>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            exported_names(&path, out);
            continue;
        }
        if path.extension().is_none_or(|x| x != "h") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        // A declaration may span lines (`XFFI_API void` above its name, as
        // clang-format writes it after an attribute): read up to its `(` or `;`.
        for (start, _) in text.match_indices("XFFI_API ") {
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            if !text[line_start..start].trim().is_empty() {
                continue; // mentioned inside a line (a comment, a macro body), not a declaration
            }
            let decl = &text[start + "XFFI_API ".len()..];
            let decl = &decl[..decl.find(['(', ';']).unwrap_or(decl.len())];
            let name = decl.rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).find(|s| !s.is_empty());
            if let Some(name) = name.filter(|n| n.starts_with("xffi_")) {
                out.push(name.to_owned());
            }
        }
    }
}
