"""Runs a client's Python script as its users run it (`python SCRIPT ARGS`),
or a module as `python -m MODULE ARGS` runs it, then prints the libtvm_ffi.so
files the process mapped, so the clients step can check which runtime served
it.

  mapped.py SCRIPT [ARG...]
  mapped.py -m MODULE [ARG...]"""
import runpy
import sys

if sys.argv[1] == "-m":
    module = sys.argv[2]
    sys.argv = sys.argv[2:]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as done:
        # A module's CLI exits; its status still decides, after the maps are printed.
        status = done.code
    else:
        status = 0
else:
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(script, run_name="__main__")
    status = 0
maps = open("/proc/self/maps").read().splitlines()
print("runtime", sorted({line.split()[-1] for line in maps if line.endswith("/libtvm_ffi.so")}))
sys.exit(status)
