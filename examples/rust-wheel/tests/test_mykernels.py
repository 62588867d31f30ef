"""The installed mykernels wheel, as its users call it: functions, errors, the
type and its fields and methods, and the shipped type stub (the same as the
stub generated from the plugin's reflection, and one mypy checks code with).

    python -m pytest examples/rust-wheel/tests

runs on the tvm-ffi runtime of the process: MYKERNELS_RUNTIME=wheel asserts
it is the apache-tvm-ffi wheel's library, MYKERNELS_RUNTIME=xffi that it is
xffi's drop-in (tvm_ffi on the overlay of scripts/tvm-ffi-on-xffi.sh)."""
import ctypes
import os
import pathlib
import subprocess
import sys

import pytest
import tvm_ffi

import mykernels
from mykernels import Gain

EXAMPLE = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = pathlib.Path(mykernels.__file__).resolve().parent


def loaded_tvm_ffi_runtime():
    """The path of the one libtvm_ffi.so mapped in this process."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if line.rstrip().endswith("/libtvm_ffi.so")}
    assert len(paths) == 1, f"expected one libtvm_ffi.so in the process, found {sorted(paths)}"
    return paths.pop()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_the_runtime_is_the_one_asked_for():
    wanted = os.environ.get("MYKERNELS_RUNTIME")
    assert wanted in ("wheel", "xffi"), "set MYKERNELS_RUNTIME to wheel or xffi"
    runtime = ctypes.CDLL(loaded_tvm_ffi_runtime())
    # xffi's drop-in serves xffi's own API beside tvm-ffi's; the wheel's library does not.
    assert hasattr(runtime, "xffi_function_call") == (wanted == "xffi")


def test_the_package_is_installed_with_its_library_and_stub():
    assert PACKAGE.parent.name == "site-packages", f"mykernels imported from {PACKAGE}, not an installed wheel"
    for name in ("libmykernels.so", "__init__.pyi", "py.typed"):
        assert (PACKAGE / name).is_file(), f"the wheel has no mykernels/{name}"


def test_functions_take_and_return_values():
    assert mykernels.scale(2.0, 3.0) == 6.0
    assert mykernels.parse_threads(" 4 ") == 4


def test_a_wrong_argument_is_a_type_error_naming_function_and_argument():
    with pytest.raises(TypeError, match="^scale: argument 0: .*expected float, got str"):
        mykernels.scale("two", 3.0)
    with pytest.raises(TypeError, match="^scale: expected 2 arguments, got 1"):
        mykernels.scale(2.0)


def test_errors_arrive_as_the_exceptions_the_plugin_raised():
    with pytest.raises(ValueError, match="invalid digit"):  # `?` on Rust's ParseIntError
        mykernels.parse_threads("four")
    with pytest.raises(ValueError, match="expected at least 1 thread, got 0"):
        mykernels.parse_threads("0")
    with pytest.raises(ValueError, match="expected at least 1 channel, got 0"):
        Gain(0, 1.0)


def test_objects_of_the_plugin_are_instances_of_the_registered_class():
    gain = Gain(2, 1.5)
    assert isinstance(gain, Gain)
    made = mykernels.unity_gain(3)
    assert type(made) is Gain and made.channels == 3 and made.factor == 1.0
    assert Gain.__tvm_ffi_type_info__.type_key == "mykernels.Gain"


def test_fields_read_write_and_refuse_a_read_only_write():
    gain = Gain(2, 1.5)
    assert (gain.channels, gain.factor) == (2, 1.5)
    gain.factor = 2.5
    assert gain.factor == 2.5
    with pytest.raises(AttributeError):
        gain.channels = 4
    assert gain.channels == 2


def test_methods_are_called_on_the_object():
    gain = Gain(2, 1.5)
    assert gain.apply(4.0) == 6.0
    gain.factor = 0.5
    assert gain.apply(4.0) == 2.0
    assert gain.describe() == "2 channels x 0.5"


def schema(metadata):
    """The type schema in a reflection record's or function's metadata, as tvm_ffi parses it."""
    return tvm_ffi.core.TypeSchema.from_json_str(metadata["type_schema"])


def test_functions_fields_and_methods_carry_their_type_schemas():
    scale = schema(mykernels._LIB.get_function_metadata("scale"))
    assert scale.origin == "Callable"
    assert [p.origin for p in scale.named_args["params"]] == ["float", "float"]
    assert [r.origin for r in scale.named_args["return"]] == ["float"]
    parse_threads = schema(mykernels._LIB.get_function_metadata("parse_threads"))
    assert [p.origin for p in parse_threads.named_args["params"]] == ["str"]
    assert [r.origin for r in parse_threads.named_args["return"]] == ["int"]
    unity_gain = schema(mykernels._LIB.get_function_metadata("unity_gain"))
    assert [r.origin for r in unity_gain.named_args["return"]] == ["mykernels.Gain"]
    info = Gain.__tvm_ffi_type_info__
    assert {f.name: schema(f.metadata).origin for f in info.fields} == {"channels": "int", "factor": "float"}
    methods = {m.name: schema(m.metadata) for m in info.methods}
    # An instance method's first parameter is the object; __ffi_init__ makes one.
    assert [p.origin for p in methods["apply"].named_args["params"]] == ["mykernels.Gain", "float"]
    assert [r.origin for r in methods["apply"].named_args["return"]] == ["float"]
    assert [p.origin for p in methods["__ffi_init__"].named_args["params"]] == ["int", "float"]
    assert [r.origin for r in methods["describe"].named_args["return"]] == ["str"]


def test_functions_carry_their_docs():
    assert mykernels._LIB.get_function_doc("scale") == "`x * k`."
    assert mykernels._LIB.get_function_doc("unity_gain") == "A gain stage of `channels` channels with factor 1.0."


def test_tvm_ffi_stubgen_writes_the_type_from_the_same_schemas(tmp_path):
    """tvm-ffi's own generator reads the plugin's type: its fields and typed
    signatures (it sees types and global functions, not module exports)."""
    stub = tmp_path / "gain.pyi"
    stub.write_text("# tvm-ffi-stubgen(begin): object/mykernels.Gain\n# tvm-ffi-stubgen(end)\n")
    done = subprocess.run([sys.executable, "-m", "tvm_ffi.stub.cli", "--dlls", str(PACKAGE / "libmykernels.so"),
                           str(stub)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    text = stub.read_text()
    for line in ("channels: int", "factor: float", "def __ffi_init__(self, _0: int, _1: float, /) -> None: ...",
                 "def apply(self, _1: float, /) -> float: ...", "def describe(self, /) -> str: ..."):
        assert line in text, text


def stubgen(*args, **kwargs):
    """Runs stubgen.py with `args`: the finished process, its output captured."""
    return subprocess.run([sys.executable, str(EXAMPLE / "stubgen.py"), *args], capture_output=True, text=True,
                          **kwargs)


def test_the_shipped_stub_is_the_one_generated_from_the_reflection():
    done = stubgen("mykernels", "--check", str(PACKAGE / "__init__.pyi"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_stub_check_fails_on_a_stub_that_differs(tmp_path):
    stale = tmp_path / "stale.pyi"
    stale.write_text((PACKAGE / "__init__.pyi").read_text().replace("factor: float", "factor: int"))
    done = stubgen("mykernels", "--check", str(stale))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "-    factor: int" in done.stdout and "+    factor: float" in done.stdout, done.stdout


def test_stubgen_refuses_a_public_name_it_cannot_describe(tmp_path):
    (tmp_path / "notaplugin.py").write_text("__all__ = ['answer']\nanswer = 42\n")
    done = stubgen("notaplugin", cwd=tmp_path, env={**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path)] + [p for p in [os.environ.get("PYTHONPATH")] if p])})
    assert done.returncode != 0
    expected = "notaplugin.answer is of type int, expected a tvm_ffi.Function or a class registered"
    assert expected in done.stderr, done.stderr


def test_the_stub_names_every_public_name_and_field():
    stub = (PACKAGE / "__init__.pyi").read_text()
    for name in mykernels.__all__:
        assert f"def {name}(" in stub or f"class {name}(" in stub, name
    for field in Gain.__tvm_ffi_type_info__.fields:
        assert f"def {field.name}(self)" in stub or f"    {field.name}: " in stub, field.name


def mypy(tmp_path, code):
    """mypy's (exit status, output) on `code` against the installed package."""
    source = tmp_path / "user.py"
    source.write_text(code)
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
                           str(tmp_path / "cache"), str(source)], capture_output=True, text=True, cwd=tmp_path)
    return done.returncode, done.stdout + done.stderr


USER_CODE = """\
import mykernels
from mykernels import Gain

gain = Gain(2, 1.5)
channels: int = gain.channels
gain.factor = 2.0
factor: float = gain.factor
made: Gain = mykernels.unity_gain(1)
total: float = mykernels.scale(2.0, 3.0)
threads: int = mykernels.parse_threads("4")
out: float = gain.apply(4.0)
text: str = gain.describe()
"""


def test_mypy_accepts_code_that_uses_the_package_as_typed(tmp_path):
    status, output = mypy(tmp_path, USER_CODE)
    assert status == 0, output


@pytest.mark.parametrize("line, message", [
    ("gain.channels = 4", 'Property "channels" defined in "Gain" is read-only'),
    ('gain.factor = "loud"', 'Incompatible types in assignment (expression has type "str", variable has type "float")'),
    ("mykernels.no_such_kernel(1)", 'Module has no attribute "no_such_kernel"'),
    ("name: str = gain.channels", '(expression has type "int", variable has type "str")'),
    # The signatures come from the functions' and methods' type schemas.
    ('mykernels.scale("two", 3.0)', 'Argument 1 to "scale" has incompatible type "str"; expected "float"'),
    ("mykernels.scale(2.0)", 'Too few arguments for "scale"'),
    ("mykernels.parse_threads(4)", 'Argument 1 to "parse_threads" has incompatible type "int"; expected "str"'),
    ("threads_text: str = mykernels.parse_threads('4')", '(expression has type "int", variable has type "str")'),
    ("not_a_gain: int = mykernels.unity_gain(1)", '(expression has type "Gain", variable has type "int")'),
    ('Gain("two", 1.5)', 'Argument 1 to "Gain" has incompatible type "str"; expected "int"'),
    ('gain.apply("x")', 'Argument 1 to "apply" of "Gain" has incompatible type "str"; expected "float"'),
    ("gain.describe(1)", 'Too many arguments for "describe" of "Gain"'),
])
def test_mypy_refuses_code_that_the_stub_says_is_wrong(tmp_path, line, message):
    status, output = mypy(tmp_path, USER_CODE + line + "\n")
    assert status == 1 and message in output, output
