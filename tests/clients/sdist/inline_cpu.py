"""The CPU part of the pinned sdist's examples/inline_module, run as its
main.py runs it: the C++ source of its load_inline call (read from main.py,
so the example's own code is what gets compiled) built by
tvm_ffi.cpp.load_inline with the installed headers, then add_one_cpu called.
main.py's tensors are torch's; NumPy's go through the same DLPack path, so
they stand in here (torch is not installed). Only add_one_cpu is built: the
CUDA source needs nvcc and a GPU. Its TVM_FFI_ICHECKs are checked too: a 2-D
input comes back as an error naming the check.

  inline_cpu.py MAIN_PY

Prints what it saw and the libtvm_ffi.so files mapped."""
import ast
import sys

import numpy as np
import tvm_ffi.cpp


def load_inline_keywords(main_py):
    """The literal keyword arguments of main.py's tvm_ffi.cpp.load_inline call."""
    tree = ast.parse(open(main_py).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "load_inline":
            return {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords}
    raise SystemExit(f"{main_py}: no load_inline call")


keywords = load_inline_keywords(sys.argv[1])
mod = tvm_ffi.cpp.load_inline(name=keywords["name"], cpp_sources=keywords["cpp_sources"], functions=["add_one_cpu"])
x = np.array([1, 2, 3, 4, 5], dtype=np.float32)
y = np.empty_like(x)
mod.add_one_cpu(x, y)
print("add_one_cpu", y)
np.testing.assert_allclose(y, x + 1)
try:
    mod.add_one_cpu(np.ones((2, 2), dtype=np.float32), y)
    print("a 2-D input raised nothing")
except Exception as error:  # TVM_FFI_ICHECK raises InternalError
    print(f"a 2-D input raised {type(error).__name__}: {str(error).strip().splitlines()[-1]}")
maps = open("/proc/self/maps").read().splitlines()
print("runtime", sorted({line.split()[-1] for line in maps if line.endswith("/libtvm_ffi.so")}))
