"""tvm-ffi's Rust crate (`tvm-ffi =0.1.15-post2`, from crates.io) runs its own
`cargo test` on the wheel's runtime and on xffi's drop-in, and the two are
compared (docs/tvm-ffi.md, "tvm-ffi's clients").

    python3 tests/clients/tvm_ffi_rust/run.py --runtime LIBTVM_FFI [--work DIR]
        [--known FILE] [--write-known FILE]

The crate is fetched with cargo into a scratch project and copied to
WORK/crate (outside the workspace: an empty [workspace] table is appended to
the copy's manifest). Its build script links `libtvm_ffi` from the directory
`tvm-ffi-config --libdir` prints; a stand-in tvm-ffi-config on PATH prints
WORK/lib, which holds the runtime under test as libtvm_ffi.so and the wheel's
libtvm_ffi_testing.so (the crate's `testing` feature links it; it calls the
runtime only through the C ABI). Everything is built once: between the two
runs only the file WORK/lib/libtvm_ffi.so changes (LD_LIBRARY_PATH and PATH
stay the same, so cargo rebuilds nothing but the doctests, which it always
compiles).

Test ids: `TARGET::NAME` for the crate's test targets (`lib` for its unit
tests), `doc::PATH - ITEM (line N)` for doctests.

Verdict (exit 1 on any): a test that passed on the wheel and not on xffi,
unless the known-failures list names it; a listed test that passes on xffi
(the list only shrinks); a listed test that did not pass on the wheel or is
not in the suite (stale); a malformed list. The known-failures list
(known-failures.txt next to this file) has the peer suite's format: `reason:
TEXT` heads a section; every other non-comment line is one test id; ids
sorted within a section.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CRATE = "tvm-ffi"
VERSION = "0.1.15-post2"
DEFAULT_KNOWN = os.path.join(HERE, "known-failures.txt")
RESULT_LINE = re.compile(r"^test (.+?) \.\.\. (ok|FAILED|ignored)\s*$")
RUNNING_LINE = re.compile(r"^\s*(Running|Doc-tests) (\S+)")


# The list has the peer suite's format; its parser and writer serve both.
sys.path.insert(0, os.path.join(HERE, "..", "..", "peer"))
import known_failures  # noqa: E402

CARGO_TEST_ID = re.compile(r"^\S+::\S.*$")


# The reason --write-known gives a failure it has not seen before; a list
# that still holds it is refused, so every checked-in entry says why.
UNEXPLAINED = "UNEXPLAINED"


def parse_known(text):
    """Returns (known, errors): known maps each id to its reason."""
    known, errors = known_failures.parse(text, CARGO_TEST_ID, "TARGET::NAME")
    errors += [f"{test_id}: its reason is still {UNEXPLAINED}: say why it fails" for test_id, reason in known.items()
               if reason == UNEXPLAINED]
    return known, errors


def render_known(reasons):
    return known_failures.render(reasons, [
        f"tvm-ffi's Rust crate (tvm-ffi ={VERSION}) on xffi: tests that pass on the wheel's",
        "runtime but not on xffi's drop-in. The list only shrinks: a listed test that passes",
        "fails the run (tests/clients/tvm_ffi_rust/run.py documents the format).",
    ])


def parse_results(output):
    """Maps each test id of a `cargo test` output to ok, FAILED or ignored."""
    results, target = {}, None
    for line in output.splitlines():
        running = RUNNING_LINE.match(line)
        if running:
            if running.group(1) == "Doc-tests":
                target = "doc"
            else:
                # "Running tests/test_any.rs (target/debug/deps/test_any-HASH)"
                # or "Running unittests src/lib.rs (...)".
                path = running.group(2)
                target = "lib" if path == "unittests" else os.path.splitext(os.path.basename(path))[0]
            continue
        result = RESULT_LINE.match(line)
        if result and target:
            results[f"{target}::{result.group(1)}"] = result.group(2)
    return results


def run(cmd, **kwargs):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, **kwargs)


def fetch_crate(work):
    """Copies the crate's sources to WORK/crate (once per version)."""
    crate = os.path.join(work, "crate")
    stamp = os.path.join(crate, ".fetched-version")
    if os.path.exists(stamp) and open(stamp).read() == VERSION:
        return crate
    probe = os.path.join(work, "fetch")
    os.makedirs(os.path.join(probe, "src"), exist_ok=True)
    with open(os.path.join(probe, "Cargo.toml"), "w") as f:
        f.write(f'[package]\nname = "fetch-tvm-ffi"\nversion = "0.0.0"\nedition = "2021"\n\n'
                f'[dependencies]\n{CRATE} = "={VERSION}"\n\n[workspace]\n')
    open(os.path.join(probe, "src", "lib.rs"), "w").close()
    manifest = os.path.join(probe, "Cargo.toml")
    run(["cargo", "fetch", "--manifest-path", manifest])
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--manifest-path", manifest],
        check=True, capture_output=True, text=True).stdout)
    source = next(os.path.dirname(p["manifest_path"]) for p in meta["packages"]
                  if p["name"] == CRATE and p["version"] == VERSION)
    shutil.rmtree(crate, ignore_errors=True)
    shutil.copytree(source, crate)
    with open(os.path.join(crate, "Cargo.toml"), "a") as f:
        f.write("\n[workspace]\n")
    with open(stamp, "w") as f:
        f.write(VERSION)
    return crate


def wheel_lib_dir():
    out = subprocess.run(["tvm-ffi-config", "--libdir"], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def cargo_test(crate, env, jobs):
    """Runs the whole suite (unit, integration and doc tests); returns
    (results, seconds, output)."""
    start = time.monotonic()
    # One stream: cargo names each test binary on stderr before running it,
    # and the results that follow on stdout are that binary's.
    proc = subprocess.run(["cargo", "test", "--no-fail-fast", "--jobs", str(jobs)], cwd=crate, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = proc.stdout
    return parse_results(output), time.monotonic() - start, output


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runtime", required=True, help="xffi's drop-in libtvm_ffi.so")
    parser.add_argument("--work", default=os.path.join(HERE, "..", "..", "..", "build", "clients", "tvm_ffi_rust"))
    parser.add_argument("--known", default=DEFAULT_KNOWN)
    parser.add_argument("--write-known", metavar="FILE", help="write the failures seen as a list; a new one gets the reason UNEXPLAINED, which the check refuses until a reason replaces it")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("XFFI_JOBS", "2")))
    args = parser.parse_args()

    known, errors = parse_known(open(args.known, encoding="utf-8").read())
    if errors:
        print(f"{args.known}: malformed:\n  " + "\n  ".join(errors))
        return 1
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    crate = fetch_crate(work)

    wheel_dir = wheel_lib_dir()
    lib = os.path.join(work, "lib")
    bin_dir = os.path.join(work, "bin")
    os.makedirs(lib, exist_ok=True)
    os.makedirs(bin_dir, exist_ok=True)
    config = os.path.join(bin_dir, "tvm-ffi-config")
    with open(config, "w") as f:
        f.write(f'#!/bin/sh\n# Stand-in for the wheel\'s tvm-ffi-config: the runtime under test.\n'
                f'case "$1" in --libdir) echo "{lib}" ;; *) exec "{shutil.which("tvm-ffi-config")}" "$@" ;; esac\n')
    os.chmod(config, 0o755)
    testing = os.path.join(lib, "libtvm_ffi_testing.so")
    if os.path.lexists(testing):
        os.remove(testing)
    os.symlink(os.path.join(wheel_dir, "libtvm_ffi_testing.so"), testing)
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"], LD_LIBRARY_PATH=lib,
               CARGO_TARGET_DIR=os.path.join(work, "target"))
    env.pop("RUSTFLAGS", None)

    runs = {}
    for name, runtime in (("wheel", os.path.join(wheel_dir, "libtvm_ffi.so")), ("xffi", args.runtime)):
        target = os.path.join(lib, "libtvm_ffi.so")
        if os.path.lexists(target):
            os.remove(target)
        shutil.copyfile(runtime, target)
        results, seconds, output = cargo_test(crate, env, args.jobs)
        with open(os.path.join(work, f"{name}.log"), "w") as f:
            f.write(output)
        runs[name] = results
        passed = sum(1 for r in results.values() if r == "ok")
        print(f"{name}: {passed} of {len(results)} passed ({seconds:.0f} s; log {work}/{name}.log)", flush=True)

    wheel, xffi = runs["wheel"], runs["xffi"]
    if not wheel:
        print("no test ran on the wheel's runtime: see the log")
        return 1
    passing_on_wheel = {t for t, r in wheel.items() if r == "ok"}
    regressions = sorted(t for t in passing_on_wheel if xffi.get(t) != "ok" and t not in known)
    listed_but_passing = sorted(t for t in known if xffi.get(t) == "ok")
    stale = sorted(t for t in known if t not in passing_on_wheel)
    if args.write_known:
        seen = {t: known.get(t, UNEXPLAINED) for t in passing_on_wheel if xffi.get(t) != "ok"}
        with open(args.write_known, "w", encoding="utf-8") as f:
            f.write(render_known(seen))
        print(f"wrote {len(seen)} ids to {args.write_known}")
    for title, ids in (("passed on the wheel, not on xffi (and not listed)", regressions),
                       ("listed as known failures but passing on xffi: remove them from the list",
                        listed_but_passing),
                       ("listed but not passing on the wheel's runtime (stale)", stale)):
        if ids:
            print(f"{title}: {len(ids)}")
            for t in ids:
                print(f"  {t}: {xffi.get(t, 'no result')}")
    print(f"tvm-ffi's Rust crate: {len(passing_on_wheel)} pass on the wheel; on xffi "
          f"{sum(1 for t in passing_on_wheel if xffi.get(t) == 'ok')} of them pass, {len(known)} known failures")
    return 1 if regressions or listed_but_passing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
