#!/usr/bin/env python3
"""Writes docs/performance.md from the benchmark programs' own output, so the
page cannot drift from the programs: it runs each benchmark (or reads the
output it saved last time), and turns their JSON lines into tables with the
baseline measured in the same run, tvm-ffi, xffi, the ratios, the target and
whether it is met, the command that made them, and the date and machine.

  performance_doc.py [--build DIR] [--out FILE] [--raw DIR] [--reuse] [--only NAME]...

  --build DIR   a Release build with the benchmarks (default build/release)
  --out FILE    the page (default docs/performance.md)
  --raw DIR     where each benchmark's output is kept (default DIR/performance-raw)
  --reuse       read the outputs kept in --raw instead of running the programs
  --only NAME   run only these benchmarks (the others' kept outputs are reused)

A benchmark run takes minutes (bench_vs_tvm and the Map's 10^6-key rows are
counted under callgrind); the page says when and where the figures were made."""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def repository_root(start):
    """The checkout holding this script (the folder with include/xffi/xffi.h),
    wherever the benchmarks' folder sits in it."""
    path = start
    while not os.path.isfile(os.path.join(path, "include", "xffi", "xffi.h")):
        parent = os.path.dirname(path)
        if parent == path:
            raise SystemExit(f"{start} is not inside an xffi checkout")
        path = parent
    return path


ROOT = repository_root(HERE)

# Each benchmark: name, how the page shows its command, how it is run
# ({build}, {bench}: where the programs are built, {here}: this folder), its kind (how its rows become a table).
BENCHMARKS = [
    ("bench_vs_tvm", "xffi against tvm-ffi 0.1.15 (the wheel's C library)",
     "{bench}/bench_vs_tvm", "versus"),
    ("bench_map_vs_tvm", "Map: xffi's C API against tvm-ffi's inline C++ Map",
     "python3 {here}/bench_map_vs_tvm.py --build {build} --no-rust", "map"),
    ("bench_core", "Core: references, type checks, strings, errors", "{bench}/bench_core", "plain"),
    ("bench_function", "Functions: calls, global lookups, errors", "{bench}/bench_function", "plain"),
    ("bench_containers", "Containers: Map, Dict, Array, List", "{bench}/bench_containers", "plain"),
    ("bench_tensor", "Tensors: DLPack import and export", "{bench}/bench_tensor", "plain"),
    ("bench_reflection", "Reflection: fields by name", "{bench}/bench_reflection", "plain"),
]

VERSUS_TARGET = 1.0  # every row at or under tvm-ffi, in instructions and in ns
MAP_TARGET = 0.75    # every Map row at or under 0.75x tvm-ffi's inline C++

def guard_rows():
    """How many rows bench/perf_baseline.tsv holds (its header and comments aside)."""
    with open(os.path.join(HERE, "perf_baseline.tsv")) as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    return len(lines) - 1


INTRO = """\
Every figure on this page comes from the benchmark programs in `bench/`, run by
`bench/performance_doc.py`, which wrote the page from their output (edit the
generator, never the page). Each operation is measured against a baseline in the same
run: plain C doing the least work the operation needs, or tvm-ffi doing the same work.

- **instr**: instructions per operation, counted by callgrind around the measured loop
  (20,000 iterations; the benchmark's own loop included). Exact: they do not depend on
  the machine's load. `python3 bench/perf_guard.py` re-counts a representative
  set of them ({guard_rows} rows, under a minute of CPU) and fails when one rises more than 3 %
  above `bench/perf_baseline.tsv`.
- **ns**: the thread's CPU time per operation (not wall time, which on a loaded machine
  counts the time spent waiting for a core), the median of 7 rounds with the
  implementations interleaved in each round. On a shared machine they are still noisy
  (caches and cores are shared): compare the ratios within a row, measured in the same
  run, not figures across runs.
- **x**: the ratio of xffi's figure to the one named in the column. A target is met when
  both ratios, instructions and ns, are at or under it; "met" names the figure that
  misses it.

To make the figures again:

```sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release \\
      -DXFFI_TVM_FFI_INCLUDE_DIR=$(python3 -m tvm_ffi.config --includedir)
cmake --build build/release -j2
python3 bench/performance_doc.py --build build/release
```
"""


def command_of(template, build):
    rel = os.path.relpath(build, ROOT)
    bench = next((os.path.join(rel, d) for d in ("bench", os.path.join("tests", "bench"))
                  if os.path.isdir(os.path.join(build, d))), os.path.join(rel, "tests", "bench"))
    return template.format(build=rel, bench=bench, here=os.path.relpath(HERE, ROOT))


def run_benchmark(command, raw_file):
    print(f"performance_doc: {command}", file=sys.stderr, flush=True)
    done = subprocess.run(command, shell=True, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"performance_doc: `{command}` failed (exit {done.returncode})")
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if not rows:
        raise SystemExit(f"performance_doc: `{command}` printed no JSON line")
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open(raw_file, "w") as f:
        json.dump({"command": command, "date": when, "machine": machine(), "rows": rows}, f, indent=0)
    return rows


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    compiler = subprocess.run(["cc", "--version"], stdout=subprocess.PIPE, text=True).stdout.splitlines()
    return (f"{cpu}, {os.cpu_count()} CPUs, load average {load} when it started; "
            f"{compiler[0] if compiler else 'cc'}; {platform.system()} {platform.release()}")


def number(value, digits=1):
    if value is None:
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def ratio(value, base):
    if value is None or not base:
        return None
    return value / base


def by_op(rows):
    ops = {}
    for row in rows:
        ops.setdefault(row["op"], {})[row["impl"]] = row
    return ops


def verdict(instructions_ratio, ns_ratio, target):
    """'yes', or which figure misses the target and by how much."""
    misses = [f"{name} {value:.2f}x" for name, value in (("instr", instructions_ratio), ("ns", ns_ratio))
              if value is not None and value > target]
    if instructions_ratio is None and ns_ratio is None:
        return "-"
    return "**no**: " + ", ".join(misses) if misses else "yes"


def versus_tables(rows):
    lines = ["| operation | baseline instr | tvm-ffi instr | xffi instr | x tvm-ffi | baseline ns | tvm-ffi ns "
             "| xffi ns | x tvm-ffi (ns) | target | met |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    library = []
    for op, impls in by_op(rows).items():
        if op.startswith("library:"):
            library = list(impls.values())
            continue
        base, tvm, xffi = impls.get("baseline", {}), impls.get("tvm-ffi", {}), impls.get("xffi", {})
        ri = ratio(xffi.get("instructions"), tvm.get("instructions"))
        rn = ratio(xffi.get("ns"), tvm.get("ns"))
        lines.append(f"| {op} | {number(base.get('instructions'))} | {number(tvm.get('instructions'))} "
                     f"| {number(xffi.get('instructions'))} | {number(ri, 2)} | {number(base.get('ns'), 2)} "
                     f"| {number(tvm.get('ns'), 2)} | {number(xffi.get('ns'), 2)} | {number(rn, 2)} "
                     f"| <= {VERSUS_TARGET:.2f}x tvm-ffi | {verdict(ri, rn, VERSUS_TARGET)} |")
    if library:
        deps = next((r for r in library if r["impl"] == "baseline+deps"), None)
        lines += ["", "Each library's first load (dlopen), in a fresh process of a loader linked to neither "
                  "runtime. `baseline` is an empty library, `baseline+deps` an empty library with libxffi's "
                  "dependencies (libc, the dynamic loader): what the loader allocates for any such object.", "",
                  "| library | heap allocations at load | instr | ns | target | met |", "|---|---:|---:|---:|---|---|"]
        for row in library:
            target, met = "-", "-"
            if row["impl"].startswith("xffi") and deps and row.get("mallocs") is not None:
                target = "no allocation beyond baseline+deps"
                met = "yes" if row["mallocs"] <= deps["mallocs"] else f"**no** ({row['mallocs'] - deps['mallocs']:.0f} more)"
            lines.append(f"| {row['impl']} | {number(row.get('mallocs'), 0)} | {number(row.get('instructions'), 0)} "
                         f"| {number(row.get('ns'), 0)} | {target} | {met} |")
    return lines


def map_tables(rows):
    lines = ["| operation | tvm-ffi instr | xffi instr | x tvm-ffi | tvm-ffi ns | xffi ns | x tvm-ffi (ns) "
             "| target | met |", "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for op, impls in by_op(rows).items():
        tvm, xffi = impls.get("tvm-ffi", {}), impls.get("xffi", {})
        ri = ratio(xffi.get("instructions"), tvm.get("instructions"))
        rn = ratio(xffi.get("ns"), tvm.get("ns"))
        lines.append(f"| {op} | {number(tvm.get('instructions'))} | {number(xffi.get('instructions'))} "
                     f"| {number(ri, 2)} | {number(tvm.get('ns'), 2)} | {number(xffi.get('ns'), 2)} "
                     f"| {number(rn, 2)} | <= {MAP_TARGET:.2f}x tvm-ffi | {verdict(ri, rn, MAP_TARGET)} |")
    return lines


def plain_tables(rows):
    lines = ["| operation | implementation | baseline instr | instr | x baseline | baseline ns | ns | x baseline (ns) "
             "| mallocs/op |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for op, impls in by_op(rows).items():
        values = list(impls.values())
        base = values[0] if len(values) > 1 else {}
        for row in values[1:] or values:
            lines.append(f"| {op} | {row['impl']} | {number(base.get('instructions'))} "
                         f"| {number(row.get('instructions'))} "
                         f"| {number(ratio(row.get('instructions'), base.get('instructions')), 2)} "
                         f"| {number(base.get('ns'), 2)} | {number(row.get('ns'), 2)} "
                         f"| {number(ratio(row.get('ns'), base.get('ns')), 2)} | {number(row.get('mallocs'), 2)} |")
    return lines


KINDS = {"versus": versus_tables, "map": map_tables, "plain": plain_tables}

# Benchmarks this page does not run (each prints its own table, with its
# baseline from the same run): their figures are not kept here.
OTHER_BENCHMARKS = """\
## Benchmarks not on this page

Each prints its own table with its baseline from the same run; run it for figures.

| benchmark | what it compares |
|---|---|
| `cmake --build build/release --target bench_graph_vs_tvm` | StructuralHash/Equal, DeepCopy, JSON graph and text on a 100,000-node graph: tvm-ffi's runtime against xffi's through the same `tvm_ffi` package |
| `build/release/bench/bench_json_graph text 100000` (under `valgrind --tool=callgrind`) | the JSON graph reader and writer alone, at any number of nodes |
| `build/release/bench/bench_structural` | StructuralHash/Equal, DeepCopy, json.Parse/Stringify on 100,000 nodes against a recursive walk |
| `build/release/bench/bench_load` | dlopen + dlclose of libxffi against empty libraries |
| `python3 bench/bench_python_call.py` | the `tvm_ffi` package calling a no-op global, on the wheel's runtime and on xffi's |
| `python3 bench/bench_python_reflection.py` | field reads and construction from Python, wheel against xffi |
| `python3 bench/bench_repr_vs_tvm.py` | ffi.ReprPrint of 10,000-element containers, wheel against xffi |
| `python3 bench/bench_recursive.py` | RecursiveHash/Eq and DeepCopy of 100,000 containers, wheel against xffi |
| `cargo bench -p xffi-tests --bench xffi_bench` | the Rust API against plain Rust |
| `cargo bench -p xffi --features serde --bench json_write` | JSON writing against serde_json |
| `cargo bench -p xffi --features ndarray --bench ndarray_view` | a zero-copy ndarray view of a 10^6-element tensor against copies (`docs/rust-tensors.md`) |
"""


def page(results, build):
    lines = ["# Performance", "",
             "<!-- Generated by bench/performance_doc.py from the benchmarks' output; "
             "do not edit by hand. -->", "", INTRO.replace("{guard_rows}", str(guard_rows()))]
    for name, title, _, kind in BENCHMARKS:
        if name not in results:
            continue
        saved = results[name]
        lines += [f"## {title}", "", f"`{saved['command']}`, run {saved['date']} on {saved['machine']}.", ""]
        if kind == "plain":
            lines += ["The baseline is the operation's first row in the program: plain C doing the least "
                      "work the operation needs. No target is stated for these rows; the guard keeps them "
                      "from drifting.", ""]
        lines += KINDS[kind](saved["rows"]) + [""]
    lines.append(OTHER_BENCHMARKS.rstrip())
    for name, title, template, _ in BENCHMARKS:
        if name not in results:  # not run for this page (--only): its command, like the others
            lines.append(f"| `{command_of(template, build)}` | {title} |")
    lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    parser.add_argument("--raw")
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--only", action="append", default=[])
    options = parser.parse_args(argv)
    build = os.path.abspath(options.build)
    raw = options.raw or os.path.join(build, "performance-raw")
    os.makedirs(raw, exist_ok=True)
    names = [b[0] for b in BENCHMARKS]
    for name in options.only:
        if name not in names:
            parser.error(f"--only {name}: not one of {', '.join(names)}")
    results = {}
    for name, _, template, _ in BENCHMARKS:
        raw_file = os.path.join(raw, name + ".json")
        if options.reuse or (options.only and name not in options.only):
            if os.path.exists(raw_file):
                with open(raw_file) as f:
                    results[name] = json.load(f)
            continue
        run_benchmark(command_of(template, build), raw_file)
        with open(raw_file) as f:
            results[name] = json.load(f)
    if not results:
        raise SystemExit(f"performance_doc: no benchmark output (run without --reuse, or see {raw})")
    with open(options.out, "w") as f:
        f.write(page(results, build))
    print(f"performance_doc: wrote {os.path.relpath(options.out, ROOT)} from {len(results)} benchmarks",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
