"""tvm-ffi (the apache-tvm-ffi Python package) loads and calls a library
written with xffi (tests/interop/lib_xffi_exports.c, exported with xffi's
XFFI_EXPORT_FUNCTION, which hands errors to tvm-ffi's slot by itself).

The library's path comes from XFFI_INTEROP_XFFI_LIB (required):

    XFFI_INTEROP_XFFI_LIB=build/tests/libxffi_interop_xffi_exports.so \
        python3 -m pytest -q -p no:cacheprovider tests/interop/test_tvm_loads_xffi.py

Proves: ints, floats, bools, strings (small and long), tvm_ffi Tensors made
from numpy arrays (read and written in place, zero copy), Arrays (Python
lists, built by tvm-ffi, read by xffi; xffi Arrays read by Python) and
Functions cross both ways with the right results; an error raised inside an
xffi function arrives as a Python exception of its kind with its message,
and a Python exception raised in a callback called by xffi comes back to
Python as itself; objects made by xffi and dropped by Python are destroyed
exactly once (counted by the library).
"""
import gc
import os

import numpy as np
import pytest
import tvm_ffi


@pytest.fixture(scope="module")
def lib():
    path = os.environ.get("XFFI_INTEROP_XFFI_LIB")
    if not path:
        pytest.fail("set XFFI_INTEROP_XFFI_LIB to the path of libxffi_interop_xffi_exports.so")
    return tvm_ffi.load_module(path)


def test_ints_floats_bools_cross_both_ways(lib):
    assert lib.add_int(2, 40) == 42
    assert lib.add_int(-(2**62), 2**62 - 1) == -1
    assert lib.scale(1.5, 4.0) == 6.0
    assert lib.scale(3, 0.5) == 1.5  # an int is accepted as a float
    assert lib.logical_not(True) is False
    assert lib.logical_not(False) is True


def test_strings_cross_both_ways_short_and_long(lib):
    assert lib.greet("bob") == "hello, bob"  # small string in, String out
    long_name = "a name well beyond seven bytes"
    result = lib.greet(long_name)
    assert isinstance(result, str)
    assert result == "hello, " + long_name
    assert lib.greet("") == "hello, "
    assert lib.greet("\u00e9t\u00e9") == "hello, \u00e9t\u00e9"  # UTF-8 bytes, unchanged


def test_numpy_tensor_is_read_and_written_in_place(lib):
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = tvm_ffi.from_dlpack(a)
    assert lib.tensor_sum(t) == 15.0
    lib.tensor_scale_inplace(t, 2.0)
    np.testing.assert_array_equal(a, np.arange(6, dtype=np.float64).reshape(2, 3) * 2)


def test_strided_numpy_view_is_read_with_its_strides(lib):
    a = np.arange(12, dtype=np.float64).reshape(3, 4)[:, ::2]  # non-contiguous
    t = tvm_ffi.from_dlpack(a)
    assert lib.tensor_sum(t) == float(a.sum())


def test_xffi_tensor_reaches_numpy_without_copy_and_its_deleter_runs_once(lib):
    before = lib.tensor_deleter_runs()
    t = lib.tensor_arange(5)
    assert isinstance(t, tvm_ffi.Tensor)
    arr = np.from_dlpack(t)
    np.testing.assert_array_equal(arr, np.arange(5, dtype=np.float64))
    lib.tensor_scale_inplace(t, 10.0)  # the same memory, seen through numpy
    np.testing.assert_array_equal(arr, np.arange(5, dtype=np.float64) * 10)
    del t
    gc.collect()
    assert lib.tensor_deleter_runs() == before  # numpy still holds it
    del arr
    gc.collect()
    assert lib.tensor_deleter_runs() == before + 1


def test_arrays_cross_both_ways(lib):
    assert lib.array_sum([1, 2, 3, 4]) == 10  # built by tvm-ffi, read by xffi
    assert lib.array_sum([]) == 0
    made = lib.array_of(1, "two", 3.5, True)  # built by xffi, read by tvm-ffi
    assert isinstance(made, tvm_ffi.Array)
    assert list(made) == [1, "two", 3.5, True]
    assert lib.array_sum(lib.array_of(5, 6)) == 11  # an xffi Array back into xffi


def test_objects_come_back_as_the_same_object(lib):
    a = tvm_ffi.convert([1, 2])
    assert lib.echo(a).same_as(a)
    t = tvm_ffi.from_dlpack(np.zeros(3))
    assert lib.echo(t).same_as(t)
    inner = lib.array_of(t, a)
    assert inner[0].same_as(t) and inner[1].same_as(a)


def test_xffi_function_called_from_python_and_finalized_once(lib):
    before = lib.finalizer_runs()
    f = lib.make_multiplier(7)
    assert f(6) == 42
    held = lib.array_of(f)  # the Array holds a second reference
    del f
    gc.collect()
    assert lib.finalizer_runs() == before
    assert held[0](2) == 14
    del held
    gc.collect()
    assert lib.finalizer_runs() == before + 1


def test_python_function_called_by_xffi(lib):
    assert lib.call_with(lambda x, y: x * y, 6, 7) == 42
    assert lib.call_with(lambda s: s.upper(), "shout") == "SHOUT"


def test_xffi_error_arrives_with_kind_and_message(lib):
    with pytest.raises(KeyError, match="no such key: k"):
        lib.fail("KeyError", "no such key: k")
    with pytest.raises(ValueError, match="bad value 42"):
        lib.fail("ValueError", "bad value 42")
    with pytest.raises(TypeError, match=r"add_int: argument 0: expected int, got str"):
        lib.add_int("a", 1)
    with pytest.raises(TypeError, match=r"add_int: expected 2 arguments, got 1"):
        lib.add_int(1)


def test_error_raised_by_xffi_function_object_arrives_too(lib):
    f = lib.make_multiplier(2)
    # Through call_with (xffi calling it with xffi_function_call) the error is
    # taken back from tvm-ffi's slot and forwarded again on the way out.
    with pytest.raises(TypeError, match=r"multiplier: argument 0: expected int"):
        lib.call_with(f, "x")
    # Called by tvm-ffi directly: the callback forwarded its error to
    # tvm-ffi's slot (xffi_error_forward_to_tvm).
    with pytest.raises(TypeError, match=r"multiplier: argument 0: expected int"):
        f("x")
    assert f(4) == 8


def test_python_exception_crosses_xffi_and_comes_back(lib):
    def bad(x):
        raise IndexError("from python: %d" % x)

    with pytest.raises(IndexError, match="from python: 3"):
        lib.call_with(bad, 3)
    # the slot is clean afterwards: the next call succeeds
    assert lib.add_int(1, 1) == 2
