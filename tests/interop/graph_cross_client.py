"""One side of test_graph_cross_runtime.py: run in a process whose tvm_ffi
runs either on the wheel's own runtime or on xffi's (PYTHONPATH = the
overlay of scripts/tvm-ffi-on-xffi.sh). Builds the same value on either
runtime: containers, strings (inline and heap), bytes, a Shape, a dtype, a
device, and objects of the wheel's testing library, with sharing.

    graph_cross_client.py write OUT     writes the value's graph text to OUT
    graph_cross_client.py read FILE     reads the graph text in FILE and
                                        prints a JSON report: whether it is
                                        equal to the value built here, the
                                        hashes of both, sharing and enum
                                        singletons kept, and the graph text
                                        of what was read

Both print (first, for write alone) the runtime library the process mapped,
so the test can tell the two sides really ran on different runtimes.
"""
from __future__ import annotations

import json
import sys
from typing import Any, Optional

import tvm_ffi
import tvm_ffi.testing
from tvm_ffi import serialization, structural
from tvm_ffi._ffi_api import RecursiveEq, RecursiveHash
from tvm_ffi.core import Object
from tvm_ffi.dataclasses import IntEnum, StrEnum, py_class


class Level(IntEnum, type_key="xffi_cross.Level"):
    LOW = -9
    HIGH = 40


class Op(StrEnum, type_key="xffi_cross.Op"):
    ADD = "+"
    MUL = "*"


@py_class("xffi_cross.Leaf")
class Leaf(Object):
    """POD fields (written inline) and a string."""

    count: int
    weight: float
    flag: bool
    name: str


@py_class("xffi_cross.Node")
class Node(Object):
    """Object and container fields, an enum, an Optional, an Any."""

    label: str
    level: Level
    op: Op
    children: list[Any]
    table: dict[str, Any]
    extra: Optional[Leaf]
    payload: Any


def build_structural():
    """Containers, strings, bytes, Shapes, dtypes, devices and py_class
    objects with enums, with sharing: compared with StructuralEqual/Hash."""
    leaf = Leaf(count=-3, weight=0.25, flag=True, name="leaf")
    other = Leaf(count=2**40, weight=-1.5, flag=False, name="a name longer than an inline string")
    shared_list = tvm_ffi.List([1, 2.5, "x"])
    many = tvm_ffi.Map({f"key{i}": i * i for i in range(12)})
    inner = Node(label="inner", level=Level.LOW, op=Op.MUL, children=[leaf, leaf], table={"l": leaf},
                 extra=None, payload=many)
    root = Node(label="root", level=Level.HIGH, op=Op.ADD, children=[inner, other, leaf],
                table={"inner": inner, "n": 7}, extra=other, payload=tvm_ffi.Shape((5, 6)))
    return tvm_ffi.Array([
        None, True, False, 0, -1, 2**62, 0.5, -3.0,
        "", "short", "a longer string than fits inline in a value",
        b"", b"xyz", bytes(range(40)),
        tvm_ffi.Shape((2, 3, 4)), tvm_ffi.Shape(()),
        tvm_ffi.dtype("float32"), tvm_ffi.dtype("int8x4"), tvm_ffi.dtype("bool"),
        tvm_ffi.Device("cpu", 0), tvm_ffi.Device("cuda", 3),
        shared_list, shared_list,
        tvm_ffi.Dict({"list": shared_list, 7: "seven", "nested": tvm_ffi.Array([tvm_ffi.Map({})])}),
        many, root, inner, leaf,
    ])


def build_testing():
    """Objects of the wheel's testing library (no structural kind: compared
    with RecursiveEq/RecursiveHash), with sharing."""
    pair = tvm_ffi.testing.TestIntPair(3, -7)
    big = tvm_ffi.testing.TestIntPair(10**15, -(10**15))
    derived = tvm_ffi.testing.create_object(
        "testing.TestObjectDerived",
        v_i64=-5,
        v_f64=1.25,
        v_str="a heap string, longer than an inline one",
        v_map=tvm_ffi.Map({"a": pair, "b": big}),
        v_array=tvm_ffi.Array([pair, pair, big]),
    )
    return tvm_ffi.Array([pair, pair, big, derived, derived])


def build():
    return tvm_ffi.Array([build_structural(), build_testing()])


def runtime_library():
    """The path of the libtvm_ffi.so this process mapped."""
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            if line.rstrip().endswith("/libtvm_ffi.so"):
                return line.split()[-1]
    return ""


def main():
    value = build()
    if sys.argv[1] == "write":
        with open(sys.argv[2], "w", encoding="utf-8") as f:
            f.write(serialization.to_json_graph_str(value))
        print(json.dumps({"runtime": runtime_library()}))
        return
    with open(sys.argv[2], encoding="utf-8") as f:
        text = f.read()
    read = serialization.from_json_graph_str(text)
    plain, testing = read[0], read[1]
    print(json.dumps({
        "runtime": runtime_library(),
        "structural_equal": bool(structural.structural_equal(plain, value[0])),
        "structural_hash_read": structural.structural_hash(plain),
        "structural_hash_built": structural.structural_hash(value[0]),
        "recursive_equal": bool(RecursiveEq(testing, value[1])),
        "recursive_hash_read": RecursiveHash(testing),
        "recursive_hash_built": RecursiveHash(value[1]),
        "shared": [plain[21].same_as(plain[22]), plain[25].children[0].same_as(plain[26]),
                   plain[26].children[0].same_as(plain[27]), testing[0].same_as(testing[1]),
                   testing[3].same_as(testing[4]), testing[3].v_array[0].same_as(testing[0])],
        "enum_singletons": [plain[25].level.same_as(Level.HIGH), plain[26].op.same_as(Op.MUL)],
        "text": serialization.to_json_graph_str(read),
    }))


main()
