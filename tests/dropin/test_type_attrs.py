"""The type attributes the wheel's runtime registers on its own types, against
xffi's drop-in: every (type key, attribute, kind of value) entry, and what the
hooks among them do when called (the native structural hooks; __ffi_new__,
__ffi_shallow_copy__, __ffi_init__ and __ffi_convert__ of the runtime's
types, with the fields of what they make; ffi.BigInt's hash, equality,
ordering and JSON text; ffi.StructuralKey's __any_hash__/__any_equal__)
(tests/dropin/type_attrs_probe.c prints both, one fact a line; it runs once per
runtime, each in a process of its own).

    XFFI_DROPIN=build/release/libtvm_ffi.so python3 -m pytest tests/dropin/test_type_attrs.py

A line only one runtime prints fails the test unless
type-attrs-known-differences.txt lists it (with a reason); a listed line both
print (or neither) fails it too, so the list only shrinks.
"""
import os
import re
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KNOWN = os.path.join(HERE, "type-attrs-known-differences.txt")
# Names of type attributes: tvm-ffi's prefixes (the wheel's library holds
# other dunder strings, such as __gmon_start__).
ATTR_NAME = re.compile(rb"__(?:ffi|s|any|data)_[a-z_]+__")


def tvm_ffi_config(flag):
    return subprocess.run(["python3", "-m", "tvm_ffi.config", flag], check=True, capture_output=True,
                          text=True).stdout.strip()


def wheel_runtime():
    return os.path.join(tvm_ffi_config("--libdir"), "libtvm_ffi.so")


def dropin_runtime():
    path = os.environ.get("XFFI_DROPIN", os.path.join(ROOT, "build", "release", "libtvm_ffi.so"))
    assert os.path.exists(path), f"no drop-in at {path} (set XFFI_DROPIN, or build the release tree)"
    return path


def attribute_names():
    """Every attribute name the wheel's library holds as a string."""
    with open(wheel_runtime(), "rb") as f:
        names = sorted({m.decode() for m in ATTR_NAME.findall(f.read())})
    # The scan must see what tvm-ffi's headers name, or it found nothing.
    for expected in ("__s_visit__", "__ffi_shallow_copy__", "__ffi_type_final__", "__any_hash__"):
        assert expected in names, f"{expected} not found in the wheel's library: {names}"
    return names


def load_known():
    """Maps each listed line to its reason (`reason: TEXT` heads a section)."""
    known, reason = {}, None
    with open(KNOWN, encoding="utf-8") as f:
        for number, line in enumerate(f.read().splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("reason:"):
                reason = line[len("reason:"):].strip()
                assert reason, f"{KNOWN}:{number}: empty reason"
                continue
            assert reason, f"{KNOWN}:{number}: a line before any `reason:`"
            assert line[:2] in ("< ", "> "), f"{KNOWN}:{number}: expected `< LINE` (wheel only) or `> LINE` (xffi only)"
            assert line not in known, f"{KNOWN}:{number}: listed twice"
            known[line] = reason
    return known


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    exe = str(tmp_path_factory.mktemp("probe") / "type_attrs_probe")
    subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", tvm_ffi_config("--includedir"),
                    os.path.join(HERE, "type_attrs_probe.c"), "-o", exe, "-ldl"], check=True)
    return exe


def facts(probe, runtime):
    done = subprocess.run([probe, runtime] + attribute_names(), capture_output=True, text=True)
    assert done.returncode == 0, f"{probe} {runtime}: exit {done.returncode}: {done.stderr}"
    return set(done.stdout.splitlines())


def test_type_attributes_and_hooks_match_the_wheel(probe):
    wheel, xffi = facts(probe, wheel_runtime()), facts(probe, dropin_runtime())
    # The probe saw the wheel's structural hooks at work, or it checked nothing.
    assert any(line.startswith("visit ffi.Array") for line in wheel), sorted(wheel)
    assert any(line.startswith("mutate __s_maybe_inplace_mutate__ ffi.Map") for line in wheel), sorted(wheel)
    # ... and its Function-valued hooks called and answering.
    for seen in ("copy ffi.EnumState fields: entries=ffi.List(shared)", "call ffi.BigInt.__data_from_json__(\"007\") -> int 7",
                 "converted an IntEnum to ffi.IntEnum: the same object", "copy of key 0 fields: key=ffi.Array(shared)",
                 "copied ffi.StructuralMutator: the same table, region 2", "key 0, key 1: __any_equal__ -> bool 1"):
        assert any(line.startswith(seen) for line in wheel), f"the probe printed no {seen!r} on the wheel's runtime"
    differences = {"< " + line for line in wheel - xffi} | {"> " + line for line in xffi - wheel}
    known = load_known()
    unexpected = sorted(differences - set(known))
    fixed = sorted(set(known) - differences)
    assert not unexpected, "lines of one runtime only (`<` the wheel's, `>` xffi's), not listed:\n" + "\n".join(
        unexpected)
    assert not fixed, f"listed in {os.path.basename(KNOWN)} but no longer a difference (remove them):\n" + "\n".join(
        fixed)
