#!/usr/bin/env python3
"""bench/bench_python_call.py: the tvm_ffi Python package calling a no-op
global function, on the wheel's own runtime and on xffi's, side by side.

The same measurement runs in two processes: one imports the installed wheel
(its libtvm_ffi.so), the other the overlay that scripts/tvm-ffi-on-xffi.sh
writes (PYTHONPATH=OUTDIR: the same package on xffi's drop-in libtvm_ffi.so).
The function is `testing.nop` (registered by the wheel's libtvm_ffi_testing.so,
which the package always loads, on either runtime). The processes alternate
for --rounds rounds; each process times R repeats of N calls (median), and also
a Python no-op function in the same loop (the same-process baseline, which
shows how loaded the machine was). With valgrind, each side also gets
instructions per call: the whole process under callgrind with N calls minus
with 0 calls, divided by N; and, out of those, the instructions spent in the
runtime library itself (callgrind's self cost of the functions of the mapped
libtvm_ffi.so, by callgrind_annotate), which the import's noise does not
reach: on the wheel that is TVMFFIFunctionCall's one jump.
The overlay's process checks that the wheel's libtvm_ffi.so is not mapped
(compared by inode) and that the libtvm_ffi.so serving it is xffi's (it
exports xffi_string_new); it fails otherwise.

Before the overlay works end to end, the wheel side is measured and reported
and the xffi side fails with the reason (exit status 1); the script needs no
change once it works.

Usage:
  python3 bench/bench_python_call.py [--overlay OUTDIR] [--no-build]
      [--rounds 5] [--calls 200000] [--no-callgrind]
OUTDIR defaults to build/tvm-ffi-overlay; without --no-build, a missing
overlay is written first with scripts/tvm-ffi-on-xffi.sh OUTDIR.
A benchmark, not a test: it asserts nothing about the figures."""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FUNCTION = "testing.nop"


# ---- the child: one runtime, one process ----

def mapped_runtime_libraries():
    """Real paths of the mapped files named like a tvm-ffi or xffi runtime."""
    found = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].startswith("/"):
                path = parts[5].strip()
                name = os.path.basename(path)
                if name.startswith(("libtvm_ffi", "libxffi")):
                    found.add(os.path.realpath(path))
    return sorted(found)


def nop():
    pass


def time_calls(function, calls, args):
    start = time.perf_counter_ns()
    for _ in range(calls):
        function(*args)
    return (time.perf_counter_ns() - start) / calls


def child(options):
    import tvm_ffi  # the wheel, or the overlay when PYTHONPATH names it

    libraries = mapped_runtime_libraries()
    # Same file, compared by inode (a copy of the wheel's library is not it).
    identity = lambda path: (os.stat(path).st_dev, os.stat(path).st_ino)
    if options.forbid and identity(options.forbid) in {identity(p) for p in libraries}:
        sys.exit(f"the wheel's runtime {options.forbid} is mapped in the overlay's process: "
                 f"the overlay did not take effect (mapped: {libraries})")
    if options.forbid:  # the overlay's side: its libtvm_ffi.so must be xffi's
        import ctypes
        served = [p for p in libraries if os.path.basename(p).startswith(("libtvm_ffi.so", "libxffi"))]
        if not any(hasattr(ctypes.CDLL(p), "xffi_string_new") for p in served):
            sys.exit(f"the overlay's runtime ({served}) is not xffi's: it exports no xffi_string_new")
    function = tvm_ffi.get_global_func(FUNCTION, allow_missing=True)
    if function is None:
        sys.exit(f"the global function {FUNCTION} is missing on this runtime")
    if options.count is not None:  # under callgrind: just the calls
        for _ in range(options.count):
            function()
        return 0
    rows = {}
    cases = [("nop()", function, ()), ("nop(1, 2)", function, (1, 2)),
             ("python nop() (same-process baseline)", nop, ())]
    for label, f, args in cases:
        time_calls(f, 1000, args)  # warm up
    samples = {label: [] for label, _, _ in cases}
    for _ in range(options.repeats):
        for label, f, args in cases:  # interleaved within the process too
            samples[label].append(time_calls(f, options.calls, args))
    for label, _, _ in cases:
        rows[label] = statistics.median(samples[label])
    runtime = [p for p in libraries if os.path.basename(p).startswith("libtvm_ffi.so")
               or os.path.basename(p).startswith("libxffi")]
    print(json.dumps({"rows": rows, "runtime": runtime, "mapped": libraries,
                      "package": os.path.dirname(tvm_ffi.__file__)}))
    return 0


# ---- the driver ----

class SideFailed(Exception):
    pass


def run_child(env_extra, args):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.update(env_extra)
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"] + args, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        raise SideFailed(f"exit status {done.returncode}: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def runtime_self_cost(out):
    """Instructions spent in libtvm_ffi.so's own functions (self cost), or None."""
    if not shutil.which("callgrind_annotate"):
        return None
    done = subprocess.run(["callgrind_annotate", "--threshold=100", "--inclusive=no", out],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if done.returncode != 0:
        return None
    total = 0
    for line in done.stdout.splitlines():
        match = re.match(r"\s*([\d,]+)\s.*\[(.+)\]\s*$", line)
        if match and os.path.basename(match.group(2)) == "libtvm_ffi.so":
            total += int(match.group(1).replace(",", ""))
    return total


def callgrind_per_call(env_extra, forbid, calls):
    """Instructions per call, (whole process, in the runtime library): a process
    with `calls` calls minus one with none."""
    totals, in_runtime = [], []
    for count in (calls, 0):
        with tempfile.NamedTemporaryFile(prefix="bench_python_call_cg.", delete=False) as f:
            out = f.name
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env.update(env_extra)
        env["PYTHONHASHSEED"] = "0"  # the same import work in both runs (the difference is the calls)
        # Without address randomisation too: id-based hashing then does the same work each run.
        norandom = ["setarch", os.uname().machine, "-R"] if shutil.which("setarch") else []
        args = norandom + ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                os.path.abspath(__file__), "--child", "--count", str(count)]
        if forbid:
            args += ["--forbid", forbid]
        done = subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        total = runtime = None
        if done.returncode == 0:
            with open(out) as f:
                for line in f:
                    if line.startswith(("totals:", "summary:")):
                        total = float(line.split(":")[1].split()[0])
                        break
            runtime = runtime_self_cost(out)
        os.unlink(out)
        if total is None:
            return None, None
        totals.append(total)
        in_runtime.append(runtime)
    runtime = None if None in in_runtime else (in_runtime[0] - in_runtime[1]) / calls
    return (totals[0] - totals[1]) / calls, runtime


def prepare_overlay(options):
    """The overlay directory, written first when missing; raises SideFailed."""
    outdir = os.path.abspath(options.overlay)
    if os.path.isdir(os.path.join(outdir, "tvm_ffi")):
        return outdir
    script = os.path.join(ROOT, "scripts", "tvm-ffi-on-xffi.sh")
    if options.no_build:
        raise SideFailed(f"no overlay at {outdir} (and --no-build)")
    if not os.path.exists(script):
        raise SideFailed(f"no overlay at {outdir}, and {os.path.relpath(script, ROOT)} does not exist yet")
    done = subprocess.run(["bash", script, outdir], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0 or not os.path.isdir(os.path.join(outdir, "tvm_ffi")):
        tail = "\n".join(done.stdout.strip().splitlines()[-6:])
        raise SideFailed(f"scripts/tvm-ffi-on-xffi.sh {outdir} failed ({done.returncode}): {tail}")
    return outdir


def driver(options):
    base_args = ["--calls", str(options.calls), "--repeats", str(options.repeats)]
    sides = {"wheel": {"env": {}, "results": [], "error": None},
             "xffi": {"env": None, "results": [], "error": None}}
    try:
        sides["xffi"]["env"] = {"PYTHONPATH": prepare_overlay(options)}
    except SideFailed as error:
        sides["xffi"]["error"] = str(error)
    wheel_library = None
    for round_index in range(options.rounds):
        order = ["wheel", "xffi"] if round_index % 2 == 0 else ["xffi", "wheel"]
        for name in order:
            side = sides[name]
            if side["error"] or (name == "xffi" and wheel_library is None):
                continue
            args = list(base_args)
            if name == "xffi":
                args += ["--forbid", wheel_library]
            try:
                result = run_child(side["env"], args)
            except SideFailed as error:
                side["error"] = str(error)
                continue
            side["results"].append(result)
            if name == "wheel" and wheel_library is None:
                runtime = [p for p in result["runtime"] if os.path.basename(p) == "libtvm_ffi.so"]
                wheel_library = runtime[0] if runtime else None
        if round_index == 0 and wheel_library is None and not sides["wheel"]["error"]:
            sides["wheel"]["error"] = "the wheel's process mapped no libtvm_ffi.so"
    if sides["xffi"]["error"] is None and wheel_library is None:
        sides["xffi"]["error"] = "no wheel run to compare with"

    use_callgrind = not options.no_callgrind and shutil.which("valgrind") is not None
    instructions, in_runtime = {}, {}
    for name in ("wheel", "xffi"):
        side = sides[name]
        if use_callgrind and side["results"] and not side["error"]:
            instructions[name], in_runtime[name] = callgrind_per_call(
                side["env"], wheel_library if name == "xffi" else None, options.callgrind_calls)

    labels = list(sides["wheel"]["results"][0]["rows"]) if sides["wheel"]["results"] else []
    medians = {name: {label: statistics.median(r["rows"][label] for r in side["results"]) for label in labels}
               for name, side in sides.items() if side["results"] and not side["error"]}
    print(f"{'op':<40} {'runtime':<8} {'ns/call':>9} {'x wheel':>8} {'instr/call':>11} {'x wheel':>8} "
          f"{'in runtime':>10}")
    records = []
    for label in labels:
        for name in ("wheel", "xffi"):
            if name not in medians:
                continue
            value = medians[name][label]
            base = medians["wheel"][label]
            instr = instructions.get(name) if label == "nop()" else None
            base_instr = instructions.get("wheel") if label == "nop()" else None
            ratio = value / base if base else None
            instr_ratio = instr / base_instr if instr is not None and base_instr else None
            runtime_instr = in_runtime.get(name) if label == "nop()" else None
            records.append({"op": label, "runtime": name, "ns": round(value, 2), "ns_ratio": ratio and round(ratio, 3),
                            "instructions": instr and round(instr, 1),
                            "instructions_ratio": instr_ratio and round(instr_ratio, 3),
                            "instructions_in_runtime": runtime_instr and round(runtime_instr, 2),
                            "rounds": len(sides[name]["results"])})
            print(f"{label:<40} {name:<8} {value:>9.2f} {ratio:>8.2f} "
                  f"{'-' if instr is None else f'{instr:.1f}':>11} "
                  f"{'-' if instr_ratio is None else f'{instr_ratio:.2f}':>8} "
                  f"{'-' if runtime_instr is None else f'{runtime_instr:.2f}':>10}")
    for name, side in sides.items():
        if side["results"]:
            print(f"{name}: package {side['results'][0]['package']}; runtime {', '.join(side['results'][0]['runtime'])}")
    print()
    for record in records:
        print(json.dumps(record))
    failed = [name for name, side in sides.items() if side["error"]]
    for name in failed:
        print(f"bench_python_call: the {name} side FAILED: {sides[name]['error']}", file=sys.stderr)
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--overlay", default=os.path.join(ROOT, "build", "tvm-ffi-overlay"))
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--callgrind-calls", type=int, default=200000)
    parser.add_argument("--no-callgrind", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--forbid", default=None, help=argparse.SUPPRESS)
    options = parser.parse_args()
    return child(options) if options.child else driver(options)


if __name__ == "__main__":
    sys.exit(main())
