"""Cross-runtime JSON graphs (issue 17, acceptance): tvm-ffi's own runtime
(the wheel, in one process) writes a graph of containers, strings, bytes,
Shapes, dtypes, devices, py_class objects with enums, and objects of the
wheel's testing library, with sharing; xffi's runtime (the overlay of
scripts/tvm-ffi-on-xffi.sh, in another process) reads it, and the reverse.
What is read equals the same value built on the reading side
(StructuralEqual for the part whose types have a structural kind,
RecursiveEq for the testing library's objects, which have none), with
equal hashes on both runtimes; sharing and enum singletons are kept; and
both runtimes write the same bytes for the same value, and again for what
they read. The value and the checks are tests/interop/graph_cross_client.py.

The overlay is conftest.py's (built under XFFI_BUILD_ROOT, default build/,
unless XFFI_OVERLAY names one already built).

    python3 -m pytest -q -p no:cacheprovider tests/interop/test_graph_cross_runtime.py
"""
import pathlib

import client_runner
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLIENT = ROOT / "tests/interop/graph_cross_client.py"


def run_client(ovl, *args):
    """Runs the client on xffi's runtime (ovl given) or on the wheel's (None);
    returns its JSON report."""
    return client_runner.run_client(CLIENT, ovl, *args)


@pytest.fixture(scope="module")
def written(overlay, tmp_path_factory):
    """The graph text each runtime writes for the value."""
    work = tmp_path_factory.mktemp("graphs")
    paths = {"wheel": work / "wheel.json", "xffi": work / "xffi.json"}
    wheel = run_client(None, "write", paths["wheel"])
    xffi = run_client(overlay, "write", paths["xffi"])
    # Each side really ran on its own runtime.
    assert wheel["runtime"] and not wheel["runtime"].startswith(str(overlay)), wheel
    assert xffi["runtime"].startswith(str(overlay)), xffi
    return paths


def check_read(report, original_text, reader_runtime):
    assert report["structural_equal"], report
    assert report["recursive_equal"], report
    assert report["structural_hash_read"] == report["structural_hash_built"], report
    assert report["recursive_hash_read"] == report["recursive_hash_built"], report
    assert all(report["shared"]), report["shared"]
    assert all(report["enum_singletons"]), report["enum_singletons"]
    # What was read writes back byte for byte.
    assert report["text"] == original_text, f"{reader_runtime} wrote back another text"


def test_both_runtimes_write_the_same_bytes(written):
    wheel_text = written["wheel"].read_text(encoding="utf-8")
    xffi_text = written["xffi"].read_text(encoding="utf-8")
    assert '"type":"testing.TestIntPair","data":{"a":3,"b":-7}' in wheel_text
    assert '"type":"xffi_cross.Level","data":40' in wheel_text
    assert xffi_text == wheel_text


def test_xffi_reads_what_tvm_ffi_wrote(overlay, written):
    report = run_client(overlay, "read", written["wheel"])
    assert report["runtime"].startswith(str(overlay))
    check_read(report, written["wheel"].read_text(encoding="utf-8"), "xffi")
    # Hashes agree across runtimes too: tvm-ffi's of its own value.
    wheel_report = run_client(None, "read", written["wheel"])
    assert report["structural_hash_read"] == wheel_report["structural_hash_built"]
    assert report["recursive_hash_read"] == wheel_report["recursive_hash_built"]


def test_tvm_ffi_reads_what_xffi_wrote(overlay, written):
    report = run_client(None, "read", written["xffi"])
    assert not report["runtime"].startswith(str(overlay))
    check_read(report, written["xffi"].read_text(encoding="utf-8"), "tvm-ffi")
    xffi_report = run_client(overlay, "read", written["xffi"])
    assert report["structural_hash_read"] == xffi_report["structural_hash_built"]
    assert report["recursive_hash_read"] == xffi_report["recursive_hash_built"]
