"""scripts/check-house.py finds include cycles and long files, and only those."""
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
