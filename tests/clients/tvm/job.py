"""The TVM compiler (apache-tvm 0.27.0.post1) on whichever tvm-ffi runtime
the process loads: one part per run (te_add_one, relax_vm,
assert_structural_equal), each printing "PART ok", then the libtvm_ffi.so
files mapped."""
import sys

import numpy as np
import tvm
from tvm import relax, te
from tvm.script import relax as R

part = sys.argv[1]


def add_one_func(n=16):
    a = te.placeholder((n,), name="A", dtype="float32")
    b = te.compute((n,), lambda i: a[i] + 1.0, name="B")
    return te.create_prim_func([a, b])


@tvm.script.ir_module
class AddModule:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        z = R.add(x, y)
        return z


if part == "te_add_one":
    f = tvm.compile(add_one_func(), target="llvm")
    a = tvm.runtime.tensor(np.arange(16, dtype="float32"))
    b = tvm.runtime.tensor(np.zeros(16, dtype="float32"))
    f(a, b)
    assert np.allclose(b.numpy(), np.arange(16) + 1), b.numpy()
elif part == "relax_vm":
    vm = relax.VirtualMachine(tvm.compile(AddModule, target="llvm"), tvm.cpu())
    x = tvm.runtime.tensor(np.ones(4, dtype="float32"))
    out = vm["main"](x, x)
    assert np.allclose(out.numpy(), 2), out.numpy()
elif part == "assert_structural_equal":
    tvm.ir.assert_structural_equal(AddModule, AddModule)
    try:
        tvm.ir.assert_structural_equal(add_one_func(16), add_one_func(8))
        raise AssertionError("no mismatch reported for different shapes")
    except ValueError as error:
        assert "StructuralEqual check failed" in str(error), error
else:
    raise SystemExit(f"unknown part {part}")
print(part, "ok")
maps = open("/proc/self/maps").read().splitlines()
print("runtime", sorted({line.split()[-1] for line in maps if line.endswith("/libtvm_ffi.so")}))
