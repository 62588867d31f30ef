"""The reader of LD_DEBUG=bindings in check_arrangements.py flags exactly the
bindings that cross between the wheel's runtime and xffi's (synthetic lines,
in glibc's format), so that ctest one_runtime_wheel_plugin passing means
something.

    python3 -m pytest -q -p no:cacheprovider tests/one_runtime/test_check_arrangements.py"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_arrangements import cross_bindings  # noqa: E402

PLUGIN = "libxffi_interop_xffi_exports.so"
WHEEL = "/site-packages/tvm_ffi/lib/libtvm_ffi.so"
XFFI = "/build/libxffi.so.0"


def line(src, dst, symbol):
    return f"     12345:\tbinding file {src} [0] to {dst} [0]: normal symbol `{symbol}' [GLIBC_2.2.5]"


def test_bindings_inside_each_runtime_pass():
    lines = [line("/usr/bin/python3", WHEEL, "TVMFFIFunctionCall"), line(WHEEL, WHEEL, "TVMFFIErrorSetRaised"),
             line(f"/build/{PLUGIN}", XFFI, "xffi_function_new"), line(XFFI, "/lib/libc.so.6", "malloc"),
             "     12345:\tsymbol=malloc;  lookup in file=/lib/libc.so.6 [0]"]
    assert cross_bindings(lines, PLUGIN) == (4, [])


def test_xffi_reaching_the_wheels_tvmffi_is_flagged():
    seen, crossed = cross_bindings([line(XFFI, WHEEL, "TVMFFIErrorMoveFromRaised")], PLUGIN)
    assert seen == 1 and "xffi binds TVMFFIErrorMoveFromRaised to the wheel's runtime" in crossed[0]
    _, crossed = cross_bindings([line(f"/build/{PLUGIN}", WHEEL, "TVMFFIFunctionGetGlobal")], PLUGIN)
    assert len(crossed) == 1


def test_the_wheel_reaching_libxffi_is_flagged():
    _, crossed = cross_bindings([line(WHEEL, XFFI, "TVMFFIGetTypeAttrColumn")], PLUGIN)
    assert "the wheel's runtime binds TVMFFIGetTypeAttrColumn to libxffi" in crossed[0]


def test_a_third_library_reaching_libxffis_tvmffi_is_flagged():
    _, crossed = cross_bindings([line("/site-packages/tvm_ffi/core.so", XFFI, "TVMFFIObjectDecRef")], PLUGIN)
    assert "core.so binds TVMFFIObjectDecRef to libxffi" in crossed[0]
