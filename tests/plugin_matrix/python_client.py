"""One check of the plugin matrix in a Python process (run.py starts one
process per check, so a crash is the check's own outcome).

    python3 python_client.py {c|rust} PLUGIN.so CHECK

The process's tvm_ffi is whichever PYTHONPATH gives: the wheel's runtime, or
xffi's through the overlay of scripts/tvm-ffi-on-xffi.sh. Exit status 0 and
"ok" when the check holds; an AssertionError or exception otherwise."""
import sys

import tvm_ffi

KEYS = {"c": "matrix.CKernel", "rust": "matrix.RustKernel"}


def expect_error(call, kind, text):
    """call() raises `kind` whose message contains `text`."""
    try:
        call()
    except kind as e:
        assert text in str(e), f"{kind.__name__} without {text!r}: {e}"
        return
    except Exception as e:  # noqa: BLE001 (the wrong kind is the finding)
        raise AssertionError(f"expected {kind.__name__} with {text!r}, got {type(e).__name__}: {e}") from e
    raise AssertionError(f"expected {kind.__name__} with {text!r}, nothing raised")


def kernel_class(key):
    """The Python class bound to the plugin's type by key."""

    @tvm_ffi.register_object(key)
    class Kernel(tvm_ffi.Object):
        """The plugin's kernel type."""

    return Kernel


def check_functions(lib, key):
    assert lib["add"](2, 40) == 42


def check_error(lib, key):
    expect_error(lambda: lib["fail"]("bad input here"), ValueError, "bad input here")
    assert lib["add"](1, 1) == 2, "the plugin works after an error"


def check_panic(lib, key):
    expect_error(lambda: lib["panic_now"]("it broke"), RuntimeError, "it broke")


def check_function_value_error(lib, key):
    f = lib["make_failing_function"]()
    expect_error(f, ValueError, "callback failed")


def check_direct_function_value_error(lib, key):
    f = lib["make_failing_direct_function"]()
    expect_error(f, ValueError, "direct function failed")


def check_function_value_panic(lib, key):
    f = lib["make_panicking_function"]()
    expect_error(f, RuntimeError, "callback panicked")


def check_type_by_key(lib, key):
    Kernel = kernel_class(key)
    assert Kernel.__tvm_ffi_type_info__.type_key == key
    names = [f.name for f in Kernel.__tvm_ffi_type_info__.fields]
    assert names == ["scale", "gain", "label"], names


def check_object_type(lib, key):
    Kernel = kernel_class(key)
    k = lib["make_kernel"](3, "k3")
    assert isinstance(k, Kernel), f"a {key} arrived as {type(k).__name__}"
    assert k.__tvm_ffi_type_info__.type_key == key


def check_fields(lib, key):
    kernel_class(key)
    k = lib["make_kernel"](3, "k3")
    assert (k.scale, k.gain, k.label) == (3, 1.0, "k3"), (k.scale, k.gain, k.label)
    k.gain = 2.5
    assert k.gain == 2.5
    expect_error(lambda: setattr(k, "scale", 4), AttributeError, "")
    assert k.scale == 3


def check_methods(lib, key):
    Kernel = kernel_class(key)
    k = Kernel(3, "made in python")
    assert k.label == "made in python"
    k.gain = 2.0
    assert k.apply(5.0) == 30.0


def check_repr(lib, key):
    kernel_class(key)
    text = repr(lib["make_kernel"](3, "k3"))
    expected = f'{key}(scale=3, gain=1, label="k3")'
    assert text == expected, text


def check_json_graph(lib, key):
    from tvm_ffi.serialization import from_json_graph_str, to_json_graph_str

    Kernel = kernel_class(key)
    k = lib["make_kernel"](3, "k3")
    text = to_json_graph_str(k)
    assert key in text, text
    back = from_json_graph_str(text)
    assert isinstance(back, Kernel) and not back.same_as(k)
    assert (back.scale, back.label) == (3, "k3")
    assert tvm_ffi.structural_equal(back, k)


def check_global_registered(lib, key):
    name = f"matrix.{key.split('.')[1][:-len('Kernel')].lower()}.twice"
    assert tvm_ffi.get_global_func(name, allow_missing=True) is None, f"{name} before the plugin registered it"
    lib["register_twice"]()
    assert tvm_ffi.get_global_func(name)(21) == 42
    expect_error(lib["register_twice"], ValueError, "already registered")


def check_global_lookup(lib, key):
    tvm_ffi.register_global_func("matrix.host.sub", lambda a, b: a - b)
    assert lib["call_global"]("matrix.host.sub", 50, 8) == 42
    expect_error(lambda: lib["call_global"]("matrix.host.none", 1, 2), KeyError, "matrix.host.none")


CHECKS = {name[len("check_"):]: f for name, f in globals().items() if name.startswith("check_")}


def main():
    kind, path, check = sys.argv[1:4]
    lib = tvm_ffi.load_module(path)
    CHECKS[check](lib, KEYS[kind])
    print("ok")


if __name__ == "__main__":
    main()
