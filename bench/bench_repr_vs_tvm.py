#!/usr/bin/env python3
"""bench/bench_repr_vs_tvm.py: ffi.ReprPrint of 10,000-element
containers through the tvm_ffi Python package, on the wheel's own runtime
and on xffi's (c/repr.c), side by side, in CPU time of the process (which a
loaded machine disturbs less than wall time).

Two processes run the same measurement: one imports the installed wheel,
the other the overlay of scripts/tvm-ffi-on-xffi.sh (PYTHONPATH=OUTDIR: the
same package on xffi's drop-in libtvm_ffi.so). They alternate for --rounds
rounds; each times --repeats reprs of each container (median). The
containers: an Array of ints, a List of strings (small and heap), a Map of
string keys to ints, an Array of testing.TestIntPair objects (fields by
reflection), and one TestIntPair shared by 10,000 slots. Each side also
reports the SHA-256 of every text, so the two texts are compared too (the
format must be identical).

Usage:
  python3 bench/bench_repr_vs_tvm.py [--overlay OUTDIR] [--rounds 3]
      [--repeats 15] [--size 10000]
OUTDIR defaults to build/ovl and is written first with
scripts/tvm-ffi-on-xffi.sh when missing. A benchmark, not a test: it asserts
nothing about the figures (exit status 1 only when a side fails or the
texts differ)."""
import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def containers(size):
    import tvm_ffi
    import tvm_ffi.testing

    pair = tvm_ffi.testing.create_object("testing.TestIntPair", a=1, b=2)
    return [
        ("Array[int]", tvm_ffi.Array(list(range(size)))),
        ("List[str]", tvm_ffi.List([("s%d" % i) * (1 + i % 3) for i in range(size)])),
        ("Map[str, int]", tvm_ffi.Map({"key%d" % i: i for i in range(size)})),
        ("Array[TestIntPair]",
         tvm_ffi.Array([tvm_ffi.testing.create_object("testing.TestIntPair", a=i, b=-i) for i in range(size)])),
        ("Array[shared TestIntPair]", tvm_ffi.Array([pair] * size)),
    ]


def child(options):
    import tvm_ffi
    from tvm_ffi._ffi_api import ReprPrint

    rows, digests = {}, {}
    for label, value in containers(options.size):
        text = ReprPrint(value)
        digests[label] = [len(text), hashlib.sha256(text.encode()).hexdigest()]
        samples = []
        for _ in range(options.repeats):
            start = time.process_time_ns()
            ReprPrint(value)
            samples.append((time.process_time_ns() - start) / 1000.0)
        rows[label] = statistics.median(samples)
    print(json.dumps({"rows": rows, "digests": digests, "package": os.path.dirname(tvm_ffi.__file__)}))
    return 0


def run_child(env_extra, options):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.update(env_extra)
    args = [sys.executable, os.path.abspath(__file__), "--child", "--size", str(options.size), "--repeats",
            str(options.repeats)]
    done = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"a side failed ({done.returncode}): {(done.stderr or done.stdout).strip()[-800:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def driver(options):
    overlay = os.path.abspath(options.overlay)
    if not os.path.isdir(os.path.join(overlay, "tvm_ffi")):
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "tvm-ffi-on-xffi.sh"), overlay], check=True)
    sides = {"wheel": ({}, []), "xffi": ({"PYTHONPATH": overlay}, [])}
    for round_index in range(options.rounds):
        for name in (["wheel", "xffi"] if round_index % 2 == 0 else ["xffi", "wheel"]):
            env, results = sides[name]
            results.append(run_child(env, options))
    wheel, xffi = sides["wheel"][1], sides["xffi"][1]
    print(f"ffi.ReprPrint of {options.size:,}-element containers: median us per repr "
          f"(min over {options.rounds} rounds of {options.repeats} reprs)")
    print(f"{'container':28} {'tvm-ffi':>10} {'xffi':>10} {'xffi/tvm-ffi':>13}  text")
    same = True
    for label in wheel[0]["rows"]:
        w = min(r["rows"][label] for r in wheel)
        x = min(r["rows"][label] for r in xffi)
        identical = wheel[0]["digests"][label] == xffi[0]["digests"][label]
        same = same and identical
        size = wheel[0]["digests"][label][0]
        print(f"{label:28} {w:10.1f} {x:10.1f} {x / w:12.2f}x  {size:,} chars, "
              f"{'identical' if identical else 'DIFFERENT'}")
    return 0 if same else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--overlay", default=os.path.join(ROOT, "build", "ovl"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--size", type=int, default=10000)
    options = parser.parse_args()
    return child(options) if options.child else driver(options)


if __name__ == "__main__":
    sys.exit(main())
