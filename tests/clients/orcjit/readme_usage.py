"""orcjit's README usage: an object file loaded through the shared session,
a function called, an error coming back; prints what it saw and the
libtvm_ffi.so files mapped."""
import sys

import tvm_ffi_orcjit as oj

session = oj.default_session()
mod = session.load_module(sys.argv[1])
print("add(1, 2) =", mod.add(1, 2))
try:
    mod.fail(7)
    print("fail(7) raised nothing")
except ValueError as error:
    print("fail(7) raised ValueError:", error)
print("kind", mod.kind, "implements add", mod.implements_function("add"))
maps = open("/proc/self/maps").read().splitlines()
print("runtime", sorted({line.split()[-1] for line in maps if line.endswith("/libtvm_ffi.so")}))
