#!/usr/bin/env python3
"""Checks the libtvm_ffi.so drop-in (issue 15, docs/tvm-ffi.md), as ctest runs it.

  check_dropin.py properties DROPIN LIBXFFI LOAD_ALLOCS REFERENCE_LIB [--no-size] [--control LIB]
      SONAME libtvm_ffi.so; NEEDED only libc (and the loader, libpthread,
      libdl that threads and dl need on older glibc); <= 400 KB stripped
      (--no-size under sanitizers, whose instrumentation is not the
      product); the same xffi_* exports as libxffi, which exports nothing else; no relocation binds a
      call to one of its own exported functions through the global scope
      (-Bsymbolic-functions); no heap allocation of its own when loaded
      (as many as the reference library: the dynamic loader's own). The
      count is checked to see allocations at all: the reference library's
      must be above 0 (the loader allocates for every object it maps), and
      LIB of --control (the wheel's libtvm_ffi.so, whose C++ initialisers
      allocate thousands of times) must count more than the reference.
  check_dropin.py abi DROPIN TVM_FFI_H
      every TVMFFI* function declared in include/xffi/tvm_ffi.h is defined
      and exported (the 50 functions of tvm-ffi 0.1.15's libtvm_ffi.so).
  check_dropin.py cxx DROPIN C_PART WHEEL_LIB
      the C++ half (c/compat/cxx/): DROPIN (with it) exports every tvm::ffi
      C++ function, vtable and type info that WHEEL_LIB (the wheel's
      libtvm_ffi.so) exports, but the wheel's internal static variables
      (CXX_INTERNAL); it exports the same xffi_* and TVMFFI* as C_PART (the
      drop-in without it) and no other C++ name of its own; NEEDED adds the C++
      runtime only. Prints the C++ part's stripped size (DROPIN less C_PART).

Needs binutils (readelf, nm, strip). Prints what it measured; exits 1 on any failed check."""
import os
import re
import subprocess
import sys
import tempfile

SIZE_LIMIT = 400 * 1024
ALLOWED_NEEDED = re.compile(r"^(libc\.so\.\d+|ld-linux[-\w.]*\.so\.\d+|libpthread\.so\.0|libdl\.so\.2)$")


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def dynamic_entries(lib, tag):
    return re.findall(r"\(" + tag + r"\)\s+[^[]*\[([^\]]*)\]", run("readelf", "-d", lib))


def defined_symbols(lib):
    """name -> nm type letter of the dynamic symbols lib defines."""
    out = {}
    for line in run("nm", "-D", "--defined-only", lib).splitlines():
        parts = line.split()
        if len(parts) == 3:
            out[parts[2].split("@")[0]] = parts[1]
    return out


def stripped_size(lib):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stripped.so")
        run("strip", "-o", out, lib)
        return os.path.getsize(out)


def self_bound_calls(lib, functions):
    """Relocations naming one of lib's own exported functions: without
    -Bsymbolic-functions each call to it would be bound at run time, to
    whichever library of the process defines the name first."""
    found = set()
    for line in run("readelf", "-r", "-W", lib).splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[0][:1].isalnum() and fields[4].split("@")[0] in functions:
            found.add(fields[4].split("@")[0])
    return sorted(found)


class CountFailed(Exception):
    pass


def allocations(load_allocs, lib):
    done = subprocess.run([load_allocs, lib], capture_output=True, text=True)
    if done.returncode != 0:
        raise CountFailed(f"{os.path.basename(load_allocs)} {lib} failed (exit {done.returncode}): {done.stderr.strip()}")
    return int(done.stdout.split()[-1])


def check_properties(dropin, libxffi, load_allocs, reference, size_check, control=None):
    failures = []
    soname = dynamic_entries(dropin, "SONAME")
    print(f"SONAME: {soname}")
    if soname != ["libtvm_ffi.so"]:
        failures.append(f"SONAME is {soname}, expected libtvm_ffi.so (the name tvm-ffi's libraries need)")
    needed = dynamic_entries(dropin, "NEEDED")
    print(f"NEEDED: {needed}")
    extra = [n for n in needed if not ALLOWED_NEEDED.match(n)]
    if extra:
        failures.append(f"NEEDED has {extra}: the drop-in may need libc only (and the loader, libpthread, libdl)")
    size = stripped_size(dropin)
    print(f"stripped size: {size} bytes (limit {SIZE_LIMIT}{'' if size_check else ', not checked here'})")
    if size_check and size > SIZE_LIMIT:
        failures.append(f"stripped size {size} bytes exceeds {SIZE_LIMIT}")
    ours, theirs = defined_symbols(dropin), defined_symbols(libxffi)
    missing = sorted(n for n in theirs if n.startswith("xffi_") and n not in ours)
    print(f"exports: {sum(n.startswith('xffi_') for n in ours)} xffi_*, {sum(n.startswith('TVMFFI') for n in ours)} TVMFFI*")
    if missing:
        failures.append(f"libxffi exports {len(missing)} xffi_* the drop-in does not: {missing[:10]}")
    foreign = sorted(n for n in theirs if not n.startswith("xffi_"))
    if foreign:
        failures.append(f"libxffi exports names other than xffi_* (TVMFFI* belong to the drop-in only): {foreign[:10]}")
    for lib in (dropin, libxffi):
        functions = {n for n, t in defined_symbols(lib).items() if t in "TtiW" and (n.startswith("xffi_") or n.startswith("TVMFFI"))}
        bound = self_bound_calls(lib, functions)
        print(f"{os.path.basename(lib)}: {len(functions)} exported functions, {len(bound)} bound at run time")
        if bound:
            failures.append(f"{lib} binds calls to its own {bound[:10]} at run time (link it -Bsymbolic-functions)")
    if load_allocs:
        try:
            failures += check_load_allocations(dropin, load_allocs, reference, control)
        except CountFailed as error:
            failures.append(str(error))
    return failures


def check_load_allocations(dropin, load_allocs, reference, control):
    """Failures of the count at dlopen: the drop-in against the reference, and
    the counter against its controls."""
    failures = []
    base, count = allocations(load_allocs, reference), allocations(load_allocs, dropin)
    print(f"allocations during dlopen: drop-in {count}, reference library {base} (the dynamic loader's)")
    if base == 0:
        failures.append("loading the reference library counts 0 allocations: the dynamic loader allocates "
                        "for every object, so the counter does not see the process's malloc calls")
    if count > base:
        failures.append(f"loading the drop-in allocates {count - base} times beyond the dynamic loader's {base}")
    if control:
        seen = allocations(load_allocs, control)
        print(f"allocations during dlopen: negative control {os.path.basename(control)} {seen}")
        if seen <= base:
            failures.append(f"the negative control {control} counts {seen} allocations, no more than the "
                            f"reference library's {base}: the counter does not see its allocations")
    return failures


def check_abi(dropin, header):
    declared = sorted(set(re.findall(r"\b(TVMFFI\w+)\s*\(", open(header).read())))
    ours = defined_symbols(dropin)
    missing = [n for n in declared if ours.get(n, "") not in ("T", "t", "W", "i")]
    print(f"{len(declared)} TVMFFI* declared in {os.path.basename(header)}, {len(declared) - len(missing)} defined and exported")
    return [f"not defined: {', '.join(missing)}"] if missing else []


# What the wheel exports from tvm::ffi that is no part of the ABI: static
# locals of its own functions (and their guards), which no client imports.
CXX_INTERNAL = re.compile(r"^(_ZGV|_ZZN).*")
ALLOWED_CXX_NEEDED = re.compile(r"^(libstdc\+\+\.so\.6|libgcc_s\.so\.1|libm\.so\.6)$")


def check_cxx(dropin, c_part, wheel):
    failures = []
    ours, c_only, theirs = defined_symbols(dropin), defined_symbols(c_part), defined_symbols(wheel)
    wanted = sorted(n for n in theirs if re.match(r"^_Z[A-Z]*N3tvm3ffi", n) and not CXX_INTERNAL.match(n))
    missing = [n for n in wanted if n not in ours]
    print(f"tvm::ffi C++ symbols the wheel exports: {len(wanted)} (besides {len(theirs) - len(wanted)} others); "
          f"the drop-in exports {len(wanted) - len(missing)} of them")
    if missing:
        failures.append(f"the drop-in does not export {len(missing)} of the wheel's C++ symbols: {missing[:10]}")
    c_names = {n for n in c_only if n.startswith(("xffi_", "TVMFFI"))}
    full_names = {n for n in ours if n.startswith(("xffi_", "TVMFFI"))}
    if c_names != full_names:
        failures.append(f"the C++ half changes the C exports: {sorted(c_names ^ full_names)[:10]}")
    # The standard library's template instances are weak and public in every
    # C++ library (libstdc++ marks its namespaces std and __gnu_cxx so; an
    # unoptimised build keeps the iterator operators out of line), the
    # wheel's too.
    std_weak = [n for n in ours if n not in c_only and ours[n] in "WVu"
                and re.match(r"^_Z[A-Z]*(St|NSt|NKSt|9__gnu_cxx)", n)]
    extra = sorted(n for n in ours if n not in c_only and n not in wanted and n not in std_weak
                   and not re.match(r"^_Z[A-Z]*N3tvm3ffi", n))
    print(f"other names the C++ half exports: {len(std_weak)} weak standard-library instances, {len(extra)} more")
    if extra:
        failures.append(f"the C++ half exports names outside tvm::ffi and the standard library: {extra[:10]}")
    needed = dynamic_entries(dropin, "NEEDED")
    print(f"NEEDED: {needed}")
    extra_needed = [n for n in needed if not ALLOWED_NEEDED.match(n) and not ALLOWED_CXX_NEEDED.match(n)]
    if extra_needed:
        failures.append(f"NEEDED has {extra_needed}: the drop-in may add the C++ runtime only")
    full, c_size = stripped_size(dropin), stripped_size(c_part)
    print(f"stripped size: {full} bytes, of which the C part {c_size}, the C++ part {full - c_size}")
    return failures


def main(argv):
    if len(argv) >= 6 and argv[1] == "properties":
        load_allocs = argv[4] if argv[4] != "-" else None
        options = argv[6:]
        control = None
        if "--control" in options:
            at = options.index("--control")
            if at + 1 >= len(options):
                print("--control needs a library path", file=sys.stderr)
                return 2
            control = options[at + 1]
            del options[at:at + 2]
        unknown = [o for o in options if o != "--no-size"]
        if unknown:
            print(f"unknown option {unknown[0]}\n{__doc__}", file=sys.stderr)
            return 2
        failures = check_properties(argv[2], argv[3], load_allocs, argv[5], "--no-size" not in options, control)
    elif len(argv) == 4 and argv[1] == "abi":
        failures = check_abi(argv[2], argv[3])
    elif len(argv) == 5 and argv[1] == "cxx":
        failures = check_cxx(argv[2], argv[3], argv[4])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for f in failures:
        print(f"FAILED: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
