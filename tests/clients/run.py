#!/usr/bin/env python3
"""tvm-ffi's clients on xffi's runtime: software others wrote against tvm-ffi,
installed as its users install it, run on the wheel's runtime and then on
xffi's drop-in libtvm_ffi.so (docs/tvm-ffi.md, "tvm-ffi's clients").

  tests/clients/run.py [--work DIR] [--runtime FILE] [--sdist-cache DIR] [--only ID...]

Clients (each case runs on both runtimes; its id is CLIENT.CASE):
  quickstart.*     the pinned sdist's examples/quickstart: add_one_cpu.so built
                   with its CMake, loaded from NumPy (load_numpy) and from a C++
                   host (load_cpp: Module::LoadFromFile, mod->GetFunction)
  stable_c_abi.*   examples/stable_c_abi: a C kernel library and a C host
  orcjit.*         apache-tvm-ffi-orcjit 0.1.3 (PyPI, --no-deps beside the
                   installed apache-tvm-ffi): its README usage on an object file
                   (tests/clients/orcjit/): load, call, an error coming back
  tvm.*            apache-tvm 0.27.0.post1 (PyPI, --no-deps, plus ml_dtypes):
                   import tvm and a TE add-one through tvm.compile(target="llvm"),
                   a Relax function through relax.VirtualMachine,
                   tvm.ir.assert_structural_equal (tests/clients/tvm/job.py)

On xffi's runtime a Python case runs with the overlay of
scripts/tvm-ffi-on-xffi.sh on PYTHONPATH, a native host with the drop-in's
directory on LD_LIBRARY_PATH (it precedes the RUNPATH that names the wheel's
library); each checks that only the drop-in is mapped. known-failures.txt
beside this file lists the cases (id and runtime) that fail today, with a
reason: one of them passing fails the run (take it off the list), so the list
only shrinks. --work (default build/clients) keeps the sdist, the builds and
the installed client between runs. Prints one line per case and run, the time
each client took to install and build, and "N passed, N failed"; exits 1 on
any failure that is not listed."""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "peer"))
# The peer suite's runner fetches and checks the pinned sdist once.
_spec = importlib.util.spec_from_file_location("peer_run", os.path.join(ROOT, "tests", "peer", "run.py"))
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)

ORCJIT_PIN = "apache-tvm-ffi-orcjit==0.1.3"
TVM_PINS = ["apache-tvm==0.27.0.post1", "ml_dtypes"]


def sh(cmd, cwd, env=None, log=None):
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if log is not None:
        log.write(f"$ {' '.join(cmd)}  (in {cwd})\n{done.stdout}{done.stderr}\n")
    return done


def cmake_example(tree, name, log):
    """Configures and builds one EXAMPLE_NAME of an sdist example, as its
    run_all script does; raises on failure."""
    for cmd in (["cmake", ".", "-B", "build", f"-DEXAMPLE_NAME={name}", "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                ["cmake", "--build", "build", "-j", os.environ.get("XFFI_JOBS", "2")]):
        done = sh(cmd, tree, log=log)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed in {tree}:\n{done.stdout}{done.stderr}")


def prepare_examples(work, sdist_cache, log):
    sdist = peer.fetch_sdist(sdist_cache)
    trees = {}
    for example in ("quickstart", "stable_c_abi"):
        tree = os.path.join(work, example)
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(os.path.join(sdist, "examples", example), tree)
        trees[example] = tree
    cmake_example(trees["quickstart"], "compile_cpu", log)
    cmake_example(trees["quickstart"], "load_cpp", log)
    cmake_example(trees["stable_c_abi"], "kernel", log)
    cmake_example(trees["stable_c_abi"], "load", log)
    return trees


def prepare_orcjit(work, log):
    site = os.path.join(work, "orcjit", "site")
    if not os.path.isdir(os.path.join(site, "tvm_ffi_orcjit")):
        done = sh([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", site, ORCJIT_PIN], work,
                  log=log)
        if done.returncode != 0:
            raise RuntimeError(f"pip install {ORCJIT_PIN} failed:\n{done.stderr}")
    include = subprocess.run([sys.executable, "-m", "tvm_ffi.config", "--includedir"], check=True,
                             capture_output=True, text=True).stdout.strip()
    obj = os.path.join(work, "orcjit", "example.o")
    done = sh(["c++", "-std=c++17", "-O2", "-fPIC", "-c", os.path.join(HERE, "orcjit", "example.cc"), "-I", include,
               "-o", obj], work, log=log)
    if done.returncode != 0:
        raise RuntimeError(f"compiling the orcjit example failed:\n{done.stderr}")
    return site, obj


def prepare_tvm(work, log):
    """apache-tvm as its users install it beside the installed apache-tvm-ffi
    (--no-deps: its other dependencies are not needed for these jobs), plus
    ml_dtypes (itself --no-deps: it needs only numpy)."""
    site = os.path.join(work, "tvm", "site")
    if not os.path.isdir(os.path.join(site, "tvm")):
        done = sh([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", site] + TVM_PINS, work,
                  log=log)
        if done.returncode != 0:
            raise RuntimeError(f"pip install {TVM_PINS} failed:\n{done.stderr}")
    return site


def read_known_failures():
    known = {}
    with open(os.path.join(HERE, "known-failures.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                case, runtime, reason = line.split(None, 2)
                known[(case, runtime)] = reason
    return known


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", default=os.path.join(ROOT, "build", "clients"))
    parser.add_argument("--runtime", help="the drop-in to test (default: scripts/tvm-ffi-on-xffi.sh builds one)")
    parser.add_argument("--sdist-cache", default=os.path.join(ROOT, "build", "peer", "sdist"),
                        help="where the pinned sdist is kept (default: the peer suite's, so it is fetched once)")
    parser.add_argument("--only", nargs="*", default=None, help="case ids to run")
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    log = open(os.path.join(work, "clients.log"), "w")

    overlay = os.path.join(work, "overlay")
    cmd = [os.path.join(ROOT, "scripts", "tvm-ffi-on-xffi.sh")] + (["--runtime", args.runtime] if args.runtime else [])
    subprocess.run(cmd + [overlay], check=True, stdout=subprocess.DEVNULL)
    dropin_dir = os.path.join(overlay, "tvm_ffi", "lib")

    timings = {}
    start = time.monotonic()
    trees = prepare_examples(work, os.path.abspath(args.sdist_cache), log)
    timings["sdist examples (fetch, build)"] = time.monotonic() - start
    start = time.monotonic()
    orcjit_site, orcjit_obj = prepare_orcjit(work, log)
    timings["orcjit (install, compile)"] = time.monotonic() - start
    start = time.monotonic()
    tvm_site = prepare_tvm(work, log)
    timings["tvm (install)"] = time.monotonic() - start

    py = sys.executable
    cases = [
        # id, cwd, command, python?, extra PYTHONPATH, expected output parts
        ("quickstart.load_numpy", trees["quickstart"], [py, "load/load_numpy.py"], True, None, ["[2. 3. 4. 5. 6.]"]),
        ("quickstart.load_cpp", trees["quickstart"], ["build/load_cpp"], False, None, ["[ 2 3 4 5 6 ]"]),
        ("stable_c_abi.load", trees["stable_c_abi"], ["build/load"], False, None,
         ["[ 2.000000 3.000000 4.000000 5.000000 6.000000 ]"]),
        ("orcjit.readme_usage", work, [py, os.path.join(HERE, "orcjit", "readme_usage.py"), orcjit_obj], True,
         orcjit_site, ["add(1, 2) = 3", "fail(7) raised ValueError: bad value 7", "kind orcjit implements add True"]),
    ] + [(f"tvm.{part}", work, [py, os.path.join(HERE, "tvm", "job.py"), part], True, tvm_site, [f"{part} ok"])
         for part in ("te_add_one", "relax_vm", "assert_structural_equal")]
    known = read_known_failures()
    passed = failed = 0
    for case, cwd, command, is_python, extra_path, expected in cases:
        if args.only is not None and case not in args.only:
            continue
        for runtime in ("wheel", "xffi"):
            env = dict(os.environ)
            paths = ([overlay] if runtime == "xffi" and is_python else []) + ([extra_path] if extra_path else [])
            if paths:
                env["PYTHONPATH"] = os.pathsep.join(paths)
            else:
                env.pop("PYTHONPATH", None)
            if runtime == "xffi" and not is_python:
                env["LD_LIBRARY_PATH"] = dropin_dir
            began = time.monotonic()
            done = sh(command, cwd, env=env, log=log)
            took = time.monotonic() - began
            output = done.stdout + done.stderr
            why = None
            if done.returncode != 0:
                why = f"exit {done.returncode}: {output.strip().splitlines()[-1] if output.strip() else ''}"
            else:
                why = next((f"no '{part}' in its output" for part in expected if part not in output), None)
            if why is None and runtime == "xffi":
                if is_python and "runtime [" in output and dropin_dir not in output:
                    why = "the drop-in is not the runtime mapped"
                if not is_python:
                    ldd = sh(["ldd", command[0]], cwd, env=env).stdout
                    if os.path.join(dropin_dir, "libtvm_ffi.so") not in ldd:
                        why = "libtvm_ffi.so does not resolve to the drop-in"
            listed = known.get((case, runtime))
            if why is None and listed:
                failed += 1
                print(f"FIXED  {case} [{runtime}] passes but is listed in known-failures.txt: take it off")
            elif why is None:
                passed += 1
                print(f"pass   {case} [{runtime}] {took:.1f} s")
            elif listed:
                passed += 1
                print(f"known  {case} [{runtime}] fails as listed ({listed}): {why}")
            else:
                failed += 1
                print(f"FAIL   {case} [{runtime}]: {why}")
    for what, seconds in timings.items():
        print(f"time   {what}: {seconds:.1f} s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
