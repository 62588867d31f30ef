"""Runs an interop client script in a subprocess, on xffi's runtime (with
PYTHONPATH set to an overlay of scripts/tvm-ffi-on-xffi.sh) or on the
wheel's own (overlay None), and returns the JSON report it prints."""
import json
import os
import subprocess
import sys


def run_client(client, overlay, *args):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if overlay is not None:
        env["PYTHONPATH"] = str(overlay)
    run = subprocess.run([sys.executable, str(client), *map(str, args)], env=env, capture_output=True, text=True,
                         timeout=300, cwd="/")
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads(run.stdout)
