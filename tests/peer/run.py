#!/usr/bin/env python3
"""The acceptance test of issue 15: tvm-ffi's own Python suite (the pinned
sdist's tests/python) run on the wheel's runtime and on xffi's (the overlay
of scripts/tvm-ffi-on-xffi.sh) in the same job, judged by the rules of
docs/one-runtime/peer-suite.md §4.2 against tests/peer/known-failures.txt.

    python3 tests/peer/run.py [options]

  --work DIR          scratch (default build/peer): sdist cache, overlay, logs,
                      wheel.json and xffi.json (outcome of every id)
  --runtime FILE      the overlay's runtime (default: build xffi's drop-in)
  --wheel-runtime     the overlay runs a copy of the wheel's library (mechanics only)
  --known FILE        the known-failures list (default tests/peer/known-failures.txt)
  --write-known FILE  also write a fresh list from this run: every test that
                      passes on the wheel but not on xffi, grouped by reason
                      (its file and first error line), for a person to curate
  --files GLOB        only the test files matching GLOB (development; the
                      floor is not checked then)
  --skip ID           leave ID out on both sides (repeatable)
  --jobs N            pytest processes at a time (default XFFI_JOBS or 2)
  --timeout S         seconds per pytest process (default 300)
  --floor N           fail when fewer than N tests pass on the wheel (default
                      PASS_FLOOR): a lost compiler or package must not make
                      the run green by shrinking what is compared

Each test file runs in its own process with the plugin peer_ledger. A
process that dies (signal, abort) or times out is attributed to the test it
was running (peer_ledger's current-test file), which is recorded as crashed
or timed out; the file is rerun without it and without what already
finished, until it completes. Exit status 0 when no rule fails."""
import argparse
import concurrent.futures
import fnmatch
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import known_failures  # noqa: E402

PIN = "apache-tvm-ffi==0.1.15.post2"
SDIST = "apache_tvm_ffi-0.1.15.post2.tar.gz"
SDIST_SHA256 = "909be9ef5af07726aa9afd38a3111abc4d86cfd5927ebedfa9166232ce7d287b"
# Passes on the wheel's runtime with numpy, g++, ninja and cargo (2,581 with
# every optional tool; docs/one-runtime/peer-suite.md §2), less a margin for
# a Python build that skips a few (3.13+ adds, free-threaded skips).
PASS_FLOOR = 2550
PYTEST_FLAGS = ["-q", "-rfEsxX", "-p", "no:cacheprovider", "-o", "addopts=", "-p", "peer_ledger"]


class Run:
    """What one side gave: outcome per id (outcome, message), the ids
    collected, collection errors, seconds of wall time."""

    def __init__(self):
        self.outcomes, self.collected, self.collect_errors, self.seconds = {}, set(), [], 0.0

    def to_json(self):
        return {"outcomes": self.outcomes, "collected": sorted(self.collected),
                "collect_errors": self.collect_errors, "seconds": round(self.seconds, 1)}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch_sdist(cache):
    """The pinned sdist, downloaded once (hash-checked by pip) and reused
    while its sha256 matches; returns the extracted tree."""
    os.makedirs(cache, exist_ok=True)
    archive = os.path.join(cache, SDIST)
    if not (os.path.exists(archive) and sha256(archive) == SDIST_SHA256):
        requirements = os.path.join(cache, "requirements.txt")
        with open(requirements, "w") as f:
            f.write(f"{PIN} --hash=sha256:{SDIST_SHA256}\n")
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
                        "apache-tvm-ffi", "--require-hashes", "-r", requirements, "-d", cache], check=True)
    if sha256(archive) != SDIST_SHA256:
        raise SystemExit(f"{archive}: sha256 differs from the pinned {SDIST_SHA256}")
    tree = os.path.join(cache, SDIST[: -len(".tar.gz")])
    stamp = os.path.join(tree, ".extracted")
    if not os.path.exists(stamp):
        shutil.rmtree(tree, ignore_errors=True)
        with tarfile.open(archive) as tar:
            tar.extractall(cache, filter="data")
        open(stamp, "w").close()
    return tree


def test_files(tree, pattern):
    found = []
    for dirpath, _, names in os.walk(os.path.join(tree, "tests", "python")):
        for name in names:
            if name.startswith("test_") and name.endswith(".py"):
                found.append(os.path.relpath(os.path.join(dirpath, name), tree))
    found.sort()
    return [f for f in found if not pattern or fnmatch.fnmatch(f, pattern)]


def run_file(tree, side_dir, env, test_file, skip, timeout):
    """Runs one test file until it completes, attributing crashes. Returns
    (records, notes): the ledger's records, and crashed/timed-out tests as
    test records of their own."""
    stem = test_file.replace("/", "_")[: -len(".py")]
    outcomes = os.path.join(side_dir, stem + ".jsonl")
    current = os.path.join(side_dir, stem + ".current")
    skip_file = os.path.join(side_dir, stem + ".skip")
    log = os.path.join(side_dir, stem + ".log")
    for path in (outcomes, log):
        if os.path.exists(path):
            os.remove(path)
    left_out, extra = set(skip), []
    for attempt in range(1, 200):
        with open(skip_file, "w", encoding="utf-8") as f:
            f.write("".join(i + "\n" for i in sorted(left_out)))
        open(current, "w").close()
        basetemp = os.path.join(os.path.realpath(os.path.join(side_dir, "tmp")), f"{stem}.{attempt}")
        command = [sys.executable, "-m", "pytest", *PYTEST_FLAGS, f"--peer-outcomes={outcomes}",
                   f"--peer-current={current}", f"--peer-skip={skip_file}", f"--basetemp={basetemp}", test_file]
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"\n=== attempt {attempt}: {' '.join(command)}\n")
            out.flush()
            # Its own process group, so that a timeout also ends what it started (ninja, cargo).
            process = subprocess.Popen(command, cwd=tree, env=env, stdout=out, stderr=subprocess.STDOUT,
                                       start_new_session=True)
            try:
                rc, timed_out = process.wait(timeout=timeout), False
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                rc, timed_out = process.wait(), True
        with open(current, encoding="utf-8") as f:
            culprit = f.read().strip()
        if not timed_out and (rc in (0, 1, 5) or (rc == 2 and not culprit)):
            break  # completed: passed, some failed, nothing collected, or collection errors (recorded)
        what = f"timed out after {timeout} s" if timed_out else f"crashed (exit status {rc})"
        if not culprit:
            # Died outside any test (collection, import, interpreter exit).
            tail = open(log, encoding="utf-8", errors="replace").read().strip().splitlines()[-1:] or [""]
            extra.append({"kind": "collect_error", "id": test_file, "message": f"{what} outside a test: {tail[0]}"})
            break
        outcome = "timed out" if timed_out else "crashed"
        extra.append({"kind": "test", "id": culprit, "outcome": outcome, "message": what, "duration": 0})
        left_out.add(culprit)
        for record in read_records(outcomes):
            if record["kind"] == "test":
                left_out.add(record["id"])
    return read_records(outcomes) + extra


def read_records(path):
    if not os.path.exists(path):
        return []
    records = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                records.append(json.loads(line))
            except ValueError:
                pass  # a line cut short by a crash
    return records


def run_side(name, tree, work, files, skip, jobs, timeout, pythonpath):
    side_dir = os.path.join(work, name)
    shutil.rmtree(side_dir, ignore_errors=True)
    # pytest's temporary directories go outside the repository: a test of the
    # suite (test_stubgen_rust) expects its loose files to be in no Cargo
    # crate, and the repository's root is one.
    temp = tempfile.mkdtemp(prefix=f"xffi-peer-{name}-")
    os.makedirs(side_dir)
    os.symlink(temp, os.path.join(side_dir, "tmp"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pythonpath, HERE) if p)
    # JIT-built modules link the runtime they were built against: one cache per side.
    env["TVM_FFI_CACHE_DIR"] = os.path.join(side_dir, "jit-cache")
    run, start = Run(), time.monotonic()
    # Longest first, so that two workers finish together.
    order = sorted(files, key=lambda f: -os.path.getsize(os.path.join(tree, f)))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for records in pool.map(lambda f: run_file(tree, side_dir, env, f, skip, timeout), order):
            for record in records:
                if record["kind"] == "collected":
                    run.collected.update(i for i in record["ids"] if i not in skip)
                elif record["kind"] == "collect_error":
                    run.collect_errors.append((record["id"], record["message"]))
                elif record["kind"] == "test":
                    previous = run.outcomes.get(record["id"])
                    if previous is None or previous[0] not in ("crashed", "timed out"):
                        run.outcomes[record["id"]] = (record["outcome"], record["message"])
    run.seconds = time.monotonic() - start
    shutil.rmtree(temp, ignore_errors=True)
    with open(os.path.join(work, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(run.to_json(), f, indent=0)
    return run


def count(run, outcome):
    return sum(1 for o, _ in run.outcomes.values() if o == outcome)


def fresh_list(wheel, xffi, path):
    """Every test that passes on the wheel and not on xffi, with the reason
    `FILE: first error line` (or how it crashed, or that it was not run)."""
    reasons = {}
    file_errors = {}
    for where, message in xffi.collect_errors:
        file_errors.setdefault(where.split("::", 1)[0], message)
    for test_id, (outcome, _) in wheel.outcomes.items():
        if outcome != "passed":
            continue
        file = test_id.split("::", 1)[0]
        got, message = xffi.outcomes.get(test_id, ("not collected", file_errors.get(file, "")))
        if got != "passed":
            reasons[test_id] = f"{file.rsplit('/', 1)[-1]}: {got}: {message}"[:240]
    header = [f"tvm-ffi {PIN.split('==')[1]} peer suite on xffi: tests that pass on the wheel's runtime but not on xffi's.",
              "The list only shrinks: a listed test that passes fails the run (tests/peer/run.py).",
              "Written by run.py --write-known; reasons are FILE: outcome: first error line until curated."]
    with open(path, "w", encoding="utf-8") as f:
        f.write(known_failures.render(reasons, header))
    return len(reasons)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", default=os.path.join(os.environ.get("XFFI_BUILD_ROOT", os.path.join(ROOT, "build")), "peer"))
    parser.add_argument("--runtime")
    parser.add_argument("--wheel-runtime", action="store_true")
    parser.add_argument("--known", default=known_failures.DEFAULT_PATH)
    parser.add_argument("--write-known")
    parser.add_argument("--files")
    parser.add_argument("--skip", action="append", default=[])
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("XFFI_JOBS", "2")))
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--floor", type=int, default=PASS_FLOOR)
    args = parser.parse_args()

    known, errors = known_failures.load(args.known)
    if errors:
        for e in errors:
            print(f"{args.known}: {e}")
        return 1
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    tree = fetch_sdist(os.path.join(work, "sdist"))
    overlay = os.path.join(work, "overlay")
    script = [os.path.join(ROOT, "scripts", "tvm-ffi-on-xffi.sh")]
    if args.wheel_runtime:
        script.append("--wheel-runtime")
    elif args.runtime:
        script += ["--runtime", args.runtime]
    subprocess.run(["bash", *script, overlay], check=True)
    files = test_files(tree, args.files)
    if not files:
        print(f"no test file matches {args.files}")
        return 1
    skip = set(args.skip)
    wheel = run_side("wheel", tree, work, files, skip, args.jobs, args.timeout, "")
    xffi = run_side("xffi", tree, work, files, skip, args.jobs, args.timeout, overlay)
    if args.files:
        # Only part of the suite: the list's other ids are not judged.
        wanted = {f for f in files}
        known = {i: r for i, r in known.items() if i.split("::", 1)[0] in wanted}
    result = known_failures.verdict(wheel, xffi, known)
    if args.write_known:
        written = fresh_list(wheel, xffi, args.write_known)
        print(f"wrote {written} ids to {args.write_known}")

    passed_wheel = count(wheel, "passed")
    print(f"peer suite ({len(files)} files, {len(skip)} ids left out on both sides): "
          f"wheel {len(wheel.collected)} collected, {passed_wheel} passed in {wheel.seconds:.0f} s; "
          f"xffi {len(xffi.collected)} collected, {count(xffi, 'passed')} passed, "
          f"{count(xffi, 'crashed')} crashed, {count(xffi, 'timed out')} timed out in {xffi.seconds:.0f} s")
    print(f"|P_w| = {passed_wheel}, passed on xffi = {count(xffi, 'passed')}, listed = {len(known)}, "
          f"regressions = {len(result['regressions'])}, listed but passing = {len(result['listed_but_passing'])}, "
          f"stale = {len(result['stale'])}, collection failures = {len(result['collection'])}")
    failed = False
    shown = 40
    for title, key in (("regression (passes on the wheel, not on xffi, not listed)", "regressions"),
                       ("listed but passes on xffi (remove it from the list)", "listed_but_passing"),
                       ("stale entry of the list", "stale")):
        for test_id, detail in result[key][:shown]:
            print(f"{title}: {test_id}: {detail}")
        if len(result[key]) > shown:
            print(f"... and {len(result[key]) - shown} more ({key}); every outcome is in {work}/xffi.json")
        failed |= bool(result[key])
    for line in result["collection"][:shown]:
        print(line)
    failed |= bool(result["collection"])
    if not args.files and passed_wheel < args.floor:
        print(f"only {passed_wheel} tests pass on the wheel's runtime, below the floor of {args.floor}: "
              f"an optional tool or package is missing (docs/one-runtime/peer-suite.md §2)")
        failed = True
    print("peer suite: " + ("FAILED" if failed else "passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
