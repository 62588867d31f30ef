"""Loads C plugins built out of tree against an installed xffi (the package
step of scripts/test.sh) on the runtimes a process may have, and checks what
the library carries:

    python3 tests/install/check_plugin.py --libdir PREFIX/lib --overlay DIR
        --c-host FILE [--rust-host FILE] [--shipped] PLUGIN.so...

Each PLUGIN.so is tests/plugin_matrix/c_plugin.c built by a plugin author's
recipe (xffi_add_plugin, or pkg-config's xffi-plugin). For each one:
- its ELF entries: it needs libxffi.so (the shared library, found through its
  own rpath in --libdir) and not libtvm_ffi.so, and exports only the
  __tvm_ffi_* functions and xffi's ABI marker; with --shipped, a plugin that
  ships its own libxffi.so.0 beside itself (docs/guide-c-plugin.md): its only
  rpath is $ORIGIN, and the loader resolves libxffi.so.0 to the file beside
  it, not to --libdir's;
- the plugin matrix's C checks (tests/plugin_matrix: typed calls, errors
  arriving as ValueError, the type found by key with register_object, its
  fields, methods, repr, JSON graph, global functions) in one Python process
  on the wheel's runtime, one on the overlay (--overlay: tvm_ffi on xffi's
  drop-in), in the C host on the drop-in (--c-host, a process per check) and
  in the plugin matrix's Rust host (--rust-host: its runtime bundled and
  exported; a process per check).
Prints one line per arrangement; exits 1 when any check fails."""
import argparse
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
MATRIX = HERE.parent / "plugin_matrix"
sys.path.insert(0, str(MATRIX))
from run import CHECKS  # noqa: E402 (the matrix's list of the C plugin's checks)

TIMEOUT = 120


def shipped_problems(plugin, paths):
    """What is wrong with a plugin that ships libxffi.so.0 beside itself:
    its rpath (paths, the RPATH/RUNPATH entries) and what the loader finds."""
    problems = []
    if paths != ["$ORIGIN"]:
        problems.append(f"its rpath is {paths}, not [$ORIGIN] alone")
    beside = plugin.parent / "libxffi.so.0"
    if not beside.is_file():
        problems.append(f"no {beside.name} beside it")
    found = [line.split("=>", 1)[1].split("(")[0].strip()
             for line in subprocess.run(["ldd", str(plugin)], capture_output=True, text=True).stdout.splitlines()
             if line.strip().startswith("libxffi.so") and "=>" in line]
    if [pathlib.Path(p).resolve() for p in found] != [beside.resolve()]:
        problems.append(f"the loader resolves libxffi.so.0 to {found}, not to {beside}")
    return problems


def elf_problems(plugin, libdir, shipped):
    """What is wrong with the plugin's dynamic section and exports."""
    dynamic = subprocess.run(["readelf", "-d", str(plugin)], capture_output=True, text=True, check=True).stdout
    needed = [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]
    paths = [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "PATH)" in line]
    problems = []
    if not any(name.startswith("libxffi.so") for name in needed):
        problems.append(f"does not need libxffi.so (needs {needed})")
    if any(name.startswith("libtvm_ffi.so") for name in needed):
        problems.append(f"needs libtvm_ffi.so (needs {needed})")
    if shipped:
        problems += shipped_problems(plugin, [p for entry in paths for p in entry.split(":")])
    elif not any(pathlib.Path(p).resolve() == libdir for entry in paths for p in entry.split(":")):
        problems.append(f"its rpath {paths} does not name {libdir}")
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(plugin)], capture_output=True, text=True,
                             check=True).stdout.split("\n")
    exported = [line.split()[-1] for line in symbols if line.strip()]
    stray = [s for s in exported if not s.startswith("__tvm_ffi_") and s != "xffi_library_abi_version"]
    if stray:
        problems.append(f"exports more than its functions and ABI marker: {stray[:5]}")
    return problems


def python_client(plugin):
    """Runs in the child process: every check in turn, in this process."""
    import python_client as client  # the matrix's checks
    import tvm_ffi

    lib = tvm_ffi.load_module(plugin)
    for check in CHECKS["c"]:
        try:
            client.CHECKS[check](lib, client.KEYS["c"])
        except Exception as e:  # noqa: BLE001 (reported with the check's name)
            sys.exit(f"{check}: {type(e).__name__}: {e}")
    print("ok")


def run(command, env=None):
    """'' when the command printed ok, else what went wrong."""
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"no answer in {TIMEOUT} s"
    if done.returncode == 0 and done.stdout.strip().endswith("ok"):
        return ""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return (lines[-1] if lines else "") + f" (exit status {done.returncode})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--libdir", type=pathlib.Path)
    parser.add_argument("--overlay", type=pathlib.Path)
    parser.add_argument("--c-host", type=pathlib.Path)
    parser.add_argument("--rust-host", type=pathlib.Path)
    parser.add_argument("--shipped", action="store_true", help="the plugins carry libxffi.so.0 beside them")
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("plugins", nargs="+", type=pathlib.Path)
    args = parser.parse_args()
    if args.client:
        return python_client(str(args.plugins[0]))
    if not (args.libdir and args.overlay and args.c_host):
        parser.error("--libdir, --overlay and --c-host are required")
    failures = 0
    for plugin in args.plugins:
        plugin = plugin.resolve()
        outcomes = {"ELF entries": "; ".join(elf_problems(plugin, args.libdir.resolve(), args.shipped))}
        for runtime in ("wheel", "overlay"):
            env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
            if runtime == "overlay":
                env["PYTHONPATH"] = str(args.overlay.resolve())
            outcomes[f"python on {runtime}"] = run([sys.executable, __file__, "--client", str(plugin)], env)
        hosts = {"c-host on the drop-in": args.c_host, "rust-host on its bundled runtime": args.rust_host}
        for arrangement, host in hosts.items():
            if host:
                host_failures = [f"{check}: {problem}" for check in CHECKS["c"]
                                 if (problem := run([str(host), "c", str(plugin), check]))]
                outcomes[arrangement] = "; ".join(host_failures)
        for arrangement, problem in outcomes.items():
            print(f"{plugin.name}: {arrangement}: {'FAIL ' + problem if problem else 'pass'}")
            failures += bool(problem)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
