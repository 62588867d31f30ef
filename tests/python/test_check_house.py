"""scripts/check-house.py finds include cycles, long files and breaches of the layer rule, and only those."""
import os
import subprocess
import sys

import pytest

CHECKER = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "check-house.py")


def make_repo(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    return subprocess.run([sys.executable, CHECKER, str(tmp_path)], capture_output=True, text=True)


def test_a_clean_tree_passes(tmp_path):
    result = make_repo(tmp_path, {"c/a.h": '#include "b.h"\n', "c/b.h": "#include <stdio.h>\n", "c/a.c": '#include "a.h"\n'})
    assert result.returncode == 0, result.stdout


def test_an_include_cycle_is_printed(tmp_path):
    result = make_repo(
        tmp_path,
        {"c/a.h": '#include "b.h"\n', "c/b.h": "#include <xffi/c.h>\n", "include/xffi/c.h": '#  include "../../c/a.h"\n'},
    )
    assert result.returncode == 1
    assert "include cycle: c/a.h -> c/b.h -> include/xffi/c.h -> c/a.h" in result.stdout


@pytest.mark.parametrize("name", ["c/long.c", "rust/src/lib.rs", "scripts/x.py", "scripts/x.sh", "CMakeLists.txt"])
def test_a_file_over_800_lines_is_printed(tmp_path, name):
    result = make_repo(tmp_path, {name: "x\n" * 801, "c/short.c": "x\n" * 800})
    assert result.returncode == 1
    assert f"over 800 lines: {name} (801)" in result.stdout
    assert "short.c" not in result.stdout


def test_vendored_and_generated_files_are_left_out(tmp_path):
    result = make_repo(
        tmp_path,
        {"include/xffi/dlpack.h": "x\n" * 900, "bindings/gen.h": "/* Generated with cbindgen. Do not edit. */\n" + "x\n" * 900},
    )
    assert result.returncode == 0, result.stdout


LAYERS = """# c/
| folder | layer | what |
|---|---|---|
| `c/low/` | low | the bottom |
| `c/high/` | high | on top of low |
"""


def build_objects(tmp_path, sources):
    """Compiles each c/ source of the fake repository where a CMake build
    keeps xffi's objects, and returns the build directory."""
    build = tmp_path / "build"
    for source in sources:
        obj = build / "CMakeFiles" / "xffi_objects.dir" / (source + ".o")
        obj.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["cc", "-c", "-I", str(tmp_path / "c"), str(tmp_path / source), "-o", str(obj)], check=True)
    return build


def check_layers(tmp_path, files, objects=True):
    make_repo(tmp_path, dict(files, **{"c/README.md": LAYERS}))
    args = [sys.executable, CHECKER]
    if objects:
        args += ["--objects", str(build_objects(tmp_path, [p for p in files if p.endswith(".c")]))]
    return subprocess.run(args + [str(tmp_path)], capture_output=True, text=True)


LOW = {"c/low/low.h": "int low(void);\n", "c/low/low.c": '#include "low/low.h"\nint low(void) { return 1; }\n'}


def test_calls_and_includes_downward_pass(tmp_path):
    files = dict(LOW, **{"c/high/high.c": '#include "low/low.h"\nint high(void);\nint high(void) { return low(); }\n'})
    result = check_layers(tmp_path, files)
    assert result.returncode == 0, result.stdout
    assert "includes and calls follow the 2 folders" in result.stdout


def test_a_planted_upward_call_fails_naming_caller_callee_and_folders(tmp_path):
    files = {
        "c/low/low.c": "int high(void);\nint low(void);\nint low(void) { return high(); }\n",
        "c/high/high.c": "int high(void);\nint high(void) { return 2; }\n",
    }
    result = check_layers(tmp_path, files)
    assert result.returncode == 1
    assert "upward call: c/low/low.c calls high (c/high/high.c; c/high comes after c/low" in result.stdout


def test_an_upward_include_fails(tmp_path):
    files = {"c/low/low.c": '#include "high/high.h"\n', "c/high/high.h": "int high(void);\n"}
    result = check_layers(tmp_path, files, objects=False)
    assert result.returncode == 1
    assert "upward include: c/low/low.c includes c/high/high.h" in result.stdout


def test_a_file_outside_the_listed_folders_fails(tmp_path):
    files = dict(LOW, **{"c/stray.c": "int stray;\n", "c/other/x.h": "int x(void);\n"})
    result = check_layers(tmp_path, files, objects=False)
    assert result.returncode == 1
    assert "not in a folder that c/README.md lists: c/stray.c" in result.stdout
    assert "not in a folder that c/README.md lists: c/other/x.h" in result.stdout


def test_tvm_ffi_names_stay_in_the_compatibility_layer(tmp_path):
    files = {"c/low/low.c": "int TVMFFIThing(void);\nint low(void);\nint low(void) { return TVMFFIThing(); }\n"}
    result = check_layers(tmp_path, files)
    assert result.returncode == 1
    assert "TVMFFI* called outside c/compat/: c/low/low.c calls TVMFFIThing" in result.stdout


def test_an_exception_no_longer_used_fails(tmp_path):
    """The named exceptions only shrink: one that nothing uses is reported."""
    layers = "| `c/runtime/` | runtime | x |\n| `c/compat/globals/` | compat | y |\n"
    make_repo(tmp_path, {"c/README.md": layers, "c/runtime/a.c": "int a(void);\nint a(void) { return 0; }\n"})
    build = build_objects(tmp_path, ["c/runtime/a.c"])
    result = subprocess.run([sys.executable, CHECKER, "--objects", str(build), str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "exception no longer needed (remove it from scripts/check-house.py): c/runtime -> xffi_type_runtime_ensure" in (
        result.stdout
    )
