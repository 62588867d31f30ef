"""One check of the plugin matrix in a Python process (run.py starts one
process per check, so a crash is the check's own outcome).

    python3 python_client.py {c|rust} PLUGIN.so CHECK
    python3 python_client.py together C_PLUGIN.so:RUST_PLUGIN.so[:TVM_RUST_PLUGIN.so[:OLDER_PLUGIN.so]] together
    python3 python_client.py {c|rust|tvmrust|older} C.so:RUST.so:TVM_RUST.so:OLDER.so {types|fields}_of_others

The process's tvm_ffi is whichever PYTHONPATH gives: the wheel's runtime, or
xffi's through the overlay of scripts/tvm-ffi-on-xffi.sh. Exit status 0 and
"ok" when the check holds; an AssertionError or exception otherwise."""
import os
import sys

import tvm_ffi

KEYS = {"c": "matrix.CKernel", "rust": "matrix.RustKernel"}
# The types of the plugins loaded together: the xffi plugins', the tvm-ffi
# Rust-crate plugin's and the older xffi's plugin's (older_rust_plugin/).
TOGETHER_KEYS = dict(KEYS, tvmrust="matrix.TvmRustKernel", older="matrix.OlderKernel")


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
    assert (lib["get_field"](d, "v_i64"), lib["get_field"](d, "v_str")) == (5, "s")
    assert lib["call_method"](d, "add_i64", 3) == 8
    assert lib["is_instance_of"](d, "testing.TestObjectBase") and lib["is_instance_of"](d, "testing.TestObjectDerived")
    assert not lib["is_instance_of"](d, "testing.TestIntPair")
    assert not lib["is_instance_of"](tvm_ffi.testing.TestIntPair(1, 2), "testing.TestObjectBase")
    assert lib["repr_of"](d) == repr(d), (lib["repr_of"](d), repr(d))

    @py_class(f"{key}.Point", structural_eq="tree")
    class Point(tvm_ffi.Object):
        x: int
        label: str

    a, b, c = Point(1, "p"), Point(1, "p"), Point(2, "p")
    assert (lib["get_field"](a, "x"), lib["get_field"](a, "label")) == (1, "p")
    assert lib["repr_of"](a) == repr(a), (lib["repr_of"](a), repr(a))
    assert lib["structural_equal"](a, b) and not lib["structural_equal"](a, c)
    assert lib["structural_hash"](a) == lib["structural_hash"](b) == tvm_ffi.structural_hash(a)
    assert lib["is_instance_of"](a, f"{key}.Point") and not lib["is_instance_of"](a, "testing.TestObjectBase")


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
# The checks of one plugin (the reader) among all the plugins loaded together.
OTHERS_CHECKS = {"types_of_others", "fields_of_others"}
TOGETHER_KINDS = ("c", "rust", "tvmrust", "older")


# A tvm-ffi C++ plugin, built with the process's tvm_ffi headers at run time
# (tvm_ffi.cpp.load_inline): it registers matrix.cpp.product and exports
# call_global(name, a, b), as the xffi plugins do; it defines the type
# matrix.CppKernel (fields scale and label, tvm-ffi's reflection), made by
# make_kernel(scale, label), and reads any object's field by its type's key
# and the field's name with tvm-ffi's reflection (get_field(obj, name)).
CPP_PLUGIN = r"""
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>
#include <string>
#include <string_view>
#include <utility>
int64_t call_global(std::string name, int64_t a, int64_t b) {
  auto f = tvm::ffi::Function::GetGlobal(name);
  if (!f.has_value()) TVM_FFI_THROW(KeyError) << "no global function named " << name;
  return (*f)(a, b).cast<int64_t>();
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_global, call_global);

class CppKernelObj : public tvm::ffi::Object {
 public:
  double scale;
  tvm::ffi::String label;
  CppKernelObj(double scale, tvm::ffi::String label) : scale(scale), label(std::move(label)) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("matrix.CppKernel", CppKernelObj, tvm::ffi::Object);
};

tvm::ffi::ObjectRef make_kernel(double scale, tvm::ffi::String label) {
  return tvm::ffi::ObjectRef(tvm::ffi::make_object<CppKernelObj>(scale, std::move(label)));
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_kernel, make_kernel);

tvm::ffi::Any get_field(tvm::ffi::ObjectRef obj, std::string name) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(obj->type_index());
  tvm::ffi::reflection::FieldGetter getter(std::string_view(info->type_key.data, info->type_key.size),
                                           name.c_str());
  return getter(obj);
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(get_field, get_field);

TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef().def("matrix.cpp.product", [](int64_t a, int64_t b) { return a * b; });
  tvm::ffi::reflection::ObjectDef<CppKernelObj>()
      .def_ro("scale", &CppKernelObj::scale)
      .def_ro("label", &CppKernelObj::label);
}
"""
CPP_KEY = "matrix.CppKernel"


def check_together(libs, key):
    """The C and the Rust plugin, a tvm-ffi C++ plugin and (when given) a
    tvm-ffi Rust-crate plugin and the older xffi's plugin in one process: the
    global functions each registers are found and called by the others and by
    Python; the types of the xffi plugins are found by key and their objects
    are theirs."""
    import tvm_ffi.cpp

    cpp = tvm_ffi.cpp.load_inline(name="xffi_matrix_cpp_plugin", cpp_sources=CPP_PLUGIN, functions=[])
    libs = dict(libs, cpp=cpp)
    libs["c"]["register_product"]()
    libs["rust"]["register_product"]()
    if "older" in libs:
        libs["older"]["register_product"]()
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
    check_cpp_type_together(libs)
    if "older" in libs:
        check_versions_together(libs)


def check_cpp_type_together(libs):
    """The tvm-ffi C++ plugin's type among the others: Python binds it by key;
    each other plugin finds it by key, checks is-instance of its object and
    (all but the older xffi, which predates reading types only the process
    knows) reads its fields by name; the C++ plugin reads every plugin's
    object's fields with tvm-ffi's reflection (FieldGetter by the type's key)."""
    cpp = libs["cpp"]
    Kernel = kernel_class(CPP_KEY)
    k = cpp["make_kernel"](3, "cpp")
    assert isinstance(k, Kernel) and (k.scale, k.label) == (3, "cpp"), f"{CPP_KEY}: {k!r}"
    for reader, lib in libs.items():
        if reader == "cpp":
            continue
        assert lib["is_instance"](CPP_KEY, k), f"{reader}: a {CPP_KEY} is not one"
        assert not lib["is_instance"](CPP_KEY, libs[reader]["make_kernel"](3, reader)), f"{reader}: its own is a {CPP_KEY}"
        if reader != "older":
            got = (lib["get_field"](k, "scale"), lib["get_field"](k, "label"))
            assert got == (3, "cpp"), f"{reader} reading a {CPP_KEY}'s scale and label: {got}"
    for kind, lib in libs.items():
        obj = lib["make_kernel"](3, kind)
        got = (cpp["get_field"](obj, "scale"), cpp["get_field"](obj, "label"))
        assert got == (3, kind), f"the C++ plugin reading a {TOGETHER_KEYS.get(kind, CPP_KEY)}'s fields: {got}"
    expect_error(lambda: cpp["get_field"](k, "no_such_field"), Exception, "no_such_field")


def check_versions_together(libs):
    """The plugin of the older xffi (older_rust_plugin/) among the others: its
    global functions were called by each and it called theirs (above); here
    its type and the tvm-ffi Rust-crate plugin's are Python's too, and errors
    cross between the two xffi versions both ways: its global function's
    ValueError through each other plugin's call_global, and the current Rust
    plugin's argument check (a TypeError raised by the current xffi's
    export_func!) through its call_global."""
    for kind in ("older", "tvmrust"):
        Kernel = kernel_class(TOGETHER_KEYS[kind])
        k = libs[kind]["make_kernel"](3, kind)
        assert isinstance(k, Kernel) and (k.scale, k.label) == (3, kind), f"{TOGETHER_KEYS[kind]}: {k!r}"
    refused = "matrix.older.refuse refuses (6, 7)"
    for caller, lib in libs.items():
        expect_error(lambda: lib["call_global"]("matrix.older.refuse", 6, 7), ValueError, refused)
    tvm_ffi.register_global_func("matrix.rust.fail", libs["rust"]["fail"])
    expect_error(lambda: libs["older"]["call_global"]("matrix.rust.fail", 6, 7), TypeError, "fail")
    assert libs["older"]["call_global"]("matrix.rust.product", 6, 7) == 42


def together_objects(libs):
    """{kind: an object of each together plugin's type}: scale 3, label kind."""
    return {kind: libs[kind]["make_kernel"](3, kind) for kind in TOGETHER_KEYS}


def check_types_of_others(libs, reader):
    """The reader plugin finds each plugin's type by key (its own, the other
    xffi version's, the tvm-ffi Rust-crate plugin's) and checks is-instance of
    each plugin's objects against it; a key no type has is a KeyError. The
    tvm-ffi Rust-crate plugin also casts to the C plugin's type as the crate
    casts (its struct bound to the key) and reads its fields from the struct."""
    objects = together_objects(libs)
    is_instance = libs[reader]["is_instance"]
    for kind, key in TOGETHER_KEYS.items():
        for other, obj in objects.items():
            got = is_instance(key, obj)
            assert got == (kind == other), f"{reader}: is_instance({key}, a {TOGETHER_KEYS[other]}) is {got}"
        assert is_instance("ffi.Object", objects[kind]), f"{reader}: a {key} is not an ffi.Object"
    expect_error(lambda: is_instance("matrix.NoSuchKernel", objects[reader]), KeyError, "matrix.NoSuchKernel")
    if reader == "tvmrust":  # the crate's typed cast, to the C plugin's type bound by key
        describe = libs[reader]["describe_c_kernel"]
        assert describe(objects["c"]) == "3 1 c", describe(objects["c"])
        for kind in ("rust", "tvmrust", "older"):
            expect_error(lambda: describe(objects[kind]), TypeError, f"`{TOGETHER_KEYS[kind]}` to `matrix.CKernel`")


def check_fields_of_others(libs, reader):
    """The reader plugin reads each plugin's object's fields by name (scale,
    label); a name the type has no field for fails naming it."""
    objects = together_objects(libs)
    get_field = libs[reader]["get_field"]
    for kind, obj in objects.items():
        got = (get_field(obj, "scale"), get_field(obj, "label"))
        assert got == (3, kind), f"{reader} reading a {TOGETHER_KEYS[kind]}'s scale and label: {got}"
        expect_error(lambda: get_field(obj, "no_such_field"), Exception, "no_such_field")


CHECKS = {name[len("check_"):]: f for name, f in globals().items() if name.startswith("check_")}


def main():
    kind, path, check = sys.argv[1:4]
    if kind == "together":  # PATH is C_PLUGIN.so:RUST_PLUGIN.so[:...]
        paths = dict(zip(TOGETHER_KINDS, path.split(os.pathsep)))
        CHECKS[check]({kind: tvm_ffi.load_module(p) for kind, p in paths.items()}, None)
    elif check in OTHERS_CHECKS:  # kind is the reader; PATH names every plugin
        paths = dict(zip(TOGETHER_KINDS, path.split(os.pathsep)))
        CHECKS[check]({name: tvm_ffi.load_module(p) for name, p in paths.items()}, kind)
    elif check in PATH_CHECKS:
        CHECKS[check](tvm_ffi.load_module(path), KEYS[kind], path)
    else:
        CHECKS[check](tvm_ffi.load_module(path), KEYS[kind])
    print("ok")


if __name__ == "__main__":
    main()
