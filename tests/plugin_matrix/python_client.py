"""One check of the plugin matrix in a Python process (run.py starts one
process per check, so a crash is the check's own outcome).

    python3 python_client.py {c|rust} PLUGIN.so CHECK
    python3 python_client.py together C_PLUGIN.so:RUST_PLUGIN.so[:TVM_RUST_PLUGIN.so] together

The process's tvm_ffi is whichever PYTHONPATH gives: the wheel's runtime, or
xffi's through the overlay of scripts/tvm-ffi-on-xffi.sh. Exit status 0 and
"ok" when the check holds; an AssertionError or exception otherwise."""
import os
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
    name = f"matrix.{key.split('.')[1][:-len('Kernel')].lower()}.product"
    assert tvm_ffi.get_global_func(name, allow_missing=True) is None, f"{name} before the plugin registered it"
    lib["register_product"]()
    assert tvm_ffi.get_global_func(name)(6, 7) == 42
    expect_error(lib["register_product"], ValueError, "already registered")


def check_global_lookup(lib, key):
    tvm_ffi.register_global_func("matrix.host.sub", lambda a, b: a - b)
    assert lib["call_global"]("matrix.host.sub", 50, 8) == 42
    expect_error(lambda: lib["call_global"]("matrix.host.none", 1, 2), KeyError, "matrix.host.none")


def check_process_types(lib, key):
    """The plugin reads objects of types only the process registered: a C++
    library's (the wheel's testing types: fields, a method, repr, is-instance
    against its base) and a Python-defined one (fields registered after the
    type: fields, repr, structural equality and hash)."""
    import tvm_ffi.testing
    from tvm_ffi.dataclasses import py_class

    d = tvm_ffi.testing.TestObjectDerived(v_map={"k": 1}, v_array=[1, 2], v_i64=5, v_f64=1.5, v_str="s")
    assert (lib["field_of"](d, "v_i64"), lib["field_of"](d, "v_str")) == (5, "s")
    assert lib["call_method"](d, "add_i64", 3) == 8
    assert lib["is_instance"](d, "testing.TestObjectBase") and lib["is_instance"](d, "testing.TestObjectDerived")
    assert not lib["is_instance"](d, "testing.TestIntPair")
    assert not lib["is_instance"](tvm_ffi.testing.TestIntPair(1, 2), "testing.TestObjectBase")
    assert lib["repr_of"](d) == repr(d), (lib["repr_of"](d), repr(d))

    @py_class(f"{key}.Point", structural_eq="tree")
    class Point(tvm_ffi.Object):
        x: int
        label: str

    a, b, c = Point(1, "p"), Point(1, "p"), Point(2, "p")
    assert (lib["field_of"](a, "x"), lib["field_of"](a, "label")) == (1, "p")
    assert lib["repr_of"](a) == repr(a), (lib["repr_of"](a), repr(a))
    assert lib["structural_equal"](a, b) and not lib["structural_equal"](a, c)
    assert lib["structural_hash"](a) == lib["structural_hash"](b) == tvm_ffi.structural_hash(a)
    assert lib["is_instance"](a, f"{key}.Point") and not lib["is_instance"](a, "testing.TestObjectBase")


def check_twice(first, second, key):
    """Two loads of one plugin (first and second, its modules) share its type
    and the process's global functions: objects of either are the one class's,
    read, printed, serialized and compared alike; the name registered through
    the first is refused through the second, as tvm-ffi refuses any second
    registration of a name (TVMFFIFunctionSetGlobal without override)."""
    from tvm_ffi.serialization import from_json_graph_str, to_json_graph_str

    Kernel = kernel_class(key)
    one, two = first["make_kernel"](3, "k"), second["make_kernel"](3, "k")
    assert isinstance(one, Kernel) and isinstance(two, Kernel), (type(one).__name__, type(two).__name__)
    assert one.__tvm_ffi_type_info__.type_index == two.__tvm_ffi_type_info__.type_index
    assert repr(two) == f'{key}(scale=3, gain=1, label="k")', repr(two)
    assert tvm_ffi.structural_equal(one, two)
    assert tvm_ffi.structural_equal(from_json_graph_str(to_json_graph_str(two)), one)
    assert Kernel(4, "py").apply(1.0) == 4.0
    first["register_product"]()
    expect_error(second["register_product"], ValueError, "already registered")
    name = f"matrix.{key.split('.')[1][:-len('Kernel')].lower()}.product"
    assert second["call_global"](name, 6, 7) == 42
    expect_error(lambda: second["fail"]("bad input here"), ValueError, "bad input here")


def check_loaded_twice(lib, key, path):
    """The same file loaded a second time (the loader gives the same library)."""
    check_twice(lib, tvm_ffi.load_module(path), key)


def check_copied(lib, key, path):
    """The same library copied to a second path and loaded from there: a second
    library in the process registering the same type key with the same layout."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        copy = shutil.copy(path, os.path.join(scratch, "copy_" + os.path.basename(path)))
        check_twice(lib, tvm_ffi.load_module(copy), key)


# The checks that take the plugin's path too.
PATH_CHECKS = {"loaded_twice", "copied"}


# A tvm-ffi C++ plugin, built with the process's tvm_ffi headers at run time
# (tvm_ffi.cpp.load_inline): it registers matrix.cpp.product and exports
# call_global(name, a, b), as the xffi plugins do.
CPP_PLUGIN = r"""
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <string>
int64_t call_global(std::string name, int64_t a, int64_t b) {
  auto f = tvm::ffi::Function::GetGlobal(name);
  if (!f.has_value()) TVM_FFI_THROW(KeyError) << "no global function named " << name;
  return (*f)(a, b).cast<int64_t>();
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_global, call_global);
TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef().def("matrix.cpp.product", [](int64_t a, int64_t b) { return a * b; });
}
"""


def check_together(libs, key):
    """The C and the Rust plugin, a tvm-ffi C++ plugin and (when given) a
    tvm-ffi Rust-crate plugin in one process: the global functions each
    registers are found and called by the others and by Python; the types of
    both xffi plugins are found by key and their objects are theirs."""
    import tvm_ffi.cpp

    cpp = tvm_ffi.cpp.load_inline(name="xffi_matrix_cpp_plugin", cpp_sources=CPP_PLUGIN, functions=[])
    libs = dict(libs, cpp=cpp)
    libs["c"]["register_product"]()
    libs["rust"]["register_product"]()
    # The tvm-ffi Rust-crate plugin registered matrix.tvmrust.product when it loaded.
    for callee in libs:
        assert tvm_ffi.get_global_func(f"matrix.{callee}.product")(6, 7) == 42, f"Python calling {callee}'s product"
    for lib in libs.values():
        expect_error(lambda: lib["call_global"]("matrix.none.product", 1, 2), KeyError, "matrix.none.product")
    for caller, lib in libs.items():
        for callee in libs:
            got = lib["call_global"](f"matrix.{callee}.product", 6, 7)
            assert got == 42, f"{caller} calling matrix.{callee}.product: {got}"
    for kind, type_key in KEYS.items():
        Kernel = kernel_class(type_key)
        k = libs[kind]["make_kernel"](3, kind)
        assert isinstance(k, Kernel) and (k.scale, k.label) == (3, kind), f"{type_key}: {k!r}"


CHECKS = {name[len("check_"):]: f for name, f in globals().items() if name.startswith("check_")}


def main():
    kind, path, check = sys.argv[1:4]
    if kind == "together":  # PATH is C_PLUGIN.so:RUST_PLUGIN.so
        paths = dict(zip(("c", "rust", "tvmrust"), path.split(os.pathsep)))
        CHECKS[check]({kind: tvm_ffi.load_module(p) for kind, p in paths.items()}, None)
    elif check in PATH_CHECKS:
        CHECKS[check](tvm_ffi.load_module(path), KEYS[kind], path)
    else:
        CHECKS[check](tvm_ffi.load_module(path), KEYS[kind])
    print("ok")


if __name__ == "__main__":
    main()
