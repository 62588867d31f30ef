#!/usr/bin/env python3
"""Which runtime serves, for the Python arrangements of docs/tvm-ffi.md
("Which runtime serves"); run by ctest (tests/cmake/one_runtime.cmake).

  check_arrangements.py overlay OUTDIR [--runtime FILE | --wheel-runtime]
      writes the overlay (scripts/tvm-ffi-on-xffi.sh) and imports tvm_ffi
      through it in a fresh interpreter: exactly one libtvm_ffi.so is mapped,
      the overlay's (by inode), never the wheel's; a global function of the
      runtime answers. With --wheel-runtime the overlay's library is a copy
      of the wheel's: the mechanics alone, which must hold today.
  check_arrangements.py wheel-plugin PLUGIN
      the wheel's runtime hosts an xffi plugin (tvm_ffi.load_module of a
      library linked to libxffi, which exports TVMFFI* too) under
      LD_DEBUG=bindings: no symbol of the wheel's runtime binds to libxffi, no
      TVMFFI* referenced from libxffi or the plugin binds to the wheel's
      runtime (no cross-wiring), and the plugin's function answers.
Exit status 1 on a failed check, with what was seen."""
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

PROBE = r"""
import os, sys
import tvm_ffi
libs = set()
for line in open("/proc/self/maps"):
    path = line.split()[-1]
    if path.startswith("/") and os.path.basename(path) == "libtvm_ffi.so":
        st = os.stat(path)
        libs.add((st.st_dev, st.st_ino, path))
print("MAPPED", repr(sorted(libs)))
print("FILE", tvm_ffi.__file__)
print("ANSWER", tvm_ffi.get_global_func("ffi.String")("one runtime"))
"""


def wheel_runtime():
    out = subprocess.run([sys.executable, "-c", "import os, tvm_ffi; print(os.path.dirname(tvm_ffi.__file__))"],
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
                         check=True, capture_output=True, text=True).stdout.strip()
    return os.path.join(out, "lib", "libtvm_ffi.so")


def check_overlay(outdir, script_args):
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "tvm-ffi-on-xffi.sh"), *script_args, outdir], check=True)
    ours = os.stat(os.path.join(outdir, "tvm_ffi", "lib", "libtvm_ffi.so"))
    theirs = os.stat(wheel_runtime())
    env = dict(os.environ, PYTHONPATH=outdir)
    probe = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    print(probe.stdout + probe.stderr[-3000:])
    if probe.returncode != 0:
        return [f"import tvm_ffi through the overlay failed (exit status {probe.returncode})"]
    mapped = eval(re.search(r"^MAPPED (.*)$", probe.stdout, re.M).group(1))  # our own repr() of tuples
    failures = []
    inodes = {(dev, ino) for dev, ino, _ in mapped}
    if (theirs.st_dev, theirs.st_ino) in inodes:
        failures.append("the wheel's libtvm_ffi.so is mapped")
    if inodes != {(ours.st_dev, ours.st_ino)}:
        failures.append(f"expected only the overlay's libtvm_ffi.so mapped, got {mapped}")
    if "ANSWER one runtime" not in probe.stdout:
        failures.append("the runtime's ffi.String did not answer")
    return failures


PLUGIN_PROBE = r"""
import sys, tvm_ffi
lib = tvm_ffi.load_module(sys.argv[1])
print("ANSWER", lib["add_int"](40, 2))
"""


BINDING = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: \w+ symbol `([^']+)'")


def cross_bindings(lines, plugin_name):
    """Reads LD_DEBUG=bindings lines ("binding file A [0] to B [0]: normal
    symbol `S' [V]"); returns (bindings read, messages for those that cross
    between the wheel's runtime and xffi's: the wheel binding anything to
    libxffi, xffi or its plugin binding a TVMFFI* to the wheel, anyone else
    binding a TVMFFI* to libxffi while the wheel serves)."""
    seen, crossed = 0, []
    for line in lines:
        m = BINDING.search(line)
        if not m:
            continue
        seen += 1
        src, dst, symbol = (os.path.basename(m.group(1)), os.path.basename(m.group(2)), m.group(3))
        from_xffi = src == plugin_name or src.startswith("libxffi.so")
        to_xffi = dst.startswith("libxffi.so")
        if from_xffi and dst == "libtvm_ffi.so" and symbol.startswith("TVMFFI"):
            crossed.append(f"xffi binds {symbol} to the wheel's runtime: {line.strip()}")
        elif src == "libtvm_ffi.so" and to_xffi:
            crossed.append(f"the wheel's runtime binds {symbol} to libxffi: {line.strip()}")
        elif not from_xffi and to_xffi and symbol.startswith("TVMFFI"):
            crossed.append(f"{src} binds {symbol} to libxffi while the wheel's runtime serves: {line.strip()}")
    return seen, crossed


def check_wheel_plugin(plugin):
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, LD_DEBUG="bindings", LD_DEBUG_OUTPUT=os.path.join(tmp, "ld"))
        env.pop("PYTHONPATH", None)
        probe = subprocess.run([sys.executable, "-c", PLUGIN_PROBE, plugin], env=env, capture_output=True, text=True)
        lines = []
        for path in glob.glob(os.path.join(tmp, "ld.*")):
            lines += open(path, errors="replace").read().splitlines()
    print(probe.stdout + probe.stderr[-3000:])
    failures = []
    if probe.returncode != 0 or "ANSWER 42" not in probe.stdout:
        failures.append(f"the plugin did not answer (exit status {probe.returncode})")
    seen, crossed = cross_bindings(lines, os.path.basename(plugin))
    failures += crossed
    print(f"{seen} bindings read")
    if seen == 0:
        failures.append("LD_DEBUG=bindings gave nothing to read")
    return failures


def main(argv):
    if len(argv) >= 3 and argv[1] == "overlay":
        failures = check_overlay(argv[2], argv[3:])
    elif len(argv) == 3 and argv[1] == "wheel-plugin":
        failures = check_wheel_plugin(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for f in failures[:20]:
        print(f"FAILED: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
