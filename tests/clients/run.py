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
  abi_overview.*   examples/abi_overview/example_code.c, compiled with
                   tvm-ffi-config's flags as its header says, its snippets
                   driven by tests/clients/sdist/abi_overview_drive.c
  python_packaging.* examples/python_packaging: its wheel built as its README
                   says (pip, scikit-build-core, CMake; the build's stub
                   generation loads the library through tvm_ffi) once per
                   runtime, installed, its run_example.py run; the stubs
                   generated on the drop-in equal those generated on the wheel
  inline_module.*  the CPU part of examples/inline_module: its C++ source
                   built by tvm_ffi.cpp.load_inline and called
                   (tests/clients/sdist/inline_cpu.py)
  rust_stubgen.*   examples/rust_stubgen, as its README says, once per runtime:
                   its C++ library built with CMake, whose post-build step runs
                   tvm-ffi-stubgen --target rust on it (the binding file's
                   generated blocks removed first, so the generator writes them
                   again), then its Rust program built with cargo against
                   tvm-ffi =0.1.15-post2 from crates.io (the clients-rust
                   step's cargo home and target directory) and run; the file
                   generated on the drop-in equals the wheel's, and the
                   generator's --check passes on each runtime
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
import re
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


def tvm_ffi_config(option):
    return subprocess.run([sys.executable, "-m", "tvm_ffi.config", option], check=True, capture_output=True,
                          text=True).stdout.split()


def prepare_examples(work, sdist_cache, log):
    sdist = peer.fetch_sdist(sdist_cache)
    trees = {"sdist": sdist}
    for example in ("quickstart", "stable_c_abi", "abi_overview", "inline_module"):
        tree = os.path.join(work, example)
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(os.path.join(sdist, "examples", example), tree)
        trees[example] = tree
    cmake_example(trees["quickstart"], "compile_cpu", log)
    cmake_example(trees["quickstart"], "load_cpp", log)
    cmake_example(trees["stable_c_abi"], "kernel", log)
    cmake_example(trees["stable_c_abi"], "load", log)
    # abi_overview's header: gcc with tvm-ffi-config's flags and its libdir as rpath.
    drive = os.path.join(trees["abi_overview"], "abi_overview_drive")
    cmd = (["gcc"] + tvm_ffi_config("--cflags") + ["-I", trees["abi_overview"],
           os.path.join(HERE, "sdist", "abi_overview_drive.c")] + tvm_ffi_config("--ldflags") +
           tvm_ffi_config("--libs") + [f"-Wl,-rpath,{tvm_ffi_config('--libdir')[0]}", "-o", drive])
    done = sh(cmd, trees["abi_overview"], log=log)
    if done.returncode != 0:
        raise RuntimeError(f"compiling abi_overview failed:\n{done.stderr}")
    return trees


def prepare_python_packaging(work, sdist, overlay, log):
    """examples/python_packaging's wheel, built as its README says (pip builds
    the project with scikit-build-core and CMake; --no-build-isolation so the
    build uses the pinned apache-tvm-ffi and scikit-build-core installed here,
    not the newest on PyPI), once per runtime: the build's stub generation
    loads the built library through tvm_ffi. Each is installed with --no-deps
    into a site of its own. Returns {runtime: (site, stub file, error or None)}."""
    built = {}
    for runtime in ("wheel", "xffi"):
        base = os.path.join(work, "python_packaging", runtime)
        shutil.rmtree(base, ignore_errors=True)
        tree = os.path.join(base, "project")
        shutil.copytree(os.path.join(sdist, "examples", "python_packaging"), tree)
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        if runtime == "xffi":
            env["PYTHONPATH"] = overlay
        site = os.path.join(base, "site")
        error = None
        for cmd in ([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps", "-w",
                     os.path.join(base, "dist"), tree],
                    [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", site, "--find-links",
                     os.path.join(base, "dist"), "--no-index", "my-ffi-extension"]):
            done = sh(cmd, base, env=env, log=log)
            if done.returncode != 0:
                lines = (done.stdout + done.stderr).strip().splitlines()
                error = f"pip {cmd[3]} failed: {lines[-1] if lines else ''}"
                break
        built[runtime] = (site, os.path.join(tree, "python", "my_ffi_extension", "_ffi_api.py"), error)
    return built


RUST_CRATE_PIN = "=0.1.15-post2"
STUBGEN_BINDING = os.path.join("rust", "src", "generated", "rust_stubgen", "mod.rs")


def prepare_rust_stubgen(work, sdist, overlay, log):
    """examples/rust_stubgen built as its README says, once per runtime (the
    drop-in's with the overlay on PYTHONPATH, so CMake's post-build
    tvm-ffi-stubgen runs on it; the program is linked as the other native
    hosts are, and the run picks the runtime by LD_LIBRARY_PATH). The
    binding file starts as the README's skeleton: its directives and
    hand-written code without the generated blocks. The crate comes from
    crates.io instead of the sdist's source tree, which it does not hold.
    Returns {runtime: (tree, program, library directory, error or None)}."""
    built = {}
    # The clients-rust step's target directory holds the crate's dependencies
    # already built; cargo keeps each build apart by its fingerprint.
    target = os.path.join(work, "tvm_ffi_rust", "target")
    if not os.path.isdir(target):
        target = os.path.join(work, "rust_stubgen", "target")
    for runtime in ("wheel", "xffi"):
        tree = os.path.join(work, "rust_stubgen", runtime)
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(os.path.join(sdist, "examples", "rust_stubgen"), tree)
        binding = os.path.join(tree, STUBGEN_BINDING)
        with open(binding) as f:
            text = f.read()
        with open(binding, "w") as f:
            f.write(re.sub(r"// tvm-ffi-stubgen\(begin\): .*?// tvm-ffi-stubgen\(end\)\n", "", text, flags=re.S))
        manifest = os.path.join(tree, "rust", "Cargo.toml")
        with open(manifest) as f:
            text = f.read()
        text = re.sub(r'^tvm-ffi = .*$', f'tvm-ffi = "{RUST_CRATE_PIN}"', text, flags=re.M)
        with open(manifest, "w") as f:
            f.write(text + "\n[workspace]\n")
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        if runtime == "xffi":
            env["PYTHONPATH"] = overlay
        env["CARGO_TARGET_DIR"] = target
        program = os.path.join(tree, "rust_stubgen_example")
        error = None
        for cmd, cwd in ((["cmake", "-B", "build", "-DCMAKE_BUILD_TYPE=Release"], tree),
                         (["cmake", "--build", "build", "-j", os.environ.get("XFFI_JOBS", "2")], tree),
                         (["cargo", "build", "--jobs", os.environ.get("XFFI_JOBS", "2")], os.path.join(tree, "rust")),
                         (["cp", os.path.join(target, "debug", "rust_stubgen_example"), program], tree)):
            done = sh(cmd, cwd, env=env, log=log)
            if done.returncode != 0:
                lines = (done.stdout + done.stderr).strip().splitlines()
                error = f"{' '.join(cmd[:2])} failed: {lines[-1] if lines else ''}"
                break
        libdir = subprocess.run(["tvm-ffi-config", "--libdir"], env=env, capture_output=True,
                                text=True).stdout.strip()
        built[runtime] = (tree, program, libdir, error)
    return built


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
    packaged = prepare_python_packaging(work, trees["sdist"], overlay, log)
    timings["python_packaging (two wheels built, installed)"] = time.monotonic() - start
    start = time.monotonic()
    stubgen = prepare_rust_stubgen(work, trees["sdist"], overlay, log)
    timings["rust_stubgen (two C++ libraries and Rust programs built)"] = time.monotonic() - start
    start = time.monotonic()
    orcjit_site, orcjit_obj = prepare_orcjit(work, log)
    timings["orcjit (install, compile)"] = time.monotonic() - start
    start = time.monotonic()
    tvm_site = prepare_tvm(work, log)
    timings["tvm (install)"] = time.monotonic() - start

    py = sys.executable
    mapped = os.path.join(HERE, "sdist", "mapped.py")
    cases = [
        # id, cwd, command, python?, extra PYTHONPATH (or one per runtime), expected output parts
        ("quickstart.load_numpy", trees["quickstart"], [py, mapped, "load/load_numpy.py"], True, None,
         ["[2. 3. 4. 5. 6.]"]),
        ("quickstart.load_cpp", trees["quickstart"], ["build/load_cpp"], False, None, ["[ 2 3 4 5 6 ]"]),
        ("stable_c_abi.load", trees["stable_c_abi"], ["build/load"], False, None,
         ["[ 2.000000 3.000000 4.000000 5.000000 6.000000 ]"]),
        ("abi_overview.snippets", trees["abi_overview"], ["./abi_overview_drive"], False, None,
         ["abi_overview ok", "ValueError: Expected at least 2 arguments"]),
        # The wheel's run compares its stubs with themselves: it is the reference.
        ("python_packaging.stubgen", work, [py, os.path.join(HERE, "sdist", "same_stubs.py"), packaged["wheel"][1],
         {runtime: packaged[runtime][1] for runtime in packaged}], True, None, ["stubs equal"]),
        ("python_packaging.run_example", os.path.join(trees["sdist"], "examples", "python_packaging"),
         [py, mapped, "run_example.py"], True, {runtime: packaged[runtime][0] for runtime in packaged},
         ["add_two ===========\n3\n", "add_one ===========\n4\n", "RuntimeError: This is an error",
          "a=1\nb=2\nsum=3\n"]),
        ("inline_module.cpu", work, [py, os.path.join(HERE, "sdist", "inline_cpu.py"),
         os.path.join(trees["inline_module"], "main.py")], True, None,
         ["add_one_cpu [2. 3. 4. 5. 6.]", "a 2-D input raised RuntimeError: Check failed: (x.ndim() == 1) is false: "
          "x must be a 1D tensor"]),
        # The wheel's run compares its binding with itself: it is the reference.
        ("rust_stubgen.stubgen", work, [py, os.path.join(HERE, "sdist", "same_stubs.py"),
         os.path.join(stubgen["wheel"][0], STUBGEN_BINDING),
         {runtime: os.path.join(stubgen[runtime][0], STUBGEN_BINDING) for runtime in stubgen}], True, None,
         ["stubs equal"]),
        ("rust_stubgen.stubgen_check", work, [py, mapped, "-m", "tvm_ffi.stub.cli",
         {runtime: os.path.join(stubgen[runtime][0], "rust", "src", "generated") for runtime in stubgen}, "--dlls",
         {runtime: os.path.join(stubgen[runtime][0], "build", "librust_stubgen.so") for runtime in stubgen},
         "--target", "rust", "--check"], True, None, ["runtime ["]),
        ("rust_stubgen.run", work, [{runtime: stubgen[runtime][1] for runtime in stubgen}], False, None,
         ["a=2 b=1 kind=PairKind(0)\nsum=3\n"]),
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
            # A build failed on one runtime fails that runtime's cases.
            if case.startswith("python_packaging.") and packaged[runtime][2]:
                run_command, run_extra = [py, "-c", f"raise SystemExit({packaged[runtime][2]!r})"], None
            elif case.startswith("rust_stubgen.") and stubgen[runtime][3]:
                run_command, run_extra = [py, "-c", f"raise SystemExit({stubgen[runtime][3]!r})"], None
            else:
                run_command = [part[runtime] if isinstance(part, dict) else part for part in command]
                run_extra = extra_path[runtime] if isinstance(extra_path, dict) else extra_path
            # load_inline's cache, fresh per run, so each runtime compiles its own module.
            env["TVM_FFI_CACHE_DIR"] = os.path.join(work, "tvm-ffi-cache", runtime)
            shutil.rmtree(env["TVM_FFI_CACHE_DIR"], ignore_errors=True)
            paths = ([overlay] if runtime == "xffi" and is_python else []) + ([run_extra] if run_extra else [])
            if paths:
                env["PYTHONPATH"] = os.pathsep.join(paths)
            else:
                env.pop("PYTHONPATH", None)
            if runtime == "xffi" and not is_python:
                env["LD_LIBRARY_PATH"] = dropin_dir
            elif case == "rust_stubgen.run":
                # Its README runs it with `cargo run`, which finds the library
                # where tvm-ffi-config --libdir points; the program has no RUNPATH.
                env["LD_LIBRARY_PATH"] = stubgen[runtime][2]
            began = time.monotonic()
            done = sh(run_command, cwd, env=env, log=log)
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
                    ldd = sh(["ldd", run_command[0]], cwd, env=env).stdout
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
