#!/usr/bin/env python3
"""bench/bench_plugin_runtime.py: plugin code on xffi's C API, bound to the
apache-tvm-ffi wheel's runtime against the same with xffi's bundled runtime
alone (no other runtime in the process), in one run.

Runs the two programs built from bench/bench_plugin_runtime.c (the
operations): bench_plugin_runtime, "xffi bundled", and
bench_plugin_runtime_bound, "xffi bound to the wheel", which loads the
wheel's libtvm_ffi.so (its path compiled in) before its first xffi call and
checks that xffi bound. The runs alternate for --rounds rounds (the order
swapped each round) and each row's ns is the median over the rounds of each
process's median, so a noisy neighbour slows both sides alike. Instructions
per operation come from one run of each with --instructions-only (callgrind,
deterministic). The bundled side is the baseline of every row.

Usage (a Release build with the benchmarks, e.g. build/release):
  python3 bench/bench_plugin_runtime.py --build build/release
      [--rounds 5] [--quick] [--no-callgrind]
A benchmark, not a test: it asserts nothing about the figures."""
import argparse
import json
import os
import statistics
import subprocess
import sys

BASELINE = "xffi bundled"
BOUND = "xffi bound to the wheel"


def run(exe, args):
    """Runs one side; its JSON lines as dicts."""
    done = subprocess.run([exe] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"bench_plugin_runtime: {exe} failed ({done.returncode}):\n{done.stderr}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-callgrind", action="store_true")
    options = parser.parse_args()
    sides = {BASELINE: os.path.join(options.build, "bench", "bench_plugin_runtime"),
             BOUND: os.path.join(options.build, "bench", "bench_plugin_runtime_bound")}
    for exe in sides.values():
        if not os.path.exists(exe):
            sys.exit(f"bench_plugin_runtime: {exe} is missing: build the targets bench_plugin_runtime and "
                     "bench_plugin_runtime_bound (the latter needs the apache-tvm-ffi wheel)")

    ns = {}  # (op, impl) -> [per-process medians]
    order = []
    timing = ["--no-callgrind"] + (["--quick"] if options.quick else [])
    for round_index in range(options.rounds):
        names = list(sides) if round_index % 2 == 0 else list(reversed(sides))
        for name in names:
            for record in run(sides[name], timing):
                key = (record["op"], record["impl"])
                if key not in ns:
                    order.append(key)
                ns.setdefault(key, []).append(record["ns"])
    instructions = {}
    if not options.no_callgrind:
        for name, exe in sides.items():
            for record in run(exe, ["--instructions-only"]):
                instructions[(record["op"], record["impl"])] = record["instructions"]

    ops = list(dict.fromkeys(op for op, _ in order))
    print(f"{'op':<48} {'runtime':<24} {'ns':>8} {'x bundled':>9} {'instr':>8} {'x bundled':>9}")
    records = []
    for op in ops:
        base_ns = statistics.median(ns[(op, BASELINE)])
        base_instr = instructions.get((op, BASELINE))
        for name in sides:
            value = statistics.median(ns[(op, name)])
            instr = instructions.get((op, name))
            record = {"op": op, "runtime": name, "ns": round(value, 2), "ns_ratio": round(value / base_ns, 3),
                      "instructions": instr, "instructions_ratio": round(instr / base_instr, 3)
                      if instr is not None and base_instr else None, "rounds": len(ns[(op, name)])}
            records.append(record)
            instr_text = "-" if instr is None else f"{instr:.1f}"
            ratio_text = "-" if record["instructions_ratio"] is None else f"{record['instructions_ratio']:.2f}"
            print(f"{op:<48} {name:<24} {value:>8.2f} {record['ns_ratio']:>9.2f} {instr_text:>8} {ratio_text:>9}")
    print()
    for record in records:
        print(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
