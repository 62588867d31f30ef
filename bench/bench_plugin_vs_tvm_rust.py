#!/usr/bin/env python3
"""bench/bench_plugin_vs_tvm_rust.py: a Rust plugin built with xffi against
the same plugin built with tvm-ffi's own Rust crate, both loaded by Python on
the apache-tvm-ffi wheel's runtime, in one run.

The two plugins (bench/rust_plugin_xffi: `xffi` at its default features,
`export_func!`; bench/rust_plugin_tvm_ffi: `tvm-ffi =0.1.15-post2` from
crates.io, `tvm_ffi_dll_export_typed_func!`) export the same functions,
`nop()` and `add(a, b)`. The tvm-ffi plugin is the baseline of every row.

Calls: each round is one Python process that loads both plugins (the order
alternates between rounds) and times R repeats of N calls of each function
of each plugin, interleaved, beside a Python no-op function in the same loop
(which shows how loaded the machine was); a row's ns is the median over the
rounds of each process's median. With valgrind, each call row also gets
instructions per call, counted only inside the wheel's TVMFFIFunctionCall
(the runtime's jump, then the plugin's exported function): a process making
N calls of that one function, minus the same process making none (both load
both plugins and look up every function), divided by N; and, out of those,
the instructions in the plugin's own code (callgrind's self cost of the
functions of the plugin's file): the export wrapper and the function.

Load: each round also runs fresh Python processes that import tvm_ffi and
time `tvm_ffi.load_module(plugin)`, one load of that file per process: as
the first load in the process (which includes the runtime's own work on its
first load, the same for both plugins), and after a load of the other plugin
(whose dependencies, such as libgcc_s, are then mapped already). With
valgrind, each load also gets the instructions it takes and the C allocator
calls it makes (malloc, calloc, realloc, posix_memalign, aligned_alloc,
memalign; C++'s operator new calls malloc), counted only inside the wheel's
tvm::ffi::Module::LoadFromFile (dlopen, the plugin's initialisers, the
symbol lookups, the Module object); after the other plugin, that plugin's
load, counted alone, is taken off.
Callgrind runs without hash and address randomisation, so the counts repeat.

Usage:
  python3 bench/bench_plugin_vs_tvm_rust.py [--target-dir DIR] [--no-build]
      [--rounds 5] [--calls 200000] [--repeats 5] [--callgrind-calls 100000]
      [--no-valgrind]
The plugins are built with cargo in release mode into DIR (default
build/plugin-bench-target; `tvm-ffi-config --libdir` must name the wheel's
library directory, which the tvm-ffi crate links). A benchmark, not a test:
it asserts nothing about the figures."""
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
BASELINE = "tvm-ffi"
# plugin name -> (crate folder under bench/, library file)
PLUGINS = {
    "tvm-ffi": ("rust_plugin_tvm_ffi", "libtvm_ffi_bench_rust_plugin.so"),
    "xffi": ("rust_plugin_xffi", "libxffi_bench_rust_plugin.so"),
}
CALLS = {"nop()": ("nop", ()), "add(1, 2)": ("add", (1, 2))}
PYTHON_NOP = "python nop() (same-process baseline)"


# ---- the children: one Python process each ----

def python_nop():
    pass


def time_calls(function, calls, args):
    start = time.perf_counter_ns()
    for _ in range(calls):
        function(*args)
    return (time.perf_counter_ns() - start) / calls


def child_calls(options, paths):
    """Times every call row of both plugins in this process; prints JSON."""
    import tvm_ffi

    order = list(PLUGINS) if options.first == "tvm-ffi" else list(reversed(PLUGINS))
    modules = {name: tvm_ffi.load_module(paths[name]) for name in order}
    cases = [(label, name, getattr(modules[name], function), args)
             for label, (function, args) in CALLS.items() for name in order]
    if options.count is not None:  # under callgrind: only the chosen function's calls
        chosen = [f for label, name, f, args in cases if (label, name) == (options.row, options.plugin)]
        for _ in range(options.count):
            chosen[0](*CALLS[options.row][1])
        return 0
    for name, module in modules.items():
        if module.add(40, 2) != 42:
            sys.exit(f"{paths[name]}: add(40, 2) is not 42")
    cases.append((PYTHON_NOP, "python", python_nop, ()))
    for _, _, f, args in cases:
        time_calls(f, 1000, args)  # warm up
    samples = {(label, name): [] for label, name, _, _ in cases}
    for _ in range(options.repeats):
        for label, name, f, args in cases:  # interleaved within the process
            samples[(label, name)].append(time_calls(f, options.calls, args))
    print(json.dumps([[label, name, statistics.median(values)] for (label, name), values in samples.items()]))
    return 0


def child_load(options, paths):
    """Times one load of one plugin, after loading the other plugin first
    if --after names it."""
    import tvm_ffi

    if options.after:
        tvm_ffi.load_module(paths[options.after])
    start = time.perf_counter_ns()
    module = tvm_ffi.load_module(paths[options.plugin])
    elapsed = time.perf_counter_ns() - start
    del module
    print(json.dumps({"load_ns": elapsed}))
    return 0


# ---- the driver ----

def build(target_dir, jobs):
    for crate, _ in PLUGINS.values():
        manifest = os.path.join(HERE, crate, "Cargo.toml")
        command = ["cargo", "build", "--release", "--quiet", "--jobs", str(jobs), "--manifest-path", manifest]
        print("+", " ".join(command), flush=True)
        env = dict(os.environ, CARGO_TARGET_DIR=target_dir)
        subprocess.run(command, env=env, check=True)


def child_command(options, mode, extra):
    return [sys.executable, os.path.abspath(__file__), "--child", mode, "--target-dir", options.target_dir] + extra


def child_env(extra=None):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the installed wheel, never an overlay
    env.update(extra or {})
    return env


def run_child(command):
    done = subprocess.run(command, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"bench_plugin_vs_tvm_rust: {' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


ALLOCATORS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign"}


def callgrind(command, collect):
    """Counts, under callgrind, only inside the function `collect` (and what
    it calls): (instructions, {library file: self instructions in its
    functions} for each plugin, calls of the C allocator)."""
    with tempfile.TemporaryDirectory(prefix="bench_plugin_cg.") as scratch:
        out = os.path.join(scratch, "callgrind.out")
        done = subprocess.run(deterministic(["valgrind", "--tool=callgrind", f"--toggle-collect={collect}",
                                             f"--callgrind-out-file={out}"] + command),
                              env=child_env({"PYTHONHASHSEED": "0"}), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            sys.exit(f"bench_plugin_vs_tvm_rust: callgrind of {' '.join(command)} failed:\n{done.stderr[-2000:]}")
        total, allocations, names, callee = None, 0, {}, None
        with open(out) as f:
            for line in f:
                if line.startswith(("totals:", "summary:")):
                    total = float(line.split(":")[1].split()[0])
                named = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
                if named:
                    if named.group(3):
                        names[named.group(2)] = named.group(3)
                    callee = names.get(named.group(2)) if named.group(1) == "cfn" else None
                elif line.startswith("calls=") and callee in ALLOCATORS:
                    allocations += int(line[len("calls="):].split()[0])
        in_plugin = {library: 0 for _, library in PLUGINS.values()}
        annotated = subprocess.run(["callgrind_annotate", "--threshold=100", "--inclusive=no", out],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        for line in annotated.splitlines():
            match = re.match(r"\s*([\d,]+)\s.*\[(.+)\]\s*$", line)
            if match and os.path.basename(match.group(2)) in in_plugin:
                in_plugin[os.path.basename(match.group(2))] += int(match.group(1).replace(",", ""))
        return total or 0.0, in_plugin, allocations


def deterministic(command):
    """The command without address randomisation (and, by the caller, hash
    randomisation), so runs that differ only in the measured work do the
    same other work."""
    norandom = ["setarch", os.uname().machine, "-R"] if shutil.which("setarch") else []
    return norandom + command


# The wheel's entry points the counts are taken inside: every call from the
# tvm_ffi package goes through TVMFFIFunctionCall (the runtime's jump, then
# the plugin's exported function); tvm_ffi.load_module through
# tvm::ffi::Module::LoadFromFile (dlopen, the plugin's initialisers, the
# symbol lookups, the Module object).
CALL_ENTRY = "TVMFFIFunctionCall"
FIRST_LOAD = "load_module, first in the process"
SECOND_LOAD = "load_module, after the other plugin"
LOAD_ENTRY = "tvm::ffi::Module::LoadFromFile*"


def other(name):
    return next(plugin for plugin in PLUGINS if plugin != name)


def measure(options):
    rows = {}  # (op, plugin) -> {"ns": [...], ...}

    def row(op, plugin):
        return rows.setdefault((op, plugin), {"ns": []})

    for round_index in range(options.rounds):
        first = list(PLUGINS)[round_index % 2]
        for label, name, ns in run_child(child_command(options, "calls", [
                "--first", first, "--calls", str(options.calls), "--repeats", str(options.repeats)])):
            row(label, name)["ns"].append(ns)
        for name in (list(PLUGINS) if round_index % 2 == 0 else list(reversed(PLUGINS))):
            for label, after in ((FIRST_LOAD, []), (SECOND_LOAD, ["--after", other(name)])):
                result = run_child(child_command(options, "load", ["--plugin", name] + after))
                row(label, name)["ns"].append(result["load_ns"])
    if options.no_valgrind or not shutil.which("valgrind"):
        return rows
    calls = options.callgrind_calls
    # The package's own calls during import and load, counted once and taken off.
    idle, idle_in_plugin, _ = callgrind(child_command(options, "calls", [
        "--count", "0", "--row", "nop()", "--plugin", BASELINE]), CALL_ENTRY)
    for label in CALLS:
        for name, (_, library) in PLUGINS.items():
            total, in_plugin, _ = callgrind(child_command(options, "calls", [
                "--count", str(calls), "--row", label, "--plugin", name]), CALL_ENTRY)
            row(label, name).update(instructions=(total - idle) / calls,
                                    in_plugin=(in_plugin[library] - idle_in_plugin[library]) / calls)
    first = {}
    for name, (_, library) in PLUGINS.items():
        first[name] = callgrind(child_command(options, "load", ["--plugin", name]), LOAD_ENTRY)
        total, in_plugin, allocations = first[name]
        row(FIRST_LOAD, name).update(instructions=total, in_plugin=in_plugin[library], mallocs=allocations)
    for name, (_, library) in PLUGINS.items():
        # Both loads are counted; the other plugin's, alone, is taken off.
        total, in_plugin, allocations = callgrind(child_command(options, "load", [
            "--plugin", name, "--after", other(name)]), LOAD_ENTRY)
        alone_total, alone_in_plugin, alone_allocations = first[other(name)]
        row(SECOND_LOAD, name).update(instructions=total - alone_total,
                                      in_plugin=in_plugin[library] - alone_in_plugin[library],
                                      mallocs=allocations - alone_allocations)
    return rows


def report(rows, options):
    def text(value, form):
        return "-" if value is None else form % value

    print(f"{'op':<38} {'plugin':<8} {'ns':>10} {'x tvm-ffi':>9} {'instr':>11} {'x tvm-ffi':>9} "
          f"{'in plugin':>10} {'mallocs':>8}")
    records = []
    ops = list(dict.fromkeys(op for op, _ in rows))
    for op, plugin in sorted(rows, key=lambda key: ops.index(key[0])):
        data = rows[(op, plugin)]
        base = rows.get((op, BASELINE), {})
        ns = statistics.median(data["ns"])
        base_ns = statistics.median(base["ns"]) if base else None
        instr, base_instr = data.get("instructions"), base.get("instructions")
        record = {"op": op, "plugin": plugin, "ns": round(ns, 1),
                  "ns_ratio": round(ns / base_ns, 3) if base_ns else None,
                  "instructions": instr and round(instr, 1),
                  "instructions_ratio": round(instr / base_instr, 3) if instr and base_instr else None,
                  "instructions_in_plugin": data.get("in_plugin") and round(data["in_plugin"], 1),
                  "mallocs": data.get("mallocs"), "rounds": len(data["ns"])}
        records.append(record)
        print(f"{op:<38} {plugin:<8} {ns:>10.1f} {text(record['ns_ratio'], '%.2f'):>9} "
              f"{text(record['instructions'], '%.1f'):>11} {text(record['instructions_ratio'], '%.2f'):>9} "
              f"{text(record['instructions_in_plugin'], '%.1f'):>10} {text(record['mallocs'], '%d'):>8}")
    print(f"ns: per call (load_module: per load); instr: per call inside {CALL_ENTRY} (load_module: per load inside "
          f"{LOAD_ENTRY.rstrip('*')}); in plugin: of those, in the plugin's own functions; mallocs: per load")
    print()
    for record in records:
        print(json.dumps(record))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target-dir", default=os.path.join(ROOT, "build", "plugin-bench-target"))
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--callgrind-calls", type=int, default=100000)
    parser.add_argument("--no-valgrind", action="store_true")
    parser.add_argument("--child", choices=["calls", "load"], help=argparse.SUPPRESS)
    parser.add_argument("--first", default=BASELINE, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--row", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--plugin", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--after", default=None, help=argparse.SUPPRESS)
    options = parser.parse_args()
    options.target_dir = os.path.abspath(options.target_dir)
    paths = {name: os.path.join(options.target_dir, "release", library) for name, (_, library) in PLUGINS.items()}
    if options.child == "calls":
        return child_calls(options, paths)
    if options.child == "load":
        return child_load(options, paths)
    if not options.no_build:
        build(options.target_dir, os.environ.get("XFFI_JOBS", "2"))
    missing = [path for path in paths.values() if not os.path.exists(path)]
    if missing:
        sys.exit(f"bench_plugin_vs_tvm_rust: missing {', '.join(missing)} (build them: drop --no-build)")
    report(measure(options), options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
