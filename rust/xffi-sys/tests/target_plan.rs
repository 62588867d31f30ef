//! The build script's per-target choices, checked for the targets xffi ships
//! to (only x86-64 Linux's standard library is installed here, so these
//! targets cannot be built; their plans can be checked).
#[path = "../target_plan.rs"]
mod target_plan;

use target_plan::{plan, CompilerFamily, Target};

fn target<'a>(arch: &'a str, os: &'a str, env: &'a str) -> Target<'a> {
    Target { arch, os, env }
}

#[test]
fn linux_targets_link_dl_and_pthread_with_hidden_visibility_and_pic() {
    for arch in ["x86_64", "aarch64", "s390x", "x86"] {
        let p = plan(target(arch, "linux", "gnu"), CompilerFamily::GnuLike).unwrap();
        assert_eq!(p.link_libs, ["dl", "pthread"], "{arch}");
        assert_eq!(p.flags, ["-std=c11", "-fvisibility=hidden"], "{arch}");
        assert!(p.pic, "{arch}");
        assert!(p.defines.is_empty(), "{arch}");
    }
}

#[test]
fn macos_links_nothing_extra() {
    for arch in ["x86_64", "aarch64"] {
        let p = plan(target(arch, "macos", ""), CompilerFamily::GnuLike).unwrap();
        assert!(p.link_libs.is_empty());
        assert_eq!(p.flags, ["-std=c11", "-fvisibility=hidden"]);
        assert!(p.pic);
    }
}

#[test]
fn windows_gnu_is_static_with_c99_printf() {
    let p = plan(target("x86_64", "windows", "gnu"), CompilerFamily::GnuLike).unwrap();
    assert_eq!(p.defines, [("XFFI_STATIC", "1"), ("__USE_MINGW_ANSI_STDIO", "1")]);
    assert_eq!(p.dependent_defines, ["XFFI_STATIC"]);
    assert_eq!(p.flags, ["-std=c11"]);
    assert!(!p.pic);
    assert!(p.link_libs.is_empty());
}

#[test]
fn windows_msvc_needs_clang_cl() {
    let p = plan(target("x86_64", "windows", "msvc"), CompilerFamily::ClangCl).unwrap();
    assert_eq!(p.defines, [("XFFI_STATIC", "1")]);
    assert_eq!(p.flags, ["/std:c11"]);
    let err = plan(target("x86_64", "windows", "msvc"), CompilerFamily::Msvc).unwrap_err();
    assert!(err.contains("cl.exe cannot build it") && err.contains("clang-cl"), "{err}");
}

#[test]
fn wasm32_wasi_builds_without_pic_or_libraries_and_bare_wasm_is_refused() {
    let p = plan(target("wasm32", "wasi", "p1"), CompilerFamily::GnuLike).unwrap();
    assert!(!p.pic);
    assert!(p.link_libs.is_empty());
    assert_eq!(p.flags, ["-std=c11", "-fvisibility=hidden"]);
    let err = plan(target("wasm32", "unknown", ""), CompilerFamily::GnuLike).unwrap_err();
    assert!(err.contains("wasm32-unknown has no C library"), "{err}");
}

#[test]
fn android_and_bsd_link_only_what_their_libc_lacks() {
    assert_eq!(plan(target("aarch64", "android", ""), CompilerFamily::GnuLike).unwrap().link_libs, ["dl"]);
    assert_eq!(plan(target("x86_64", "freebsd", ""), CompilerFamily::GnuLike).unwrap().link_libs, ["pthread"]);
}
