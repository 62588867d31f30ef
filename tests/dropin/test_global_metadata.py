"""The metadata of every ffi.* global function, the wheel's runtime against
xffi's drop-in: the same names, each with the same metadata text (its type
schema, which tools such as tvm-ffi-stubgen read). Each runtime is asked in a
Python process of its own, the drop-in's through the overlay of
scripts/tvm-ffi-on-xffi.sh.

    XFFI_DROPIN=build/release/libtvm_ffi.so python3 -m pytest tests/dropin/test_global_metadata.py
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

PROBE = """
import json
import tvm_ffi
from tvm_ffi.registry import list_global_func_names
metadata = tvm_ffi.get_global_func("ffi.GetGlobalFuncMetadata")
maps = open("/proc/self/maps").read().splitlines()
print(json.dumps({
    "metadata": {name: metadata(name) for name in list_global_func_names() if name.startswith("ffi.")},
    "mapped": sorted({line.split()[-1] for line in maps if line.endswith("/libtvm_ffi.so")}),
}))
"""


def dropin_runtime():
    path = os.environ.get("XFFI_DROPIN", os.path.join(ROOT, "build", "release", "libtvm_ffi.so"))
    assert os.path.exists(path), f"no drop-in at {path} (set XFFI_DROPIN, or build the release tree)"
    return path


def probe(pythonpath):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"the probe failed (exit {done.returncode}):\n{done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_ffi_global_has_the_wheels_metadata(tmp_path):
    overlay = str(tmp_path / "overlay")
    subprocess.run([os.path.join(ROOT, "scripts", "tvm-ffi-on-xffi.sh"), "--runtime", dropin_runtime(), overlay],
                   check=True, stdout=subprocess.DEVNULL)
    wheel, xffi = probe(None), probe(overlay)
    assert xffi["mapped"] == [os.path.join(overlay, "tvm_ffi", "lib", "libtvm_ffi.so")], xffi["mapped"]
    assert wheel["mapped"] and overlay not in wheel["mapped"][0], wheel["mapped"]
    # The scan must have found the runtime's functions, or it compared nothing.
    assert len(wheel["metadata"]) > 50 and "ffi.ListAppend" in wheel["metadata"]
    assert sorted(xffi["metadata"]) == sorted(wheel["metadata"])
    differ = [f"{name}: the wheel gives {wheel['metadata'][name]!r}, the drop-in {xffi['metadata'][name]!r}"
              for name in sorted(wheel["metadata"]) if xffi["metadata"][name] != wheel["metadata"][name]]
    assert not differ, f"{len(differ)} of {len(wheel['metadata'])} differ:\n" + "\n".join(differ[:20])
