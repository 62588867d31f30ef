"""The plugin matrix: xffi's C and Rust plugins on each runtime a process may
have, each check in a process of its own (README.md in this folder).

    python3 tests/plugin_matrix/run.py --build build/release [--overlay DIR]
        [--rust-plugin FILE] [--rust-host FILE] [--rust-host-unexported FILE]
        [--tvm-rust-plugin FILE] [--older-rust-plugin FILE]
        [--known tests/plugin_matrix/known-failures.txt]

--build is a release build of this tree (its libtvm_ffi.so drop-in, the C
plugin and the C host, targets xffi_matrix_c_plugin and xffi_matrix_c_host). The Rust plugin is built with cargo
(default features) unless --rust-plugin names one, and so is the Rust host
(rust_host/, the xffi crate at default features) unless --rust-host names
one, the same host without the build.rs line that exports its runtime
(rust_host/build.rs, XFFI_MATRIX_HOST_UNEXPORTED; built into TARGET/
matrix-unexported) unless --rust-host-unexported names one, and the tvm-ffi
Rust-crate plugin of the `together` check
(tvm_rust_plugin/, outside the workspace, built into its target directory)
unless --tvm-rust-plugin names one, and the plugin of an older xffi
(older_rust_plugin/ on the xffi crate of commit OLDER_XFFI_COMMIT, taken
from this clone's history with git archive) unless --older-rust-plugin
names one. The overlay (tvm_ffi's
package on the drop-in) is written to --overlay, default BUILD/ovl-plugins.

Prints the matrix (arrangement x check: pass, FAIL, CRASH or TIMEOUT) and
fails when a check that is not in the known-failures list does not pass,
when a listed one passes (the list only shrinks), or when the list names a
cell or check the matrix does not have."""
import argparse
import io
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tarfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
CLIENT = HERE / "python_client.py"

COMMON_CHECKS = ["functions", "error", "function_value_error", "type_by_key", "object_type", "fields", "methods",
                 "repr", "json_graph"]
# The process's global function registry, which the plugin's globals go to and come from.
COMMON_CHECKS += ["global_registered", "global_lookup"]
CHECKS = {"c": COMMON_CHECKS, "rust": COMMON_CHECKS[:2] + ["panic"] + COMMON_CHECKS[2:3] +
          ["function_value_panic"] + COMMON_CHECKS[3:]}
# The C plugin's direct Function (Rust closures are direct Functions already).
CHECKS["c"] = CHECKS["c"] + ["direct_function_value_error"]
# wheel: Python with the wheel's runtime; overlay: Python with tvm_ffi on the
# drop-in; c-host: a C program linked to the drop-in (c_host.c); rust-host: a
# Rust program on the xffi crate, its runtime bundled (rust_host/).
RUNTIMES = ["wheel", "overlay", "c-host", "rust-host"]
# The check of many plugins in one process (python_client.py check_together).
TOGETHER_RUNTIMES = ["wheel", "overlay"]
# One plugin loaded twice in one Python process: the same path again, and a
# copy at another path (python_client.py check_loaded_twice, check_copied).
TWICE_CHECKS = ["loaded_twice", "copied"]
# Each plugin of the together process (the reader: the xffi plugins, the
# tvm-ffi Rust-crate plugin, the older xffi's plugin) on every plugin's type
# and objects (python_client.py check_types_of_others, check_fields_of_others).
OTHERS_READERS = ["c", "rust", "tvmrust", "older"]
OTHERS_CHECKS = ["types_of_others", "fields_of_others"]
# The xffi of the older plugin: a commit that has the binding to the process's
# runtime (global functions shared, types only that runtime knows found by
# key), before the error entry points were found once, the runtime pinned,
# type schemas in derived metadata, and the other changes since.
OLDER_XFFI_COMMIT = "4e90bffd64a58de497f6e4315a72f50345458804"
# Objects of types only the process registered (a C++ library's, a
# Python-defined one) read by the plugin (python_client.py check_process_types).
PROCESS_TYPE_RUNTIMES = ["wheel", "overlay"]
TIMEOUT = 120
# A Rust host that does not export its runtime (no build.rs line): loading a
# plugin that brings a runtime of its own is refused, naming the line.
UNEXPORTED = "rust-host-unexported"
REFUSAL = "DEP_XFFI_HOST_LINK_ARG"


def read_known(path):
    """{id: reason} from the list: a `reason: ...` line heads each section;
    each other line is one id, plugin/runtime/check; # starts a comment."""
    known, reason = {}, None
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("reason:"):
            reason = line[len("reason:"):].strip()
            continue
        if reason is None:
            sys.exit(f"{path}:{number}: an id before any 'reason:' line")
        if line in known:
            sys.exit(f"{path}:{number}: {line} is listed twice")
        known[line] = reason
    return known


def build_rust(packages):
    """Builds the cargo packages (debug), for the files the caller names."""
    command = ["cargo", "build", "--quiet", "--jobs", os.environ.get("XFFI_JOBS", "2")]
    for package in packages:
        command += ["-p", package]
    subprocess.run(command, cwd=ROOT, check=True)
    return pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug"


def build_unexported_host():
    """Builds rust_host/ (debug) without its build.rs line, into a target
    directory of its own (the flag would otherwise rebuild the usual host
    each time), and returns the program."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "matrix-unexported"
    subprocess.run(["cargo", "build", "--quiet", "--jobs", os.environ.get("XFFI_JOBS", "2"), "-p",
                    "xffi-matrix-rust-host"], cwd=ROOT, check=True,
                   env=dict(os.environ, CARGO_TARGET_DIR=str(target), XFFI_MATRIX_HOST_UNEXPORTED="1"))
    return target / "debug" / "xffi-matrix-rust-host"


def run_refused(plugin, path, host):
    """The unexported host loading the plugin: 'pass' when Module::load
    refuses it naming the build.rs line, as run_check reports."""
    try:
        done = subprocess.run([str(host), plugin, str(path), "functions"], capture_output=True, text=True,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "TIMEOUT", f"no answer in {TIMEOUT} s"
    if done.returncode < 0:
        return "CRASH", signal.Signals(-done.returncode).name
    if done.returncode != 0 and REFUSAL in done.stderr:
        return "pass", ""
    if done.returncode == 0:
        return "FAIL", "loaded and ran, on a runtime of its own: not refused"
    return "FAIL", (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]


def build_tvm_rust_plugin():
    """Builds tvm_rust_plugin/ (debug) into the workspace's target directory
    (its own workspace, so cargo keeps its build apart) and returns the .so."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(["cargo", "build", "--quiet", "--jobs", os.environ.get("XFFI_JOBS", "2"), "--manifest-path",
                    str(HERE / "tvm_rust_plugin" / "Cargo.toml")],
                   cwd=ROOT, env=dict(os.environ, CARGO_TARGET_DIR=str(target)), check=True)
    return target / "debug" / "libtvm_ffi_matrix_rust_plugin.so"


def has_commit(commit):
    """Whether this clone has commit (its tree included)."""
    return subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", commit + "^{tree}"],
                          capture_output=True).returncode == 0


def build_older_rust_plugin(build):
    """Builds older_rust_plugin/ (debug) on the xffi crate of OLDER_XFFI_COMMIT
    into the workspace's target directory and returns the .so. The commit's
    crates come from this clone's history (git archive), written once to
    BUILD/older-rust-plugin/xffi; the plugin's folder is copied beside it."""
    if not has_commit(OLDER_XFFI_COMMIT):
        # A shallow clone (CI checkouts often are) lacks it: fetch that one
        # commit from where the clone came from.
        fetched = subprocess.run(["git", "-C", str(ROOT), "fetch", "--quiet", "--no-tags", "--depth=1", "origin",
                                  OLDER_XFFI_COMMIT], capture_output=True, text=True)
        if not has_commit(OLDER_XFFI_COMMIT):
            sys.exit(f"commit {OLDER_XFFI_COMMIT} (the older xffi of the plugin matrix's older_rust_plugin) is not "
                     f"in {ROOT}'s history, and fetching it from origin failed ({fetched.stderr.strip()}): run the "
                     f"matrix in a clone with full history (git fetch --unshallow)")
    place = build / "older-rust-plugin"
    source = place / "xffi"
    stamp = source / "COMMIT"
    if not stamp.exists() or stamp.read_text().strip() != OLDER_XFFI_COMMIT:
        shutil.rmtree(source, ignore_errors=True)
        source.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", OLDER_XFFI_COMMIT, "Cargo.toml", "Cargo.lock",
                                  "rust", "c", "include"], capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            # The "tar" filter where this Python has one (3.11.4 and later).
            tar.extractall(source, **({"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}))
        stamp.write_text(OLDER_XFFI_COMMIT + "\n")
    plugin = place / "plugin"
    shutil.copytree(HERE / "older_rust_plugin", plugin, dirs_exist_ok=True)
    if not (plugin / "Cargo.lock").exists():  # the commit's dependency versions
        shutil.copy(source / "Cargo.lock", plugin / "Cargo.lock")
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(["cargo", "build", "--quiet", "--jobs", os.environ.get("XFFI_JOBS", "2"), "--manifest-path",
                    str(plugin / "Cargo.toml")],
                   cwd=ROOT, env=dict(os.environ, CARGO_TARGET_DIR=str(target)), check=True)
    return target / "debug" / "libxffi_matrix_older_rust_plugin.so"


def environment(runtime, overlay):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if runtime == "overlay":
        env["PYTHONPATH"] = str(overlay)
    return env


def run_check(plugin, path, runtime, check, overlay, hosts):
    """(outcome, first line of what went wrong)."""
    command = [str(hosts[runtime])] if runtime in hosts else [sys.executable, str(CLIENT)]
    try:
        done = subprocess.run(command + [plugin, str(path), check], env=environment(runtime, overlay),
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "TIMEOUT", f"no answer in {TIMEOUT} s"
    if done.returncode == 0 and done.stdout.strip().endswith("ok"):
        return "pass", ""
    lines = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith(" ")]
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        tail = next((line for line in reversed(lines) if "Error" in line or "abort" in line.lower()), "")
        return "CRASH", f"{name} {tail}".strip()
    return "FAIL", lines[-1] if lines else f"exit status {done.returncode}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", required=True, type=pathlib.Path)
    parser.add_argument("--overlay", type=pathlib.Path)
    parser.add_argument("--rust-plugin", type=pathlib.Path)
    parser.add_argument("--rust-host", type=pathlib.Path)
    parser.add_argument("--rust-host-unexported", type=pathlib.Path)
    parser.add_argument("--tvm-rust-plugin", type=pathlib.Path)
    parser.add_argument("--older-rust-plugin", type=pathlib.Path)
    parser.add_argument("--known", type=pathlib.Path, default=HERE / "known-failures.txt")
    args = parser.parse_args()
    build = args.build.resolve()
    c_plugin = build / "tests" / "libxffi_matrix_c_plugin.so"
    c_host = build / "tests" / "xffi_matrix_c_host"
    for target in (c_plugin, c_host):
        if not target.exists():
            sys.exit(f"{target} is missing: build the targets xffi_matrix_c_plugin and xffi_matrix_c_host in {build}")
    overlay = (args.overlay or build / "ovl-plugins").resolve()
    subprocess.run(["bash", str(ROOT / "scripts/tvm-ffi-on-xffi.sh"), "--runtime", str(build / "libtvm_ffi.so"),
                    str(overlay)], check=True, stdout=subprocess.DEVNULL)
    packages = [p for p, given in (("xffi-matrix-rust-plugin", args.rust_plugin),
                                   ("xffi-matrix-rust-host", args.rust_host)) if not given]
    cargo_out = build_rust(packages) if packages else None
    plugins = {"c": c_plugin, "rust": args.rust_plugin or cargo_out / "libxffi_matrix_rust_plugin.so"}
    hosts = {"c-host": c_host, "rust-host": args.rust_host or cargo_out / "xffi-matrix-rust-host"}
    known = read_known(args.known)

    outcomes = {}
    for plugin, path in plugins.items():
        for runtime in RUNTIMES:
            for check in CHECKS[plugin]:
                outcomes[f"{plugin}/{runtime}/{check}"] = run_check(plugin, path, runtime, check, overlay, hosts)

    # Many plugins, one runtime: both plugins, a tvm-ffi C++ plugin and a tvm-ffi
    # Rust-crate plugin in one Python process.
    tvm_rust_plugin = args.tvm_rust_plugin or build_tvm_rust_plugin()
    # and the plugin of an older xffi, with its own copy of that xffi.
    older_rust_plugin = args.older_rust_plugin or build_older_rust_plugin(build)
    together = os.pathsep.join([str(plugins[kind]) for kind in ("c", "rust")] + [str(tvm_rust_plugin)] +
                               [str(older_rust_plugin)])
    for runtime in TOGETHER_RUNTIMES:
        outcomes[f"together/{runtime}/together"] = run_check("together", together, runtime, "together", overlay, hosts)
    for reader in OTHERS_READERS:
        for runtime in TOGETHER_RUNTIMES:
            for check in OTHERS_CHECKS:
                outcomes[f"{reader}/{runtime}/{check}"] = run_check(reader, together, runtime, check, overlay, hosts)

    for plugin, path in plugins.items():
        for runtime in TOGETHER_RUNTIMES:
            for check in TWICE_CHECKS:
                outcomes[f"{plugin}/{runtime}/{check}"] = run_check(plugin, path, runtime, check, overlay, hosts)

    unexported = args.rust_host_unexported or build_unexported_host()
    for plugin, path in plugins.items():
        outcomes[f"{plugin}/{UNEXPORTED}/refused"] = run_refused(plugin, path, unexported)
    for plugin, path in plugins.items():
        for runtime in PROCESS_TYPE_RUNTIMES:
            outcomes[f"{plugin}/{runtime}/process_types"] = run_check(plugin, path, runtime, "process_types", overlay,
                                                                       hosts)

    width = max(len(c) for c in CHECKS["rust"])
    for plugin in plugins:
        for runtime in RUNTIMES:
            cell = [(check, outcomes[f"{plugin}/{runtime}/{check}"][0]) for check in CHECKS[plugin]]
            passed = sum(outcome == "pass" for _, outcome in cell)
            print(f"{plugin} plugin on {runtime}: {passed}/{len(cell)} checks pass")
            for check, outcome in cell:
                detail = outcomes[f"{plugin}/{runtime}/{check}"][1]
                listed = " (known)" if f"{plugin}/{runtime}/{check}" in known else ""
                print(f"  {check:<{width}} {outcome}{listed}  {detail}"[:200].rstrip())

    def report(cell_id, label):
        """One line: the label, the cell's outcome (known when listed) and its detail."""
        outcome, detail = outcomes[cell_id]
        listed = " (known)" if cell_id in known else ""
        print(f"{label}: {outcome}{listed}  {detail}"[:200].rstrip())

    for runtime in TOGETHER_RUNTIMES:
        report(f"together/{runtime}/together",
               f"c, rust, tvm-ffi C++, tvm-ffi Rust-crate and older xffi plugins together on {runtime}")
    for reader in OTHERS_READERS:
        for runtime in TOGETHER_RUNTIMES:
            for check in OTHERS_CHECKS:
                report(f"{reader}/{runtime}/{check}",
                       f"{reader} plugin on the together plugins' {check.replace('_of_others', '')} on {runtime}")
    for plugin in plugins:
        for runtime in TOGETHER_RUNTIMES:
            for check in TWICE_CHECKS:
                report(f"{plugin}/{runtime}/{check}", f"{plugin} plugin {check.replace('_', ' ')} on {runtime}")
    for plugin in plugins:
        report(f"{plugin}/{UNEXPORTED}/refused", f"{plugin} plugin refused by a Rust host that does not export its runtime")
        for runtime in PROCESS_TYPE_RUNTIMES:
            report(f"{plugin}/{runtime}/process_types", f"{plugin} plugin on types only the process has, on {runtime}")

    problems = []
    for cell_id, (outcome, detail) in outcomes.items():
        if outcome != "pass" and cell_id not in known:
            problems.append(f"{cell_id}: {outcome} and not in the known-failures list: {detail}")
        if outcome == "pass" and cell_id in known:
            problems.append(f"{cell_id}: passes but is listed as a known failure (take it off the list)")
    problems += [f"{cell_id}: listed, but the matrix has no such check" for cell_id in known if cell_id not in outcomes]
    total = len(outcomes)
    print(f"matrix: {sum(o == 'pass' for o, _ in outcomes.values())}/{total} checks pass, "
          f"{len(known)} listed as known failures")
    for problem in problems:
        print("problem:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
