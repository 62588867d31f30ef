#!/usr/bin/env python3
"""bench/bench_map_vs_tvm.py: the Map benchmark, xffi against tvm-ffi in one run.

Runs three programs that do the same work (bench/bench_map_keys.h: lookup
and insert at 10, 1,000 and 1,000,000 entries, string and int keys) and prints
one table with each row's ratio to tvm-ffi's, the baseline:
  bench_map_tvm      tvm-ffi's own inline C++ Map (tvm::ffi::Map), compiled
                     against the wheel's headers, linked to its libtvm_ffi.so;
  bench_map_xffi     xffi's C API (xffi_map_new/_set/_lookup);
  bench_map_hashmap  Rust's std::collections::HashMap (compiled here with rustc).
Each program is a separate process (one runtime each). The runs are
interleaved: every round runs all three, in a rotating order, and each row's ns
is the median over the rounds of each program's own median; so a noisy
neighbour slows all of them alike. Instructions come from the first round's
callgrind runs (the harness's), allocations per operation from the programs.

Usage (a Release build with the benchmarks, e.g. build/release):
  python3 bench/bench_map_vs_tvm.py --build build/release
      [--rounds 3] [--quick] [--no-callgrind] [--only SUBSTRING] [--no-rust]
A benchmark, not a test: it asserts nothing about the figures."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BASELINE = "tvm-ffi"


def build_rust(bench_dir):
    """Compiles bench_map_hashmap.rs into bench_dir (when its source is newer); path or None."""
    rustc = shutil.which("rustc")
    if not rustc:
        print("bench_map_vs_tvm: rustc not found: the Rust HashMap rows are left out", file=sys.stderr)
        return None
    source = os.path.join(HERE, "bench_map_hashmap.rs")
    exe = os.path.join(bench_dir, "bench_map_hashmap")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(source):
        subprocess.run([rustc, "--edition", "2021", "-C", "opt-level=3", "-o", exe, source], check=True)
    return exe


def run(exe, args):
    """Runs one program; its JSON lines as dicts."""
    done = subprocess.run([exe] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"bench_map_vs_tvm: {exe} failed ({done.returncode}):\n{done.stderr}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def ratio(value, base):
    return value / base if value is not None and base else None


def text(value, form):
    return "-" if value is None else form % value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build/release", help="the CMake build tree (Release)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-callgrind", action="store_true")
    parser.add_argument("--only", default=None)
    parser.add_argument("--no-rust", action="store_true")
    options = parser.parse_args()

    bench_dir = os.path.join(options.build, "bench")
    programs = []
    for name in ("bench_map_tvm", "bench_map_xffi"):
        exe = os.path.join(bench_dir, name)
        if not os.access(exe, os.X_OK):
            sys.exit(f"bench_map_vs_tvm: {exe} is missing: build it first "
                     f"(cmake --build {options.build} --target {name}; bench_map_tvm needs the "
                     "apache-tvm-ffi wheel and a C++ compiler)")
        programs.append(exe)
    if not options.no_rust:
        rust = build_rust(bench_dir)
        if rust:
            programs.append(rust)

    common = (["--quick"] if options.quick else []) + (["--only", options.only] if options.only else [])
    ns = {}        # (op, impl) -> [median ns of each round]
    first = {}     # (op, impl) -> the first round's row (instructions, mallocs)
    order = []     # op names, in the order the programs print them
    for round_index in range(options.rounds):
        callgrind = round_index == 0 and not options.no_callgrind
        shift = round_index % len(programs)
        for exe in programs[shift:] + programs[:shift]:
            for row in run(exe, common + ([] if callgrind else ["--no-callgrind"])):
                key = (row["op"], row["impl"])
                ns.setdefault(key, []).append(row["ns"])
                first.setdefault(key, row)
                if row["op"] not in order:
                    order.append(row["op"])

    impls = []
    for _, impl in first:
        if impl not in impls:
            impls.append(impl)
    impls.sort(key=lambda i: (i != BASELINE, i != "xffi", i))
    print(f"{'op':<36} {'impl':<13} {'ns/op':>9} {'x tvm':>6} {'instr/op':>10} {'x tvm':>6} {'mallocs':>7}")
    records = []
    for op in order:
        base = first.get((op, BASELINE))
        base_ns = statistics.median(ns[(op, BASELINE)]) if base else None
        base_instr = base["instructions"] if base else None
        for impl in impls:
            row = first.get((op, impl))
            if not row:
                continue
            median_ns = statistics.median(ns[(op, impl)])
            instr = row["instructions"]
            record = {"op": op, "impl": impl, "ns": round(median_ns, 3), "instructions": instr,
                      "mallocs": row["mallocs"], "ns_ratio": ratio(median_ns, base_ns),
                      "instructions_ratio": ratio(instr, base_instr), "rounds": len(ns[(op, impl)])}
            for field in ("ns_ratio", "instructions_ratio"):
                if record[field] is not None:
                    record[field] = round(record[field], 3)
            records.append(record)
            print(f"{op:<36} {impl:<13} {median_ns:>9.2f} {text(record['ns_ratio'], '%.2f'):>6} "
                  f"{text(instr, '%.1f'):>10} {text(record['instructions_ratio'], '%.2f'):>6} "
                  f"{text(row['mallocs'], '%.2f'):>7}")
    print()
    for record in records:
        print(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
