"""Front-end access end to end (issue 16, item 5): a Rust library
(examples/reflect-python: #[derive(xffi::Object)] rustdemo.Point and its
#[xffi::methods]) is built against the runtime of a Python process whose
tvm_ffi runs on xffi, loaded with tvm_ffi.load_module, and used from Python:
constructed, fields read and written as attributes (read-only ones refused,
a wrong type refused), methods called, printed with its fields; and
rustdemo.Tree (#[xffi(default)]) goes through tvm-ffi's JSON graph both
ways: Python reads Rust's text to equal Rust objects, Rust reads Python's.

The overlay is conftest.py's (scripts/tvm-ffi-on-xffi.sh, built under
XFFI_BUILD_ROOT, default build/, unless XFFI_OVERLAY names one already
built). The Rust library is built with the `system` feature and
XFFI_LIB_DIR naming the overlay's library directory (no pkg-config file:
xffi-sys finds the drop-in libtvm_ffi.so there), so it binds to the
runtime Python loaded.

    python3 -m pytest -q -p no:cacheprovider tests/interop/test_rust_reflect_e2e.py
"""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def build_library(ovl, work):
    libdir = ovl / "tvm_ffi" / "lib"
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "reflect-e2e"
    # No pkg-config file anywhere: XFFI_LIB_DIR alone says where the runtime is.
    env = dict(os.environ, XFFI_LIB_DIR=str(libdir), PKG_CONFIG_LIBDIR=str(work / "no-pkgconfig"),
               PKG_CONFIG_PATH="", CARGO_TARGET_DIR=str(target))
    subprocess.run(
        ["cargo", "build", "--quiet", "-p", "xffi-reflect-python", "--features", "system",
         "--jobs", os.environ.get("XFFI_JOBS", "2")],
        cwd=ROOT, env=env, check=True,
    )
    return target / "debug" / "libxffi_reflect_python.so"


def test_a_rust_type_is_used_from_python(tmp_path, overlay):
    ovl = overlay
    lib = build_library(ovl, tmp_path)
    needed = subprocess.run(["readelf", "-d", str(lib)], capture_output=True, text=True, check=True).stdout
    assert "[libtvm_ffi.so]" in needed, "the library must bind to the process's runtime"
    env = dict(os.environ, PYTHONPATH=str(ovl))
    run = subprocess.run(
        [sys.executable, str(ROOT / "tests/interop/rust_reflect_client.py"), str(lib)],
        env=env, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.split("\n")[:6] == [
        "constructed and read: ok",
        "written, and refused: ok",
        "methods: ok",
        "repr: ok",
        "type info: ok",
        "json graph both ways: ok",
    ], run.stdout + run.stderr
