#!/usr/bin/env python3
"""bench/bench_recursive.py: ffi.RecursiveHash, ffi.RecursiveEq and
ffi.DeepCopy of a 100,000-node nested container graph, on the wheel's own
runtime and on xffi's, side by side (two processes, the same package).

The graph: N containers in a binary heap (node i holds nodes 2i+1 and
2i+2), cycling through Array, List, Map and Dict, each with an int and a
string; every 64th node also holds one shared List (sharing). The same
graph is built in each process (not timed). Each process times R repeats
(median) of: RecursiveHash(g), RecursiveEq(g, copy) (copy = DeepCopy(g),
made beforehand: equal, distinct objects) and DeepCopy(g); rounds
alternate the two processes. The hash values of both runtimes are
printed too: they must be the same number (a cache keyed by them can be
shared). The overlay's process checks that it runs on xffi's library.

Usage:
  python3 bench/bench_recursive.py [--overlay OUTDIR] [--no-build]
      [--nodes 100000] [--repeats 5] [--rounds 3]
OUTDIR defaults to build/tvm-ffi-overlay; without --no-build, a missing
overlay is written first with scripts/tvm-ffi-on-xffi.sh OUTDIR.
A benchmark, not a test: it asserts nothing about the figures."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def build_graph(tvm_ffi, n):
    shared = tvm_ffi.List([1, 2, "shared"])
    nodes = [None] * n
    for i in range(n - 1, -1, -1):
        kids = [nodes[c] for c in (2 * i + 1, 2 * i + 2) if c < n]
        extra = [shared] if i % 64 == 0 else []
        text = f"node-{i}"
        kind = i % 4
        if kind == 0:
            node = tvm_ffi.Array([i, text, *kids, *extra])
        elif kind == 1:
            node = tvm_ffi.List([i, text, *kids, *extra])
        elif kind == 2:
            node = tvm_ffi.Map({"i": i, "t": text, **{f"c{k}": c for k, c in enumerate(kids + extra)}})
        else:
            node = tvm_ffi.Dict({"i": i, "t": text, **{f"c{k}": c for k, c in enumerate(kids + extra)}})
        nodes[i] = node
    return nodes[0]


def median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def child(options):
    import tvm_ffi
    from tvm_ffi import _ffi_api as api

    mapped = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libtvm_ffi.so" in line})
    if options.expect_xffi:
        import ctypes
        if not any(hasattr(ctypes.CDLL(p), "xffi_string_new") for p in mapped):
            sys.exit(f"not running on xffi's runtime (mapped: {mapped})")
    graph = build_graph(tvm_ffi, options.nodes)
    copy = api.DeepCopy(graph)
    assert api.RecursiveEq(graph, copy)
    result = {
        "hash": api.RecursiveHash(graph),
        "RecursiveHash": median_seconds(lambda: api.RecursiveHash(graph), options.repeats),
        "RecursiveEq": median_seconds(lambda: api.RecursiveEq(graph, copy), options.repeats),
        "DeepCopy": median_seconds(lambda: api.DeepCopy(graph), options.repeats),
        "runtime": mapped,
    }
    print(json.dumps(result))


def run_child(options, overlay):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    args = [sys.executable, __file__, "--child", "--nodes", str(options.nodes), "--repeats", str(options.repeats)]
    if overlay:
        env["PYTHONPATH"] = overlay
        args.append("--expect-xffi")
    out = subprocess.run(args, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--overlay", default=os.path.join(ROOT, "build", "tvm-ffi-overlay"))
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--nodes", type=int, default=100000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--expect-xffi", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        return child(options)
    if not os.path.exists(options.overlay) and not options.no_build:
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "tvm-ffi-on-xffi.sh"), options.overlay], check=True)
    rows = {"wheel": [], "xffi": []}
    for _ in range(options.rounds):
        rows["wheel"].append(run_child(options, None))
        rows["xffi"].append(run_child(options, options.overlay))
    hashes = {side: {r["hash"] for r in runs} for side, runs in rows.items()}
    print(f"graph: {options.nodes} containers; median of {options.repeats} repeats, best of {options.rounds} rounds")
    print(f"RecursiveHash value: wheel {sorted(hashes['wheel'])}, xffi {sorted(hashes['xffi'])}: "
          f"{'same' if hashes['wheel'] == hashes['xffi'] else 'DIFFERENT'}")
    print(f"{'operation':<15}{'tvm-ffi ms':>12}{'xffi ms':>12}{'xffi/tvm-ffi':>14}")
    for op in ("RecursiveHash", "RecursiveEq", "DeepCopy"):
        wheel = min(r[op] for r in rows["wheel"]) * 1e3
        xffi = min(r[op] for r in rows["xffi"]) * 1e3
        print(f"{op:<15}{wheel:>12.2f}{xffi:>12.2f}{xffi / wheel:>14.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
