#!/usr/bin/env python3
"""bench/bench_tvm_clients.py: the TVM compiler (apache-tvm 0.27.0.post1, as
the clients step installs it) on xffi's drop-in libtvm_ffi.so against the
wheel's own runtime, side by side in one run.

Jobs (each a fresh Python process, so each includes starting Python):
  import tvm     python -c "import tvm"
  te_add_one     tests/clients/tvm/job.py te_add_one: import tvm, a TE add-one
                 built with tvm.compile(target="llvm") and run
  relax_vm       tests/clients/tvm/job.py relax_vm: import tvm, a Relax
                 function compiled and run through relax.VirtualMachine

Per job and runtime (median over the runs; runtimes alternate within each
run, so a busy moment of a shared machine falls on both):
  wall           wall time of the process, ms
  CPU            user + system CPU time of the process (wait4's rusage), ms:
                 unlike wall time, not stretched by waiting for a core on a
                 busy machine (TVM's thread pool is idle in these jobs)
  allocations    calls to malloc + calloc + realloc by the whole process
                 (Python, TVM, LLVM and the runtime alike), counted by an
                 LD_PRELOAD shim (bench/alloc_count.c) in the allocator's entry
                 points: the same code counts both runtimes, costs a relaxed
                 atomic add per call and runs at full speed (valgrind or ltrace
                 would take minutes per import and count only what they see)
  peak RSS       the process's maximum resident set (wait4's ru_maxrss), MB
and the ratio xffi / wheel (target <= 1.00).

The wheel's runs use the installed tvm_ffi package; xffi's put the overlay of
scripts/tvm-ffi-on-xffi.sh first on PYTHONPATH, and each run checks from
/proc/self/maps that only the intended libtvm_ffi.so was mapped.

Usage:
  python3 bench/bench_tvm_clients.py [--work DIR] [--runtime FILE] [--runs 5]
--work (default build/clients) is the clients step's: the TVM install there
is reused (installed with pip --no-deps into WORK/tvm/site when missing).
Prints a table, then one machine-readable line per row:
  BENCH job=JOB metric=METRIC wheel=X xffi=Y ratio=R
A benchmark, not a test: it asserts nothing about the figures."""
import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
JOB_PY = os.path.join(ROOT, "tests", "clients", "tvm", "job.py")
REPORT_MAPS = ("import sys; maps = open('/proc/self/maps').read().splitlines(); "
               "print('runtime', sorted({l.split()[-1] for l in maps if l.endswith('/libtvm_ffi.so')}), file=sys.stderr)")
JOBS = {
    "import tvm": ["-c", "import tvm; " + REPORT_MAPS],
    "te_add_one": [JOB_PY, "te_add_one"],
    "relax_vm": [JOB_PY, "relax_vm"],
}
METRICS = (("wall", "ms"), ("CPU", "ms"), ("allocations", "calls"), ("peak RSS", "MB"))


def load_clients_runner():
    spec = importlib.util.spec_from_file_location("clients_run", os.path.join(ROOT, "tests", "clients", "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_shim(work):
    shim = os.path.join(work, "alloc_count.so")
    subprocess.run(["cc", "-std=c11", "-O2", "-shared", "-fPIC", os.path.join(HERE, "alloc_count.c"), "-o", shim],
                   check=True)
    return shim


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", default=os.path.join(ROOT, "build", "clients"))
    parser.add_argument("--runtime", help="the drop-in to measure (default: scripts/tvm-ffi-on-xffi.sh builds one)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)

    clients = load_clients_runner()
    with open(os.path.join(work, "bench-tvm-clients.log"), "w") as log:
        tvm_site = clients.prepare_tvm(work, log)
    overlay = os.path.join(work, "bench-overlay")
    cmd = [os.path.join(ROOT, "scripts", "tvm-ffi-on-xffi.sh")] + (["--runtime", args.runtime] if args.runtime else [])
    subprocess.run(cmd + [overlay], check=True, stdout=subprocess.DEVNULL)
    shim = build_shim(work)
    wheel_lib = subprocess.run([sys.executable, "-c", "import tvm_ffi.libinfo as l; print(l.find_libtvm_ffi())"],
                               env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, check=True,
                               capture_output=True, text=True).stdout.strip()
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_PRELOAD")}
    envs = {
        "wheel": (dict(base, PYTHONPATH=tvm_site, LD_PRELOAD=shim), os.path.realpath(wheel_lib)),
        "xffi": (dict(base, PYTHONPATH=os.pathsep.join([overlay, tvm_site]), LD_PRELOAD=shim),
                 os.path.join(overlay, "tvm_ffi", "lib", "libtvm_ffi.so")),
    }

    samples = {(job, runtime): [] for job in JOBS for runtime in envs}
    for run in range(args.runs):
        for job, argv in JOBS.items():
            order = ("wheel", "xffi") if run % 2 == 0 else ("xffi", "wheel")
            for runtime in order:
                env, expect = envs[runtime]
                samples[(job, runtime)].append(measure(argv, env, expect))
        print(f"run {run + 1} of {args.runs} done", file=sys.stderr, flush=True)

    print(f"TVM 0.27.0.post1 jobs, median of {args.runs} runs (runtimes alternating); "
          f"wheel: {envs['wheel'][1]}; xffi: {envs['xffi'][1]}")
    print(f"{'job':<12}{'metric':<18}{'wheel':>10}{'xffi':>10}{'xffi/wheel':>12}{'wheel range':>20}{'xffi range':>20}")
    rows = []
    for job in JOBS:
        for index, (metric, unit) in enumerate(METRICS):
            wheel = statistics.median(s[index] for s in samples[(job, "wheel")])
            xffi = statistics.median(s[index] for s in samples[(job, "xffi")])
            fmt = (lambda v: f"{v:.0f}") if unit != "MB" else (lambda v: f"{v:.1f}")
            ranges = ["..".join(fmt(f([s[index] for s in samples[(job, runtime)]])) for f in (min, max))
                      for runtime in ("wheel", "xffi")]
            print(f"{job:<12}{metric + ' ' + unit:<18}{fmt(wheel):>10}{fmt(xffi):>10}{xffi / wheel:>12.3f}"
                  f"{ranges[0]:>20}{ranges[1]:>20}")
            rows.append((job, metric, wheel, xffi))
    for job, metric, wheel, xffi in rows:
        print(f"BENCH job={job.replace(' ', '_')} metric={metric.replace(' ', '_')} wheel={wheel:.1f} "
              f"xffi={xffi:.1f} ratio={xffi / wheel:.3f}")
    return 0


def measure(argv, env, expect_runtime):
    """(wall ms, CPU ms, allocation calls, peak RSS MB) of one process."""
    with tempfile.NamedTemporaryFile(prefix="alloc-count-", delete=False) as counts:
        counts_path = counts.name
    env = dict(env, XFFI_ALLOC_COUNT_FILE=counts_path)
    began = time.monotonic()
    process = subprocess.Popen([sys.executable] + argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    # Read to the end, then reap with wait4, which gives this child's own rusage.
    text = process.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = (time.monotonic() - began) * 1000
    with open(counts_path) as f:
        lines = f.read().splitlines()
    os.unlink(counts_path)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({process.returncode}):\n{text[-2000:]}")
    if f"runtime ['{expect_runtime}']" not in text:
        raise SystemExit(f"{' '.join(argv)}: expected only {expect_runtime} mapped; the process said:\n{text[-2000:]}")
    allocations = sum(int(n) for line in lines for n in line.split())
    cpu = (usage.ru_utime + usage.ru_stime) * 1000
    return wall, cpu, allocations, usage.ru_maxrss / 1024


if __name__ == "__main__":
    sys.exit(main())
