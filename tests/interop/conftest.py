"""Fixtures the interop tests share.

`overlay`: the installed tvm_ffi package on xffi's runtime
(scripts/tvm-ffi-on-xffi.sh), built once per pytest session under
XFFI_BUILD_ROOT (default build/) unless XFFI_OVERLAY names one already
built. Tests run a client in a subprocess with PYTHONPATH set to it, and the
same client without it on the wheel's own runtime."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def overlay():
    given = os.environ.get("XFFI_OVERLAY")
    if given:
        return pathlib.Path(given).resolve()
    build_root = pathlib.Path(os.environ.get("XFFI_BUILD_ROOT", ROOT / "build"))
    out = (build_root / "ovl-interop").resolve()
    subprocess.run(["bash", str(ROOT / "scripts/tvm-ffi-on-xffi.sh"), str(out)], check=True)
    return out
