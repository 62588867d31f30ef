//! How the bundled C core is compiled and linked for a target: the part of
//! the build script that depends on the target, kept free of I/O so that
//! `tests/target_plan.rs` can check it for targets this machine cannot build
//! for. The target comes from Cargo's `CARGO_CFG_TARGET_*` variables, the
//! compiler family from the `cc` crate's detection.

/// The family of the C compiler the `cc` crate chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompilerFamily {
    /// gcc or clang with the GNU driver (including mingw-w64 and wasi-sdk's clang).
    GnuLike,
    /// clang-cl: Clang's builtins with MSVC's command line.
    ClangCl,
    /// Microsoft's cl.exe.
    Msvc,
}

/// The target as Cargo describes it (`CARGO_CFG_TARGET_ARCH`, `_OS`, `_ENV`).
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    pub arch: &'a str,
    pub os: &'a str,
    pub env: &'a str,
}

/// What the build script passes to `cc` and to rustc.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TargetPlan {
    /// Preprocessor definitions for the C sources; `dependent_defines` are
    /// the ones C code compiled against the headers needs too.
    pub defines: Vec<(&'static str, &'static str)>,
    pub dependent_defines: Vec<&'static str>,
    /// Compiler flags beyond the defines.
    pub flags: Vec<&'static str>,
    /// Position-independent code (not on Windows, where it is implied, nor on
    /// WebAssembly, which has no shared libraries here).
    pub pic: bool,
    /// System libraries to link (`cargo:rustc-link-lib`).
    pub link_libs: Vec<&'static str>,
}

/// The plan for a target, or why the C core cannot be built there.
pub fn plan(target: Target, compiler: CompilerFamily) -> Result<TargetPlan, String> {
    let Target { arch, os, env } = target;
    let wasm = arch == "wasm32" || arch == "wasm64";
    if compiler == CompilerFamily::Msvc {
        return Err("xffi-sys: the C core needs GCC or Clang (it uses their __atomic builtins and \
                    __attribute__); Microsoft's cl.exe cannot build it. Use clang-cl \
                    (CC=clang-cl) or the x86_64-pc-windows-gnu target."
            .into());
    }
    if wasm && os != "wasi" {
        return Err(format!("xffi-sys: target {arch}-{os} has no C library; the C core needs one (use wasm32-wasip1)"));
    }
    let mut p = TargetPlan { pic: !wasm && os != "windows", ..TargetPlan::default() };
    p.flags.push(if compiler == CompilerFamily::ClangCl { "/std:c11" } else { "-std=c11" });
    if compiler == CompilerFamily::GnuLike && os != "windows" {
        p.flags.push("-fvisibility=hidden");
    }
    match os {
        "windows" => {
            // The crate links the core statically: no dllimport (xffi/export.h).
            p.defines.push(("XFFI_STATIC", "1"));
            p.dependent_defines.push("XFFI_STATIC");
            if env == "gnu" {
                // C99 printf formats (%zu) in mingw's C library.
                p.defines.push(("__USE_MINGW_ANSI_STDIO", "1"));
            }
        }
        // dlopen is in libdl before glibc 2.34; bionic has pthreads in libc.
        "linux" => p.link_libs.extend(["dl", "pthread"]),
        "android" => p.link_libs.push("dl"),
        // dlopen is in the C library on the BSDs.
        "freebsd" | "netbsd" | "openbsd" | "dragonfly" => p.link_libs.push("pthread"),
        // libSystem holds dlopen and pthreads; WASI builds single-threaded
        // without module loading (the core's platform layer).
        _ => {}
    }
    Ok(p)
}
