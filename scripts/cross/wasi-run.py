#!/usr/bin/env python3
"""Runs a wasm32-wasi program under wasmtime (its PyPI package, which has no
command-line runner): arguments, environment, stdio and the working directory
pass through, and the program's exit status becomes this process's.

    python3 scripts/cross/wasi-run.py PROGRAM.wasm [ARGS...]

Used as CMAKE_CROSSCOMPILING_EMULATOR by cmake/toolchains/wasm32-wasi.cmake."""
import os
import sys

import wasmtime


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    program = sys.argv[1]
    engine = wasmtime.Engine()
    module = wasmtime.Module.from_file(engine, program)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    wasi = wasmtime.WasiConfig()
    wasi.argv = [os.path.basename(program)] + sys.argv[2:]
    wasi.inherit_env()
    wasi.inherit_stdin()
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    wasi.preopen_dir(os.getcwd(), ".")
    store = wasmtime.Store(engine)
    store.set_wasi(wasi)
    instance = linker.instantiate(store, module)
    start = instance.exports(store)["_start"]
    try:
        start(store)
    except wasmtime.ExitTrap as exit_trap:
        return exit_trap.code
    except wasmtime.Trap as trap:
        print(f"wasi-run: {program} trapped: {trap}", file=sys.stderr)
        return 134
    return 0


if __name__ == "__main__":
    sys.exit(main())
