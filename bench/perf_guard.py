#!/usr/bin/env python3
"""The guard against performance drift: re-counts the instructions per operation
of a representative set of benchmark rows under callgrind (deterministic, so
exact on a loaded machine) and compares them with the checked-in table
bench/perf_baseline.tsv.

  perf_guard.py [--build DIR] [--table FILE] [--tolerance PERCENT] [--jobs N]
                [--program NAME]... [--update]

  --build DIR      a Release build tree (default build/release) holding the
                   benchmark programs (in DIR/bench or DIR/bench)
  --table FILE     the table (default bench/perf_baseline.tsv)
  --tolerance P    how far a row may rise above the table, in percent (default 3)
  --jobs N         programs counted at once (default 2)
  --program NAME   count only this program's rows (repeatable); the table's
                   other rows are then neither checked nor rewritten
  --update         write the counts measured now into the table (in the same
                   change as the code that moved them) and pass

Fails (exit 1), naming each row, when a row rose more than the tolerance above
the table, when a row of the table was not measured (renamed or removed), and
when a measured row is not in the table (new). A row that fell more than the
tolerance is reported, not failed: --update keeps the gain. Exit 2 when the
guard cannot count (no Release build, no valgrind)."""
import argparse
import concurrent.futures
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

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
DEFAULT_TABLE = os.path.join(HERE, "perf_baseline.tsv")

# The representative set: (program, arguments) for the harness's programs,
# which print one JSON line per row (bench/bench_harness.h). xffi's rows
# only: the baselines are plain C and tvm-ffi's rows come from the pinned wheel.
# Left out, because one callgrind count of them takes minutes: the Map at 10^6
# keys, bench_structural's 100k-node walks and bench_load's 20,000 dlopens.
HARNESS_RUNS = [
    ("bench_vs_tvm", ["--impl", "xffi"]),
    ("bench_core", ["--impl", "xffi"]),
    ("bench_function", ["--impl", "xffi"]),
    ("bench_containers", ["--impl", "xffi"]),
    ("bench_tensor", ["--impl", "xffi"]),
    ("bench_reflection", ["--impl", "xffi"]),
    ("bench_map_xffi", ["--only", "10 "]),
    ("bench_map_xffi", ["--only", "1,000 "]),
]

# bench_json_graph times nothing itself: one function of it counted under
# callgrind (--toggle-collect), per node: (op, arguments, function, nodes).
JSON_GRAPH_NODES = 10000
JSON_GRAPH_RUNS = [
    ("JSON graph text read (FromJSONGraphString), per node", "text", "xffi_from_json_text"),
    ("JSON graph text write (ToJSONGraphString), per node", "write", "xffi_to_json_text"),
]

HEADER = """\
# Instructions per operation of xffi's benchmark rows, counted under callgrind
# (deterministic): the table bench/perf_guard.py checks. A row may rise
# at most the tolerance (3 %) above it; a change that moves a row updates the
# table in the same commit:
#   python3 bench/perf_guard.py --build build/release --update
"""


class GuardError(Exception):
    """The guard cannot count (exit 2)."""


def row_key(program, op, impl):
    return (program, op, impl)


def read_table(path):
    """(rows {(program, op, impl): instructions}, toolchain line or None)."""
    rows, toolchain = {}, None
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("# toolchain:"):
                toolchain = line[len("# toolchain:"):].strip()
            if not line or line.startswith("#") or line.startswith("program\t"):
                continue
            fields = line.split("\t")
            if len(fields) != 4:
                raise GuardError(f"{path}:{number}: expected 4 tab-separated fields "
                                 f"(program, op, impl, instructions), got {len(fields)}")
            try:
                rows[row_key(*fields[:3])] = float(fields[3])
            except ValueError:
                raise GuardError(f"{path}:{number}: instructions must be a number, got {fields[3]!r}") from None
    return rows, toolchain


def write_table(path, rows, toolchain):
    with open(path, "w") as f:
        f.write(HEADER)
        f.write(f"# toolchain: {toolchain}\n")
        f.write("program\top\timpl\tinstructions\n")
        for (program, op, impl), count in rows.items():
            f.write(f"{program}\t{op}\t{impl}\t{count:.1f}\n")


def compare(table, measured, tolerance):
    """(failures, notes): each a list of lines naming a row."""
    failures, notes = [], []
    for key, count in measured.items():
        name = "{} / {} / {}".format(*key)
        if key not in table:
            failures.append(f"{name}: {count:.1f} instructions, not in the table (a new row: run --update)")
            continue
        was = table[key]
        change = (count - was) / was * 100 if was else (0.0 if count == 0 else float("inf"))
        if change > tolerance:
            failures.append(f"{name}: {count:.1f} instructions per op, the table says {was:.1f} "
                            f"(+{change:.1f} %, more than +{tolerance:g} %)")
        elif change < -tolerance:
            notes.append(f"{name}: {count:.1f} instructions per op, the table says {was:.1f} "
                         f"({change:.1f} %): --update keeps the gain")
    for key in table:
        if key not in measured:
            failures.append("{} / {} / {}: in the table but not measured (renamed or removed: run --update)"
                            .format(*key))
    return failures, notes


def find_program(build, name):
    for folder in ("bench", os.path.join("tests", "bench")):
        path = os.path.join(build, folder, name)
        if os.access(path, os.X_OK):
            return path
    raise GuardError(f"{name} is not built in {build}/bench or {build}/bench "
                     f"(cmake --build {build} -j2)")


def count_harness_rows(build, program, args):
    """{(program, op, impl): instructions} of one harness program's run."""
    path = find_program(build, program)
    done = subprocess.run([path, "--instructions-only"] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise GuardError(f"{program} {' '.join(args)} failed (exit {done.returncode}): "
                         + done.stderr.strip()[-500:])
    rows = {}
    for line in done.stdout.splitlines():
        if not line.startswith("{"):
            continue
        row = json.loads(line)
        if row.get("instructions") is None:
            continue  # a figure the program measures itself (threads), not counted
        rows[row_key(program, row["op"], row["impl"])] = round(float(row["instructions"]), 1)
    if not rows:
        raise GuardError(f"{program} {' '.join(args)} printed no instruction count (is valgrind working?)")
    return rows


def count_json_graph_row(build, op, mode, function):
    path = find_program(build, "bench_json_graph")
    with tempfile.TemporaryDirectory(prefix="xffi-perf-guard-") as tmp:
        out = os.path.join(tmp, "callgrind.out")
        done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                               f"--toggle-collect={function}", path, mode, str(JSON_GRAPH_NODES)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise GuardError(f"bench_json_graph {mode} under callgrind failed (exit {done.returncode}): "
                             + done.stderr.strip()[-500:])
        total = None
        with open(out) as f:
            for line in f:
                if line.startswith(("summary:", "totals:")):
                    total = float(line.split(":")[1].split()[0])
                    break
    if not total:
        raise GuardError(f"bench_json_graph {mode}: callgrind counted nothing in {function}")
    return {row_key("bench_json_graph", op, "xffi"): round(total / JSON_GRAPH_NODES, 1)}


def toolchain_of(build):
    """What the counts depend on besides the code: compiler, build type, valgrind, libc, CPU."""
    cache = {}
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                name, _, value = line.strip().partition("=")
                cache[name.split(":")[0]] = value
    except OSError:
        raise GuardError(f"{build} is not a CMake build tree (no CMakeCache.txt)") from None
    if cache.get("CMAKE_BUILD_TYPE") != "Release":
        raise GuardError(f"{build} is a {cache.get('CMAKE_BUILD_TYPE') or 'default'} build: "
                         "the table counts a Release build")
    compiler = cache.get("CMAKE_C_COMPILER", "cc")
    version = subprocess.run([compiler, "--version"], stdout=subprocess.PIPE, text=True).stdout.splitlines()
    valgrind = subprocess.run(["valgrind", "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    libc = " ".join(os.confstr("CS_GNU_LIBC_VERSION").split()) if hasattr(os, "confstr") else "unknown libc"
    return f"{version[0] if version else compiler}; Release; {valgrind}; {libc}; {platform.machine()}"


def measure(build, programs, jobs):
    """Every guarded row of the selected programs, in table order."""
    tasks = [(count_harness_rows, (build, p, a)) for p, a in HARNESS_RUNS if not programs or p in programs]
    if not programs or "bench_json_graph" in programs:
        tasks += [(count_json_graph_row, (build, op, mode, fn)) for op, mode, fn in JSON_GRAPH_RUNS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(fn, *args) for fn, args in tasks]
        results = [f.result() for f in futures]
    rows = {}
    for result in results:
        rows.update(result)
    return rows


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    parser.add_argument("--table", default=DEFAULT_TABLE)
    parser.add_argument("--tolerance", type=float, default=3.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--program", action="append", default=[])
    parser.add_argument("--update", action="store_true")
    options = parser.parse_args(argv)
    known = {p for p, _ in HARNESS_RUNS} | {"bench_json_graph"}
    unknown = [p for p in options.program if p not in known]
    if unknown:
        parser.error(f"--program {unknown[0]}: not guarded (one of {', '.join(sorted(known))})")
    try:
        if not shutil.which("valgrind"):
            raise GuardError("valgrind is not installed: the guard counts instructions under callgrind")
        toolchain = toolchain_of(options.build)
        measured = measure(options.build, set(options.program), options.jobs)
        table, table_toolchain = read_table(options.table) if os.path.exists(options.table) else ({}, None)
    except GuardError as error:
        print(f"perf_guard: {error}", file=sys.stderr)
        return 2
    in_scope = {k: v for k, v in table.items() if not options.program or k[0] in options.program}
    if options.update:
        kept = {k: v for k, v in table.items() if k not in in_scope}
        write_table(options.table, {**kept, **measured} if options.program else measured, toolchain)
        moved = [k for k in measured if k in in_scope and measured[k] != in_scope[k]]
        for key in moved:
            print("moved: {} / {} / {}: ".format(*key) + f"{in_scope[key]:.1f} -> {measured[key]:.1f}")
        added = sum(k not in in_scope for k in measured)
        removed = sum(k not in measured for k in in_scope)
        print(f"perf_guard: {len(measured)} rows written to {os.path.relpath(options.table, ROOT)} "
              f"({len(moved)} moved, {added} new, {removed} removed)")
        return 0
    failures, notes = compare(in_scope, measured, options.tolerance)
    if table_toolchain and table_toolchain != toolchain:
        print(f"note: the table was counted with [{table_toolchain}], this build is [{toolchain}]: "
              "rows may move for that reason alone")
    for line in notes:
        print(f"fell: {line}")
    for line in failures:
        print(f"FAILED: {line}")
    print(f"perf_guard: {len(measured)} rows counted, {len(failures)} failed "
          f"(tolerance +{options.tolerance:g} %, table {os.path.relpath(options.table, ROOT)})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
