#!/usr/bin/env python3
"""bench/bench_python_reflection.py: reflected fields and constructors
from Python, on the wheel's own runtime and on xffi's, side by side.

Operations (each timed in a loop of N, median of R repeats per process):
  TestIntPair.a        attribute read of a field of tvm_ffi.testing.TestIntPair
                       (a C++ type of the wheel's libtvm_ffi_testing.so)
  py_class.a           attribute read of a field of a @py_class type (its
                       getter comes from ffi.MakeFieldGetter)
  TestIntPair(1, 2)    construction through the type's __ffi_init__
  py_class(1, 2)       construction through ffi._PyClassRegisterTypeAttrColumns'
                       __ffi_init__ (with __ffi_new__ and the field setters,
                       which call the package's type converter)
  python ...           the same on a plain Python class: the same-process
                       baseline, which shows how loaded the machine was
The two processes (the installed wheel; the overlay of
scripts/tvm-ffi-on-xffi.sh, PYTHONPATH=OUTDIR) alternate for --rounds rounds;
the overlay's process checks that the wheel's libtvm_ffi.so is not mapped and
that xffi's serves (bench/bench_python_call.py does the same). With
valgrind, each side also gets instructions per operation: a process doing N
operations minus one doing none, divided by N.

Usage:
  python3 bench/bench_python_reflection.py [--overlay OUTDIR] [--no-build]
      [--rounds 5] [--ops 200000] [--no-callgrind]
A benchmark, not a test: it asserts nothing about the figures."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench_python_call import SideFailed, mapped_runtime_libraries, prepare_overlay  # noqa: E402

OPS = ["TestIntPair.a", "py_class.a", "TestIntPair(1, 2)", "py_class(1, 2)", "python obj.a", "python Pair(1, 2)"]


# ---- the child: one runtime, one process ----

def make_cases():
    """label -> (function of no arguments doing the operation once)."""
    import tvm_ffi
    import tvm_ffi.testing
    from tvm_ffi.dataclasses import py_class

    @py_class("bench.reflection.Pair")
    class Pair(tvm_ffi.Object):
        a: int
        b: int

    class PlainPair:
        __slots__ = ("a", "b")

        def __init__(self, a, b):
            self.a = a
            self.b = b

    cxx, py, plain = tvm_ffi.testing.TestIntPair(1, 2), Pair(1, 2), PlainPair(1, 2)
    assert (cxx.a, py.a, plain.a) == (1, 1, 1)
    pair_type = tvm_ffi.testing.TestIntPair
    return {
        "TestIntPair.a": lambda: cxx.a,
        "py_class.a": lambda: py.a,
        "TestIntPair(1, 2)": lambda: pair_type(1, 2),
        "py_class(1, 2)": lambda: Pair(1, 2),
        "python obj.a": lambda: plain.a,
        "python Pair(1, 2)": lambda: PlainPair(1, 2),
    }


def time_ops(function, count):
    start = time.perf_counter_ns()
    for _ in range(count):
        function()
    return (time.perf_counter_ns() - start) / count


def child(options):
    import tvm_ffi  # the wheel, or the overlay when PYTHONPATH names it

    libraries = mapped_runtime_libraries()
    identity = lambda path: (os.stat(path).st_dev, os.stat(path).st_ino)
    if options.forbid and identity(options.forbid) in {identity(p) for p in libraries}:
        sys.exit(f"the wheel's runtime {options.forbid} is mapped in the overlay's process (mapped: {libraries})")
    if options.forbid:
        import ctypes
        served = [p for p in libraries if os.path.basename(p).startswith(("libtvm_ffi.so", "libxffi"))]
        if not any(hasattr(ctypes.CDLL(p), "xffi_string_new") for p in served):
            sys.exit(f"the overlay's runtime ({served}) is not xffi's: it exports no xffi_string_new")
    cases = make_cases()
    if options.count is not None:  # under callgrind: just the operations of one case
        function = cases[options.op]
        for _ in range(options.count):
            function()
        return 0
    for function in cases.values():
        time_ops(function, 1000)  # warm up
    samples = {label: [] for label in cases}
    for _ in range(options.repeats):
        for label, function in cases.items():  # interleaved within the process too
            samples[label].append(time_ops(function, options.ops))
    rows = {label: statistics.median(values) for label, values in samples.items()}
    runtime = [p for p in libraries if os.path.basename(p).startswith(("libtvm_ffi.so", "libxffi"))]
    print(json.dumps({"rows": rows, "runtime": runtime, "package": os.path.dirname(tvm_ffi.__file__)}))
    return 0


# ---- the driver ----

def child_env(env_extra):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.update(env_extra)
    return env


def run_child(env_extra, args):
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"] + args, env=child_env(env_extra),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        raise SideFailed(f"exit status {done.returncode}: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def callgrind_per_op(env_extra, forbid, op, count):
    """Instructions per operation: a process doing `count` of them minus one doing none."""
    totals = []
    for n in (count, 0):
        with tempfile.NamedTemporaryFile(prefix="bench_python_reflection_cg.", delete=False) as f:
            out = f.name
        env = child_env(env_extra)
        env["PYTHONHASHSEED"] = "0"
        norandom = ["setarch", os.uname().machine, "-R"] if shutil.which("setarch") else []
        args = norandom + ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                           os.path.abspath(__file__), "--child", "--op", op, "--count", str(n)]
        if forbid:
            args += ["--forbid", forbid]
        done = subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        total = None
        if done.returncode == 0:
            with open(out) as f:
                for line in f:
                    if line.startswith(("totals:", "summary:")):
                        total = float(line.split(":")[1].split()[0])
                        break
        os.unlink(out)
        if total is None:
            return None
        totals.append(total)
    return (totals[0] - totals[1]) / count


def driver(options):
    base_args = ["--ops", str(options.ops), "--repeats", str(options.repeats)]
    sides = {"wheel": {"env": {}, "results": [], "error": None},
             "xffi": {"env": None, "results": [], "error": None}}
    try:
        sides["xffi"]["env"] = {"PYTHONPATH": prepare_overlay(options)}
    except SideFailed as error:
        sides["xffi"]["error"] = str(error)
    wheel_library = None
    for round_index in range(options.rounds):
        for name in (["wheel", "xffi"] if round_index % 2 == 0 else ["xffi", "wheel"]):
            side = sides[name]
            if side["error"] or (name == "xffi" and wheel_library is None):
                continue
            args = base_args + (["--forbid", wheel_library] if name == "xffi" else [])
            try:
                side["results"].append(run_child(side["env"], args))
            except SideFailed as error:
                side["error"] = str(error)
                continue
            if name == "wheel" and wheel_library is None:
                found = [p for p in side["results"][-1]["runtime"] if os.path.basename(p) == "libtvm_ffi.so"]
                wheel_library = found[0] if found else None
        if round_index == 0 and wheel_library is None and not sides["wheel"]["error"]:
            sides["wheel"]["error"] = "the wheel's process mapped no libtvm_ffi.so"
    if sides["xffi"]["error"] is None and wheel_library is None:
        sides["xffi"]["error"] = "no wheel run to compare with"

    use_callgrind = not options.no_callgrind and shutil.which("valgrind") is not None
    instructions = {}
    for name in ("wheel", "xffi"):
        side = sides[name]
        if use_callgrind and side["results"] and not side["error"]:
            for op in OPS[:4]:
                instructions[(name, op)] = callgrind_per_op(side["env"], wheel_library if name == "xffi" else None,
                                                            op, options.callgrind_ops)

    medians = {name: {label: statistics.median(r["rows"][label] for r in side["results"]) for label in OPS}
               for name, side in sides.items() if side["results"] and not side["error"]}
    print(f"{'op':<22} {'runtime':<8} {'ns/op':>8} {'x wheel':>8} {'instr/op':>9} {'x wheel':>8}")
    records = []
    for label in OPS:
        for name in ("wheel", "xffi"):
            if name not in medians:
                continue
            value, base = medians[name][label], medians["wheel"][label]
            instr, base_instr = instructions.get((name, label)), instructions.get(("wheel", label))
            ratio = value / base if base else None
            instr_ratio = instr / base_instr if instr is not None and base_instr else None
            records.append({"op": label, "runtime": name, "ns": round(value, 2), "ns_ratio": ratio and round(ratio, 3),
                            "instructions": instr and round(instr, 1),
                            "instructions_ratio": instr_ratio and round(instr_ratio, 3),
                            "rounds": len(sides[name]["results"])})
            print(f"{label:<22} {name:<8} {value:>8.1f} {ratio:>8.2f} {'-' if instr is None else f'{instr:.0f}':>9} "
                  f"{'-' if instr_ratio is None else f'{instr_ratio:.2f}':>8}")
    for name, side in sides.items():
        if side["results"]:
            print(f"{name}: package {side['results'][0]['package']}; runtime {', '.join(side['results'][0]['runtime'])}")
    print()
    for record in records:
        print(json.dumps(record))
    failed = [name for name, side in sides.items() if side["error"]]
    for name in failed:
        print(f"bench_python_reflection: the {name} side FAILED: {sides[name]['error']}", file=sys.stderr)
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--overlay", default=os.path.join(ROOT, "build", "tvm-ffi-overlay"))
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ops", type=int, default=200000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--callgrind-ops", type=int, default=50000)
    parser.add_argument("--no-callgrind", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--op", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--forbid", default=None, help=argparse.SUPPRESS)
    options = parser.parse_args()
    return child(options) if options.child else driver(options)


if __name__ == "__main__":
    sys.exit(main())
