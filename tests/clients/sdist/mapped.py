"""Runs a client's Python script as its users run it (`python SCRIPT ARGS`),
then prints the libtvm_ffi.so files the process mapped, so the clients step
can check which runtime served it.

  mapped.py SCRIPT [ARG...]"""
import runpy
import sys

script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
maps = open("/proc/self/maps").read().splitlines()
print("runtime", sorted({line.split()[-1] for line in maps if line.endswith("/libtvm_ffi.so")}))
